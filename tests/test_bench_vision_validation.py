"""The validation bench (issue 45): it refuses a set name that is no set, saying which sets there
are, before it reads anything; and it counts what held back each board read right but not
trusted."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import bench_vision_validation


def test_an_unknown_set_is_refused_with_the_sets_there_are(monkeypatch):
    monkeypatch.setenv("BENCH_VALIDATION_SETS", "real,iago2")
    with pytest.raises(SystemExit) as exc:
        bench_vision_validation.main()
    said = str(exc.value)
    assert "'iago2'" in said and "'real'" not in said
    assert all(name in said for name in bench_vision_validation.SETS)


def test_a_right_board_not_trusted_is_counted_by_what_held_it_back():
    """A board read right whose only problem is the reader's own "cells under the level" is held
    back by doubt alone; one with any other problem (a check of the photo) by the checks; a
    trusted board, or one read wrong, by neither."""
    from companion.vision import cellnet
    from companion.vision.reader import read_board
    from companion.vision.synth import render_photo

    shipped = cellnet.load_cellnet()
    # every cell is under a level of 1: the reader itself says so, and nothing else is wrong
    net = cellnet.CellNet(shipped.path, {**shipped.recipe, "reader_trust_level": 1.0})
    photo = render_photo("iago", seed=83501, kind="plain")
    reading = read_board(photo.image, "iago", corners=photo.corners, net=net)
    assert reading.grid == photo.grid and len(reading.problems) == 1
    doubt = bench_vision_validation.Doubt()
    doubt.add(reading, 1.0, perfect=True)
    said = int(reading.problems[0].split()[0])  # "N cell(s) read with a confidence under ..."
    assert (doubt.doubt, doubt.checks, doubt.low) == (1, 0, said) and said > 0
    reading.problems.insert(0, "the photo is too soft (out of focus or moved)")
    doubt.add(reading, 1.0, perfect=True)
    assert (doubt.doubt, doubt.checks) == (1, 1)
    doubt.add(reading, 1.0, perfect=False)  # read wrong: not a board held back
    reading.problems.clear()
    doubt.add(reading, 1.0, perfect=True)  # trusted
    assert (doubt.doubt, doubt.checks) == (1, 1)


def test_the_last_moves_of_a_board_are_one_words_tiles_joined_to_the_rest():
    """JETON across and HATE down through its E: either word could have been laid last (its
    tiles that no word across holds taken off, the rest one group); a word whose tiles taken off
    would leave the board in two is not a move."""
    rows = ["." * 15] * 15
    rows[4], rows[5], rows[6] = "....H" + "." * 10, "....A" + "." * 10, "....T" + "." * 10
    rows[7] = "...JETON......."
    befores = bench_vision_validation.last_moves(rows)
    before_jeton = list(rows)
    before_jeton[7] = "....E.........."
    before_hat = list(rows)
    before_hat[4] = before_hat[5] = before_hat[6] = "." * 15
    assert befores == [before_jeton, before_hat]
    bridged = ["." * 15] * 15  # HI and HO across, joined by HATCH down: ATC is no move
    bridged[5], bridged[9] = "...HI" + "." * 10, "...HO" + "." * 10
    bridged[6], bridged[7], bridged[8] = "...A" + "." * 11, "...T" + "." * 11, "...C" + "." * 11
    without_i, without_o = list(bridged), list(bridged)
    without_i[5], without_o[9] = "...H" + "." * 11, "...H" + "." * 11
    assert bench_vision_validation.last_moves(bridged) == [without_i, without_o]


def test_a_games_count_is_tallied_as_the_table_counts():
    """With the board the move began on and its mover, a reading whose tile laid since shows the
    other colour is not counted (the table withholds it); without them, as the reader says."""
    from types import SimpleNamespace

    from bench.bench_vision_trust import CountTally

    truth = ["AB.", "c..", "..."]
    reading = SimpleNamespace(grid=["Ab.", "c..", "..."], count_trusted=True)  # B read red
    tally = CountTally()
    tally.add(truth, reading)
    tally.add(truth, reading, (["A..", "c..", "..."], "blue"))  # blue laid B: it shows red
    tally.add(truth, reading, (["A..", "c..", "..."], "red"))  # red's b: counted (and wrong)
    tally.add(truth, reading, (None, "blue"))  # no trusted start board: as the reader says
    assert (tally.readings, tally.trusted, tally.wrong_trusted) == (4, 3, 3)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_the_games_movers_lay_their_own_colour(seed):
    """The benches' games (synth.iago_game: blue first, turns taken, steals and cross-link letters
    turned) never lay a tile in the other player's colour, so the count's rule withholds only a
    reading's mistakes there; the mover of board k is ``MOVERS[k % 2]``."""
    import numpy as np

    from bench.bench_vision_trust import MOVERS
    from companion.vision.synth import iago_game
    from companion.vision.table import laid_in_other_colour

    boards = iago_game(np.random.default_rng(seed), 10)
    for k in range(1, len(boards)):
        assert laid_in_other_colour(boards[k - 1], boards[k], MOVERS[k % 2]) == []
        laid = [
            (r, c)
            for r, (a, b) in enumerate(zip(boards[k - 1], boards[k], strict=True))
            for c, (x, y) in enumerate(zip(a, b, strict=True))
            if x == "." and y != "."
        ]
        assert laid_in_other_colour(boards[k - 1], boards[k], MOVERS[(k + 1) % 2]) == laid
