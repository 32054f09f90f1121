"""Iota's cards, grid notation, placement rules and scoring, against the rules
(shared/rules/iota-rules-es.txt; the English summary beside it)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import CompanionError
from companion.games.iota.cards import (
    ALL_CARDS,
    WILD,
    Card,
    IotaNotationError,
    deck,
    parse_card,
    parse_hand,
)
from companion.games.iota.grid import Grid, format_grid, format_grids, parse_grid
from companion.games.iota.hints import legal_plays
from companion.games.iota.rules import (
    IotaPositionError,
    all_lines,
    check_play,
    is_line_valid,
    mixed_properties,
    play_cards,
    read_wild_cards,
)

# --- the worked example of the rules, built as grids ----------------------------------------
# The rules show the cards only in pictures; these grids are one table that matches every
# sentence of the example (row and column numbers from 1):
#   start: RT2 is turned up.
#   turn 1: GC2 and BX2 beside it: "Mismo número, diferentes colores, diferentes formas" -> the
#           line RT2 GC2 BX2 = 2+2+2 = 6.
#   turn 2: RX1 above and GX3 below BX2: "una nueva línea de 3 cartas. Misma forma, diferentes
#           colores, diferentes números ... no necesitan tocarse" -> 1+2+3 = 6.
#   turn 3: the yellow square YS2 completes the lot RT2 GC2 BX2 YS2 (8); RT3 above it makes the
#           rows' line RX1 RT3 (4) and the column RT3 YS2 (5): (8+4+5) x 2 for the lot = 34.
#   turn 4: YX4 GX1 RX2 BX3 on the top row: the row itself is a lot (4+1+2+3 = 10), YX4 completes
#           the lot YX4 RX1 BX2 GX3 (10), GX1 makes the column GX1 RT3 YS2 (1+3+2 = 6):
#           26 x 2 x 2 (two lots) x 2 (all four cards) = 208.
START = ". . . . . ./. . . . . ./RT2 . . . . ./. . . . . ."
TURN1 = ". . . . . ./. . . . . ./RT2 GC2 BX2 . . ./. . . . . ."
TURN2 = ". . . . . ./. . RX1 . . ./RT2 GC2 BX2 . . ./. . GX3 . . ."
TURN3 = ". . . . . ./. . RX1 RT3 . ./RT2 GC2 BX2 YS2 . ./. . GX3 . . ."
TURN4 = ". . YX4 GX1 RX2 BX3/. . RX1 RT3 . ./RT2 GC2 BX2 YS2 . ./. . GX3 . . ."


def rule(before: str, after: str, **kw):
    return check_play(parse_grid(before), parse_grid(after), **kw)


def codes(result):
    return sorted({v.code for v in result.violations})


@pytest.mark.parametrize(
    ("before", "after", "score", "doublings"),
    [
        (START, TURN1, 6, []),
        (TURN1, TURN2, 6, []),
        (TURN2, TURN3, 34, ["lot"]),
        (TURN3, TURN4, 208, ["lot", "lot", "all-four-cards"]),
    ],
)
def test_the_four_worked_turns_of_the_rules(before, after, score, doublings):
    result = rule(before, after)
    assert result.legal and result.violations == ()
    assert result.score == score
    assert result.doublings == doublings


def test_turn_three_scores_both_rows_and_the_column():
    result = rule(TURN2, TURN3)
    assert sorted((ln.direction, ln.total) for ln in result.lines) == [
        ("column", 5),
        ("row", 4),
        ("row", 8),
    ]
    assert result.lots == 1 and result.lines_total == 17


def test_turn_four_lines_are_two_lots_of_ten_and_a_six():
    result = rule(TURN3, TURN4)
    assert sorted(ln.total for ln in result.lines) == [6, 10, 10]
    assert result.lots == 2 and result.all_four_cards


def test_last_card_of_the_game_doubles_the_turn():
    assert rule(TURN3, TURN4, last_card=True).score == 416
    assert rule(START, TURN1, last_card=True).score == 12


# --- cards and deck -----------------------------------------------------------------------


def test_the_deck_has_64_unique_cards_and_2_wild_cards():
    cards = deck()
    assert len(cards) == 66
    assert sum(c.is_wild for c in cards) == 2
    assert len(set(ALL_CARDS)) == 64
    for colour in "RGBY":
        assert sum(c.colour == colour for c in ALL_CARDS) == 16


def test_card_notation():
    assert parse_card("rt1") == Card("R", "T", 1)
    assert str(parse_card("YX4")) == "YX4"
    assert parse_card("*") is WILD or parse_card("*") == WILD
    assert WILD.value == 0 and Card("B", "C", 3).value == 3


@pytest.mark.parametrize("text", ["RT5", "QT1", "RQ1", "RT", "RT11", ""])
def test_bad_cards_are_rejected_with_the_text(text):
    with pytest.raises(IotaNotationError) as err:
        parse_card(text)
    assert repr(text) in str(err.value) and "accepted" in str(err.value)
    assert isinstance(err.value, CompanionError) and isinstance(err.value, ValueError)


def test_hand_notation():
    assert parse_hand("RT1, gs2 *") == [Card("R", "T", 1), Card("G", "S", 2), WILD]
    for bad in ["", "RT1 RT1", "RT1 GT1 BT1 YT1 RS1", "RT9"]:
        with pytest.raises(IotaNotationError):
            parse_hand(bad)


# --- grid notation ------------------------------------------------------------------------


def test_grid_example_from_design():
    grid = parse_grid("RT1 GT2 ./. GS2 .")
    assert grid.cards == {
        (0, 0): Card("R", "T", 1),
        (0, 1): Card("G", "T", 2),
        (1, 1): Card("G", "S", 2),
    }
    assert format_grid(grid) == "RT1 GT2 ./. GS2 ."


def test_newlines_separate_rows_and_spaces_may_repeat():
    assert parse_grid("\nRT1  *\n.   GS2\n") == parse_grid("RT1 */. GS2")


def test_empty_grid():
    assert parse_grid(".").cards == {} and parse_grid("").cards == {}
    assert format_grid(Grid()) == "."


def test_bad_cell_error_names_row_and_column():
    with pytest.raises(IotaNotationError, match=r"row 1, column 2: 'RZ1'"):
        parse_grid("RT1 . ./. . RZ1")


def test_ragged_rows_are_rejected_naming_the_row():
    with pytest.raises(IotaNotationError, match=r"row 1 has 1 cell where row 0 has 2"):
        parse_grid("RT1 GT2/GS2")


def test_two_grids_share_one_frame():
    small, big = parse_grid("RT1"), parse_grid("RT1 ./. GS2")
    assert format_grids(small, big) == ["RT1 ./. .", "RT1 ./. GS2"]


cards_st = st.sampled_from(ALL_CARDS + (WILD,))
grids_st = st.integers(1, 5).flatmap(
    lambda h: st.integers(1, 5).flatmap(
        lambda w: st.lists(
            st.lists(st.one_of(st.none(), cards_st), min_size=w, max_size=w),
            min_size=h,
            max_size=h,
        )
    )
)


@given(grids_st)
def test_notation_round_trips(rows):
    text = "/".join(" ".join("." if c is None else str(c) for c in row) for row in rows)
    grid = parse_grid(text)
    assert format_grid(grid) == text
    assert parse_grid(format_grid(grid)) == grid
    assert parse_grid(text.replace("/", "\n").lower()) == grid


# --- lines --------------------------------------------------------------------------------


def test_a_line_needs_each_property_all_same_or_all_different():
    # "Mismo color, diferentes formas, mismo número" is a lot; two reds and a green is not.
    assert is_line_valid([parse_card(c) for c in ["RT1", "RS1", "RC1", "RX1"]])
    assert mixed_properties([parse_card(c) for c in ["RT1", "RS1", "GC1"]]) == ["colour"]
    assert mixed_properties([parse_card(c) for c in ["RT1", "GT2", "BT2"]]) == ["number"]


@given(st.lists(st.sampled_from(ALL_CARDS), min_size=2, max_size=4, unique=True))
def test_a_valid_line_is_all_same_or_all_different_on_each_property(cards):
    valid = is_line_valid(cards)
    per_property = [len({c.properties()[i] for c in cards}) in (1, len(cards)) for i in range(3)]
    assert valid == all(per_property)


# --- placement ----------------------------------------------------------------------------


def test_first_play_connects_to_the_turned_up_card():
    assert rule(". .", "RT1 GT1").violations[0].code == "no-starting-card"
    assert rule("RT1 . .", "RT1 GT1 BT1").score == 3


def test_cards_laid_in_two_lines_are_refused():
    result = rule("RT1 . ./. . .", "RT1 GT1 ./GS1 . .")
    assert codes(result) == ["not-in-one-line"] and result.score == 0


def test_a_gap_in_the_line_of_the_play_is_refused():
    result = rule(". RT1 . . .", "GT1 RT1 . BT1 .")
    assert codes(result) == ["gap"]


def test_cards_may_lie_either_side_of_a_card_on_the_table():
    assert rule(". RT1 .", "GT1 RT1 BT1").score == 3


def test_a_play_must_touch_the_table():
    assert codes(rule("RT1 . .", "RT1 . GT1")) == ["not-connected"]


def test_a_line_of_five_is_refused():
    result = rule("RT1 GT2 BT3 YT4 .", "RT1 GT2 BT3 YT4 RS1")
    assert "line-too-long" in codes(result)


def test_a_mixed_line_is_refused_with_the_property():
    assert codes(rule("RT1 GT1 .", "RT1 GT1 GT2")) == ["mixed-colour", "mixed-number"]


def test_five_cards_are_too_many():
    result = rule("RT1 . . . . ./. . . . . .", "RT1 . . . . ./RS1 RS2 RS3 RS4 RC1 .")
    assert "too-many-cards" in codes(result)


def test_a_card_cannot_be_played_twice():
    assert "duplicate-card" in codes(rule("RT1 GT2 .", "RT1 GT2 RT1"))


def test_nothing_laid_or_a_card_moved_is_refused():
    assert codes(rule("RT1 .", "RT1 .")) == ["no-cards-played"]
    assert "card-removed" in codes(rule("RT1 . .", ". GT1 BT1"))
    assert "card-changed" in codes(rule("RT1 .", "GT1 BT1"))


def test_before_must_follow_the_rules():
    with pytest.raises(IotaPositionError, match="BEFORE"):
        rule("RT1 GT1 GT2 .", "RT1 GT1 GT2 YS1")


def test_a_single_card_scores_every_line_it_touches():
    # YT2 laid under RT1 and beside BS3 makes two lines: the column RT1 YT2 (1+2 = 3) and the
    # row YT2 BS3 (2+3 = 5); it counts in both: 8.
    result = rule("RT1 GT1/. BS3", "RT1 GT1/YT2 BS3")
    assert result.legal and result.score == 3 + 5


# --- wild cards ---------------------------------------------------------------------------


def test_a_wild_card_scores_zero():
    assert rule("RT1 . .", "RT1 * BT3").score == 1 + 0 + 3


def test_a_wild_card_in_two_lines_is_the_same_card_in_both():
    # the row "RT1 * RT3" makes it a red triangle 2 or 4; the column "YT4 * YT2" makes it
    # yellow: no card is both.
    before = ". YT4 ./RT1 . RT3/. YT2 ."
    after = ". YT4 ./RT1 * RT3/. YT2 ."
    result = rule(before, after)
    assert codes(result) == ["wild-card-impossible"]
    # the column "GT4 * BT1" makes it red or yellow, a triangle, 2 or 3; with the row: RT2 only
    ok = rule(". GT4 ./RT1 . RT3/. BT1 .", ". GT4 ./RT1 * RT3/. BT1 .")
    assert ok.legal
    assert [str(c) for c in ok.wild_cards[0].stands_for] == ["RT2"]
    assert ok.score == (1 + 0 + 3) + (4 + 0 + 1)


def test_a_wild_card_stands_only_for_a_card_still_unplayed():
    # RT1 * RT3: a red triangle 2 or 4; RT2 is already on the table, so it can only be RT4
    readings = read_wild_cards(parse_grid("RT1 * RT3/. . RT2"))
    assert [str(c) for c in readings[0].stands_for] == ["RT4"]
    result = rule("RT1 * RT3/. . RT2/. . .", "RT1 * RT3/. . RT2/. . RT4")
    assert codes(result) == ["wild-card-impossible"]


# --- invariants over random games ---------------------------------------------------------


@settings(max_examples=8, deadline=None)
@given(st.randoms(use_true_random=False))
def test_random_games_stay_legal_and_scores_are_never_negative(rnd):
    cards = deck()
    rnd.shuffle(cards)
    start = cards.pop()
    grid = Grid({(0, 0): start})
    hand = [cards.pop() for _ in range(4)]
    for _ in range(3):
        hints = legal_plays(grid, hand)
        if not hints:
            break
        hint = rnd.choice(hints)
        result = play_cards(grid, dict(hint.placements))
        assert result.legal and result.score == hint.score >= 0
        assert result.score == result.lines_total * 2 ** len(result.doublings)
        grid = grid.with_cards(hint.placements)
        for line in all_lines(grid):
            assert 2 <= len(line.cards) <= 4
            assert not mixed_properties(line.cards)
        for _, card in hint.placements:
            hand.remove(card)
        while len(hand) < 4 and cards:
            hand.append(cards.pop())


@settings(max_examples=60, deadline=None)
@given(grids_st, st.randoms(use_true_random=False), st.booleans())
def test_any_pair_of_tables_gets_a_ruling_that_keeps_the_invariants(rows, rnd, last):
    after = parse_grid("/".join(" ".join("." if c is None else str(c) for c in r) for r in rows))
    before = Grid({cell: card for cell, card in after.cards.items() if rnd.random() < 0.6})
    try:
        result = check_play(before, after, last_card=last)
    except IotaPositionError:
        return  # BEFORE itself breaks the rules: bad input, not a ruling
    assert result.score >= 0
    assert result.legal == (result.violations == ())
    if result.legal:
        assert 1 <= len(result.played) <= 4
        assert result.score == result.lines_total * 2 ** len(result.doublings)
        assert result.lines_total == sum(c.value for ln in result.lines for c in ln.cards)
        for line in result.lines:
            assert 2 <= len(line.cards) <= 4 and not mixed_properties(line.cards)
    else:
        assert result.score == 0
