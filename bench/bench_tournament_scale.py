"""The director at a hall's scale, measured without the simulation's noise (issue 46): 200 light
tables (one MQTT client each, ``BENCH_SCALE_TABLES``) talk to the real director with 50 hall
pages open, and its broker is killed with ``kill -9`` in the middle.

- The director is ``companion director --http`` (its own Mosquitto, its SQLite store on the disk,
  its pages), a process of its own, as a hall runs it; the accounts and round 1's set-ups are made
  with ``companion director tables add`` and ``round``.
- A light table does what a table's link does on the wire and nothing else (no table service,
  no journal): its own account and persistent session, the Last Will, the 5 s heartbeat, a
  state (retained) and a journal record at every move, at a hall's pace (a move every 4 to 12
  s, with a burst of 3 quick moves now and then), the game's result at its end, and the link's
  resending of whatever is not acked (at every reconnection, and after 3 s without an ack).
  The tables run in one process (``python -m bench.bench_tournament_scale tables CONFIG``).
- 50 hall pages listen to the live updates (``/events``), in a process of their own.
- Latency: from a table's publish of a move (the record's ``sent``) to the director's store
  (the record's ``received``), and to its arrival at each open page (the state's mark in the
  tile). Goals, in steady play: p99 < 200 ms to the store, < 1 s to the pages.
- The fault: after ``BENCH_SCALE_KILL_AT`` s (default 40) the director's broker is killed with
  SIGKILL; the director starts it again. Goal: 0 lost, 0 duplicated (every record and result
  published is in the store exactly once) and the time to recover: from the kill until the last
  record the outage delayed (published from a second before the kill on, stored more than a
  second after its publish) is stored. The steady figures leave out what was published or
  arrived at a page in that time.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

EVENT = "scale"
TABLES = int(os.environ.get("BENCH_SCALE_TABLES", "200"))
PAGES = 50
MOVES = int(os.environ.get("BENCH_SCALE_MOVES", "12"))
KILL_AT = float(os.environ.get("BENCH_SCALE_KILL_AT", "40"))
GAP = (4.0, 12.0)  # seconds between two moves at a table (a hall's pace)
BURST = 0.15  # the share of moves followed by two quick ones (0.2 s apart: a challenge, a slip)
BEAT = 5.0
RESEND = 3.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


# -- a light table ---------------------------------------------------------------------------


class LightTable:
    """One table's MQTT client, as ``companion link`` speaks (docs/tournament.md)."""

    def __init__(self, number: int, creds: dict, port: int, seed: int, log: list) -> None:
        from companion.tournament import protocol
        from companion.tournament.mqtt import BrokerURL, make_client

        self.n = number
        self.protocol = protocol
        self.prefix = protocol.prefix(EVENT)
        self.rng = random.Random(seed)
        self.log = log  # (table, seq, sent) of every move published, for the page latency
        self.game = f"scale-{number}-{seed}"
        self.setup: dict | None = None
        self.seq = 0
        self.pending: dict[int, tuple[float, bytes]] = {}  # seq -> (last sent, payload)
        self.result: bytes | None = None
        self.result_acked = False
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.client = make_client(
            f"companion-table-{EVENT}-{number}",
            creds["username"],
            creds["password"],
            BrokerURL("127.0.0.1", port),
            will=(self._topic("online"), protocol.encode({"online": False, "box": "bench"})),
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.on_message = self._on_message
        self.client.connect_async("127.0.0.1", port, keepalive=5)
        self.client.loop_start()

    def _topic(self, kind: str) -> str:
        return self.protocol.topic(self.prefix, self.n, kind)

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            return
        client.subscribe([(self._topic("setup"), 1), (self._topic("ack"), 1)])
        client.publish(
            self._topic("online"),
            self.protocol.encode({"online": True, "box": "bench"}),
            qos=1,
            retain=True,
        )
        self.connected.set()
        with self.lock:  # everything unacked again, as the link does after a reconnect
            for seq in list(self.pending):
                self.pending[seq] = (0.0, self.pending[seq][1])

    def _on_message(self, client, userdata, msg) -> None:
        payload = json.loads(msg.payload)
        if msg.topic.endswith("/setup"):
            self.setup = payload
            return
        with self.lock:
            if "events" in payload and payload.get("game") == self.game:
                for seq in [s for s in self.pending if s <= payload["events"]]:
                    del self.pending[seq]
            elif payload.get("game") == self.game and "events" not in payload:
                self.result_acked = True

    def move(self, t0: float) -> None:
        """A press: the journal record and the new state, published."""
        with self.lock:
            self.seq += 1
            seq = self.seq
            now = time.time()
            record = {"kind": "press", "seq": seq, "t": now - t0, "sent": now}
            if seq == 1:
                record = {"kind": "_game", "seq": 1, "t": 0.0, "sent": now, "game_id": self.game}
            raw = self.protocol.encode({"game": self.game, "seq": seq, "record": record})
            self.pending[seq] = (now, raw)
        setup = self.setup or {}
        state = {
            "table": self.n,
            "game": self.game,
            "mode": "iago",
            "status": "running",
            "mover": "blue" if seq % 2 else "red",
            "minutes": {"blue": 5, "red": 5},
            "sand_left": 60.0,
            "players": {"blue": setup.get("blue"), "red": setup.get("red")},
            "round": setup.get("round"),
            "t": now - t0,
            "seq": seq,
            "online": True,
            "sent": now,
            "fault": f"BENCH {self.n}:{seq}",  # the mark the pages' latency is read by
        }
        self.log.append((self.n, seq, now))
        self.client.publish(self._topic("events"), raw, qos=1)
        self.client.publish(self._topic("state"), self.protocol.encode(state), qos=1, retain=True)

    def finish(self) -> None:
        """The game's end: the result, until acked."""
        setup = self.setup or {}
        record = {
            "mode": "iago",
            "game": "iago",
            "table": self.n,
            "round": setup.get("round"),
            "players": {"blue": setup.get("blue"), "red": setup.get("red")},
            "winner": "blue",
            "loser": "red",
            "draw": False,
            "how": "lost on time",
            "minutes": {"blue": 6, "red": 0},
            "events": [],
        }
        self.result = self.protocol.encode(
            {"game": self.game, "table": self.n, "round": setup.get("round"), "record": record}
        )
        self.client.publish(self._topic("result"), self.result, qos=1)
        self._result_sent = time.monotonic()

    def tick(self, now_mono: float, beat_due: bool) -> None:
        """The link's housekeeping: the heartbeat, and what is not acked sent again."""
        if not self.connected.is_set():
            return
        if beat_due:
            self.client.publish(
                self._topic("online"),
                self.protocol.encode({"online": True, "box": "bench", "beat": True}),
                qos=1,
            )
        wall = time.time()
        with self.lock:
            again = [(s, raw) for s, (t, raw) in self.pending.items() if wall - t > RESEND]
            for s, raw in again:
                self.pending[s] = (wall, raw)
        for _, raw in again:
            self.client.publish(self._topic("events"), raw, qos=1)
        late = now_mono - getattr(self, "_result_sent", 0.0) > RESEND
        if self.result is not None and not self.result_acked and late:
            self._result_sent = now_mono
            self.client.publish(self._topic("result"), self.result, qos=1)

    @property
    def done(self) -> bool:
        with self.lock:
            return not self.pending and (self.result is None or self.result_acked)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def run_tables(config: dict) -> None:
    """The tables' process: play one game at every table, resend until all is acked, write the
    publish log and what each table published."""
    creds = config["creds"]
    log: list = []
    rng = random.Random(46)
    tables = [
        LightTable(n, creds[str(n)], config["port"], rng.randrange(10**9), log)
        for n in range(1, config["tables"] + 1)
    ]
    deadline = time.monotonic() + 30
    while not all(t.setup for t in tables):
        if time.monotonic() > deadline:
            raise SystemExit(f"set-ups missing: {[t.n for t in tables if not t.setup][:10]}")
        time.sleep(0.1)
    t0 = time.time()
    start = time.monotonic()
    # each table's moves: a move every 4 to 12 s, now and then two quick ones after it
    plan: list[tuple[float, int]] = []
    for t in tables:
        at = rng.uniform(0.5, GAP[1])
        for _ in range(MOVES):
            plan.append((at, t.n))
            if rng.random() < BURST:
                plan += [(at + 0.2, t.n), (at + 0.4, t.n)]
            at += rng.uniform(*GAP)
        plan.append((at, -t.n))  # the end of its game: the result
    plan.sort()
    by_n = {t.n: t for t in tables}
    next_beat = start + BEAT
    i = 0
    Path(config["started"]).write_text(json.dumps({"t0": t0}))
    while i < len(plan):
        now = time.monotonic()
        while i < len(plan) and start + plan[i][0] <= now:
            at, n = plan[i]
            if n > 0:
                by_n[n].move(t0)
            else:
                by_n[-n].finish()
            i += 1
        beat = now >= next_beat
        if beat:
            next_beat += BEAT
        for t in tables:
            t.tick(now, beat)
        time.sleep(0.02)
    deadline = time.monotonic() + 90
    while not all(t.done for t in tables) and time.monotonic() < deadline:
        for t in tables:
            t.tick(time.monotonic(), False)
        time.sleep(0.1)
    published = {t.n: {"game": t.game, "seq": t.seq, "acked": t.done} for t in tables}
    Path(config["out"]).write_text(json.dumps({"log": log, "published": published}))
    for t in tables:
        t.stop()


# -- the open pages ----------------------------------------------------------------------------


async def _page(client, url: str, page: int, got: list, stop: asyncio.Event) -> None:
    import re

    mark = re.compile(r"BENCH (\d+):(\d+)")
    async with client.stream("GET", url + "/events") as r:
        async for line in r.aiter_lines():
            if stop.is_set():
                return
            if line.startswith("data:"):
                now = time.time()
                for html in (json.loads(line[5:]).get("tiles") or {}).values():
                    m = mark.search(html)
                    if m:
                        got.append((page, int(m.group(1)), int(m.group(2)), now))


def run_pages(config: dict) -> None:
    """The pages' process: 50 halls listening until ``config["stop"]`` exists."""

    async def main() -> None:
        import httpx

        got: list = []
        stop = asyncio.Event()
        # one client for the 50 pages (each of its connections a page of its own): a client
        # each made 50 TLS contexts at start, seconds of this process's loop not reading
        client = httpx.AsyncClient(timeout=None, limits=httpx.Limits(max_connections=None))
        tasks = [
            asyncio.create_task(_page(client, config["url"], i, got, stop)) for i in range(PAGES)
        ]
        Path(config["ready"]).write_text("ready")
        while not Path(config["stop"]).exists():
            await asyncio.sleep(0.2)
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await client.aclose()
        Path(config["out"]).write_text(json.dumps(got))

    asyncio.run(main())


# -- the orchestra -------------------------------------------------------------------------------


def _child(role: str, cfg: dict) -> subprocess.Popen:
    """This bench run again as a child process playing ``role`` (``pages``, ``tables``) with its
    configuration ``cfg`` (JSON on the command line), from the project's root."""
    return subprocess.Popen(
        [sys.executable, "-m", "bench.bench_tournament_scale", role, json.dumps(cfg)],
        cwd=Path(__file__).resolve().parent.parent,
    )


def _wait(path: Path, timeout: float, proc: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{proc.args[:6]} exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {path}")
        time.sleep(0.1)


def main() -> None:
    import sqlite3

    root = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    env = {
        **os.environ,
        "COMPANION_DATA_DIR": str(root / "data"),
        "COMPANION_CONFIG_DIR": str(root / "config"),
        "COMPANION_DIRECTOR_PASSWORD": "bench",
    }
    port, http = _free_port(), _free_port()
    cmd = [sys.executable, "-m", "companion"]
    dlog = open(root / "director.log", "wb")  # noqa: SIM115 - the director's
    director = subprocess.Popen(
        [*cmd, "director", "--event", EVENT, "--broker-port", str(port), "--listen", "127.0.0.1"]
        + ["--http", f"127.0.0.1:{http}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=dlog,
    )
    procs: list[subprocess.Popen] = [director]
    try:
        running = root / "data" / "director" / "running.json"
        deadline = time.monotonic() + 30
        while not (running.exists() and "pages" in running.read_text()):
            if director.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((root / "director.log").read_text()[-2000:])
            time.sleep(0.1)
        out = subprocess.run(
            [*cmd, "director", "tables", "add", f"1-{TABLES}", "--json", "--event", EVENT],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        creds = json.loads(out.stdout)["tables"]
        pairings = root / "round1.csv"
        pairings.write_text(
            "".join(f"{n},P{2 * n - 1:03d},P{2 * n:03d}\n" for n in range(1, TABLES + 1))
        )
        subprocess.run(
            [*cmd, "director", "round", "1", "--pairings", str(pairings), "--colours", "fixed"]
            + ["--event", EVENT, "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        page_cfg = {
            "url": f"http://127.0.0.1:{http}",
            "ready": str(root / "pages.ready"),
            "stop": str(root / "pages.stop"),
            "out": str(root / "pages.json"),
        }
        pages = _child("pages", page_cfg)
        procs.append(pages)
        _wait(Path(page_cfg["ready"]), 30, pages)
        time.sleep(2.0)  # every page connected
        table_cfg = {
            "port": port,
            "tables": TABLES,
            "creds": creds,
            "started": str(root / "tables.started"),
            "out": str(root / "tables.json"),
        }
        tables = _child("tables", table_cfg)
        procs.append(tables)
        _wait(Path(table_cfg["started"]), 60, tables)
        started = time.time()
        dcpu0 = _cpu(director.pid)
        time.sleep(max(0.0, KILL_AT - (time.time() - started)))
        pid = int((root / "data" / "director" / "broker" / "mosquitto.pid").read_text())
        killed = time.time()
        os.kill(pid, signal.SIGKILL)
        print(f"   broker (pid {pid}) killed with SIGKILL at {killed - started:.1f} s")
        tables.wait(600)
        Path(page_cfg["stop"]).write_text("stop")
        pages.wait(60)
        dcpu = _cpu(director.pid) - dcpu0
        wall = time.time() - started
        got = json.loads(Path(table_cfg["out"]).read_text())
        seen = json.loads(Path(page_cfg["out"]).read_text())
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
    con = sqlite3.connect(root / "data" / "director" / f"{EVENT}.sqlite")
    rows = con.execute("SELECT table_no, game, seq, record, received FROM events").fetchall()
    results = con.execute("SELECT table_no, game FROM results").fetchall()
    con.close()
    published = got["published"]
    stored: dict[tuple[int, str], list[int]] = {}
    to_store: list[tuple[float, float]] = []  # (sent, latency)
    first_after: dict[int, float] = {}
    for table, game, seq, record, received in rows:
        stored.setdefault((table, game), []).append(seq)
        sent = json.loads(record).get("sent")
        if isinstance(sent, float):
            to_store.append((sent, received - sent))
            if sent >= killed:
                first_after[table] = min(first_after.get(table, received), received)
    lost = sum(
        len(set(range(1, p["seq"] + 1)) - set(stored.get((int(n), p["game"]), [])))
        for n, p in published.items()
    )
    duplicated = sum(len(v) - len(set(v)) for v in stored.values()) + (
        len(results) - len(set(results))
    )
    results_lost = len({(int(n), p["game"]) for n, p in published.items()} - set(results))
    # recovered: the last record the outage delayed (published from just before the kill on,
    # stored more than a second after its publish) is stored
    delayed = [sent + lat for sent, lat in to_store if sent >= killed - 1 and lat > 1.0]
    recovered = max(delayed) if delayed else killed
    recovery = recovered - killed
    first_back = min(first_after.values()) - killed if first_after else float("nan")
    steady = [lat for sent, lat in to_store if sent < killed - 1 or sent > recovered + 1]
    during = [lat for sent, lat in to_store if killed - 1 <= sent <= recovered + 1]
    sent_at = {(n, s): t for n, s, t in got["log"]}
    first_seen: dict[tuple[int, int, int], float] = {}  # a mark's first arrival at each page
    for page, n, s, now in seen:
        key = (page, n, s)
        first_seen[key] = min(first_seen.get(key, now), now)
    page_lat = [
        now - sent_at[(n, s)]
        for (page, n, s), now in first_seen.items()
        if (n, s) in sent_at
        and not killed - 1 <= sent_at[(n, s)] <= recovered + 1
        and not killed <= now <= recovered + 2  # the broker's retained states, sent again
    ]
    moves = len(got["log"])
    print(f"   {TABLES} light tables, {PAGES} hall pages open, one game of {MOVES}+ moves each")
    print(
        f"   {moves} moves in {wall:.0f} s ({moves / wall:.1f} a second, with heartbeats "
        f"{moves / wall + TABLES / BEAT:.0f} messages a second at the director)"
    )
    print(
        f"   publish -> store, steady: median {_pct(steady, 50) * 1000:.0f} ms, "
        f"p99 {_pct(steady, 99) * 1000:.0f} ms (goal < 200 ms; {len(steady)} records)"
    )
    print(
        f"   publish -> 50 pages, steady: median {_pct(page_lat, 50) * 1000:.0f} ms, "
        f"p99 {_pct(page_lat, 99) * 1000:.0f} ms (goal < 1000 ms; {len(page_lat)} arrivals)"
    )
    print(
        f"   broker killed (SIGKILL): the first record stored again {first_back:.1f} s after, "
        f"every record the outage delayed stored {recovery:.1f} s after (records published "
        f"around it: p99 {_pct(during, 99):.1f} s to the store)"
    )
    print(
        f"   lost {lost} records and {results_lost} results, duplicated {duplicated} "
        f"(goal 0 and 0); {len(results)} results stored of {len(published)} games"
    )
    print(
        f"   the director's CPU: {dcpu:.1f} s in {wall:.0f} s ({100 * dcpu / wall:.0f}% of a core)"
    )
    if lost or results_lost or duplicated or os.environ.get("BENCH_SCALE_KEEP"):
        Path(root / "times.json").write_text(json.dumps({"killed": killed, "started": started}))
        print(f"   the director's log, the store and the figures are kept in {root}")
    else:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


def _cpu(pid: int) -> float:
    """CPU seconds (user + system, every thread) of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "tables":
        run_tables(json.loads(sys.argv[2]))
    elif len(sys.argv) >= 3 and sys.argv[1] == "pages":
        run_pages(json.loads(sys.argv[2]))
    else:
        main()
