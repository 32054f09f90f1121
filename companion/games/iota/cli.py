"""``companion iota``: rule on and score a play (``score``), list the legal plays of a hand
(``hint``).

Grids are given in Iota grid notation (DESIGN.md), as text, as the path of a file holding it, or
``-`` for standard input. JSON goes to standard output. Exit codes (``score``): 0 legal, 1 illegal,
2 bad input (notation, a BEFORE no game can reach, an unreadable file).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from companion.games.iota.cards import WILD_CARDS, Card, IotaNotationError, parse_hand
from companion.games.iota.grid import (
    Cell,
    Grid,
    common_frame,
    format_grid,
    parse_grid,
    place_within,
)
from companion.games.iota.rules import (
    IotaPositionError,
    PlayResult,
    check_play,
    explain_wild_cards,
)
from companion.games.iota.scorekeeper import format_placements


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``iota`` and its sub-commands to the ``companion`` parser."""
    iota = sub.add_parser("iota", help="Iota: rule on and score plays, hint plays, keep score")
    isub = iota.add_subparsers(dest="iota_command", metavar="ACTION")
    isub.required = True
    p = isub.add_parser(
        "score",
        help="rule on a play (BEFORE -> AFTER) and print its score as JSON",
        description=(
            "Rule on the play that turns the table BEFORE into AFTER (two grids in one frame, "
            "e.g. 'RT1 GT2 ./. GS2 .') and print JSON: legal, score, lines with their sums, "
            "lots, doublings, wild cards, violations. Exit 0 legal, 1 illegal, 2 bad input."
        ),
    )
    p.add_argument("before", help="the table before the play (notation, a file, or -)")
    p.add_argument("after", help="the table after the play, in the same frame")
    p.add_argument(
        "--last-card",
        action="store_true",
        help="the pile is empty and the player lays his last card: the turn doubles",
    )
    p.set_defaults(func=_score)
    h = isub.add_parser(
        "hint",
        help="list the legal plays of a hand on a table, best score first",
        description=(
            "Print JSON with every legal play of HAND (1 to 4 cards, e.g. 'RT1 GS2 *') on GRID, "
            "best score first. Rows and columns count from 0 in GRID's frame, as at the table (row 0 is "
            "GRID's first row; negative: above or left of it); each play's 'entry' is the "
            "play as typed at the table, CARD@ROW,COL."
        ),
    )
    h.add_argument("grid", help="the table (notation, a file, or -)")
    h.add_argument("hand", help="the hand: 1 to 4 cards separated by spaces or commas")
    h.add_argument(
        "--limit", type=int, default=10, help="print at most N plays (default 10; 0: all)"
    )
    h.add_argument(
        "--last-card", action="store_true", help="score plays that empty the hand as the last turn"
    )
    h.set_defaults(func=_hint)


def read_grid(arg: str, name: str) -> Grid:
    """A grid from the command line: notation text, ``-`` (standard input) or a file's path.

    Raises:
        IotaNotationError: bad notation, or a file that cannot be read.
    """
    text = arg
    if arg == "-":
        text = sys.stdin.read()
    elif "\n" not in arg and " " not in arg and _is_file(arg):
        try:
            text = Path(arg).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise IotaNotationError(f"{name}: cannot read {arg}: {exc}") from None
    try:
        return parse_grid(text, name)
    except IotaNotationError:
        if text is arg and looks_like_a_file_name(arg):
            raise IotaNotationError(
                f"{name} {arg!r}: no such file, and not an Iota grid. Accepted: the path of a "
                "file holding a grid, - for standard input, or grid notation such as "
                "'RT1 GT2 ./. GS2 .'"
            ) from None
        raise


def _is_file(arg: str) -> bool:
    """True when ``arg`` names a file; False also when it cannot be a path at all (longer than
    a file name may be, ENAMETOOLONG; a NUL character), so that it is read as grid notation."""
    try:
        return Path(arg).is_file()
    except (OSError, ValueError):
        return False


# A file name's ending: a dot and 1 to 4 letters, after something that is not a dot. No card or
# cell of the notation ends so (a card ends in its number 1-4, '.' and '*' stand alone), and
# '/' separates rows, so only the last part after a '/' is looked at.
_FILE_ENDING = re.compile(r"[^./\s]\.[A-Za-z]{1,4}$")


def looks_like_a_file_name(arg: str) -> bool:
    """True when ``arg`` cannot be grid notation and ends like a file name (``nofile.txt``,
    ``games/turn3.grid``): one word, ending in a dot and 1 to 4 letters."""
    return not any(ch.isspace() for ch in arg) and bool(_FILE_ENDING.search(arg))


def cell_json(cell: Cell) -> dict[str, int]:
    """A cell for JSON: row and column counted from 0 in the grids' frame (docs/iota.md,
    "Cells": the same counting as the table's ``CARD@ROW,COL``)."""
    return {"row": cell[0], "column": cell[1]}


def result_json(result: PlayResult) -> dict:
    """The contract's JSON for a ruling (see docs/iota.md)."""
    return {
        "legal": result.legal,
        "score": result.score,
        "lines": [
            {
                "direction": line.direction,
                "cards": [str(card) for card in line.cards],
                "cells": [cell_json(c) for c in line.cells],
                "sum": line.total,
                "lot": line.is_lot,
            }
            for line in result.lines
        ],
        "lines_total": result.lines_total,
        "lots": result.lots,
        "all_four_cards": result.all_four_cards,
        "last_card": result.last_card and result.legal,
        "doublings": result.doublings,
        "multiplier": result.multiplier if result.legal else 1,
        "played": [
            {"card": str(card), **cell_json(cell)} for cell, card in sorted(result.played.items())
        ],
        "wild_cards": [
            {
                **cell_json(r.cell),
                "stands_for": [str(card) for card in r.stands_for],
                "decided": len(r.stands_for) == 1,
            }
            for r in result.wild_cards
        ],
        "violations": [
            {"code": v.code, "message": v.message, "cells": [cell_json(c) for c in v.cells]}
            for v in result.violations
        ],
    }


def _score(args: argparse.Namespace) -> int:
    if args.before == "-" and args.after == "-":
        raise IotaNotationError("only one of BEFORE and AFTER can be read from standard input")
    before = read_grid(args.before, "BEFORE")
    after = read_grid(args.after, "AFTER")
    before, (down, right) = place_within(before, after)
    result = check_play(before, after, last_card=args.last_card)
    out = result_json(result)
    notes = []
    if (down, right) != (0, 0):
        rows = f"{down} row{'s' if down != 1 else ''}"
        cols = f"{right} column{'s' if right != 1 else ''}"
        notes.append(
            f"BEFORE is smaller than AFTER and its cards are found {rows} down and {cols} right "
            "in AFTER's frame: it was read there (rows and columns are AFTER's)"
        )
    if not any(v.code in ("duplicate-card", "too-many-wild-cards") for v in result.violations):
        notes += explain_wild_cards(after)
    out["notes"] = notes
    frame = common_frame(before, after)
    out["before"] = format_grid(before, frame) if frame else "."
    out["after"] = format_grid(after, frame) if frame else "."
    print(json.dumps(out, ensure_ascii=False))
    return 0 if result.legal else 1


def _hint(args: argparse.Namespace) -> int:
    from companion.games.iota.hints import legal_plays

    if args.limit < 0:
        raise IotaNotationError(f"--limit {args.limit} is negative; accepted: 0 or more")
    grid = read_grid(args.grid, "GRID")
    hand = parse_hand(args.hand)
    check_hand_against_table(grid, hand)
    hints = legal_plays(grid, hand, last_card=args.last_card)
    plays = []
    for hint in hints[: args.limit] if args.limit else hints:
        after = grid.with_cards(hint.placements)
        plays.append(
            {
                "score": hint.score,
                "cards": [{"card": str(card), **cell_json(cell)} for cell, card in hint.placements],
                "entry": format_placements(dict(hint.placements)),
                "lines": [
                    {
                        "direction": ln.direction,
                        "cards": [str(c) for c in ln.cards],
                        "sum": ln.total,
                    }
                    for ln in hint.result.lines
                ],
                "doublings": hint.result.doublings,
                "after": format_grid(after),
                "after_top_left": cell_json(_top_left(after)),
            }
        )
    print(json.dumps({"count": len(hints), "plays": plays}, ensure_ascii=False))
    return 0


def check_hand_against_table(grid: Grid, hand: list[Card]) -> None:
    """Refuse a hint request no game can reach: an empty table, a card of the hand already on the
    table, or more wild cards in hand and on the table than the deck holds.

    Source: the rulebook's set-up (the game starts from one card turned face up) and its
    contents (each card once, two wild cards); ``score`` rules on the same cases as the
    violations ``no-starting-card``, ``duplicate-card`` and ``too-many-wild-cards``.

    Raises:
        IotaPositionError: names the problem, the card and where it lies, and what is accepted.
    """
    if not grid.cards:
        raise IotaPositionError(
            "GRID holds no card: a game starts from one card turned face up from the pile, and "
            "every play connects to the cards on the table, so there is no play to hint. "
            "Accepted: a table with at least the starting card, e.g. 'RT1'"
        )
    where = {card: cell for cell, card in sorted(grid.cards.items())}
    repeated = [card for card in hand if not card.is_wild and card in where]
    if repeated:
        raise IotaPositionError(
            "HAND: "
            + "; ".join(
                f"{card} is already on the table (row {where[card][0]}, column {where[card][1]})"
                for card in dict.fromkeys(repeated)
            )
            + ": the deck holds each card once. Accepted: cards that are not on the table"
        )
    wilds = sum(1 for card in hand if card.is_wild) + sum(
        1 for card in grid.cards.values() if card.is_wild
    )
    if wilds > WILD_CARDS:
        raise IotaPositionError(
            f"HAND: {wilds} wild cards in hand and on the table; the deck holds {WILD_CARDS}"
        )


def _top_left(grid: Grid) -> Cell:
    frame = grid.full_frame()
    assert frame is not None
    return (frame.top, frame.left)
