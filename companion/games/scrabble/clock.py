"""The crossword game's tournament clock (a chess clock with overtime) as a pure state machine,
time injected.

Sources: WESPA Game Rules (1.4.3 "Neutralisation", 2.2 "Starting the Timer", 3.4 "Significance
of Pressing Timer", the part on challenges and the part on time: "Overtime" and its penalty) and
NASPA Official Tournament Rules (IV.I on challenging, with IV.I.2 "Holding the Play"; the
sections on starting the game, the clock and time penalties). Which of these were checked, and
against what, is in docs/scrabble.md (the rulebooks are not in ../shared/rules/):

- each player has his own time (tournaments mostly give 25 minutes each); his clock runs only
  while he is on move, and pressing ends his turn and starts the opponent's;
- the player who goes second starts the first player's clock;
- time past zero counts on as overtime; 10 points are taken from the final score for each minute
  or part of a minute of overtime (both bodies' penalty; configurable);
- a challenge holds both clocks until it is ruled;
- a wrong challenge (the play stands) costs, under the double-challenge rule, the challenger's
  turn: the player who made the play moves again (NASPA's rule for the North American lexicon);
  under a points rule the challenger moves and the player challenged gets points (NASPA's rule
  for Collins games and WESPA's: 5 points; configurable). A play challenged off is taken back,
  its player has lost the turn and the challenger moves;
- a play can be challenged until the next move is made: from the press that ends it until the
  challenger ends his own turn (NASPA: the opportunity lasts until the player who made the play
  draws a tile, or longer under a "hold"; the box cannot see a tile drawn, so it keeps the
  latest end both bodies allow), and once: after a ruling, or a turn lost to a wrong challenge,
  there is nothing left to challenge. A challenge called off leaves the play open; one that was
  no challenge (too late) runs the clock as if it had never been held (:meth:`void`).

Every method takes ``t``, seconds of a monotonic clock chosen by the caller; nothing here reads a
clock. Times used are summed from the instants of the events, so nothing drifts, and the time
that passes while a clock runs is charged to exactly one player: ``used["blue"] + used["red"]``
is the time the clocks have run.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

from companion.clock.timer import (
    COLOURS,
    ClockError,
    Status,
    Verdict,
    check_colour,
    check_event_time,
    check_verdict,
    minutes_errors,
    opponent,
)

DEFAULT_MINUTES = 25
"""Each player's own time when the set-up does not say (the common tournament control)."""
OVERTIME_POINTS = 10
"""Points per minute or part of a minute of overtime (WESPA and NASPA)."""
CHALLENGE_RULES = ("double", "points")
"""``double``: a wrong challenge loses the challenger's turn; ``points``: it gives the player
challenged :data:`CHALLENGE_POINTS` points (once per challenge here; the bodies' rules may count
them per word challenged: not checked, docs/scrabble.md) and the challenger moves."""
CHALLENGE_POINTS = 5
"""The points of a wrong challenge under the points rule (WESPA's and NASPA's Collins default)."""
_TOLERANCE = 1e-9


def overtime_penalty(seconds_over: float, points_per_minute: int = OVERTIME_POINTS) -> int:
    """Points taken off for ``seconds_over`` seconds past the player's own time: each minute or
    part of a minute costs ``points_per_minute`` (0 s: nothing; 0.001 s: one minute; 60 s: one;
    60.001 s: two)."""
    if seconds_over <= _TOLERANCE:
        return 0
    minutes = math.ceil(seconds_over / 60.0 - _TOLERANCE)
    return max(1, minutes) * points_per_minute


@dataclass
class TournamentClock:
    """Two players' own times, each run only while that player is on move.

    Args:
        minutes: each player's own time in minutes (default 25), 1 to 99.
        challenge_rule: ``double`` or ``points`` (:data:`CHALLENGE_RULES`).
        overtime_points: points per minute or part of overtime (default 10), 0 to 100.

    Raises:
        ClockError: a setting out of range; from the methods, time going backwards or a colour
            that is not blue or red.
    """

    minutes: int = DEFAULT_MINUTES
    challenge_rule: str = "double"
    overtime_points: int = OVERTIME_POINTS
    status: Status = Status.READY
    mover: str | None = None
    used: dict[str, float] = field(default_factory=lambda: {"blue": 0.0, "red": 0.0})
    moves_completed: int = 0
    last_t: float | None = None
    _since: float | None = None  # when the mover's clock last started running
    _last_player: str | None = None  # who made the last completed play (the one challenged)
    _challenger: str | None = None
    _paused_from: Status | None = None
    _open: bool = False  # the last turn ended is a play the player on move can still challenge
    _held_at: float | None = None  # when the challenge under way stopped the clocks
    _paused_at: float | None = None

    def __post_init__(self) -> None:
        errors = minutes_errors(self.minutes)
        if self.challenge_rule not in CHALLENGE_RULES:
            errors.append(
                f"challenge rule {self.challenge_rule!r} is not a challenge rule; accepted: "
                + ", ".join(CHALLENGE_RULES)
            )
        op = self.overtime_points
        if isinstance(op, bool) or not isinstance(op, int) or not 0 <= op <= 100:
            errors.append(f"overtime_points {op!r}: accepted a whole number from 0 to 100")
        if errors:
            raise ClockError("; ".join(errors))

    # -- reading ----------------------------------------------------------------------------------

    @property
    def own_time(self) -> float:
        """Each player's own time in seconds."""
        return self.minutes * 60.0

    def used_at(self, colour: str, t: float | None = None) -> float:
        """Seconds of ``colour``'s clock used by time ``t`` (the running clock counted to ``t``)."""
        used = self.used[colour]
        if self.status == Status.RUNNING and self.mover == colour and self._since is not None:
            now = self.last_t if t is None else max(t, self.last_t or t)
            used += max(0.0, now - self._since)
        return used

    def time_left(self, colour: str, t: float | None = None) -> float:
        """Seconds left on ``colour``'s clock at ``t``; negative in overtime (the clock counting
        up past zero)."""
        return self.own_time - self.used_at(colour, t)

    def overtime(self, colour: str, t: float | None = None) -> float:
        """Seconds ``colour`` has gone past his own time (0 when not over)."""
        return max(0.0, -self.time_left(colour, t))

    def penalty(self, colour: str, t: float | None = None) -> int:
        """The overtime penalty ``colour`` carries at ``t`` (points taken from his final score)."""
        return overtime_penalty(self.overtime(colour, t), self.overtime_points)

    @property
    def challengeable(self) -> bool:
        """True while the player on move can still challenge the turn his opponent just ended
        (see the module docstring: until the next move is made, and once)."""
        return (
            self.status == Status.RUNNING
            and self._open
            and self.mover is not None
            and self._last_player == opponent(self.mover)
        )

    def next_deadline(self) -> float | None:
        """The next instant the running clock crosses zero or another whole minute of overtime
        (the display changes and a beep marks it), or None when no clock runs."""
        if self.status != Status.RUNNING or self.mover is None or self._since is None:
            return None
        now = self._since if self.last_t is None else max(self.last_t, self._since)
        left = self.time_left(self.mover, now)
        if left > _TOLERANCE:
            return now + left
        over = -left
        return now + (math.floor(over / 60.0 + _TOLERANCE) + 1) * 60.0 - over

    def snapshot(self, t: float | None = None) -> dict:
        """The state as ``companion clock replay --game scrabble`` prints it (DESIGN.md)."""
        return {
            "status": str(self.status),
            "mover": self.mover,
            "time_left": {c: round(self.time_left(c, t), 6) for c in COLOURS},
            "overtime_penalty": {c: self.penalty(c, t) for c in COLOURS},
            "moves_completed": self.moves_completed,
        }

    # -- time -------------------------------------------------------------------------------------

    def _check_time(self, t: float) -> None:
        check_event_time(t, self.last_t, finite=True)

    def advance(self, t: float) -> list[str]:
        """Let the clock run to ``t``; returns what happened on the way (``"overtime blue"``
        when a clock crossed zero, ``"minute blue"`` for each further whole minute over)."""
        self._check_time(t)
        notes: list[str] = []
        if self.status == Status.RUNNING and self.mover is not None:
            before = self.time_left(self.mover, self.last_t)
            after = self.time_left(self.mover, t)
            if before > 0 >= after:
                notes.append(f"overtime {self.mover}")
            crossed = _whole_minutes_over(after) - _whole_minutes_over(before)
            notes.extend([f"minute {self.mover}"] * max(0, crossed))
        self.last_t = t
        return notes

    def _stop(self, t: float) -> None:
        """Charge the running clock up to ``t`` and stop it."""
        if self.status == Status.RUNNING and self.mover is not None and self._since is not None:
            self.used[self.mover] += max(0.0, t - self._since)
        self._since = None

    def _run(self, mover: str, t: float) -> None:
        self.mover = mover
        self._since = t
        self.status = Status.RUNNING

    # -- inputs -----------------------------------------------------------------------------------

    def press(self, colour: str, t: float) -> list[str]:
        """``colour`` presses his side at ``t``. Before the game, the press starts the other
        player's clock (the player who goes second starts the first's). While running, the
        mover's press ends his turn and starts the opponent's; any other press changes nothing
        (``"ignored ..."`` is returned)."""
        check_colour(colour, "press")
        notes = self.advance(t)
        if self.status == Status.READY:
            self._run(opponent(colour), t)
            return [*notes, f"started {self.mover}"]
        if self.status != Status.RUNNING or colour != self.mover:
            why = f"the clock is {self.status}" if self.status != Status.RUNNING else "not on move"
            return [*notes, f"ignored press {colour}: {why}"]
        self._stop(t)
        self.moves_completed += 1
        self._last_player = colour
        self._open = True  # the play just made can be challenged until the next move is made
        self._run(opponent(colour), t)
        return [*notes, f"turn {colour}"]

    def challenge(self, challenger: str, t: float) -> list[str]:
        """``challenger`` challenges the play just made: both clocks stop. Only the player on move
        (whose clock runs since the opponent pressed) can challenge, only a play made, and only
        until the next move is made (:attr:`challengeable`); otherwise nothing changes and the
        note says why (``"too late ..."`` once the window has closed)."""
        check_colour(challenger, "challenger")
        notes = self.advance(t)
        if self.status != Status.RUNNING:
            return [*notes, f"ignored challenge: the clock is {self.status}"]
        if challenger != self.mover and self._last_player == challenger:
            return [*notes, f"too late: {challenger} has ended his turn since the play"]
        if challenger == self.mover and self._last_player == opponent(challenger):
            if not self._open:
                return [*notes, "too late: the play was challenged already, or a turn was lost"]
        else:
            return [
                *notes,
                f"ignored challenge by {challenger}: no play of the opponent to challenge",
            ]
        self._stop(t)
        self._challenger = challenger
        self._held_at = t
        self.status = Status.CHALLENGE
        return [*notes, f"challenge {challenger}"]

    def next_after(self, verdict: Verdict | str) -> str:
        """Who moves after ``verdict`` on the challenge under way (see the module docstring).

        Raises:
            ClockError: no challenge under way, or a verdict that is not sustained/rejected.
        """
        v = check_verdict(verdict)
        if self._challenger is None:
            raise ClockError("there is no challenge under way")
        if v == Verdict.REJECTED and self.challenge_rule == "double":
            return opponent(self._challenger)
        return self._challenger

    def rule(self, verdict: Verdict | str, t: float) -> list[str]:
        """Settle the challenge at ``t``: the clock of the player who moves next (see
        :meth:`next_after`) runs. A double-challenge loss counts as the challenger's turn."""
        v = check_verdict(verdict)
        notes = self.advance(t)
        if self.status != Status.CHALLENGE or self._challenger is None:
            return [*notes, f"ignored ruling {v}: there is no challenge under way"]
        nxt = self.next_after(v)
        if nxt != self._challenger:  # the challenger's turn is lost
            self.moves_completed += 1
            self._last_player = self._challenger
        self._challenger = self._held_at = None
        self._open = False  # ruled: the play cannot be challenged again
        self._run(nxt, t)
        return [*notes, f"ruled {v}: {nxt} on move"]

    def call_off(self, t: float) -> list[str]:
        """The challenge under way is called off at ``t`` before a ruling: the challenger's clock
        runs on from ``t`` (the time held charged to no one) and the play can still be
        challenged."""
        notes = self.advance(t)
        if self.status != Status.CHALLENGE or self._challenger is None:
            return [*notes, "ignored call-off: there is no challenge under way"]
        challenger = self._challenger
        self._challenger = self._held_at = None
        self._run(challenger, t)
        return [*notes, f"called off: {challenger} on move"]

    def void(self, t: float) -> list[str]:
        """The challenge under way was no challenge (too late: the words are those of a play
        whose window has closed): the clock of the player on move runs as if it had never been
        held, the time since the challenge charged to him, and the play just made can still be
        challenged. Returns the notes of :meth:`advance` for the time re-charged (a clock that
        passed zero or a whole minute of overtime meanwhile)."""
        self._check_time(t)
        if self.status != Status.CHALLENGE or self._challenger is None:
            return ["ignored void: there is no challenge under way"]
        challenger, held = self._challenger, self._held_at
        self._challenger = self._held_at = None
        before = self.time_left(challenger)
        self._run(challenger, t if held is None else held)
        after = self.time_left(challenger, t)
        self.last_t = t
        notes = [f"overtime {challenger}"] if before > 0 >= after else []
        crossed = _whole_minutes_over(after) - _whole_minutes_over(before)
        notes.extend([f"minute {challenger}"] * max(0, crossed))
        return [*notes, f"void: {challenger} on move, as if never held"]

    def pause(self, t: float) -> list[str]:
        """The director (or a restart) holds the clocks at ``t``, running or in a challenge."""
        notes = self.advance(t)
        if self.status not in (Status.RUNNING, Status.CHALLENGE):
            return [*notes, f"ignored pause: the clock is {self.status}"]
        self._stop(t)
        self._paused_from = self.status
        self._paused_at = t
        self.status = Status.PAUSED
        return [*notes, "paused"]

    def resume(self, t: float) -> list[str]:
        """The clocks go on at ``t`` as they were before the pause."""
        notes = self.advance(t)
        if self.status != Status.PAUSED:
            return [*notes, f"ignored resume: the clock is {self.status}"]
        was = self._paused_from or Status.RUNNING
        self._paused_from = None
        if self._held_at is not None and self._paused_at is not None:
            self._held_at += t - self._paused_at  # a pause is never charged by a void
        self._paused_at = None
        if was == Status.RUNNING and self.mover is not None:
            self._run(self.mover, t)
        else:
            self.status = was
        return [*notes, "resumed"]

    def end(self, t: float) -> list[str]:
        """The game is over at ``t`` (the last tile played, or six scoreless turns): both clocks
        stop; the overtime penalties are final."""
        notes = self.advance(t)
        if self.status == Status.FINISHED:
            return [*notes, "ignored end: the game is over"]
        self._stop(t)
        self._challenger = self._held_at = None
        self._open = False
        self.status = Status.FINISHED
        return [*notes, "ended"]

    def copy(self) -> TournamentClock:
        """An independent copy."""
        return copy.deepcopy(self)


def _whole_minutes_over(left: float) -> int:
    """Whole minutes of overtime a clock showing ``left`` seconds has completed."""
    if left >= 0:
        return 0
    return int(math.floor(-left / 60.0 + _TOLERANCE))


__all__ = [
    "CHALLENGE_POINTS",
    "CHALLENGE_RULES",
    "COLOURS",
    "DEFAULT_MINUTES",
    "OVERTIME_POINTS",
    "TournamentClock",
    "overtime_penalty",
]
