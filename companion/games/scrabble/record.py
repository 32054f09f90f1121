"""The game record: every move with its GCG coordinate, word, score and running total; the
challenges, phonies taken back, passes and exchanges, overtime and the end-of-game racks; read and
written as GCG (the format of Quackle and of cross-tables' annotated games).

GCG (John Chew's ``.gcg`` file format, version 1.2): pragma lines ``#player1 NICK Full name``,
``#player2 ...``, ``#title``, ``#lexicon``, ``#note``, ``#character-encoding UTF-8``; one event a
line ``>NICK: RACK POSITION WORD +SCORE TOTAL`` for a play (a blank in lower case, a tile already
on the board written as ``.`` or as its letter), ``>NICK: RACK - +0 TOTAL`` a pass,
``>NICK: RACK -TILES +0 TOTAL`` an exchange (``-7`` when only the count is known),
``>NICK: RACK -- -SCORE TOTAL`` a phony taken back, ``>NICK: RACK (challenge) +SCORE TOTAL`` the
points of a wrong challenge, ``>NICK: RACK (time) -SCORE TOTAL`` the overtime penalty,
``>NICK: (RACK) +SCORE TOTAL`` the racks of the player who went out, and
``>NICK: RACK (RACK) -SCORE TOTAL`` an unplayed rack taken off.

The record is JSON-ready (:meth:`GameRecord.to_json`); :func:`read_gcg` of :func:`write_gcg`
gives the same record back.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from companion.games.scrabble.board import (
    ACROSS,
    Rows,
    ScrabbleError,
    empty_board,
    format_board,
    parse_board,
    parse_position,
)
from companion.games.scrabble.scoring import (
    EMPTY,
    MoveScore,
    end_of_game,
    score_move,
)
from companion.games.scrabble.tiles import BLANK, LETTER_VALUES, RACK_SIZE, rack_value

COLOURS = ("blue", "red")
KINDS = ("play", "pass", "exchange", "phony", "challenge", "time", "out", "rack")
"""A move's kind: a ``play`` of tiles, a ``pass``, an ``exchange``, a ``phony`` taken back (the
play's score off), ``challenge`` (the points of a wrong challenge), ``time`` (the overtime
penalty), ``out`` (the unplayed racks added to the player who went out), ``rack`` (a player's
own unplayed rack taken off)."""


class RecordError(ScrabbleError):
    """A record or GCG file that cannot be read: names the line or field and what is accepted."""


def other(colour: str) -> str:
    """The other colour."""
    return "red" if colour == "blue" else "blue"


@dataclass
class Move:
    """One line of the record. ``score`` is what the move adds (negative for a phony taken back,
    a penalty or a rack taken off); ``total`` the player's running total after it."""

    player: str
    kind: str
    score: int = 0
    total: int = 0
    position: str = ""
    word: str = ""
    rack: str = ""
    tiles: str = ""  # a play's tiles placed, an exchange's (or its count), an end-of-game rack
    words: list[dict] = field(default_factory=list)
    bingo: bool = False
    note: str = ""

    def to_json(self) -> dict:
        """The move as JSON-ready data (empty fields left out)."""
        d = {"player": self.player, "kind": self.kind, "score": self.score, "total": self.total}
        for key in ("position", "word", "rack", "tiles", "note"):
            if getattr(self, key):
                d[key] = getattr(self, key)
        if self.words:
            d["words"] = list(self.words)
        if self.bingo:
            d["bingo"] = True
        return d


@dataclass
class GameRecord:
    """A game of two players, blue and red, move by move.

    Attributes:
        players: names by colour.
        first: the colour that moved first (GCG's player1).
        lexicon: the word list's name ("" unknown).
        moves: the record's lines in order.
        board: the board after the last move (rows).
        finished: True once the end-of-game racks (or the final scores) are in.
    """

    players: dict[str, str] = field(default_factory=lambda: {"blue": "Blue", "red": "Red"})
    first: str = "blue"
    lexicon: str = ""
    title: str = ""
    moves: list[Move] = field(default_factory=list)
    board: Rows = field(default_factory=empty_board)
    finished: bool = False
    _boards: list[Rows] = field(default_factory=list, repr=False)  # before each play

    # -- scores -----------------------------------------------------------------------------------

    def total(self, colour: str) -> int:
        """``colour``'s score now (the sum of his moves)."""
        return sum(m.score for m in self.moves if m.player == colour)

    @property
    def scores(self) -> dict[str, int]:
        """Both scores now, by colour."""
        return {c: self.total(c) for c in COLOURS}

    def _add(self, move: Move) -> Move:
        if not move.rack and move.kind not in ("out", "rack"):
            move.rack = _rack(move, self._last_racks())
        move.total = self.total(move.player) + move.score
        self.moves.append(move)
        return move

    def _last_racks(self) -> dict[str, str]:
        """Each player's rack as written on his last line (GCG needs a rack on every line)."""
        out: dict[str, str] = {}
        for m in self.moves:
            if m.rack:
                out[m.player] = m.rack
        return out

    def last_play(self) -> Move | None:
        """The last play of tiles still on the board (not taken back), or None."""
        for m in reversed(self.moves):
            if m.kind == "play":
                return m
            if m.kind in ("phony",):
                return None
        return None

    # -- moves ------------------------------------------------------------------------------------

    def play(self, player: str, position: str, word: str, rack: str = "", note: str = "") -> Move:
        """``player`` lays ``word`` at ``position`` (GCG: ``8D`` across, ``H8`` down); letters
        already on the board may be written as ``.`` or as themselves, a blank in lower case.

        Raises:
            RecordError: a word off the board, a letter that clashes with a tile on the board, or
                an illegal placement (the violations named).
        """
        after = self.board_after(position, word)
        result = score_move(self.board, after)
        if not result.legal:
            codes = ", ".join(v.code for v in result.violations)
            raise RecordError(f"{position} {word}: not a legal placement ({codes})")
        shown_word = result.main.word if result.main else word
        self._boards.append(self.board)
        self.board = after
        return self._add(
            Move(
                player,
                "play",
                result.score,
                position=position.upper(),
                word=shown_word,
                rack=rack,
                tiles="".join(BLANK if t.islower() else t for _, _, t in result.placed),
                words=[w.to_json() for w in result.words],
                bingo=result.bingo,
                note=note,
            )
        )

    def play_board(self, player: str, after: Rows, rack: str = "", note: str = "") -> Move:
        """``player``'s play given as the board after it (the camera's reading)."""
        result = score_move(self.board, after)
        if not result.legal or result.main is None:
            codes = ", ".join(v.code for v in result.violations)
            raise RecordError(f"the board read is not a legal play ({codes})")
        return self.play(player, result.main.position, result.main.word, rack, note)

    def score_of(self, position: str, word: str) -> MoveScore:
        """The score a play would make now, without making it (for the screen).

        Raises:
            RecordError: as :meth:`play`.
        """
        return score_move(self.board, self.board_after(position, word))

    def board_after(self, position: str, word: str) -> Rows:
        """The board with ``word`` laid at ``position``.

        Raises:
            RecordError: off the board, or a letter that clashes with a tile there.
        """
        try:
            r, c, direction = parse_position(position)
        except ScrabbleError as exc:
            raise RecordError(str(exc)) from None
        if not word or not re.fullmatch(r"[A-Za-z.]+", word):
            raise RecordError(
                f"word {word!r}: accepted letters A-Z (a blank in lower case) and '.' for a tile "
                "already on the board"
            )
        rows = [list(row) for row in self.board]
        dr, dc = (0, 1) if direction == ACROSS else (1, 0)
        for i, ch in enumerate(word):
            rr, cc = r + dr * i, c + dc * i
            if rr >= 15 or cc >= 15:
                raise RecordError(f"{position} {word}: runs off the board")
            here = rows[rr][cc]
            if ch == ".":
                if here == EMPTY:
                    raise RecordError(f"{position} {word}: '.' at an empty square")
                continue
            if here != EMPTY and here != ch:
                raise RecordError(f"{position} {word}: {ch!r} where {here!r} already lies")
            rows[rr][cc] = ch
        return tuple("".join(row) for row in rows)

    def pass_turn(self, player: str, rack: str = "", note: str = "") -> Move:
        """``player`` passes (scores 0); also a turn lost to a wrong double challenge."""
        return self._add(Move(player, "pass", 0, rack=rack, note=note))

    def exchange(self, player: str, tiles: str, rack: str = "", note: str = "") -> Move:
        """``player`` exchanges ``tiles`` (letters, ``?`` a blank, or their count 1-7).

        Raises:
            RecordError: neither tiles nor a count of 1 to 7.
        """
        tiles = tiles.strip()
        if tiles.isdigit():
            if not 1 <= int(tiles) <= RACK_SIZE:
                raise RecordError(f"exchange of {tiles}: accepted 1 to {RACK_SIZE} tiles")
        elif not re.fullmatch(r"[A-Z?]{1,7}", tiles):
            raise RecordError(
                f"exchange {tiles!r}: accepted the tiles (letters A-Z, ? a blank; 1 to 7) or "
                "their count"
            )
        return self._add(Move(player, "exchange", 0, rack=rack, tiles=tiles, note=note))

    def take_back(self, note: str = "") -> Move:
        """The last play was challenged off: its tiles go back to the rack and its score is
        taken off the player who made it (GCG ``--``).

        Raises:
            RecordError: no play to take back.
        """
        last = self.moves[-1] if self.moves else None
        if last is None or last.kind != "play" or not self._boards:
            raise RecordError("no play to take back: the last move is not a play")
        self.board = self._boards.pop()
        rack = last.rack or _played(last)
        return self._add(Move(last.player, "phony", -last.score, rack=rack, note=note))

    def challenge_bonus(self, player: str, points: int, note: str = "") -> Move:
        """``player``'s play stood a challenge: ``points`` (the points rule) for him."""
        return self._add(Move(player, "challenge", points, note=note))

    def time_penalty(self, player: str, points: int) -> Move:
        """``player``'s overtime penalty (``points`` taken off)."""
        return self._add(Move(player, "time", -abs(points)))

    def end(self, racks: dict[str, str], went_out: str | None) -> list[Move]:
        """The end-of-game racks (standard rules; see
        :func:`companion.games.scrabble.scoring.end_of_game`).

        Raises:
            RecordError: a rack that is not tiles, or the player who went out holding some.
        """
        try:
            adj = end_of_game(racks, went_out)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        added = []
        for colour in COLOURS:
            rack = racks.get(colour, "")
            if went_out == colour:
                opp = racks.get(other(colour), "")
                if opp:
                    added.append(self._add(Move(colour, "out", adj.adjustments[colour], tiles=opp)))
            elif rack:
                added.append(self._add(Move(colour, "rack", adj.adjustments[colour], tiles=rack)))
        self.finished = True
        return added

    # -- JSON -------------------------------------------------------------------------------------

    def to_json(self) -> dict:
        """The record as JSON-ready data: players, first, lexicon, moves, scores, board."""
        return {
            "players": dict(self.players),
            "first": self.first,
            "lexicon": self.lexicon,
            "title": self.title,
            "moves": [m.to_json() for m in self.moves],
            "scores": self.scores,
            "board": format_board(self.board),
            "finished": self.finished,
        }

    @classmethod
    def from_json(cls, data: dict, name: str = "record") -> GameRecord:
        """Rebuild a record from :meth:`to_json`'s data by replaying its moves (so each play's
        score is checked against the board).

        Raises:
            RecordError: naming the move and what is wrong.
        """
        if not isinstance(data, dict) or not isinstance(data.get("moves"), list):
            raise RecordError(f"{name}: not a game record: accepted an object with 'moves'")
        players = data.get("players")
        if not isinstance(players, dict) or not all(
            isinstance(players.get(c), str) and players.get(c) for c in COLOURS
        ):
            raise RecordError(f"{name}: 'players' must name blue and red")
        rec = cls(
            players={c: players[c] for c in COLOURS},
            first=data.get("first") if data.get("first") in COLOURS else "blue",
            lexicon=str(data.get("lexicon") or ""),
            title=str(data.get("title") or ""),
        )
        for i, m in enumerate(data["moves"], 1):
            try:
                rec._replay(m)
            except (KeyError, TypeError, ValueError) as exc:
                raise RecordError(f"{name}: move {i} {json.dumps(m)[:100]}: {exc}") from None
        rec.finished = bool(data.get("finished")) or rec.finished
        return rec

    def _replay(self, m: dict) -> None:
        player, kind = m["player"], m["kind"]
        if player not in COLOURS or kind not in KINDS:
            raise RecordError(f"player {player!r} / kind {kind!r}: accepted {COLOURS}, {KINDS}")
        note, rack = str(m.get("note", "")), str(m.get("rack", ""))
        score = m.get("score", 0)
        if isinstance(score, bool) or not isinstance(score, int):
            raise RecordError(f"score {score!r}: accepted a whole number")
        if kind == "play":
            got = self.play(player, m["position"], m["word"], rack, note)
            if got.score != score:
                raise RecordError(f"the play scores {got.score}, the record says {score}")
        elif kind == "pass":
            self.pass_turn(player, rack, note)
        elif kind == "exchange":
            self.exchange(player, str(m["tiles"]), rack, note)
        elif kind == "phony":
            self.take_back(note)
        elif kind == "challenge":
            self.challenge_bonus(player, score, note)
        elif kind == "time":
            self.time_penalty(player, score)
        else:  # out / rack: one line each, as written
            self._add(Move(player, kind, score, tiles=str(m.get("tiles", "")), note=note))
            self.finished = True


# -- GCG ---------------------------------------------------------------------------------------------


def _nick(name: str, taken: str = "") -> str:
    """A GCG nickname: the name without white space (GCG's tokens), distinct from ``taken``."""
    nick = re.sub(r"\s+", "_", name.strip()) or "player"
    if nick == taken:
        nick += "_2"
    return nick


def _played(move: Move) -> str:
    """The tiles a play took from the rack, blanks as ``?``."""
    return move.tiles


def _rack(move: Move, last: dict[str, str]) -> str:
    """The rack written on a line: the one recorded, else the tiles played (blanks as ``?``),
    else the player's rack of his last line (GCG needs one on every line but the last racks)."""
    if move.rack:
        return move.rack
    if move.kind == "play":
        return _played(move) or BLANK
    if move.kind == "exchange" and not move.tiles.isdigit():
        return move.tiles
    return last.get(move.player, "") or BLANK


def write_gcg(record: GameRecord) -> str:
    """The record as a GCG file (UTF-8; the first mover is ``#player1``)."""
    order = [record.first, other(record.first)]
    n1 = _nick(record.players[order[0]])
    nicks = {order[0]: n1, order[1]: _nick(record.players[order[1]], n1)}
    lines = ["#character-encoding UTF-8"]
    for i, colour in enumerate(order, 1):
        lines.append(f"#player{i} {nicks[colour]} {record.players[colour]}")
    if record.title:
        lines.append(f"#title {record.title}")
    lines.append(f"#description colours: player1 {order[0]}, player2 {order[1]}")
    if record.lexicon:
        lines.append(f"#lexicon {record.lexicon}")
    for m in record.moves:
        who = f">{nicks[m.player]}:"
        rack = m.rack
        if m.kind == "play":
            body = f"{rack} {m.position} {m.word} +{m.score}"
        elif m.kind == "pass":
            body = f"{rack} - +0"
        elif m.kind == "exchange":
            body = f"{rack} -{m.tiles} +0"
        elif m.kind == "phony":
            body = f"{rack} -- {m.score}"
        elif m.kind == "challenge":
            body = f"{rack} (challenge) {m.score:+d}"
        elif m.kind == "time":
            body = f"{rack} (time) {m.score:+d}"
        elif m.kind == "out":
            body = f"({m.tiles}) {m.score:+d}"
        else:  # rack
            body = f"{m.tiles} ({m.tiles}) {m.score:+d}"
        lines.append(" ".join(f"{who} {body} {m.total}".split()))
        if m.note:
            lines.append(f"#note {m.note}")
    return "\n".join(lines) + "\n"


_SCORE = r"([+-][0-9]{1,4})"
_TOTAL = r"(-?[0-9]{1,5})"
_EVENT = re.compile(r"^>([^:\s]+):\s*(.*)$")


def read_gcg(text: str, name: str = "GCG") -> GameRecord:
    """Read a GCG file into a record (the plays scored anew on the board and checked against the
    file's scores and totals).

    Raises:
        RecordError: ``name:LINE: problem`` for the first line that cannot be read, naming what
            is accepted.
    """
    if not isinstance(text, str):
        raise RecordError(f"{name}: not text")
    nicks: dict[str, str] = {}
    names: dict[str, str] = {}
    colours_note = ""
    title = lexicon = ""
    rec: GameRecord | None = None
    seen_players: list[str] = []

    def start() -> GameRecord:
        if len(seen_players) != 2:
            raise RecordError("a move before both #player1 and #player2")
        first = "red" if re.search(r"player1 red", colours_note) else "blue"
        colour = {seen_players[0]: first, seen_players[1]: other(first)}
        nicks.update(colour)
        return GameRecord(
            players={colour[n]: names[n] for n in seen_players},
            first=first,
            lexicon=lexicon,
            title=title,
        )

    for n, raw in enumerate(re.split(r"[\r\n]+", text), 1):
        line = raw.strip()
        if not line:
            continue
        try:
            if line.startswith("#"):
                key, _, rest = line[1:].partition(" ")
                rest = rest.strip()
                if key in ("player1", "player2"):
                    nick, _, full = rest.partition(" ")
                    if not nick or nick in names or rec is not None:
                        raise RecordError(f"#{key}: accepted '#{key} NICK Full name', once")
                    names[nick] = full.strip() or nick
                    seen_players.append(nick)
                elif key == "title":
                    title = rest
                elif key == "description":
                    colours_note = rest
                elif key == "lexicon":
                    lexicon = rest
                elif key == "note" and rec is not None and rec.moves:
                    rec.moves[-1].note = rest
                continue
            m = _EVENT.match(line)
            if not m:
                raise RecordError(
                    "not a pragma (#...) nor a move (>NICK: RACK POSITION WORD +SCORE TOTAL)"
                )
            if rec is None:
                rec = start()
            nick, body = m.group(1), m.group(2).split()
            if nick not in nicks:
                raise RecordError(f"player {nick!r} is not #player1 or #player2")
            _event(rec, nicks[nick], body)
        except RecordError as exc:
            raise RecordError(f"{name}:{n}: {exc}") from None
    if rec is None:
        if len(seen_players) == 2:
            return start()
        raise RecordError(f"{name}: no #player1 and #player2 lines: not a GCG file")
    return rec


def _event(rec: GameRecord, colour: str, body: list[str]) -> None:
    """Apply one GCG event line's tokens (after ``>NICK:``) to ``rec``."""
    accepted = (
        "accepted: RACK POSITION WORD +SCORE TOTAL, RACK - +0 TOTAL, RACK -TILES +0 TOTAL, "
        "RACK -- -SCORE TOTAL, RACK (challenge) +SCORE TOTAL, RACK (time) -SCORE TOTAL, "
        "(RACK) +SCORE TOTAL, RACK (RACK) -SCORE TOTAL"
    )
    if len(body) < 2 or not re.fullmatch(_TOTAL, body[-1]) or not re.fullmatch(_SCORE, body[-2]):
        raise RecordError(f"{' '.join(body)!r}: {accepted}")
    score, total = int(body[-2]), int(body[-1])
    head = body[:-2]
    keyword = ("(challenge)", "(time)")
    if len(head) == 1 and head[0] not in keyword and re.fullmatch(r"\([A-Za-z?]+\)", head[0]):
        move = rec._add(Move(colour, "out", score, tiles=head[0][1:-1]))
        rec.finished = True
    elif len(head) == 2 and head[1] == "(challenge)":
        move = rec.challenge_bonus(colour, score)
    elif len(head) == 2 and head[1] == "(time)":
        move = rec.time_penalty(colour, score)
    elif len(head) == 2 and head[1] not in keyword and re.fullmatch(r"\([A-Za-z?]+\)", head[1]):
        move = rec._add(Move(colour, "rack", score, tiles=head[1][1:-1]))
        rec.finished = True
    elif len(head) == 2 and head[1] == "--":
        move = rec.take_back()
    elif len(head) == 2 and head[1] == "-":
        move = rec.pass_turn(colour, head[0])
    elif len(head) == 2 and head[1].startswith("-"):
        move = rec.exchange(colour, head[1][1:], head[0])
    elif len(head) == 3:
        move = rec.play(colour, head[1], head[2], head[0])
        if move.player != colour:
            raise RecordError("a play by the wrong player")
    else:
        raise RecordError(f"{' '.join(body)!r}: {accepted}")
    _check_rack(head[0] if head else "")
    if move.score != score:
        raise RecordError(f"the move scores {move.score}, the line says {score:+d}")
    if move.total != total:
        raise RecordError(f"the running total is {move.total}, the line says {total}")


def _check_rack(rack: str) -> None:
    inner = rack.strip("()")
    if inner and any(ch != BLANK and ch.upper() not in LETTER_VALUES for ch in inner):
        raise RecordError(f"rack {rack!r}: accepted letters A-Z and ? (a blank)")


def record_from_text(text: str, name: str = "record") -> GameRecord:
    """A record from a file's text: a table's saved game (JSON: ``{"result": {"game_record":
    ...}, ...}``), a record's own JSON (:meth:`GameRecord.to_json`), or a GCG file.

    Raises:
        RecordError: none of these, naming the file and what is accepted.
    """
    stripped = text.lstrip()
    if stripped.startswith("{"):
        from companion.textformats import loads_json

        try:
            data = loads_json(stripped)
        except ValueError as exc:
            raise RecordError(f"{name}: not JSON ({exc})") from None
        if isinstance(data, dict) and isinstance(data.get("result"), dict):
            inner = data["result"].get("game_record")
            if inner is None:
                raise RecordError(
                    f"{name}: a saved game with no crossword game record (result.game_record); "
                    "accepted: a game the table saved in the scrabble mode"
                )
            data = inner
        return GameRecord.from_json(data, name)
    return read_gcg(text, name)


__all__ = [
    "GameRecord",
    "Move",
    "RecordError",
    "format_board",
    "parse_board",
    "rack_value",
    "read_gcg",
    "record_from_text",
    "write_gcg",
]
