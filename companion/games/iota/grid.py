"""The Iota grid: cards on a table that grows in every direction, and its notation.

Source: Iota rules (shared/rules/iota-rules-es.txt): the game grows from the card turned up "en el
centro del área de juego" into a "red" (grid) of rows and columns, in any direction.

Coordinates are ``(row, column)`` integers, rows growing downwards and columns to the right; they
may be negative (the grid grows in every direction). A parsed grid puts its top-left cell at
``(0, 0)``. Messages and JSON count rows and columns from 0 too (row 0 is the first row written,
column 0 a row's first cell): one way of counting for ``iota score``, ``iota hint`` and the table,
where 0,0 is the starting card (docs/iota.md, "Cells").

Notation (DESIGN.md, "Iota grid notation"): rows from top to bottom separated by ``/`` or newlines,
cells separated by spaces (one or more); ``.`` an empty cell, ``*`` a wild card, a card as
``RT1``. Example: ``RT1 GT2 ./. GS2 .``. Decisions where DESIGN.md is silent:

- every row must have the same number of cells: a ragged row is rejected (its cards could belong
  to other columns, and guessing would silently move them). The error names the row and both
  counts;
- blank lines before and after the grid (a trailing newline) are ignored; a blank row inside it
  is an error (write ``. .`` for an empty row);
- the empty grid is written ``.`` (an empty text is accepted too);
- two grids compared in one call share one frame: cell (row, column) is the same place in both.
  When one is smaller, it is padded with empty cells at the bottom and right (the top-left cells
  coincide). :func:`format_grids` writes several grids in one common frame.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from companion.games.iota.cards import Card, IotaNotationError, card_problem, parse_card

Cell = tuple[int, int]
"""A cell of the grid: ``(row, column)``, 0-based, may be negative."""

EMPTY = "."
"""The notation of an empty cell."""

DIRECTIONS = {"row": (0, 1), "column": (1, 0)}
"""The two directions a line can run: along a row (left to right) or a column (top to bottom)."""


@dataclass(frozen=True)
class Frame:
    """A rectangle of cells: ``top``/``left`` the first row and column, ``height``/``width`` the
    counts (cells). Used to print grids, and to print several grids in one frame."""

    top: int
    left: int
    height: int
    width: int

    @property
    def bottom(self) -> int:
        """The last row (inclusive)."""
        return self.top + self.height - 1

    @property
    def right(self) -> int:
        """The last column (inclusive)."""
        return self.left + self.width - 1

    def union(self, other: Frame) -> Frame:
        """The smallest frame holding both."""
        top, left = min(self.top, other.top), min(self.left, other.left)
        bottom, right = max(self.bottom, other.bottom), max(self.right, other.right)
        return Frame(top, left, bottom - top + 1, right - left + 1)

    def __contains__(self, cell: object) -> bool:
        r, c = cell  # type: ignore[misc]
        return self.top <= r <= self.bottom and self.left <= c <= self.right


@dataclass(frozen=True)
class Grid:
    """The cards on the table: a mapping of :data:`Cell` to :class:`Card`, and an optional frame.

    ``frame`` is the rectangle the grid was written in (kept so that notation round-trips, empty
    border rows included); None means "just the cards' bounding box". Two grids are equal when
    their cards and frames are equal. Grids are immutable: :meth:`with_cards` returns a new one.
    """

    cards: Mapping[Cell, Card] = field(default_factory=dict)
    frame: Frame | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", dict(self.cards))

    def __getitem__(self, cell: Cell) -> Card | None:
        return self.cards.get(cell)

    def __contains__(self, cell: object) -> bool:
        return cell in self.cards

    def __iter__(self) -> Iterator[Cell]:
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __hash__(self) -> int:
        return hash((frozenset(self.cards.items()), self.frame))

    def is_empty(self, cell: Cell) -> bool:
        """True when no card lies on ``cell``."""
        return cell not in self.cards

    def bounds(self) -> Frame | None:
        """The frame of the cards alone (None for an empty grid)."""
        if not self.cards:
            return None
        rows = [r for r, _ in self.cards]
        cols = [c for _, c in self.cards]
        return Frame(min(rows), min(cols), max(rows) - min(rows) + 1, max(cols) - min(cols) + 1)

    def full_frame(self) -> Frame | None:
        """The written frame joined with the cards' bounding box (None: no frame, no card)."""
        b = self.bounds()
        if self.frame is None:
            return b
        return self.frame if b is None else self.frame.union(b)

    def with_cards(self, placements: Mapping[Cell, Card] | Iterable[tuple[Cell, Card]]) -> Grid:
        """A new grid with ``placements`` added (the frame grows to hold them)."""
        new = dict(self.cards)
        new.update(dict(placements))
        grid = Grid(new, self.frame)
        return Grid(new, grid.full_frame()) if self.frame is not None else grid

    def neighbours(self, cell: Cell) -> list[Cell]:
        """The cells touching ``cell`` by a side (up, down, left, right) that hold a card."""
        r, c = cell
        around = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        return [n for n in around if n in self.cards]

    def run(self, cell: Cell, direction: str) -> list[Cell]:
        """The unbroken run of cards through ``cell`` along ``direction`` (``"row"`` or
        ``"column"``), in order; ``cell`` itself counts as filled. A run of 2 to 4 cards is a line
        (rules: "Si hay algún hueco, no es una línea")."""
        dr, dc = DIRECTIONS[direction]
        r, c = cell
        start = 0
        while (r + (start - 1) * dr, c + (start - 1) * dc) in self.cards:
            start -= 1
        end = 0
        while (r + (end + 1) * dr, c + (end + 1) * dc) in self.cards:
            end += 1
        return [(r + k * dr, c + k * dc) for k in range(start, end + 1)]

    def translated(self, drow: int, dcol: int) -> Grid:
        """The same grid moved by ``drow`` rows and ``dcol`` columns."""
        cards = {(r + drow, c + dcol): card for (r, c), card in self.cards.items()}
        f = self.frame
        frame = None if f is None else Frame(f.top + drow, f.left + dcol, f.height, f.width)
        return Grid(cards, frame)

    def __str__(self) -> str:
        return format_grid(self)


def parse_grid(text: str, name: str = "grid") -> Grid:
    """Parse a grid in Iota grid notation (see the module docstring).

    Args:
        text: the notation, e.g. ``"RT1 GT2 ./. GS2 ."``.
        name: how to name the grid in errors (``"BEFORE"``).

    Returns:
        A :class:`Grid` whose top-left cell is ``(0, 0)`` and whose frame is the written rectangle.

    Raises:
        IotaNotationError: a bad cell (named by row and column, from 0), a ragged row, a blank row
            inside the grid. Every problem is reported at once.
    """
    lines = [line.strip() for line in text.replace("\r", "").split("\n")]
    rows: list[str] = []
    for line in lines:
        rows.extend(part.strip() for part in line.split("/"))
    while rows and not rows[0]:
        rows.pop(0)
    while rows and not rows[-1]:
        rows.pop()
    if not rows:
        return Grid({}, None)
    problems: list[str] = []
    cards: dict[Cell, Card] = {}
    widths: list[int] = []
    for r, row in enumerate(rows):
        if not row:
            problems.append(f"row {r} is blank (write '.' for each empty cell)")
            widths.append(0)
            continue
        cells = row.split()
        widths.append(len(cells))
        for c, token in enumerate(cells):
            if token == EMPTY:
                continue
            problem = card_problem(token)
            if problem is None:
                cards[(r, c)] = parse_card(token)
            else:
                problems.append(f"row {r}, column {c}: {token!r} is not a card ({problem})")
    width = max(widths)
    for r, w in enumerate(widths):
        if 0 < w != width:
            problems.append(
                f"row {r} has {w} cell{'s' if w != 1 else ''} where row "
                f"{widths.index(width)} has {width} "
                "(every row must have the same number of cells; write '.' for empty cells)"
            )
    if problems:
        raise IotaNotationError(
            f"{name} {text.strip()!r} is not an Iota grid: "
            + "; ".join(problems)
            + ". Accepted: rows separated by '/' or newlines, cells by spaces; '.' empty, "
            "'*' wild card, a card as colour R G B Y + shape T S C X + number 1-4 (e.g. RT1)"
        )
    return Grid(cards, Frame(0, 0, len(rows), width))


def format_grid(grid: Grid, frame: Frame | None = None) -> str:
    """Write ``grid`` in Iota grid notation, rows separated by ``/``.

    Args:
        grid: the grid.
        frame: the rectangle to write (default: the grid's frame joined with its cards' bounds).
            Cards outside it raise ``ValueError``.

    Returns:
        The notation; ``"."`` for an empty grid without a frame.
    """
    frame = frame or grid.full_frame()
    if frame is None:
        return EMPTY
    outside = [cell for cell in grid.cards if cell not in frame]
    if outside:
        raise ValueError(f"cards at {outside} lie outside the frame {frame}")
    rows = []
    for r in range(frame.top, frame.bottom + 1):
        cells = [grid.cards.get((r, c)) for c in range(frame.left, frame.right + 1)]
        rows.append(" ".join(EMPTY if card is None else str(card) for card in cells))
    return "/".join(rows)


def common_frame(*grids: Grid) -> Frame | None:
    """The smallest frame holding every grid's frame and cards (None when all are empty)."""
    frame: Frame | None = None
    for grid in grids:
        f = grid.full_frame()
        if f is not None:
            frame = f if frame is None else frame.union(f)
    return frame


def format_grids(*grids: Grid) -> list[str]:
    """Write several grids in one shared frame (so that cell (r, c) is the same place in all)."""
    frame = common_frame(*grids)
    return [format_grid(g, frame) if frame is not None else EMPTY for g in grids]


def place_within(before: Grid, after: Grid) -> tuple[Grid, tuple[int, int]]:
    """Where a smaller ``before`` lies in ``after``'s frame.

    Two grids compared in one call share one frame, and a smaller one is padded at the bottom and
    right (its top-left corner is ``after``'s). When that reading takes cards off the table or
    changes them but ``before`` fits inside ``after``'s frame at exactly one other offset where
    every card of ``before`` is found in ``after``, that offset is taken instead (a grid written in
    its own smaller frame).

    Returns:
        ``(before moved, (rows down, columns right))``; ``(before, (0, 0))`` when the top-left
        reading holds or no single other offset does.
    """

    def holds(dr: int, dc: int) -> bool:
        return all(
            after.cards.get((r + dr, c + dc)) == card for (r, c), card in before.cards.items()
        )

    fb, fa = before.full_frame(), after.full_frame()
    if fb is None or fa is None or holds(0, 0):
        return before, (0, 0)
    if (fb.height, fb.width) == (fa.height, fa.width):
        return before, (0, 0)
    if fb.height > fa.height or fb.width > fa.width:
        return before, (0, 0)
    fits = [
        (dr, dc)
        for dr in range(fa.top - fb.top, fa.bottom - fb.bottom + 1)
        for dc in range(fa.left - fb.left, fa.right - fb.right + 1)
        if holds(dr, dc)
    ]
    if len(fits) != 1:
        return before, (0, 0)
    dr, dc = fits[0]
    return before.translated(dr, dc), (dr, dc)
