"""Glitch filter and debounce for a push button, as a pure filter over pin edges.

What real contacts and cables do, and what the filter makes of it (issue 12, "one touch, one
press"; figures in bench/bench_chatter.py):

- a spike of 20-500 us (EMI on a long cable) is no press: a press is accepted only once the
  contact has read closed for ``glitch_seconds`` (2 ms) without a break;
- the press counts at its *first* edge, even when that edge bounced (a closing that chatters for
  0.2 ms): the time handed on is the first closing edge after the contact was open;
- once a press is accepted the button is down until the contact has read open for
  ``bounce_seconds`` (the pin map's ``[buttons] bounce_seconds``, 20 ms) without a break: the
  chatter of its release, however long, is no new press;
- a closing less than ``repeat_seconds`` (0.15 s) after the first edge of the last press is a
  glitch, not a second press (an edge 60-90 ms after a short tap, which on CHALLENGE would call
  the challenge off); no hand presses one button twice that fast;
- a button held when the filter starts (the box or the timer head restarting) is down: its
  release is no press.

The filter is fed edges (``edge``) and asked to look at the pin a little after them (``check``,
at the times :meth:`PressFilter.checks_after` gives), since no edge comes to say that a contact
stayed still. Callbacks may arrive late (a Pi delivers them ~0.3 ms after the edge): an edge is
stamped with the instant the pin changed, and a check that finds the pin at another level than
the last edge delivered waits for that edge. Times are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

GLITCH_SECONDS = 0.002  # a press must read closed this long without a break
REPEAT_SECONDS = 0.15  # a closing this soon after a press's first edge is a glitch
_EPS = 1e-9  # seconds: floating-point slack in comparing times


@dataclass
class PressFilter:
    """Glitch filter and debounce of one button (see the module docstring).

    Args:
        bounce_seconds: the release must read open this long (pin map ``bounce_seconds``).
        glitch_seconds: a press must read closed this long.
        repeat_seconds: the least time between the first edges of two presses.
        down: the button is held now (at start).
    """

    bounce_seconds: float = 0.02
    glitch_seconds: float = GLITCH_SECONDS
    repeat_seconds: float = REPEAT_SECONDS
    down: bool = False
    _level: bool | None = None  # the level of the last edge delivered (None: none yet)
    _last_edge: float | None = None
    _candidate: float | None = None  # first edge of a closing not yet accepted
    _last_press: float | None = None

    def __post_init__(self) -> None:
        if self._level is None:
            self._level = self.down

    def edge(self, pressed: bool, t: float) -> None:
        """One edge of the pin: ``pressed`` True for closing, False for opening, at ``t``."""
        self._level = pressed
        self._last_edge = t if self._last_edge is None else max(t, self._last_edge)
        if not pressed or self.down or self._candidate is not None:
            return
        if self._last_press is not None and t - self._last_press < self.repeat_seconds - _EPS:
            return  # a glitch right after a press
        self._candidate = t

    def checks_after(self, t: float) -> tuple[float, ...]:
        """When to :meth:`check` after an edge at ``t``: after the glitch and the bounce time."""
        return (t + self.glitch_seconds, t + self.bounce_seconds)

    def check(self, now: float, level_now: bool) -> float | None:
        """Look at the pin at ``now`` (it reads ``level_now``, True = closed).

        Returns:
            the time of a press accepted now (its first edge), else None.
        """
        if self._last_edge is None or level_now != self._level:
            return None  # an edge is still on its way: its own check comes later
        quiet = now - self._last_edge
        if self._candidate is not None and quiet >= self.glitch_seconds - _EPS:
            start, self._candidate = self._candidate, None
            if level_now:
                self._last_press, self.down = start, True
                return start
            return None  # it opened again and stayed open: a spike
        if self.down and not level_now and quiet >= self.bounce_seconds - _EPS:
            self.down = False
        return None
