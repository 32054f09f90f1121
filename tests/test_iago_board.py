"""Iago board notation, words, counts, centre and connection (DESIGN.md "Board notation";
rulebook "Equipment" and "How to Play")."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import CompanionError
from companion.games.iago import Board, BoardNotationError, format_board, format_lines, parse_board

EMPTY = "11/11/11/11/11/11/11/11/11/11/11"


def test_empty_board_notation():
    board = parse_board(EMPTY)
    assert board.size == 11 and board.is_empty()
    assert format_board(Board.empty()) == EMPTY
    assert board.counts() == {"blue": 0, "red": 0}
    assert board.leader() is None


def test_case_is_the_side_shown_and_numbers_are_empty_cells():
    board = parse_board("11/11/11/11/11/3Pot5/11/11/11/11/11")
    # row 6 (index 5): three empty cells, then P blue, o red, t red
    assert board.at(5, 3) == "P" and board.colour(5, 3) == "blue"
    assert board.at(5, 4) == "o" and board.colour(5, 4) == "red"
    assert board.colour(5, 5) == "red"
    assert board.at(5, 2) is None and board.at(5, 6) is None
    assert board.counts() == {"blue": 1, "red": 2}
    assert board.leader() == "red" and board.has_lead("red") and not board.has_lead("blue")


def test_lines_of_dots_and_letters_are_accepted_too():
    lines = ["..........."] * 11
    lines[5] = "...Pot....."
    board = parse_board("\n".join(lines) + "\n")
    assert format_board(board) == "11/11/11/11/11/3Pot5/11/11/11/11/11"
    assert format_lines(board).splitlines()[5] == "...Pot....."


def test_rows_of_dots_and_letters_are_accepted_between_slashes_too():
    # DESIGN.md: "the same grid written as lines of '.' and letters is accepted too"; a row
    # written wholly as '.' and letters reads the same joined by '/' (other rows with numbers)
    board = parse_board("11/11/11/11/11/...Pot...../11/11/11/11/...........")
    assert format_board(board) == "11/11/11/11/11/3Pot5/11/11/11/11/11"


@pytest.mark.parametrize(
    "row, column, character",
    [
        # 4 empty (columns 1-4), P O T (5-7), 2 empty (8-9): the '.' is column 10, character 6
        ("4POT2.1", 10, 6),
        # 4 empty, P at column 5: the '.' is column 6, character 3
        ("4P.T4", 6, 3),
        # a row begun with '.': the number 1 is column 3, character 3
        ("..1Pot5", 3, 3),
        # 5 empty, then '.' at column 6, character 2
        ("5.5", 6, 2),
    ],
)
def test_a_row_mixing_numbers_and_dots_is_rejected(row, column, character):
    # DESIGN.md "Board notation": numbers always merged, or lines of '.' and letters; "parsing
    # rejects anything else with an error that names the row and column"
    text = f"11/11/11/11/11/{row}/11/11/11/11/11"
    with pytest.raises(BoardNotationError) as err:
        parse_board(text)
    message = str(err.value)
    assert f"row 6, column {column} (character {character} of {row!r})" in message
    assert "never both" in message and "accepted" in message
    assert [(p.row, p.column) for p in err.value.problems] == [(6, column)]


def test_a_mixed_row_error_says_how_to_write_it():
    with pytest.raises(BoardNotationError) as err:
        parse_board("11/11/11/11/11/4P.T4/11/11/11/11/11")
    assert "'4P1T4' or '....P.T....'" in str(err.value)


def test_a_mixed_line_is_rejected_in_the_lines_form():
    lines = ["..........."] * 11
    lines[2] = "...P1t5"  # '.' first, then the number 1 at column 5
    with pytest.raises(BoardNotationError, match=r"row 3, column 5 \(character 5"):
        parse_board("\n".join(lines))


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("11/11/11/11/11/12/11/11/11/11/11", "row 6"),  # too long
        ("11/11/11/11/11/10/11/11/11/11/11", "row 6"),  # too short
        ("11/11/11/11/11/56/11/11/11/11/11", "row 6, column 1"),  # fifty-six, not 5+6
        ("11/11/11/11/11/5Pot0/11/11/11/11/11", "row 6, column 9"),  # a zero run
        ("11/11/11/11/11/05Pot1/11/11/11/11/11", "leading zero"),
        ("11/11/11/11/11/3P?t5/11/11/11/11/11", "row 6, column 5"),  # bad character
        ("11/11/11/11/11/3Pét5/11/11/11/11/11", "row 6, column 5"),  # not a-z
        ("11/11/11/11/11/11/11/11/11/11", "10 rows"),
        ("11/11/11/11/11//11/11/11/11/11", "row 6 is empty"),
        ("11/11/11/11/11/3P t5/11/11/11/11/11", "space"),
        ("", "empty"),
    ],
)
def test_bad_notation_names_row_and_column(text, fragment):
    with pytest.raises(BoardNotationError) as err:
        parse_board(text)
    assert fragment in str(err.value)
    assert isinstance(err.value, CompanionError) and isinstance(err.value, ValueError)
    assert "accepted" in str(err.value)


def test_every_bad_row_is_reported_at_once():
    with pytest.raises(BoardNotationError) as err:
        parse_board("12/11/11/11/11/11/11/11/11/11/1?9")
    assert "row 1" in str(err.value) and "row 11" in str(err.value)


def test_other_square_sizes_when_asked():
    scrabble = "/".join(["15"] * 7 + ["6CAT6"] + ["15"] * 7)
    board = parse_board(scrabble, size=None)
    assert board.size == 15 and board.centre == (7, 7)
    assert [w.text for w in board.words()] == ["CAT"]
    with pytest.raises(BoardNotationError, match="11x11"):
        parse_board(scrabble)  # the Iago board is 11x11
    with pytest.raises(BoardNotationError, match="row 2"):
        parse_board("3/4/3", size=None)


def test_words_are_runs_of_two_or_more_across_then_down():
    lines = ["..........."] * 11
    lines[3] = ".....C....."
    lines[4] = ".....a....."
    lines[5] = "...PoT....."
    lines[6] = "..........X"
    board = parse_board("\n".join(lines))
    words = [(w.text, w.direction, w.row, w.col) for w in board.words()]
    # across: POT in row 6 (index 5); down: CAT in column 6 (index 5); X and single letters no
    assert words == [("POT", "across", 5, 3), ("CAT", "down", 3, 5)]
    assert board.words()[1].cells == ((3, 5), (4, 5), (5, 5))


def test_groups_show_connection():
    lines = ["..........."] * 11
    lines[5] = "...POT....."
    lines[8] = ".........AB"
    board = parse_board("\n".join(lines))
    groups = board.groups()
    assert len(groups) == 2
    assert groups[0] == [(5, 3), (5, 4), (5, 5)]


def test_board_rejects_bad_grid():
    with pytest.raises(BoardNotationError):
        Board("." * 120)
    with pytest.raises(BoardNotationError):
        Board("?" * 121)


cells = st.sampled_from(list(".....ABCXYZabcxyz"))


@st.composite
def boards(draw):
    n = draw(st.integers(min_value=1, max_value=15))
    grid = "".join(draw(st.lists(cells, min_size=n * n, max_size=n * n)))
    return Board(grid, n)


@settings(max_examples=100, deadline=None)
@given(boards())
def test_notation_round_trips(board):
    text = format_board(board)
    assert parse_board(text, size=None) == board
    assert parse_board(format_lines(board), size=None) == board
    assert parse_board("/".join(format_lines(board).splitlines()), size=None) == board
    # numbers always merged: every run of empty cells is one number, never a '.'
    assert "." not in text
    assert format_board(parse_board(text, size=None)) == text
    for row in text.split("/"):
        tokens = re.findall(r"\d+|[A-Za-z]", row)
        assert "".join(tokens) == row
        assert sum(int(t) if t.isdigit() else 1 for t in tokens) == board.size
        assert all(not t.startswith("0") for t in tokens)


@settings(max_examples=100, deadline=None)
@given(boards())
def test_counts_cover_every_tile(board):
    counts = board.counts()
    assert counts["blue"] + counts["red"] == sum(1 for _ in board.tiles())
    assert sum(len(g) for g in board.groups()) == counts["blue"] + counts["red"]
    for w in board.words():
        assert len(w.text) >= 2
        assert all(board.at(*c) is not None for c in w.cells)
