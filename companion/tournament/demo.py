"""``make tournament``: a broker, a director and eight simulated tables on this machine, playing
round after round of scripted Iago games, so a newcomer can watch a tournament in one command.

    python -m companion.tournament.demo [--tables 8] [--http 127.0.0.1:8080]

It runs the real commands: ``companion director`` (its own Mosquitto on a free loopback port,
its store in the demo's folder, :func:`demo_dir`), ``companion director tables add``, ``companion director round``
(a round robin of 2 x tables players), and for each table the real table service on mock devices
with its real link. Every second it prints the hall as the director's store has it; Ctrl-C stops
everything it started. The folder (the director's store, each table's journal and records) is
printed at the start and at the end and kept (``--discard`` deletes it; the next demo replaces
it): the director's commands (``companion director results``, ``standings``...) find the demo's
store when this machine has run no event of its own (companion.tournament.cli).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

EVENT = "demo"


def demo_dir() -> Path:
    """The demo's folder: ``data_dir()/tournament-demo`` (its director's data directory is the
    ``director-data`` folder in it)."""
    from companion.paths import data_dir

    return data_dir() / "tournament-demo"


def demo_store(event: str) -> Path:
    """The demo director's store of ``event`` (it need not exist)."""
    return demo_dir() / "director-data" / "director" / f"{event}.sqlite"


def _hall_lines(store, round_no: int, tables: int) -> list[str]:
    results = [r for r in store.results() if r["round"] == round_no]
    lines = [f"round {round_no}: {len(results)} / {tables} reported"]
    for t in store.tables():
        state = t["state"] or {}
        setup = t["setup"] or {}
        names = setup.get("players") or state.get("players") or {}
        minutes = state.get("minutes") or {}
        status = state.get("status", "?")
        if state.get("online") is False:
            status = "OFFLINE"
        mover = state.get("mover")
        sand = state.get("sand_left")
        line = (
            f"  table {t['table']:>2}: {names.get('blue', '?'):>5} (blue) "
            f"{minutes.get('blue', '-')} v {minutes.get('red', '-')} "
            f"(red) {names.get('red', '?'):<5} {status}"
        )
        if status == "running" and mover:
            line += f", {mover} on move" + (f", sand {sand:.0f} s" if sand is not None else "")
        res = t["result"]
        if res and res["round"] == round_no:
            line += f"  -> {res['players'].get(res['winner'], '?')} won"
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    from companion.tournament import broker as brk
    from companion.tournament.sim import Hall, SimTable, scripted_game
    from companion.tournament.store import Store

    p = argparse.ArgumentParser(prog="make tournament", description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=8)
    p.add_argument("--http", help="serve the director's pages there (HOST:PORT)")
    p.add_argument("--minute-seconds", type=float, default=10.0, help="the sand minute (s)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument(
        "--discard",
        action="store_true",
        help="delete the hall's files (the store, logs, journals) when the demo stops "
        "(default: kept for the director's commands)",
    )
    args = p.parse_args(argv)
    if args.http:
        from companion.tournament.web import WebError, parse_address

        try:
            host, http_port = parse_address(args.http)
        except WebError as exc:
            print(f"make tournament: {exc}", file=sys.stderr)
            return 2
        if brk.port_in_use(http_port, "127.0.0.1" if host in ("0.0.0.0", "") else host):
            print(
                f"make tournament: port {http_port} is in use on this machine, so the "
                f"director's pages cannot listen at {args.http}; choose another, e.g. "
                f"`make tournament HTTP=127.0.0.1:{http_port + 1}`",
                file=sys.stderr,
            )
            return 2

    root = demo_dir()
    if root.exists():  # the last demo's hall: this demo replaces it
        shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True, exist_ok=True)
    home = root / "director-data"
    env = {**os.environ, "COMPANION_DATA_DIR": str(home), "COMPANION_CONFIG_DIR": str(home)}
    port = brk.free_port()
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "director",
        "--event",
        EVENT,
        "--broker-port",
        str(port),
        "--listen",
        "127.0.0.1",
    ]
    if args.http:
        cmd += ["--http", args.http]
        env.setdefault("COMPANION_DIRECTOR_PASSWORD", "director")
    print(f"The hall's files: {root} (Ctrl-C stops the demo)")
    log = open(root / "director.log", "wb")  # noqa: SIM115 - the director's, until it stops
    director = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *a: stop.set())
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    tables: list[SimTable] = []
    links = []
    hall = None
    try:
        running = home / "director" / "running.json"
        while not _ready(running, bool(args.http)):
            if director.poll() is not None:
                print((root / "director.log").read_text(), file=sys.stderr)
                return 1
            time.sleep(0.1)
        print(
            f"Director: broker mqtt://127.0.0.1:{port}, store {home / 'director'}"
            + (
                f", pages http://{args.http}/ (password: {env['COMPANION_DIRECTOR_PASSWORD']})"
                if args.http
                else ""
            )
        )
        numbers = [str(n) for n in range(1, args.tables + 1)]
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "companion",
                "director",
                "tables",
                "add",
                *numbers,
                "--json",
                "--event",
                EVENT,
            ],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            return _failed("adding the tables' accounts", out.stderr, root)
        creds = json.loads(out.stdout)["tables"]
        for n in range(1, args.tables + 1):
            t = SimTable(root, n, minute_seconds=args.minute_seconds)
            t.join(f"mqtt://127.0.0.1:{port}", EVENT, **creds[str(n)])
            tables.append(t)
            link = t.link(poll=0.02, resend_seconds=2.0)
            link.start(thread=False)
            links.append(link)
        hall = Hall(tables, links, poll=0.01)
        hall.start()
        players = root / "players.txt"
        names = [
            "Ada",
            "Bob",
            "Cy",
            "Di",
            "Eve",
            "Fay",
            "Gus",
            "Hal",
            "Ivy",
            "Jo",
            "Kim",
            "Lou",
            "Max",
            "Ned",
            "Oz",
            "Pat",
        ]
        names += [f"P{i}" for i in range(len(names) + 1, 2 * args.tables + 1)]
        players.write_text("\n".join(names[: 2 * args.tables]) + "\n")
        store = Store(home / "director" / f"{EVENT}.sqlite")
        rng = random.Random()
        for round_no in range(1, args.rounds + 1):
            if stop.is_set():
                break
            published = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "companion",
                    "director",
                    "round",
                    str(round_no),
                    "--round-robin",
                    "--players",
                    f"@{players}",
                    "--minutes",
                    "2",
                    "--minute-seconds",
                    str(args.minute_seconds),
                    "--event",
                    EVENT,
                ],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if published.returncode != 0:
                return _failed(f"publishing round {round_no}", published.stderr, root)
            while not stop.is_set() and not all(
                t.service.mode.context.table.round == round_no for t in tables
            ):
                for t in tables:
                    if t.service.mode.finished:  # the players press for the next game
                        t.press("challenge")
                stop.wait(0.2)
            start = time.monotonic() + 2.0
            for t in tables:
                hall.play(
                    t.number,
                    scripted_game(rng, rng.randint(6, 16), (1.0, args.minute_seconds * 0.9)),
                    at=start,
                )
            while not stop.is_set():
                print(
                    "\033[2J\033[H" + "\n".join(_hall_lines(store, round_no, args.tables)),
                    flush=True,
                )
                if len([r for r in store.results() if r["round"] == round_no]) >= args.tables:
                    break
                stop.wait(1.0)
            rows = store.standings()
            print(
                "standings: "
                + ", ".join(
                    f"{r['player']} {r['wins']}-{r['losses']} ({r['spread']:+})" for r in rows[:8]
                )
            )
            stop.wait(3.0)
        if not stop.is_set():
            print("The rounds are over; Ctrl-C ends the demo (the pages stay up until then).")
            stop.wait()
        store.close()
    finally:
        if hall is not None:
            hall.stop()
        for link in links:
            link.stop()
        for t in tables:
            t.close()
        director.send_signal(signal.SIGTERM)
        try:
            director.wait(15)
        except subprocess.TimeoutExpired:
            director.kill()
        if args.discard:
            shutil.rmtree(root, ignore_errors=True)
            print("Stopped. The hall's files are deleted (--discard).")
        else:
            print(
                f"Stopped. The hall's files stay in {root} (the store: "
                f"{home / 'director' / (EVENT + '.sqlite')}); `companion director results` "
                "and `standings` read it (the next `make tournament` replaces it)."
            )
    return 0


def _ready(running: Path, pages: bool) -> bool:
    """Whether the director is up: its running.json written, with its pages' address when it
    serves pages (written once they listen)."""
    try:
        info = json.loads(running.read_text())
    except (OSError, ValueError):
        return False
    return bool(info.get("pages")) or not pages


def _failed(what: str, stderr: str, root: Path) -> int:
    """Say what failed, with the director's log's last lines; exit status 1."""
    try:
        log = (root / "director.log").read_text(errors="replace").strip().splitlines()[-5:]
    except OSError:
        log = []
    print(f"make tournament: {what} failed: {stderr.strip()}", file=sys.stderr)
    if log:
        print("the director's log ends:\n  " + "\n  ".join(log), file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
