"""A game record of Iago: boards and clock events, replayed with every move re-ruled.

A record is one JSON object (docs/iago.md, "Game records")::

    {"game": "iago", "version": 1,
     "players": {"blue": "Ann", "red": "Bob"},          optional
     "minutes": 5, "minute_seconds": 60,                optional (the rulebook's values)
     "lexicon": "scowl-70",                             optional, informative
     "size": 11,                                        optional (11)
     "start": "11/11/11/11/11/11/11/11/11/11/11",       optional (the empty board)
     "end": 238,                                        optional: the clock runs to it
     "events": [
        {"t": 0, "press": "red"},                       red starts blue's first move
        {"t": 40.2, "board": "11/11/11/11/11/4POT4/11/11/11/11/11"},
        {"t": 41, "press": "blue"},                     blue's move ends: the last board is ruled
        {"t": 45, "challenge": "red"},
        {"t": 49, "words": ["POTS"], "judged": {"POTS": true}, "lexicon": "scowl-70-both"},
        {"t": 52, "ruling": "sustained"},                 the arbiter overrode the judge
        {"t": 60, "board": "...", "penalty": true},     the board once the challenge is settled
        ...]}

Clock events are those of ``companion clock replay`` (DESIGN.md, "Clock replay"): ``press``,
``challenge``, ``ruling``, ``pause``, ``resume``. A ``board`` event is the board as it stands
at ``t`` (read by the camera or typed); a move is ruled between the board when it began and the
last board seen before the mover's press. A board with ``"penalty": true`` is the board after a
challenge was settled (restored if sustained, with the three penalty tiles turned). A ``words``
event gives the words of the challenge under way as the judge answered them (the table's record
has them); a ``ruling`` that differs from the judge's answer is the arbiter's override. ``end``
is the game time the record ends at: a game lost on time ends when the mover's last minute runs
out, after the last event. A record with no board event replays the clock and the challenges
only (its moves are not ruled).

A table's saved game (``data_dir()/records/*.json``) is read by
:mod:`companion.daemon.table_record`, which converts it to a :class:`GameRecord`.

Everything here is pure: the caller reads the file and passes the lexicon.
"""

from __future__ import annotations

import json
from collections.abc import Container
from dataclasses import dataclass, field

from companion.clock.replay import ClockEvent, parse_event
from companion.clock.timer import (
    MAX_MINUTE_SECONDS,
    MIN_MINUTE_SECONDS,
    MINUTE_SECONDS_ACCEPTED,
    ChallengeRuled,
    ChallengeStarted,
    ClockError,
    DifferentialTimer,
    LostOnTime,
    MoveEnded,
    Verdict,
)
from companion.errors import CompanionError
from companion.games.iago.board import (
    IAGO_SIZE,
    Board,
    BoardNotationError,
    cell_name,
    colour_of,
    format_board,
    parse_board,
    show,
)
from companion.games.iago.move import (
    GameHistory,
    IsInflection,
    MoveInputError,
    Ruling,
    other,
    rule_move,
)
from companion.names import ACCEPTED as NAME_ACCEPTED
from companion.names import is_safe_name
from companion.textformats import is_number, loads_json, shown

RECORD_VERSION = 1
_TOP_KEYS = {
    "game",
    "version",
    "players",
    "minutes",
    "minute_seconds",
    "lexicon",
    "size",
    "start",
    "end",
}


class RecordError(CompanionError, ValueError):
    """A game record that cannot be read; the message lists every bad field and event."""


@dataclass(frozen=True)
class BoardEvent:
    """The board as it stands at ``t`` seconds; ``penalty`` marks the board after a challenge
    was settled."""

    t: float
    board: Board
    penalty: bool = False

    def to_json(self) -> dict:
        """The event as a record's object."""
        out: dict = {"t": self.t, "board": format_board(self.board)}
        if self.penalty:
            out["penalty"] = True
        return out


@dataclass(frozen=True)
class WordsEvent:
    """The words of the challenge under way at ``t`` seconds, as typed (or read) at the table,
    with the judge's answer for each (``judged``: word -> acceptable, upper case; empty when
    the judge was not asked) and the lexicon it used."""

    t: float
    words: tuple[str, ...]
    judged: dict[str, bool] = field(default_factory=dict)
    lexicon: str = ""

    @property
    def acceptable(self) -> bool | None:
        """The judge's answer for the whole play (None when it was not asked)."""
        if not self.judged:
            return None
        return all(self.judged.get(w, False) for w in self.words)

    def to_json(self) -> dict:
        """The event as a record's object."""
        out: dict = {"t": self.t, "words": list(self.words)}
        if self.judged:
            out["judged"] = dict(self.judged)
        if self.lexicon:
            out["lexicon"] = self.lexicon
        return out


Event = ClockEvent | BoardEvent | WordsEvent


@dataclass
class GameRecord:
    """An Iago game as it was played: settings and events in time order.

    ``minutes`` is each player's allowance in minutes, ``minute_seconds`` the sand minute in
    seconds, ``start`` the board before the first move, ``end`` the game time (seconds) the
    record ends at, if later than its last event. The daemon appends with :meth:`board` and
    :meth:`clock`, and writes :meth:`to_json`.
    """

    events: list[Event] = field(default_factory=list)
    players: dict[str, str] = field(default_factory=dict)
    minutes: int = 5
    minute_seconds: float = 60.0
    lexicon: str | None = None
    size: int = IAGO_SIZE
    start: Board | None = None
    end: float | None = None

    @property
    def has_boards(self) -> bool:
        """True when the record holds at least one board event (its moves can be ruled)."""
        return any(isinstance(e, BoardEvent) for e in self.events)

    def board(self, t: float, board: Board, penalty: bool = False) -> None:
        """Append the board seen at ``t`` seconds."""
        self.events.append(BoardEvent(float(t), board, penalty))

    def clock(self, t: float, kind: str, value: str | bool) -> None:
        """Append a clock event (``kind`` one of press, challenge, ruling, pause, resume)."""
        self.events.append(parse_event({"t": t, kind: value}, f"clock event at {t}"))

    def to_json(self) -> dict:
        """The record as a JSON-ready object (see the module docstring)."""
        out: dict = {"game": "iago", "version": RECORD_VERSION}
        if self.players:
            out["players"] = dict(self.players)
        out["minutes"] = self.minutes
        out["minute_seconds"] = self.minute_seconds
        if self.lexicon:
            out["lexicon"] = self.lexicon
        out["size"] = self.size
        if self.start is not None:
            out["start"] = format_board(self.start)
        if self.end is not None:
            out["end"] = self.end
        out["events"] = [e.to_json() for e in self.events]
        return out

    def dumps(self) -> str:
        """The record as JSON text, one event a line for easy reading and diffing."""
        head = self.to_json()
        events = head.pop("events")
        text = json.dumps(head)[:-1]
        lines = ",\n  ".join(json.dumps(e) for e in events)
        return text + ', "events": [\n  ' + lines + "\n]}\n"


def parse_record(data: str | dict, name: str = "record") -> GameRecord:
    """Read a game record from JSON text or a decoded object.

    Raises:
        RecordError: listing every problem (``name``, the field or event number, what is wrong
            and what is accepted): bad JSON, unknown fields, a bad board or clock event, times
            going backwards.
    """
    if isinstance(data, str):
        try:
            data = loads_json(data)
        except json.JSONDecodeError as exc:
            raise RecordError(
                f"{name}: not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            ) from None
    if not isinstance(data, dict):
        raise RecordError(f'{name}: expected a JSON object with "events"; see docs/iago.md')
    errors: list[str] = []
    unknown = sorted(set(data) - _TOP_KEYS - {"events"})
    if unknown:
        errors.append(f"unknown fields {unknown}; accepted: {sorted(_TOP_KEYS | {'events'})}")
    if data.get("game", "iago") != "iago":
        errors.append(f'"game" is {shown(data.get("game"))}; accepted: "iago"')
    if data.get("version", RECORD_VERSION) != RECORD_VERSION:
        errors.append(f'"version" is {shown(data.get("version"))}; accepted: {RECORD_VERSION}')
    rec = GameRecord()
    players = data.get("players", {})
    if (
        not isinstance(players, dict)
        or not set(players) <= {"blue", "red"}
        or not all(isinstance(v, str) and len(v) <= 64 for v in players.values())
    ):
        errors.append(
            f'"players" is {shown(players)}; accepted: {{"blue": NAME, "red": NAME}}, '
            "names of at most 64 characters"
        )
    else:
        rec.players = dict(players)
    minutes = data.get("minutes", 5)
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= 99:
        errors.append(f'"minutes" is {shown(minutes)}; accepted: a whole number 1 to 99')
    else:
        rec.minutes = minutes
    ms = data.get("minute_seconds", 60.0)
    if not is_number(ms, MIN_MINUTE_SECONDS, MAX_MINUTE_SECONDS):
        errors.append(f'"minute_seconds" is {shown(ms)}; accepted: {MINUTE_SECONDS_ACCEPTED}')
    else:
        rec.minute_seconds = float(ms)
    lex = data.get("lexicon")
    if lex is not None and lex != "" and not is_safe_name(lex):
        # the name opens a lexicon's files in the data directory: never one that leaves it
        errors.append(f'"lexicon" is {shown(lex)}; accepted: a lexicon name, {NAME_ACCEPTED}')
        lex = None
    rec.lexicon = lex if isinstance(lex, str) and lex else None
    size = data.get("size", IAGO_SIZE)
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 50:
        errors.append(f'"size" is {shown(size)}; accepted: a whole number 1 to 50 (Iago: 11)')
        size = IAGO_SIZE
    rec.size = size
    if "start" in data:
        try:
            rec.start = parse_board(data["start"], size)
        except BoardNotationError as exc:
            errors.append(f'"start": {exc}')
    end = data.get("end")
    if end is not None:
        if not is_number(end, 0.0):
            errors.append(f'"end" is {shown(end)}; accepted: a number of seconds, 0 or more')
        else:
            rec.end = float(end)
    events = data.get("events")
    if not isinstance(events, list):
        errors.append('"events" is missing or not a list; accepted: a list of event objects')
        events = []
    last = None
    for i, obj in enumerate(events, 1):
        where = f"event {i}"
        try:
            ev = _parse_event(obj, where, size)
        except (RecordError, ClockError) as exc:
            errors.append(str(exc))
            continue
        if last is not None and ev.t < last:
            errors.append(f'{where}: "t" {ev.t} is earlier than the event before ({last})')
        last = ev.t
        rec.events.append(ev)
    if last is not None and rec.end is not None and rec.end < last:
        errors.append(f'"end" {rec.end} is earlier than the last event ({last})')
    if errors:
        raise RecordError(f"{name}: " + f"\n{name}: ".join(errors))
    return rec


def _event_time(obj: dict, where: str) -> float:
    t = obj.get("t")
    if not is_number(t, 0.0):
        raise RecordError(f'{where}: "t" is {shown(t)}; accepted: a number of seconds, 0 or more')
    return float(t)


def _parse_words(obj: dict, where: str) -> WordsEvent:
    t = _event_time(obj, where)
    extra = sorted(set(obj) - {"t", "words", "judged", "lexicon"})
    if extra:
        raise RecordError(
            f'{where}: unknown fields {extra} in a words event; accepted: "t", "words", '
            '"judged", "lexicon"'
        )
    words = obj["words"]
    if (
        not isinstance(words, list)
        or not words
        or not all(isinstance(w, str) and w.isalpha() and w.isascii() for w in words)
    ):
        raise RecordError(
            f'{where}: "words" is {shown(words)}; accepted: a list of one or more words of letters A-Z'
        )
    words = [w.upper() for w in words]
    judged = obj.get("judged", {})
    if not isinstance(judged, dict) or not all(
        isinstance(k, str) and k.upper() in words and isinstance(v, bool) for k, v in judged.items()
    ):
        raise RecordError(
            f'{where}: "judged" is {shown(judged)}; accepted: {{WORD: true or false}} for the words '
            "of the event"
        )
    lexicon = obj.get("lexicon", "")
    if not isinstance(lexicon, str) or len(lexicon) > 64 or not lexicon.isprintable():
        raise RecordError(
            f'{where}: "lexicon" is {shown(lexicon)}; accepted: the name of the lexicon that '
            "judged the words (at most 64 printable characters)"
        )
    return WordsEvent(t, tuple(words), {k.upper(): v for k, v in judged.items()}, lexicon)


def _parse_event(obj: object, where: str, size: int) -> Event:
    if isinstance(obj, dict) and "words" in obj:
        return _parse_words(obj, where)
    if isinstance(obj, dict) and "board" in obj:
        t = _event_time(obj, where)
        extra = sorted(set(obj) - {"t", "board", "penalty"})
        if extra:
            raise RecordError(
                f'{where}: unknown fields {extra} in a board event; accepted: "t", "board", '
                '"penalty"'
            )
        penalty = obj.get("penalty", False)
        if not isinstance(penalty, bool):
            raise RecordError(f'{where}: "penalty" is {shown(penalty)}; accepted: true or false')
        try:
            board = parse_board(obj["board"], size)
        except BoardNotationError as exc:
            raise RecordError(f"{where}: {exc}") from None
        return BoardEvent(float(t), board, penalty)
    return parse_event(obj, where)


# -- replay ----------------------------------------------------------------------------------


@dataclass
class MoveReplay:
    """One completed move, re-ruled: ``number`` from 1, the ``mover``, the press time ``t``
    (seconds), and its ruling (None when the record has no boards). ``withdrawn`` is True when
    a sustained challenge gave it back."""

    number: int
    mover: str
    t: float
    ruling: Ruling | None
    withdrawn: bool = False

    def to_json(self) -> dict:
        """The move, its board before and its ruling (as ``companion iago check`` prints it;
        null for both when no board was recorded)."""
        r = self.ruling
        return {
            "move": self.number,
            "mover": self.mover,
            "t": self.t,
            "withdrawn": self.withdrawn,
            "before": None if r is None else format_board(r.before),
            "ruling": None if r is None else r.to_json(),
        }


@dataclass
class ChallengeReplay:
    """A challenge: who made it, at ``t`` seconds, of which move (its number, or None when the
    word was still being entered), the ``verdict``, whether the lexicon agrees, the penalty
    tiles turned, and any problem found with the board after it.

    ``words`` are the challenged words as entered at the table (a ``words`` event), ``judged``
    the judge's answer for each and ``judge_lexicon`` its lexicon; ``overridden`` is True when
    the verdict differs from the judge's answer (the arbiter reversed it).
    """

    t: float
    challenger: str
    move: int | None
    verdict: str | None = None
    lexicon_agrees: bool | None = None
    words: list[str] = field(default_factory=list)
    judged: dict[str, bool] = field(default_factory=dict)
    judge_lexicon: str = ""
    overridden: bool = False
    penalty_turned: list[tuple[int, int]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The challenge with its penalty cells 1-based."""
        return {
            "t": self.t,
            "challenger": self.challenger,
            "move": self.move,
            "verdict": self.verdict,
            "words": list(self.words),
            "judged": dict(self.judged),
            "judge_lexicon": self.judge_lexicon or None,
            "overridden": self.overridden,
            "lexicon_agrees": self.lexicon_agrees,
            "penalty_turned": [[r + 1, c + 1] for r, c in self.penalty_turned],
            "problems": list(self.problems),
        }


@dataclass
class GameReplay:
    """A replayed game: its moves and challenges, the final board and the clock's end state;
    ``lost_at`` is the game time (seconds) the loser's last minute ran out."""

    record: GameRecord
    moves: list[MoveReplay]
    challenges: list[ChallengeReplay]
    board: Board
    clock: dict
    loser: str | None
    lost_at: float | None = None

    @property
    def counts(self) -> dict[str, int]:
        """The tiles of each colour on the final board."""
        return self.board.counts()

    def to_json(self) -> dict:
        """Every move with its ruling, the challenges, the final board, counts and clock."""
        return {
            "moves": [m.to_json() for m in self.moves],
            "challenges": [c.to_json() for c in self.challenges],
            "boards_recorded": self.record.has_boards,
            "illegal_moves": [
                m.number for m in self.moves if m.ruling is not None and not m.ruling.legal
            ],
            "board": format_board(self.board),
            "counts": self.counts,
            "clock": self.clock,
            "loser": self.loser,
            "winner": None if self.loser is None else other(self.loser),
            "lost_at": self.lost_at,
        }


def replay_record(
    record: GameRecord,
    *,
    lexicon: Container[str] | None = None,
    is_inflection: IsInflection | None = None,
) -> GameReplay:
    """Replay ``record`` on the differential timer and re-rule every completed move.

    A move is ruled between the board when it began and the last board seen before its
    mover's press, with the boards of the earlier standing moves as history. A sustained
    challenge of a completed move withdraws it: the board goes back to the board before it
    and it leaves the history. Penalty boards (``"penalty": true``) are checked: the board
    restored if the challenge was sustained, at most three tiles turned, all of the penalised
    player's colour (rulebook, "Challenge"). A ``words`` event goes to the challenge under way.
    A record without boards replays the clock and the challenges only: its moves get no ruling.
    The clock runs to ``record.end`` after the last event (a loss on time is found there).

    Raises:
        RecordError: an event the clock refuses (e.g. time going backwards), a ``words`` event
            with no challenge under way.
    """
    timer = DifferentialTimer(minutes=record.minutes, minute_seconds=record.minute_seconds)
    start = record.start or Board.empty(record.size)
    standing = GameHistory([start])  # the board before the first move, then after each move
    current = start
    move_start = start
    moves: list[MoveReplay] = []
    challenges: list[ChallengeReplay] = []
    open_challenge: tuple[ChallengeReplay, bool, str] | None = (
        None  # (it, of completed, challenged)
    )
    penalty_due: tuple[ChallengeReplay, Board, str, bool] | None = None
    loser = None
    lost_at = None
    rule_boards = record.has_boards
    for i, ev in enumerate(record.events, 1):
        if isinstance(ev, WordsEvent):
            if open_challenge is None:
                raise RecordError(f"event {i}: words {list(ev.words)} with no challenge under way")
            ch = open_challenge[0]
            ch.words, ch.judged, ch.judge_lexicon = list(ev.words), dict(ev.judged), ev.lexicon
            continue
        if isinstance(ev, BoardEvent):
            if ev.board.size != start.size:
                raise RecordError(
                    f"event {i}: a {ev.board.size}x{ev.board.size} board in a game "
                    f"of {start.size}x{start.size}"
                )
            if ev.penalty:
                if penalty_due is None:
                    raise RecordError(f"event {i}: a penalty board with no challenge settled")
                ch, reference, penalised, must_restore = penalty_due
                turned = _check_penalty(ch, reference, ev.board, penalised, must_restore)
                move_start = ev.board if must_restore else _recolour(move_start, ev.board, turned)
                penalty_due = None
            current = ev.board
            continue
        try:
            notices = ev.apply(timer)
        except ClockError as exc:
            raise RecordError(f"event {i}: {exc}") from None
        for note in notices:
            if isinstance(note, MoveEnded) and not rule_boards:
                moves.append(MoveReplay(len(moves) + 1, note.mover, note.t, None))
            elif isinstance(note, MoveEnded):
                try:
                    ruling = rule_move(
                        move_start,
                        current,
                        note.mover,
                        lexicon=lexicon,
                        is_inflection=is_inflection,
                        history=standing,
                    )
                except MoveInputError as exc:
                    raise RecordError(f"event {i}: {exc}") from None
                moves.append(MoveReplay(len(moves) + 1, note.mover, note.t, ruling))
                standing.push(current)
                move_start = current
                penalty_due = None
            elif isinstance(note, ChallengeStarted):
                number = moves[-1].number if note.of_completed_move and moves else None
                ch = ChallengeReplay(note.t, note.challenger, number)
                challenges.append(ch)
                open_challenge = (ch, note.of_completed_move, note.challenged)
            elif isinstance(note, ChallengeRuled) and open_challenge is not None:
                ch, of_completed, challenged = open_challenge
                open_challenge = None
                ch.verdict = str(note.verdict)
                sustained = note.verdict == Verdict.SUSTAINED
                judge_says = _judge_verdict(ch.words, ch.judged)
                ch.overridden = judge_says is not None and judge_says != note.verdict
                if of_completed and moves and moves[-1].ruling is not None:
                    valid = moves[-1].ruling.valid_words
                    ch.lexicon_agrees = None if valid is None else (valid != sustained)
                penalised = challenged if sustained else ch.challenger
                if of_completed and sustained and moves and not rule_boards:
                    moves[-1].withdrawn = True
                elif of_completed and sustained and moves:
                    moves[-1].withdrawn = True
                    standing.pop()
                    before = moves[-1].ruling.before  # type: ignore[union-attr]
                    move_start = current = before
                    penalty_due = (ch, move_start, penalised, True)
                else:
                    penalty_due = (ch, current, penalised, False)
            elif isinstance(note, LostOnTime):
                loser, lost_at = note.loser, note.t
    t_end = record.events[-1].t if record.events else 0.0
    if record.end is not None and record.end >= t_end:
        t_end = record.end
        for note in timer.advance(t_end):
            if isinstance(note, LostOnTime):
                loser, lost_at = note.loser, note.t
    snap = timer.snapshot(t_end)
    return GameReplay(record, moves, challenges, current, snap, loser, lost_at)


def _judge_verdict(words: list[str], judged: dict[str, bool]) -> Verdict | None:
    """The verdict the judge's answers give: sustained when a word is not acceptable."""
    if not words or not judged:
        return None
    return Verdict.REJECTED if all(judged.get(w, False) for w in words) else Verdict.SUSTAINED


def _check_penalty(
    ch: ChallengeReplay, reference: Board, board: Board, penalised: str, must_restore: bool
) -> list[tuple[int, int]]:
    """The cells turned as the challenge's penalty; problems go to ``ch.problems``."""
    turned = []
    letters_changed = []
    for i, (a, b) in enumerate(zip(reference.grid, board.grid, strict=True)):
        if a == b:
            continue
        cell = divmod(i, reference.size)
        if a != "." and b != "." and a.upper() == b.upper():
            turned.append(cell)
            if colour_of(a) != penalised:
                ch.problems.append(
                    f"the tile at {cell_name(*cell)} was turned from {colour_of(a)}; the "
                    f"penalty turns tiles of {penalised} only"
                )
        else:
            letters_changed.append(cell)
    if must_restore and letters_changed:
        ch.problems.append(
            "the board was not restored to its state before the challenged move ("
            + ", ".join(cell_name(*c) for c in letters_changed)
            + ")"
        )
    if len(turned) > 3:
        ch.problems.append(f"{len(turned)} tiles were turned; the penalty is three")
    ch.penalty_turned = turned
    return turned


def _recolour(base: Board, seen: Board, cells: list[tuple[int, int]]) -> Board:
    """``base`` with the penalty turns seen on ``seen`` applied where the letter is the same."""
    changes = {}
    for r, c in cells:
        old, new = base.at(r, c), seen.at(r, c)
        if old is not None and new is not None and old.upper() == new.upper():
            changes[(r, c)] = show(old, colour_of(new))
    return base.with_cells(changes) if changes else base


# -- the readable summary ----------------------------------------------------------------------


def _clock_time(t: float) -> str:
    m, s = divmod(int(round(t)), 60)
    return f"{m}:{s:02d}"


def _challenge_words(ch: ChallengeReplay) -> str:
    """``ZZZ, judged not acceptable (ZZZ not in testwords)``, or "" when no words were recorded."""
    if not ch.words:
        return ""
    text = " ".join(ch.words)
    if ch.judged:
        lexicon = ch.judge_lexicon or "the lexicon"
        bad = [w for w in ch.words if not ch.judged.get(w, False)]
        if bad:
            text += f", judged not acceptable ({' '.join(bad)} not in {lexicon})"
        else:
            text += f", judged acceptable ({lexicon})"
    return text


def _challenge_line(ch: ChallengeReplay, withdrawn: bool) -> str:
    """``challenged by red: WORDS, judged ...: sustained, move withdrawn`` (of a completed
    move), ``blue challenged red's word being entered: ...`` (of the move under way)."""
    words = _challenge_words(ch)
    if ch.move is None:
        text = f"{ch.challenger} challenged {other(ch.challenger)}'s word being entered: "
    else:
        text = f"challenged by {ch.challenger}: "
    text += f"{words}: " if words else ""
    text += ch.verdict or "not settled"
    if ch.overridden:
        text += " (the arbiter overrode the judge)"
    if withdrawn:
        text += ", move withdrawn"
    if ch.lexicon_agrees is False:
        text += " (the lexicon disagrees)"
    return text


def summary(game: GameReplay, ending: str | None = None) -> str:
    """A readable account of the game: each move with its words, steals, counts and ruling,
    the challenges (words, the judge's answer, verdict, override), the final board, final counts
    and the result. Without boards: each move's mover and time, the challenges and the result.

    ``ending`` says how a game that no one lost ended, when the record's keeper knows it (a
    table's saved game: ``"the game was abandoned at 1:10 (game time)"``); without it such a game
    is ``not finished`` with the clock's status."""
    rec = game.record
    names = {c: rec.players.get(c, c) for c in ("blue", "red")}
    lines = [
        f"Iago: {names['blue']} (blue) v {names['red']} (red), {rec.minutes} minute"
        + ("s" if rec.minutes != 1 else "")
        + " each"
        + (f" ({rec.minute_seconds:g} s minute)" if rec.minute_seconds != 60 else "")
        + (f", lexicon {rec.lexicon}" if rec.lexicon else "")
    ]
    if not rec.has_boards:
        lines.append(
            "No boards were recorded: the clock and the challenges are replayed; "
            "the moves' words are not ruled."
        )
    by_move: dict[int, list[ChallengeReplay]] = {}
    entered = []  # challenges of a word being entered, in time order
    for ch in game.challenges:
        if ch.move is not None:
            by_move.setdefault(ch.move, []).append(ch)
        else:
            entered.append(ch)

    def flush_entered(before: float | None) -> None:
        while entered and (before is None or entered[0].t < before):
            ch = entered.pop(0)
            lines.append(f"       {_clock_time(ch.t)} " + _challenge_line(ch, False))
            lines.extend(f"       penalty problem: {p}" for p in ch.problems)

    for m in game.moves:
        flush_entered(m.t)
        lines.append(_move_line(m))
        for ch in by_move.get(m.number, []):
            lines.append(f"       {_clock_time(ch.t)} " + _challenge_line(ch, m.withdrawn))
            if ch.penalty_turned:
                cells = "; ".join(cell_name(*c) for c in ch.penalty_turned)
                lines.append(f"       penalty: {len(ch.penalty_turned)} tiles turned ({cells})")
            lines.extend(f"       penalty problem: {p}" for p in ch.problems)
    flush_entered(None)
    if rec.has_boards:
        c = game.counts
        lines.append(f"Final board: {format_board(game.board)}")
        lines.append(f"Final counts: blue {c['blue']}, red {c['red']}")
    illegal = [
        m.number
        for m in game.moves
        if m.ruling is not None and not m.ruling.legal and not m.withdrawn
    ]
    if illegal:
        lines.append("Illegal moves standing: " + ", ".join(map(str, illegal)))
    standing = sum(1 for m in game.moves if not m.withdrawn)
    minutes = game.clock["minutes"]
    lines.append(
        f"Moves completed: {standing}"
        + (f" ({len(game.moves) - standing} withdrawn)" if standing != len(game.moves) else "")
        + f"; minutes left: blue {minutes['blue']}, red {minutes['red']}"
    )
    if game.loser:
        winner = other(game.loser)
        at = "" if game.lost_at is None else f" at {_clock_time(game.lost_at)}"
        lines.append(
            f"Result: {names[game.loser]} ({game.loser}) lost on time{at}; "
            f"{names[winner]} ({winner}) wins"
        )
    elif ending:
        lines.append(f"Result: {ending}; no winner")
    else:
        lines.append(f"Result: not finished (clock {game.clock['status']})")
    return "\n".join(lines)


def _move_line(m: MoveReplay) -> str:
    """One move: number, mover, clock time, then its words, counts and ruling if it has one."""
    head = f"{m.number:3d}. {m.mover:<4} {_clock_time(m.t):>6}"
    r = m.ruling
    if r is None:
        return head + ("  (withdrawn)" if m.withdrawn else "")
    parts = []
    for w in r.words:
        if w.valid is False:
            parts.append(f"{w.word.text} (not in the lexicon)")
        elif w.kind == "steal":
            parts.append(f"{w.word.text} (steals {'/'.join(p.text for p in w.predecessors)})")
        elif w.predecessors:
            parts.append(f"{w.word.text} ({w.kind} of {'/'.join(p.text for p in w.predecessors)})")
        else:
            parts.append(w.word.text)
    words = ", ".join(parts) or "no word"
    verdict = "legal" if r.legal else "ILLEGAL: " + ", ".join(v.code for v in r.violations)
    line = f"{head}  {words}  [blue {r.counts['blue']}, red {r.counts['red']}]  {verdict}"
    if r.substitutions:
        line += "  pool +" + "".join(r.substituted_letters)
    return line
