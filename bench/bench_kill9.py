"""kill -9 at random moments (issue 12): no event is lost, no minute is turned back.

The table service runs in a real process of its own (forked from a server that has imported the
code, so a start costs milliseconds), on mock pins and the real clock, with a sand minute of one
second so that minutes run out all the time. A script inside it presses the buttons as players
would (the mover ends his move after 0.2-2.5 s; after a restart CHALLENGE resumes the clock).
It reports every journal record once ``append`` has returned (the record is synced) and every
change of the allowances it shows (the disc turning, the beep), with the game time. The driver
sends SIGKILL at a random moment, checks the journal left on disk, and starts it again:

- lost events: a record reported as written that the journal on disk does not hold, the same;
- minutes turned back: the journal on disk proves the service alive only at an instant earlier
  than the allowances it last showed, and the game replayed from it has other allowances there
  (after a restart the disc would turn back and a minute that beeped would come back);
- damaged journals: a journal the service could not read back whole (a torn last record is
  allowed: it was never reported written).

Goal: 0 lost events, 0 minutes turned back, 0 damaged journals. ``main()`` does 1,000 kills;
tests/test_kill9.py does a handful.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import random
import signal
import tempfile
import time
from pathlib import Path

PRELOAD = [
    "bench.bench_kill9",
    "companion.daemon.service",
    "companion.daemon.modes.iago",
    "companion.devices.backends",
    "companion.devices.gpio",
    "companion.vision.table",
    "gpiozero",
    "luma.core.device",
]


def _child(journal: str, report: str, seed: int, data: str) -> None:
    """The table service and a player script, in the forked process; never returns."""
    import threading

    os.environ["COMPANION_DATA_DIR"] = str(Path(data) / "data")  # this process's own
    os.environ["COMPANION_CONFIG_DIR"] = str(Path(data) / "config")

    from companion.daemon.challenge import set_judge
    from companion.daemon.config import TableConfig
    from companion.daemon.journal import Journal
    from companion.daemon.service import TableService
    from companion.devices.backends import open_devices
    from companion.devices.pinmap import load_pinmap

    fd = os.open(report, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def say(kind: str, data) -> None:
        os.write(fd, (kind + " " + json.dumps(data, separators=(",", ":")) + "\n").encode())

    append = Journal.append

    def reported(self, record):
        rec = append(self, record)
        if not self.failing and not self.pending:
            say("J", rec)  # on disk and synced
        return rec

    Journal.append = reported
    pinmap = load_pinmap(backend="mock")
    devices = open_devices(pinmap, backend="mock")
    table = TableConfig(number=1, minutes=99, minute_seconds=1.0)
    service = TableService(
        devices, pinmap, table=table, judge=set_judge(["CAT"]), journal_file=Path(journal)
    )
    shown: list = [None]
    publish = service._publish

    def watched(g: float) -> None:
        publish(g)
        minutes = dict(service.mode.timer.allowance)
        if minutes != shown[0]:
            say("S" if shown[0] is not None else "I", {"t": g, "minutes": minutes})
            shown[0] = minutes  # (I: what the screen shows at start, not a change)

    service._publish = watched
    threading.Thread(target=service.run, name="clock", daemon=True).start()
    rng = random.Random(seed)
    while True:  # the players: start or resume at once, then end each move after a while
        timer = service.mode.timer
        status = str(timer.status)
        if status == "ready":
            role = rng.choice(("blue", "red"))
        elif status == "paused":
            role = "challenge"  # resumes the clock after a restart
        else:
            role = timer.mover or "challenge"
        pin = devices.pins[f"buttons.{role}"]
        pin.drive_low()
        time.sleep(0.006)
        pin.drive_high()
        time.sleep(rng.uniform(0.2, 2.5) if status == "running" else rng.uniform(0.05, 0.3))


def _check(journal: Path, report: Path, state: dict) -> None:
    """After a kill: compare what the service reported with what the journal on disk holds."""
    from companion.daemon.journal import read_journal

    found = read_journal(journal)
    if found.damage is not None:
        state["damaged"] += 1
        return
    on_disk = {r["seq"]: r for r in found.records}
    game = found.records[0].get("game_id") if found.records else None
    last_t = max((float(r.get("t", 0.0)) for r in found.records), default=0.0)
    lines = report.read_text(encoding="utf-8").splitlines() if report.exists() else []
    for line in lines:
        kind, _, data = line.partition(" ")
        try:
            item = json.loads(data)
        except ValueError:
            continue  # the report line the kill cut (the report, not the journal)
        if kind == "J":
            if item.get("kind") == "_game":
                state["game"] = item.get("game_id")
            if state.get("game") != game:
                continue  # a finished game's record went to the records folder
            state["events"] += 1
            if on_disk.get(item["seq"]) != item:
                state["lost"] += 1
        elif kind in ("S", "I") and state.get("game") == game:
            if float(item["t"]) >= state["shown_t"]:
                state["shown_t"], state["shown"] = float(item["t"]), item["minutes"]
            state["changes"] += kind == "S"
    # the journal proves the service alive only before the last thing it showed: the game
    # resumes at last_t; a minute is turned back if the allowances there differ from those
    # shown (a minute that ran out and beeped would come back)
    behind = state["shown_t"] > last_t + 1e-9 and state.get("shown") is not None
    if behind and _minutes_at(found.records, last_t) != state["shown"]:
        state["turned_back"] += 1
    state["shown_t"], state["shown"] = last_t, None
    report.unlink(missing_ok=True)


def _minutes_at(records: list[dict], t: float) -> dict:
    """The allowances the journal's game has at game time ``t`` (its events replayed by the
    mode's own code, as the restart does)."""
    from companion.daemon.challenge import set_judge
    from companion.daemon.config import validate
    from companion.daemon.modes import ModeContext, mode_class, replay

    header = records[0]
    table = validate(header.get("settings", {}), "journal header", check_names=False)
    mode = mode_class(header.get("mode", "iago"))(ModeContext(table, set_judge(["CAT"])))
    replay(mode, records[1:])
    mode.advance(t)
    return dict(mode.timer.allowance)


def _wait_ready(report: Path, proc, timeout: float = 20.0) -> None:
    """Until the service in ``proc`` has shown its first frame (its ``I`` report line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.is_alive():
        try:
            if b"\nI " in b"\n" + report.read_bytes():
                return
        except FileNotFoundError:
            pass
        time.sleep(0.002)


def kill_runs(n: int, seed: int = 12, window: tuple[float, float] = (0.0, 1.2)) -> dict:
    """Start the service ``n`` times on one journal, each killed with SIGKILL a random time in
    ``window`` (seconds) after it showed its first frame (0: while it is still resuming);
    returns the counts (see the module docstring)."""
    rng = random.Random(seed)
    state = {"kills": 0, "events": 0, "lost": 0, "turned_back": 0, "damaged": 0,
             "crashed": 0, "changes": 0, "shown_t": 0.0}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="companion-kill9-") as tmp:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        journal, report = Path(tmp) / "journal.jsonl", Path(tmp) / "report.txt"
        for i in range(n):
            proc = ctx.Process(
                target=_child, args=(str(journal), str(report), seed * 100003 + i, tmp)
            )
            proc.start()
            _wait_ready(report, proc)  # the service is up (its first frame shown)...
            time.sleep(rng.uniform(*window))  # ...and runs a random while
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            proc.join()
            if proc.exitcode != -signal.SIGKILL:
                state["crashed"] += 1  # it died by itself before the kill
            state["kills"] += 1
            _check(journal, report, state)
    return state


def main(n: int = 1000) -> dict:
    """Kill the table service ``n`` times and print the figures against the goal."""
    start = time.perf_counter()
    st = kill_runs(n)
    print(
        f"{st['kills']} kills -9 at random moments, {st['events']} journal records reported "
        f"written, {st['changes']} changes of the allowances shown ({time.perf_counter() - start:.0f} s)"
    )
    print(
        f"lost events: {st['lost']}   minutes turned back: {st['turned_back']}   "
        f"damaged journals: {st['damaged']}   services that died by themselves: "
        f"{st['crashed']}   (goal 0, 0, 0, 0)"
    )
    return st


if __name__ == "__main__":
    main()
