"""``companion director ...`` and ``companion link`` (docs/tournament.md)."""

from __future__ import annotations

import argparse
import sys

DEFAULT_EVENT = "tournament"


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``director`` and ``link`` to the ``companion`` parser."""
    d = sub.add_parser(
        "director",
        help="the tournament director: broker, store, set-ups, results (docs/tournament.md)",
        description=(
            "Without an action: run the director. It starts its own Mosquitto (configuration, "
            "password file and ACL in the data directory's director/) unless --broker names one "
            "already running, subscribes to every table and stores each state, event, result "
            "and board in SQLite (director/EVENT.sqlite), acking each result once stored."
        ),
    )
    _event(d)
    d.add_argument(
        "--broker",
        help="a running broker, mqtt://HOST:PORT or mqtts://HOST:PORT",
    )
    d.add_argument(
        "--broker-port",
        type=str,
        default=1883,
        help="the port of the broker the director starts (default 1883)",
    )
    d.add_argument(
        "--listen",
        action="append",
        metavar="ADDRESS",
        help="an address the broker listens on besides 127.0.0.1 (repeat; default: "
        "every address of this machine, the hall's included); 127.0.0.1 alone keeps "
        "it on this machine",
    )
    d.add_argument(
        "--tls-port",
        type=str,
        default=8883,
        help="with a hall CA (director ca), the broker's TLS port (default 8883)",
    )
    d.add_argument("--http", metavar="HOST:PORT", help="serve the director's web pages there")
    d.add_argument(
        "--pages-url",
        metavar="URL",
        help="the pages' address as the players' phones reach it, for the QR code on each "
        "table's ready screen (default: http://THIS-MACHINE'S-ADDRESS:PORT)",
    )
    d.add_argument(
        "--password",
        help="the director's password for the web pages "
        "(default: $COMPANION_DIRECTOR_PASSWORD, else one made and printed)",
    )
    d.add_argument(
        "--viewer-pin",
        help="a PIN for viewing the web pages too (default: $COMPANION_VIEWER_PIN, else "
        "viewing is open on the hall's network)",
    )
    d.set_defaults(func=_run)
    dsub = d.add_subparsers(dest="director_command", metavar="ACTION")

    t = dsub.add_parser("tables", help="table accounts")
    tsub = t.add_subparsers(dest="tables_command", metavar="ACTION")
    tsub.required = True
    add = tsub.add_parser(
        "add",
        help="create accounts for tables N... (usable at once) and print their credentials once",
    )
    add.add_argument("numbers", nargs="+", metavar="N", help="table numbers (3 or 1-20)")
    add.add_argument("--json", action="store_true", help='print {"tables": {"N": {...}}}')
    _event(add)
    add.set_defaults(func=_tables_add)
    ls = tsub.add_parser("list", help="the tables with an account")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=_tables_list)

    r = dsub.add_parser(
        "round",
        help="pair round R, make every table's set-up and publish it",
        description=(
            "Pair round R from a CSV file (table,blue,red), as a round robin (Berger tables) "
            "or as a Swiss (score groups, no rematch, colours balanced), make each table's "
            "set-up (players, colours, time control, game, lexicon), keep it in the store and "
            "publish it to the tables (retained: a table that connects later gets it)."
        ),
    )
    r.add_argument("round", type=int, help="the round number, 1 or more")
    how = r.add_mutually_exclusive_group(required=True)
    how.add_argument("--pairings", metavar="CSV", help="pairings file: table,blue,red a line")
    how.add_argument("--round-robin", action="store_true", help="Berger tables over --players")
    how.add_argument("--swiss", action="store_true", help="Swiss over --players")
    r.add_argument(
        "--players",
        nargs="+",
        metavar="NAME",
        help="the players in seeding order (or @FILE, one name a line)",
    )
    r.add_argument(
        "--colours",
        choices=("lot", "balanced", "fixed"),
        default=None,
        help="lot (default for CSV and round robin: drawn), balanced (default for "
        "Swiss), fixed (as paired)",
    )
    r.add_argument(
        "--minutes",
        type=int,
        default=None,
        help="each player's allowance in minutes (default 5; scrabble: own time, default 25)",
    )
    r.add_argument("--minute-seconds", type=float, default=60.0, help="the sand minute (s)")
    r.add_argument("--game", default="iago", help="iago, iota, wordinoes or scrabble")
    r.add_argument(
        "--challenge",
        default=None,
        help="scrabble: what a wrong challenge costs: double (default) or points",
    )
    r.add_argument(
        "--challenge-points", type=int, default=None, help="scrabble: points (default 5)"
    )
    r.add_argument(
        "--overtime-points",
        type=int,
        default=None,
        help="scrabble: points off per minute or part of overtime (default 10)",
    )
    r.add_argument("--lexicon", default="", help="the word list (default: the table's)")
    r.add_argument(
        "--bye-spread",
        type=float,
        default=None,
        help="a bye's spread (a bye is a win; default: --minutes for Iago, 0 for other games)",
    )
    r.add_argument("--seed", type=int, help="the lot's random seed (default: random)")
    r.add_argument("--dry-run", action="store_true", help="print the set-ups, publish nothing")
    r.add_argument("--json", action="store_true", help="print the set-ups as JSON (for scripts)")
    r.add_argument(
        "--broker",
        default=argparse.SUPPRESS,  # else this default overwrites a --broker given before it
        help="the director's broker (default: the running director's)",
    )
    _event(r)
    r.set_defaults(func=_round)

    res = dsub.add_parser("results", help="the results stored, one per game")
    fmt = res.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="a JSON list")
    fmt.add_argument("--csv", action="store_true", help="CSV with a header line")
    _event(res)
    res.set_defaults(func=_results)

    st = dsub.add_parser(
        "standings",
        help="the players by points (a win 1, a draw 1/2, a bye 1), then spread, then Buchholz",
    )
    st.add_argument("--json", action="store_true")
    _event(st)
    st.set_defaults(func=_standings)

    c = dsub.add_parser("correct", help="correct a result (kept with who, when and why)")
    c.add_argument("table", type=int)
    c.add_argument("game", help="the game id (companion director results)")
    change = c.add_mutually_exclusive_group(required=True)
    change.add_argument("--winner", choices=("blue", "red"))
    change.add_argument("--loser", choices=("blue", "red"))
    change.add_argument("--draw", action="store_true")
    change.add_argument("--void", action="store_true", help="the game counts for no one")
    change.add_argument("--unvoid", action="store_true", help="undo a void")
    change.add_argument(
        "--accept",
        action="store_true",
        help="count a result held as not in a set-up (director results says why it is held)",
    )
    change.add_argument("--unaccept", action="store_true", help="hold an accepted result again")
    c.add_argument("--reason", required=True)
    c.add_argument("--who", required=True, help="the director making the correction")
    _event(c)
    c.set_defaults(func=_correct)

    ca = dsub.add_parser(
        "ca",
        help="make a self-signed CA for the hall and the broker's "
        "certificate (director/tls/); the broker then listens with TLS too",
    )
    ca.add_argument(
        "--name",
        action="append",
        metavar="HOST_OR_IP",
        help="the broker's host names and addresses as tables reach it (repeat)",
    )
    ca.add_argument("--days", type=int, default=825)
    ca.set_defaults(func=_ca)

    link = sub.add_parser(
        "link",
        help="the table's link to the director (beside the table service; docs/tournament.md)",
        description=(
            "Publish this table's journal, state and results to the director's broker "
            "([tournament] in table.toml), resend each result until acked, and write each "
            "set-up received into table.toml (the table service takes it between games)."
        ),
    )
    link.add_argument("--poll", type=float, default=0.05, help="seconds between looks")
    link.add_argument(
        "--resend-seconds",
        type=float,
        default=5.0,
        help="seconds without an ack before a result is sent again",
    )
    link.set_defaults(func=_link)


def _event(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--event",
        default=argparse.SUPPRESS,
        help="the tournament's short name (default: the last one run here)",
    )


# -- the director's options, checked before anything starts (exit 2 naming the option) -------

PORT_MAX = 65535  # the largest TCP port number (16 bits)


def _port(text: str, option: str) -> int:
    """A TCP port for a listener: a whole number 1 to 65535."""
    from companion.tournament.broker import BrokerError

    try:
        port = int(str(text).strip())
    except ValueError:
        port = None
    if port is None or not 1 <= port <= PORT_MAX or not str(text).strip().isascii():
        raise BrokerError(f"{option} {text!r}: accepted a port number 1 to {PORT_MAX}")
    return port


def _listen_address(text: str) -> str:
    """An address of this machine for the broker to listen on: an IP address or a host name
    that this machine can bind (a bind on port 0 is tried; nothing listens)."""
    import socket

    from companion.tournament.broker import BrokerError, check_host_name

    check_host_name(text, "--listen")
    try:
        family, _, _, _, address = socket.getaddrinfo(text, 0, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind(address)
    except (OSError, IndexError) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise BrokerError(
            f"--listen {text!r}: not an address of this machine ({why}); accepted one of its "
            "own addresses (ip -brief address) or 127.0.0.1"
        ) from None
    return text


def _check_options(args) -> None:
    """Check the director's own options (``--broker``, ``--broker-port``, ``--tls-port``,
    ``--listen``, ``--pages-url``, ``--http``) in place, before any broker, store or page starts.

    Raises:
        CompanionError: the first bad option, naming it, what is wrong and what is accepted.
    """
    from companion.tournament.mqtt import parse_url
    from companion.tournament.qr import check_pages_url

    if args.broker:
        parse_url(args.broker)
    args.broker_port = _port(args.broker_port, "--broker-port")
    args.tls_port = _port(args.tls_port, "--tls-port")
    args.listen = [_listen_address(a) for a in args.listen or []] or None
    if args.pages_url is not None:
        args.pages_url = check_pages_url(args.pages_url)
    if args.http:
        try:
            from companion.tournament.web import parse_address
        except ModuleNotFoundError:  # the pages are not installed: said when they start
            return
        parse_address(args.http)


# -- helpers ---------------------------------------------------------------------------------


def _event_name(args) -> str:
    from companion.tournament import protocol
    from companion.tournament.director import director_dir

    name = getattr(args, "event", None)
    if name is None:
        try:
            name = (director_dir() / "event").read_text().strip() or DEFAULT_EVENT
        except OSError:  # no event run here: the demo's (make tournament), if there is one
            from companion.tournament.demo import EVENT as DEMO_EVENT
            from companion.tournament.demo import demo_store

            name = DEMO_EVENT if demo_store(DEMO_EVENT).exists() else DEFAULT_EVENT
    return protocol.check_event(name)


def _store(args, must_exist: bool = True):
    from companion.tournament.director import store_path
    from companion.tournament.store import Store, StoreError

    event = _event_name(args)
    path = store_path(event)
    if must_exist and not path.exists():
        from companion.tournament.demo import demo_store

        if demo_store(event).exists():  # the demo's hall (make tournament), kept
            print(f"(the demo's store, from make tournament: {demo_store(event)})", file=sys.stderr)
            return Store(demo_store(event))
        raise StoreError(
            f"no store for event {_event_name(args)!r} ({path}); run 'companion director "
            "--event NAME' first, or give --event"
        )
    return Store(path)


def _numbers(items: list[str]) -> list[int]:
    """The table numbers of ``tables add``'s arguments: each ``N`` or ``LOW-HIGH`` in ASCII
    digits, every number 1 to 999 (a range is checked before it is expanded).

    Raises:
        BrokerError: the first bad item, naming it, what is wrong and what is accepted.
    """
    import re

    from companion.tournament.broker import BrokerError
    from companion.tournament.protocol import TABLE_MAX

    accepted = f"accepted a number (3) or a range (1-20) of table numbers 1 to {TABLE_MAX}"
    out: set[int] = set()
    for item in items:
        got = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", item.strip(), re.ASCII)
        if got is None:
            raise BrokerError(f"table {item!r}: {accepted}")
        lo = int(got[1])
        hi = lo if got[2] is None else int(got[2])
        if not (1 <= lo <= TABLE_MAX and 1 <= hi <= TABLE_MAX):
            raise BrokerError(f"table {item!r}: out of range; {accepted}")
        if hi < lo:
            raise BrokerError(f"table {item!r}: the range ends before it begins; {accepted}")
        out.update(range(lo, hi + 1))
    return sorted(out)


def _run_info() -> dict:
    import json

    from companion.tournament.director import director_dir

    try:
        return json.loads((director_dir() / "running.json").read_text())
    except (OSError, ValueError):
        return {}


# -- handlers ----------------------------------------------------------------------------------


def _run(args) -> int:
    from companion.tournament.service import run_director

    _check_options(args)
    return run_director(args, _event_name(args))


def _tables_add(args) -> int:
    import json

    from companion.tournament import broker as brk
    from companion.tournament.director import director_dir
    from companion.tournament.mqtt import check_login, parse_url

    numbers = _numbers(args.numbers)
    accounts = brk.Accounts(director_dir())
    creds = accounts.add_tables(numbers, _event_name(args))
    reloaded = brk.reload_running(accounts)
    info = _run_info()
    if reloaded and info.get("broker"):
        last = creds[numbers[-1]]
        check_login(parse_url(info["broker"]), last["username"], last["password"], timeout=5.0)
    if args.json:
        print(json.dumps({"tables": {str(n): c for n, c in creds.items()}}, ensure_ascii=False))
    else:
        for n, c in creds.items():
            print(f"table {n}: username {c['username']} password {c['password']}")
        print(
            "These passwords are shown once (the broker keeps only their hashes). Give each "
            "table its line as a JSON file named in [tournament] credentials.",
            file=sys.stderr,
        )
    return 0


def _tables_list(args) -> int:
    import json

    from companion.tournament.broker import Accounts
    from companion.tournament.director import director_dir

    tables = Accounts(director_dir()).tables()
    print(
        json.dumps({"tables": tables}, ensure_ascii=False)
        if args.json
        else " ".join(map(str, tables))
    )
    return 0


def _players(args) -> list[str]:
    from companion.cliutil import read_text
    from companion.tournament.pairing import PairingError

    names: list[str] = []
    for item in args.players or []:
        if item.startswith("@"):
            text, _ = read_text(item[1:], PairingError, "players file")
            names += [ln.strip() for ln in text.splitlines() if ln.strip() and ln[0] != "#"]
        else:
            names.append(item)
    if not names:
        raise PairingError("--round-robin and --swiss need --players NAME... (or @FILE)")
    return names


def _round(args) -> int:
    import json
    import random

    from companion.cliutil import read_text
    from companion.tournament import pairing, rounds
    from companion.tournament.mqtt import parse_url

    if args.broker:  # given before the action or after it: checked before anything is paired
        parse_url(args.broker)
    if args.minutes is None:  # the game's own default: Iago's 5, the crossword game's 25
        args.minutes = 25 if args.game == "scrabble" else 5
    event = _event_name(args)
    store = _store(args, must_exist=False)
    try:
        if args.pairings:
            text, name = read_text(args.pairings, pairing.PairingError, "pairings file")
            pairs = pairing.from_csv(text, name)
        elif args.round_robin:
            pairs = pairing.round_robin(_players(args), args.round)
        else:
            pairs = rounds.swiss_round(store, args.round, _players(args))
        colours = args.colours or ("balanced" if args.swiss else "lot")
        rng = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
        setups = rounds.make_round(
            store,
            args.round,
            pairs,
            minutes=args.minutes,
            minute_seconds=args.minute_seconds,
            game=args.game,
            lexicon=args.lexicon,
            colours=colours,
            scrabble={
                k: v
                for k, v in (
                    ("challenge", args.challenge),
                    ("challenge_points", args.challenge_points),
                    ("overtime_points", args.overtime_points),
                )
                if v is not None
            },
            rng=rng,
            event=event,
        )
        listed = _players(args) if (args.swiss or args.round_robin) else []
        players = rounds.round_players(pairs, listed)
        byes = rounds.bye_spreads(pairs, args.bye_spread, args.game, args.minutes)
        out = {
            "round": args.round,
            "setups": {str(t): s for t, s in setups.items()},
            "byes": rounds.byes(pairs),
            "bye_spread": byes,
        }
        if not args.dry_run:
            _warn_unfinished(store, args.round)
            out["published"] = _publish(args, store, event, args.round, setups, players, byes)
        if args.json:
            print(json.dumps(out, ensure_ascii=False))
        else:
            _print_round(out, args.dry_run)
        return 0
    finally:
        store.close()


def _print_round(out: dict, dry_run: bool) -> None:
    """A round's set-ups as a table for people (``--json`` gives scripts the JSON)."""
    setups = out["setups"]
    first = next(iter(setups.values()), {})
    control = (
        f"{first.get('minutes')} min, {first.get('minute_seconds'):g} s minute" if first else ""
    )
    print(f"Round {out['round']}: {len(setups)} tables, {first.get('game', '')} {control}".rstrip())
    width = max([len(s["blue"]) for s in setups.values()] + [4])
    print(f"{'table':>5}  {'blue':<{width}}  red")
    for table, s in setups.items():
        print(f"{table:>5}  {s['blue']:<{width}}  {s['red']}")
    for name, spread in out["bye_spread"].items():
        print(f"  bye  {name} (a win, spread {spread:+g})")
    if dry_run:
        print("Dry run: nothing stored or published.")
    elif out.get("published"):
        print("Published to the tables.")


def _warn_unfinished(store, round_no: int) -> None:
    """Say on stderr when the round published before ``round_no`` has tables still to report:
    publishing goes on (a table takes its new set-up only once its game is over)."""
    current = store.current_round()
    if current is None or current == round_no:
        return
    tables = set(store.round_setups(current))
    reported = {r["table"] for r in store.results() if r["round"] == current} & tables
    if len(reported) < len(tables):
        waiting = sorted(tables - reported)
        shown_tables = ", ".join(map(str, waiting[:10])) + (" ..." if len(waiting) > 10 else "")
        print(
            f"note: round {current} has {len(reported)} / {len(tables)} results reported "
            f"(tables {shown_tables} still playing); each takes round {round_no}'s set-up once "
            "its game is over",
            file=sys.stderr,
        )


def _publish(
    args, store, event: str, round_no: int, setups: dict, players: list, byes: dict
) -> bool:
    """Publish through the director's broker; keep the round in the store either way."""
    import time

    from companion.tournament import protocol, rounds
    from companion.tournament.broker import Accounts
    from companion.tournament.director import director_dir
    from companion.tournament.mqtt import connect, parse_url

    url_text = args.broker or _run_info().get("broker")
    if not url_text:
        store.set_round(round_no, setups, time.time(), players=players, byes=byes)
        print(
            "No director is running: the round is stored and will be published when "
            "'companion director' starts.",
            file=sys.stderr,
        )
        return False
    from companion.tournament.broker import COMMANDS_USER
    from companion.tournament.mqtt import BrokerURLError

    # an account of its own: the director's broker gives each account one client id, and the
    # director's session is the director account's. A broker run by others (--broker) may
    # know only the director's account: that one then.
    accounts = Accounts(director_dir())
    url = parse_url(url_text)
    tried = [accounts.service(COMMANDS_USER, event), accounts.ensure()]
    for i, creds in enumerate(tried):
        try:
            client = connect(
                url,
                creds["username"],
                creds["password"],
                f"companion-director-{event}-round",
                timeout=5.0,
            )
            break
        except BrokerURLError:
            if i == len(tried) - 1:
                raise
    try:
        rounds.publish_round(
            client,
            store,
            round_no,
            setups,
            prefix=protocol.prefix(event),
            pages=_run_info().get("pages") or "",
            players=players,
            byes=byes,
        )
    finally:
        client.disconnect()
        client.loop_stop()
    from companion.tournament.broker import save_running

    save_running(Accounts(director_dir()))  # the director's own broker: on its disk at once
    return True


def _results(args) -> int:
    import json

    from companion.tournament.web.views import results_csv

    store = _store(args)
    try:
        results = store.results()
    finally:
        store.close()
    if args.json:
        print(json.dumps(results, ensure_ascii=False))
        return 0
    if args.csv:  # the one format, as /results.csv
        sys.stdout.write(results_csv(results))
        return 0
    if not results:
        print("No results yet.")
    for r in results:
        names = r["players"]
        blue, red = names.get("blue") or "", names.get("red") or ""
        rnd = f"round {r['round']} " if r["round"] is not None else ""
        winner = {"blue": blue, "red": red}.get(r["winner"] or "")
        outcome = (
            "void" if r["void"] else ("draw" if r["draw"] else f"{winner} ({r['winner']}) won")
        )
        fixes = "; ".join(f"{c['change']} by {c['who']}: {c['reason']}" for c in r["corrections"])
        fix = f" (corrected: {fixes})" if fixes else ""
        if r["held"]:
            outcome = f"HELD: not in a set-up ({r['held']}); as sent: {outcome}"
        print(
            f"{rnd}table {r['table']}: {blue} (blue) v {red} (red): {outcome}{fix}  [{r['game']}]"
        )
    return 0


def _standings(args) -> int:
    import json

    store = _store(args)
    try:
        rows = store.standings()
    finally:
        store.close()
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    print(
        f"{'#':>3} {'player':<16} {'points':>6} {'played':>6} {'wins':>4} {'draws':>5} "
        f"{'losses':>6} {'byes':>4} {'spread':>7} {'buchholz':>8}"
    )
    for r in rows:
        print(
            f"{r['rank']:>3} {r['player']:<16} {r['points']:>6g} {r['played']:>6} {r['wins']:>4} "
            f"{r['draws']:>5} {r['losses']:>6} {r['byes']:>4} {r['spread']:>+7g} "
            f"{r['buchholz']:>8g}"
        )
    return 0


def _correct(args) -> int:
    import json
    import time

    if args.winner:
        change = {"winner": args.winner}
    elif args.loser:
        change = {"loser": args.loser}
    elif args.draw:
        change = {"draw": True}
    elif args.accept or args.unaccept:
        change = {"accept": bool(args.accept)}
    else:
        change = {"void": bool(args.void)}
    store = _store(args)
    try:
        cid = store.add_correction(
            args.table, args.game, change, args.reason, args.who, time.time()
        )
    finally:
        store.close()
    print(
        json.dumps(
            {"correction": cid, "table": args.table, "game": args.game, "change": change},
            ensure_ascii=False,
        )
    )
    return 0


def _ca(args) -> int:
    import contextlib
    import json
    import socket

    from companion.tournament.broker import BrokerError, check_host_name, make_hall_ca
    from companion.tournament.director import director_dir

    given = [check_host_name(n) for n in args.name or []]  # all checked before any file
    names = given + ["localhost", "127.0.0.1"]
    # a machine name that is no DNS name is left out; --name gives the right one
    with contextlib.suppress(BrokerError):
        names.insert(len(given), check_host_name(socket.gethostname(), "this machine's name"))
    files = make_hall_ca(director_dir() / "tls", names, args.days)
    print(
        json.dumps(
            {
                "ca": str(files.ca),
                "cert": str(files.cert),
                "key": str(files.key),
                "names": list(dict.fromkeys(names)),
            },
            ensure_ascii=False,
        )
    )
    print(
        "Copy ca.pem to every table and name it in [tournament] ca; tables then use "
        "mqtts://HOST:8883.",
        file=sys.stderr,
    )
    return 0


def _link(args) -> int:
    from companion.tournament.service import run_link

    return run_link(args)
