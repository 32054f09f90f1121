"""Benchmark of the tournament network (issue 17): nothing lost, latency, the director's cost.

N simulated tables (default 200; ``BENCH_TOURNAMENT_TABLES``), each the real table service on
mock devices with its real ``companion link``, play two rounds of scripted Iago games against a
real Mosquitto and the real director (``companion director --broker ...``, a process of its own,
whose store is on the disk):

1. Round 1, no faults: latency from a press at a table (the journal synced) to the table's new
   state being in the director's store (read from this process, as the web pages read it),
   median and p99; goal p99 under 200 ms.
2. Round 2, with faults: the broker stopped for 10 s (and started again), 20 tables' connections
   dropped at random moments, 5 links killed with SIGKILL (and started again). Every result and
   every journal record must arrive exactly once: 0 lost, 0 duplicated, and the standings right.
3. The director's CPU (seconds, and share of one core) and memory (peak resident) per round.

The tables run in a few worker processes (``python -m bench.bench_tournament worker CONFIG``),
each driving its tables and their links from one thread (companion.tournament.sim.Hall); the 5
links that are killed run as ``companion link`` processes of their own. The tables' files are on
/dev/shm (200 tables on one disk would measure that disk's fsyncs, not the network; each real
table has its own card); their OLED frames are made but not drawn (5 ms of PIL each, 4 a second
per running table, is more than this 2-core machine has). Only loopback addresses are used, and
every process started here is stopped at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

EVENT = "bench"
MINUTE = 5.0  # seconds: the sand minute (each player has one: a game ends 5 s after its last press)
MOVES = 14
GAP = (0.8, 2.0)  # seconds between presses: games of about 25 s
WORKERS = 4
VICTIMS = 5
DROPS = 20
OUTAGE = 10.0


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def _proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _proc_mem(pid: int) -> tuple[float, float]:
    """(resident, peak resident) of ``pid`` in MB."""
    got = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            got[key] = int(value.split()[0]) / 1024
    return got.get("VmRSS", 0.0), got.get("VmHWM", 0.0)


def _script(seed: int, round_no: int, table: int):
    from companion.tournament.sim import scripted_game

    return scripted_game(random.Random(seed * 100_000 + round_no * 1000 + table), MOVES, GAP)


# --- a worker process: some tables and their links ---------------------------------------------


def _write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader waiting for the file sees all of it or none
    (written beside it, then renamed)."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


def worker(config_path: str) -> int:
    """Run the tables of one worker (see the module docstring); files tell it when to play."""
    from companion.tournament.sim import Hall, SimTable

    cfg = json.loads(Path(config_path).read_text())
    root = Path(cfg["root"])
    creds = json.loads(Path(cfg["creds"]).read_text())
    tables = []
    for n in cfg["tables"]:
        t = SimTable(root, n, minutes=1, minute_seconds=MINUTE, draw=False)
        c = creds[str(n)]
        t.join(cfg["url"], EVENT, c["username"], c["password"])
        tables.append(t)
    links = [
        t.link(poll=0.01, resend_seconds=2.0) for t in tables if t.number not in cfg["victims"]
    ]
    for link in links:
        link.start(thread=False)
    by_number = {lk.table: lk for lk in links}
    hall = Hall(tables, links, poll=0.005)
    hall.start()
    (root / f"worker-{cfg['index']}.up").write_text("up")
    try:
        for round_no in (1, 2):
            while not all(t.service.mode.context.table.round == round_no for t in tables):
                for t in tables:  # the last game is over: the players press for a new one
                    if (
                        t.service.mode.finished
                        and f"round = {round_no}\n" in t.table_toml.read_text()
                    ):
                        t.press("challenge")
                time.sleep(0.05)
            (root / f"ready-{cfg['index']}-{round_no}").write_text("ready")
            go = root / f"go-{round_no}"
            while not go.exists():
                time.sleep(0.01)
            plan = json.loads(go.read_text())
            start = time.monotonic() + (plan["start"] - time.time())
            hall.press_times.clear()
            for t in tables:
                hall.play(t.number, _script(plan["seed"], round_no, t.number), at=start)
            drops = sorted(
                (at, n) for n, at in plan.get("drops", {}).items() if int(n) in by_number
            )
            for at, n in drops:
                while time.monotonic() < start + at:
                    time.sleep(0.01)
                sock = by_number[int(n)].client.socket()
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.shutdown(2)  # SHUT_RDWR: the Wi-Fi is gone, no goodbye
            while not all(len(t.records()) >= round_no for t in tables):
                time.sleep(0.05)
            _write_whole(
                root / f"presses-{cfg['index']}-{round_no}.json", json.dumps(hall.press_times)
            )
        stop = root / "stop"
        while not stop.exists():
            time.sleep(0.05)
    finally:
        hall.stop()
        for link in links:
            link.stop(goodbye=False)
        for t in tables:
            t.close()
    return 0 if not hall.errors else 1


# --- the benchmark --------------------------------------------------------------------------


class Poller:
    """Reads the director's store from this process (a second reader of the SQLite file, as the
    pages are) and notes when each table's state first shows each journal seq."""

    def __init__(self, store_path: Path) -> None:
        from companion.tournament.store import Store

        self.store = Store(store_path)
        self.seen: dict[int, list[tuple[int, float]]] = {}
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        version = self.store.version()
        con = self.store._con()
        while not self._stop.is_set():
            version, changed = self.store.changed_since(version)
            now = time.time()
            for table in changed:
                row = con.execute(
                    "SELECT state FROM tables WHERE table_no = ?", (table,)
                ).fetchone()
                if row and row[0]:
                    seq = json.loads(row[0]).get("seq")
                    if isinstance(seq, int):
                        self.seen.setdefault(table, []).append((seq, now))
            self._stop.wait(0.005)

    def latency(self, presses: list[tuple[int, int, float]]) -> list[float]:
        """Seconds from each press to its state in the store."""
        out = []
        for table, seq, pressed in presses:
            for got, at in self.seen.get(table, []):
                if got >= seq and at >= pressed - 0.001:
                    out.append(at - pressed)
                    break
        return out


def main() -> None:
    from companion.tournament import broker as brk
    from companion.tournament.sim import TableFiles, audit
    from companion.tournament.store import Store

    n = int(os.environ.get("BENCH_TOURNAMENT_TABLES", "200"))
    if shutil.which("mosquitto") is None and not os.path.exists("/usr/sbin/mosquitto"):
        print("mosquitto is not installed: skipped (make deps installs it)")
        return
    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    root = Path(tempfile.mkdtemp(prefix="bench-tables-", dir=shm))
    home = Path(tempfile.mkdtemp(prefix="bench-director-"))
    procs: list[subprocess.Popen] = []
    accounts = brk.Accounts(home / "director")
    port = brk.free_port()
    broker = brk.Broker(accounts, EVENT, port)
    env_dir = {**os.environ, "COMPANION_DATA_DIR": str(home), "COMPANION_CONFIG_DIR": str(home)}
    seed = 17
    rng = random.Random(seed)
    try:
        t0 = time.perf_counter()
        broker.start()
        creds = accounts.add_tables(list(range(1, n + 1)), EVENT)
        broker.reload()
        (root / "creds.json").write_text(json.dumps({str(k): v for k, v in creds.items()}))
        url = f"mqtt://127.0.0.1:{port}"
        director = subprocess.Popen(
            [sys.executable, "-m", "companion", "director", "--event", EVENT, "--broker", url],
            env=env_dir,
            stdout=subprocess.DEVNULL,
            stderr=open(home / "director.log", "wb"),  # noqa: SIM115
        )
        procs.append(director)
        running = home / "director" / "running.json"
        while not running.exists():
            if director.poll() is not None:
                raise RuntimeError("the director exited: " + (home / "director.log").read_text())
            time.sleep(0.05)
        victims = sorted(rng.sample(range(1, n + 1), VICTIMS))
        numbers = list(range(1, n + 1))
        workers = []
        for i in range(WORKERS):
            cfg = {
                "root": str(root),
                "creds": str(root / "creds.json"),
                "url": url,
                "tables": numbers[i::WORKERS],
                "victims": victims,
                "index": i,
            }
            path = root / f"worker-{i}.json"
            path.write_text(json.dumps(cfg))
            w = subprocess.Popen(
                [sys.executable, "-m", "bench.bench_tournament", "worker", str(path)],
                stdout=subprocess.DEVNULL,
                stderr=open(root / f"worker-{i}.log", "wb"),  # noqa: SIM115
            )
            workers.append(w)
            procs.append(w)
        while not all((root / f"worker-{i}.up").exists() for i in range(WORKERS)):
            if any(w.poll() is not None for w in workers):
                raise RuntimeError(
                    "a worker exited: " + (root / "worker-0.log").read_text()[-2000:]
                )
            time.sleep(0.1)
        files = [TableFiles(root, t) for t in numbers]
        link_procs: dict[int, subprocess.Popen] = {}

        def start_link(t: int) -> None:
            env = {**os.environ, **files[t - 1].link_env()}
            p = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "companion",
                    "link",
                    "--poll",
                    "0.01",
                    "--resend-seconds",
                    "2",
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            link_procs[t] = p
            procs.append(p)

        for t in victims:
            start_link(t)
        setup_s = time.perf_counter() - t0
        players = root / "players.txt"
        players.write_text("\n".join(f"P{i:03d}" for i in range(1, 2 * n + 1)) + "\n")
        poller = Poller(home / "director" / f"{EVENT}.sqlite")
        poller.thread.start()
        figures: dict = {"setup_s": setup_s}
        for round_no in (1, 2):
            faults = round_no == 2
            done = subprocess.run(
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
                    "--colours",
                    "fixed",
                    "--minutes",
                    "1",
                    "--minute-seconds",
                    str(MINUTE),
                    "--event",
                    EVENT,
                ],
                env=env_dir,
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise RuntimeError(f"director round failed: {done.stderr}")
            while not all((root / f"ready-{i}-{round_no}").exists() for i in range(WORKERS)):
                time.sleep(0.05)
            cpu0, wall0 = _proc_cpu(director.pid), time.monotonic()
            bcpu0 = _proc_cpu(broker.process.pid)
            bcpu_before = 0.0
            start = time.time() + 1.0
            plan = {"start": start, "seed": seed}
            if faults:
                others = [t for t in numbers if t not in victims]
                dropped = rng.sample(others, min(DROPS, len(others)))
                plan["drops"] = {str(t): round(rng.uniform(1.0, 22.0), 2) for t in dropped}
            _write_whole(root / f"go-{round_no}", json.dumps(plan))
            begin = time.monotonic() + (start - time.time())
            if faults:
                events = [
                    (3.0, "kill"),
                    (4.0, "broker-stop"),
                    (8.0, "links-start"),
                    (4.0 + OUTAGE, "broker-start"),
                ]
                for at, what in sorted(events):
                    while time.monotonic() < begin + at:
                        time.sleep(0.01)
                    if what == "kill":
                        for t in victims:
                            link_procs[t].send_signal(signal.SIGKILL)
                            link_procs[t].wait()
                    elif what == "links-start":
                        for t in victims:
                            start_link(t)
                    elif what == "broker-stop":
                        bcpu_before = _proc_cpu(broker.process.pid) - bcpu0
                        broker.stop()
                    elif what == "broker-start":
                        broker.start()
                        bcpu0 = _proc_cpu(broker.process.pid) - bcpu_before
            while not all((root / f"presses-{i}-{round_no}.json").exists() for i in range(WORKERS)):
                for i, w in enumerate(workers):
                    if w.poll() is not None:
                        log = (root / f"worker-{i}.log").read_text(errors="replace")[-2000:]
                        raise RuntimeError(f"worker {i} exited with {w.returncode}: {log}")
                time.sleep(0.1)
            games_end = time.monotonic() - begin
            store = Store(home / "director" / f"{EVENT}.sqlite")
            deadline = time.monotonic() + 120
            while True:
                a = audit(store, files)
                if (a["lost"] == 0 and a["results_lost"] == 0) or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            # the last record or result of the round to reach the director, from its start
            con = store._con()
            last = max(
                con.execute("SELECT max(received) FROM events").fetchone()[0] or 0.0,
                con.execute("SELECT max(received) FROM results").fetchone()[0] or 0.0,
            )
            complete = last - (begin - time.monotonic() + time.time())
            cpu = _proc_cpu(director.pid) - cpu0
            wall = time.monotonic() - wall0
            rss, hwm = _proc_mem(director.pid)
            bcpu = _proc_cpu(broker.process.pid) - bcpu0
            presses = [
                tuple(p)
                for i in range(WORKERS)
                for p in json.loads((root / f"presses-{i}-{round_no}.json").read_text())
            ]
            lat = poller.latency(presses)
            arrival = _arrivals(store, presses)
            timeline = _timeline(store, begin - time.monotonic() + time.time(), complete)
            standings_ok = _standings_right(store, files, seed, round_no)
            figures[round_no] = {
                "audit": a,
                "latency": lat,
                "presses": len(presses),
                "cpu": cpu,
                "wall": wall,
                "rss": rss,
                "hwm": hwm,
                "broker_cpu": bcpu,
                "games_end": games_end,
                "complete": complete,
                "standings": standings_ok,
                "arrival": arrival,
                "timeline": timeline,
                "load": os.getloadavg()[0],
                "results": sum(1 for x in store.results() if x["round"] == round_no),
            }
            store.close()
        poller._stop.set()
        poller.thread.join(2)
        _report(n, figures)
    finally:
        (root / "stop").write_text("stop")
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        broker.stop()
        logs = Path(tempfile.gettempdir()) / "bench-tournament-logs"
        shutil.rmtree(logs, ignore_errors=True)
        logs.mkdir()
        for src in [
            home / "director.log",
            home / "director" / "broker" / "mosquitto.log",
            *root.glob("worker-*.log"),
        ]:
            if src.exists():
                shutil.copy(src, logs / src.name)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def _timeline(store, start: float, seconds: float) -> str:
    """Journal records reaching the director in each 5 s of the round (from its start)."""
    con = store._con()
    bins = []
    for k in range(int(seconds // 5) + 1):
        (count,) = con.execute(
            "SELECT count(*) FROM events WHERE received >= ? AND received < ?",
            (start + 5 * k, start + 5 * (k + 1)),
        ).fetchone()
        bins.append(str(count))
    return " ".join(bins)


def _arrivals(store, presses: list[tuple[int, int, float]]) -> list[float]:
    """Seconds from each press to its journal record's arrival at the director (the store's
    ``received``, before the batch it is in is committed)."""
    con = store._con()
    out = []
    for table, seq, pressed in presses:
        row = con.execute(
            "SELECT min(received) FROM events WHERE table_no = ? AND seq = ? AND received >= ?",
            (table, seq, pressed - 0.001),
        ).fetchone()
        if row and row[0] is not None:
            out.append(row[0] - pressed)
    return out


def _standings_right(store, files, seed: int, rounds: int) -> str:
    """Compare the store's standings with the ones the tables' own saved games make (the source
    of truth: a loss on time leaves the loser none of the two minutes, the winner both), and
    count the games whose result differs from the script's (the last presser wins): a press the
    loaded machine made late enough for the mover's minute to run out first."""
    expected: dict[str, list[int]] = {}
    off_script = 0
    for table in files:
        for saved in table.records():
            result, settings = saved["result"], saved["settings"]
            rnd = settings.get("round")
            if not rnd or rnd > rounds:
                continue
            winner = result.get("winner")
            if winner != _script(seed, rnd, table.number).winner:
                off_script += 1
            for colour in ("blue", "red"):
                row = expected.setdefault(settings[colour], [0, 0, 0])
                won = colour == winner
                row[0] += won
                row[1] += not won
                left = result["minutes"]
                row[2] += left[colour] - left["red" if colour == "blue" else "blue"]
    got = {r["player"]: [r["wins"], r["losses"], r["spread"]] for r in store.standings()}
    late = f"; {off_script} games off their script (a press late by the machine's load)"
    if got == expected:
        return "right (as the tables' saved games make them)" + (late if off_script else "")
    wrong = sorted(p for p in set(got) | set(expected) if got.get(p) != expected.get(p))
    return f"WRONG for {len(wrong)} players (e.g. {wrong[:3]})" + late


def _report(n: int, f: dict) -> None:
    print(
        f"{n} tables, {WORKERS} worker processes, 1 director process, Mosquitto; set up in "
        f"{f['setup_s']:.1f} s"
    )
    for r in (1, 2):
        x = f[r]
        a = x["audit"]
        lat = x["latency"]
        what = (
            "no faults"
            if r == 1
            else f"broker stopped {OUTAGE:g} s, {DROPS} connections dropped, {VICTIMS} links "
            "killed -9"
        )
        print(f"round {r} ({what}):")
        print(
            f"  results {x['results']}/{n}; journal records so far {a['events']}: lost {a['lost']}, "
            f"duplicated {a['duplicated']}, different {a['different']}; results lost "
            f"{a['results_lost']}, duplicated {a['results_duplicated']}; standings "
            f"{x['standings']}"
        )
        if lat:
            print(
                f"  press -> state in the director's store: median {statistics.median(lat) * 1000:.0f} ms, "
                f"p99 {_pct(lat, 99) * 1000:.0f} ms, max {max(lat) * 1000:.0f} ms over "
                f"{len(lat)} of {x['presses']} presses"
                + (" (goal p99 < 200 ms)" if r == 1 else " (with the faults)")
            )
        if x["arrival"]:
            arr = x["arrival"]
            print(
                f"  press -> its journal record at the director: median "
                f"{statistics.median(arr) * 1000:.0f} ms, p99 {_pct(arr, 99) * 1000:.0f} ms"
            )
        print(f"  journal records arriving per 5 s: {x['timeline']}")
        print(f"  machine load average {x['load']:.1f} (2 cores, shared with other work)")
        print(
            f"  games over at {x['games_end']:.0f} s, everything at the director at "
            f"{x['complete']:.0f} s"
        )
        print(
            f"  director: {x['cpu']:.1f} CPU s in {x['wall']:.0f} s ({100 * x['cpu'] / x['wall']:.0f}% "
            f"of a core), resident {x['rss']:.0f} MB (peak {x['hwm']:.0f} MB); broker "
            f"{x['broker_cpu']:.1f} CPU s"
        )
        if a["problems"]:
            print("  problems:", "; ".join(a["problems"][:5]))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "worker":
        raise SystemExit(worker(sys.argv[2]))
    main()
