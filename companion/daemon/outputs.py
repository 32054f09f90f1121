"""Output workers: each device is driven from its own thread, so a slow or failing display or
servo never delays the clock or a button.

A :class:`LatestWorker` keeps only the newest value (a frame, an angle, the LEDs): if the device is
slow, stale values are skipped, never queued. A :class:`QueueWorker` keeps every value (beeps).
With ``inline=True`` the function runs in the caller's thread (deterministic tests).
Exceptions from a device are counted and kept in ``errors``; the worker carries on, and
``on_problem(name, problem)`` is called when the device starts failing (``problem`` the error)
and again with None when it works again, so the service can name the failing part.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import Any

_EMPTY = object()


class LatestWorker:
    """Run ``fn(value)`` for the newest submitted value on a daemon thread named ``name``.

    ``problem`` is None while the last call worked, else ``"OSError: [Errno 121] ..."``;
    ``on_problem(name, problem)`` is called (on the worker's thread) each time it changes.
    """

    def __init__(
        self,
        name: str,
        fn: Callable[[Any], None],
        inline: bool = False,
        on_problem: Callable[[str, str | None], None] | None = None,
    ) -> None:
        self.name = name
        self.fn = fn
        self.inline = inline
        self.on_problem = on_problem
        self.problem: str | None = None
        self.errors: collections.deque[str] = collections.deque(maxlen=20)
        self.failures = 0
        self.done = 0
        self._value: Any = _EMPTY
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
            self._cond.notify()

    def _call(self, value: Any) -> None:
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
            self._call(value)

    def stop(self, timeout: float = 1.0) -> None:
        """Finish the value in hand (if any) and stop the thread."""
        with self._cond:
            self._stopped = True
            self._cond.notify()
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
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._items and not self._stopped:
                    self._cond.wait()
                if not self._items:
                    return
                value = self._items.popleft()
            self._call(value)
