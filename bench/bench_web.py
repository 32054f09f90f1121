"""The director's pages with 200 tables: the hall's first load, how soon a table's change reaches
the open pages, and 50 pages open at once.

Goals (issue 18): with 200 tables, the hall page's first load is under 1 s; an update reaches an
open page under 1 s after the table's change (p99); the director serves 50 open pages at once
without falling behind (every page has every table's newest state at the end).

Set-up: a real SQLite store (WAL) with 200 tables of round 1 set up and playing (states, a
game's journal at each, 40 results); the pages served by uvicorn in a process of their own over
that file, as ``companion director --http`` serves them; this process writes the tables'
changes into the store (as the director does when a table's message arrives) at
``BENCH_WEB_RATE`` changes a second (default 20: a 200-table hall where every table moves about
every 10 s) for ``BENCH_WEB_SECONDS`` (default 20), while 50 pages listen to the live updates
(40 halls, 10 table pages). The first load is timed over HTTP and in headless Chromium
(navigation start to the load event). Latency is from the director's taking a change (just before the
store's write) to its arrival at a page.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TABLES = 200
PAGES = 50
TABLE_PAGES = 10
RATE = float(os.environ.get("BENCH_WEB_RATE", "20"))
SECONDS = float(os.environ.get("BENCH_WEB_SECONDS", "20"))
MARK = re.compile(r"BENCH (\d+)")
SERVER = """
import sys
from companion.tournament.store import Store
from companion.tournament.web import serve
serve(Store(sys.argv[1], durable=False), "127.0.0.1", int(sys.argv[2]),
      director_password="bench")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _fill(store) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.web_support import fill_hall, result_record

    now = time.time()
    fill_hall(store, tables=TABLES, now=now)
    for n in range(10, 50):
        store.record_result(n, f"t{n}-g1", 1, result_record(f"B{n}", f"R{n}", "red"), now)
        for seq in range(1, 30):
            store.record_event(
                n,
                f"t{n}-g2",
                seq,
                {"t": 10.0 * seq, "kind": "press", "role": "blue" if seq % 2 else "red"},
                now,
            )


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def _first_load(url: str) -> tuple[list[float], int]:
    import httpx

    times = []
    size = 0
    with httpx.Client() as c:
        for _ in range(10):
            t0 = time.perf_counter()
            r = c.get(url + "/")
            times.append(time.perf_counter() - t0)
            size = len(r.content)
            assert r.text.count('class="tile') == TABLES, "the hall has a tile per table"
    return times, size


def _browser_load(url: str) -> list[float]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.web_support import Browser, chromium_available

    if not chromium_available():
        return []
    browser = Browser()
    try:
        out = []
        for _ in range(5):
            browser.driver.get("about:blank")
            browser.driver.get(url + "/")
            t = browser.driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0];"
                "return n.loadEventEnd - n.startTime;"
            )
            out.append(float(t) / 1000)
        return out
    finally:
        browser.quit()


async def _listen(url: str, path: str, sent: dict, latencies: list, newest: dict, stop):
    import httpx

    async with httpx.AsyncClient(timeout=None) as c, c.stream("GET", url + path) as r:
        async for line in r.aiter_lines():
            if stop.is_set():
                return
            if not line.startswith("data:"):
                continue
            got = time.time()
            message = json.loads(line[5:])
            fragments = list((message.get("tiles") or {}).items())
            if message.get("detail"):
                fragments.append((path.rsplit("=", 1)[1], message["detail"]))
            for table, html in fragments:
                m = MARK.search(html)
                if m:
                    seq = int(m.group(1))
                    if seq in sent:
                        latencies.append(got - sent[seq])
                    newest[int(table)] = max(newest.get(int(table), 0), seq)


async def _run(url: str, store) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.web_support import iago_state

    sent: dict[int, float] = {}
    last_of: dict[int, int] = {}
    latencies: list[float] = []
    stop = asyncio.Event()
    newest = [dict() for _ in range(PAGES)]
    paths = ["/events"] * (PAGES - TABLE_PAGES) + [
        f"/events?table={n}" for n in range(1, TABLE_PAGES + 1)
    ]
    tasks = [
        asyncio.create_task(_listen(url, p, sent, latencies, newest[i], stop))
        for i, p in enumerate(paths)
    ]
    await asyncio.sleep(2.0)  # every page connected
    rnd = random.Random(18)
    loop = asyncio.get_running_loop()
    seq = 0
    start = time.monotonic()
    while time.monotonic() - start < SECONDS:
        seq += 1
        # the first ten tables change often (their pages are open), the rest at random
        n = rnd.randint(1, TABLE_PAGES) if seq % 4 == 0 else rnd.randint(1, TABLES)
        state = iago_state(
            n,
            mover=rnd.choice(("blue", "red")),
            minutes=(rnd.randint(0, 5), rnd.randint(0, 5)),
            sand_left=rnd.uniform(1, 60),
            faults=[f"BENCH {seq}"],
        )

        def write(n=n, state=state, seq=seq):
            sent[seq] = time.time()  # the message reaches the director
            store.record_state(n, state, sent[seq])

        await loop.run_in_executor(None, write)
        last_of[n] = seq
        await asyncio.sleep(max(0.0, start + seq / RATE - time.monotonic()))
    await asyncio.sleep(2.0)  # let the last changes arrive
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    behind = 0
    for i, p in enumerate(paths):
        wanted = (
            last_of
            if "table=" not in p
            else {int(p.rsplit("=", 1)[1]): last_of.get(int(p.rsplit("=", 1)[1]), 0)}
        )
        behind += sum(1 for n, s in wanted.items() if s and newest[i].get(n, 0) != s)
    return {"changes": seq, "latencies": latencies, "behind": behind}


def main() -> None:
    from companion.tournament.store import Store

    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        path = Path(tmp) / "event.sqlite"
        store = Store(path, durable=False)
        _fill(store)
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen([sys.executable, "-c", SERVER, str(path), str(port)])
        try:
            import httpx

            deadline = time.monotonic() + 20
            while True:
                try:
                    httpx.get(url + "/progress", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("the pages' server did not start") from None
                    time.sleep(0.1)
            http_times, size = _first_load(url)
            browser_times = _browser_load(url)
            cpu0, t0 = _cpu_seconds(server.pid), time.monotonic()
            run = asyncio.run(_run(url, store))
            cpu = (_cpu_seconds(server.pid) - cpu0) / (time.monotonic() - t0)
            rss = _rss_mb(server.pid)
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            store.close()
    lat = run["latencies"]
    expected = run["changes"] * (PAGES - TABLE_PAGES)
    print(
        f"hall of {TABLES} tables, first load over HTTP: median "
        f"{statistics.median(http_times) * 1000:.0f} ms, worst {max(http_times) * 1000:.0f} ms "
        f"({size / 1024:.0f} KiB)  goal < 1000 ms"
    )
    if browser_times:
        print(
            f"hall first load in headless Chromium (to the load event): median "
            f"{statistics.median(browser_times) * 1000:.0f} ms, worst "
            f"{max(browser_times) * 1000:.0f} ms  goal < 1000 ms"
        )
    print(
        f"{run['changes']} table changes at {RATE:g}/s over {SECONDS:g} s to {PAGES} open pages "
        f"({PAGES - TABLE_PAGES} halls, {TABLE_PAGES} table pages): {len(lat)} arrivals "
        f"(halls alone expect about {expected}; changes to one table close together arrive "
        "as one)"
    )
    print(
        f"update to open page: median {_pct(lat, 50) * 1000:.0f} ms, p99 "
        f"{_pct(lat, 99) * 1000:.0f} ms, worst {max(lat) * 1000:.0f} ms  goal p99 < 1000 ms"
    )
    print(
        f"pages behind at the end (a table whose newest state a page lacks): {run['behind']}"
        "  goal 0"
    )
    print(f"pages' server: {cpu * 100:.0f}% of a core during the run, {rss:.0f} MB resident")


if __name__ == "__main__":
    main()
