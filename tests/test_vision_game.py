"""An Iago game read move by move, as the table reads it.

A game starts on an empty board, and every tile of a game lies in the group that covers the
centre square (Iago's rulebook, "The Move": "The first word in the game should be positioned
centrally; all subsequent words must be connected to this first word, or to each other"). So a
board read with no tile is as sure as its centre (``cells.with_empty_board``), and the board at
the start of a game can be the last trusted reading the next moves are read with
(``read_board(..., last=)``). Renders: seeds 88000 on, none of the bench's (60000-63599,
81000-84599) nor the model's (20261206-20261208).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from companion.devices.camera import FileCamera
from companion.vision import cellnet
from companion.vision.cells import with_empty_board
from companion.vision.reader import read_board
from companion.vision.synth import another_frame, iago_game, render_photo
from companion.vision.table import BoardCamera

SMALL = (340, 256)  # about 20 px a cell
FONTS = ("urw-base35/P052-Bold.otf", "freefont/FreeSansBold.ttf", "croscore/Tinos-Bold.ttf")
EMPTY = ["." * 11] * 11


def test_a_board_read_empty_is_as_sure_as_its_centre():
    """Centre 0.995: a corner read empty at 0.9 and the rest at 0.99 are raised to 0.995. A
    centre at 0.9 raises nothing over it: the corner at 0.95 and the rest at 0.99 stay."""
    conf = np.full((5, 5), 0.99, np.float32)
    conf[2, 2], conf[0, 0] = 0.995, 0.9
    none = np.zeros((5, 5), bool)
    out = with_empty_board(["....."] * 5, conf, none)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.full((5, 5), 0.995), rtol=1e-6)
    conf[2, 2], conf[0, 0] = 0.9, 0.95
    out = with_empty_board(["....."] * 5, conf, none)
    expected = np.full((5, 5), 0.99)
    expected[2, 2], expected[0, 0] = 0.9, 0.95
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_a_board_with_a_tile_or_a_square_unseen_is_left_as_read():
    """A tile read anywhere, or a square covered or cut off (which could hold one), and nothing
    is raised: the centre says nothing of a board that holds tiles."""
    conf = np.full((5, 5), 0.9, np.float32)
    conf[2, 2] = 0.999
    one_tile = ["....A"] + ["....."] * 4
    np.testing.assert_array_equal(with_empty_board(one_tile, conf, np.zeros((5, 5), bool)), conf)
    unseen = np.zeros((5, 5), bool)
    unseen[4, 0] = True
    np.testing.assert_array_equal(with_empty_board(["....."] * 5, conf, unseen), conf)


@given(
    st.lists(st.floats(0, 1, width=32), min_size=25, max_size=25),
    st.lists(st.sampled_from(".....A"), min_size=25, max_size=25),
    st.lists(st.booleans(), min_size=25, max_size=25),
)
def test_the_centre_never_lowers_a_confidence_nor_touches_a_board_with_a_tile(conf, cells, seen):
    conf = np.array(conf, np.float32).reshape(5, 5)
    grid = ["".join(cells[5 * r : 5 * r + 5]) for r in range(5)]
    unseen = ~np.array(seen).reshape(5, 5)
    out = with_empty_board(grid, conf, unseen)
    assert (out >= conf).all() and (out <= 1).all()
    if "A" in "".join(grid) or unseen.any():
        np.testing.assert_array_equal(out, conf)
    else:
        assert (out >= conf[2, 2]).all()


def test_an_empty_board_small_in_the_frame_is_trusted_when_its_centre_is_read_surely():
    """Twelve empty boards at about 20 px a cell: each square is read as surely as the centre,
    and the board is trusted exactly when the centre is read over the level (and the photo's
    checks pass); on some, squares read empty under the level are raised by it, with a note."""
    level = cellnet.load_cellnet().reader_trust_level
    raised = 0
    for k in range(12):
        photo = render_photo("iago", seed=88000 + k, size=SMALL, grid=EMPTY, font=FONTS[k % 3])
        reading = read_board(photo.image, "iago", corners=photo.corners)
        assert reading.grid == EMPTY
        centre = float(reading.confidence[5, 5])
        checks = [p for p in reading.problems if "confidence under" not in p]
        assert (reading.confidence >= centre).all()
        assert reading.trusted == (centre >= level and not checks), reading.problems
        noted = any("as sure as the centre" in n for n in reading.notes)
        raised += noted and reading.trusted
    assert raised >= 1  # the rule lifted some board's doubt to trust


def test_a_game_is_read_from_its_empty_board_move_by_move(tmp_path):
    """One camera's frames of a game's first three moves (the empty board first), read by a
    BoardCamera over a file camera: the empty board is trusted, and each move's board is
    read right and trusted with the cells unchanged since the last trusted one kept."""
    boards = iago_game(np.random.default_rng(88100), moves=3)
    frames = np.random.default_rng(88101)
    for k, grid in enumerate(boards):
        photo = render_photo("iago", seed=88100, size=(1200, 900), grid=grid, tile_seed=88100)
        photo.image = another_frame(photo.image, frames)
        photo.save(tmp_path / f"{k}")
    corners = photo.corners
    for extra in tmp_path.glob("*.json"):
        extra.unlink()
    cam = BoardCamera(FileCamera(tmp_path), "iago", corners=corners)
    for k, grid in enumerate(boards):
        reading = cam.read()
        assert reading.grid == grid and reading.trusted, (k, reading.problems)
        if k:
            moved = sum(a != b for a, b in zip("".join(boards[k - 1]), "".join(grid), strict=True))
            assert 0 < reading.kept <= 121 - moved  # what the move changed is read anew


def test_a_games_frames_differ_only_where_the_move_laid_or_turned_tiles():
    """The renders of a game (``tile_seed``): two frames of one board are one camera's (the
    same pose and light: only the frame's noise differs), and a move changes the photo only
    around the squares it changed."""
    boards = iago_game(np.random.default_rng(88200), moves=2)
    shots = [render_photo("iago", seed=88200, grid=g, tile_seed=88200) for g in boards]
    again = render_photo("iago", seed=88200, grid=boards[1], tile_seed=88200)
    np.testing.assert_array_equal(again.image, shots[1].image)
    np.testing.assert_array_equal(again.corners, shots[1].corners)
    changed = [(r, c) for r in range(11) for c in range(11) if boards[1][r][c] != boards[2][r][c]]
    assert changed
    diff = np.abs(shots[2].image.astype(int) - shots[1].image.astype(int)).max(axis=2) > 40
    ys, xs = np.nonzero(diff)
    quad = shots[1].corners
    # each changed pixel lies within a cell and a half of a changed square (tiles' shadows,
    # the JPEG's blocks)
    u, v = quad[1] - quad[0], quad[3] - quad[0]
    basis = np.linalg.inv(np.stack([u, v], axis=1) / 11)
    cell = (np.stack([xs, ys], axis=1) - quad[0]) @ basis.T  # (column, row) in cells
    near = np.zeros(len(xs), bool)
    for r, c in changed:
        near |= (np.abs(cell[:, 0] - (c + 0.5)) < 1.5) & (np.abs(cell[:, 1] - (r + 0.5)) < 1.5)
    assert near.mean() > 0.99, near.mean()


def test_an_iago_game_keeps_the_rules_shape():
    """The boards of a random game: the empty board first, one more a move; each move adds or
    turns over tiles in the mover's colour only (blue first), tiles are never taken off, and
    every board's tiles are one group through the centre."""
    from companion.vision.cells import _groups

    for seed in range(88300, 88310):
        boards = iago_game(np.random.default_rng(seed), moves=8)
        assert len(boards) == 9 and boards[0] == EMPTY
        for k in range(1, 9):
            before, after = boards[k - 1], boards[k]
            mover_blue = k % 2 == 1
            changed = [
                after[r][c] for r in range(11) for c in range(11) if before[r][c] != after[r][c]
            ]
            assert changed, (seed, k)
            assert all(ch != "." and ch.isupper() == mover_blue for ch in changed), (seed, k)
            tiles = np.array([[ch != "." for ch in row] for row in after])
            assert (tiles | ~np.array([[ch != "." for ch in row] for row in before])).all()
            count, labels = _groups(tiles)
            assert count == 1 and tiles[5, 5], (seed, k)
