"""A game saved by the table service, read as an Iago game record (``companion iago replay``).

The table service (``companion daemon``, ``companion sim``) saves a finished game as
``data_dir()/records/<stamp>-table<N>.json`` (docs/daemon.md, "The journal")::

    {"result": {"loser": "red", "moves_completed": 3, "challenges": [...], ...},
     "settings": {"number": 4, "blue": "Ada", "red": "Bob", "minutes": 2, ...},
     "record": [{"kind": "_game", ...}, {"t": 0.0, "kind": "press", "role": "red"}, ...]}

``record`` is the game's journal: the Iago timer's events (``press``, ``challenge_button``,
``words``, ``override``, ``confirm``, ``cancel``, ``pause``, ``resume``, ``restart``) with their
game times in seconds, and the service's own records (``_game``, ``_alive``: skipped).

The conversion replays the journal on the table's own Iago timer mode
(:class:`companion.daemon.modes.iago.IagoTimerMode`), so that every event means here exactly
what it meant at the table, and notes each change the mode makes to its differential timer as a
record's clock event: a player's press that counted (``press`` by colour; a press the clock
ignored is left out), a challenge with its challenger at the instant the challenge button
stopped the sand, the ruling as finally confirmed (after any override), the arbiter's pauses
and resumes, a challenge called off (the sand stopped then ran on: a pause and a resume) and a
restart (the clock paused where the journal last saw it alive: a pause; the resume follows).
The challenged words and the judge's answers become ``words`` events. A journal record
``{"t": ..., "kind": "board", "board": NOTATION}`` (``"penalty": true`` optional) becomes a board
event. The table service journals each board its camera reads when a move begins (from the frame
of the press that began it, journaled once read, after that press) as ``{"kind": "_board",
"board": NOTATION, "trusted": bool, "player": COLOUR, "move": N}``: a trusted one is a board event
here too, at that press's time just before it (the board the move before ended on), an untrusted
one is left out (:class:`_Moves`). Without a camera no boards are journaled, and the replay runs
the clock and the challenges, and says that no boards were recorded.

A game lost on time ends after its last event, when the mover's last minute runs out: the
record's ``end`` is that instant, found by running the clock on from the last event. An
abandoned game ends at ``result.abandoned_at``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.clock.replay import ClockEvent
from companion.clock.timer import (
    ClockError,
    DifferentialTimer,
    Ignored,
    LostOnTime,
    Notice,
    Status,
    Verdict,
)
from companion.games.iago.board import Board, BoardNotationError, parse_board
from companion.games.iago.record import (
    BoardEvent,
    GameRecord,
    GameReplay,
    RecordError,
    WordsEvent,
)
from companion.names import is_safe_name
from companion.textformats import is_number, shown

TABLE_KEYS = ("result", "settings", "record")


def is_table_record(data: object) -> bool:
    """True when ``data`` (a decoded JSON object) looks like a table's saved game: it has
    ``record`` and no ``events``."""
    return isinstance(data, dict) and "record" in data and "events" not in data


@dataclass
class TableGame:
    """A table's saved game: the game ``record`` converted, the table's saved ``result`` and
    ``notes`` on the conversion (restarts, challenges called off, no boards, an abandoned
    game)."""

    record: GameRecord
    result: dict
    notes: list[str] = field(default_factory=list)


class _RecordingTimer(DifferentialTimer):
    """A differential timer that notes every input that changed it as a record's clock event."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.calls: list[ClockEvent] = []

    def _note(self, notices: list[Notice], t: float, kind: str, value: str | bool) -> list[Notice]:
        if not any(isinstance(n, Ignored) for n in notices):
            self.calls.append(ClockEvent(float(t), kind, value))
        return notices

    def press(self, colour: str, t: float) -> list[Notice]:
        return self._note(super().press(colour, t), t, "press", colour)

    def challenge(self, challenger: str, t: float) -> list[Notice]:
        return self._note(super().challenge(challenger, t), t, "challenge", challenger)

    def rule(self, verdict: Verdict | str, t: float) -> list[Notice]:
        return self._note(super().rule(verdict, t), t, "ruling", str(Verdict(str(verdict))))

    def pause(self, t: float) -> list[Notice]:
        return self._note(super().pause(t), t, "pause", True)

    def resume(self, t: float) -> list[Notice]:
        return self._note(super().resume(t), t, "resume", True)


def _clock_time(t: float) -> str:
    m, s = divmod(int(round(t)), 60)
    return f"{m}:{s:02d}"


def from_table(data: dict, name: str = "record") -> TableGame:
    """Convert a table's saved game (decoded JSON, see the module docstring) to a game record.

    Args:
        data: ``{"result": {...}, "settings": {...}, "record": [journal records]}``.
        name: the file's name, for messages.

    Returns:
        The :class:`TableGame`; replay its ``record`` with
        :func:`companion.games.iago.record.replay_record`.

    Raises:
        RecordError: naming ``name``: unknown top-level fields, settings the table would refuse,
            a saved game of another game, a journal record the Iago timer cannot apply (with
            its number, ``seq`` and kind), a bad board.
    """
    from companion.daemon.config import TableConfigError, validate
    from companion.daemon.modes import ModeContext, ModeError
    from companion.daemon.modes.iago import IagoTimerMode

    unknown = sorted(set(data) - set(TABLE_KEYS))
    if unknown:
        raise RecordError(
            f"{name}: unknown fields {unknown} in a table's saved game; accepted: "
            f'{list(TABLE_KEYS)} (a table\'s record) or a game record with "events" '
            "(docs/iago.md)"
        )
    journal = data.get("record")
    if not isinstance(journal, list) or not all(isinstance(r, dict) for r in journal):
        raise RecordError(f'{name}: "record" is not a list of journal records (JSON objects)')
    result = data.get("result") or {}
    if not isinstance(result, dict):
        raise RecordError(
            f'{name}: "result" is {shown(result)}; accepted: the table\'s result object'
        )
    header = next((r for r in journal if r.get("kind") == "_game"), {})
    mode_name = header.get("mode", result.get("game", "iago"))
    if mode_name != "iago":
        raise RecordError(
            f"{name}: a saved game of {shown(mode_name)}; companion iago replay reads Iago "
            "games only"
        )
    settings = data.get("settings") or header.get("settings")
    if not isinstance(settings, dict):
        raise RecordError(f'{name}: no "settings" (the table\'s set-up) in the saved game')
    try:
        table = validate(settings, f"{name} settings", check_names=False)
    except TableConfigError as exc:
        raise RecordError(f"{name}: {exc}") from None
    mode = IagoTimerMode(ModeContext(table=table, lexicon_name=table.lexicon))
    timer = _RecordingTimer(
        minutes=table.minutes,
        minute_seconds=table.minute_seconds,
        first_mover=mode.timer.first_mover,
    )
    mode.timer = timer
    rec = GameRecord(
        players={"blue": table.blue, "red": table.red},
        minutes=table.minutes,
        minute_seconds=table.minute_seconds,
        lexicon=table.lexicon or None,
    )
    notes: list[str] = []
    last_t = 0.0
    moves = _Moves()
    for i, ev in enumerate(journal, 1):
        kind = str(ev.get("kind", ""))
        if kind == "_board" and ev.get("trusted") is not True:
            continue  # a board the camera was not sure of is no board of the game's record
        if kind == "_board":
            # the camera's board when a move began (read from the frame of the press that began
            # it, journaled when read): the board as it stood at that press
            try:
                board = parse_board(ev.get("board"), rec.size)
            except BoardNotationError as exc:
                where = f"{name}: journal record {i}" + (
                    f" (seq {ev['seq']})" if "seq" in ev else ""
                )
                raise RecordError(f"{where}: {exc}") from None
            moves.board(ev, board, len(rec.events), last_t)
            continue
        if kind.startswith("_"):
            continue
        where = f"{name}: journal record {i}" + (f" (seq {ev['seq']})" if "seq" in ev else "")
        t = ev.get("t")
        if not is_number(t, 0.0):
            raise RecordError(
                f'{where}: "t" is {shown(t)}; accepted: game time in seconds, 0 or more'
            )
        if t < last_t:
            raise RecordError(f'{where}: "t" {t} is earlier than the record before ({last_t})')
        last_t = float(t)
        if kind == "board":
            try:
                board = parse_board(ev.get("board"), rec.size)
            except BoardNotationError as exc:
                raise RecordError(f"{where}: {exc}") from None
            rec.events.append(BoardEvent(float(t), board, bool(ev.get("penalty", False))))
            continue
        waiting_for_words = mode.phase == "words"
        try:
            mode.apply(ev)
        except (ModeError, ClockError, KeyError, TypeError, ValueError, AttributeError) as exc:
            # a record that is not one the table wrote (fields of the wrong type): refused
            detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise RecordError(f"{where} ({kind or 'no kind'}): {detail}") from None
        ruled = any(c.kind == "ruling" for c in timer.calls)
        moves.follow(ev, mode.timer.mover, len(rec.events), float(t), ruled)
        rec.events.extend(timer.calls)
        timer.calls.clear()
        if kind == "words" and waiting_for_words and mode.phase == "verdict":
            words = mode.challenge_rec.words if mode.challenge_rec else []
            per_word = ev.get("per_word", {})
            if not isinstance(per_word, dict):
                raise RecordError(
                    f'{where} (words): "per_word" is {shown(per_word)}; accepted: '
                    "{WORD: true or false}"
                )
            judged = {str(w).upper(): bool(v) for w, v in per_word.items()}
            lexicon = ev.get("lexicon") or ""
            lexicon = lexicon if isinstance(lexicon, str) and lexicon.isprintable() else ""
            rec.events.append(WordsEvent(float(t), tuple(words), judged, lexicon[:64]))
            if rec.lexicon is None and is_safe_name(lexicon):
                rec.lexicon = lexicon  # the judge's list; a name that is not safe is not opened
        if kind == "restart":
            notes.append(
                f"the table restarted at {_clock_time(t)}: the clock was paused there "
                "(the time the table was down is charged to no one)"
            )
    for ch in mode.challenges:
        if ch.get("judged_by") == "arbiter":
            notes.append(
                f"a challenge at {_clock_time(ch['started_at'])} was ruled by the arbiter: no "
                f"lexicon checked the words ({ch.get('unchecked')})"
            )
        if ch.get("outcome") != "ruled":
            notes.append(
                f"a challenge at {_clock_time(ch['started_at'])} was {ch.get('outcome')} "
                "(the stopped time was not charged)"
            )
    moves.place(rec.events)
    rec.end = _end(timer, result, last_t, notes)
    return TableGame(rec, result, notes)


class _Moves:
    """Where each camera board goes in the record: the table service reads the board from the
    frame of the press that began a move and journals it (``_board``) when the reading is done,
    after that press and maybe after more events; its ``player`` and ``move`` (the move's
    number in the game, the mover changes counted as the table's camera watcher counts them)
    say which press. A board goes just before that press, at its time: the last board seen
    before it, the board the move before ended on and the one this move begins on. A board
    journaled before these fields (no ``move``) is the latest press's that began a move. The
    board at the press ending a move in which a challenge was ruled (the move not given back)
    is that challenge's penalty board (``penalty``: its three tiles turned are the penalty, not
    the move, as the table has it); a move given back is ruled as the record's rules have it."""

    def __init__(self) -> None:
        from companion.vision.table import MoveNumbers

        self.numbers = MoveNumbers()  # numbered as the table's camera watcher numbers them
        self.ruled = False  # a challenge was ruled in the move in progress
        self.starts: dict[int, tuple[int, float]] = {}  # move -> (event index, time) of its press
        self.penalty: set[int] = set()  # moves whose press's board is a penalty board
        self.boards: list[tuple[int, float, int, Board, bool]] = []  # (index, t, order, board, p)

    def follow(self, ev: dict, mover, index: int, t: float, ruled: bool = False) -> None:
        """After the journal's game event ``ev`` (applied; ``mover`` the timer's mover after it,
        its clock events to be appended at ``index`` of the record's events at time ``t``;
        ``ruled``: a challenge's ruling among them)."""
        kind = self.numbers.after(ev, mover)
        if kind is None:
            self.ruled = self.ruled or ruled
            return
        if kind == "start":  # a move given back by a ruling has no board read
            self.starts[self.numbers.number] = (index, t)
            if self.ruled:
                self.penalty.add(self.numbers.number)
        self.ruled = False

    def board(self, ev: dict, board: Board, index: int, last_t: float) -> None:
        """A trusted ``_board`` record met when the record's events number ``index``, the
        last of them at ``last_t``."""
        move = ev.get("move")
        if isinstance(move, bool) or not isinstance(move, int):
            move = max(self.starts, default=None)
        where = self.starts.get(move)
        if where is None:  # no press began that move (yet): the board as it was read
            t = ev.get("t")
            where = (index, max(float(t) if is_number(t, 0.0) else 0.0, last_t))
        penalty = move in self.penalty and not any(b[0] == where[0] for b in self.boards)
        self.boards.append((*where, len(self.boards), board, penalty))

    def place(self, events: list) -> None:
        """Insert the boards into ``events``, each before its press (in journal order)."""
        for index, t, _order, board, penalty in sorted(self.boards, key=lambda b: (-b[0], -b[2])):
            events.insert(index, BoardEvent(t, board, penalty))


def _end(timer: DifferentialTimer, result: dict, last_t: float, notes: list[str]) -> float | None:
    """When the game ended: a loss on time is found by running the clock on from the last
    event (no input came after it); an abandoned game at ``abandoned_at``."""
    if result.get("abandoned"):
        at = result.get("abandoned_at")
        if is_number(at, last_t):
            notes.append(f"the game was abandoned at {_clock_time(at)}")
            return float(at)
        notes.append("the game was abandoned")
        return None
    if not result.get("loser"):
        return None
    while timer.status == Status.RUNNING:
        deadline = timer.next_deadline()
        if deadline is None:
            break
        for n in timer.advance(deadline):
            if isinstance(n, LostOnTime):
                return n.t
    return None  # the clock was not running after the last event: check_result says so


def check_result(game: GameReplay, result: dict) -> list[str]:
    """Where the replay disagrees with the table's saved ``result`` (empty: it agrees).

    Compared: the loser, the moves completed, the minutes left and the challenges ruled (their
    challengers, words and verdicts, in order).
    """
    out = []
    if "loser" in result and result.get("loser") != game.loser:
        out.append(f"the table says the loser is {result.get('loser')}; the replay: {game.loser}")
    done = result.get("moves_completed")
    if done is not None and done != game.clock["moves_completed"]:
        out.append(
            f"the table says {done} moves completed; the replay: {game.clock['moves_completed']}"
        )
    minutes = result.get("minutes")
    if minutes is not None and minutes != game.clock["minutes"]:
        out.append(f"the table says minutes {minutes}; the replay: {game.clock['minutes']}")
    challenges = result.get("challenges", [])
    saved = [
        (c.get("challenger"), _words(c.get("words")), c.get("verdict"))
        for c in (challenges if isinstance(challenges, list) else [])
        if isinstance(c, dict) and c.get("outcome") == "ruled"
    ]
    replayed = [(c.challenger, c.words, c.verdict) for c in game.challenges if c.verdict]
    if "challenges" in result and saved != replayed:
        out.append(f"the table's challenges {saved}; the replay's {replayed}")
    return out


def _words(words: object) -> list:
    """A saved challenge's words as a list (what is not a list, as one item)."""
    if isinstance(words, list):
        return words
    return [] if not words else [words]


def ending(result: dict) -> str | None:
    """How a table's saved game ended when no one lost, for the summary's result line:
    ``"the game was abandoned at 1:10 (game time)"`` (the time when the table saved it), else
    None (lost on time, or not ended: the replay says)."""
    if not result.get("abandoned"):
        return None
    at = result.get("abandoned_at")
    if is_number(at, 0.0):
        return f"the game was abandoned at {_clock_time(at)} (game time)"
    return "the game was abandoned"


def result_line(result: dict, disagreements: list[str]) -> str:
    """One line on the table's saved result for the summary."""
    if result.get("abandoned"):
        head = "the game was abandoned"
    elif result.get("loser"):
        head = f"{result['loser']} lost on time"
    else:
        head = "no result"
    if not disagreements:
        return f"Saved result (the table's): {head}; the replay agrees"
    return f"Saved result (the table's): {head}; the replay DISAGREES: " + "; ".join(disagreements)
