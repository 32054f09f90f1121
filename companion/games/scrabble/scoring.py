"""Scoring a move and ruling on its placement; the end-of-game adjustments.

Source: the standard rules of the game (which WESPA's Game Rules and NASPA's Official
Tournament Rules take as the base):

- "The first player combines two or more of his or her letters to form a word and places it on
  the board ... one letter on the center square";
- a move places one or more tiles in one row or one column, forming one continuous word with the
  tiles they touch (no gap), and every new word must join the tiles already played;
- each letter scores its value; a double- or triple-letter square doubles or triples the letter on
  it, a double- or triple-word square the whole word; letter premiums are counted before word
  premiums, and a premium counts only in the move that covers it;
- every word formed or modified counts in full (the cross-words), with premiums only under the
  new tiles; a blank scores 0 (its square's word premium still counts);
- playing all seven tiles adds 50 points (a bingo), after the words are added;
- the game ends when a player uses his last tile with the bag empty, or after six scoreless turns
  in a row: each player's score is reduced by the sum of his unplayed tiles, and the player who
  went out adds the sum of the others' unplayed tiles to his.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.scrabble.board import ACROSS, DOWN, Rows, cell_name, position
from companion.games.scrabble.tiles import (
    BINGO_BONUS,
    CENTRE,
    LETTER_MULTIPLIER,
    PREMIUM,
    RACK_SIZE,
    SIZE,
    WORD_MULTIPLIER,
    rack_value,
    tile_value,
)

EMPTY = "."
VIOLATIONS = {
    "no-tiles": "no tile was placed",
    "not-in-line": "the tiles placed are not all in one row or one column",
    "gap": "the tiles placed leave an empty square between them",
    "disconnected": "the word does not join the tiles already on the board",
    "off-centre": "the first word does not cover the centre square (H8)",
    "one-letter": "the first word needs two or more letters",
    "too-many-tiles": "more than seven tiles placed (a rack holds seven)",
    "tiles-moved": "a tile already on the board was moved or changed",
}
"""The codes of an illegal placement, each with what it means (the first six are DESIGN.md's;
``one-letter`` and ``too-many-tiles`` name the two cases its codes leave open)."""


@dataclass(frozen=True)
class WordScore:
    """One word a move forms: ``word`` as on the board (a blank in lower case), its ``score``
    (letter and word premiums under the new tiles only, no bingo), where it starts (``row``,
    ``col`` 0-based), its ``direction`` and GCG ``position``."""

    word: str
    score: int
    row: int
    col: int
    direction: str

    @property
    def position(self) -> str:
        """The GCG coordinate: ``8D`` across, ``H8`` down."""
        return position(self.row, self.col, self.direction)

    def to_json(self) -> dict:
        """``{"word", "score", "position", "direction"}``."""
        return {
            "word": self.word,
            "score": self.score,
            "position": self.position,
            "direction": self.direction,
        }


@dataclass(frozen=True)
class Violation:
    """Why a placement is illegal: ``code`` (:data:`VIOLATIONS`), a sentence, the squares."""

    code: str
    message: str
    squares: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """``{"code", "message", "squares"}``."""
        return {"code": self.code, "message": self.message, "squares": list(self.squares)}


@dataclass(frozen=True)
class MoveScore:
    """A move ruled and scored: ``legal``; ``score`` the move's total (bingo included; 0 when
    illegal); ``bingo``; ``words`` main word first (empty when illegal); ``violations``;
    ``placed`` the new tiles as ``(row, col, tile)``."""

    legal: bool
    score: int
    bingo: bool
    words: tuple[WordScore, ...] = ()
    violations: tuple[Violation, ...] = ()
    placed: tuple[tuple[int, int, str], ...] = field(default=())

    @property
    def main(self) -> WordScore | None:
        """The main word (along the tiles' line), or None for an illegal move."""
        return self.words[0] if self.words else None

    def to_json(self) -> dict:
        """DESIGN.md's ``companion scrabble score`` object, with ``position`` of the main word
        and the tiles placed."""
        main = self.main
        return {
            "legal": self.legal,
            "score": self.score,
            "bingo": self.bingo,
            "words": [w.to_json() for w in self.words],
            "violations": [v.to_json() for v in self.violations],
            "position": main.position if main else None,
            "placed": [cell_name(r, c) + "=" + t for r, c, t in self.placed],
        }


def _at(rows: Rows, r: int, c: int) -> str:
    if 0 <= r < SIZE and 0 <= c < SIZE:
        return rows[r][c]
    return EMPTY


def _step(direction: str) -> tuple[int, int]:
    return (0, 1) if direction == ACROSS else (1, 0)


def word_through(rows: Rows, r: int, c: int, direction: str) -> tuple[int, int, str]:
    """The run of tiles through (``r``, ``c``) along ``direction``: ``(row, col, letters)`` of its
    first square (letters as written, blanks in lower case)."""
    dr, dc = _step(direction)
    while _at(rows, r - dr, c - dc) != EMPTY:
        r, c = r - dr, c - dc
    start = (r, c)
    letters = []
    while _at(rows, r, c) != EMPTY:
        letters.append(rows[r][c])
        r, c = r + dr, c + dc
    return start[0], start[1], "".join(letters)


def score_word(
    rows: Rows, row: int, col: int, direction: str, new: set[tuple[int, int]]
) -> WordScore:
    """The score of the word starting at (``row``, ``col``) along ``direction`` on ``rows``:
    each tile's value, times its letter premium when it is new; the sum times the word premiums
    under the new tiles (premiums used once)."""
    dr, dc = _step(direction)
    r, c = row, col
    total, factor, letters = 0, 1, []
    while _at(rows, r, c) != EMPTY:
        tile = rows[r][c]
        letters.append(tile)
        value = tile_value(tile)
        if (r, c) in new:
            kind = PREMIUM.get((r, c), "")
            value *= LETTER_MULTIPLIER.get(kind, 1)
            factor *= WORD_MULTIPLIER.get(kind, 1)
        total += value
        r, c = r + dr, c + dc
    return WordScore("".join(letters), total * factor, row, col, direction)


def placed_tiles(before: Rows, after: Rows) -> tuple[list[tuple[int, int, str]], list[str]]:
    """The tiles new in ``after`` (``(row, col, tile)``, reading order) and the squares whose tile
    of ``before`` is gone or changed."""
    placed, moved = [], []
    for r in range(SIZE):
        for c in range(SIZE):
            b, a = before[r][c], after[r][c]
            if b == a:
                continue
            if b == EMPTY:
                placed.append((r, c, a))
            else:
                moved.append(cell_name(r, c))
    return placed, moved


def _violation(code: str, squares=()) -> Violation:
    return Violation(code, VIOLATIONS[code], tuple(squares))


def score_move(before: Rows, after: Rows) -> MoveScore:
    """Rule on and score the move that turns ``before`` into ``after`` (both 15x15 rows).

    The main word lies along the line of the tiles placed; for one tile, the longer of its two
    words (across when equal). Words are not judged here (a phony stands until challenged).

    Returns:
        a :class:`MoveScore`; an illegal move scores 0 and lists every violation found.
    """
    placed, moved = placed_tiles(before, after)
    violations: list[Violation] = []
    if moved:
        violations.append(_violation("tiles-moved", moved))
    if not placed:
        violations.append(_violation("no-tiles"))
        return MoveScore(False, 0, False, (), tuple(violations), ())
    squares = [cell_name(r, c) for r, c, _ in placed]
    if len(placed) > RACK_SIZE:
        violations.append(_violation("too-many-tiles", squares))
    rows_used = {r for r, _, _ in placed}
    cols_used = {c for _, c, _ in placed}
    if len(rows_used) > 1 and len(cols_used) > 1:
        violations.append(_violation("not-in-line", squares))
        return MoveScore(False, 0, False, (), tuple(violations), tuple(placed))
    new = {(r, c) for r, c, _ in placed}
    if len(placed) == 1:
        r, c, _ = placed[0]
        across = word_through(after, r, c, ACROSS)
        down = word_through(after, r, c, DOWN)
        direction = DOWN if len(down[2]) > len(across[2]) else ACROSS
    else:
        direction = ACROSS if len(rows_used) == 1 else DOWN
    dr, dc = _step(direction)
    r0, c0, _ = placed[0]
    r1, c1, _ = placed[-1]
    gaps = []
    r, c = r0, c0
    while (r, c) != (r1, c1):
        r, c = r + dr, c + dc
        if after[r][c] == EMPTY:
            gaps.append(cell_name(r, c))
    if gaps:
        violations.append(_violation("gap", gaps))
    first = all(ch == EMPTY for row in before for ch in row)
    main_row, main_col, main_letters = word_through(after, r0, c0, direction)
    if first:
        if CENTRE not in new:
            violations.append(_violation("off-centre", squares))
        elif len(main_letters) < 2:
            violations.append(_violation("one-letter", squares))
    elif not _touches_old(after, new):
        violations.append(_violation("disconnected", squares))
    if violations:
        return MoveScore(False, 0, False, (), tuple(violations), tuple(placed))
    words = [score_word(after, main_row, main_col, direction, new)]
    cross = DOWN if direction == ACROSS else ACROSS
    for r, c, _ in placed:
        wr, wc, letters = word_through(after, r, c, cross)
        if len(letters) >= 2:
            words.append(score_word(after, wr, wc, cross, new))
    if len(words[0].word) < 2:  # one tile whose only word runs the other way
        words.pop(0)
    bingo = len(placed) == RACK_SIZE
    total = sum(w.score for w in words) + (BINGO_BONUS if bingo else 0)
    return MoveScore(True, total, bingo, tuple(words), (), tuple(placed))


def _touches_old(after: Rows, new: set[tuple[int, int]]) -> bool:
    """True when a new tile is next to (or the line of new tiles passes through) a tile that was
    already on the board."""
    for r, c in new:
        for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            rr, cc = r + dr, c + dc
            if (rr, cc) not in new and _at(after, rr, cc) != EMPTY:
                return True
    return False


@dataclass(frozen=True)
class EndAdjustment:
    """The end of the game's change to each score (``{"blue": n, "red": n}``), the unplayed tiles'
    values, and who went out (None: the game ended by scoreless turns)."""

    adjustments: dict[str, int]
    rack_values: dict[str, int]
    went_out: str | None


def end_of_game(racks: dict[str, str], went_out: str | None) -> EndAdjustment:
    """The end-of-game adjustments (standard rules, "End of the game"): each player's score is
    reduced by the sum of his unplayed tiles; when a player used all his tiles, the sum of the
    others' unplayed tiles is added to his score.

    Args:
        racks: each player's unplayed tiles (letters, ``?`` a blank), by colour.
        went_out: the player who used his last tile with the bag empty, or None (six scoreless
            turns, or time).

    Raises:
        ValueError: a rack that is not tiles, or ``went_out`` holding tiles.
    """
    values = {p: rack_value(rack) for p, rack in racks.items()}
    if went_out is not None:
        if went_out not in racks:
            raise ValueError(f"went_out {went_out!r} is not a player: {sorted(racks)}")
        if values[went_out] or racks[went_out].strip():
            raise ValueError(f"{went_out} went out but has tiles left: {racks[went_out]!r}")
    adj = {p: -v for p, v in values.items()}
    if went_out is not None:
        adj[went_out] = sum(v for p, v in values.items() if p != went_out)
    return EndAdjustment(adj, values, went_out)
