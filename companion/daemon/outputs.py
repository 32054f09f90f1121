"""Output workers: each device is driven from its own thread, so a slow or failing display or
servo never delays the clock or a button.

A :class:`LatestWorker` keeps only the newest value (a frame, an angle, the LEDs): if the device is
slow, stale values are skipped, never queued. A :class:`QueueWorker` keeps every value (beeps).
With ``inline=True`` the function runs in the caller's thread (deterministic tests).
Exceptions from a device are counted and kept in ``errors``; the worker carries on, and
``on_problem(name, problem)`` is called when the device starts failing (``problem`` the error)
and again with None when it works again, so the service can name the failing part. A device that
is slow (a write that blocks, an I2C bus held by another device) is said the same way: with
``slow_seconds`` given, ``on_slow(name, what)`` is called when a call took that long or more and
again with None after the first quick one, and :attr:`LatestWorker.busy_since` tells how long the
call in hand has been running (a write that never returns).
"""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from typing import Any

_EMPTY = object()


class LatestWorker:
    """Run ``fn(value)`` for the newest submitted value on a daemon thread named ``name``.

    ``problem`` is None while the last call worked, else ``"OSError: [Errno 121] ..."``;
    ``on_problem(name, problem)`` is called (on the worker's thread) each time it changes.
    ``slow`` is None while the last call took less than ``slow_seconds`` (seconds of ``clock``,
    monotonic), else what it took (``"a write took 2.0 s"``); ``on_slow(name, slow)`` is called
    (on the worker's thread) each time it changes. ``busy_since``: the ``clock`` reading at which
    the call in hand began, or None between calls.
    """

    def __init__(
        self,
        name: str,
        fn: Callable[[Any], None],
        inline: bool = False,
        on_problem: Callable[[str, str | None], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        slow_seconds: float | None = None,
        on_slow: Callable[[str, str | None], None] | None = None,
    ) -> None:
        self.name = name
        self.fn = fn
        self.inline = inline
        self.on_problem = on_problem
        self.clock = clock
        self.slow_seconds = slow_seconds
        self.on_slow = on_slow
        self.slow: str | None = None
        self.busy_since: float | None = None
        self.problem: str | None = None
        self.errors: collections.deque[str] = collections.deque(maxlen=20)
        self.failures = 0
        self.done = 0
        self._value: Any = _EMPTY
        self._in_hand = False  # a value taken from the queue is being handled
        self._cond = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None
        if not inline:
            self._thread = threading.Thread(target=self._run, name=name, daemon=True)
            self._thread.start()

    def submit(self, value: Any) -> None:
        """Hand over a value; returns at once (replaces a value not yet taken)."""
        if self.inline:
            self._call(value)
            return
        with self._cond:
            self._value = value
            self._cond.notify_all()

    def _call(self, value: Any) -> None:
        start = self.busy_since = self.clock()
        try:
            self.fn(value)
            self.done += 1
        except Exception as exc:  # noqa: BLE001 - a device failing must not stop the table
            self.failures += 1
            problem = f"{type(exc).__name__}: {exc}"
            self.errors.append(problem)
            self._set_problem(problem)
        else:
            self._set_problem(None)
        finally:
            self.busy_since = None
        if self.slow_seconds is not None:
            took = self.clock() - start
            self._set_slow(f"a write took {took:.1f} s" if took >= self.slow_seconds else None)

    def _set_slow(self, slow: str | None) -> None:
        changed = (slow is None) != (self.slow is None)
        self.slow = slow
        if changed and self.on_slow is not None:
            self.on_slow(self.name, slow)

    def _set_problem(self, problem: str | None) -> None:
        changed = (problem is None) != (self.problem is None)
        self.problem = problem
        if changed and self.on_problem is not None:
            self.on_problem(self.name, problem)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._value is _EMPTY and not self._stopped:
                    self._cond.wait()
                if self._stopped and self._value is _EMPTY:
                    return
                value, self._value = self._value, _EMPTY
                self._in_hand = True
            self._call(value)
            self._handed()

    def _handed(self) -> None:
        with self._cond:
            self._in_hand = False
            self._cond.notify_all()

    def _waiting(self) -> bool:
        return self._value is not _EMPTY

    @property
    def idle(self) -> bool:
        """True when no value waits and none is being handled."""
        with self._cond:
            return not self._waiting() and not self._in_hand

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait (real time, at most ``timeout`` seconds) until every value submitted so far has
        been handled; True when it has (for tests and the simulator)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._waiting() and not self._in_hand, timeout)

    def stop(self, timeout: float = 1.0) -> None:
        """Finish the value in hand (if any) and stop the thread."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)


class QueueWorker(LatestWorker):
    """Like :class:`LatestWorker` but every submitted value is handled, in order."""

    def __init__(
        self,
        name: str,
        fn: Callable[[Any], None],
        inline: bool = False,
        on_problem: Callable[[str, str | None], None] | None = None,
    ) -> None:
        self._items: collections.deque = collections.deque(maxlen=64)
        super().__init__(name, fn, inline, on_problem)

    def submit(self, value: Any) -> None:
        """Queue a value (at most 64 wait; older ones are dropped)."""
        if self.inline:
            self._call(value)
            return
        with self._cond:
            self._items.append(value)
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._items and not self._stopped:
                    self._cond.wait()
                if not self._items:
                    return
                value = self._items.popleft()
                self._in_hand = True
            self._call(value)
            self._handed()

    def _waiting(self) -> bool:
        return bool(self._items)
