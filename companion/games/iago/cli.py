"""``companion iago``: rule on a move (``check``), read a board (``board``), replay a game record
(``replay``). JSON goes to standard output; exit 0 legal / done, 1 illegal, 2 bad input."""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

from companion.cliutil import journal_refusal, read_text
from companion.errors import CompanionError
from companion.textformats import loads_json


class IagoInputError(CompanionError, ValueError):
    """A bad command-line argument to ``companion iago`` (unreadable file, unknown mover...)."""


TABLE_RECORDS: str | None = None
"""The module that reads a game saved by the table service (``is_table_record``, ``from_table``,
``check_result``, ``result_line``, ``ending``), named by the table service's own command module
(:mod:`companion.daemon.cli`) when the command line is built: games/ never imports daemon/."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``iago`` and its sub-commands to the ``companion`` parser."""
    iago = sub.add_parser("iago", help="Iago rules: rule on a move, read a board, replay a game")
    isub = iago.add_subparsers(dest="iago_command", metavar="ACTION")
    isub.required = True

    p = isub.add_parser(
        "check",
        help="rule on the last move (the last two boards; earlier boards are the history)",
        description=(
            "Rule on the move from the next-to-last BOARD to the last one, made by --mover; "
            "earlier boards are the game's history (they decide which forms a stolen word had). "
            "With a single BOARD the move starts from the empty board. A BOARD is board "
            "notation (11/11/11/11/11/4POT4/11/11/11/11/11: upper case blue, lower case red, "
            "numbers are empty cells), or @FILE holding a board in notation or as lines of '.' "
            "and letters. Prints the ruling as JSON; exit 0 legal, 1 illegal, 2 bad input."
        ),
    )
    p.add_argument("boards", nargs="+", metavar="BOARD", help="boards, oldest first")
    p.add_argument(
        "--mover",
        choices=("blue", "red"),
        default=None,
        help="who made the move (default: the colour of the tiles placed or substituted)",
    )
    _lexicon_options(p)
    p.add_argument("--size", type=int, default=11, help="rows and columns (default 11; 0: any)")
    p.set_defaults(func=_check)

    b = isub.add_parser(
        "board",
        help="read a board: its words, counts, lead, centre and connection, as JSON",
    )
    b.add_argument("board", metavar="BOARD", help="board notation or @FILE")
    b.add_argument("--size", type=int, default=11, help="rows and columns (default 11; 0: any)")
    b.add_argument(
        "--lines", action="store_true", help="print the grid as lines of '.' and letters"
    )
    b.set_defaults(func=_board)

    r = isub.add_parser(
        "replay",
        help="replay a game record, re-ruling every move; print a summary (or --json)",
        description=(
            "Replay a game record (JSON, see docs/iago.md) with every move re-ruled, or a game "
            "saved by the table service (data_dir()/records/*-table<N>.json): its clock, "
            "challenges and result are replayed and checked against the saved result."
        ),
    )
    r.add_argument("record", help="the record file (either form), or - for standard input")
    r.add_argument("--json", action="store_true", help="print every ruling as JSON")
    _lexicon_options(r)
    r.set_defaults(func=_replay)


def _lexicon_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lexicon", default=None, help="the word list (default: the table's)")
    p.add_argument(
        "--no-lexicon",
        action="store_true",
        help="do not judge words (rule on the structure only; words get valid: null)",
    )


def _size(value: int) -> int | None:
    if value == 0:
        return None
    if not 1 <= value <= 50:
        raise IagoInputError(f"--size {value} is out of range; accepted: 1 to 50, or 0 for any")
    return value


def _read_board(arg: str, size: int | None, where: str):
    from companion.games.iago.board import BoardNotationError, parse_board

    text = arg
    if arg.startswith("@"):
        path = Path(arg[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise IagoInputError(
                f"{where}: cannot read board file {path}: {exc.strerror}"
            ) from None
        except UnicodeDecodeError:
            raise IagoInputError(f"{where}: board file {path} is not UTF-8 text") from None
    try:
        return parse_board(text, size)
    except BoardNotationError as exc:
        raise BoardNotationError(f"{where}: {exc}") from None


def _judges(args: argparse.Namespace):
    """The lexicon and is_inflection to rule with, and notes about what is missing."""
    notes: list[str] = []
    lexicon = None
    if not args.no_lexicon:
        try:
            from companion.lexicon import open_lexicon
        except ImportError:
            raise IagoInputError(
                "no lexicon is installed (companion.lexicon.open_lexicon is missing); "
                "use --no-lexicon to rule without judging words"
            ) from None
        lexicon = open_lexicon(args.lexicon)
    try:
        from companion.lexicon.morphology import is_inflection
    except ImportError:
        is_inflection = None
        notes.append("morphology unavailable: no change is recognised as a mere inflection")
    return lexicon, is_inflection, notes


def _infer_mover(before, after) -> str:
    from companion.games.iago.board import colour_of

    colours = {
        colour_of(a)
        for b, a in zip(before.grid, after.grid, strict=True)
        if a != "." and b.upper() != a.upper()
    }
    if len(colours) == 1:
        return colours.pop()
    raise IagoInputError(
        "--mover is needed: "
        + (
            "no tile was placed or substituted"
            if not colours
            else "tiles of both colours were placed"
        )
        + "; accepted: --mover blue or --mover red"
    )


def _check(args: argparse.Namespace) -> int:
    from companion.games.iago.board import Board
    from companion.games.iago.move import rule_move

    size = _size(args.size)
    boards = [_read_board(a, size, f"board {i}") for i, a in enumerate(args.boards, 1)]
    if len(boards) == 1:
        boards.insert(0, Board.empty(boards[0].size))
    before, after = boards[-2], boards[-1]
    mover = args.mover or _infer_mover(before, after)
    lexicon, is_inflection, notes = _judges(args)
    ruling = rule_move(
        before, after, mover, lexicon=lexicon, is_inflection=is_inflection, history=boards[:-2]
    )
    out = ruling.to_json()
    out["notes"] = out["notes"] + notes
    if lexicon is not None:
        out["lexicon"] = getattr(lexicon, "name", None)
    print(json.dumps(out, ensure_ascii=False))
    return 0 if ruling.legal else 1


def _board(args: argparse.Namespace) -> int:
    from companion.games.iago.board import format_board, format_lines

    board = _read_board(args.board, _size(args.size), "board")
    if args.lines:
        print(format_lines(board))
        return 0
    groups = board.groups()
    print(
        json.dumps(
            {
                "board": format_board(board),
                "size": board.size,
                "counts": board.counts(),
                "leader": board.leader(),
                "words": [w.to_json() for w in board.words()],
                "centre_covered": board.at(*board.centre) is not None,
                "connected": len(groups) <= 1,
            },
            ensure_ascii=False,
        )
    )
    return 0


def _replay(args: argparse.Namespace) -> int:
    from companion.games.iago.record import parse_record, replay_record, summary

    tables = importlib.import_module(TABLE_RECORDS) if TABLE_RECORDS else None

    text, name = read_text(args.record, IagoInputError, "record")
    _refuse_a_journal(text, name)
    table = None
    try:
        data = loads_json(text)
    except json.JSONDecodeError:
        data = text  # parse_record reports where the JSON goes wrong
    if tables is not None and tables.is_table_record(data):
        table = tables.from_table(data, name)  # a game saved by the table service
        record = table.record
    else:
        record = parse_record(data, name)
    if not record.has_boards:
        lexicon, is_inflection, notes = None, None, []  # no move to rule: no lexicon needed
    elif args.lexicon is None and record.lexicon and not args.no_lexicon:
        args.lexicon = record.lexicon  # the game's own lexicon, if this box has it
        try:
            lexicon, is_inflection, notes = _judges(args)
        except CompanionError as exc:
            args.lexicon = None
            lexicon, is_inflection, notes = _judges(args)
            notes.insert(0, f"the record's lexicon is not available ({exc}); the table's is used")
    else:
        lexicon, is_inflection, notes = _judges(args)
    game = replay_record(record, lexicon=lexicon, is_inflection=is_inflection)
    disagreements = [] if table is None else tables.check_result(game, table.result)
    if table is not None:
        notes = table.notes + notes
    if args.json:
        out = game.to_json()
        out["notes"] = notes
        if table is not None:
            out["table_result"] = table.result
            out["result_agrees"] = not disagreements
            out["disagreements"] = disagreements
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(summary(game, tables.ending(table.result) if table is not None else None))
        if table is not None:
            print(tables.result_line(table.result, disagreements))
        for n in notes:
            print(f"Note: {n}")
    return 0


def _refuse_a_journal(text: str, name: str) -> None:
    """A table's journal is not a game record (:func:`companion.cliutil.journal_refusal`).

    Raises:
        IagoInputError: ``text`` is a journal; the message names the record to replay.
    """
    why = journal_refusal(text, name, "companion iago replay")
    if why:
        raise IagoInputError(why)
