"""The Iago differential timer as a game mode of the table service (the first mode).

Inputs and what they do (Iago rulebook, "The Timer" and "Challenge"):

- a player's button: before the game, the player who does not have the first move presses to
  start the other's move (with the colours drawn by lot, blue has the first move: blue's press
  is ignored and the ready screen says again that red presses); then the mover presses to end
  his move; a press by the other player is ignored (and journaled);
- the challenge button: the sand clock stops at once (at the instant the pin changed) and the
  screen asks who challenges: the challenger presses his own button next. Pressed again before
  that, the challenge is called off and the sand runs on (the stopped time is not charged);
- the challenged words are typed (a line: words separated by spaces); the judge rules and the
  screen shows ACCEPTABLE or NOT ACCEPTABLE in large letters with the lexicon's name, then who
  turns over three of whose tiles and, when sustained, that the board must be restored;
- the arbiter can override the verdict shown (``override``); the challenge button (or
  ``confirm``) settles it once the penalty is done: the ruling goes to the clock
  (:meth:`DifferentialTimer.rule`) and the sand runs again;
- when no lexicon can judge (the table's word list is missing or damaged, or there is none),
  the typed words still go to the verdict, not checked: the screen says NO LEXICON: ARBITER
  RULES under ACCEPTABLE, the arbiter turns it to NOT ACCEPTABLE with ``override`` and settles
  it as above; the record says ``judged_by`` ``arbiter`` and why (``unchecked``). A lexicon
  still loading is not that: the words are typed again shortly;
- the arbiter pauses and resumes; while paused, the challenge button resumes too (a box with no
  keyboard after a restart). Paused during a challenge (a restart in the middle of one), the
  words are still taken and judged (the sand stands still in a challenge anyway) and the screen
  says PAUSED; settling the verdict waits for the resume.

Every event is an input with its time; :meth:`IagoTimerMode.apply` is deterministic, so replaying
the journal rebuilds the clock exactly. The judge's answer is decided once and written into the
``words`` event.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass, field

from companion.clock.timer import (
    ChallengeRuled,
    DifferentialTimer,
    Ignored,
    LostOnTime,
    MinutePassed,
    Notice,
    Status,
    Verdict,
    opponent,
)
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
)

BAR_TOP, BAR_BOTTOM = 46, 51  # the sand bar's outline, pixel rows; it spans the screen's width
BAR_INNER = 124  # steps of the bar (its inner pixels on a 128-pixel screen)
PAGE_SECONDS = 3.0  # the verdict and the penalty alternate, each up this long (seconds)
MIN_REDRAW_SECONDS = 0.25
NOTICE_SECONDS = 2 * screen.TURN_SECONDS  # a message (a typing error) stays up this long
PHASE_WHO, PHASE_WORDS, PHASE_VERDICT = "who", "words", "verdict"
NOTHING_TO_CHALLENGE = "NOTHING TO CHALLENGE: no move completed yet, the sand runs on"


@dataclass
class ChallengeRecord:
    """One challenge, as it goes into the journal's record: times in seconds of game time."""

    started_at: float
    challenger: str | None = None
    challenged: str | None = None
    of_completed_move: bool | None = None
    words: list[str] = field(default_factory=list)
    per_word: dict[str, bool] = field(default_factory=dict)
    lexicon: str = ""
    judged_valid: bool | None = None  # the lexicon's answer; None: not judged by a lexicon
    judged_by: str = ""  # "lexicon", or "arbiter" when no lexicon could check the words
    unchecked: str = ""  # why no lexicon checked the words (the judge's message)
    verdict: str | None = None
    overridden: bool = False
    verdict_at: float | None = None
    ruled_at: float | None = None
    outcome: str = ""  # ruled, called off, nothing to challenge
    penalty: str = ""

    def to_dict(self) -> dict:
        """The record as JSON-ready data, with ``seconds`` (challenge to ruling)."""
        d = dict(self.__dict__)
        end = self.ruled_at
        d["seconds"] = None if end is None else round(end - self.started_at, 6)
        return d


class IagoTimerMode(ClockedMode):
    """Iago's differential timer with the challenge at the table. See the module docstring."""

    name = "iago"

    def __init__(self, context: ModeContext) -> None:
        super().__init__(context)
        table = context.table
        self.timer = DifferentialTimer(
            minutes=table.minutes,
            minute_seconds=table.minute_seconds,
            first_mover=first_mover(table),
        )
        self.phase: str | None = None
        self.challenge_rec: ChallengeRecord | None = None
        self.challenges: list[dict] = []
        self.restarted = False
        self.notice = ""  # a transient message for the screen (not game state)
        self.notice_at = 0.0
        self.shown_since = 0.0  # when the screen last changed by an event: texts turn from then

    # -- events ---------------------------------------------------------------------------------

    def decide(self, inp: Input) -> list[dict]:
        """Presses and commands become events; a typed line in a challenge is judged here."""
        t = float(inp.t)
        if isinstance(inp, Command):
            paused = self.timer.status == Status.PAUSED
            if inp.name == "confirm" and paused and self.phase == PHASE_VERDICT:
                raise ModeError(
                    "the clock is paused: resume it first (resume, or the challenge button), "
                    "then the verdict is settled"
                )
            self._check_something_to_do(inp.name)
        ready = self.timer.status == Status.READY and self.phase is None
        if isinstance(inp, Press) and inp.role == "challenge" and ready:
            # said and not journaled (the director's page took it for a challenge under way)
            raise NothingToDo(
                "nothing to challenge: the game has not started (the first press starts it)",
                "NOTHING TO CHALLENGE",
            )
        if isinstance(inp, (Press, Command)):
            return self.clock_event(inp, t)
        if isinstance(inp, Line):
            if self.phase != PHASE_WORDS:
                self._say("Typed words are taken during a challenge", t)
                return []
            try:
                words = split_words(inp.text)
                return [words_event(self.context.judge, words, t, self.context.lexicon_name)]
            except (ChallengeInputError, LexiconUnavailable) as exc:
                self._say(str(exc), t)
                return []
        raise ModeError(f"input {inp!r} is not a press, a line or a command")

    def _check_something_to_do(self, command: str) -> None:
        """Refuse ``override`` with no verdict on the screen, ``cancel`` (call off) outside the
        wait for the challenger's button, ``pause`` before the game has started and ``resume``
        with the clock not paused: said on the OLED, nothing journaled.

        Raises:
            NothingToDo: what there is not to act on, for the service's line and the OLED.
        """
        status = self.timer.status
        if command == "pause" and status == Status.READY:
            raise NothingToDo(
                "nothing to pause: the game has not started (the first press starts it)",
                "NOTHING TO PAUSE",
            )
        if command == "resume" and status != Status.PAUSED and self.phase is None:
            raise NothingToDo("nothing to resume: the clock is not paused", "NOTHING TO RESUME")
        if command == "override" and self.phase != PHASE_VERDICT:
            raise NothingToDo("nothing to override: no verdict is shown", "NOTHING TO OVERRIDE")
        if command == "cancel" and self.phase is None:
            raise NothingToDo(
                "nothing to call off: no challenge is under way", "NOTHING TO CALL OFF"
            )
        if command == "cancel" and self.phase != PHASE_WHO:
            raise NothingToDo(
                "too late to call off: the challenger has pressed, the challenge is ruled",
                "TOO LATE TO CALL OFF",
            )

    def slow(self, inp: Input) -> bool:
        """The challenged words are judged (the lexicon may still be opening): on a worker."""
        return isinstance(inp, Line) and self.phase == PHASE_WORDS

    def _say(self, text: str, t: float) -> None:
        self.notice, self.notice_at = text, t

    def apply(self, event: dict) -> Effects:
        """Apply one journaled event (kinds: press, challenge_button, words, override, confirm,
        cancel, pause, resume, restart)."""
        kind = event.get("kind")
        t = float(event["t"])
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise ModeError(f"event {event!r}: unknown kind {kind!r} for the Iago timer")
        effects = self.advance(t)
        effects += self._effects(handler(t, event))
        rec = self.challenge_rec
        if kind == "words" and rec is not None and rec.unchecked and rec.verdict_at == t:
            effects.say = ARBITER_RULES.format(reason=rec.unchecked)
        if self.notice == NOTHING_TO_CHALLENGE and self.notice_at == t:
            effects.say = NOTHING_TO_CHALLENGE.lower()
        self.shown_since = t
        return effects

    def _on_press(self, t: float, ev: dict) -> list[Notice]:
        role = ev["role"]
        if self.phase is None:
            ready = self.timer.status == Status.READY
            notices = self.timer.press(role, t)
            if ready and any(isinstance(n, Ignored) for n in notices):
                # the first mover pressed: the ready screen says again who presses
                self._say(f"{role.upper()} HAS THE FIRST MOVE", t)
            elif ready:  # the game starts: the ready screen's answer goes with it
                self.notice = ""
            return notices
        if self.phase == PHASE_WHO:
            return self._identify(role, t)
        return [Ignored(t, f"press {role}", f"a challenge is under way ({self.phase})")]

    def _identify(self, challenger: str, t: float) -> list[Notice]:
        rec = self.challenge_rec
        assert rec is not None
        t0 = rec.started_at
        notices = self.timer.challenge(challenger, t0)
        if any(isinstance(n, Ignored) for n in notices):
            # nothing to challenge: the sand runs on, the stopped time not charged; said on the
            # screen and the service's line, not dropped unsaid
            self._call_off(t, "nothing to challenge: no move completed yet")
            self._say(NOTHING_TO_CHALLENGE, t)
            return notices
        rec.challenger = challenger
        rec.challenged = opponent(challenger)
        rec.of_completed_move = challenger == self.timer.mover
        self.phase = PHASE_WORDS
        return notices

    def _call_off(self, t: float, outcome: str) -> None:
        rec = self.challenge_rec
        assert rec is not None
        self.timer.pause(rec.started_at)
        self.timer.resume(t)
        rec.outcome, rec.ruled_at = outcome, t
        self.challenges.append(rec.to_dict())
        self.challenge_rec, self.phase = None, None

    def _on_challenge_button(self, t: float, ev: dict) -> list[Notice]:
        status = self.timer.status
        if self.phase is None:
            if status == Status.RUNNING:
                self.challenge_rec = ChallengeRecord(started_at=t)
                self.phase = PHASE_WHO
                return []
            if status == Status.PAUSED:
                self.restarted = False
                return self.timer.resume(t)
            return [Ignored(t, "challenge button", f"the clock is {status}")]
        if self.phase == PHASE_WHO:
            self._call_off(t, "called off")
            return []
        if status == Status.PAUSED:  # paused in a challenge (a restart): resume first
            self.restarted = False
            return self.timer.resume(t)
        if self.phase == PHASE_VERDICT:
            return self._on_confirm(t, ev)
        return [Ignored(t, "challenge button", "the words are being entered")]

    def _on_words(self, t: float, ev: dict) -> list[Notice]:
        rec = self.challenge_rec
        if self.phase != PHASE_WORDS or rec is None:
            return [Ignored(t, "words", "no challenge is waiting for words")]
        rec.words = list(ev["words"])
        rec.per_word = dict(ev.get("per_word", {}))
        rec.lexicon = str(ev.get("lexicon", ""))
        rec.unchecked = str(ev.get("unchecked") or "")
        if rec.unchecked:  # no lexicon checked them: shown ACCEPTABLE, the arbiter rules
            rec.judged_by, rec.judged_valid = "arbiter", None
            rec.verdict = str(Verdict.REJECTED)
        else:
            rec.judged_by, rec.judged_valid = "lexicon", bool(ev["valid"])
            rec.verdict = str(Verdict.REJECTED if ev["valid"] else Verdict.SUSTAINED)
        rec.verdict_at = t
        self.phase = PHASE_VERDICT
        return []

    def _on_override(self, t: float, ev: dict) -> list[Notice]:
        rec = self.challenge_rec
        if self.phase != PHASE_VERDICT or rec is None:
            return [Ignored(t, "override", "no verdict is shown")]
        flipped = Verdict.SUSTAINED if rec.verdict == Verdict.REJECTED else Verdict.REJECTED
        rec.verdict = str(flipped)
        if not rec.unchecked:  # a verdict no lexicon gave is the arbiter's: nothing overridden
            rec.overridden = not rec.overridden
        rec.verdict_at = t
        return []

    def _on_confirm(self, t: float, ev: dict) -> list[Notice]:
        rec = self.challenge_rec
        if self.phase != PHASE_VERDICT or rec is None:
            return [Ignored(t, "confirm", "no verdict is shown")]
        if self.timer.status == Status.PAUSED:
            return [Ignored(t, "confirm", "the clock is paused")]
        notices = self.timer.rule(rec.verdict, t)
        for n in notices:
            if isinstance(n, ChallengeRuled):
                rec.penalty = n.penalty.describe()
        rec.outcome, rec.ruled_at = "ruled", t
        self.challenges.append(rec.to_dict())
        self.challenge_rec, self.phase = None, None
        return notices

    def _on_cancel(self, t: float, ev: dict) -> list[Notice]:
        if self.phase == PHASE_WHO:
            self._call_off(t, "called off")
            return []
        return [Ignored(t, "cancel", "only a challenge whose challenger is not known yet")]

    def _on_pause(self, t: float, ev: dict) -> list[Notice]:
        if self.phase == PHASE_WHO:
            return [Ignored(t, "pause", "press the challenger's button or call it off first")]
        return self.timer.pause(t)

    def _on_resume(self, t: float, ev: dict) -> list[Notice]:
        if self.phase == PHASE_WHO:  # the sand stands at the challenge: nothing to resume
            return [Ignored(t, "resume", "a challenge is waiting for the challenger's button")]
        self.restarted = False
        return self.timer.resume(t)

    def _on_restart(self, t: float, ev: dict) -> list[Notice]:
        """The service restarted: the clock is paused where the journal last saw it alive."""
        if self.phase == PHASE_WHO and self.challenge_rec is not None:
            t0 = self.challenge_rec.started_at
            self.challenge_rec.outcome = "called off by a restart"
            self.challenge_rec.ruled_at = t
            self.challenges.append(self.challenge_rec.to_dict())
            self.challenge_rec, self.phase = None, None
            self.restarted = True
            return self.timer.pause(t0)
        if self.timer.status in (Status.RUNNING, Status.CHALLENGE):
            self.restarted = True
            return self.timer.pause(t)
        self.restarted = self.timer.status == Status.PAUSED
        return []

    def _effects(self, notices: list[Notice]) -> Effects:
        eff = Effects()
        for n in notices:
            if isinstance(n, MinutePassed):
                eff.beeps += 1
            elif isinstance(n, LostOnTime):
                eff.long_beep = True
                eff.finished = True
                self.shown_since = n.t  # LOST ON TIME shows its first part first
        return eff

    # -- time -----------------------------------------------------------------------------------

    def _clock_time(self, t: float) -> float:
        """While the challenger is being identified the sand stands at the challenge's instant."""
        if self.phase == PHASE_WHO and self.challenge_rec is not None:
            return self.challenge_rec.started_at
        last = self.timer.last_t
        return t if last is None else max(t, last)

    def advance(self, t: float) -> Effects:
        """Let the sand run to ``t``: beeps for each minute that ran out, the end on time."""
        return self._effects(self.timer.advance(self._clock_time(t)))

    def next_deadline(self) -> float | None:
        """When the current minute runs out (None while stopped or identifying a challenger)."""
        if self.phase == PHASE_WHO:
            return None
        return self.timer.next_deadline()

    def game_clock(self) -> DifferentialTimer:
        """The differential timer (:class:`ClockedMode`: the game's start, end and restart)."""
        return self.timer

    def result(self) -> dict:
        """The game's result for its record."""
        snap = self.timer.snapshot()
        loser = self.timer.loser
        return {
            "game": "iago",
            "loser": loser,
            "winner": opponent(loser) if loser else None,
            "how": "lost on time" if loser else None,
            "minutes": snap["minutes"],
            "moves_completed": snap["moves_completed"],
            "challenges": list(self.challenges),
            "blue": self.context.table.blue,
            "red": self.context.table.red,
            "table": self.context.table.number,
        }

    def state(self, t: float) -> dict:
        """The clock as ``companion clock replay`` prints it, plus the challenge phase."""
        snap = self.timer.snapshot(self._clock_time(t))
        snap["challenge_phase"] = self.phase
        return snap

    # -- what the table shows ----------------------------------------------------------------

    def view(self, t: float) -> View:
        """The OLED frame, LEDs, disc and prompt at game time ``t``."""
        table = self.context.table
        timer = self.timer
        ct = self._clock_time(t)
        status = timer.status
        sand = timer.sand_left(ct)
        ms = timer.minute_seconds
        fill = 0 if sand is None else round(BAR_INNER * max(0.0, min(sand, ms)) / ms)
        judge_name = getattr(self.context.judge, "name", "")  # known once the lexicon is open
        lexicon = judge_name or self.context.lexicon_name or table.lexicon or "default lexicon"
        notice = self.notice if self.notice and t - self.notice_at < NOTICE_SECONDS else ""
        since = self.shown_since
        data = {
            "turn": screen.turn_at(t, since),
            "start": start_text(table),
            "table": table.number,
            "round": table.round,
            "page": table.page,
            "names": {"blue": table.blue, "red": table.red},
            "minutes": dict(timer.allowance),
            "mover": timer.mover,
            "status": str(status),
            "fill": fill,
            "lexicon": lexicon,
            "restarted": self.restarted,
            "loser": timer.loser,
            "notice": notice,
            "setting": f"{table.minutes} min, {ms:g} s minute",
        }
        redraw_at = screen.next_turn_at(t, since)  # texts too long for a line are shown in turns
        prompt = None
        word = str(status)
        key: tuple = (self.phase, tuple(sorted((k, repr(v)) for k, v in data.items())))
        if self.phase is not None:
            rec = self.challenge_rec
            assert rec is not None
            word = f"challenge:{self.phase}"
            data["challenger"] = rec.challenger
            frame = _who_frame(data) if self.phase == PHASE_WHO else _words_frame(data)
            if self.phase == PHASE_WORDS:
                prompt = "Challenged words (spaces between them), then Enter"
                if status == Status.PAUSED:
                    prompt += " (taken while paused; resume to go on)"
            if self.phase == PHASE_VERDICT:
                since = rec.verdict_at if rec.verdict_at is not None else t
                page = screen.turn_at(t, since, PAGE_SECONDS)
                redraw_at = screen.next_turn_at(t, since, PAGE_SECONDS)
                penalty = timer.penalty(rec.verdict or Verdict.REJECTED)
                verdict = {
                    "acceptable": rec.verdict == Verdict.REJECTED,
                    "lexicon": NO_LEXICON if rec.unchecked else rec.lexicon or lexicon,
                    "overridden": rec.overridden,
                    "turner": penalty.turner,
                    "owner": penalty.owner,
                    "tiles": penalty.tiles,
                    "restore": penalty.restore_board,
                    "paused": status == Status.PAUSED,
                    "turn": page // 2,  # the foot's turn: each part on both pages
                    "restarted": self.restarted,
                }
                frame = _verdict_frame(verdict) if page % 2 == 0 else _penalty_frame(verdict)
                key += (page % 2, repr(sorted(verdict.items())))
            if status == Status.PAUSED:
                word = f"paused:{word}"
        elif status == Status.READY:
            frame = _setup_frame(data)
        else:
            frame = _clock_frame(data)
            if status == Status.RUNNING and sand is not None:
                step = max(ms / BAR_INNER, MIN_REDRAW_SECONDS)
                redraw_at = min(t + step, redraw_at)
        lights = {"blue": False, "red": False}
        if status == Status.READY:
            lights = {"blue": True, "red": True}
        elif status == Status.FINISHED and timer.loser:
            lights[opponent(timer.loser)] = True
        elif timer.mover:
            lights[timer.mover] = True
        return View(
            frame=frame,
            lights=lights,
            disc_minutes=timer.allowance["blue"] - table.minutes,
            prompt=prompt,
            status=word,
            redraw_at=redraw_at,
            key=key,
        )


def first_mover(table) -> str | None:
    """The colour that has the first move when the table knows it: ``blue`` when the colours
    were drawn by lot (the same lot gives blue the first move, see :func:`start_text`), else None
    (the players settle it at the table)."""
    return "blue" if table.drawn_by_lot else None


def start_text(table) -> str:
    """Who presses to start whom, for the ready screen (rulebook, "How to Play": "The player who
    does not have the first move turns the sand timer over, thereby starting the first player's
    first move").

    With the colours drawn by lot (``table setup --lot``) the same lot gave blue the first move:
    ``RED PRESSES TO START BLUE``. Colours chosen by the players leave the first move to their own
    lot, so the screen says the rule instead."""
    if table.drawn_by_lot:
        return "RED PRESSES TO START BLUE"
    return "WHO MOVES SECOND PRESSES TO START"


# --- frames (pure functions of plain data; run on the display worker) -------------------------
# 64 pixel rows: four lines of 16 (0-15, 16-31, 32-47, 48-63) at least screen.MIN_TEXT_PX high;
# the clock screen: names 0-12, allowances 13-44, the sand bar 46-51, the status line 52-63.

LINES = ((0, 15), (16, 31), (32, 47), (48, 63))
STATUS_TOP = 52


def _line(n: int, width: int, height: int = 64) -> tuple[int, int, int, int]:
    top, bottom = LINES[n]
    return (0, top, width - 1, min(bottom, height - 1))


def _header(draw, data: dict, width: int) -> None:
    half = width // 2
    labels = {c: _label(c, data["names"][c]) for c in ("blue", "red")}
    if not all(screen.fits(draw, label, half - 4, 13) for label in labels.values()):
        labels = {c: c.upper() for c in labels}  # the names are on the ready screen
    for colour, box in (("blue", (0, 0, half - 2, 12)), ("red", (half + 1, 0, width - 1, 12))):
        label = labels[colour]
        if data["mover"] == colour and data["status"] != "finished":
            screen.inverted(draw, box, label)
        else:
            screen.fitted(draw, box, label, largest=13)


def _label(colour: str, name: str) -> str:
    """``BLUE Ada``, or just ``BLUE`` when the player is not named."""
    return colour.upper() if name.casefold() == colour else f"{colour.upper()} {name}"


def _paused_label(restarted: bool) -> str:
    return "PAUSED RESTARTED" if restarted else "PAUSED"


def _setup_frame(data: dict):
    """Two pages in turns: the table and its players; who presses to start whom. A table of a
    tournament whose director serves its pages (``page`` in the set-up) has a third: the QR code
    of the table's page, for a player's phone (:func:`screen.qr_page`)."""

    def frame(draw, width, height):
        turn = data.get("turn", 0)
        if data["notice"]:  # a wrong first press: who presses to start whom, at once
            start = data.get("start") or "WHO MOVES SECOND PRESSES TO START"
            screen.fitted(draw, (0, 0, width - 1, 47), start, largest=16, turn=turn)
            screen.fitted(draw, _line(3, width, height), data["notice"], 14, False, turn=turn)
            return
        if data.get("page") and turn % 3 == 2:
            screen.qr_page(draw, width, height, data["page"], f"TABLE {data['table']}")
            return
        if data.get("page"):
            turn -= turn // 3  # the two other pages take turns as without the code
        if turn % 2 == 0:
            title = f"TABLE {data['table']}"
            if data.get("round"):  # a tournament's set-up (companion link)
                title = f"ROUND {data['round']}  {title}"
            screen.fitted(draw, _line(0, width), title, largest=16, turn=turn // 2)
            screen.fitted(draw, _line(1, width), _label("blue", data["names"]["blue"]), 16)
            screen.fitted(draw, _line(2, width), _label("red", data["names"]["red"]), 16)
        else:
            start = data.get("start") or "WHO MOVES SECOND PRESSES TO START"
            screen.fitted(draw, (0, 0, width - 1, 47), start, largest=16, turn=turn // 2)
        foot = data["notice"] or (data["setting"] if turn % 4 < 2 else data["lexicon"])
        screen.fitted(draw, _line(3, width, height), foot, 14, False, turn=turn // 4)

    return frame


def _figures(draw, data: dict, width: int) -> None:
    half = width // 2
    big = screen.fit_font(draw, "10", half, 31, 32)
    for colour, box in (("blue", (0, 13, half, 44)), ("red", (half, 13, width, 44))):
        screen.centred(draw, box, str(data["minutes"][colour]), big)


def _bar(draw, fill: int, width: int) -> None:
    draw.rectangle((0, BAR_TOP, width - 1, BAR_BOTTOM), outline=screen.LIT, fill=0)
    inner = width - 4
    lit = round(inner * fill / BAR_INNER)
    if lit > 0:
        draw.rectangle((2, BAR_TOP + 2, 1 + lit, BAR_BOTTOM - 2), fill=screen.LIT)


def _clock_frame(data: dict):
    key = tuple(sorted((k, repr(v)) for k, v in data.items() if k != "fill"))

    def frame(draw, width, height):
        # everything but the bar changes only on events: drawn once, then pasted
        draw.bitmap((0, 0), _clock_layer(key, width, height), fill=screen.LIT)
        _bar(draw, data["fill"], width)

    return frame


@functools.lru_cache(maxsize=16)
def _clock_layer(key: tuple, width: int, height: int):
    data = {k: ast.literal_eval(v) for k, v in key}
    return screen.render(_clock_text(data), width, height)


def _clock_text(data: dict):
    def frame(draw, width, height):
        _header(draw, data, width)
        _figures(draw, data, width)
        status = data["status"]
        line = (0, STATUS_TOP, width - 1, height - 1)
        turn = data["turn"]
        if status == "paused":
            screen.inverted(draw, line, _paused_label(data["restarted"]), turn=turn)
        elif status == "challenge":
            screen.inverted(draw, line, "CHALLENGE", turn=turn)
        elif status == "finished":
            loser = (data["loser"] or "").upper()
            screen.inverted(draw, line, f"{loser} LOST ON TIME", turn=turn)
        else:
            screen.fitted(draw, line, data["notice"] or data["lexicon"], 13, False, turn=turn)

    return frame


def _who_frame(data: dict):
    def frame(draw, width, height):
        turn = data["turn"]
        screen.inverted(draw, _line(0, width), "CHALLENGE", largest=15)
        screen.fitted(draw, (0, 16, width - 1, 47), "Challenger: press your own button", 14)
        m = data["minutes"]
        foot = f"BLUE {m['blue']}  RED {m['red']}" if turn % 2 == 0 else "CHALLENGE again: call off"
        screen.fitted(draw, _line(3, width, height), foot, 14, turn=turn // 2)

    return frame


def _words_frame(data: dict):
    def frame(draw, width, height):
        turn = data["turn"]
        challenger = (data.get("challenger") or "").upper()
        screen.inverted(draw, _line(0, width), f"{challenger} CHALLENGES", 15, turn=turn)
        screen.fitted(draw, _line(1, width), "Type the words", 14)
        notice = data["notice"] or "then Enter"
        screen.fitted(draw, _line(2, width), notice, 14, False, turn=turn)
        if data["status"] == "paused":
            screen.inverted(
                draw, _line(3, width, height), _paused_label(data["restarted"]), turn=turn
            )
        else:
            screen.fitted(draw, _line(3, width, height), data["lexicon"], 14, False, turn=turn)

    return frame


def _verdict_frame(v: dict):
    def frame(draw, width, height):
        if v["acceptable"]:
            screen.fitted(draw, (0, 0, width - 1, 33), "ACCEPTABLE", largest=30)
        else:
            screen.fitted(draw, (0, 0, width - 1, 15), "NOT", largest=16)
            screen.fitted(draw, (0, 16, width - 1, 33), "ACCEPTABLE", largest=24)
        label = v["lexicon"] + (" (arbiter)" if v["overridden"] else "")
        screen.fitted(draw, (0, 34, width - 1, 48), label, 14, bold=False, turn=v["turn"])
        _verdict_foot(draw, v, width, height)

    return frame


def _verdict_foot(draw, v: dict, width: int, height: int) -> None:
    box = (0, 49, width - 1, height - 1)
    if v["paused"]:
        screen.inverted(draw, box, "PAUSED: CHALLENGE resumes", turn=v["turn"])
    else:
        screen.fitted(draw, box, "CHALLENGE: resume clock", 14, False, turn=v["turn"])


def _penalty_frame(v: dict):
    def frame(draw, width, height):
        turner, owner = v["turner"].upper(), v["owner"].upper()
        screen.fitted(draw, (0, 0, width - 1, 15), f"{turner} turns over", 16)
        screen.fitted(draw, (0, 16, width - 1, 32), f"{v['tiles']} {owner} tiles", 17)
        if v["restore"]:
            box = (0, 34, width - 1, 47)
            text = screen.first_fitting(draw, (f"{owner}: RESTORE BOARD", "RESTORE BOARD"), width)
            screen.inverted(draw, box, text, 14)
        _verdict_foot(draw, v, width, height)

    return frame
