"""``companion scrabble``: rule on and score a move (``score BEFORE AFTER``), write a game record
as a GCG file (``gcg RECORD``).

Boards are given in board notation (DESIGN.md, "The classic crossword game"), as text, as the
path of a file holding it, or ``-`` for standard input. JSON goes to standard output. Exit codes
(``score``): 0 legal, 1 illegal, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.games.scrabble.board import ScrabbleError, parse_board


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``scrabble`` and its sub-commands to the ``companion`` parser."""
    top = sub.add_parser(
        "scrabble", help="the classic crossword game: score a move, write a game as GCG"
    )
    ssub = top.add_subparsers(dest="scrabble_command", metavar="ACTION")
    ssub.required = True
    p = ssub.add_parser(
        "score",
        help="rule on a move (BEFORE -> AFTER) and print its score as JSON",
        description=(
            "Rule on the move that turns the 15x15 board BEFORE into AFTER (board notation: "
            "rows separated by '/', numbers for empty cells, a lower-case letter a blank) and "
            "print JSON: legal, score (bingo included), bingo, words (main word first, each "
            "with its score), violations. Exit 0 legal, 1 illegal, 2 bad input."
        ),
    )
    p.add_argument("before", help="the board before the move (notation, a file, or -)")
    p.add_argument("after", help="the board after the move")
    p.set_defaults(func=_score)
    g = ssub.add_parser(
        "gcg",
        help="write a game record (a table's saved record, JSON) as a GCG file",
        description=(
            "Print the game RECORD (the JSON record the table saves, or a GCG file to check "
            "and write anew) as a GCG file, the format of Quackle and cross-tables."
        ),
    )
    g.add_argument("record", help="the record file (JSON or GCG), or - for standard input")
    g.add_argument("-o", "--output", help="write the GCG here instead of standard output")
    g.set_defaults(func=_gcg)


def read_board_arg(arg: str, name: str):
    """A board from the command line: notation, ``-`` (standard input) or a file's path.

    Raises:
        ScrabbleError: bad notation, or a file that cannot be read.
    """
    text = arg
    if arg == "-":
        text = sys.stdin.read()
    elif "/" not in arg and "\n" not in arg:
        path = Path(arg)
        try:
            is_file = path.is_file()
        except (OSError, ValueError):
            is_file = False
        if is_file:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ScrabbleError(f"{name}: cannot read {arg}: {exc}") from None
    return parse_board(text, name)


def _score(args: argparse.Namespace) -> int:
    from companion.games.scrabble.scoring import score_move

    before = read_board_arg(args.before, "BEFORE")
    after = read_board_arg(args.after, "AFTER")
    result = score_move(before, after)
    print(json.dumps(result.to_json()))
    return 0 if result.legal else 1


def _gcg(args: argparse.Namespace) -> int:
    from companion.cliutil import journal_refusal, read_text
    from companion.games.scrabble.record import record_from_text, write_gcg

    text, name = read_text(args.record, ScrabbleError, "record")
    why = journal_refusal(text, name, "companion scrabble gcg")
    if why:
        raise ScrabbleError(why)
    record = record_from_text(text, name)
    out = write_gcg(record)
    if args.output:
        Path(args.output).write_text(out, encoding="utf-8")
    else:
        sys.stdout.write(out)
    return 0
