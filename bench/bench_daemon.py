"""Benchmarks of the table service (issue 2, and issue 3's challenge at the table).

1. Lateness of each minute's expiry behind its ideal instant, with a one-second minute, in the
   real service (threads, mock pins, journal synced): median, 99th percentile, and the median of
   the first and last thirds (growth). Goals: p99 under 2 ms and within 2x the p99 of a bare
   thread sleeping to deadlines in the same run, no growth. The documented figure is
   measured over two minutes: ``BENCH_DAEMON_SECONDS=120 python -m bench daemon`` (default 30 s).
2. From a mock pin press to the new OLED frame being ready: goal p99 under 20 ms.
3. CPU seconds per minute of a running clock (60-second minute, the bar redrawn as it drains,
   heartbeats): goal under 0.3 s.
4. From the last word entered to the verdict on the OLED frame, with the table's lexicon:
   goal under 50 ms.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.clock.timer import MinutePassed
from companion.daemon.challenge import LexiconJudge, set_judge
from companion.daemon.config import TableConfig
from companion.daemon.service import TableService
from companion.devices.backends import open_devices
from companion.devices.pinmap import load_pinmap


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


class Table:
    """A real service on mock pins, in its own thread, with a frame hook."""

    def __init__(self, folder: Path, table: TableConfig, judge=None, fsync: bool = True):
        self.pinmap = load_pinmap(backend="mock")
        self.devices = open_devices(self.pinmap)
        self.frames = threading.Condition()
        self.frame_inputs = -1
        self.frame_times: list[tuple[int, float]] = []
        self.service = TableService(
            self.devices,
            self.pinmap,
            table=table,
            judge=judge or set_judge({"CAT"}),
            journal_file=folder / "journal.jsonl",
            fsync=fsync,
            on_frame=self._frame,
        )
        self.thread = threading.Thread(target=self.service.run, daemon=True)
        self.thread.start()
        self.wait_frame(0, timeout=30.0)  # the service's first frame: it is up and reading pins

    def _frame(self, image, inputs: int) -> None:
        with self.frames:
            self.frame_inputs = inputs
            self.frames.notify_all()

    def wait_frame(self, inputs: int, timeout: float = 2.0) -> float:
        """Wait for a frame reflecting ``inputs`` inputs; returns the monotonic time it was ready."""
        with self.frames:
            ok = self.frames.wait_for(lambda: self.frame_inputs >= inputs, timeout)
        if not ok:
            raise RuntimeError(f"no frame for input {inputs} within {timeout} s")
        return time.perf_counter()

    def press(self, role: str) -> None:
        """Close ``role``'s contact now and open it 10 ms later (a quick real tap is 8-25 ms;
        a 3 ms one was sometimes dropped by the 2 ms glitch filter when its check ran late),
        without waiting: the time to the frame is counted from the contact closing."""
        pin = self.devices.pins[f"buttons.{role}"]
        pin.drive_low()
        threading.Timer(0.01, pin.drive_high).start()

    def close(self) -> None:
        self.service.stop()
        self.thread.join(3)
        self.devices.close()


def minute_lateness(folder: Path, seconds: float) -> None:
    t = Table(folder, TableConfig(minutes=30, minute_seconds=1.0))
    late: list[float] = []
    svc = t.service
    t.press("red")  # blue on move
    t.wait_frame(1)
    timer = svc.mode.timer
    original = timer.advance

    def advance(at: float):
        notices = original(at)
        now = svc.game_time()
        late.extend(now - n.t for n in notices if isinstance(n, MinutePassed))
        return notices

    timer.advance = advance
    end = time.monotonic() + seconds
    mover = "blue"
    while time.monotonic() < end:
        time.sleep(min(10.5, max(0.0, end - time.monotonic())))  # 10 minutes pass, then press
        if time.monotonic() < end:
            t.press(mover)
            mover = "red" if mover == "blue" else "blue"
    t.close()
    ms = [x * 1000 for x in late]
    third = max(1, len(ms) // 3)
    print(f"minute expiry lateness, 1 s minute, {seconds:.0f} s real time, {len(ms)} minutes:")
    print(
        f"   median {statistics.median(ms):.3f} ms, p99 {_pct(ms, 99):.3f} ms, "
        f"max {max(ms):.3f} ms (goal p99 < 2 ms)"
    )
    print(
        f"   growth: median of first third {statistics.median(ms[:third]):.3f} ms, "
        f"last third {statistics.median(ms[-third:]):.3f} ms"
    )
    base = bare_sleep_lateness(min(seconds / 3, 20.0))
    print(
        f"   baseline, a bare thread sleeping to deadlines on this machine now: median "
        f"{statistics.median(base):.3f} ms, p99 {_pct(base, 99):.3f} ms "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    )
    ratio = _pct(ms, 99) / max(_pct(base, 99), 1e-6)
    verdict = "met" if ratio <= 2 else "NOT met"
    print(f"   expiry p99 / bare thread p99 = {ratio:.2f} (goal within 2x, same run: {verdict})")


def bare_sleep_lateness(seconds: float, period: float = 0.1) -> list[float]:
    """The machine's own wake-up lateness: a bare thread sleeping to deadlines every ``period``
    seconds (computed from the start, as the service does); milliseconds."""
    ev = threading.Event()
    late = []
    start = time.monotonic()
    k = 1
    while time.monotonic() - start < seconds:
        deadline = start + k * period
        ev.wait(max(0.0, deadline - time.monotonic()))
        late.append((time.monotonic() - deadline) * 1000)
        k += 1
    return late


def press_to_frame(folder: Path, presses: int = 300) -> None:
    t = Table(folder, TableConfig(minutes=5, minute_seconds=60.0))
    times: list[float] = []
    mover_next = "red"  # red's first press starts blue's move
    for i in range(1, presses + 1):
        start = time.perf_counter()
        t.press(mover_next)
        ready = t.wait_frame(i)
        times.append((ready - start) * 1000)
        mover_next = "blue" if i % 2 == 1 else "red"
        time.sleep(0.08)  # one pin is pressed every other time: more than 0.15 s apart
    t.close()
    print(f"mock pin press -> new OLED frame ready, {presses} presses:")
    print(
        f"   median {statistics.median(times):.2f} ms, p99 {_pct(times, 99):.2f} ms, "
        f"max {max(times):.2f} ms (goal p99 < 20 ms)"
    )


def cpu_per_minute(folder: Path, seconds: float) -> None:
    t = Table(folder, TableConfig(minutes=5, minute_seconds=60.0))
    t.press("red")
    t.wait_frame(1)
    c0, w0 = time.process_time(), time.monotonic()
    time.sleep(seconds)
    cpu, wall = time.process_time() - c0, time.monotonic() - w0
    frames = t.service._display.done
    t.close()
    print(f"CPU of a running clock (60 s minute), measured over {wall:.0f} s:")
    print(f"   {cpu / wall * 60:.3f} CPU seconds per minute (goal < 0.3 s); {frames} frames drawn")


def word_to_verdict(folder: Path, rounds: int = 60) -> None:
    judge = LexiconJudge(None)
    t0 = time.perf_counter()
    judge.wait(300)
    opened = time.perf_counter() - t0
    try:
        judge(["CAT"])
        name = judge.name
    except Exception as exc:  # noqa: BLE001 - fall back, and say so
        print(f"   (table lexicon unavailable: {exc}; using a small set)")
        judge, name = set_judge({"CAT", "QI"}, "set"), "set"
    t = Table(folder, TableConfig(minutes=99, minute_seconds=60.0), judge=judge)
    n = 0

    def step(action, *args) -> None:
        nonlocal n
        time.sleep(0.2)  # the settling press and the next challenge are the same pin, twice
        action(*args)
        n += 1
        t.wait_frame(n)

    step(t.press, "red")  # blue on move
    times = []
    words = ["CAT QI", "QZX CAT", "LOVE LOVES LOVING", "XYZZY"]
    for i in range(rounds):
        step(t.press, "challenge")
        step(t.press, "red")  # red challenges blue's word
        start = time.perf_counter()
        t.service.line(words[i % len(words)])
        n += 1
        t.wait_frame(n)  # JUDGING... at once (the judge rules on its worker), then the verdict
        deadline = time.monotonic() + 5.0
        while t.service.published.status != "challenge:verdict" and time.monotonic() < deadline:
            time.sleep(0.0002)
        ready = time.perf_counter()
        times.append((ready - start) * 1000)
        assert t.service.published.status == "challenge:verdict", t.service.published
        step(t.press, "challenge")  # settle
    t.close()
    print(
        f"last word entered -> verdict on the OLED frame, lexicon {name} (opened in {opened:.2f} s):"
    )
    print(
        f"   median {statistics.median(times):.2f} ms, p99 {_pct(times, 99):.2f} ms, "
        f"max {max(times):.2f} ms over {rounds} challenges (goal < 50 ms)"
    )


def main() -> None:
    seconds = float(os.environ.get("BENCH_DAEMON_SECONDS", "30"))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ.setdefault("COMPANION_DATA_DIR", str(folder / "data"))
        for i, run in enumerate(
            (
                lambda f: press_to_frame(f),
                lambda f: word_to_verdict(f),
                lambda f: cpu_per_minute(f, min(seconds, 60.0)),
                lambda f: minute_lateness(f, seconds),
            )
        ):
            sub = folder / str(i)
            sub.mkdir()
            run(sub)


if __name__ == "__main__":
    main()
