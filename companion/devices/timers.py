"""Calls at given times, for the button filter's checks (``call_at(t, fn)``).

A contact filter must look at a pin a little after its last edge (has it stayed closed for the
glitch time? open for the bounce time?), and no edge comes to wake it then. :class:`ThreadTimer`
runs those calls on one daemon thread against a monotonic clock (the Pi, the interactive
simulator); :class:`ManualTimer` runs them only when told (:meth:`ManualTimer.run_due`), so tests
and scripts on a fake clock decide exactly when, and nothing sleeps.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable

Call = Callable[[float], None]
"""``fn(now)``: called at (or after) its time with the clock's reading, in seconds."""


class ManualTimer:
    """Keeps the calls; :meth:`run_due` makes those that are due, in time order."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Call]] = []
        self._count = itertools.count()
        self._lock = threading.Lock()

    def call_at(self, t: float, fn: Call) -> None:
        """Call ``fn(t)`` once :meth:`run_due` reaches ``t`` (seconds)."""
        with self._lock:
            heapq.heappush(self._heap, (t, next(self._count), fn))

    def next_due(self) -> float | None:
        """The time of the next call kept, or None."""
        with self._lock:
            return self._heap[0][0] if self._heap else None

    def run_due(self, now: float) -> int:
        """Make every call due at ``now`` or before, each with its own time; returns how many."""
        done = 0
        while True:
            with self._lock:
                if not self._heap or self._heap[0][0] > now:
                    return done
                t, _, fn = heapq.heappop(self._heap)
            fn(t)
            done += 1


class ThreadTimer(ManualTimer):
    """Makes the calls on a daemon thread when ``clock()`` reaches their time (a real clock)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, name: str = "timer") -> None:
        super().__init__()
        self._clock = clock
        self._wake = threading.Condition(self._lock)
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def call_at(self, t: float, fn: Call) -> None:
        """Call ``fn(now)`` on the timer's thread once ``clock()`` reaches ``t``."""
        with self._wake:
            heapq.heappush(self._heap, (t, next(self._count), fn))
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while True:
                    if self._heap:
                        delay = self._heap[0][0] - self._clock()
                        if delay <= 0:
                            break
                        self._wake.wait(delay)
                    else:
                        self._wake.wait()
                _, _, fn = heapq.heappop(self._heap)
            try:
                fn(self._clock())
            except Exception:  # noqa: BLE001 - one bad call must not stop the buttons
                import logging

                logging.getLogger(__name__).exception("button timer call failed")
