"""Timer head figures (issue 9, "Measured").

1. From a press on the virtual head to the clock event on the host, in real time, over the real
   path: the firmware's code in a thread behind a pseudo-terminal, pyserial, the serial backend,
   the table service's clock thread. Median and 99th percentile of
   - the delay until the press handler runs (the device interface), and until the table service
     has handled it (the clock event);
   - the error of the press's time: the time the clock is given minus the moment of contact.
2. 10,000 button events through a wire that corrupts, drops and duplicates 1% of frames each
   way, on the simulated clock: delivery (must be exactly once, in order), retransmissions, how
   late frames arrived (simulated seconds), and the CPU time of the run.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

PRESSES = 150


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def _ms(values: list[float]) -> str:
    return (
        f"median {statistics.median(values) * 1000:6.2f} ms   "
        f"p99 {_pct(values, 0.99) * 1000:6.2f} ms   max {max(values) * 1000:6.2f} ms"
    )


def press_to_clock_event() -> None:
    from companion.daemon.challenge import set_judge
    from companion.daemon.config import TableConfig
    from companion.daemon.service import TableService
    from companion.devices.head.sim import open_realtime
    from companion.devices.pinmap import load_pinmap

    pinmap = load_pinmap(backend="mock")
    devices = open_realtime(pinmap)
    connection = devices.extra["head"]
    handled: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        service = TableService(
            devices,
            pinmap,
            table=TableConfig(minutes=99, minute_seconds=600.0),
            judge=set_judge({"CAT"}),
            journal_file=Path(tmp) / "journal.jsonl",
            fsync=False,
        )
        handler = service._on_press  # the service's own handler, timed on the way through

        def timed(role: str, t: float) -> None:
            handled.append(time.monotonic())
            handler(role, t)

        devices.buttons.on_press(timed)
        import threading

        thread = threading.Thread(target=service.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 5
        while not connection.link.connected and time.monotonic() < deadline:
            time.sleep(0.001)
        rng = random.Random(1)
        to_handler, to_clock, stamp_error = [], [], []
        roles = ["red", "blue"]
        for i in range(PRESSES):
            role = roles[i % 2]
            inputs = service.published.inputs
            count = len(handled)
            time.sleep(rng.uniform(0.0, 0.005))  # any phase of the head's 5 ms sampling
            contact = time.monotonic()
            devices.pins[f"buttons.{role}"].drive_low()
            while len(handled) == count and time.monotonic() < contact + 1:
                time.sleep(0.0002)
            while service.published.inputs == inputs and time.monotonic() < contact + 1:
                time.sleep(0.0002)
            done = time.monotonic()
            devices.pins[f"buttons.{role}"].drive_high()
            change = [c for c in connection.changes if c.pressed][-1]
            to_handler.append(handled[-1] - contact)
            to_clock.append(done - contact)
            stamp_error.append(change.t - contact)
            time.sleep(0.03)  # the release is debounced too
        service.stop()
        thread.join(2)
        devices.close()
    print(f"press -> handler (device interface):  {_ms(to_handler)}")
    print(f"press -> clock event (table service): {_ms(to_clock)}")
    print(f"press time given to the clock - contact: {_ms(stamp_error)}")
    print(
        "   goal: the press counts at the moment of contact (within the 5 ms sampling "
        "period), however late it arrives"
    )


def faulty_wire_10k() -> None:
    from companion.devices.head.virtual import Faults, VirtualTable

    faults = Faults(corrupt=0.01, drop=0.01, duplicate=0.01)
    table = VirtualTable(to_host=faults, to_head=faults, seed=11, head_clock_ms=2**32 - 60_000)
    table.run(0.5, 0.002)
    rng = random.Random(2)
    roles = ("blue", "red", "challenge")
    level = dict.fromkeys(roles, False)
    due = dict.fromkeys(roles, 0.6)
    made = 0
    cpu = time.process_time()
    while made < 10_000:
        table.step(0.002)
        for role in roles:
            if table.t >= due[role] and made < 10_000:
                level[role] = not level[role]
                table.head.set_button(role, level[role])
                due[role] = table.t + rng.uniform(0.03, 0.08)
                made += 1
    table.run(3.0, 0.002)
    cpu = time.process_time() - cpu
    got = table.changes
    exact = [c.event for c in got] == list(range(10_000))
    late = [c.received - c.t for c in got]
    print(
        f"10,000 events, 1% corrupt/drop/duplicate each way: delivered {len(got)}, exactly "
        f"once and in order: {exact}"
    )
    print(f"   arrival after contact (simulated): {_ms(late)}")
    stats = table.host.stats()
    head = table.head.head.link
    print(
        f"   frames retransmitted: head {head.retransmitted}, host {stats['retransmitted']}; "
        f"duplicates discarded: host {stats['duplicates']}, head {head.duplicates}; "
        f"bad frames: host {stats['bad_frames']}, head {head.bad_frames}"
    )
    print(f"   CPU for {table.t:.0f} simulated seconds: {cpu:.2f} s")


def main() -> None:
    press_to_clock_event()
    faulty_wire_10k()


if __name__ == "__main__":
    main()
