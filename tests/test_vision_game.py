"""An Iago game read move by move, as the table reads it: one still camera's frames of a
game's boards (``synth.iago_game``, ``render_photo(..., tile_seed=)``, ``synth.another_frame``),
each read with the game's last trusted reading (``read_board(..., last=)``). Renders: seeds 88000
on, none of the bench's (60000-63599, 81000-84599) nor the model's (20261206-20261208).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from companion.devices.camera import FileCamera
from companion.vision import cellnet
from companion.vision.reader import read_board
from companion.vision.synth import another_frame, iago_game, render_photo
from companion.vision.table import BoardCamera

EMPTY = ["." * 11] * 11


def test_a_game_is_read_from_its_empty_board_move_by_move(tmp_path):
    """One camera's frames of a game's first four moves (the empty board first), read by a
    BoardCamera over a file camera: the empty board is trusted, and each move's board is
    read right and trusted with the cells unchanged since the last trusted one kept."""
    boards = iago_game(np.random.default_rng(88100), moves=4)
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


def test_a_photo_showing_cells_smaller_than_the_networks_input_is_read_every_cell_again():
    """At 16 px a cell (under the network's 21.3), every cell is read the five ways: the sure
    cells' probabilities change too; at 40 px only the unsure ones are, as without the photo's
    size (``read_cells(..., photo_cell_px=)``)."""
    from companion.vision import wide
    from companion.vision.cells import read_cells
    from companion.vision.profiles import get_profile

    profile = get_profile("iago")
    net = cellnet.load_cellnet()
    assert 21 < net.native_cell_px < 22  # 32 px for a cell and a quarter of one each side
    ren = wide.render(wide.board_rng(88400, 0), profile, cell_px=16.0, hands=False, bag=True)
    plain = read_cells(ren.warp, profile, net)
    small = read_cells(ren.warp, profile, net, photo_cell_px=16.0)
    large = read_cells(ren.warp, profile, net, photo_cell_px=40.0)
    sure = plain[2].probabilities.max(-1) >= net.trust_level
    assert sure.sum() >= 20
    changed = ~np.isclose(small[2].probabilities, plain[2].probabilities).all(-1)
    assert changed[sure].mean() > 0.9  # the sure cells are read again too
    np.testing.assert_array_equal(large[2].probabilities, plain[2].probabilities)
    assert large[0] == plain[0]


def test_a_board_read_turned_keeps_nothing_of_the_last_reading():
    """The last trusted reading's cells are kept only for a board warped the same way round:
    with its corners in another order (the board read turned), no cell is kept, however alike
    the two warps' empty squares look."""
    photo = render_photo("iago", seed=88500, size=(1200, 900), hand=False)
    first = read_board(photo.image, "iago", corners=photo.corners)
    trusted = dataclasses.replace(first, problems=[])
    again = read_board(photo.image, "iago", corners=photo.corners, last=trusted)
    assert again.kept == 121
    turned = dataclasses.replace(trusted, corners=np.roll(trusted.corners, -2, axis=0))
    fresh = read_board(photo.image, "iago", corners=photo.corners, last=turned)
    assert fresh.kept == 0 and fresh.grid == first.grid


def test_a_board_turned_half_round_under_the_same_camera_is_read_the_way_its_letters_stand():
    """``render_photo(..., turned=True)``: the same camera and light, the board turned half round
    (as Iago's players turn it after every move): its grid's corners lie where they did, and
    the reader, turning the board by its letters, reads it as they stand."""
    grid = list(EMPTY)
    grid[5] = "...CABIN..."
    grid[6] = "...a......."
    upright = render_photo("iago", seed=88700, size=(1200, 900), grid=grid, hand=False)
    turned = render_photo("iago", seed=88700, size=(1200, 900), grid=grid, hand=False, turned=True)
    np.testing.assert_allclose(turned.corners, upright.corners)
    assert not np.array_equal(turned.image, upright.image)
    reading = read_board(turned.image, "iago", corners=turned.corners)
    assert reading.grid == grid and reading.turn == 2, reading.notes
    assert any("turned 180 degrees" in n for n in reading.notes)
