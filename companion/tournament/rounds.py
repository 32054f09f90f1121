"""A round's set-ups: made from pairings, kept in the store, published to the tables.

This is the one operation behind ``companion director round R`` and the director's ``/round``
page. A set-up is the JSON payload of ``tables/N/setup`` (retained, QoS 1; docs/tournament.md)::

    {"round": 2, "table": 7, "game": "iago",
     "players": {"blue": "Ada", "red": "Bob"}, "blue": "Ada", "red": "Bob",
     "colours": "lot", "drawn_by_lot": true,
     "minutes": 5, "minute_seconds": 60.0, "lexicon": "scowl-70-both",
     "event": "spring", "setup_id": "2-7-1764577200.000"}

``blue``/``red``/``drawn_by_lot``/``minutes``/``minute_seconds``/``lexicon``/``game`` are the
table's ``[table]`` keys (companion.daemon.config); ``colours`` says how the colours were decided:
``lot`` (drawn by the director), ``balanced`` (from each player's colours so far) or ``fixed``
(as the pairing gave them: a CSV file's columns, the Berger table's colours).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from companion.errors import CompanionError
from companion.tournament import pairing as _pairing
from companion.tournament.pairing import Pairing, PairingError

COLOURS_CHOICES = ("lot", "balanced", "fixed")
ROUND_MAX = 999  # a table's ``[table] round`` is 0 to 999 (companion.daemon.config)
BYE_SPREAD_MAX = 999  # a bye's spread, either sign: the /round form's limit, above any game's
# own spread (Iago at most 2 x 99 minutes; an Iota or crossword game's few hundred points)


class RoundError(CompanionError, ValueError):
    """A round that cannot be made or published: names the round, the table and the problem."""


def make_round(
    store,
    round: int,
    pairings: Sequence[Pairing],
    *,
    minutes: int = 5,
    minute_seconds: float = 60.0,
    game: str = "iago",
    lexicon: str = "",
    colours: str = "lot",
    rng: random.Random | None = None,
    event: str = "",
    now: float | None = None,
    scrabble: dict | None = None,
) -> dict[int, dict]:
    """Round ``round``'s set-ups from ``pairings`` (byes get no table).

    Args:
        store: the director's :class:`~companion.tournament.store.Store` (read for the colours
            so far when ``colours="balanced"``; nothing is written).
        round: the round number, 1 or more.
        pairings: the round's pairings; a pairing without a table takes the lowest number not
            used by another pairing of the round.
        minutes: each player's allowance in minutes (1 to 99); minute_seconds: the sand
            minute in seconds (1 to 600); game: ``iago``, ``iota`` or ``wordinoes``; lexicon: a
            lexicon name ("" is the table's default).
        colours: ``lot`` (drawn with ``rng``), ``balanced`` or ``fixed`` (see module docstring).
        rng: the lot's random source (default: a fresh ``random.Random()``).
        event: the tournament's short name, copied into each set-up.
        now: the set-ups' time stamp in seconds since the epoch (default: now).
        scrabble: the crossword game's settings (``challenge``, ``challenge_points``,
            ``overtime_points``: companion.daemon.config), copied into each set-up.

    Returns:
        ``{table: set-up payload}`` in table order.

    Raises:
        RoundError: a bad round, colours choice, or time control (every bad key at once,
            naming the table); PairingError: a player or table twice.
    """
    from companion.daemon.config import GAMES, TableConfigError, validate

    if isinstance(round, bool) or not isinstance(round, int) or not 1 <= round <= ROUND_MAX:
        raise RoundError(f"round {round!r}: accepted a whole number, 1 to {ROUND_MAX}")
    if game not in GAMES:
        raise RoundError(f"game {game!r}: accepted {', '.join(GAMES)}")
    if colours not in COLOURS_CHOICES:
        raise RoundError(f"colours {colours!r}: accepted {', '.join(COLOURS_CHOICES)}")
    pairings = _pairing.check_round(pairings, f"round {round}")
    rng = rng or random.Random()
    now = time.time() if now is None else now
    history = {}
    if colours == "balanced":
        history = _pairing.colour_history(_pairing.games_from_results(store.results()))
    used = {p.table for p in pairings if p.table is not None}
    free = (n for n in range(1, 10_000) if n not in used)
    setups: dict[int, dict] = {}
    problems = []
    for p in pairings:
        if p.bye:
            continue
        table = p.table if p.table is not None else next(free)
        blue, red = p.blue, p.red
        if colours == "lot" and rng.random() < 0.5:
            blue, red = red, blue
        elif colours == "balanced":
            blue, red = _pairing.balance(blue, red, history)
        values = {
            "number": table,
            "blue": blue,
            "red": red,
            "drawn_by_lot": colours == "lot",
            "minutes": minutes,
            "minute_seconds": minute_seconds,
            "lexicon": lexicon,
            "game": game,
            **(scrabble or {}),
        }
        try:
            cfg = validate(values, f"round {round} table {table}", check_names=False)
        except TableConfigError as exc:
            problems.append(str(exc))
            continue
        setups[table] = {
            "round": round,
            "table": table,
            "game": cfg.game,
            "players": {"blue": cfg.blue, "red": cfg.red},
            "blue": cfg.blue,
            "red": cfg.red,
            "colours": colours,
            "drawn_by_lot": cfg.drawn_by_lot,
            "minutes": cfg.minutes,
            "minute_seconds": cfg.minute_seconds,
            "lexicon": cfg.lexicon,
            **(
                {k: getattr(cfg, k) for k in ("challenge", "challenge_points", "overtime_points")}
                if cfg.game == "scrabble"
                else {}
            ),
            "event": event,
            "setup_id": f"{round}-{table}-{now:.3f}",
        }
    if problems:
        raise RoundError("; ".join(problems))
    if not setups:
        raise RoundError(
            f"round {round}: the pairings seat no one at a table (byes only); accepted "
            "pairings with at least one table of two players"
        )
    return dict(sorted(setups.items()))


def byes(pairings: Sequence[Pairing]) -> list[str]:
    """The players with a bye in ``pairings``."""
    return [p.blue for p in pairings if p.bye]


def played_games(store, round: int) -> list[_pairing.Game]:
    """Every game of the event for pairing round ``round``: each stored result (void ones left
    out) and each pairing of another round published without a result yet (it counts as
    played, reported or not: no rematch is offered while its result is on its way)."""
    games = _pairing.games_from_results(store.results())
    reported = {
        (r["round"], frozenset((r["players"].get("blue"), r["players"].get("red"))))
        for r in store.results()
    }
    for r in store.rounds():
        if r["round"] == round:
            continue  # the round being paired again replaces its own set-ups
        for setup in store.round_setups(r["round"]).values():
            blue, red = setup.get("blue"), setup.get("red")
            if not (isinstance(blue, str) and isinstance(red, str)):
                continue
            if (r["round"], frozenset((blue, red))) not in reported:
                games.append(_pairing.Game(blue, red))
    return games


def swiss_round(store, round: int, players: Sequence[str]) -> list[Pairing]:
    """Round ``round``'s Swiss pairings (:func:`companion.tournament.pairing.swiss`) over
    ``players`` (given in seeding order), ranked as the standings rank them (points, spread,
    Buchholz; the seeding breaks what is still tied), a bye counted as a win, and every
    pairing already made counted as played (:func:`played_games`).

    Raises:
        PairingError: as :func:`companion.tournament.pairing.swiss`.
    """
    byes = [b["player"] for b in store.byes() if b["round"] != round]
    rows = {row["player"]: row for row in store.standings()}
    seeded = list(dict.fromkeys(players))

    def key(p: str) -> tuple:
        row = rows.get(p) or {}
        return (-row.get("points", 0), -row.get("spread", 0), -row.get("buchholz", 0))

    order = sorted(seeded, key=lambda p: (*key(p), seeded.index(p)))
    return _pairing.swiss(order, played_games(store, round), byes)


def bye_spreads(
    pairings: Sequence[Pairing], spread: float | None, game: str, minutes: float
) -> dict[str, float]:
    """``{player: spread}`` of the byes in ``pairings``: ``spread``, or when None
    :func:`companion.tournament.standings.default_bye_spread`.

    Raises:
        RoundError: ``spread`` not a finite number from -999 to 999 (``nan`` would be stored
            as nothing and the bye counted as no win; ``inf`` would top every standing).
    """
    import math

    from companion.tournament.standings import default_bye_spread

    if spread is not None:
        try:
            ok = math.isfinite(float(spread)) and abs(float(spread)) <= BYE_SPREAD_MAX
        except (TypeError, ValueError):
            ok = False
        if not ok or isinstance(spread, bool):
            raise RoundError(
                f"bye spread {spread!r}: accepted a number from -{BYE_SPREAD_MAX} to "
                f"{BYE_SPREAD_MAX}"
            )
    value = default_bye_spread(game, minutes) if spread is None else float(spread)
    return {name: value for name in byes(pairings)}


def round_players(pairings: Sequence[Pairing], players: Sequence[str] = ()) -> list[str]:
    """The round's players in seeding order: ``players`` as listed, then anyone else the
    pairings seat or give a bye, in their order."""
    found = [n for p in pairings for n in (p.blue, p.red) if n is not None]
    return list(dict.fromkeys([*players, *found]))


def with_page(setup: dict, table: int, pages: str) -> dict:
    """``setup`` with its table's ``page`` on the director's pages at ``pages``
    (``http://HOST:PORT``): the address its ready screen shows as a QR code."""
    from companion.tournament.qr import table_url

    return {**setup, "page": table_url(pages, table)}


def publish_round(
    target,
    store,
    round: int,
    setups: dict[int, dict],
    *,
    published: float | None = None,
    prefix: str | None = None,
    timeout: float = 10.0,
    pages: str = "",
    players: list[str] | None = None,
    byes: dict[str, float] | None = None,
) -> None:
    """Keep round ``round``'s set-ups in ``store`` (it becomes the current round) and publish
    each to ``tables/N/setup`` (retained, QoS 1), waiting until the broker has every one.

    Args:
        target: the running :class:`~companion.tournament.director.Director` (anything with a
            ``publish_setup(table, payload, timeout)`` method), or a connected paho-mqtt
            ``Client``, then with ``prefix`` (``companion/EVENT/``).
        store: the director's store.
        setups: from :func:`make_round`.
        published: when, in seconds since the epoch (default: now).
        timeout: seconds to wait for the broker's acknowledgement of each set-up.
        pages: the director's pages as the players' phones reach them (``http://HOST:PORT``;
            "" when they are not served): each set-up then carries its table's ``page``
            address, which the table's ready screen shows as a QR code.
        players, byes: the round's players in seeding order and its byes with their spreads
            (:meth:`companion.tournament.store.Store.set_round`).

    Raises:
        RoundError: the broker did not take a set-up within ``timeout`` (the store already
            has the round: publishing again is safe, a table takes a set-up once).
    """
    published = time.time() if published is None else published
    if pages:
        setups = {t: with_page(s, t, pages) for t, s in setups.items()}
    store.set_round(round, setups, published, players=players, byes=byes)
    if hasattr(target, "publish_setup"):
        for table, setup in setups.items():
            target.publish_setup(table, setup, timeout=timeout)
        return
    if prefix is None:
        raise RoundError("publish_round: a paho Client needs the topic prefix (prefix=...)")
    from companion.tournament import protocol

    infos = [
        (
            table,
            target.publish(
                protocol.topic(prefix, table, "setup"), protocol.encode(setup), qos=1, retain=True
            ),
        )
        for table, setup in setups.items()
    ]
    deadline = time.monotonic() + timeout
    for table, info in infos:
        try:
            info.wait_for_publish(max(0.0, deadline - time.monotonic()))
        except (RuntimeError, ValueError) as exc:
            raise RoundError(
                f"round {round}: table {table}'s set-up not published: {exc}"
            ) from None
        if not info.is_published():
            raise RoundError(
                f"round {round}: the broker did not take table {table}'s set-up within "
                f"{timeout:g} s; publish the round again"
            )
    missing = not_kept(target, prefix, setups, max(1.0, deadline - time.monotonic()))
    if missing:
        raise RoundError(not_kept_words(round, prefix, missing))


def not_kept_words(round: int, prefix: str, missing: list[int]) -> str:
    """What to tell the director when the broker did not keep round ``round``'s set-ups of
    tables ``missing`` (:func:`not_kept`)."""
    shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
    return (
        f"round {round}: the broker did not keep the set-up of table(s) {shown}: it "
        f"acknowledged them but they are not under {prefix}tables/N/setup (its ACL does "
        "not let this account write the event's topics, e.g. another event's ACL was "
        "loaded); the round is stored, not published: restart 'companion director' for "
        "this event and publish the round again"
    )


def not_kept(client, prefix: str, setups: dict[int, dict], timeout: float) -> list[int]:
    """The tables whose retained ``setup`` the broker does not hold as published (read back on
    a subscription of ``client``'s, waiting up to ``timeout`` seconds: a broker drops a publish
    its ACL refuses yet acknowledges it, MQTT 3.1.1 having no way to say so). The read-back
    has a callback of its own for the set-up topics: the client's other messages go on to its
    ``on_message`` as before."""
    import json
    import threading

    from companion.tournament import protocol

    want = {int(t): s.get("setup_id") for t, s in setups.items()}
    got: set[int] = set()
    lock = threading.Lock()
    done = threading.Event()

    def on_message(c, userdata, msg):
        try:
            table = int(msg.topic[len(prefix) :].split("/")[1])
            setup_id = json.loads(msg.payload).get("setup_id")
        except (ValueError, IndexError, AttributeError):
            return
        with lock:
            if want.get(table) == setup_id:
                got.add(table)
            if got >= want.keys():
                done.set()

    if not want:
        return []
    # each table's own topic (not tables/+/setup: every older round's retained set-ups too)
    topics = [protocol.topic(prefix, t, "setup") for t in sorted(want)]
    pattern = f"{prefix}tables/+/setup"
    client.message_callback_add(pattern, on_message)
    try:
        client.subscribe([(t, 1) for t in topics])
        done.wait(timeout)
        client.unsubscribe(topics)
    finally:
        client.message_callback_remove(pattern)
    with lock:
        return sorted(want.keys() - got)


__all__ = [
    "COLOURS_CHOICES",
    "Pairing",
    "PairingError",
    "RoundError",
    "bye_spreads",
    "byes",
    "make_round",
    "not_kept",
    "not_kept_words",
    "played_games",
    "publish_round",
    "round_players",
    "swiss_round",
]
