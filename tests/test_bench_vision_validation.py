"""The validation bench (issue 45): it refuses a set name that is no set, saying which sets there
are, before it reads anything; and it counts what held back each board read right but not
trusted."""

import pytest

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
