"""The Iota scorekeeper as a game mode of the table service (``companion sim --game iota``,
``[table] game = "iota"``). See docs/daemon.md for the mode interface, docs/iota.md for its use.

At the table (inputs -> events, every event journaled before it takes effect):

1. type the players' names in turn order, 2 to 4, separated by spaces or commas (the youngest
   first, then to the left: "permitiremos que empiece la persona más pequeña, siguiendo el juego
   hacia la izquierda");
2. type the card turned up to start the table (``RT2``); it lies at row 0, column 0;
3. each turn, the player on turn types his play, ``CARD@ROW,COLUMN`` items (``GC2@0,1 BX2@0,2``),
   or ``pass`` / ``pass N`` (exchanging N cards). The screen shows the play's score or why it is
   illegal (an illegal entry changes nothing). He then presses his button to end the turn: with
   two players the first player's button is blue and the second's red; with three or four players
   either button ends the turn of the player on turn (a 2-button box passes the turn round the
   table). A turn is passed by saying so (``pass``), or by confirming: a press (or an empty
   Enter) with nothing typed asks "PASS?" and passes (without exchange) only when the next input is
   another press or empty Enter; anything else plays on. ``cancel`` (or the challenge button)
   drops the typed entry before the press; ``confirm`` (Enter in the simulator) ends the turn like
   a press;
4. ``undo`` (typed) takes back the last turn; ``end`` (typed) asks "end the game by agreement?":
   ``yes`` (or ``end`` again, or an empty Enter) ends it, anything else plays on; ``end!`` ends it
   at once;
5. the game ends when a player lays his last card with the pile empty (that turn doubles) or when
   every player passes in a row with the pile empty; the OLED shows the winner and the service
   saves the record (data_dir()/records/).
"""

from __future__ import annotations

import copy
import re

from companion.daemon import screen
from companion.daemon.modes import (
    Command,
    Effects,
    GameMode,
    Input,
    Line,
    ModeContext,
    ModeError,
    Press,
    View,
    tournament_pair,
    tournament_title,
)
from companion.games.iota.cards import IotaNotationError, parse_card
from companion.games.iota.scorekeeper import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    IllegalPlay,
    IotaGameError,
    Scorekeeper,
    check_players,
    format_placements,
    parse_placements,
)

PHASE_PLAYERS, PHASE_START, PHASE_GAME = "players", "start", "game"
_PASS = re.compile(r"^pass(?:\s+([0-9]{1,3}))?$", re.IGNORECASE)  # ASCII digits only
_OTHER_ENTRIES = "or 'pass', 'pass N' (exchanging N cards), 'cancel', 'undo', 'end'"
END_QUESTION = "End the game by agreement? 'yes' or Enter ends it; anything else plays on"
PASS_QUESTION = "Nothing typed: pass? Press again (or Enter) to pass; or type a play"
NOTICE_SECONDS = 6.0


class IotaMode(GameMode):
    """Keeps score of an Iota game at the table. See the module docstring."""

    name = "iota"

    def __init__(self, context: ModeContext) -> None:
        super().__init__(context)
        self.players: list[str] = []
        self.keeper: Scorekeeper | None = None
        self.entries: list[dict] = []  # the confirmed turns, for undo
        self.pending: dict | None = None  # the typed entry waiting for the press
        self.pending_summary = ""
        self.last_summary = ""
        self.notice = ""
        self.notice_at = 0.0
        self.end_asked = False  # 'end' was typed: the next input answers the question
        self.pass_asked = False  # a press or Enter with nothing typed: the next one passes
        self._passing = False  # (in decide) this input answers the pass question

    # -- inputs -> events -----------------------------------------------------------------------

    def decide(self, inp: Input) -> list[dict]:
        """Typed lines, presses and commands become events.

        Raises:
            IotaNotationError, IotaGameError: a bad entry (it makes no event; the game is
                unchanged; the reason is shown on the OLED and by the service).
        """
        t = float(inp.t)
        self.notice = ""
        asked, self.end_asked = self.end_asked, False
        self._passing, self.pass_asked = self.pass_asked, False
        if asked and (
            (isinstance(inp, Line) and inp.text.strip().lower() in ("yes", "y", "end", "end!"))
            or (isinstance(inp, Command) and inp.name == "confirm")
        ):
            return [{"t": t, "kind": "end"}]
        try:
            if isinstance(inp, Line):
                return self._decide_line(inp.text.strip(), t)
            if isinstance(inp, Press):
                return self._decide_press(inp.role, t)
            if isinstance(inp, Command):
                return self._decide_command(inp.name, t)
        except (IotaNotationError, IotaGameError) as exc:
            self._say(str(exc), t)  # on the OLED; the service shows the message too
            raise
        raise ModeError(f"input {inp!r} is not a press, a line or a command")

    def _decide_line(self, text: str, t: float) -> list[dict]:
        if self.keeper is None:
            if not self.players:
                typed = [n for n in re.split(r"[\s,]+", text) if n]
                # nothing typed at a tournament's table: the round's two players
                names = check_players(typed or tournament_pair(self.context.table) or [])
                return [{"t": t, "kind": "players", "names": names}]
            card = parse_card(text, "the starting card")
            return [{"t": t, "kind": "start", "card": str(card)}]
        word = text.lower()
        if word == "undo":
            if not self.entries:
                raise IotaGameError("nothing to undo: no turn was played yet")
            return [{"t": t, "kind": "undo"}]
        if word == "end!":
            return [{"t": t, "kind": "end"}]
        if word == "end":
            self.end_asked = True
            self._say(END_QUESTION, t)
            return []
        if word == "cancel":
            return self._decide_command("cancel", t)
        m = _PASS.match(text)
        if m:
            exchange = int(m.group(1) or 0)
            self._trial(self.keeper, {"pass": exchange})
            return [{"t": t, "kind": "entry", "pass": exchange}]
        if word.split()[:1] == ["pass"]:
            raise IotaNotationError(
                f"{text!r} is not a pass; accepted: 'pass', or 'pass N' with N the number of "
                "cards exchanged with the pile (e.g. 'pass 2')"
            )
        try:
            placements = parse_placements(text)
        except IotaNotationError as exc:
            raise IotaNotationError(f"{exc}; {_OTHER_ENTRIES}") from None
        self._trial(self.keeper, {"play": format_placements(placements)})
        return [{"t": t, "kind": "entry", "play": format_placements(placements)}]

    def _decide_press(self, role: str, t: float) -> list[dict]:
        if self.keeper is None:
            raise IotaGameError("type the players' names, then the starting card")
        if role == "challenge":
            return [{"t": t, "kind": "cancel"}] if self.pending else []
        if len(self.players) == 2:
            owner = self.players[0] if role == "blue" else self.players[1]
            if owner != self.keeper.current:
                raise IotaGameError(f"it is {self.keeper.current}'s turn, not {owner}'s")
        if self.pending is None and not self._ask_pass(t):
            return []
        return [{"t": t, "kind": "confirm", "role": role}]

    def _ask_pass(self, t: float) -> bool:
        """Nothing typed: True when this press or Enter confirms the pass asked just before,
        else the question is asked (PASS?) and False."""
        assert self.keeper is not None
        self._trial(self.keeper, {"pass": 0})
        if self._passing:
            return True
        self.pass_asked = True
        self._say(PASS_QUESTION, t)
        return False

    def _decide_command(self, name: str, t: float) -> list[dict]:
        if name == "cancel":
            return [{"t": t, "kind": "cancel"}] if self.pending else []
        if name == "confirm":
            pair = tournament_pair(self.context.table)
            if not self.players and pair:  # Enter at a tournament's table: the round's players
                return [{"t": t, "kind": "players", "names": check_players(pair)}]
            if self.keeper is None:
                raise IotaGameError("type the players' names, then the starting card")
            if self.pending is None and not self._ask_pass(t):
                return []
            return [{"t": t, "kind": "confirm", "role": "arbiter"}]
        raise IotaGameError(
            f"command {name!r}: Iota takes confirm and cancel (and typed undo, end)"
        )

    @staticmethod
    def _trial(keeper: Scorekeeper, entry: dict) -> None:
        """Raise if ``entry`` cannot be taken now (tried on a copy of the game)."""
        _take(copy.deepcopy(keeper), entry)

    def _say(self, text: str, t: float) -> None:
        self.notice, self.notice_at = text, t

    # -- events -> state ------------------------------------------------------------------------

    def apply(self, event: dict) -> Effects:
        """Apply one journaled event (kinds: players, start, entry, cancel, confirm, undo, end)."""
        kind = event.get("kind")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise ModeError(f"event {event!r}: unknown kind {kind!r} for Iota")
        return handler(event) or Effects()

    def _on_players(self, ev: dict) -> None:
        self.players = [str(n) for n in ev["names"]]

    def _on_start(self, ev: dict) -> None:
        self.keeper = Scorekeeper(self.players, parse_card(ev["card"]))
        self.entries = []

    def _on_entry(self, ev: dict) -> None:
        keeper = self._keeper(ev)
        self.pending = {k: ev[k] for k in ("play", "pass") if k in ev}
        self.pending_summary = self._preview(keeper, self.pending)

    def _on_cancel(self, ev: dict) -> None:
        self.pending, self.pending_summary = None, ""

    def _on_confirm(self, ev: dict) -> Effects:
        keeper = self._keeper(ev)
        entry = self.pending or {"pass": 0}
        player = keeper.current
        try:
            summary = _take(keeper, entry)
        except (IotaGameError, IotaNotationError) as exc:
            raise ModeError(f"event {ev!r}: {exc}") from None
        self.entries.append(entry)
        self.pending, self.pending_summary = None, ""
        self.last_summary = f"{player}: {summary}"
        if keeper.finished:
            return Effects(long_beep=True, finished=True)
        return Effects(beeps=1)  # the turn is taken: one short beep

    def _on_undo(self, ev: dict) -> None:
        keeper = self._keeper(ev)
        if not self.entries:
            return
        self.entries.pop()
        self.keeper = _replay_keeper(keeper.players, keeper.starting_card, self.entries)
        self.pending, self.pending_summary = None, ""
        self.last_summary = "last turn taken back"

    def _on_end(self, ev: dict) -> Effects:
        self._keeper(ev).end()
        return Effects(long_beep=True, finished=True)

    def _keeper(self, ev: dict) -> Scorekeeper:
        if self.keeper is None:
            raise ModeError(f"event {ev!r}: the game has not started (no starting card)")
        return self.keeper

    def _preview(self, keeper: Scorekeeper, entry: dict) -> str:
        if "pass" in entry:
            n = entry["pass"]
            return f"pass, exchange {n}" if n else "pass"
        placements = parse_placements(entry["play"])
        last = keeper.would_be_last_card(len(placements))
        from companion.games.iota.rules import play_cards

        result = play_cards(keeper.grid, placements, last_card=last)
        return _describe(result.score, result.doublings)

    # -- the game's life ------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """True once the players are named."""
        return bool(self.players)

    @property
    def finished(self) -> bool:
        """True once the game is over."""
        return self.keeper is not None and self.keeper.finished

    def result(self) -> dict:
        """The game's record: set-up, every turn, totals, winners (see Scorekeeper.record)."""
        if self.keeper is None:
            return {"game": "iota", "players": list(self.players), "finished": False}
        return {**self.keeper.record(), "table": self.context.table.number}

    def state(self, t: float) -> dict:
        """The game as JSON-ready data (the simulator's ``state`` prints it)."""
        phase = self._phase()
        out: dict = {"game": "iota", "phase": phase, "players": list(self.players)}
        if self.keeper is not None:
            out.update(self.keeper.snapshot())
        out["pending"] = self.pending
        out["last_turn"] = self.last_summary
        out["notice"] = self.notice
        return out

    def _phase(self) -> str:
        if not self.players:
            return PHASE_PLAYERS
        if self.keeper is None:
            return PHASE_START
        return "finished" if self.keeper.finished else PHASE_GAME

    # -- what the table shows -------------------------------------------------------------------

    def view(self, t: float) -> View:
        """The OLED: the scores with the player on turn marked, the pile, the entry's score."""
        phase = self._phase()
        notice = self.notice if self.notice and t - self.notice_at < NOTICE_SECONDS else ""
        redraw_at = self.notice_at + NOTICE_SECONDS if notice else None
        if self.end_asked:  # the question stays until it is answered
            notice, redraw_at = "END GAME? yes / Enter", None
        elif self.pass_asked:
            notice, redraw_at = "PASS? press again", None
        # a text too long for its line is shown in turns: draw again when the turn changes
        since = self.notice_at if notice else 0.0
        turn = screen.turn_at(t, since)
        redraw_at = min(x for x in (redraw_at, screen.next_turn_at(t, since)) if x is not None)
        keeper = self.keeper
        lights = {"blue": False, "red": False}
        table = self.context.table
        title = tournament_title(table, "IOTA")
        pair = tournament_pair(table)
        if phase == PHASE_PLAYERS and pair:
            frame = _setup_frame(title, f"Enter: {pair[0]} & {pair[1]}", notice, turn)
            frame = screen.with_qr_page(frame, table.page, f"TABLE {table.number}", turn)
            prompt = (
                f"Enter for the round's players, {pair[0]} then {pair[1]} (or type 2 to 4 "
                "names in turn order)"
            )
        elif phase == PHASE_PLAYERS:
            frame = _setup_frame(
                title, f"Type {MIN_PLAYERS}-{MAX_PLAYERS} players' names", notice, turn
            )
            prompt = "Players in turn order (2 to 4 names, spaces between), then Enter"
        elif phase == PHASE_START:
            frame = _setup_frame(title, "Type the card turned up", notice, turn)
            prompt = "The starting card turned up from the pile (e.g. RT2), then Enter"
        else:
            assert keeper is not None
            data = {
                "players": list(keeper.players),
                "scores": dict(keeper.scores),
                "current": None if keeper.finished else keeper.current,
                "pile": keeper.pile,
                "winners": keeper.winners,
                "line": notice or self.pending_summary or self.last_summary,
                "pending": self.pending is not None,
                "turn": turn,
            }
            frame = _score_frame(data)
            prompt = None
            if not keeper.finished:
                if self.end_asked:
                    prompt = END_QUESTION
                elif self.pass_asked:
                    prompt = PASS_QUESTION
                elif self.pending is None:
                    prompt = (
                        f"{keeper.current}: play CARD@ROW,COL ... (the starting card is at 0,0) "
                        "or 'pass [N]', then Enter; 'undo' takes back a turn, 'end' ends the "
                        "game (asks first)"
                    )
                else:
                    prompt = (
                        f"{keeper.current}: {self.pending_summary}. The player's button (or an "
                        "empty Enter) ends the turn; type another play to replace it, 'cancel' "
                        "to drop it"
                    )
                if len(keeper.players) == 2:
                    lights["blue" if keeper.turn == 0 else "red"] = True
                else:
                    lights = {"blue": True, "red": True}
        return View(frame=frame, lights=lights, prompt=prompt, status=phase, redraw_at=redraw_at)


# --- helpers ------------------------------------------------------------------------------------


def _take(keeper: Scorekeeper, entry: dict) -> str:
    """Apply an entry (``{"play": text}`` or ``{"pass": n}``) to ``keeper``; a summary."""
    if "pass" in entry:
        keeper.pass_turn(int(entry["pass"]))
        n = int(entry["pass"])
        return f"pass, exchange {n}" if n else "pass"
    try:
        result = keeper.play(entry["play"])
    except IllegalPlay as exc:
        raise IotaGameError(
            "illegal: " + "; ".join(v.message for v in exc.result.violations)
        ) from None
    return _describe(result.score, result.doublings)


def _replay_keeper(players, starting_card, entries: list[dict]) -> Scorekeeper:
    keeper = Scorekeeper(list(players), starting_card)
    for entry in entries:
        _take(keeper, entry)
    return keeper


def _describe(score: int, doublings: list[str]) -> str:
    words = {"lot": "lot", "all-four-cards": "4 cards", "last-card": "last card"}
    why = ", ".join(words.get(d, d) for d in doublings)
    return f"+{score}" + (f" ({why} x{2 ** len(doublings)})" if doublings else "")


def _setup_frame(title: str, line: str, notice: str, turn: int = 0):
    def frame(draw, width, height):
        screen.inverted(draw, (0, 0, width - 1, 15), title, largest=16)
        if notice:
            screen.fitted(draw, (0, 16, width - 1, 31), line, 14, turn=turn)
            screen.fitted(draw, (0, 32, width - 1, height - 1), notice, 14, False, turn=turn)
        else:
            screen.fitted(draw, (0, 16, width - 1, 47), line, 14, turn=turn)

    return frame


def _score_frame(data: dict):
    """The totals, one row a player (the player on turn lit), and a foot line: the entry's score
    or the last turn's, and the pile. Two players: a head line with the pile; three or four: rows
    of 12 pixels (capitals of 10) and the pile in turns on the foot line, after the line."""

    def frame(draw, width, height):
        players = data["players"]
        turn = data["turn"]
        winners = " & ".join(data["winners"])
        head = f"WINNER {winners}" if winners else f"PILE {data['pile']}"
        line = data["line"] + ("  PRESS" if data["pending"] else "")
        if len(players) == 2:
            screen.inverted(draw, (0, 0, width - 1, 15), head, largest=14, turn=turn)
            rows, foot = [(16, 31), (32, 47)], line
        else:
            step = 48 // len(players)
            rows = [(i * step, (i + 1) * step - 1) for i in range(len(players))]
            if data["pending"]:
                # an entry waiting for the press: its line alone, in its turns, never cut into
                # pieces between the pile's (a newcomer read "pass, exchange" / PILE / "2 PRESS")
                foot = line
            else:
                # the line first: a notice or a question (PASS?) is seen at once, not after the
                # pile
                foot = (line, head)[turn % 2] if line else head
                turn //= 2
        for (top, bottom), name in zip(rows, players, strict=True):
            box = (0, top, width - 1, bottom)
            fnt = screen.font(screen.min_size(True, name), True, True, name)  # CJK names too
            _score_row(draw, box, fnt, name, data["scores"][name], name == data["current"])
        screen.fitted(draw, (0, 48, width - 1, height - 1), foot, 14, bold=False, turn=turn)

    return frame


def _score_row(draw, box, fnt, name: str, score: int, on_turn: bool) -> None:
    """One player's row: the name on the left (cut to what fits), the total on the right; lit
    when on turn."""
    left, top, right, bottom = box
    ink = screen.LIT
    if on_turn:
        draw.rectangle(box, fill=screen.LIT)
        ink = 0
    total = str(score)
    room = right - left - 8 - screen.text_size(draw, total, fnt)[0]
    mark = "> " if on_turn else "  "
    shown = name
    while len(shown) > 1 and screen.text_size(draw, mark + shown, fnt)[0] > room:
        shown = shown[:-1]
    for text, align_right in ((mark + shown, False), (total, True)):
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=fnt)
        x = right - 2 - (x1 - x0) if align_right else left + 2
        asc = draw.textbbox((0, 0), "H", font=fnt)
        y = top + (bottom - top + 1 - (asc[3] - asc[1])) // 2 - asc[1]  # capitals centred
        draw.text((x - x0, y), text, font=fnt, fill=ink)
