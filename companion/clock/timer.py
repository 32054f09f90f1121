"""Iago's differential timer as a pure state machine, time injected.

Source: Iago rulebook, "The Timer – Description and Function" and "How to Play".

Every method takes ``t``, a monotonic time in seconds chosen by the caller (the daemon passes
``time.monotonic()`` mapped to game time; tests pass plain numbers). Nothing here reads a clock,
sleeps or does I/O. Deadlines are computed from the start of the move, never by chaining, so no
error accumulates: the k-th minute of a move runs out exactly at ``elapsed == k * minute_seconds``.

The two allowances always sum to the total (``2 * minutes`` at the start): a minute that runs out
passes from the mover's allowance to the opponent's, as the disc turns.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from enum import StrEnum

from companion.errors import CompanionError

COLOURS = ("blue", "red")
MIN_MINUTE_SECONDS = 1.0
MAX_MINUTE_SECONDS = 600.0
"""The sand minute's length in seconds, from MIN to MAX: the one range of ``minute_seconds``
wherever it is given (``[table] minute_seconds``, ``table setup``, ``sim`` and ``clock replay``'s
``--minute-seconds``, a game record's ``"minute_seconds"``). The rulebook's is 60 s ("The Timer");
a shorter one is for trying things, a ten-minute "minute" is already no game, inf or nan never
is."""
MINUTE_SECONDS_ACCEPTED = (
    f"a number of seconds from {MIN_MINUTE_SECONDS:g} to {MAX_MINUTE_SECONDS:g}"
)
"""What ``minute_seconds`` may be, said in every refusal."""


class Status(StrEnum):
    """The clock's status, as printed by ``companion clock replay``."""

    READY = "ready"
    RUNNING = "running"
    CHALLENGE = "challenge"
    PAUSED = "paused"
    FINISHED = "finished"


class Verdict(StrEnum):
    """A challenge ruling: SUSTAINED (the word is not acceptable) or REJECTED (it is)."""

    SUSTAINED = "sustained"
    REJECTED = "rejected"


class ClockError(CompanionError, ValueError):
    """A bad argument to the clock (unknown colour, time going backwards, bad settings)."""


def opponent(colour: str) -> str:
    """The other colour: ``opponent("blue") == "red"``.

    Raises:
        ClockError: ``colour`` is not ``"blue"`` or ``"red"``.
    """
    check_colour(colour)
    return "red" if colour == "blue" else "blue"


def check_colour(colour: object, what: str = "colour") -> str:
    """Return ``colour`` if it is ``"blue"`` or ``"red"``, else raise :class:`ClockError`."""
    if colour not in COLOURS:
        raise ClockError(f"{what} {colour!r} is not a colour; accepted: 'blue', 'red'")
    return colour  # type: ignore[return-value]


def check_verdict(verdict: Verdict | str) -> Verdict:
    """The :class:`Verdict` ``verdict`` names (``"sustained"``, ``"rejected"``), else raise
    :class:`ClockError`."""
    try:
        return Verdict(verdict)
    except ValueError:
        raise ClockError(
            f"ruling {verdict!r} is not a verdict; accepted: 'sustained', 'rejected'"
        ) from None


def check_event_time(t: object, last_t: float | None, finite: bool = False) -> None:
    """Raise :class:`ClockError` unless ``t`` is a number of seconds (not a bool, not NaN; and
    not infinite when ``finite``) no earlier than ``last_t``, the last event's (None: none
    yet): a clock's times never go backwards."""
    if isinstance(t, bool) or not isinstance(t, int | float) or t != t:
        raise ClockError(f"time {t!r} is not a number of seconds")
    if finite and math.isinf(t):
        raise ClockError(f"time {t!r} is not a number of seconds")
    if last_t is not None and t < last_t:
        raise ClockError(
            f"time {t} s is earlier than the last event at {last_t} s; times must not go backwards"
        )


def minutes_errors(minutes: object) -> list[str]:
    """What is wrong with ``minutes``, a clock's whole minutes (1 to 99); empty when nothing."""
    if isinstance(minutes, bool) or not isinstance(minutes, int):
        return [f"minutes {minutes!r} is not a whole number; accepted: 1 to 99"]
    if not 1 <= minutes <= 99:
        return [f"minutes {minutes} is out of range; accepted: 1 to 99"]
    return []


# --- notices: what happened, for the daemon to turn into sound, light and the journal ---------


@dataclass(frozen=True)
class Notice:
    """Something the clock reports back. ``t`` is the instant it happened, in seconds."""

    t: float


@dataclass(frozen=True)
class GameStarted(Notice):
    """The first move began: ``mover`` is on move (the other player pressed)."""

    mover: str


@dataclass(frozen=True)
class MinutePassed(Notice):
    """A sand minute ran out: one minute went from ``loser_of_minute`` to the other player.

    ``minutes`` is the pair of allowances after the transfer.
    """

    loser_of_minute: str
    minutes: dict[str, int]


@dataclass(frozen=True)
class LostOnTime(Notice):
    """The mover's allowance reached zero: ``loser`` has lost on time; the game is over."""

    loser: str


@dataclass(frozen=True)
class MoveEnded(Notice):
    """``mover`` pressed and completed a move; ``next_mover`` is now on move."""

    mover: str
    next_mover: str


@dataclass(frozen=True)
class Ignored(Notice):
    """An input that changed nothing (a press by the player not on move, a stray ruling...)."""

    event: str
    reason: str


@dataclass(frozen=True)
class ChallengeStarted(Notice):
    """The sand clock stopped for a challenge by ``challenger`` of ``challenged``'s word.

    ``of_completed_move`` is True when the challenger is on move and challenges the move just
    completed by the opponent; False when the challenged player is the mover (a word of the
    move under way).
    """

    challenger: str
    challenged: str
    of_completed_move: bool


@dataclass(frozen=True)
class Penalty:
    """Rulebook, "Challenge": who turns over three of whose tiles, and whether the board goes back.

    ``turner`` turns over ``tiles`` (three) of ``owner``'s letters. ``restore_board`` is True when
    the challenge was sustained: the challenged player returns the board to its state before the
    word was entered.
    """

    turner: str
    owner: str
    tiles: int
    restore_board: bool

    def describe(self) -> str:
        """A short sentence for the screen and the journal."""
        text = f"{self.turner.upper()} turns over {self.tiles} {self.owner.upper()} tiles"
        return ("Restore the board. " + text) if self.restore_board else text


@dataclass(frozen=True)
class ChallengeRuled(Notice):
    """A challenge was settled; the sand clock runs again for ``mover``."""

    verdict: Verdict
    penalty: Penalty
    mover: str


@dataclass(frozen=True)
class Paused(Notice):
    """The arbiter paused the clock."""


@dataclass(frozen=True)
class Resumed(Notice):
    """The arbiter resumed the clock."""


# --- the state machine -------------------------------------------------------------------------


@dataclass
class _Snapshot:
    """What a completed move looked like at its press, to give it back after a sustained challenge."""

    mover: str
    elapsed: float  # seconds of the move's own sand time at the press
    minutes: dict[str, int]
    t: float


@dataclass
class _Challenge:
    challenger: str
    challenged: str
    of_completed_move: bool
    status_before: Status  # RUNNING


@dataclass
class DifferentialTimer:
    """Iago's differential timer: two allowances in whole minutes and one sand minute per move.

    Args:
        minutes: each player's starting allowance, in minutes (rulebook: 5). 1 to 99.
        minute_seconds: the length of the sand minute, in seconds (rulebook: 60).
            :data:`MIN_MINUTE_SECONDS` to :data:`MAX_MINUTE_SECONDS`.
        first_mover: the colour known to have the first move (the lot that drew the colours
            gave it to blue), or None when the players settle it at the table: then only the
            other player's press starts the game and the first mover's press is ignored, like
            any wrong press.

    Raises:
        ClockError: a setting out of range, or (from the methods) a time earlier than the last
            event's or an unknown colour.

    Rules (rulebook, "The Timer"): the player who does not have the first move presses to start
    it. Each move has its own sand minute. The first minute of a move is free: a move completed
    before it runs out costs nothing. Each time a minute runs out before the mover presses, one
    minute passes from the mover's allowance to the opponent's; a minute has run out when the
    move's elapsed time reaches it, so an event at exactly that instant sees it run out. When the
    mover's allowance reaches zero the mover has lost on time.
    """

    minutes: int = 5
    minute_seconds: float = 60.0
    first_mover: str | None = None
    status: Status = Status.READY
    mover: str | None = None
    allowance: dict[str, int] = field(default_factory=dict)
    loser: str | None = None
    moves_completed: int = 0
    last_t: float | None = None
    # sand time of the current move: elapsed = _elapsed_base + (t - _segment_start) while running
    _elapsed_base: float = 0.0
    _segment_start: float | None = None
    _passed_this_move: int = 0
    _last_move: _Snapshot | None = None
    _challenge: _Challenge | None = None
    _paused_from: Status | None = None
    _start_allowance: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        errors = minutes_errors(self.minutes)
        ms = self.minute_seconds
        if (
            isinstance(ms, bool)
            or not isinstance(ms, int | float)
            or not MIN_MINUTE_SECONDS <= ms <= MAX_MINUTE_SECONDS
        ):
            errors.append(
                f"minute_seconds {ms!r} is out of range; accepted: {MINUTE_SECONDS_ACCEPTED}"
            )
        if self.first_mover is not None and self.first_mover not in COLOURS:
            errors.append(f"first_mover {self.first_mover!r}: accepted 'blue', 'red' or None")
        if errors:
            raise ClockError("; ".join(errors))
        self.minute_seconds = float(ms)
        if not self.allowance:
            self.allowance = {"blue": self.minutes, "red": self.minutes}
        self._start_allowance = dict(self.allowance)

    # -- reading the state --------------------------------------------------------------------

    @property
    def total(self) -> int:
        """The sum of the two allowances, in minutes; constant through the game."""
        return sum(self._start_allowance.values())

    def elapsed(self, t: float | None = None) -> float | None:
        """Seconds of sand time used in the move under way, at time ``t`` (None when no move).

        Stopped periods (challenge, pause) are not counted.
        """
        if self.mover is None or self.status == Status.FINISHED:
            return None
        if self.status == Status.RUNNING and self._segment_start is not None:
            now = self.last_t if t is None else t
            return self._elapsed_base + max(0.0, now - self._segment_start)
        return self._elapsed_base

    def sand_left(self, t: float | None = None) -> float | None:
        """Seconds left in the current sand minute, or None when no move is under way."""
        e = self.elapsed(t)
        if e is None:
            return None
        left = self.minute_seconds - (e - self._passed_this_move * self.minute_seconds)
        return min(self.minute_seconds, max(0.0, left))

    def next_deadline(self) -> float | None:
        """The time (seconds, same clock as ``t``) at which the current minute runs out.

        None when the sand clock is not running. The daemon sleeps until this instant or the
        next input, whichever comes first, then calls :meth:`advance`.
        """
        if self.status != Status.RUNNING or self._segment_start is None:
            return None
        k = self._passed_this_move + 1
        return self._segment_start + (k * self.minute_seconds - self._elapsed_base)

    def snapshot(self, t: float | None = None) -> dict:
        """The state as the ``companion clock replay`` contract prints it (at ``t`` if given).

        Call :meth:`advance` first to process the minutes that ran out up to ``t``.
        """
        sand = self.sand_left(t)
        return {
            "status": str(self.status),
            "mover": self.mover,
            "minutes": {"blue": self.allowance["blue"], "red": self.allowance["red"]},
            "loser": self.loser,
            "moves_completed": self.moves_completed,
            "sand_left": None if sand is None else round(sand, 6),
        }

    # -- time ---------------------------------------------------------------------------------

    def _check_time(self, t: float) -> None:
        check_event_time(t, self.last_t)

    def advance(self, t: float) -> list[Notice]:
        """Let the sand run up to time ``t``: every minute that has run out by ``t`` passes.

        Returns the notices (:class:`MinutePassed`, :class:`LostOnTime`) in the order they
        happened. Idempotent for the same ``t``.
        """
        self._check_time(t)
        notices: list[Notice] = []
        while self.status == Status.RUNNING:
            deadline = self.next_deadline()
            assert deadline is not None
            if not _reached(t, deadline):
                break
            notices.extend(self._minute_runs_out(deadline))
        self.last_t = t
        return notices

    def _minute_runs_out(self, at: float) -> list[Notice]:
        mover = self.mover
        assert mover is not None
        self._passed_this_move += 1
        self.allowance[mover] -= 1
        self.allowance[opponent(mover)] += 1
        notices: list[Notice] = [MinutePassed(at, mover, dict(self.allowance))]
        if self.allowance[mover] <= 0:
            self._freeze(at)
            self.status = Status.FINISHED
            self.loser = mover
            notices.append(LostOnTime(at, mover))
        return notices

    def _freeze(self, t: float) -> None:
        """Stop the sand clock at ``t``, keeping the elapsed time of the move."""
        e = self.elapsed(t)
        self._elapsed_base = e if e is not None else 0.0
        self._segment_start = None

    def _run(self, t: float) -> None:
        self._segment_start = t

    def _start_move(self, mover: str, t: float) -> None:
        self.mover = mover
        self._elapsed_base = 0.0
        self._passed_this_move = 0
        self._segment_start = t
        self.status = Status.RUNNING

    # -- inputs -------------------------------------------------------------------------------

    def press(self, colour: str, t: float) -> list[Notice]:
        """A player pressed his button at ``t``.

        Before the game, the press starts the first move of the *other* player (rulebook: "The
        player who does not have the first move turns the sand timer over"); when the first
        mover is known (:attr:`first_mover`), his own press is ignored. While running, a press
        by the mover ends his move and starts the opponent's; any other press is ignored and
        reported as :class:`Ignored`.
        """
        check_colour(colour, "press")
        notices = self.advance(t)
        if self.status == Status.READY:
            if colour == self.first_mover:
                reason = f"{colour} has the first move: {opponent(colour)} presses to start it"
                return [*notices, Ignored(t, f"press {colour}", reason)]
            self._start_move(opponent(colour), t)
            return [*notices, GameStarted(t, self.mover)]  # type: ignore[arg-type]
        if self.status != Status.RUNNING:
            return [*notices, Ignored(t, f"press {colour}", f"the clock is {self.status}")]
        if colour != self.mover:
            return [*notices, Ignored(t, f"press {colour}", f"{self.mover} is on move")]
        self._last_move = _Snapshot(colour, self.elapsed(t) or 0.0, dict(self.allowance), t)
        self.moves_completed += 1
        nxt = opponent(colour)
        self._start_move(nxt, t)
        return [*notices, MoveEnded(t, colour, nxt)]

    def challenge(self, challenger: str, t: float) -> list[Notice]:
        """``challenger`` challenges at ``t``: the sand clock stops.

        If the challenger is not on move, the mover's word is challenged. If the challenger is on
        move, the move just completed by the opponent is challenged (rulebook, "Challenge": "such
        a challenge must be made immediately"). A challenge with no word to challenge (the
        challenger on move before any move was completed) is ignored.
        """
        check_colour(challenger, "challenger")
        notices = self.advance(t)
        if self.status != Status.RUNNING:
            return [*notices, Ignored(t, f"challenge {challenger}", f"the clock is {self.status}")]
        of_completed = challenger == self.mover
        if of_completed and self._last_move is None:
            return [
                *notices,
                Ignored(t, f"challenge {challenger}", "no move has been completed yet"),
            ]
        self._freeze(t)
        challenged = opponent(challenger)
        self._challenge = _Challenge(challenger, challenged, of_completed, Status.RUNNING)
        self.status = Status.CHALLENGE
        return [*notices, ChallengeStarted(t, challenger, challenged, of_completed)]

    def penalty(self, verdict: Verdict | str) -> Penalty:
        """The penalty a verdict on the challenge under way would carry.

        Rulebook, "Challenge": sustained, the challenged player restores the board and the
        challenger turns over any three of his letters; rejected, the challenged player turns
        over any three of the challenger's.

        Raises:
            ClockError: no challenge under way, or ``verdict`` is not sustained/rejected.
        """
        v = check_verdict(verdict)
        if self._challenge is None:
            raise ClockError("there is no challenge under way")
        c = self._challenge
        if v == Verdict.SUSTAINED:
            return Penalty(c.challenger, c.challenged, 3, True)
        return Penalty(c.challenged, c.challenger, 3, False)

    def rule(self, verdict: Verdict | str, t: float) -> list[Notice]:
        """Settle the challenge under way at ``t``; the sand clock runs again.

        Of the mover's word: the mover's move resumes where it stopped, whatever the verdict.
        Of the move just completed: sustained, the previous mover gets the move back with the
        time it had when it pressed (any minute passed since is undone and the move is no longer
        completed); rejected, the challenger's move resumes.
        """
        v = check_verdict(verdict)
        notices = self.advance(t)
        if self.status != Status.CHALLENGE or self._challenge is None:
            return [*notices, Ignored(t, f"ruling {v}", "there is no challenge under way")]
        penalty = self.penalty(v)
        c = self._challenge
        self._challenge = None
        if c.of_completed_move and v == Verdict.SUSTAINED:
            snap = self._last_move
            assert snap is not None
            self.mover = snap.mover
            self.allowance = dict(snap.minutes)
            self._elapsed_base = snap.elapsed
            self._passed_this_move = _minutes_in(snap.elapsed, self.minute_seconds)
            self.moves_completed -= 1
            self._last_move = None
        self.status = Status.RUNNING
        self._run(t)
        out: list[Notice] = [*notices, ChallengeRuled(t, v, penalty, self.mover)]  # type: ignore[arg-type]
        # a move given back at the very instant a minute runs out sees it run out
        out.extend(self.advance(t))
        return out

    def pause(self, t: float) -> list[Notice]:
        """The arbiter pauses the clock at ``t`` (while running or during a challenge)."""
        notices = self.advance(t)
        if self.status not in (Status.RUNNING, Status.CHALLENGE):
            return [*notices, Ignored(t, "pause", f"the clock is {self.status}")]
        if self.status == Status.RUNNING:
            self._freeze(t)
        self._paused_from = self.status
        self.status = Status.PAUSED
        return [*notices, Paused(t)]

    def resume(self, t: float) -> list[Notice]:
        """The arbiter resumes the clock at ``t``; a pause during a challenge returns to it."""
        notices = self.advance(t)
        if self.status != Status.PAUSED:
            return [*notices, Ignored(t, "resume", f"the clock is {self.status}")]
        self.status = self._paused_from or Status.RUNNING
        self._paused_from = None
        if self.status == Status.RUNNING:
            self._run(t)
        return [*notices, Resumed(t)]

    def copy(self) -> DifferentialTimer:
        """An independent copy (for what-if questions, such as a preview of a ruling)."""
        return copy.deepcopy(self)


# Times are floats: 3 x 1.1 s is 3.3000000000000003, so a minute "reached" at 3.3 s would be
# missed by a plain comparison. Instants closer than a billionth (relative) are the same instant.
_TOLERANCE = 1e-9


def _reached(t: float, deadline: float) -> bool:
    """True when time ``t`` (seconds) has reached ``deadline``, up to float rounding."""
    return t >= deadline - _TOLERANCE * max(1.0, abs(deadline))


def _minutes_in(elapsed: float, minute_seconds: float) -> int:
    """Whole minutes that have run out in ``elapsed`` seconds of sand, up to float rounding."""
    return int(math.floor(elapsed / minute_seconds + _TOLERANCE))
