"""The classic crossword game as a table mode: the tournament clock, the challenge at the table,
the scores move by move and the game record (``[table] game = "scrabble"``, ``companion sim
--game scrabble``, a tournament round's ``--game scrabble``). See docs/scrabble.md.

Inputs and what they do (WESPA Game Rules, NASPA Official Tournament Rules; the clock's rules in
:mod:`companion.games.scrabble.clock`):

- a player's button: before the game, the player who goes second presses to start the first
  player's clock; then the player on move presses to end his turn;
- typed before the press, the move: ``8D JETON`` (GCG coordinates: row first across, column first
  down; a blank in lower case, ``.`` or the letter for a tile already on the board), ``pass``, or
  ``exchange ABC`` / ``exchange 3``: the screen shows the word and its score, and the press
  records it. A press with nothing typed ends the turn without a move recorded (the box is then
  the clock and the judge, and the final scores are typed at the end);
- the challenge button: the player on move challenges the play just made; both clocks stop. The
  words are typed (Enter alone takes the words of the recorded play); the judge rules and the
  screen shows ACCEPTABLE or NOT ACCEPTABLE; ``override`` reverses it; the challenge button (or
  ``confirm``) settles it (with no lexicon to judge, a word list missing or damaged, the words
  are shown ACCEPTABLE, not checked: NO LEXICON: ARBITER RULES, and the arbiter rules so, as in
  Iago; ``override`` before the words rules NOT ACCEPTABLE at once): challenged off, the play comes off the board and the record and the
  challenger moves; a wrong challenge costs the challenger's turn (double) or gives the player
  challenged the challenge points (points). Pressed again before the words, it calls the
  challenge off. A play can be challenged until the next move is made (the challenger's own
  press ends it; WESPA and NASPA, docs/scrabble.md) and once: the screen says CAN BE CHALLENGED
  while it can, and a challenge after that (the button, or words typed that belong to a play
  whose window has closed) says TOO LATE TO CHALLENGE and the word, and the clock is not held;
- ``end RACK`` (typed) ends the game when the player who moved last went out, RACK the tiles the
  other still holds; ``end RACK RACK`` (blue's, then red's; ``-`` an empty rack) after six
  scoreless turns; ``scores B R`` types the final scores (before overtime) when the moves were
  not recorded. The overtime penalties are taken off and the record saved;
- the arbiter pauses and resumes; after a restart the clocks are paused where the journal last
  saw them running.
"""

from __future__ import annotations

import copy
import re

from companion.clock.timer import Status, Verdict, opponent
from companion.daemon import screen
from companion.daemon.challenge import (
    ARBITER_RULES,
    NO_LEXICON,
    ChallengeInputError,
    LexiconUnavailable,
    split_words,
    words_event,
)
from companion.daemon.modes import (
    ClockedMode,
    Command,
    Effects,
    Input,
    Line,
    ModeContext,
    ModeError,
    NothingToDo,
    Press,
    View,
    tournament_title,
)
from companion.games.scrabble.board import COLUMNS, ScrabbleError
from companion.games.scrabble.clock import TournamentClock
from companion.games.scrabble.record import GameRecord, RecordError
from companion.games.scrabble.scoring import VIOLATIONS

PHASE_WORDS, PHASE_VERDICT = "words", "verdict"
NOTICE_SECONDS = 2 * screen.TURN_SECONDS
_PLAY = re.compile(r"^([0-9]{1,2}[A-Za-z]|[A-Za-z][0-9]{1,2})\s+([A-Za-z.]+)$")
_EXCHANGE = re.compile(r"^(?:exchange|exch|x)\s+([A-Za-z?]{1,7}|[1-7])$", re.IGNORECASE)
_END = re.compile(r"^end((?:\s+[A-Za-z?-]{1,7}){1,2})$", re.IGNORECASE)
_CAMERA = re.compile(r"^camera (blue|red) (.+)$")
# the record's moves that are a player's turn, and how the screen names each
TURN_KINDS = {"play": "a play", "pass": "a pass", "exchange": "an exchange"}
TURN_KINDS["phony"] = "a play taken back"
_SCORES = re.compile(r"^scores\s+(-?[0-9]{1,4})\s+(-?[0-9]{1,4})$", re.IGNORECASE)
# a move typed for a colour: the player on move's, or the last turn's of the player who pressed
_FOR = re.compile(r"^(blue|red)\s+(.+)$", re.IGNORECASE)
ENTRIES = (
    "accepted: a play '8D JETON' (row then column across, column then row down; a blank in "
    "lower case), 'pass', 'exchange ABC' or 'exchange 3', each after 'blue' or 'red' for the "
    "last turn of the player who pressed ('blue 8D JETON'), 'end RACK' (the last mover went "
    "out), 'end BLUERACK REDRACK' ('-' empty), 'scores BLUE RED'"
)


class ScrabbleModeError(ModeError):
    """A typed entry the crossword game mode cannot take: names it and what is accepted."""


class ScrabbleMode(ClockedMode):
    """The crossword game at the table. See the module docstring."""

    name = "scrabble"

    def __init__(self, context: ModeContext) -> None:
        super().__init__(context)
        table = context.table
        self.clock = TournamentClock(
            minutes=table.minutes,
            challenge_rule=getattr(table, "challenge", "double"),
            overtime_points=getattr(table, "overtime_points", 10),
        )
        self.challenge_points = getattr(table, "challenge_points", 5)
        self.record = GameRecord(
            players={"blue": table.blue, "red": table.red}, lexicon=table.lexicon
        )
        self.pending: dict | None = None  # the move typed by the player on move
        self.phase: str | None = None
        self.challenge: dict | None = None
        self.challenges: list[dict] = []
        self.final_scores: dict[str, int] | None = None
        self._recorded_turn = -1  # the clock's turn count when a move was last recorded
        # every turn ended by a press, in order (see _camera_turn): the turn's number, who
        # pressed, whether its move is on the record ("recorded"), whether the record's board
        # is the board after it ("board": recorded, or the camera saw no tile laid, or its play
        # challenged off), and the record's and the challenges' lengths when it ended
        self.turns: list[dict] = []
        self.restarted = False
        self.notice, self.notice_at = "", 0.0
        self.notice_for = NOTICE_SECONDS
        self.shown_since = 0.0

    # -- inputs -> events ------------------------------------------------------------------------

    def decide(self, inp: Input) -> list[dict]:
        """Presses, typed lines and commands become events (the judge rules here)."""
        t = float(inp.t)
        if self._enter_alone(inp):  # Enter alone (sim, the Pi's keyboard): the play's words
            inp = Line("", t)
        if isinstance(inp, Command):
            self._check_something_to_do(inp.name)
        if isinstance(inp, Press) and inp.role == "challenge":
            why = self._challenge_refused(t)
            if why:  # said on the OLED as the clock would, and not journaled
                self._say(why, t)
                raise ScrabbleModeError(why)
        if isinstance(inp, (Press, Command)):
            return self.clock_event(inp, t)
        if isinstance(inp, Line):
            try:
                return self._decide_line(inp.text.strip(), t)
            except (ScrabbleError, ChallengeInputError, LexiconUnavailable) as exc:
                self._say(str(exc), t)
                raise ScrabbleModeError(str(exc)) from None
        raise ModeError(f"input {inp!r} is not a press, a line or a command")

    def slow(self, inp: Input) -> bool:
        """The challenged words are judged (the lexicon may still be opening): on a worker."""
        return self.phase == PHASE_WORDS and (isinstance(inp, Line) or self._enter_alone(inp))

    def _enter_alone(self, inp: Input) -> bool:
        """True for ``confirm`` (what Enter alone sends, in the simulator and on the Pi's
        keyboard) while a challenge waits for its words: it takes the words of the recorded
        play, as an empty typed line does, or says to type them."""
        return isinstance(inp, Command) and inp.name == "confirm" and self.phase == PHASE_WORDS

    def _check_something_to_do(self, command: str) -> None:
        """Refuse ``override`` with no challenge under way (it rules one waiting for its words,
        or reverses the verdict shown) and ``cancel`` (call off) with neither a challenge
        waiting for its words nor a typed move waiting: said on the OLED, nothing journaled.

        Raises:
            NothingToDo: what there is not to act on, for the service's line and the OLED.
            ModeError: ``confirm`` with the verdict shown while the clock is paused (a restart):
                resumed first, as in Iago.
        """
        paused = self.clock.status == Status.PAUSED
        if command == "confirm" and self.phase == PHASE_VERDICT and paused:
            # as Iago's: said, not journaled
            raise ModeError(
                "the clock is paused: resume it first (resume, or the challenge button), "
                "then the verdict is settled"
            )
        if command == "override" and self.challenge is None:
            raise NothingToDo(
                "nothing to override: no challenge is under way", "NOTHING TO OVERRIDE"
            )
        if command == "cancel" and self.phase == PHASE_VERDICT:
            raise NothingToDo(
                "too late to call off: the verdict is shown (override reverses it, confirm "
                "settles it)",
                "TOO LATE TO CALL OFF",
            )
        if command == "cancel" and self.phase is None and self.pending is None:
            raise NothingToDo(
                "nothing to call off: no challenge is under way and no typed move waits",
                "NOTHING TO CALL OFF",
            )

    def _challenge_refused(self, t: float) -> str:
        """Why the challenge button pressed at game time ``t`` (seconds) would challenge nothing
        with the clock running, in the words the OLED says (Nothing to challenge: no play;
        TOO LATE TO CHALLENGE and the word), or "" when it challenges, settles, calls off or
        resumes. Such a press is refused before the journal: the director's pages, which read
        the journal, then never show a challenge that was not (:meth:`_on_challenge_button`
        asks the same of one journaled before)."""
        clock = self.clock
        if self.phase is None and clock.status == Status.READY:
            return "Nothing to challenge yet"  # before the first press
        if self.phase is not None or clock.status != Status.RUNNING or clock.mover is None:
            return ""
        if self.challengeable():
            return ""
        if clock.challengeable:  # the turn just ended was a pass or an exchange
            return "Nothing to challenge: no play"
        notes = copy.deepcopy(clock).challenge(clock.mover, t)  # the clock itself untouched
        if any(n.startswith("too late") for n in notes):
            last = self.record.last_play()
            return f"TOO LATE TO CHALLENGE {last.word if last else ''}".strip()
        if any(n.startswith("challenge ") for n in notes):
            return ""  # it would hold the clock (it cannot, not challengeable: kept safe)
        return "Nothing to challenge yet"

    def _decide_line(self, text: str, t: float) -> list[dict]:
        if self.phase == PHASE_WORDS:
            return [self._judge(text, t)]
        if self.phase == PHASE_VERDICT:
            raise ScrabbleModeError(
                "the verdict is shown: override reverses it, the challenge button (or confirm) "
                "settles it; the words are not typed again"
            )
        if self.finished:
            raise ScrabbleModeError("the game is over")
        m = _CAMERA.match(text)
        if m:
            return self._camera_event(m.group(1), m.group(2).strip(), t)
        m = _SCORES.match(text)
        if m:
            return [{"t": t, "kind": "scores", "blue": int(m.group(1)), "red": int(m.group(2))}]
        m = _END.match(text)
        if m:
            return [self._end_event(m.group(1).split(), t)]
        if self.clock.status not in (Status.RUNNING, Status.PAUSED) or self.clock.mover is None:
            raise ScrabbleModeError("the game has not started: the player who goes second presses")
        mover = self.clock.mover
        m = _FOR.match(text)
        if m and m.group(1).lower() != mover:
            return [self._late_entry(m.group(1).lower(), m.group(2).strip(), t)]
        return self._move_entry(mover, m.group(2).strip() if m else text, t)

    def _move_entry(self, mover: str, text: str, t: float) -> list[dict]:
        """The ``entry`` event of a move typed for ``mover``: a play, ``pass`` or an exchange.

        Raises:
            ScrabbleModeError: not a move, or not a legal placement on the record's board.
        """
        low = text.lower()
        if low == "pass":
            return [{"t": t, "kind": "entry", "player": mover, "move": {"kind": "pass"}}]
        m = _EXCHANGE.match(text)
        if m:
            tiles = m.group(1).upper()
            return [
                {
                    "t": t,
                    "kind": "entry",
                    "player": mover,
                    "move": {"kind": "exchange", "tiles": tiles},
                }
            ]
        m = _PLAY.match(text)
        if not m:
            raise ScrabbleModeError(f"{text!r} is not a move; {ENTRIES}")
        position, word = m.group(1).upper(), m.group(2)
        result = self.record.score_of(position, word)
        if not result.legal:
            why = "; ".join(VIOLATIONS[v.code] for v in result.violations)
            raise ScrabbleModeError(f"{position} {word}: not a legal placement: {why}")
        move = {"kind": "play", "position": position, "word": word, "score": result.score}
        return [{"t": t, "kind": "entry", "player": mover, "move": move}]

    def _late_entry(self, colour: str, text: str, t: float) -> dict:
        """The move of ``colour``'s last turn typed after ``colour`` pressed (``blue 8D JETON``
        while red is on move), when the camera could not read it: the ``late_entry`` event that
        records it, on the same terms as a camera reading that comes late (:meth:`_camera_turn`:
        the turn not recorded, nothing since that could be meant instead).

        Raises:
            ScrabbleModeError: that turn cannot take it (says why), or the move is not one.
        """
        entry, why = self._camera_turn(colour)
        if entry is None:
            raise ScrabbleModeError(
                f"{colour.upper()}'s last turn cannot take a move typed now: "
                + (why or "its move is on the record already")
            )
        [event] = self._move_entry(colour, text, t)
        late = {"kind": "late_entry", "player": colour, "turn": entry["turn"]}
        return {"t": t, **late, "move": event["move"]}

    def _camera_event(self, colour: str, reading: str, t: float) -> list[dict]:
        """The camera's reading after ``colour`` pressed (``NOTATION``, or ``unsure: why``): the
        move found as the difference from the record's board, or a notice asking for the move
        to be typed. Never a guess: an untrusted reading, a tile of the record read otherwise, a
        new blank (the camera cannot see its letter) or an illegal placement records nothing.
        Never dropped unsaid either: a reading that comes after the next press still records the
        move of the turn it belongs to while that is unambiguous (:meth:`_camera_turn`), and
        otherwise the notice says that the move was not recorded."""
        from companion.games.iago.board import BoardNotationError, parse_rows
        from companion.games.scrabble.scoring import score_move

        def ask(why: str) -> list[dict]:
            self._say(f"{why}: type the move ({colour.upper()}) as '{colour} 8D WORD'", t)
            return []

        turn, why = self._camera_turn(colour)
        if turn is None:
            return ask(why) if why else []
        if reading.startswith("unsure"):
            return ask("camera " + reading)
        try:
            rows = parse_rows(reading, 15, blank="?")
        except BoardNotationError:
            return ask("camera: not a board")
        board = self.record.board
        after = []
        for r in range(15):
            line = []
            for c in range(15):
                seen, have = rows[r][c], board[r][c]
                if seen == "?" and have.islower():
                    seen = have  # a blank on the board: its letter is the record's
                elif seen == "?":
                    return ask("camera: a blank was played (its letter cannot be seen)")
                elif have != "." and seen != have:
                    return ask(
                        f"camera: the board read differs from the record at {COLUMNS[c]}{r + 1}"
                    )
                line.append(seen)
            after.append("".join(line))
        result = score_move(board, tuple(after))
        if not result.legal or result.main is None:
            if any(v.code == "no-tiles" for v in result.violations):
                ask("camera: no new tile seen")  # a pass or an exchange, not typed
                return [{"t": t, "kind": "camera_no_tile", "player": colour, "turn": turn["turn"]}]
            why = "; ".join(VIOLATIONS[v.code] for v in result.violations)
            return ask(f"camera: {why}")
        main = result.main
        return [
            {
                "t": t,
                "kind": "camera_play",
                "player": colour,
                "turn": turn["turn"],
                "position": main.position,
                "word": main.word,
                "score": result.score,
            }
        ]

    def _camera_turn(self, colour: str) -> tuple[dict | None, str]:
        """The turn (an entry of :attr:`turns`) a camera reading for ``colour`` records, or None
        and what to say (``""``: nothing, the move is on the record already).

        The camera reads the board once after each press that ends a turn, in order, so its
        reading for ``colour`` is of ``colour``'s last turn. That turn's move is recorded from
        the reading only while the reading can belong to nothing else: the game running or
        paused, no challenge open or ruled since the press, and either no turn since (the
        opponent on move), or one turn of the opponent's, not recorded, nothing recorded since
        (a reading that comes after the opponent's quick press); and the record's board must be
        the board before the turn (every earlier turn recorded, or seen to lay no tile), or the
        difference would hold another turn's tiles. Anything else says that the move was not
        recorded, and why."""
        who = colour.upper()
        mine = [i for i, e in enumerate(self.turns) if e["player"] == colour]
        if not mine:
            return None, f"camera: no turn of {who}'s to read"
        i = mine[-1]
        entry = self.turns[i]
        if entry["recorded"]:
            return None, ""  # typed before the press, or read already: nothing lost
        lost = f"{who}'S MOVE NOT RECORDED: camera"
        later = self.turns[i + 1 :]
        if self.finished:
            return None, f"{lost} read after the game"
        if self.phase is not None or self.clock.status not in (Status.RUNNING, Status.PAUSED):
            return None, f"{lost} read during a challenge"
        if any(c.get("outcome") == "ruled" for c in self.challenges[entry["challenges"] :]):
            return None, f"{lost} read after a challenge"
        if later and (
            len(later) > 1
            or later[0]["recorded"]
            or len(self.record.moves) != entry["moves"]
            or self.clock.mover != colour
        ):
            return None, f"{lost} read too late (after {later[-1]['player'].upper()}'s press)"
        if not later and self.clock.mover != opponent(colour):
            return None, f"{lost} read too late"
        gap = next((e for e in self.turns[:i] if not e["board"]), None)
        if gap is not None:
            return None, (
                f"{lost}: {gap['player'].upper()}'s move of turn {gap['turn']} is not on the "
                "record (the board read holds it)"
            )
        return entry, ""

    def _end_event(self, racks: list[str], t: float) -> dict:
        if self.clock.status == Status.READY:
            raise ScrabbleModeError("the game has not started")
        racks = ["" if r == "-" else r.upper() for r in racks]
        if len(racks) == 1:
            # a player goes out by playing his last tiles: the last turn recorded is the play
            # that did it (a pass, an exchange or a play taken back empties no rack)
            turns = [m for m in self.record.moves if m.kind in TURN_KINDS]
            if turns and turns[-1].kind != "play":
                raise ScrabbleModeError(
                    f"no one went out: the last turn was {TURN_KINDS[turns[-1].kind]}; after the "
                    "scoreless turns type 'end BLUERACK REDRACK' (- for an empty rack)"
                )
            out = turns[-1].player if turns else None
            out = out or (opponent(self.clock.mover) if self.clock.mover else None)
            if out is None:
                raise ScrabbleModeError("who went out? type 'end BLUERACK REDRACK'")
            given = {out: "", opponent(out): racks[0]}
        else:
            given = {"blue": racks[0], "red": racks[1]}
            out = None
        try:
            GameRecord(players=dict(self.record.players)).end(dict(given), out)
        except RecordError as exc:
            raise ScrabbleModeError(f"end: {exc}") from None
        return {"t": t, "kind": "end", "racks": given, "went_out": out}

    def _judge(self, text: str, t: float) -> dict:
        words = split_words(text) if text else self._last_words()
        if not words:
            raise ChallengeInputError("type the challenged words, then Enter")
        late = self._late_words(words)
        if late:  # no challenge: those words' window closed when the next move was made
            return {"t": t, "kind": "too_late", "words": late}
        return words_event(self.context.judge, words, t, self.context.lexicon_name)

    def _late_words(self, words: list[str]) -> list[str]:
        """The typed ``words`` that belong to a play made before the one open to challenge (its
        window closed when the next move was made), when the open play is on the record."""
        open_words = set(self._last_words())
        if not open_words:
            return []  # the play was not recorded: the words are judged as typed
        moves = self.record.moves
        old: set[str] = set()
        last = self.record.last_play()
        for i, m in enumerate(moves):
            taken_back = i + 1 < len(moves) and moves[i + 1].kind == "phony"
            if m.kind == "play" and m is not last and not taken_back:
                old.update(w["word"].upper() for w in m.words)
        return [w.upper() for w in words if w.upper() not in open_words and w.upper() in old]

    def challengeable(self) -> bool:
        """True while the player on move can still challenge the turn just ended (the clock's
        window, see :attr:`TournamentClock.challengeable`) and that turn, if recorded, was a
        play (a pass or an exchange holds nothing to challenge)."""
        clock = self.clock
        if not clock.challengeable or clock.mover is None:
            return False
        if self._recorded_turn == clock.moves_completed and self.record.moves:
            last = self.record.moves[-1]
            return last.kind == "play" and last.player == opponent(clock.mover)
        return True

    def _last_words(self) -> list[str]:
        last = self.record.last_play()
        if last is None or last.player == self.clock.mover:
            return []
        return [w["word"].upper() for w in last.words]

    def _say(self, text: str, t: float) -> None:
        self.notice, self.notice_at = text, t
        self.notice_for = _notice_seconds(text)
        self.shown_since = t  # a notice longer than the line is shown in turns from now

    # -- events -> state ---------------------------------------------------------------------------

    def apply(self, event: dict) -> Effects:
        """Apply one journaled event (press, entry, challenge_button, words, override, confirm,
        cancel, pause, resume, restart, end, scores)."""
        kind = event.get("kind")
        t = float(event["t"])
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise ModeError(f"event {event!r}: unknown kind {kind!r} for the crossword game")
        effects = self.advance(t)
        effects += handler(t, event) or Effects()
        self.shown_since = t
        return effects

    def _on_press(self, t: float, ev: dict) -> Effects | None:
        role = ev["role"]
        if self.phase is not None:
            return None
        mover = self.clock.mover
        notes = self.clock.press(role, t)
        if any(n.startswith("turn ") for n in notes) and mover is not None:
            self.notice = ""  # what was said of the turn that ended (a refused entry) is past
            before = len(self.record.moves)
            self._record_pending(mover)
            recorded = len(self.record.moves) > before
            self.turns.append(
                {
                    "turn": self.clock.moves_completed,
                    "player": mover,
                    "recorded": recorded,
                    "board": recorded,
                    "moves": len(self.record.moves),
                    "challenges": len(self.challenges),
                }
            )
        return None

    def _record_pending(self, player: str) -> None:
        move, self.pending = self.pending, None
        if move is None or move.get("player") != player:
            return
        self._recorded_turn = self.clock.moves_completed
        try:
            self._record_move(player, move["move"])
        except RecordError as exc:  # the board changed since it was typed (a challenge)
            self.notice = f"not recorded: {exc}"

    def _record_move(self, player: str, m: dict, play_note: str = "") -> None:
        """Record ``player``'s typed move ``m`` (an entry's ``move``: a play, with ``play_note``
        as its note, a pass or an exchange).

        Raises:
            RecordError: the record refuses it (the board changed since it was typed)."""
        if m["kind"] == "play":
            self.record.play(player, m["position"], m["word"], note=play_note)
        elif m["kind"] == "pass":
            self.record.pass_turn(player)
        else:
            self.record.exchange(player, m["tiles"])

    def _recorded_in_place(self, entry: dict) -> None:
        """``entry``'s turn (of :attr:`turns`) now has its move on the record, recorded after
        the press: the turns that ended since count it before theirs."""
        entry["recorded"] = entry["board"] = True
        at = next(i for i, e in enumerate(self.turns) if e is entry)
        for e in self.turns[at:]:  # a late move goes before the turns that ended since
            e["moves"] += 1
        if entry["turn"] == self.clock.moves_completed:
            self._recorded_turn = self.clock.moves_completed

    def _on_camera_play(self, t: float, ev: dict) -> None:
        """The camera's move for the turn it was read after (``turn``; a journal of before
        had none: the turn just ended), see :meth:`_camera_event`. A move that can no longer
        be recorded says so."""
        clock = self.clock
        player = ev["player"]
        entry, why = self._camera_turn(player)
        if entry is None or entry["turn"] != ev.get("turn", clock.moves_completed):
            if entry is not None or why:
                self._say(why or f"{player.upper()}'S MOVE NOT RECORDED: camera read too late", t)
            return
        try:
            self.record.play(player, ev["position"], ev["word"], note="read by the camera")
        except RecordError as exc:
            self._say(f"camera move not recorded: {exc}", t)
            return
        self._recorded_in_place(entry)

    def _on_late_entry(self, t: float, ev: dict) -> None:
        """A move typed for the last turn of the player who pressed (:meth:`_late_entry`),
        recorded in its place; one that can no longer be says so."""
        player, m = ev["player"], ev["move"]
        entry, why = self._camera_turn(player)
        if entry is None or entry["turn"] != ev["turn"]:
            self._say(why or f"{player.upper()}'S MOVE NOT RECORDED: typed too late", t)
            return
        try:
            self._record_move(player, m, play_note="typed after the press")
        except RecordError as exc:
            self._say(f"not recorded: {exc}", t)
            return
        self._recorded_in_place(entry)
        self.notice = ""

    def _on_camera_no_tile(self, t: float, ev: dict) -> None:
        """The camera saw no tile laid in the turn (a pass or an exchange not typed): the
        record's board is the board after it, so the next turn's reading can be taken."""
        entry, _ = self._camera_turn(ev["player"])
        if entry is not None and entry["turn"] == ev["turn"]:
            entry["board"] = True

    def _on_entry(self, t: float, ev: dict) -> None:
        if ev["player"] == self.clock.mover:
            self.pending = {"player": ev["player"], "move": dict(ev["move"])}

    def _on_challenge_button(self, t: float, ev: dict) -> None:
        status = self.clock.status
        if self.phase is None:
            if status == Status.PAUSED:
                self.restarted = False
                self.clock.resume(t)
                return
            challenger = self.clock.mover
            if challenger is None:
                return
            # refused before the journal now (decide); a journal of before still holds such
            # presses: the clock is not held, and the screen says why as it did then
            why = self._challenge_refused(t)
            if why:
                self._say(why, t)
                return
            self.clock.challenge(challenger, t)
            if self.clock.status == Status.CHALLENGE:
                self.phase = PHASE_WORDS
                self.challenge = {
                    "challenger": challenger,
                    "challenged": opponent(challenger),
                    "started_at": t,
                }
            else:
                self._say("Nothing to challenge yet", t)
            return
        if self.phase == PHASE_WORDS:
            self._settle(t, None, "called off")
            return
        if status == Status.PAUSED:
            self.restarted = False
            self.clock.resume(t)
            return
        self._on_confirm(t, ev)

    def _on_words(self, t: float, ev: dict) -> Effects | None:
        if self.phase != PHASE_WORDS or self.challenge is None:
            return
        # no lexicon checked them (unchecked_event): shown ACCEPTABLE, the arbiter rules
        unchecked = str(ev.get("unchecked") or "")
        verdict = Verdict.REJECTED if ev["valid"] or unchecked else Verdict.SUSTAINED
        self.challenge.update(
            words=list(ev["words"]),
            per_word=dict(ev.get("per_word", {})),
            lexicon=str(ev.get("lexicon", "")),
            verdict=str(verdict),
            overridden=False,
            verdict_at=t,
            judged_by="arbiter" if unchecked else "lexicon",
        )
        self.phase = PHASE_VERDICT
        if not unchecked:
            return None
        self.challenge["unchecked"] = unchecked
        return Effects(say=ARBITER_RULES.format(reason=unchecked))

    def _on_override(self, t: float, ev: dict) -> None:
        c = self.challenge
        if self.phase == PHASE_WORDS and c is not None:  # no lexicon: the arbiter rules
            c.update(words=[], verdict=str(Verdict.SUSTAINED), overridden=True, verdict_at=t)
            self.phase = PHASE_VERDICT
            return
        if self.phase != PHASE_VERDICT or c is None:
            return
        c["verdict"] = str(
            Verdict.SUSTAINED if c["verdict"] == Verdict.REJECTED else Verdict.REJECTED
        )
        if not c.get("unchecked"):  # a verdict no lexicon gave is the arbiter's: none overridden
            c["overridden"] = not c.get("overridden")
        c["verdict_at"] = t

    def _on_confirm(self, t: float, ev: dict) -> None:
        if self.phase != PHASE_VERDICT or self.challenge is None:
            return
        if self.clock.status == Status.PAUSED:
            return
        self._settle(t, self.challenge["verdict"], "ruled")

    def _settle(self, t: float, verdict: str | None, outcome: str) -> None:
        c = self.challenge
        assert c is not None
        if verdict is None and self.clock.status == Status.PAUSED:
            # called off while paused in it: paused still, the challenger's clock to run on
            # at the resume (the clock itself calls off only a challenge holding the clocks)
            self.clock.resume(t)
            self.clock.call_off(t)
            self.clock.pause(t)
        elif verdict is None:  # called off: the challenger's clock runs on as before
            self.clock.call_off(t)
        else:
            self.clock.rule(verdict, t)
            challenger, challenged = c["challenger"], c["challenged"]
            last = self.record.moves[-1] if self.record.moves else None
            if verdict == Verdict.SUSTAINED:
                if last is not None and last.kind == "play" and last.player == challenged:
                    self.record.take_back("challenged off")
                turn = self.turns[-1] if self.turns else None
                if turn is not None and turn["player"] == challenged:
                    turn["recorded"] = turn["board"] = True  # its tiles came off: nothing to read
            elif self.clock.challenge_rule == "double":
                self.record.pass_turn(challenger, note="lost turn: wrong challenge (double)")
            elif self.challenge_points:
                self.record.challenge_bonus(challenged, self.challenge_points)
        c.update(outcome=outcome, ruled_at=t)
        self.challenges.append(dict(c))
        self.challenge, self.phase = None, None

    def _on_too_late(self, t: float, ev: dict) -> Effects | None:
        """Words typed in a challenge that belong to a play whose window has closed: no
        challenge; the clock runs as if never held and the screen says TOO LATE TO CHALLENGE."""
        c = self.challenge
        if self.phase != PHASE_WORDS or c is None:
            return None
        notes = self.clock.void(t)
        words = [str(w).upper() for w in ev["words"]]
        c.update(words=words, outcome="too late", ruled_at=t)
        self.challenges.append(dict(c))
        self.challenge, self.phase = None, None
        self._say("TOO LATE TO CHALLENGE " + " ".join(words), t)
        beeps = sum(1 for n in notes if n.startswith(("overtime", "minute")))
        return Effects(beeps=beeps)

    def _on_cancel(self, t: float, ev: dict) -> None:
        if self.phase == PHASE_WORDS:
            self._settle(t, None, "called off")
        elif self.pending is not None:
            self.pending = None

    def _on_pause(self, t: float, ev: dict) -> None:
        self.clock.pause(t)

    def _on_resume(self, t: float, ev: dict) -> None:
        self.restarted = False
        self.clock.resume(t)

    def _on_restart(self, t: float, ev: dict) -> None:
        if self.clock.status in (Status.RUNNING, Status.CHALLENGE):
            self.clock.pause(t)
        self.restarted = self.clock.status == Status.PAUSED

    def _on_end(self, t: float, ev: dict) -> Effects:
        self.phase = self.challenge = None
        self.clock.end(t)
        racks = {c: str(ev["racks"].get(c, "")) for c in ("blue", "red")}
        self.record.end(racks, ev.get("went_out"))
        self._penalties()
        return Effects(long_beep=True, finished=True)

    def _on_scores(self, t: float, ev: dict) -> Effects:
        self.phase = self.challenge = None
        self.clock.end(t)
        self.final_scores = {c: int(ev[c]) for c in ("blue", "red")}
        self.record.finished = True
        self._penalties()
        return Effects(long_beep=True, finished=True)

    def _penalties(self) -> None:
        for colour in ("blue", "red"):
            points = self.clock.penalty(colour)
            if points:
                self.record.time_penalty(colour, points)

    # -- time --------------------------------------------------------------------------------------

    def advance(self, t: float) -> Effects:
        """Let the clocks run to ``t``: a beep when a clock passes zero and at each further minute
        of overtime."""
        last = self.clock.last_t
        notes = self.clock.advance(t if last is None else max(t, last))
        return Effects(beeps=len(notes))

    def next_deadline(self) -> float | None:
        """When the running clock next passes zero or a whole minute of overtime."""
        return self.clock.next_deadline()

    def running(self) -> bool:
        """True while a clock runs (the service writes heartbeats)."""
        return self.clock.status == Status.RUNNING

    def game_clock(self) -> TournamentClock:
        """The tournament clock (:class:`ClockedMode`: the game's start, end and restart)."""
        return self.clock

    # -- results -----------------------------------------------------------------------------------

    def scores(self) -> dict[str, int]:
        """Both scores now: the record's (overtime penalties included once the game is over), or
        the typed final scores less the overtime penalties."""
        if self.final_scores is not None:
            return {c: self.final_scores[c] - self.clock.penalty(c) for c in ("blue", "red")}
        return self.record.scores

    def result(self) -> dict:
        """The result for the game's record: ``scores`` by colour (the director's spread is their
        difference), ``winner``/``loser`` or ``draw``, the overtime penalties and the whole
        ``game_record`` (``companion scrabble gcg`` writes it as GCG)."""
        scores = self.scores()
        winner = loser = None
        draw = False
        if self.finished:
            if scores["blue"] == scores["red"]:
                draw = True
            else:
                winner = "blue" if scores["blue"] > scores["red"] else "red"
                loser = opponent(winner)
        return {
            "game": "scrabble",
            "scores": scores,
            "winner": winner,
            "loser": loser,
            "draw": draw,
            "how": "final scores" if self.finished else None,
            "overtime_penalty": {c: self.clock.penalty(c) for c in ("blue", "red")},
            "time_left": {c: round(self.clock.time_left(c), 3) for c in ("blue", "red")},
            "moves_completed": self.clock.moves_completed,
            "challenges": list(self.challenges),
            "game_record": self.record.to_json(),
            "blue": self.context.table.blue,
            "red": self.context.table.red,
            "table": self.context.table.number,
        }

    def state(self, t: float) -> dict:
        """The clock as ``companion clock replay --game scrabble`` prints it, plus the scores,
        the challenge phase and the last move."""
        snap = self.clock.snapshot(max(t, self.clock.last_t or t))
        snap["scores"] = self.scores()
        snap["challenge_phase"] = self.phase
        snap["challengeable"] = self.challengeable()
        snap["board"] = self.record.to_json()["board"]
        last = self.record.moves[-1].to_json() if self.record.moves else None
        snap["last_move"] = last
        snap["moves"] = [
            {k: v for k, v in m.to_json().items() if k not in ("words", "rack")}
            for m in self.record.moves
        ]
        return snap

    # -- what the table shows ----------------------------------------------------------------------

    def view(self, t: float) -> View:
        """The OLED frame (both times, overtime with a minus sign, the scores, the last move or
        the challenge), the LEDs and the prompt."""
        table = self.context.table
        clock = self.clock
        now = max(t, clock.last_t or t)
        notice = self.notice if self.notice and t - self.notice_at < self.notice_for else ""
        last = self.record.moves[-1] if self.record.moves else None
        pending = self.pending["move"] if self.pending else None
        data = {
            "title": tournament_title(table, "SCRABBLE"),
            "names": {"blue": table.blue, "red": table.red},
            "times": {c: _clock_text(clock.time_left(c, now)) for c in ("blue", "red")},
            "scores": self.scores(),
            "mover": clock.mover,
            "status": str(clock.status),
            "phase": self.phase,
            "notice": notice,
            "line": _move_text(pending, last),
            "open": self.challengeable(),
            "restarted": self.restarted,
            "turn": screen.turn_at(t, self.shown_since),
        }
        if self.phase is not None and self.challenge is not None:
            c = self.challenge
            data["challenger"] = c["challenger"]
            data["verdict"] = c.get("verdict")
            data["lexicon"] = NO_LEXICON if c.get("unchecked") else c.get("lexicon", "")
        prompt = None
        if self.phase == PHASE_WORDS:
            prompt = "Challenged words (Enter alone: the words of the play), then Enter"
        elif clock.status in (Status.RUNNING, Status.PAUSED) and self.phase is None:
            prompt = "The move (8D JETON, pass, exchange ABC), 'end RACK', or 'scores B R'"
        key = tuple(sorted((k, repr(v)) for k, v in data.items()))
        lights = {"blue": False, "red": False}
        if clock.status == Status.READY:
            lights = {"blue": True, "red": True}
        elif clock.mover and clock.status != Status.FINISHED:
            lights[clock.mover] = True
        redraw = now + 1.0 - (now % 1.0) if clock.status == Status.RUNNING else None
        nxt = screen.next_turn_at(t, self.shown_since)
        redraw = nxt if redraw is None else min(redraw, nxt)
        return View(
            frame=_frame(data),
            lights=lights,
            disc_minutes=None,
            prompt=prompt,
            status=f"challenge:{self.phase}" if self.phase else str(clock.status),
            redraw_at=redraw,
            key=key,
        )


def _notice_seconds(text: str) -> float:
    """How long a notice stays on the bottom line: :data:`NOTICE_SECONDS`, or every turn of a
    text too long for one line at the 128-pixel screen (TOO LATE TO / CHALLENGE / REDYEING)."""
    from PIL import Image, ImageDraw

    draw = ImageDraw.Draw(Image.new("1", (128, 64)))
    turns = screen.turns_needed(draw, (0, 44, 127, 63), text, False)
    return max(NOTICE_SECONDS, turns * screen.TURN_SECONDS)


def _clock_text(left: float) -> str:
    """A clock as shown: ``24:59`` counting down, ``-1:05`` in overtime (whole seconds; a
    clock counting down shows a second until it is over, overtime from its first second)."""
    import math

    if left > 0:
        s = math.ceil(left - 1e-9)
        return f"{s // 60}:{s % 60:02d}"
    s = math.floor(-left + 1e-9)
    return f"-{s // 60}:{s % 60:02d}"


def _move_text(pending: dict | None, last) -> str:
    if pending:
        if pending["kind"] == "play":
            return f"{pending['word'].upper()} {pending['score']}? press"
        return f"{pending['kind'].upper()}? press"
    if last is None:
        return ""
    if last.kind == "play":
        return f"{last.word} {last.score}"
    return {"pass": "PASS", "exchange": "EXCHANGE", "phony": "TAKEN BACK"}.get(
        last.kind, f"{last.kind.upper()} {last.score:+d}"
    )


def _frame(data: dict):
    def frame(draw, width, height):
        half = width // 2
        turn = data["turn"]
        if data["phase"] == PHASE_VERDICT:
            ok = data.get("verdict") == Verdict.REJECTED
            screen.fitted(draw, (0, 0, width - 1, 33), "ACCEPTABLE" if ok else "NOT ACCEPTABLE", 24)
            screen.fitted(draw, (0, 34, width - 1, 48), data.get("lexicon") or "", 14, False)
            screen.fitted(draw, (0, 49, width - 1, height - 1), "CHALLENGE: settle", 14, False)
            return
        if data["phase"] == PHASE_WORDS:
            who = (data.get("challenger") or "").upper()
            screen.inverted(draw, (0, 0, width - 1, 15), f"{who} CHALLENGES", 15, turn=turn)
            screen.fitted(draw, (0, 16, width - 1, 47), "Type the words, then Enter", 14)
            foot = data["notice"] or "CHALLENGE again: call off"
            screen.fitted(draw, (0, 48, width - 1, height - 1), foot, 14, False, turn=turn)
            return
        for colour, x0, x1 in (("blue", 0, half - 2), ("red", half + 1, width - 1)):
            label = f"{colour.upper()} {data['scores'][colour]}"
            if data["mover"] == colour and data["status"] != "finished":
                screen.inverted(draw, (x0, 0, x1, 12), label)
            else:
                screen.fitted(draw, (x0, 0, x1, 12), label, largest=13)
            screen.fitted(draw, (x0, 14, x1, 40), data["times"][colour], largest=24)
        foot = data["notice"] or data["line"] or data["title"]
        if data["open"] and not data["notice"] and turn % 2:  # the play just made, in turns
            foot = "CAN BE CHALLENGED"
        if data["status"] == "paused":
            foot = "PAUSED RESTARTED" if data["restarted"] else "PAUSED"
        elif data["status"] == "challenge":
            foot = "CHALLENGE"
        elif data["status"] == "finished":
            s = data["scores"]
            foot = (
                "DRAW"
                if s["blue"] == s["red"]
                else ("BLUE WINS" if s["blue"] > s["red"] else "RED WINS")
            )
        elif data["status"] == "ready":
            foot = data["notice"] or "WHO GOES SECOND PRESSES TO START"
        screen.fitted(draw, (0, 44, width - 1, height - 1), foot, 14, False, turn=turn)

    return frame
