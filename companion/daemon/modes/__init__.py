"""The game-mode interface: how a game (the Iago timer, the Iota scorekeeper, Wordinoes) plugs
into the table service and the simulator.

A mode is event-sourced. The service hands it *inputs* (a button press, a typed line, an arbiter
command, each with its time in seconds of game time); the mode *decides* which events they make
(dicts, JSON-serialisable, each with ``"t"`` and ``"kind"``); the service appends each event to the
game's journal and only then calls :meth:`GameMode.apply`, the one place the mode's state
changes. Replaying the journal's events through ``apply`` rebuilds the game exactly, so a mode
must not read clocks, files or devices in ``apply``; anything that could differ on replay (a
word judge's answer, a camera reading) is decided in ``decide`` and written into the event.

Time passing is not an event: the service calls :meth:`GameMode.advance` at
:meth:`GameMode.next_deadline` (and before showing a frame); the mode derives from its journaled
events what time does (a minute running out).

The mode draws through :meth:`GameMode.view`: a :class:`View` with a frame function (drawn on a
PIL ``ImageDraw`` off the clock path, by the display worker), the LEDs, the disc position and,
when it wants typed text, a prompt. One-off outputs (beeps) come back as :class:`Effects`.

Modes are registered by name (``[table] game = "iago"``, ``companion sim --game NAME``) in
:data:`MODES` as ``"module:Class"``, imported when first used.
"""

from __future__ import annotations

import importlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.clock.timer import Status
from companion.daemon.config import TableConfig
from companion.errors import CompanionError

Frame = Callable[[Any, int, int], None]
"""``frame(draw, width, height)`` draws one OLED frame on a PIL ``ImageDraw`` (mode "1": fill
255 is a lit pixel) of ``width`` x ``height`` pixels. It must only read immutable data captured
when the view was made: it runs on the display worker's thread."""


class ModeError(CompanionError, ValueError):
    """An unknown game mode, or an event a mode cannot apply (names the event and the cause)."""


class NothingToDo(ModeError):
    """An arbiter's command with nothing to act on (``override`` with no verdict shown): refused
    in :meth:`GameMode.decide`, so nothing is journaled and the clock is not touched. The message
    is the service's line; ``title`` and ``detail`` are what the OLED says of it for a few
    seconds, in a player's words (``NOTHING TO OVERRIDE``)."""

    def __init__(self, message: str, title: str, detail: str = "") -> None:
        super().__init__(message)
        self.title = title
        self.detail = detail


# --- inputs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Press:
    """A button was pressed: ``role`` is ``blue``, ``red`` or ``challenge``; ``t`` in seconds of
    game time, the instant the pin changed."""

    role: str
    t: float


@dataclass(frozen=True)
class Line:
    """A line of typed text (Enter ended it): words for a challenge, or a name. ``t`` seconds."""

    text: str
    t: float


@dataclass(frozen=True)
class Command:
    """An arbiter's command: ``pause``, ``resume``, ``override`` (reverse the verdict shown),
    ``confirm`` (settle what the screen shows), ``cancel``. ``t`` in seconds of game time."""

    name: str
    t: float


Input = Press | Line | Command

COMMANDS = ("pause", "resume", "override", "confirm", "cancel")


# --- outputs -----------------------------------------------------------------------------------


@dataclass
class Effects:
    """One-off outputs of an event or of time passing: ``beeps`` short beeps (a minute ran out),
    ``long_beep`` (the end of the game), ``finished`` (the game just ended), ``say`` what the
    service says of it (its message: the simulator's line; "" for nothing)."""

    beeps: int = 0
    long_beep: bool = False
    finished: bool = False
    say: str = ""

    def __iadd__(self, other: Effects) -> Effects:
        self.beeps += other.beeps
        self.long_beep = self.long_beep or other.long_beep
        self.finished = self.finished or other.finished
        self.say = other.say or self.say
        return self


@dataclass(frozen=True)
class View:
    """What the table shows now.

    Attributes:
        frame: draws the OLED frame (see :data:`Frame`).
        lights: LED per role, ``{"blue": bool, "red": bool}``.
        disc_minutes: the disc's position in minutes from its start position, positive towards
            blue (blue's allowance minus blue's starting allowance); None leaves the disc alone.
            The service turns it into degrees with the pin map's ``degrees_per_minute``.
        prompt: when not None the mode expects typed text (the simulator's keys type into a line
            and Enter sends it as a :class:`Line`); the text says what to type.
        status: one word for logs and the simulator's status line.
        redraw_at: the game time at which the frame changes by itself (a draining bar, a page
            of a message), so the service draws again then; None when only events change it.
        key: optional hashable summary of what the frame shows; when it equals the previous
            view's key the service does not draw the frame again (None: always draw).
    """

    frame: Frame
    lights: dict[str, bool] = field(default_factory=dict)
    disc_minutes: int | None = None
    prompt: str | None = None
    status: str = ""
    redraw_at: float | None = None
    key: object = None


@dataclass(frozen=True)
class ModeContext:
    """What a mode is given: the table's set-up and the services it may call in ``decide``.

    ``judge(words) -> Ruling`` (companion.daemon.challenge) rules on challenged words;
    ``lexicon_name`` is the name to show.
    """

    table: TableConfig
    judge: Callable[[list[str]], Any] | None = None
    lexicon_name: str = ""


class GameMode(ABC):
    """Base of the game modes. Subclasses set ``name`` and implement the abstract methods."""

    name: ClassVar[str] = ""

    def __init__(self, context: ModeContext) -> None:
        self.context = context

    # -- the game's settings, for the journal's header -----------------------------------------

    def settings(self) -> dict:
        """The settings that rebuild this game from its journal (written in the header)."""
        return self.context.table.to_dict()

    # -- events ---------------------------------------------------------------------------------

    @abstractmethod
    def decide(self, inp: Input) -> list[dict]:
        """The events ``inp`` makes, each a dict with ``"t"`` and ``"kind"`` (may be empty).

        Must not change the game's state (the events are journaled first). May call the judge.
        """

    def slow(self, inp: Input) -> bool:
        """True when deciding ``inp`` may take more than a few milliseconds (it asks the judge,
        which may open a lexicon or build a cache): the service then decides it on a worker
        thread, says JUDGING... and keeps the clock going. Default False."""
        return False

    @abstractmethod
    def apply(self, event: dict) -> Effects:
        """Apply one journaled event; the only place the game's state changes. Deterministic.

        Raises:
            ModeError: an event this mode does not know.
        """

    def advance(self, t: float) -> Effects:
        """Let time run to ``t`` (seconds of game time); returns what happened (beeps)."""
        return Effects()

    def next_deadline(self) -> float | None:
        """The game time at which :meth:`advance` must next be called, or None."""
        return None

    def on_restart(self, t: float) -> list[dict]:
        """Events to journal and apply after the journal was replayed on a restart at game time
        ``t`` (the last time the journal proves the service was alive). The Iago timer pauses."""
        return []

    @property
    def started(self) -> bool:
        """True once the game is under way (the journal is worth keeping)."""
        return False

    @property
    def finished(self) -> bool:
        """True once the game is over (the service saves the record and starts a new game)."""
        return False

    def running(self) -> bool:
        """True while time matters (the service writes heartbeats to the journal)."""
        return self.next_deadline() is not None

    @abstractmethod
    def view(self, t: float) -> View:
        """What the table shows at game time ``t`` (call :meth:`advance` first)."""

    def result(self) -> dict:
        """The result for the game's record (winner, scores...)."""
        return {}

    def state(self, t: float) -> dict:
        """The game's state at ``t`` as JSON-ready data (``companion sim`` scripts print it)."""
        return {}


class ClockedMode(GameMode):
    """A game mode whose game runs on one clock (:meth:`game_clock`: its ``status``, a
    :class:`companion.clock.timer.Status`, and ``last_t``, the last game time it was told of):
    Iago's differential timer, the crossword game's tournament clock. The game is under way once
    the clock has left READY and over once it is FINISHED; after a restart a game under way is
    paused where it was."""

    @abstractmethod
    def game_clock(self) -> Any:
        """The clock the game runs on."""

    def on_restart(self, t: float) -> list[dict]:
        """After a restart the clock is paused where it was (if the game had started and is not
        over): a ``restart`` event at ``t``, or at the clock's last time if that is later."""
        clock = self.game_clock()
        if clock.status in (Status.READY, Status.FINISHED):
            return []
        return [{"t": max(t, clock.last_t or 0.0), "kind": "restart"}]

    @staticmethod
    def clock_event(inp: Press | Command, t: float) -> list[dict]:
        """The event of a button pressed (``challenge_button``, or ``press`` with its role) or of
        a clock command (``pause``, ``resume``, ``override``, ``confirm``, ``cancel``) at game
        time ``t`` (seconds).

        Raises:
            ModeError: another command; names it and the commands accepted.
        """
        if isinstance(inp, Press):
            if inp.role == "challenge":
                return [{"t": t, "kind": "challenge_button"}]
            return [{"t": t, "kind": "press", "role": inp.role}]
        if inp.name in ("pause", "resume", "override", "confirm", "cancel"):
            return [{"t": t, "kind": inp.name}]
        raise ModeError(f"command {inp.name!r}: accepted pause, resume, override, confirm")

    @property
    def started(self) -> bool:
        """True once the clock has been started (Iago: the first move has begun)."""
        return self.game_clock().status != Status.READY

    @property
    def finished(self) -> bool:
        """True once the clock is finished (Iago: a player lost on time; the crossword game:
        ``end`` or ``scores`` typed)."""
        return self.game_clock().status == Status.FINISHED


MODES: dict[str, str] = {
    "iago": "companion.daemon.modes.iago:IagoTimerMode",
    "iota": "companion.daemon.modes.iota:IotaMode",
    "wordinoes": "companion.daemon.modes.wordinoes:WordinoesMode",
    "scrabble": "companion.daemon.modes.scrabble:ScrabbleMode",
}


def tournament_pair(table) -> list[str] | None:
    """The two players of a tournament's set-up (``table.round`` > 0: the director's round,
    written by ``companion link``), blue first, for a game whose players are typed at the table
    (Iota, Wordinoes: an empty Enter takes them); None at a table of no tournament."""
    return [table.blue, table.red] if getattr(table, "round", 0) else None


def tournament_title(table, game: str) -> str:
    """The ready screen's title: ``R2 T7 IOTA`` at a tournament's table, else ``IOTA``."""
    return f"R{table.round} T{table.number} {game}" if getattr(table, "round", 0) else game


def mode_class(name: str) -> type[GameMode]:
    """The mode class registered as ``name``.

    Raises:
        ModeError: unknown name, or its module is not installed.
    """
    target = MODES.get(name)
    if target is None:
        raise ModeError(f"game mode {name!r} is unknown; accepted: {', '.join(sorted(MODES))}")
    if isinstance(target, type):
        return target
    module, _, cls = target.partition(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise ModeError(f"game mode {name!r} is not available ({exc})") from None


class ReplayError(ModeError):
    """A journaled record a mode cannot apply: names the journal line, the record and what is
    wrong with it."""


def replay(mode: GameMode, events: list[dict], first_line: int = 2) -> Effects:
    """Apply journaled ``events`` to a fresh ``mode`` in order (records whose ``kind`` starts
    with ``_`` are the service's own, such as heartbeats, and are skipped). ``first_line`` is the
    journal line of ``events[0]`` (2 for a journal's records after its header).

    Raises:
        ReplayError: ``line N: record {...}: problem`` for the first record that cannot be
            applied (a missing key, a bad value).
    """
    effects = Effects()
    for n, ev in enumerate(events, first_line):
        if str(ev.get("kind", "")).startswith("_"):
            continue
        try:
            effects += mode.apply(ev)
        except KeyError as exc:
            problem = f"the key {exc.args[0]!r} is missing" if exc.args else "a key is missing"
            raise ReplayError(f"line {n}: record {_compact(ev)}: {problem}") from None
        except (ValueError, TypeError) as exc:
            raise ReplayError(f"line {n}: record {_compact(ev)}: {exc}") from None
    return effects


def _compact(record: dict) -> str:
    """The record as its journal line shows it (JSON), cut to 120 characters."""
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."
