"""Iago's rules as code: the board and its notation, words, move analysis, steals and rulings,
and game records (rulebook: shared/rules/iago-rulebook.txt; reading notes: docs/iago.md)."""

from companion.games.iago.board import (
    IAGO_SIZE,
    Board,
    BoardNotationError,
    Word,
    format_board,
    format_lines,
    parse_board,
)
from companion.games.iago.move import (
    CODES,
    GameHistory,
    MoveInputError,
    Ruling,
    Steal,
    Violation,
    WordFormed,
    rule_move,
    substitution_allowance,
    word_forms,
)

__all__ = [
    "CODES",
    "GameHistory",
    "IAGO_SIZE",
    "Board",
    "BoardNotationError",
    "MoveInputError",
    "Ruling",
    "Steal",
    "Violation",
    "Word",
    "WordFormed",
    "format_board",
    "format_lines",
    "parse_board",
    "rule_move",
    "substitution_allowance",
    "word_forms",
]
