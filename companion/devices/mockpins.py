"""gpiozero's MockFactory on an injected clock, so tests and scripts control press times.

gpiozero's mock pins stamp each change with the real :func:`time.monotonic`; the table service
takes a press at the instant its pin changed. With :class:`ClockedMockFactory` the pins are stamped
with the clock given to the factory (a fake clock in tests, ``time.monotonic`` in the simulator),
so a scripted press at game time 12.5 s counts at exactly 12.5 s.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory, MockPWMPin, PinState


class ClockedMockPWMPin(MockPWMPin):
    """A mock pin (PWM-capable, so the servo can use it too) stamped by its factory's clock."""

    def _change_state(self, value):  # same as MockPin's, on the factory's clock
        if self._state != value:
            t = self._factory.ticks()
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
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, **kwargs):
        self._clock = clock
        kwargs.setdefault("pin_class", ClockedMockPWMPin)
        super().__init__(**kwargs)

    def ticks(self) -> float:  # type: ignore[override]
        """The injected clock, in seconds."""
        return self._clock()

    @staticmethod
    def ticks_diff(later: float, earlier: float) -> float:
        """Seconds between two ticks."""
        return later - earlier
