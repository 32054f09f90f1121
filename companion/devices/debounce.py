"""Debounce and glitch rejection for a push button, as a pure filter over pin edges.

A mechanical contact chatters for a few milliseconds when it closes and opens, and a long wire
picks up short spikes. The filter turns raw edges into presses:

- a press edge is accepted when at least ``bounce_seconds`` have passed since the last change
  the filter accepted (the accepted press, or the release that followed it): edges closer than
  that are chatter and ignored, on closing and on opening alike;
- a press edge whose pin no longer reads pressed when it is handled was a glitch and is dropped
  (it changes nothing, so the genuine press that may follow is still accepted);
- a press edge while the filter believes the button is still down (its release was lost in
  chatter) is a new press: a press edge implies the button was released in between.

The press counts at the edge's time, not when it is handled. Times are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PressFilter:
    """Debounce one button. ``bounce_seconds``: the pin map's ``[buttons] bounce_seconds``."""

    bounce_seconds: float = 0.02
    _last_change: float | None = None
    _down: bool = False

    def edge(self, pressed: bool, t: float, level_now: bool) -> bool:
        """Feed one edge; True when it is an accepted press.

        Args:
            pressed: True for a press edge (contact closing), False for a release edge.
            t: the instant the pin changed, in seconds.
            level_now: whether the pin reads pressed now, as the edge is handled.
        """
        settled = self._last_change is None or t - self._last_change >= self.bounce_seconds
        if not settled:
            return False
        if pressed:
            if not level_now:
                return False
            self._last_change, self._down = t, True
            return True
        if self._down:  # the release of an accepted press (a spike's release changes nothing)
            self._last_change, self._down = t, False
        return False
