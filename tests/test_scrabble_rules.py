"""The crossword game's scores and placement rules, on positions scored by hand from the standard
rules (letter values, premium squares used once, cross-words, blanks, the 50-point bingo, the
end-of-game racks). The game here is the opening of the 2006 Human vs. Computer Showdown's first
game as its GCG records it; each expected score below is worked out square by square in the
comment beside it, not taken from the program."""

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.games.scrabble.board import (
    EMPTY_BOARD,
    ScrabbleNotationError,
    parse_board,
    parse_position,
    position,
)
from companion.games.scrabble.scoring import end_of_game, score_move
from companion.games.scrabble.tiles import LETTER_VALUES, PREMIUM, TILE_COUNTS, rack_value


def board(*placements: tuple[str, str]) -> tuple[str, ...]:
    """An empty board with words placed: ("8D", "JETON") across, ("H2", "rEDYEING") down."""
    rows = [list("." * 15) for _ in range(15)]
    for pos, word in placements:
        r, c, d = parse_position(pos)
        for ch in word:
            rows[r][c] = ch
            r, c = (r, c + 1) if d == "across" else (r + 1, c)
    return tuple("".join(row) for row in rows)


EMPTY = parse_board(EMPTY_BOARD)
B1 = board(("8D", "JETON"))
B2 = board(("8D", "JETON"), ("H2", "rEDYEING"))
B3 = board(("8D", "JETON"), ("H2", "rEDYEING"), ("7E", "BEDIM"))
B4 = board(("8D", "JETON"), ("H2", "rEDYEING"), ("7E", "BEDIMS"), ("J1", "HEALERS"))


def test_the_set_and_the_board_are_the_standard_english_ones():
    assert sum(TILE_COUNTS.values()) == 100 and TILE_COUNTS["?"] == 2
    assert (LETTER_VALUES["Q"], LETTER_VALUES["Z"], LETTER_VALUES["J"], LETTER_VALUES["X"]) == (
        10,
        10,
        8,
        8,
    )
    assert LETTER_VALUES["K"] == 5 and LETTER_VALUES["E"] == 1
    kinds = list(PREMIUM.values())
    assert [kinds.count(k) for k in ("TW", "DW", "TL", "DL")] == [8, 17, 12, 24]
    # A1 triple word, H8 the star (double word), F2 triple letter, D1 double letter
    assert PREMIUM[(0, 0)] == "TW" and PREMIUM[(7, 7)] == "DW"
    assert PREMIUM[(1, 5)] == "TL" and PREMIUM[(0, 3)] == "DL"


def test_the_premium_layout_matches_the_board_readers_scrabble_profile():
    from companion.vision.profiles import SCRABBLE_PREMIUM

    assert set(PREMIUM) == set(SCRABBLE_PREMIUM)


def test_first_move_double_letter_and_the_centre_star():
    # JETON at 8D: J on D8 (double letter) 16, E 1, T 1, O 1, N on H8 (star) 1 = 20, doubled 40
    out = score_move(EMPTY, B1)
    assert out.legal and out.score == 40 and not out.bingo
    assert [(w.word, w.score, w.position) for w in out.words] == [("JETON", 40, "8D")]


def test_a_bingo_through_a_tile_with_a_blank():
    # rEDYEING at H2 through the N of JETON: r (blank) 0, E 1, D on H4 (double letter) 4, Y 4,
    # E 1, I 1, N 1 (already played), G 2 = 14; seven tiles placed: + 50 = 64
    out = score_move(B1, B2)
    assert out.legal and out.bingo and out.score == 64
    assert [(w.word, w.score, w.position) for w in out.words] == [("rEDYEING", 14, "H2")]


def test_cross_words_count_with_premiums_under_new_tiles_only():
    # BEDIM at 7E through the I of rEDYEING: B 3, E 1, D on G7 (double letter) 4, I 1, M on I7
    # (double letter) 6 = 15. Cross-words: BE (3 + 1) 4, ET (1 + 1) 2, DO (D doubled 4 + 1) 5.
    out = score_move(B2, B3)
    assert out.legal and out.score == 26
    assert [(w.word, w.score) for w in out.words] == [
        ("BEDIM", 15),
        ("BE", 4),
        ("ET", 2),
        ("DO", 5),
    ]
    assert out.words[0].position == "7E" and out.words[1].position == "E7"


def test_a_premium_square_counts_only_once():
    # HEALERS at J1 hooking BEDIMS: H 4, E on J2 (triple letter) 3, A 1, L 1, E 1, R on J6
    # (triple letter) 3, S 1 = 14; BEDIMS 3+1+2+1+3+1 = 11 (G7's and I7's double letters were
    # used by BEDIM); bingo 50: 75
    before = board(("8D", "JETON"), ("H2", "rEDYEING"), ("7E", "BEDIM"))
    out = score_move(before, B4)
    assert out.legal and out.bingo and out.score == 75
    assert [(w.word, w.score) for w in out.words] == [("HEALERS", 14), ("BEDIMS", 11)]


def test_a_blank_on_a_word_premium_scores_zero_but_still_doubles_the_word():
    # cAT at 8H: c (blank) on the star 0, A 1, T 1 = 2, doubled 4
    out = score_move(EMPTY, board(("8H", "cAT")))
    assert out.score == 4 and out.words[0].word == "cAT"


def test_one_tile_scores_both_of_its_words_longer_first():
    # an S at K8 after JETON + ... : on an empty line below the B of BEDIM, one tile making two
    before = board(("8D", "JETON"), ("7E", "BEDIM"))
    # A at E9: down BEA (3 + 1 + 1 = 5; E9 no premium), across none
    after = board(("8D", "JETON"), ("7E", "BEDIM"), ("E9", "A"))
    out = score_move(before, after)
    assert out.legal and [(w.word, w.score, w.direction) for w in out.words] == [("BEA", 5, "down")]
    # X at I8 makes JETONX across (8+1+1+1+1+8 = 20, I8 no premium) and MX down (3 + 8 = 11)
    after = board(("8D", "JETON"), ("7E", "BEDIM"), ("I8", "X"))
    out = score_move(before, after)
    assert [(w.word, w.score) for w in out.words] == [("JETONX", 20), ("MX", 11)]


def test_triple_word_in_a_cross_word():
    # after ZA down at A7? ZAX... : QI at 15A-15B? A15 is triple word: Q 10 + I 1 = 11 x 3 = 33
    before = board(("A8", "ATONE"), ("8A", "A"))
    after = board(("A8", "ATONE"), ("8A", "A"), ("A13", "QI"))
    # ATONE occupies A8-A12; QI at A13-A14 makes ATONEQI down (not a word, but scored: words
    # are judged by a challenge): A1 T1 O1 N1 E1 Q on A13 10 I on A14 1 = 16, no premium at
    # A13 (row 13, col A) or A14
    out = score_move(before, after)
    assert out.words[0].word == "ATONEQI" and out.score == 16
    after = board(("A8", "ATONE"), ("8A", "A"), ("A13", "QIS"))
    # S on A15 (triple word): 16 + 1 = 17, x 3 = 51
    assert score_move(before, after).score == 51


@pytest.mark.parametrize(
    ("before", "after", "codes"),
    [
        (EMPTY, EMPTY, ["no-tiles"]),
        (EMPTY, board(("8A", "CAT")), ["off-centre"]),
        (EMPTY, board(("8H", "C")), ["one-letter"]),
        (B1, board(("8D", "JETON"), ("1A", "CAT")), ["disconnected"]),
        (B1, board(("8D", "JETON"), ("9D", "A"), ("10E", "B")), ["not-in-line"]),
        (B1, board(("8D", "JETON"), ("9C", "A"), ("9E", "B")), ["gap"]),
        (B1, board(("8D", "JETOX"), ("9D", "A")), ["tiles-moved"]),
        (B1, board(("8D", "JET"), ("9D", "A")), ["tiles-moved"]),
        (B1, board(("8D", "JETON"), ("C1", "ABCDEFGH")), ["too-many-tiles"]),
    ],
)
def test_illegal_placements_score_zero_with_their_codes(before, after, codes):
    out = score_move(before, after)
    assert not out.legal and out.score == 0 and out.words == ()
    assert [v.code for v in out.violations] == codes


def test_end_of_game_racks_go_from_the_one_left_to_the_one_who_went_out():
    # red holds D A T S X K: 2+1+1+1+8+5 = 18
    adj = end_of_game({"blue": "", "red": "DATSXK"}, "blue")
    assert adj.adjustments == {"blue": 18, "red": -18}
    # nobody out (six scoreless turns): each loses his own rack; a blank counts 0
    adj = end_of_game({"blue": "Q?", "red": "EE"}, None)
    assert adj.adjustments == {"blue": -10, "red": -2}
    with pytest.raises(ValueError):
        end_of_game({"blue": "A", "red": ""}, "blue")


def test_rack_value_refuses_what_is_not_a_tile():
    assert rack_value("AB?") == 4
    with pytest.raises(ValueError, match="not a tile"):
        rack_value("A1")


def test_positions_are_gcgs_row_first_across_column_first_down():
    assert position(7, 3, "across") == "8D" and position(1, 7, "down") == "H2"
    assert parse_position("15o") == (14, 14, "across") and parse_position("a1") == (0, 0, "down")
    for bad in ("16A", "P1", "8", "H", "0A", "8DD"):
        with pytest.raises(ValueError, match="accepted"):
            parse_position(bad)


def test_bad_notation_names_the_row():
    with pytest.raises(ScrabbleNotationError, match="AFTER.*row 3") as exc:
        parse_board("15/15/1#13" + "/15" * 12, "AFTER")
    assert "blanks standing for that letter" in str(exc.value)


def cli(capsys, *argv):
    code = main(["scrabble", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_score_command_prints_the_contract(capsys):
    from companion.games.scrabble.board import format_board

    code, out, _ = cli(capsys, "score", format_board(B2), format_board(B3))
    assert code == 0
    assert out["legal"] is True and out["score"] == 26 and out["bingo"] is False
    assert out["words"][0] == {
        "word": "BEDIM",
        "score": 15,
        "position": "7E",
        "direction": "across",
    }
    assert out["violations"] == []
    code, out, _ = cli(capsys, "score", EMPTY_BOARD, format_board(board(("8A", "CAT"))))
    assert code == 1 and out["legal"] is False and out["score"] == 0
    assert [v["code"] for v in out["violations"]] == ["off-centre"]
    code, out, err = cli(capsys, "score", EMPTY_BOARD, "15/15")
    assert code == 2 and out is None and "AFTER" in err and "rows" in err


# -- invariants --------------------------------------------------------------------------------

letters = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


@st.composite
def first_moves(draw):
    """A legal first move: 2 to 7 tiles in a line through the centre."""
    n = draw(st.integers(2, 7))
    across = draw(st.booleans())
    start = draw(st.integers(max(0, 7 - n + 1), 7))
    word = "".join(draw(st.lists(letters, min_size=n, max_size=n)))
    pos = position(7, start, "across") if across else position(start, 7, "down")
    return pos, word


@given(first_moves())
def test_a_moves_score_is_its_words_plus_the_bingo(move):
    out = score_move(EMPTY, board(move))
    assert out.legal
    assert out.score == sum(w.score for w in out.words) + (50 if out.bingo else 0)
    assert out.bingo == (len(move[1]) == 7)


@given(first_moves())
def test_the_board_is_symmetric_about_its_diagonal(move):
    pos, word = move
    r, c, d = parse_position(pos)
    flipped = position(c, r, "down" if d == "across" else "across")
    assert score_move(EMPTY, board(move)).score == score_move(EMPTY, board((flipped, word))).score


@given(first_moves())
def test_blanks_score_nothing_but_the_bingo(move):
    pos, word = move
    out = score_move(EMPTY, board((pos, word.lower())))
    assert out.score == (50 if len(word) == 7 else 0)


@given(st.text(max_size=300))
def test_the_notation_parser_never_raises_anything_but_its_error(text):
    with contextlib.suppress(ScrabbleNotationError):
        parse_board(text)
