"""gpiozero's MockFactory on an injected clock, so tests and scripts control press times.

gpiozero's mock pins stamp each change with the real :func:`time.monotonic`; the table service
takes a press at the instant its pin changed. With :class:`ClockedMockFactory` the pins are stamped
with the clock given to the factory (a fake clock in tests, ``time.monotonic`` in the simulator),
so a scripted press at game time 12.5 s counts at exactly 12.5 s.

The factory also carries the ``timer`` the buttons' filter uses for its checks
(:mod:`companion.devices.timers`): on a fake clock a :class:`~companion.devices.timers.ManualTimer`
whose due checks run just before each pin change (so a contact held for 10 ms of fake time
counts when it opens) or when a script runs them (:meth:`ClockedMockFactory.run_due`); on the
real clock a :class:`~companion.devices.timers.ThreadTimer`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory, MockPWMPin, PinState

from companion.devices.timers import ManualTimer, ThreadTimer


class ClockedMockPWMPin(MockPWMPin):
    """A mock pin (PWM-capable, so the servo can use it too) stamped by its factory's clock."""

    def _change_state(self, value):  # same as MockPin's, on the factory's clock
        if self._state != value:
            factory = self._factory
            if getattr(factory, "auto_run", False):
                factory.run_due()  # the checks due before this change see the pin as it was
            t = factory.ticks()
            self._state = value
            self.states.append(PinState(t - self._last_change, value))
            self._last_change = t
            return True
        return False

    def clear_states(self):
        self._last_change = self._factory.ticks() if hasattr(self, "_factory") else time.monotonic()
        self.states = [PinState(0.0, self._state)]


class ClockedMockFactory(MockFactory):
    """A MockFactory whose ``ticks()`` is ``clock()`` (seconds); every pin is a PWM-capable mock.

    Args:
        clock: a function returning monotonic seconds (default :func:`time.monotonic`).
        timer: the buttons' timer (default: a ThreadTimer on the real clock, else a ManualTimer).
        auto_run: run a ManualTimer's due checks before each pin change (default True).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        timer: ManualTimer | None = None,
        auto_run: bool = True,
        **kwargs,
    ):
        self._clock = clock
        if timer is None:
            timer = ThreadTimer(clock, "buttons") if clock is time.monotonic else ManualTimer()
        self.timer = timer
        self.auto_run = auto_run and not isinstance(timer, ThreadTimer)
        kwargs.setdefault("pin_class", ClockedMockPWMPin)
        super().__init__(**kwargs)

    def ticks(self) -> float:  # type: ignore[override]
        """The injected clock, in seconds."""
        return self._clock()

    @staticmethod
    def ticks_diff(later: float, earlier: float) -> float:
        """Seconds between two ticks."""
        return later - earlier

    def tap(self, pin, hold: float = 0.01) -> None:
        """Press a mock button: close the contact of ``pin``, keep it closed ``hold`` seconds
        (a 10 ms tap), open it. On a fake clock the clock does not move: the buttons' checks are
        run as if the time had passed, so the press counts at the instant the clock reads; on
        the real clock it waits ``hold`` (a press held for no time at all is a spike, and the
        glitch filter drops it, as it should)."""
        pin.drive_low()
        if isinstance(self.timer, ThreadTimer):
            time.sleep(hold)
        else:
            self.timer.run_due(self._clock() + hold)
        pin.drive_high()

    def run_due(self, now: float | None = None) -> int:
        """Run the buttons' checks due at ``now`` (default the clock's reading)."""
        if isinstance(self.timer, ThreadTimer):
            return 0
        return self.timer.run_due(self._clock() if now is None else now)
