"""An Iago game read move by move, as the table reads it: one still camera's frames of a
game's boards (``synth.iago_game``, ``render_photo(..., tile_seed=)``, ``synth.another_frame``),
each read with the game's last trusted reading (``read_board(..., last=)``). Renders: seeds 88000
on, none of the bench's (60000-63799, 81000-84799) nor the model's (20261206-20261208).
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from companion.devices.camera import FileCamera
from companion.vision import cellnet
from companion.vision.reader import WAY_UNKNOWN, read_board
from companion.vision.synth import another_frame, iago_game, render_photo
from companion.vision.table import BoardCamera

EMPTY = ["." * 11] * 11


def test_a_game_is_read_from_its_empty_board_move_by_move(tmp_path):
    """One camera's frames of a game's first four moves (the empty board first), read by a
    BoardCamera over a file camera: the empty board is trusted, and each move's board is
    read right and trusted with the cells unchanged since the last reading taken as second views. The first
    word, AZ, is read right but not trusted: its two letters read as surely under another turn
    (half round: a turned A as V, Z as itself), so they cannot say which way the board lies
    (``WAY_UNKNOWN``); its count stands, and the next move is kept against the empty board."""
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
    last = None  # the last trusted board, which the camera keeps cells from
    for k, grid in enumerate(boards):
        reading = cam.read()
        if k == 1:
            assert grid[5] == ".....AZ...." and reading.grid == grid
            assert reading.problems == [WAY_UNKNOWN] and reading.count_trusted
            assert cam.last is not reading
            continue
        assert reading.grid == grid and reading.trusted, (k, reading.problems)
        if k:
            moved = sum(a != b for a, b in zip("".join(last), "".join(grid), strict=True))
            assert 0 < reading.kept <= 121 - moved  # what changed since is read anew
        last = grid


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
    from companion.vision.facts import _groups

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


def test_a_board_read_turned_keeps_the_last_readings_cells_only_when_its_tiles_say_how():
    """The last trusted reading's cells are kept only for a board warped the same way round:
    its tiles say how the board stands now (``turn_since``), and the cells are kept whatever
    order its corners were taken in; with no tile to say it (the empty board) only corners in
    the same order keep them, however alike the two warps' empty squares look."""
    photo = render_photo("iago", seed=88500, size=(1200, 900), hand=False)
    first = read_board(photo.image, "iago", corners=photo.corners)
    assert any(ch != "." for row in first.grid for ch in row)
    trusted = dataclasses.replace(first, problems=[])
    again = read_board(photo.image, "iago", corners=photo.corners, last=trusted)
    assert again.kept == 121
    rolled = np.roll(trusted.corners, -2, axis=0)
    by_tiles = read_board(
        photo.image,
        "iago",
        corners=photo.corners,
        last=dataclasses.replace(trusted, corners=rolled),
    )
    assert by_tiles.kept == 121 and by_tiles.grid == first.grid and by_tiles.turn == 0
    bare = dataclasses.replace(trusted, corners=rolled, grid=list(EMPTY))
    fresh = read_board(photo.image, "iago", corners=photo.corners, last=bare)
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


def test_the_letters_say_the_turn_when_there_are_four_or_more():
    """``upright_turn`` on the network's best-letter probabilities under each quarter turn
    (float (4, letters)), worked by hand: the turn whose mean is highest; none judged under 4
    letters, however sure one turn's letters are."""
    from companion.vision.cells import upright_turn

    three = np.array([[0.5] * 3, [0.1] * 3, [0.99] * 3, [0.2] * 3])
    assert upright_turn(three) == 0  # too few letters to judge
    four = np.array([[0.9, 0.9, 0.2, 0.9], [0.1] * 4, [0.7] * 4, [0.3] * 4])
    assert upright_turn(four) == 0  # mean 0.725 against 0.7
    four[2, 0] = 0.9
    assert upright_turn(four) == 2  # 0.75
    assert upright_turn(np.zeros((4, 0))) == 0


def test_a_last_reading_read_the_wrong_way_round_is_not_followed_silently():
    """A last trusted reading whose letters are this board's read upside down (as a board of
    letters that read as others turned can be): its letters say the board turned half round,
    the board's own five letters say not; the reading says they disagree, and is not
    trusted, and the table's camera forgets the last reading."""
    from companion.vision.cells import read_cells
    from companion.vision.profiles import get_profile
    from companion.vision.warp import warp_board

    grid = list(EMPTY)
    grid[5] = "...FREAK..."  # F, R, E, K read unsurely turned (CABIN reads surely)
    grid[6] = "...a......."
    photo = render_photo("iago", seed=88700, size=(1200, 900), grid=grid, hand=False)
    first = read_board(photo.image, "iago", corners=photo.corners)
    assert first.grid == grid and first.trusted and first.way_known
    warp = warp_board(photo.image, photo.corners, get_profile("iago"))
    upside_down = read_cells(np.ascontiguousarray(np.rot90(warp, 2)), get_profile("iago"))[0]
    assert sum(ch.isalpha() for row in upside_down for ch in row) >= 3
    wrong = dataclasses.replace(first, grid=upside_down)
    reading = read_board(photo.image, "iago", corners=photo.corners, last=wrong)
    assert not reading.trusted
    assert "the board's letters and the last reading's disagree on which way it stands" in (
        reading.problems
    )
    # at the table the camera forgets the disputed reading: the next frame is read afresh
    cam = BoardCamera(None, "iago", corners=photo.corners)
    cam.last = wrong
    assert not cam.read(frame=photo.image).trusted and cam.last is None
    assert cam.problem and "disagree on which way it stands" in cam.problem
    again = cam.read(frame=photo.image)
    assert again.trusted and again.grid == grid and cam.last is again


def _turned_game(seed: int, moves: int, turned_every_move: bool = True):
    """(boards, frames, corners): one still camera's frames of an Iago game (full photos), the
    board turned half round after every move when ``turned_every_move``."""
    boards = iago_game(np.random.default_rng(seed), moves=moves)
    noise = np.random.default_rng([seed, 1])
    shots = [
        render_photo(
            "iago",
            seed=seed,
            size=(1200, 900),
            grid=grid,
            tile_seed=seed,
            turned=turned_every_move and k % 2 == 1,
        )  # fmt: skip
        for k, grid in enumerate(boards)
    ]
    return boards, [another_frame(s.image, noise) for s in shots], shots[0].corners


def test_the_last_readings_tiles_say_how_far_the_board_turned():
    """``turn_since``: under the same camera, a board turned half round since the last trusted
    reading is found turned 2 quarters by its tiles' pixels, one not turned 0; with no tile on
    the last board nothing is said (None)."""
    from companion.vision.cells import turn_since
    from companion.vision.profiles import get_profile
    from companion.vision.warp import warp_board

    profile = get_profile("iago")
    net = cellnet.load_cellnet()
    grid = list(EMPTY)
    grid[5] = "...VAN....."
    grid[6] = "....z......"
    shots = [
        render_photo("iago", seed=88800, size=(1200, 900), grid=grid, hand=False, turned=t)
        for t in (False, True)
    ]
    last = read_board(shots[0].image, "iago", corners=shots[0].corners)
    assert last.grid == grid and last.turn == 0
    for shot, turn in zip(shots, (0, 2), strict=True):
        assert turn_since(net, last, warp_board(shot.image, shot.corners, profile), profile) == turn
    bare = dataclasses.replace(last, grid=list(EMPTY))
    assert (
        turn_since(net, bare, warp_board(shots[1].image, shots[1].corners, profile), profile)
        is None
    )


def test_a_game_turned_after_every_move_is_read_by_its_last_readings_letters(tmp_path):
    """A game whose board is turned half round after every move (the rulebook, "The Move"),
    one camera, corners set up once: after a trusted board whose way round its letters said
    (``way_known``: 4 letters or more that no other turn reads surely), every board is read the
    way the last trusted
    reading's letters stand, right, with the unchanged cells kept."""
    boards, frames, corners = _turned_game(88900, moves=5)
    cam = BoardCamera(None, "iago", corners=corners)
    followed, last_k = 0, None
    for k, (grid, frame) in enumerate(zip(boards, frames, strict=True)):
        last = cam.last
        followed_by = (
            last is not None and last.way_known and any(c.isalpha() for c in "".join(last.grid))
        )
        reading = cam.read(frame=frame)
        assert reading.grid == grid or not reading.trusted, (k, reading.grid)
        if followed_by:
            # turned half round since the last trusted board when an odd number of moves ago
            turn = 2 * ((k - last_k) % 2)
            assert reading.trusted and reading.kept and reading.turn == turn, (k, reading.problems)
            said = [n for n in reading.notes if "the last reading's letters now stand" in n]
            assert bool(said) == bool(turn), (k, reading.notes)
            followed += 1
        if reading.trusted:
            last_k = k
    assert followed >= 3


def _still_photo(grid: list[str], seed: int, turned: bool = False):
    """A photo of ``grid`` by one still camera (``seed``, the tiles' too), no hand, 1200 x 900,
    the board turned half round or not."""
    return render_photo(
        "iago", seed=seed, size=(1200, 900), grid=grid, hand=False, tile_seed=seed, turned=turned
    )


def _first_word(word: str, at: int, seed: int, turned: bool):
    """(grid, reading): a board holding only ``word`` across the middle row from column ``at``,
    photographed by :func:`_still_photo`, turned half round or not, and read with the corners
    given."""
    grid = list(EMPTY)
    grid[5] = "." * at + word + "." * (11 - at - len(word))
    photo = _still_photo(grid, seed, turned)
    return grid, read_board(photo.image, "iago", corners=photo.corners)


def test_a_first_word_turned_half_round_is_read_as_it_lies_and_not_trusted():
    """A board turned half round before its first photo (Iago's players turn it after every
    move) holding a word of two or three letters: read as it lies, DOT is LOG and VA is VA a
    cell off, every letter surely (a turned T reads as L, D as G; a turned V as A and A as V).
    Those letters read as surely under the other turn, so they cannot say which way the board
    lies: the one problem is ``WAY_UNKNOWN``, and no such board is trusted wrong."""
    for word, as_it_lies in (("DOT", "...LOG....."), ("VA", "....VA.....")):
        grid, reading = _first_word(word, 5, seed=88950, turned=True)
        assert reading.grid[5] == as_it_lies and reading.grid != grid
        assert reading.problems == [WAY_UNKNOWN] and not reading.trusted
        assert not reading.way_known


def test_four_letters_that_read_as_surely_turned_half_round_cannot_say_the_way_round():
    """Four letters are not enough when they read as surely under another turn: N, O, S, H
    read as themselves turned half round (NOSH turned is HSON as it lies), and a turned Y
    reads as A and a turned G as D (YXSG turned, DSXA). Upright or turned, such a first word
    is read, not trusted (``WAY_UNKNOWN``) and its way round is not known, so the next
    reading does not follow its letters; its tiles and their colours are counted."""
    for word, turned in (("NOSH", True), ("NOSH", False), ("YXSG", False), ("YXSG", True)):
        _, reading = _first_word(word, 4, seed=88991, turned=turned)
        assert reading.problems == [WAY_UNKNOWN], (word, turned, reading.problems)
        assert not reading.trusted and not reading.way_known and reading.count_trusted
        # read either way round: its 4 tiles, on the row they lie on
        assert [row.count(".") for row in reading.grid] == [11] * 5 + [7] + [11] * 5


def test_four_letters_read_the_wrong_way_round_surely_are_not_trusted():
    """YXSG and SAGY turned half round (seed 88992) are read as they lie, DSXA and ADVS, every
    letter surely (a turned Y as A, G as D, A as V): each was trusted, wrong, when 4 letters
    were taken to say the way round (as in a test render's game, whose moves 3 and 4 were
    trusted wrong). Read under the turn that is right, every letter is as sure: not trusted
    (``WAY_UNKNOWN``), the count standing (a half turn keeps the tiles and their colours)."""
    for word, as_it_lies in (("YXSG", "...DSXA...."), ("SAGY", "...ADVS....")):
        grid, reading = _first_word(word, 4, seed=88992, turned=True)
        assert reading.grid[5] == as_it_lies and reading.grid != grid
        assert reading.problems == [WAY_UNKNOWN] and not reading.trusted
        assert not reading.way_known and reading.count_trusted


def test_a_word_of_three_letters_leaves_the_way_round_unknown():
    """Under 4 letters the board is taken as it lies (``upright_turn``), and the reading says
    its way round is not known: the next reading does not follow its letters to the way
    round, however sure, and reads the board's own. These five letters (COW down from CAT's
    C) say it, and a board turned since is read by theirs."""
    grid = list(EMPTY)
    grid[5] = "....CAT...."
    photo = _still_photo(grid, 88600)
    first = read_board(photo.image, "iago", corners=photo.corners)
    assert first.grid == grid and first.trusted and not first.way_known
    grid[6] = "....o......"
    grid[7] = "....w......"
    photo = _still_photo(grid, 88600)
    again = read_board(photo.image, "iago", corners=photo.corners, last=first)
    assert again.grid == grid and again.way_known
    turned = _still_photo(grid, 88600, turned=True)
    for last, said in ((first, False), (again, True)):
        reading = read_board(turned.image, "iago", corners=photo.corners, last=last)
        assert any("the last reading's letters" in n for n in reading.notes) == said


def test_two_tiles_laid_on_a_board_of_few_are_the_only_cells_changed():
    """One camera's renders (``tile_seed``, no hand) of CAT and then of COW laid down from its
    C: the two cells laid are the only ones changed, whatever the board's bright tenth does.
    With each board brought to its own bright tenth, two tiles more on a dark board of three
    moved it by half, and every cell read as changed at 88964 (116 kept at 88965)."""
    from companion.vision.cells import unchanged_cells
    from companion.vision.profiles import get_profile
    from companion.vision.reader import warp_board

    profile = get_profile("iago")
    cat = list(EMPTY)
    cat[5] = "....CAT...."
    cow = list(cat)
    cow[6], cow[7] = "....o......", "....w......"
    for seed in (88964, 88965):
        shots = [_still_photo(g, seed) for g in (cat, cow)]
        warps = [warp_board(s.image, shots[0].corners, profile) for s in shots]
        same = unchanged_cells(warps[0], warps[1], profile)
        assert np.argwhere(~same).tolist() == [[6, 4], [7, 4]], seed


def test_a_letter_whose_colour_is_in_doubt_holds_back_the_reading_and_the_count(monkeypatch):
    """The reader says how many letters read in this frame have a colour their ink puts in
    doubt (``cells.inks_unlike_their_colour``, here made to doubt every letter): FREAK read
    first, then DOG laid under it, read with FREAK's reading as the last: FREAK's 5 cells are
    kept from it, so the 3 of DOG alone are said; neither the reading nor the count is trusted.
    A black-and-white frame says no colour instead, and a Scrabble board, no ink at all."""
    from companion.vision import cells
    from companion.vision.reader import INK_UNLIKE

    first_grid, first = _first_word("FREAK", 3, seed=88993, turned=False)
    assert first.trusted and first.evidence.ink_unlike is not None

    def every_letter(inks, classes, ink):
        return cells._read_as_letters(classes).reshape(classes.shape[:2])

    monkeypatch.setattr(cells, "inks_unlike_their_colour", every_letter)
    grid = list(first_grid)
    grid[7] = "...DOG....."
    photo = _still_photo(grid, 88993)
    reading = read_board(photo.image, "iago", corners=photo.corners, last=first)
    assert reading.grid == grid and reading.kept
    assert f"3 {INK_UNLIKE}" in reading.problems
    assert f"3 {INK_UNLIKE}" in reading.count_problems
    assert not reading.trusted and not reading.count_trusted
    grey = cv2.cvtColor(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    colourless = read_board(grey, "iago", corners=photo.corners)
    assert not any(INK_UNLIKE in p for p in colourless.problems)
    scrabble = render_photo("scrabble", seed=88993, size=(1000, 750), hand=False)
    reading = read_board(scrabble.image, "scrabble", corners=scrabble.corners)
    assert reading.evidence.ink_unlike is None
    assert not any(INK_UNLIKE in p for p in reading.problems)


def _freak_read_once(seed: int):
    """(grid, photo, camera, first reading): FREAK across the middle and a red A under it, by
    :func:`_still_photo`, read once (trusted, right) by a BoardCamera with the corners given."""
    grid = list(EMPTY)
    grid[5] = "...FREAK..."
    grid[6] = "...a......."
    photo = _still_photo(grid, seed)
    cam = BoardCamera(None, "iago", corners=photo.corners)
    first = cam.read(frame=photo.image)
    assert first.trusted and first.grid == grid
    return grid, photo, cam, first


def test_a_cell_in_doubt_in_one_frame_and_sure_in_the_next_is_sure_and_kept_so():
    """The last reading held back by a cell in doubt alone (``doubts_only``) is kept by the
    camera, and the next frame reads its unchanged cells as a second view: a letter in doubt
    there and read alike, surely, now is sure (the board trusted); a reading held back by
    anything else (here the board's way round) is not kept."""
    from companion.vision.reader import UNSURE_CELLS

    grid, photo, cam, first = _freak_read_once(88950)
    conf = first.confidence.copy()
    conf[5, 4] = 0.6  # the R read in doubt
    doubted = dataclasses.replace(
        first, confidence=conf, problems=[f"1 {UNSURE_CELLS} (0.982)"], count_confidence=None
    )
    assert doubted.doubts_only and not doubted.trusted
    cam.last = doubted
    frame = another_frame(photo.image, np.random.default_rng(88951))
    again = cam.read(frame=frame)
    assert again.grid == grid and again.trusted, again.problems
    assert again.kept == 121 and again.confidence[5, 4] >= 0.982 and cam.last is again
    # nothing but cells in doubt, or the reading is not a view to keep
    held = dataclasses.replace(again, problems=[WAY_UNKNOWN])
    assert not held.doubts_only


def test_two_frames_reading_an_unchanged_tile_differently_put_it_in_doubt():
    """An unchanged tile read surely as one letter in the last frame and surely as another in
    this one: at most one is right, so it is in doubt (confidence at most the other frame's
    doubt of its own reading), and the board is not trusted though this frame alone is sure."""
    grid, photo, cam, first = _freak_read_once(88960)
    rows = list(first.grid)
    rows[5] = "...FRFAK..."  # the E read surely as F in the last frame
    cam.last = dataclasses.replace(first, grid=rows)
    again = cam.read(frame=another_frame(photo.image, np.random.default_rng(88961)))
    assert not again.trusted and again.confidence[5, 5] <= 1 - first.confidence[5, 5] + 1e-6
    assert again.grid[5][5] in "EF" and any("1 cell(s) read" in p for p in again.problems)
