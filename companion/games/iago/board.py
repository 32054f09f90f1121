"""The Iago board: cells, board notation, words, counts, the centre and connection.

Source: Iago rulebook, "Equipment" (an 11x11 board; tiles printed red on one side and blue on the
other), "How to Play" (the first word is positioned centrally, later words connect to it as in a
crossword; condition (1): every run of two or more letters, left to right and top to bottom, is a
word; condition (2): the lead is at least one more letter of one's colour). Notation: DESIGN.md,
"Board notation".

A board is immutable. Inside, rows and columns are 0-based indices; in messages and JSON they are
1-based ("row 1, column 1" is the top-left cell). A cell holds ``None`` (empty) or a letter: an
upper-case letter is a tile showing its BLUE side, a lower-case letter its RED side, exactly as
in the notation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property

from companion.errors import CompanionError
from companion.textformats import shown

COLOURS = ("blue", "red")
IAGO_SIZE = 11
"""The Iago board is 11x11 (rulebook, "Equipment")."""
MAX_SIZE = 50
"""The largest square grid the notation accepts (Scrabble boards are 15x15)."""
ACROSS = "across"
DOWN = "down"
EMPTY = "."


@dataclass(frozen=True)
class NotationProblem:
    """Where a written board goes wrong, 1-based, for callers that word their own messages.

    ``row`` is the bad row (None: the number of rows is wrong); ``column`` the cell where the
    row goes wrong (None: the row as a whole); ``cells`` how many cells the row has (or how many
    rows the board has) when that is what is wrong, else None; ``expected`` how many are needed.
    ``str()`` reads ``"row 2 column 3"``, ``"row 2 has 4 cells: expected 3"`` or
    ``"has 10 rows: expected 11"``; ``why`` is the parser's whole sentence for it (what the
    cell is and why it is none: ``"row 2, column 3: '#' is not a letter..."``), or empty.
    """

    row: int | None
    column: int | None = None
    cells: int | None = None
    expected: int | None = None
    why: str = field(default="", compare=False)  # the parser's own words for this row's fault

    def __str__(self) -> str:
        if self.row is None:
            return f"has {self.cells} rows: expected {self.expected}"
        if self.cells is not None:
            return f"row {self.row} has {self.cells} cells: expected {self.expected}"
        if self.column is not None:
            return f"row {self.row} column {self.column}"
        return f"row {self.row}"


class BoardNotationError(CompanionError, ValueError):
    """A board written wrongly; the message names each bad row and column and what is accepted.

    ``problems`` holds a :class:`NotationProblem` for each bad row (empty when the text is not
    a board at all: not text, empty, or too many rows).
    """

    def __init__(self, message: str, problems: tuple[NotationProblem, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


def colour_of(letter: str) -> str:
    """The side a tile shows: ``"blue"`` for an upper-case letter, ``"red"`` for lower case."""
    return "blue" if letter.isupper() else "red"


def show(letter: str, colour: str) -> str:
    """``letter`` written as a tile showing ``colour`` (upper case blue, lower case red)."""
    return letter.upper() if colour == "blue" else letter.lower()


def cell_name(row: int, col: int) -> str:
    """A 0-based cell as people read it: ``cell_name(0, 4) == "row 1, column 5"``."""
    return f"row {row + 1}, column {col + 1}"


@dataclass(frozen=True)
class Word:
    """A run of two or more letters on the board (rulebook, "How to Play", condition (1)).

    ``text`` is upper case; ``row``/``col`` (0-based) is its first cell; ``direction`` is
    ``"across"`` (left to right) or ``"down"`` (top to bottom).
    """

    text: str
    row: int
    col: int
    direction: str

    @cached_property
    def key(self) -> tuple[str, int, int, int]:
        """Where the word lies, whatever its letters: (direction, row, col, length)."""
        return (self.direction, self.row, self.col, len(self.text))

    @cached_property
    def cells(self) -> tuple[tuple[int, int], ...]:
        """The word's cells (row, col), 0-based, first letter first."""
        if self.direction == ACROSS:
            return tuple((self.row, self.col + i) for i in range(len(self.text)))
        return tuple((self.row + i, self.col) for i in range(len(self.text)))

    def to_json(self) -> dict:
        """``{"word", "direction", "row", "column"}`` with the first cell 1-based."""
        return {
            "word": self.text,
            "direction": self.direction,
            "row": self.row + 1,
            "column": self.col + 1,
        }


@dataclass(frozen=True)
class Board:
    """A square grid of cells, ``size`` x ``size`` (Iago: 11x11).

    ``grid`` is the cells row by row, ``size * size`` characters: ``.`` empty, ``A``-``Z`` a tile
    showing blue, ``a``-``z`` a tile showing red. Build boards with :func:`parse_board` or
    :meth:`empty`; ``str(board)`` is the board notation.

    Raises:
        BoardNotationError: ``grid`` has the wrong length or a character other than those.
    """

    grid: str
    size: int = IAGO_SIZE

    def __post_init__(self) -> None:
        if not 1 <= self.size <= MAX_SIZE or len(self.grid) != self.size * self.size:
            raise BoardNotationError(
                f"a {self.size}x{self.size} board needs {self.size * self.size} cells, "
                f"got {len(self.grid)}"
            )
        bad = set(self.grid) - _CELL_CHARS
        if bad:
            raise BoardNotationError(
                f"board cells {sorted(bad)!r} are not accepted; accepted: '.', A-Z, a-z"
            )

    @classmethod
    def empty(cls, size: int = IAGO_SIZE) -> Board:
        """The empty board (``11/11/11/11/11/11/11/11/11/11/11`` for Iago)."""
        return cls(EMPTY * (size * size), size)

    @classmethod
    def from_rows(cls, rows: list[str]) -> Board:
        """A board from rows of ``.`` and letters, all the same length as there are rows."""
        return parse_board("\n".join(rows), size=None)

    def __str__(self) -> str:
        return format_board(self)

    # -- cells ----------------------------------------------------------------------------

    def at(self, row: int, col: int) -> str | None:
        """The tile at (row, col), 0-based, as a letter (case = side shown), or None if empty."""
        c = self.grid[row * self.size + col]
        return None if c == EMPTY else c

    def colour(self, row: int, col: int) -> str | None:
        """``"blue"``, ``"red"`` or None (empty) at (row, col), 0-based."""
        c = self.grid[row * self.size + col]
        return None if c == EMPTY else colour_of(c)

    @property
    def centre(self) -> tuple[int, int]:
        """The centre cell (5, 5) of the Iago board, 0-based (for an even size, the lower right
        of the middle four)."""
        return (self.size // 2, self.size // 2)

    def tiles(self) -> Iterator[tuple[int, int]]:
        """Every occupied cell (row, col), row by row."""
        n = self.size
        for i, c in enumerate(self.grid):
            if c != EMPTY:
                yield divmod(i, n)

    def is_empty(self) -> bool:
        """True when no tile is on the board."""
        return self.grid.count(EMPTY) == len(self.grid)

    def counts(self) -> dict[str, int]:
        """How many tiles show each side: ``{"blue": n, "red": n}``."""
        blue = sum(1 for c in self.grid if "A" <= c <= "Z")
        red = sum(1 for c in self.grid if "a" <= c <= "z")
        return {"blue": blue, "red": red}

    def leader(self) -> str | None:
        """The colour with the lead (at least one more tile than the other), or None if level.

        Rulebook, "How to Play", condition (2).
        """
        c = self.counts()
        if c["blue"] > c["red"]:
            return "blue"
        if c["red"] > c["blue"]:
            return "red"
        return None

    def has_lead(self, colour: str) -> bool:
        """True when ``colour`` shows at least one more tile than the other colour."""
        return self.leader() == colour

    def with_cells(self, changes: dict[tuple[int, int], str | None]) -> Board:
        """A copy with some cells set: ``{(row, col): letter or None}`` (0-based)."""
        g = list(self.grid)
        for (r, c), v in changes.items():
            g[r * self.size + c] = EMPTY if v is None else v
        return Board("".join(g), self.size)

    def letters(self) -> str:
        """The grid with colours dropped (upper case): two boards with the same letters in the
        same cells have equal ``letters()``."""
        return self.grid.upper()

    # -- words and connection -------------------------------------------------------------

    def words(self) -> list[Word]:
        """Every run of two or more letters: across words row by row, then down words column by
        column (rulebook, "How to Play", condition (1)). Text in upper case."""
        return list(self._words)

    @cached_property
    def _words(self) -> tuple[Word, ...]:
        n = self.size
        g = self.grid.upper()
        out: list[Word] = []
        for r in range(n):
            line = g[r * n : (r + 1) * n]
            out.extend(Word(run, r, c, ACROSS) for c, run in _runs(line))
        for c in range(n):
            line = g[c::n]
            out.extend(Word(run, r, c, DOWN) for r, run in _runs(line))
        return tuple(out)

    @cached_property
    def word_at(self) -> dict[tuple[str, tuple[int, int]], Word]:
        """``(direction, (row, col))`` -> the word of that direction through the cell."""
        index: dict[tuple[str, tuple[int, int]], Word] = {}
        for w in self._words:
            for cell in w.cells:
                index[(w.direction, cell)] = w
        return index

    def groups(self) -> list[list[tuple[int, int]]]:
        """The tiles in groups connected vertically or horizontally, largest first (ties: the
        group holding the earliest cell first)."""
        n = self.size
        g = self.grid
        seen = [False] * (n * n)
        groups: list[list[tuple[int, int]]] = []
        for start in range(n * n):
            if g[start] == EMPTY or seen[start]:
                continue
            seen[start] = True
            stack, group = [start], []
            while stack:
                i = stack.pop()
                group.append(i)
                r, c = divmod(i, n)
                for j, ok in (
                    (i - n, r > 0),
                    (i + n, r < n - 1),
                    (i - 1, c > 0),
                    (i + 1, c < n - 1),
                ):
                    if ok and not seen[j] and g[j] != EMPTY:
                        seen[j] = True
                        stack.append(j)
            groups.append(sorted(divmod(i, n) for i in group))
        groups.sort(key=lambda grp: -len(grp))
        return groups


_CELL_CHARS = set(EMPTY + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _runs(line: str) -> Iterator[tuple[int, str]]:
    """(start, run) for each run of two or more letters in ``line`` ('.' separates runs)."""
    start = None
    for i, ch in enumerate(line + EMPTY):
        if ch != EMPTY:
            if start is None:
                start = i
        elif start is not None:
            if i - start >= 2:
                yield start, line[start:i]
            start = None


# -- notation -------------------------------------------------------------------------------

NOTATION_HELP = (
    "accepted: rows from top to bottom separated by '/' (or one row a line), each row made of "
    "upper-case letters (tiles showing blue), lower-case letters (tiles showing red), and either "
    "numbers 1 or more (that many empty cells) or '.' (one empty cell), never both in one row; "
    "e.g. the empty Iago board 11/11/11/11/11/11/11/11/11/11/11"
)


def parse_board(text: str, size: int | None = IAGO_SIZE) -> Board:
    """Read a board written in board notation (DESIGN.md, "Board notation").

    Rows run from top to bottom, separated by ``/`` or line breaks; in a row an upper-case
    letter is a tile showing its blue side, a lower-case letter one showing its red side, a
    number (one or more digits, so ``11`` is eleven) that many empty cells, or ``.`` one empty
    cell: a row writes its empty cells one way or the other, never both (``4P1T4`` or
    ``....P.T....``, not ``4P.T4``). Spaces around rows are ignored, as are blank lines before
    and after the board. ``size`` is the expected number of rows and columns (Iago: 11); None
    accepts any square grid from 1x1 to 50x50.

    Raises:
        BoardNotationError: naming every bad row (and the column where it goes wrong): a
            character that is not a letter, digit or '.', a row mixing numbers and '.' (at the
            first character written the other way), a number 0 or with a leading zero, a row
            with too few or too many cells, the wrong number of rows, or an empty board.
    """
    rows = parse_rows(text, size)
    return Board("".join(rows), len(rows))


def parse_rows(text: str, size: int | None = IAGO_SIZE, *, blank: str | None = None) -> list[str]:
    """The rows written in board notation, as :func:`parse_board` reads them, without making a
    :class:`Board`: a list of ``size`` strings of ``size`` characters, top row first, each
    ``.`` (empty) or a letter.

    ``blank``, if given (the board reader passes ``"?"``), is one more character accepted as a
    cell: a blank tile, a tile with no letter (Scrabble's blanks), kept as it is in the rows.

    Raises:
        BoardNotationError: as :func:`parse_board`, with ``problems`` saying where.
    """
    help_text = NOTATION_HELP if blank is None else f"{NOTATION_HELP}; {blank!r} is a blank tile"
    if not isinstance(text, str):
        raise BoardNotationError(f"board {shown(text)} is not text; {help_text}")
    body = text.strip()
    if not body:
        raise BoardNotationError(f"board is empty; {help_text}")
    if "/" in body:
        rows = [r.strip() for r in body.split("/")]
    else:
        rows = [r.strip() for r in body.splitlines()]
    n = len(rows) if size is None else size
    errors: list[str] = []
    problems: list[NotationProblem] = []
    if not 1 <= n <= MAX_SIZE:
        raise BoardNotationError(
            f"board {_quote(body)} has {len(rows)} rows; accepted: 1 to {MAX_SIZE} rows "
            f"and as many columns"
        )
    if len(rows) != n:
        errors.append(f"the board has {len(rows)} rows; a {n}x{n} board needs {n}")
        problems.append(NotationProblem(None, cells=len(rows), expected=n))
    cells: list[str] = []
    for r, row in enumerate(rows):
        row_cells, problem = _parse_row(row, r, n, blank)
        if problem:
            errors.append(problem[0])
            problems.append(replace(problem[1], why=problem[0]))
        cells.append("".join(row_cells))
    if errors:
        raise BoardNotationError(
            f"board {_quote(body)}: " + "; ".join(errors) + f"; {help_text}", tuple(problems)
        )
    return cells


_TOKENS = re.compile(r"[0-9]+|.", re.DOTALL)
_DIGITS = "0123456789"  # ASCII only: str.isdigit() also takes '²', '①', '٣'


def _run(digits: str) -> int:
    """The number of empty cells a run of ASCII digits stands for; a run too long for any board
    counts as more cells than a board holds (never ``int()`` of thousands of digits)."""
    return int(digits) if len(digits) <= 6 else 10**6


def _parse_row(
    row: str, r: int, n: int, blank: str | None = None
) -> tuple[list[str], tuple[str, NotationProblem] | None]:
    where = f"row {r + 1}"
    if not row:
        return [], (f"{where} is empty", NotationProblem(r + 1, cells=0, expected=n))
    if any(ch.isspace() for ch in row):
        return [], (
            f"{where} {_quote(row)} has a space inside; write empty cells as '.' or a number",
            NotationProblem(r + 1),
        )

    def too_long(col: int, text: str) -> tuple[list[str], tuple[str, NotationProblem]]:
        cells = sum(_run(t) if t[0] in _DIGITS else 1 for t in _TOKENS.findall(row))
        return [], (f"{where}, column {col}: {text}", NotationProblem(r + 1, col, cells, n))

    out: list[str] = []
    style: str | None = None  # how the row writes empty cells: "numbers" or "dots"
    i = 0
    while i < len(row):
        ch = row[i]
        col = len(out) + 1
        if ch in _DIGITS or ch == EMPTY:
            kind = "numbers" if ch in _DIGITS else "dots"
            style = style or kind
            if kind != style:
                return [], (_mixed_row(row, r, i, col, n, blank), NotationProblem(r + 1, col))
        if ch in _DIGITS:
            j = i
            while j < len(row) and row[j] in _DIGITS:
                j += 1
            digits = row[i:j]
            if digits[0] == "0":
                return [], (
                    f"{where}, column {col}: the number {_quote(digits)} "
                    + ("is zero" if not digits.strip("0") else "has a leading zero")
                    + "; a run of empty cells is a number from 1",
                    NotationProblem(r + 1, col),
                )
            count = _run(digits)
            if len(out) + count > n:
                return too_long(
                    col,
                    f"{_quote(digits)} empty cells run past the {n} columns (row {_quote(row)})",
                )
            out.extend(EMPTY * count)
            i = j
            continue
        if ch in (EMPTY, blank) or "A" <= ch <= "Z" or "a" <= ch <= "z":
            if len(out) >= n:
                return too_long(col, f"{_quote(row)} has more than {n} cells")
            out.append(ch)
            i += 1
            continue
        accepted = (
            "a number (digits 0-9) or '.'"
            if blank is None
            else f"a number (digits 0-9), {blank!r} or '.'"
        )
        return [], (
            f"{where}, column {col}: {ch!r} is not a letter A-Z/a-z, {accepted}",
            NotationProblem(r + 1, col),
        )
    if len(out) < n:
        return [], (
            f"{where} {_quote(row)} has {len(out)} cells, {n} needed (ends at column {len(out)})",
            NotationProblem(r + 1, cells=len(out), expected=n),
        )
    return out, None


def _mixed_row(row: str, r: int, i: int, col: int, n: int, blank: str | None) -> str:
    """The error for a row writing empty cells both as numbers and as '.' (DESIGN.md, "Board
    notation": numbers always merged, or lines of '.' and letters), at character ``i``."""
    written = f"the number starting {row[i]!r}" if row[i] in _DIGITS else "'.'"
    other = "'.'" if row[i] in _DIGITS else "numbers"
    text = (
        f"row {r + 1}, column {col} (character {i + 1} of {_quote(row)}): {written} in a row that "
        f"writes empty cells as {other}; a row writes its empty cells either as numbers or as "
        "'.', never both"
    )
    cells: list[str] = []
    for token in _TOKENS.findall(row):
        if token[0] in _DIGITS:
            if token[0] == "0" or _run(token) > n:
                return text
            cells.extend(EMPTY * _run(token))
        elif token in (EMPTY, blank) or "A" <= token <= "Z" or "a" <= token <= "z":
            cells.append(token)
        else:
            return text
    if len(cells) == n:
        text += f" (this row reads {format_rows([''.join(cells)])!r} or {''.join(cells)!r})"
    return text


def _quote(body: str) -> str:
    return repr(body) if len(body) <= 80 else repr(body[:77] + "...")


def format_rows(rows: Iterable[str]) -> str:
    """Board notation of ``rows`` (strings of ``.`` and other cell characters, top row first):
    rows joined by ``/``, each run of ``.`` merged into one number."""
    out = []
    for line in rows:
        cells, gap = [], 0
        for ch in line:
            if ch == EMPTY:
                gap += 1
                continue
            if gap:
                cells.append(str(gap))
                gap = 0
            cells.append(ch)
        if gap:
            cells.append(str(gap))
        out.append("".join(cells))
    return "/".join(out)


def _rows(board: Board) -> list[str]:
    n = board.size
    return [board.grid[r * n : (r + 1) * n] for r in range(n)]


def format_board(board: Board) -> str:
    """The board in board notation, runs of empty cells always merged into one number.

    ``parse_board(format_board(b), size=None) == b`` for every board.
    """
    return format_rows(_rows(board))


def format_lines(board: Board) -> str:
    """The board as lines of ``.`` and letters, one row a line (also accepted by
    :func:`parse_board`)."""
    return "\n".join(_rows(board))
