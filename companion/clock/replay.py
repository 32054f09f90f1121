"""Replay a script of timed events on the differential timer (the ``companion clock replay``
contract of DESIGN.md).

A script has one JSON object a line: ``{"t": 12.5, "press": "blue"}``, ``{"t": 30, "challenge":
"red"}`` (red is the challenger), ``{"t": 44, "ruling": "sustained"}`` or ``"rejected"``,
``{"t": 50, "pause": true}``, ``{"t": 60, "resume": true}``. Blank lines and lines starting with
``#`` are skipped. Times are seconds and must not go backwards.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from companion.clock.timer import COLOURS, ClockError, DifferentialTimer, Verdict
from companion.textformats import is_number, loads_json, shown

EVENT_KINDS = ("press", "challenge", "ruling", "pause", "resume")
SCRABBLE_KINDS = (*EVENT_KINDS, "end")
"""The crossword game's clock takes one more event: ``{"t": T, "end": true}``, the game over."""


class ScriptError(ClockError):
    """A script line that is not a valid event; the message names the line and the field."""


@dataclass(frozen=True)
class ClockEvent:
    """One timed input to the clock: ``kind`` in EVENT_KINDS, ``value`` its argument, ``t`` seconds."""

    t: float
    kind: str
    value: str | bool
    where: str = field(default="", compare=False)
    """Where the event was read (``script.jsonl:3``), for messages; not part of the event."""

    def apply(self, timer) -> list:
        """Apply this event to ``timer`` (a :class:`DifferentialTimer`, or the crossword game's
        :class:`~companion.games.scrabble.clock.TournamentClock`) and return its notices."""
        if self.kind == "press":
            return timer.press(str(self.value), self.t)
        if self.kind == "challenge":
            return timer.challenge(str(self.value), self.t)
        if self.kind == "ruling":
            return timer.rule(str(self.value), self.t)
        if self.kind == "pause":
            return timer.pause(self.t)
        if self.kind == "end":
            return timer.end(self.t)
        return timer.resume(self.t)

    def to_json(self) -> dict:
        """The event as a script line's object."""
        return {"t": self.t, self.kind: self.value}


def _js(value: object) -> str:
    """``value`` as the script writes it (JSON: true, null, "red"), for error messages."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return shown(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_event(
    obj: object, where: str = "event", kinds: tuple[str, ...] = EVENT_KINDS
) -> ClockEvent:
    """Check one decoded script object and return it as a :class:`ClockEvent`; ``kinds`` are the
    events accepted (:data:`SCRABBLE_KINDS` for the crossword game's clock).

    Raises:
        ScriptError: naming ``where``, the bad field and what is accepted.
    """
    if not isinstance(obj, dict):
        raise ScriptError(f'{where}: expected a JSON object like {{"t": 1.5, "press": "blue"}}')
    t = obj.get("t")
    if not is_number(t, 0.0):
        raise ScriptError(f'{where}: "t" is {_js(t)}; accepted: a number of seconds, 0 or more')
    fields = [k for k in obj if k != "t"]
    unknown = [k for k in fields if k not in kinds]
    if unknown or len(fields) != 1:
        raise ScriptError(
            f'{where}: has fields {_js(fields)}; accepted: "t" and exactly one of {_js(list(kinds))}'
        )
    kind = fields[0]
    value = obj[kind]
    if kind in ("press", "challenge") and value not in COLOURS:
        raise ScriptError(f'{where}: "{kind}" is {_js(value)}; accepted: "blue", "red"')
    if kind == "ruling" and value not in [v.value for v in Verdict]:
        raise ScriptError(f'{where}: "ruling" is {_js(value)}; accepted: "sustained", "rejected"')
    if kind in ("pause", "resume", "end") and value is not True:
        raise ScriptError(f'{where}: "{kind}" is {_js(value)}; accepted: true')
    return ClockEvent(float(t), kind, value, where)


def parse_script(
    lines: Iterable[str], name: str = "script", kinds: tuple[str, ...] = EVENT_KINDS
) -> list[ClockEvent]:
    """Parse a whole script (``kinds``: the events accepted); every bad line is reported at once.

    Raises:
        ScriptError: listing each bad line as ``name:LINE: problem``.
    """
    events: list[ClockEvent] = []
    errors: list[str] = []
    last = None
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{name}:{n}"
        try:
            obj = loads_json(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not JSON ({exc.msg} at column {exc.colno})")
            continue
        try:
            ev = parse_event(obj, where, kinds)
        except ScriptError as exc:
            errors.append(str(exc))
            continue
        if last is not None and ev.t < last:
            errors.append(f'{where}: "t" {ev.t} is earlier than the line before ({last})')
        last = ev.t
        events.append(ev)
    if errors:
        raise ScriptError("\n".join(errors))
    return events


def replay(
    events: Iterable[ClockEvent],
    minutes: int = 5,
    minute_seconds: float = 60.0,
    at: float | None = None,
) -> DifferentialTimer:
    """Replay ``events`` on a fresh timer and return it: the state at time ``at`` if given (only
    the events up to ``at`` applied, then the sand run to ``at``), else at the last event.

    Raises:
        ClockError: bad settings.
        ScriptError: an event the clock refuses where it comes (a ruling with no challenge under
            way), naming the script's line.
    """
    timer = DifferentialTimer(minutes=minutes, minute_seconds=minute_seconds)
    return _run(timer, events, at)


def replay_scrabble(
    events: Iterable[ClockEvent],
    minutes: int = 25,
    challenge_rule: str = "double",
    at: float | None = None,
):
    """Replay ``events`` on a fresh crossword-game clock
    (:class:`~companion.games.scrabble.clock.TournamentClock`) and return it, as :func:`replay`.

    Raises:
        ClockError: bad settings.
        ScriptError: an event the clock refuses where it comes, naming the script's line.
    """
    from companion.games.scrabble.clock import TournamentClock

    clock = TournamentClock(minutes=minutes, challenge_rule=challenge_rule)
    return _run(clock, events, at)


def _run(timer, events: Iterable[ClockEvent], at: float | None):
    """Apply ``events`` (those up to ``at`` if given) to ``timer``, then run it to ``at``."""
    for ev in events:
        if at is not None and ev.t > at:
            break  # the state at time ``at``: later events have not happened yet
        try:
            ev.apply(timer)
        except ClockError as exc:
            if not ev.where:
                raise
            raise ScriptError(f"{ev.where}: {ev.kind} at t={ev.t:g}: {exc}") from None
    if at is not None:
        timer.advance(at)
    return timer
