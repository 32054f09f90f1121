"""Board notation (DESIGN.md, "Board notation") for what the reader sees.

A grid is a list of rows, top row first; each row a string with one character a cell: ``.`` empty,
an upper-case letter a tile showing its blue side (or any tile of a dark-ink game such as Scrabble),
a lower-case letter a tile showing its red side, and ``?`` a blank tile (a tile with no letter, as
Scrabble's blanks are seen). In notation, rows are joined by ``/`` and runs of empty cells become
numbers (``11`` is eleven empty cells); the same grid written as lines of ``.`` and letters is
accepted too.
"""

from __future__ import annotations

import re

from companion.vision.errors import VisionError

_TOKEN = re.compile(r"\d+|[A-Za-z?]|.")


def format_board(grid: list[str]) -> str:
    """Board notation of ``grid`` (rows of ``.``, letters and ``?``), empty runs merged."""
    rows = []
    for row in grid:
        out, run = [], 0
        for ch in row:
            if ch == ".":
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            out.append(ch)
        if run:
            out.append(str(run))
        rows.append("".join(out))
    return "/".join(rows)


def parse_board(text: str, size: int | None = None) -> list[str]:
    """The grid written in ``text``: board notation (rows joined by ``/``) or lines of ``.`` and
    letters. ``?`` is accepted for a blank tile.

    Args:
        text: the notation or the lines.
        size: the expected number of rows and cells a row; None accepts any square grid.

    Returns:
        The rows, top first, each a string of ``.``, letters and ``?``.

    Raises:
        VisionError: naming the row and column of the first bad character or the row of wrong
            length, and what is accepted.
    """
    text = text.strip()
    if not text:
        raise VisionError(
            "board notation is empty: expected rows of letters and numbers joined by /"
        )
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    raw_rows = lines if len(lines) > 1 else text.split("/")
    grid: list[str] = []
    for r, raw in enumerate(raw_rows, start=1):
        cells: list[str] = []
        for m in _TOKEN.finditer(raw):
            tok = m.group()
            if tok.isdigit():
                cells.extend("." * int(tok))
            elif tok == "." or tok == "?" or (tok.isascii() and tok.isalpha()):
                cells.append(tok)
            else:
                raise VisionError(
                    f"board notation row {r} column {len(cells) + 1}: unexpected {tok!r}; "
                    "accepted are letters, ? (blank), . and numbers of empty cells"
                )
        grid.append("".join(cells))
    n = size if size is not None else len(grid)
    if len(grid) != n:
        raise VisionError(f"board notation has {len(grid)} rows: expected {n}")
    for r, row in enumerate(grid, start=1):
        if len(row) != n:
            raise VisionError(f"board notation row {r} has {len(row)} cells: expected {n}")
    return grid
