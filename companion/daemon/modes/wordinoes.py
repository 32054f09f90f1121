"""Wordinoes as a game mode of the table service (``companion sim --game wordinoes``,
``[table] game = "wordinoes"``). See docs/daemon.md for the mode interface, docs/wordinoes.md for
its use at the table.

The box cannot see the tiles: the bag and the hands are face down (``?``) and the players type
each tile as it is laid, so the box keeps the books (the chain and its open ends, how many tiles
each holds, the bag, knocks) and settles challenges. At the table (typed lines, buttons):

1. type the players' names in seating (clockwise) order, optionally followed by table settings:
   ``Ann Bob Cy hand=10 tiles=100 multi=2 faceup homonyms`` (``patience`` / ``solo`` for those
   variations); defaults from ``[wordinoes]`` in table.toml;
2. the holder of the first word alphabetically types his name and the tile: ``Bob APPLE PIE``;
3. the player on turn types the tile as laid, read from the chain's left end to its right end, and
   the end: ``PIE DOG right`` (``corner`` after it for a right angle), or ``knock`` (or presses a
   player button); ``end`` ends a turn of several tiles (Multiple Play);
4. after an all-knock the first knocker types the two drawn tiles, left one then right one:
   ``SUN DOG / CAT HAT``;
5. the CHALLENGE button (or ``challenge NAME``) challenges the last tile: with two players the
   challenger is the other player, with more the screen asks for his name. The judge
   (:mod:`companion.games.wordinoes.match`) answers on the OLED -- MATCH with the kind and the
   evidence, or NO MATCH FOUND -- and then every player votes in seating order: BLUE button the
   tile is valid, RED button it is not (or type ``yes`` / ``no``);
6. a player who lays his last tile is out; a challenge may still take it back; confirm (Enter, or a
   player button) ends the game. The service saves the record (data_dir()/records/).

Every event is journaled before it takes effect; the judge's answer is decided once and written in
the challenge event, so a replay never asks it again.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
import sys
import threading
from typing import ClassVar

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
from companion.games.wordinoes.game import (
    UNKNOWN_TILE,
    ChallengeSettled,
    Game,
    GameError,
    GameOver,
    Notice,
    Status,
    TableSettings,
    Tile,
)
from companion.textformats import TomlError, loads_toml, shown

PHASE_PLAYERS, PHASE_WHO = "players", "who"
DEFAULT_TILES = 100
"""Tiles in the bag when the table does not say (``[wordinoes] tiles``; count your set)."""
NOTICE_SECONDS = 6.0
PAGE_SECONDS = 2.5
_ENDS = {"left": "left", "l": "left", "right": "right", "r": "right"}
_YES = {"yes", "y", "valid", "for"}
_NO = {"no", "n", "invalid", "against"}


class WordinoesInputError(GameError):
    """A typed line the table cannot use now; the message says what is accepted."""


def table_settings() -> dict:
    """The ``[wordinoes]`` section of config_dir()/table.toml (empty when absent or unreadable:
    the typed set-up line is checked anyway)."""
    from companion.daemon.config import table_path

    path = table_path()
    try:
        data = loads_toml(path.read_text(encoding="utf-8"))
    except (OSError, TomlError, UnicodeDecodeError):
        return {}
    section = data.get("wordinoes", {})
    return dict(section) if isinstance(section, dict) else {}


def parse_setup_line(text: str, defaults: dict | None = None) -> dict:
    """A setup event's fields from ``Ann Bob Cy hand=5 tiles=80 multi=2 faceup homonyms``.

    Returns ``{"players": [...], "tiles": n, "settings": {...}}`` (settings as
    :class:`TableSettings` takes them).

    Raises:
        WordinoesInputError: a bad option, or settings the game refuses (all at once).
    """
    base = dict(defaults or {})
    tiles = base.pop("tiles", DEFAULT_TILES)
    settings = {k: v for k, v in base.items() if k in TableSettings.__dataclass_fields__}
    names, problems = [], []
    flags = {"faceup": ("face_up", True), "homonyms": ("homonyms", True)}
    flags |= {"patience": ("variant", "patience"), "solo": ("variant", "solo")}
    numbers = {"hand": "hand_size", "multi": "tiles_per_turn", "limit": "hand_limit"}
    numbers |= {"target": "target", "tiles": "tiles"}
    for token in (t for t in re.split(r"[\s,]+", text.strip()) if t):
        key, eq, value = token.partition("=")
        if eq:
            field = numbers.get(key.lower())
            if field is None or not re.fullmatch("[0-9]{1,6}", value):
                problems.append(
                    f"option {shown(token, 40)}: accepted hand=N, multi=N, limit=N, target=N, "
                    "tiles=N (N a whole number written in the digits 0-9)"
                )
            elif field == "tiles":
                tiles = int(value)
            else:
                settings[field] = int(value)
        elif token.lower() in flags:
            field, flag = flags[token.lower()]
            settings[field] = flag
        else:
            names.append(token)
    if not isinstance(tiles, int) or isinstance(tiles, bool) or not 2 <= tiles <= 1000:
        problems.append(f"tiles {tiles!r}: accepted 2 to 1000")
    if problems:
        raise WordinoesInputError("; ".join(problems))
    try:
        Game(names, [UNKNOWN_TILE] * tiles, TableSettings.from_dict(settings))
    except GameError as exc:
        raise WordinoesInputError(str(exc)) from None
    return {"players": names, "tiles": tiles, "settings": settings}


def _tile_words(words: list[str], what: str) -> list[str]:
    if len(words) != 2:
        raise WordinoesInputError(f"{what}: a tile is two words (* for a blank end), got {words}")
    return [w.upper() for w in words]


class WordinoesMode(GameMode):
    """Keeps the books of a Wordinoes game and settles challenges. See the module docstring."""

    name = "wordinoes"
    judge_factory: ClassVar = None
    """``judge_factory(homonyms: bool) -> MatchJudge``; None: the table's lexicon and WordNet."""

    def __init__(self, context: ModeContext) -> None:
        super().__init__(context)
        self.game: Game | None = None
        self.setup: dict | None = None
        self.phase: str | None = PHASE_PLAYERS
        self.challenges: list[dict] = []
        self.advice: dict | None = None  # the judge's answer on the challenge being voted
        self.advice_at = 0.0
        self.closed = False  # a player out: the table confirmed the end
        self.last_line = ""
        self.notice = ""
        self.notice_at = 0.0
        self.outcome: ChallengeSettled | None = None  # the last vote's, shown for a while
        self.outcome_at = 0.0
        self._judges: dict[bool, object] = {}
        self._warming: threading.Thread | None = None
        self._cached = True
        if type(self).judge_factory is None:
            # the judge's sources take seconds to open: open them now, not at the first challenge.
            # Its caches are built at install time (companion wordinoes warm), never here: when
            # they are missing the judge reads the sources themselves (slower) and the log says so
            from companion.games.wordinoes.judgecache import cache_problem
            from companion.games.wordinoes.match import warm_up

            problem = cache_problem()
            if problem:
                self._cached = False
                print(
                    f"companion daemon: {problem}; the judge is slower meanwhile", file=sys.stderr
                )
            self._warming = threading.Thread(
                target=_quietly, args=(lambda: warm_up(cached=self._cached),), daemon=True
            )
            self._warming.start()

    # -- inputs -> events -----------------------------------------------------------------------

    def decide(self, inp: Input) -> list[dict]:
        """Typed lines, presses and commands become events (tried on a copy of the game first).

        Raises:
            GameError: an entry the rules or the notation refuse (no event; the game unchanged;
                the reason is shown on the OLED).
        """
        t = float(inp.t)
        try:
            if isinstance(inp, Line):
                return self._decide_line(inp.text.strip(), t)
            if isinstance(inp, Press):
                return self._decide_press(inp.role, t)
            if isinstance(inp, Command):
                return self._decide_command(inp.name, t)
        except GameError as exc:
            self._say(str(exc), t)
            raise
        raise ModeError(f"input {inp!r} is not a press, a line or a command")

    def slow(self, inp: Input) -> bool:
        """A challenge asks the judge (its sources and cache may take seconds to open): the
        CHALLENGE button, the challenger's name, or ``challenge NAME`` are decided on a worker."""
        if isinstance(inp, Press):
            return inp.role == "challenge" and self.game is not None
        if isinstance(inp, Line):
            text = inp.text.strip().lower()
            return self.game is not None and (
                self.phase == PHASE_WHO or text.startswith("challenge")
            )
        return False

    def _say(self, text: str, t: float) -> None:
        self.notice, self.notice_at = text, t

    def _try(self, event: dict) -> dict:
        """``event`` if it applies to a copy of the game; its GameError otherwise."""
        trial = self.game.copy()  # type: ignore[union-attr]
        _apply_to(trial, event)
        return event

    def _named(self, words: list[str]) -> tuple[str, list[str]]:
        """The player a typed line starts with, and the words after the name. A name may have
        spaces (a tournament's "Ada Lovelace"): the players' full names are tried first, then
        the first word alone when it is one player's name or the first word of only one
        player's name, in any case ("ada"). Otherwise the first word as typed (the game's
        check names it)."""
        players = list(self.game.players) if self.game is not None else []
        low = [w.lower() for w in words]
        for name in sorted(players, key=len, reverse=True):
            parts = name.lower().split()
            if parts and low[: len(parts)] == parts:
                return name, words[len(parts) :]
        if words:
            same = [p for p in players if p.lower() == low[0]]
            first = [p for p in players if p.lower().split()[:1] == [low[0]]]
            if len(same) == 1 or (not same and len(first) == 1):
                return (same or first)[0], words[1:]
        return (words[0] if words else ""), words[1:]

    def _decide_line(self, text: str, t: float) -> list[dict]:
        words = [w for w in re.split(r"[\s,]+", text) if w]
        if not words:
            return self._decide_command("confirm", t)
        low = [w.lower() for w in words]
        game = self.game
        if game is None:
            setup = parse_setup_line(text, table_settings())
            return [{"t": t, "kind": "setup", **setup}]
        if self.phase == PHASE_WHO:
            return [self._challenge_event(self._named(words)[0], t)]
        if low[0] == "challenge":
            challenger, rest = self._named(words[1:])
            if not challenger or rest:
                raise WordinoesInputError("challenge: type challenge NAME (the challenger)")
            return [self._challenge_event(challenger, t)]
        status = game.status
        if status == Status.CHALLENGE:
            if len(low) == 1 and low[0] in _YES | _NO:
                return self._vote_event(low[0] in _YES, t)
            raise WordinoesInputError(
                "voting: press BLUE (valid) or RED (not valid), or type yes/no"
            )
        if status == Status.FINISHED:
            if low[0] in ("end", "done", "ok", "confirm"):
                return self._decide_command("confirm", t)
            raise WordinoesInputError("the game is over: Enter ends it (CHALLENGE contests it)")
        if status == Status.START:
            starter, tile = self._named(words)
            if len(tile) != 2:
                raise WordinoesInputError(
                    "start: type the starter's name and his tile, e.g. Bob APPLE PIE"
                )
            ev = {"t": t, "kind": "start", "player": starter, "tile": _tile_words(tile, "start")}
            return [self._try(ev)]
        if status == Status.ALL_KNOCKED:
            text2 = text.replace("/", " / ")
            parts = [p.split() for p in text2.split(" / ")]
            if len(parts) != 2:
                parts = [words[:2], words[2:]]
            ev = {
                "t": t, "kind": "open", "player": game.turn,
                "left": _tile_words(parts[0], "left tile"),
                "right": _tile_words(parts[1], "right tile"),
            }  # fmt: skip
            return [self._try(ev)]
        if low == ["knock"]:
            return [self._try({"t": t, "kind": "knock", "player": game.turn})]
        if low == ["end"]:
            return [self._try({"t": t, "kind": "end_turn", "player": game.turn})]
        corner = low[-1] == "corner"
        if corner:
            words, low = words[:-1], low[:-1]
        if len(words) != 3 or low[2] not in _ENDS:
            raise WordinoesInputError(
                "type the tile as laid and the end: WORD WORD left|right (corner), or knock"
            )
        ev = {
            "t": t, "kind": "play", "player": game.turn,
            "tile": _tile_words(words[:2], "play"), "end": _ENDS[low[2]], "corner": corner,
        }  # fmt: skip
        return [self._try(ev)]

    def _decide_press(self, role: str, t: float) -> list[dict]:
        game = self.game
        if game is None:
            raise WordinoesInputError("type the players' names first (seating order)")
        if role == "challenge":
            if self.phase == PHASE_WHO:
                return [{"t": t, "kind": "who_cancel"}]
            last = game.last_play
            if last is None or game.status not in (Status.PLAYING, Status.FINISHED):
                raise WordinoesInputError(
                    "nothing to challenge: no tile laid since the last action"
                )
            others = [p for p in game.players if p != last.player]
            if len(others) == 1:
                return [self._challenge_event(others[0], t)]
            return [{"t": t, "kind": "who"}]
        if game.status == Status.CHALLENGE:
            return self._vote_event(role == "blue", t)
        if game.status == Status.FINISHED:
            return self._decide_command("confirm", t)
        if game.status == Status.PLAYING:
            return [self._try({"t": t, "kind": "knock", "player": game.turn})]
        raise WordinoesInputError(f"the buttons do nothing now: {game._status_words()}")

    def _decide_command(self, name: str, t: float) -> list[dict]:
        game = self.game
        pair = tournament_pair(self.context.table)
        if name == "confirm" and game is None and pair:
            # Enter at a tournament's table: the round's two players, blue first
            setup = parse_setup_line(" ".join(f"P{i}" for i in range(len(pair))), table_settings())
            return [{"t": t, "kind": "setup", **setup, "players": list(pair)}]
        if name == "confirm" and game is not None and game.status == Status.FINISHED:
            if not self.closed:
                return [{"t": t, "kind": "close"}]
            return []
        if name == "cancel" and self.phase == PHASE_WHO:
            return [{"t": t, "kind": "who_cancel"}]
        raise WordinoesInputError(f"{name}: nothing to {name} in Wordinoes now")

    def _vote_event(self, valid: bool, t: float) -> list[dict]:
        ch = self.game.challenge  # type: ignore[union-attr]
        waiting = [p for p in self.game.players if p not in ch.votes]  # type: ignore[union-attr]
        return [self._try({"t": t, "kind": "vote", "player": waiting[0], "valid": valid})]

    def _challenge_event(self, challenger: str, t: float) -> dict:
        ev = {"t": t, "kind": "challenge", "challenger": challenger}
        self._try(ev)
        last = self.game.last_play  # type: ignore[union-attr]
        trial = self.game.copy()  # type: ignore[union-attr]
        opened = trial.challenge_last(challenger)[0]
        left, right = opened.adjoining  # type: ignore[attr-defined]
        ev["words"] = [left, right]
        ev["player"] = last.player  # type: ignore[union-attr]
        ev["judge"] = self._ask_judge(left, right)
        return ev

    def _ask_judge(self, left: str, right: str) -> dict | None:
        homonyms = self.game.settings.homonyms  # type: ignore[union-attr]
        if self._warming is not None:
            self._warming.join(120)
        try:
            judge = self._judges.get(homonyms)
            if judge is None:
                judge = self._judges[homonyms] = self._make_judge(homonyms)
            result = judge.match(left, right)  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - the vote goes on without the judge's advice
            return {"error": f"the judge could not answer: {exc}"}
        data = result.to_json()
        return {
            "match": data["match"],
            "needs_vote": data["needs_vote"],
            "summary": result.summary(),
            "relations": data["relations"],
            "hints": data["hints"][:2],
        }

    def _make_judge(self, homonyms: bool):
        if type(self).judge_factory is not None:
            return type(self).judge_factory(homonyms)
        from companion.games.wordinoes.match import MatchJudge
        from companion.lexicon import open_lexicon

        lexicon = open_lexicon(self.context.table.lexicon or None)
        return MatchJudge(lexicon=lexicon, homonyms=homonyms, cached=self._cached)

    # -- events -> state ------------------------------------------------------------------------

    def apply(self, event: dict) -> Effects:
        """Apply one journaled event (kinds: setup, start, play, knock, end_turn, open, who,
        who_cancel, challenge, vote, close)."""
        kind = event.get("kind")
        t = float(event.get("t", 0.0))
        try:
            if kind == "setup":
                self.setup = {k: event[k] for k in ("players", "tiles", "settings")}
                self.game = Game(
                    list(event["players"]),
                    [UNKNOWN_TILE] * int(event["tiles"]),
                    TableSettings.from_dict(dict(event["settings"])),
                )
                self.phase = None
                return Effects()
            if self.game is None:
                raise ModeError(f"event {event!r}: the game has not been set up")
            if kind == "who":
                self.phase = PHASE_WHO
                return Effects()
            if kind == "who_cancel":
                self.phase = None
                return Effects()
            if kind == "close":
                self.closed = True
                return Effects(finished=True)
            notices = _apply_to(self.game, event)
            self.outcome = None  # the vote's page gives way to the game's next event
        except GameError as exc:
            raise ModeError(f"event {event!r}: {exc}") from None
        self.phase = None
        if kind == "challenge":
            self.advice, self.advice_at = event.get("judge"), t
            self.challenges.append(
                {
                    "t": t,
                    "challenger": event["challenger"],
                    "player": event.get("player"),
                    "words": event.get("words"),
                    "judge": event.get("judge"),
                    "votes": {},
                }
            )
        if kind == "vote" and self.challenges:
            self.challenges[-1]["votes"][event["player"]] = event["valid"]
        effects = Effects()
        for n in notices:
            if isinstance(n, ChallengeSettled):
                self.challenges[-1]["removed"] = n.removed
                self.advice = None
                self.outcome, self.outcome_at = n, t
                effects.say = f"The vote: {n.describe()}"
            elif isinstance(n, GameOver):
                effects.long_beep = True
                if n.reason != "out":
                    self.closed = True
            if not isinstance(n, ChallengeSettled) and isinstance(n, Notice):
                self.last_line = n.describe()
        effects.finished = self.finished
        return effects

    # -- the game's life ------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """True once the players are set up."""
        return self.game is not None

    @property
    def finished(self) -> bool:
        """True once the game is over and no challenge of the last tile can come any more."""
        game = self.game
        return (
            game is not None
            and game.status == Status.FINISHED
            and (self.closed or game.last_play is None)
        )

    def result(self) -> dict:
        """The game's result for its record."""
        game = self.game
        if game is None:
            return {"game": "wordinoes", "finished": False}
        return {
            "game": "wordinoes",
            "players": list(game.players),
            "winner": game.winner,
            "draw": game.draw,
            "how": game.end_reason,
            "held": {p: len(h) for p, h in game.hands.items()},
            "played": dict(game.played),
            "chains": {n: c.to_json()["tiles"] for n, c in game.chains.items()},
            "challenges": list(self.challenges),
            "settings": dict(self.setup or {}),
            "table": self.context.table.number,
        }

    def state(self, t: float) -> dict:
        """The game as ``companion wordinoes replay`` prints it, plus the table's phase."""
        if self.game is None:
            return {"phase": PHASE_PLAYERS}
        snap = self.game.snapshot("*")
        snap["phase"] = self.phase or snap["status"]
        snap["closed"] = self.closed
        snap["challenges"] = list(self.challenges)
        if self.advice is not None:
            snap["judge"] = self.advice
        return snap

    # -- what the table shows -------------------------------------------------------------------

    def view(self, t: float) -> View:
        """The OLED frame, the LEDs (both lit while votes are taken) and the prompt."""
        notice = self.notice if self.notice and t - self.notice_at < NOTICE_SECONDS else ""
        game = self.game
        lights = {"blue": False, "red": False}
        redraw_at = None
        if game is None:
            table = self.context.table
            title = tournament_title(table, "WORDINOES")
            pair = tournament_pair(table)
            if pair:
                turn = screen.turn_at(t)
                pages = _message_frame(title, f"Enter: {pair[0]} & {pair[1]}", notice or "or type")

                def names(draw, width, height, pages=pages, turn=turn):
                    pages(draw, width, height, turn=turn)  # long names in turns

                frame = screen.with_qr_page(names, table.page, f"TABLE {table.number}", turn)
                prompt = f"Enter for the round's players, {pair[0]} then {pair[1]} (or type them)"
                return View(
                    frame, lights, None, prompt, "players", redraw_at=screen.next_turn_at(t)
                )
            frame = _message_frame(title, "Type the players", notice or "in seating order")
            return View(
                frame, lights, None, "Players' names (seating order), then Enter", "players"
            )
        status = game.status
        prompt: str | None = None
        # a message shows its first part first: its turns count from when it went up
        since = self.notice_at if notice else 0.0
        if self.phase == PHASE_WHO:
            frame = _message_frame("CHALLENGE", "Who challenges?", notice or "type the name")
            prompt = "The challenger's name, then Enter"
            word = "challenge:who"
        elif status == Status.START:
            frame = _message_frame("FIRST WORD", "Starter and tile", notice or "e.g. Bob APPLE PIE")
            prompt = "The holder of the first word and his tile: NAME WORD WORD"
            word = "start"
        elif status == Status.CHALLENGE:
            ch = game.challenge
            assert ch is not None
            waiting = [p for p in game.players if p not in ch.votes]
            advice = self.advice or {}
            page = int((t - self.advice_at) // PAGE_SECONDS)
            redraw_at = self.advice_at + (page + 1) * PAGE_SECONDS
            words = " + ".join(self.challenges[-1].get("words") or []) if self.challenges else ""
            evidence = _evidence_line(advice)
            frame = _vote_frame(
                words, advice.get("summary") or "ASK THE TABLE", evidence,
                waiting[0] if waiting else "", page,
            )  # fmt: skip
            lights = {"blue": True, "red": True}
            prompt = f"{waiting[0] if waiting else ''}: yes (valid) or no"
            word = "challenge:vote"
        elif status == Status.FINISHED:
            who = "A DRAW" if game.draw else f"{(game.winner or 'NOBODY').upper()} WINS"
            foot = game.end_reason or ""
            if not self.finished:
                foot = "Enter: end / CHALLENGE"
            frame = _message_frame("GAME OVER", who, notice or foot)
            word = "finished" if self.finished else "out"
        elif self.outcome is not None and t - self.outcome_at < NOTICE_SECONDS:
            # the vote's outcome on a page of its own: the verdict, then the count, each whole
            n = self.outcome
            verdict = "TILE REMOVED" if n.removed else "TILE STAYS"
            tally = f"{n.votes_valid} for, {n.votes_invalid} against"
            frame = _message_frame("THE VOTE", verdict, tally)
            word = "vote:removed" if n.removed else "vote:stays"
            since = self.outcome_at
            redraw_at = self.outcome_at + NOTICE_SECONDS  # then the game's screen again
            prompt = _play_prompt(game)  # the next player types meanwhile
        else:
            chain = game.chains[game.chain_of(game.turn)] if game.turn else None
            ends = f"{chain.left_word} .. {chain.right_word}" if chain else ""
            counts = " ".join(f"{p[:5]}:{len(game.hands[p])}" for p in game.players)
            if status == Status.ALL_KNOCKED:
                head = f"ALL KNOCKED: {game.turn}"
            else:
                head = f"{game.turn} to play"
            prompt = _play_prompt(game)
            frame = _play_frame(
                head, ends, f"{counts} bag:{len(game.bag)}", notice or self.last_line
            )
            word = str(status)
        # texts too long for a line are shown in turns (screen.TURN_SECONDS each)
        turn = screen.turn_at(t, since)
        redraw_at = min(redraw_at or math.inf, screen.next_turn_at(t, since))
        frame = functools.partial(frame, turn=turn)
        key = (word, notice, self.last_line, repr(game.snapshot("*")), redraw_at, turn)
        return View(frame, lights, None, prompt, word, redraw_at, key)


def _play_prompt(game: Game) -> str:
    """What the player on turn types: a tile and its end, or after an all-knock the two drawn."""
    if game.status == Status.ALL_KNOCKED:
        return f"{game.turn}: two tiles, WORD WORD / WORD WORD (left / right)"
    return f"{game.turn}: WORD WORD left|right, or knock"


def _quietly(fn) -> None:
    """Run ``fn`` ignoring its errors (a warm-up: the real call reports them)."""
    with contextlib.suppress(Exception):
        fn()


def _apply_to(game: Game, ev: dict) -> list[Notice]:
    kind = ev.get("kind")
    who = ev.get("player") or ev.get("challenger")
    if kind == "start":
        return game.start(who, ev["tile"])
    if kind == "play":
        return game.play(who, ev["tile"], ev["end"], bool(ev.get("corner", False)))
    if kind == "knock":
        return game.knock(who)
    if kind == "end_turn":
        return game.end_turn(who)
    if kind == "open":
        return game.open_ends(who, ev["left"], ev["right"])
    if kind == "challenge":
        return game.challenge_last(ev["challenger"])
    if kind == "vote":
        return game.vote(who, bool(ev["valid"]))
    raise ModeError(f"event {ev!r}: unknown kind {kind!r} for Wordinoes")


def _evidence_line(advice: dict) -> str:
    if advice.get("error"):
        return "no advice: vote"
    rel = advice.get("relations") or []
    if rel:
        return str(rel[0].get("evidence", ""))
    hints = advice.get("hints") or []
    return str(hints[0]) if hints else "no evidence found"


# --- frames (pure functions of plain data; run on the display worker) -------------------------


def _message_frame(title: str, middle: str, foot: str):
    def frame(draw, width, height, turn=0):
        screen.inverted(draw, (0, 0, width - 1, 15), title, largest=16, turn=turn)
        screen.fitted(draw, (0, 16, width - 1, 47), middle, largest=18, turn=turn)
        screen.fitted(draw, (0, 48, width - 1, height - 1), foot, 14, bold=False, turn=turn)

    return frame


def _play_frame(head: str, ends: str, counts: str, foot: str):
    def frame(draw, width, height, turn=0):
        screen.inverted(draw, (0, 0, width - 1, 15), head, largest=14, turn=turn)
        screen.fitted(draw, (0, 16, width - 1, 31), ends, largest=16, turn=turn)
        screen.fitted(draw, (0, 32, width - 1, 47), counts, 14, bold=False, turn=turn)
        screen.fitted(draw, (0, 48, width - 1, height - 1), foot, 14, bold=False, turn=turn)

    return frame


EVIDENCE_BOX = (16, 47)  # pixel rows of the judge's summary and evidence on the vote screen


def _vote_frame(words: str, summary: str, evidence: str, voter: str, page: int):
    """Page 0 the judge's summary; the next pages the evidence, as many as it takes at the
    least readable size (at most three)."""

    def frame(draw, width, height, turn=0):
        top, bottom = EVIDENCE_BOX
        box = (0, top, width - 1, bottom)
        pages = min(3, screen.turns_needed(draw, box, evidence, bold=False))
        shown = page % (1 + pages)
        screen.inverted(draw, (0, 0, width - 1, 15), words or "CHALLENGE", 14, turn=page)
        if shown == 0:
            screen.fitted(draw, box, summary, largest=18)
        else:
            screen.fitted(draw, box, evidence, 14, bold=False, turn=shown - 1)
        foot = f"{voter} votes:" if page % 2 == 0 else "BLUE valid  RED not"
        screen.fitted(draw, (0, 48, width - 1, height - 1), foot, 14, turn=page // 2)

    return frame


__all__ = ["WordinoesMode", "parse_setup_line", "Tile"]
