"""Reading a board from a photo: locate the grid, warp once to a top-down board, read the cells.

``read_board(image, profile)`` is the whole pipeline, each stage in a module of its own:

1. the grid's corners: given, tracked from a fixed camera, or found
   (:mod:`companion.vision.localise`);
2. the warp of the full-resolution photo, once, to a fixed-size top-down board
   (:mod:`companion.vision.warp`);
3. every cell read by the cell model, a small convolutional network run by ``cv2.dnn``
   (:mod:`companion.vision.cells`, :mod:`companion.vision.cellnet`), the board turned the way
   its letters stand, and the grid moved to fit the premium squares when they say it is a row
   or a column off;
4. trust: the cells' calibrated probabilities, the board's facts (the set's letter counts,
   every tile in a word, the tiles joined: :mod:`companion.vision.facts`), a letter's colour
   its ink does not bear out, the photo (dark, soft, glared, cut by its edge) and the grid
   (:mod:`companion.vision.checks`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from companion.vision.cells import CellEvidence
from companion.vision.checks import BEYOND_PREMIUM, grid_problems
from companion.vision.errors import VisionError
from companion.vision.notation import format_board
from companion.vision.profiles import Profile, get_profile
from companion.vision.warp import (
    MIN_CELL_PX,
    board_homography,
    cells_off_photo,
    check_cell_size,
    check_corners,
    photo_cell_px,
    shift_corners,
    warp_board,
)

__all__ = [
    "INK_UNLIKE",
    "MIN_CELL_PX",
    "UNSURE_CELLS",
    "UNSURE_OF_TILES",
    "CALIBRATION_UNUSED",
    "WAY_DISPUTED",
    "WAY_UNKNOWN",
    "BoardReading",
    "CellEvidence",
    "board_homography",
    "cells_off_photo",
    "check_cell_size",
    "check_corners",
    "grid_problems",
    "read_board",
    "warp_board",
]

COLOURS = ("blue", "red")
# the problem said of cells under the reading's trust level (after their count)
UNSURE_CELLS = "cell(s) read with a confidence under what a trusted reading needs"
# the count's: cells whose tile, or the colour it shows, is read under the level
UNSURE_OF_TILES = "cell(s) whose tile, or the colour it shows, is read unsurely"
# letters read as a colour their ink looks unlike, beside the board's other inks (the count's
# problem too): :func:`companion.vision.cells.inks_unlike_their_colour`
INK_UNLIKE = "letter(s) whose colour is in doubt (their ink looks like the other colour's)"
# begins the note said when a calibration to the user's set was made but cannot be read with
# (:func:`companion.vision.cellnet.read_head` says why); the table logs it, `vision read` says it
CALIBRATION_UNUSED = "read without your set's calibration"
# said when the board's own letters (4 or more) and the last trusted reading's say it stands
# different ways round: one of them is wrong, and the table forgets the last reading
WAY_DISPUTED = "the board's letters and the last reading's disagree on which way it stands"
# said when a board's letters (under 4: taken as it lies) read as surely under another turn,
# with no last reading to say: its letters are in doubt, its tiles and their colours are not
# (the count stands)
WAY_UNKNOWN = "its letters cannot tell which way round the board lies (they read turned too)"


@dataclass
class BoardReading:
    """What the reader saw.

    Attributes:
        profile: the profile read with.
        grid: rows top first, one character a cell: ``.`` empty, a letter (Iago: upper case blue,
            lower case red; other profiles upper case), ``?`` a blank tile.
        confidence: float32 array (size, size), 0-1, how sure the reader is of each cell.
        corners: float32 array (4, 2): the grid's outer corners in the photo (top-left, top-right,
            bottom-right, bottom-left of the board as its letters stand), pixels.
        located_by: ``given``, ``markers``, ``grid`` or ``tracked``.
        timings: seconds spent in each stage (``locate``, ``warp``, ``cells``, ``turn``,
            ``check``).
        problems: what puts the reading in doubt, in words (empty: ``trusted``).
        notes: what the reader put right or took from elsewhere (the grid moved one row or
            column to fit the premium squares; the board read turned, the way its letters stand;
            cells read as second views of the last reading's; cells mended, or held bare, by the rules:
            :func:`companion.vision.facts.mend_by_facts`,
            :func:`companion.vision.facts.bare_by_facts`).
        evidence: what the reader measured besides the cells (:class:`CellEvidence`), or None.
        turn: quarter turns (0-3, clockwise) the board lies turned in the photo, the corners
            taken in that order (:func:`companion.vision.cells.turn_since`,
            :func:`companion.vision.cells.upright_turn`).
        way_known: the board's way round was said, not taken as it lies: by markers, by 4 or
            more letters that no other quarter turn reads as surely as a trusted reading needs
            (:func:`companion.vision.cells.upright_turn`), or by the letters of a
            last reading whose way round was known (:func:`companion.vision.cells.turn_since`).
            Only such a reading's letters say the next one's.
        warp: uint8 (board_px, board_px, 3) BGR: the top-down board read (for the next frame's
            game reading), or None.
        kept: cells read as second views of the last reading of the game, unchanged
            in the photo since (:func:`companion.vision.cells.unchanged_cells`).
        count_problems: what puts the count of the lead in doubt (:attr:`count_trusted`): the
            same as ``problems`` but for the cells' letters (their confidence, and
            :data:`WAY_UNKNOWN`), or None (then ``problems``).
        count_confidence: float32 (size, size), 0-1: how sure the reader is that each cell holds
            a tile or none as read, and which colour a lettered tile shows
            (:func:`companion.vision.cells.presence_confidence`), or None.
    """

    profile: Profile
    grid: list[str]
    confidence: np.ndarray
    corners: np.ndarray
    located_by: str
    timings: dict[str, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evidence: CellEvidence | None = None
    turn: int = 0
    way_known: bool = False
    warp: np.ndarray | None = None
    kept: int = 0
    count_problems: list[str] | None = None
    count_confidence: np.ndarray | None = None

    @property
    def trusted(self) -> bool:
        """True only when the reader is sure of every cell: nothing about the photo or the grid
        is in doubt (``problems`` is empty). DESIGN.md, "The board reader's trust"."""
        return not self.problems

    @property
    def doubts_only(self) -> bool:
        """True when nothing but cells read under the trust level holds the reading back (and
        when it is trusted): the photo, the grid, the way round and the board's facts are in no
        doubt, so each cell is as sure as its confidence says, and the next frame of the game
        can take it as a view of the cells that did not change (:func:`read_board`'s ``last``,
        :func:`companion.vision.cells.two_views`)."""
        return all(UNSURE_CELLS in p for p in self.problems)

    @property
    def count_trusted(self) -> bool:
        """True when the count of the lead (:meth:`counts`) is sure: the photo, the grid and the
        board's facts are in no doubt, and every cell is read surely as a tile or none, and a
        lettered tile's colour, whatever its letter (the rulebook's count asks no more). A
        trusted reading's count is always trusted; a reading unsure of an I or an L may still
        be counted."""
        return not self._count_doubts()

    def _count_doubts(self) -> list[str]:
        """``count_problems``, or ``problems`` for a reading made without them."""
        return self.problems if self.count_problems is None else self.count_problems

    @property
    def notation(self) -> str:
        """The board in board notation (DESIGN.md): letters and numbers only, so any notation
        parser reads it. A blank tile (``?`` in ``grid``), which has no letter to write, is left
        out here; ``blanks`` and :meth:`to_json` tell where the blanks are."""
        return format_board([row.replace("?", ".") for row in self.grid])

    @property
    def blanks(self) -> list[tuple[int, int]]:
        """Cells (row, column), 0-based, holding a blank tile."""
        return [(r, c) for r, row in enumerate(self.grid) for c, ch in enumerate(row) if ch == "?"]

    def counts(self) -> dict[str, int]:
        """Tiles showing each colour, ``{"blue": n, "red": n}`` (Iago: upper case is blue)."""
        blue = sum(ch.isupper() for row in self.grid for ch in row)
        red = sum(ch.islower() for row in self.grid for ch in row)
        return {"blue": blue, "red": red}

    def to_json(self) -> dict:
        """The reading as a JSON-ready dict: notation, profile, the rows (``?`` a blank tile),
        the blanks (row, column, 1-based), per-cell confidence (rows of numbers rounded to 3
        places: the calibrated probability that the cell is read right), colour counts (Iago,
        with ``counts_trusted`` and the ``count_problems`` that withhold it), corners,
        ``trusted`` with the ``problems`` that withhold it, and stage timings."""
        out = {
            "board": self.notation,
            "profile": self.profile.name,
            "rows": self.grid,
            "blanks": [[r + 1, c + 1] for r, c in self.blanks],
            "confidence": [[round(float(c), 3) for c in row] for row in self.confidence],
            "min_confidence": round(float(self.confidence.min()), 3),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "located_by": self.located_by,
            "trusted": self.trusted,
            "problems": list(self.problems),
            "notes": list(self.notes),
            "timings_ms": {k: round(v * 1000, 1) for k, v in self.timings.items()},
        }
        if self.profile.coloured_ink:
            out["counts"] = self.counts()
            out["counts_trusted"] = self.count_trusted
            out["count_problems"] = list(self._count_doubts())
        return out


def _earlier_view(reading, profile: Profile, pts: np.ndarray, turns=(0,)) -> bool:
    """Whether ``reading`` (an earlier BoardReading of the game, or None) can be read as an
    earlier view of the board in this photo: nothing but cells in doubt held it back
    (:attr:`BoardReading.doubts_only`), it kept its warp, it was read with ``profile``, and its
    corners lie within a cell of ``pts`` (float32 (4, 2), pixels) taken in their order turned by
    one of ``turns`` (quarter turns: ``range(4)``, the board turned under the camera since, in
    any way; the default, standing as it does now)."""
    return (
        reading is not None
        and reading.doubts_only
        and reading.warp is not None
        and reading.profile == profile
        and min(np.abs(np.roll(np.float32(reading.corners), j, axis=0) - pts).max() for j in turns)
        < photo_cell_px(pts, profile)
    )


def read_board(
    image: np.ndarray,
    profile: Profile | str = "iago",
    corners=None,
    tracker=None,
    net=None,
    last: BoardReading | None = None,
    known: list[str] | None = None,
    before_last: BoardReading | None = None,
) -> BoardReading:
    """Read the board in a photo, and say how far the reading can be trusted.

    Args:
        image: uint8 array (H, W, 3), BGR channel order (OpenCV's; picamera2's ``RGB888`` is the
            same in memory).
        profile: a Profile or its name (``iago``, ``scrabble``).
        corners: the grid's outer corners in the photo (8 numbers or 4 pairs: top-left,
            top-right, bottom-right, bottom-left, pixels), or None to find the board.
        tracker: a :class:`companion.vision.localise.BoardTracker` keeping the homography of a
            fixed camera between frames; None finds the board afresh.
        net: the cell model (:class:`companion.vision.cellnet.CellNet`); None loads the
            shipped one.
        last: the last reading of the same game from the same camera that nothing but cells
            in doubt held back (:attr:`BoardReading.doubts_only`; a trusted one, or one whose
            cells are not all sure): each cell that did not change since
            (:func:`companion.vision.cells.unchanged_cells`) is read as two views of one tile,
            its and this photo's (:func:`companion.vision.cells.two_views`), so a move's reading
            is trusted when its changed cells are (a move changes few cells), and a tile read
            surely once, and alike since, stays sure.
        before_last: the reading the game's camera kept before ``last``, or None. Where the
            board was turned under the camera since ``last`` (Iago's players turn it towards the
            opponent after every move) and ``before_last`` saw it standing as it does now, the
            pixels are compared with that frame (a tile turned shows other light and shadow).
        known: the board the game holds before this move (rows of ``.`` and letters, a blank
            in lower case), or None: its tiles must be read where they lie, and an empty square
            read empty is weighed with the rules' bound on the tiles a move lays
            (:func:`companion.vision.facts.with_known_board`).

    Unless ArUco markers say which corner is which, a board whose letters stand turned in the
    photo (taken from its side, or from across it, or turned towards the opponent after an
    Iago move) is read the way they stand, and a note says so: the way the last trusted
    reading's letters now stand when it had some and they say it
    (:func:`companion.vision.cells.turn_since`), else the way the board's own letters read
    best (:func:`companion.vision.cells.upright_turn`); when both say, and disagree, a problem
    says so (:data:`WAY_DISPUTED`). Under 4 letters, with no such last reading, the board is
    taken as it lies. With no such last reading, where the board's letters read, every one, at
    the reading's trust level under another quarter turn than the one taken too, they cannot say
    its way round, however many they are: :data:`WAY_UNKNOWN` (decided frame by frame, on the
    letters' first reading).

    Returns:
        A :class:`BoardReading` whose ``problems`` list what is in doubt and whose ``trusted``
        is true only when nothing is (:mod:`companion.vision.trust`); ``count_problems``,
        ``count_confidence`` and ``count_trusted`` say the same of the count of the lead, which
        asks only the tiles and their colours (:func:`companion.vision.cells.presence_confidence`).

    Raises:
        VisionError: the image is not a colour photo (or has no pixels), or the corners are
            bad.
        BoardNotFoundError: no corners given and the board cannot be found.
    """
    from companion.vision import cells, facts, localise, trust
    from companion.vision.cellnet import load_cellnet

    profile = get_profile(profile)
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        raise VisionError(f"image: expected a colour photo (H, W, 3) array, got shape {shape}")
    if image.dtype != np.uint8:
        raise VisionError(f"image: expected 8-bit pixels (uint8), got {image.dtype}")
    if min(image.shape[:2]) == 0:
        raise VisionError(f"image: it has no pixels ({image.shape[1]} x {image.shape[0]})")
    net = net or load_cellnet(profile=profile.name)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    reduced = None
    if corners is not None:
        pts, how = check_corners(corners, image.shape), "given"
    elif tracker is not None:
        pts, how = tracker.locate(image)
    else:
        reduced = localise.reduce(image)
        pts, how = localise.find_board(image, profile, reduced=reduced)
    check_cell_size(pts, profile, how == "given")
    t1 = time.perf_counter()
    warp = warp_board(image, pts, profile)
    t2 = time.perf_counter()
    timings["locate"] = t1 - t0
    timings["warp"] = t2 - t1
    grid, conf, ev, crops = cells.read_cells(
        warp, profile, net, timings, photo_cell_px(pts, profile)
    )
    problems: list[str] = []
    notes: list[str] = []
    if getattr(net, "calibration_problem", None):
        notes.append(f"{CALIBRATION_UNUSED}: {net.calibration_problem}")
    by_markers = how == "markers" or (tracker is not None and tracker.how == "markers")
    # the last trusted reading of this camera's board: the same grid in the photo, its corners
    # in any order (Iago's board is turned towards the opponent after every move); its letters
    # say the way round only when its own was known (a first word of three letters, taken as
    # it lies, says nothing of the next)
    follows = _earlier_view(last, profile, pts, turns=range(4))
    turn, by_last, disputed, way_known = 0, None, False, by_markers
    doubted = False
    if not by_markers:
        # photographed from another side of the board (markers say which corner is which), or
        # turned since the last reading: the last reading's letters say how it stands, else the
        # board's own, and it is read their way
        t_turn = time.perf_counter()
        if follows and last.way_known:
            by_last = cells.turn_since(net, last, warp, profile)
        scores = cells.turn_scores(net, crops, ev.probabilities)
        turn = cells.upright_turn(scores)
        if by_last is not None:
            # the last reading's letters say it; where the board's own letters say otherwise,
            # one of them is wrong (the last reading, or the turn a few letters seem to say)
            disputed = scores.shape[1] >= 4 and turn != by_last
            turn = by_last
        if by_last is None and scores.shape[1]:
            # where the board's letters read, every one of them, as surely as a trusted reading
            # needs under another turn too, they cannot say it lies the way they read best (a
            # turned V reads as A and a turned A as V, surely; S, X, O, H, I, N, Z read as
            # themselves turned half round, and a turned Y as A, G as D: YXSG turned, DSXA)
            doubted = any(scores[k].min() >= net.reader_trust_level for k in range(4) if k != turn)
        way_known = by_last is not None or (scores.shape[1] >= 4 and not doubted)
        timings["turn"] = time.perf_counter() - t_turn
        if turn:
            pts = np.roll(pts, -turn, axis=0)
            if tracker is not None:
                tracker.corners = pts
            warp = warp_board(image, pts, profile)
            grid, conf, ev, crops = cells.read_cells(
                warp, profile, net, timings, photo_cell_px(pts, profile)
            )
            notes.append(
                f"the board is turned {90 * turn} degrees clockwise in the photo: read the way "
                + (
                    "its letters stand"
                    if by_last is None
                    else "the last reading's letters now stand"
                )
            )
    colourless = ev.chroma < trust.GREY_CHROMA
    if colourless:
        # said first: the colours it lacks are what the other checks (and a player) need
        told = "red ink from blue" if profile.coloured_ink else "the premium squares and blanks"
        problems.append(
            f"the photo has no colour (a black-and-white camera or setting?): {told} cannot be told"
        )
    if disputed:
        problems.append(WAY_DISPUTED)
    placed = False  # the premium squares put the grid where it is beyond doubt
    if profile.premium and ev.premium and not colourless:
        # the coloured squares say where the grid is: one row or column off is put right
        best = max(ev.premium, key=ev.premium.get)
        here = ev.premium.get((0, 0), -np.inf)
        moved = best != (0, 0) and ev.premium[best] > max(here, 0.0) + trust.PREMIUM_MARGIN
        if moved:
            pts = shift_corners(pts, profile.size, -best[0], -best[1])
            warp = warp_board(image, pts, profile)
            grid, conf, ev, crops = cells.read_cells(
                warp, profile, net, timings, photo_cell_px(pts, profile)
            )
            notes.append(f"grid moved {-best[0]:+d} row(s), {-best[1]:+d} column(s)")
            here = ev.premium.get((0, 0), -np.inf)
        # moved, does the layout fit as well? Judged where the two layouts differ: the board's
        # main diagonal is premium in both when moved one row and one column along it
        against = min(ev.premium_against.values(), default=np.inf)
        if here < trust.PREMIUM_MIN or against < trust.PREMIUM_MARGIN:
            problems.append("the premium squares are not where the grid puts them")
        placed = not moved and bool(ev.premium_against) and here >= trust.PREMIUM_MIN
        placed = placed and against >= BEYOND_PREMIUM
    t3 = time.perf_counter()
    problems += grid_problems(image, pts, profile, reduced, placed)
    timings["check"] = timings.get("check", 0.0) + time.perf_counter() - t3
    cut = cells_off_photo(pts, profile.size, image.shape)
    if cut.any():
        conf = np.where(cut, 0.0, conf).astype(np.float32)
        problems.append(f"the photo's edge cuts {int(cut.sum())} cell(s) of the grid")
    if ev.level < trust.DARK_LEVEL:
        problems.append("the photo is too dark to read")
    if ev.softness > trust.SOFT_EDGE:
        problems.append("the photo is too soft (out of focus or moved)")
    if ev.hidden is not None and (ev.hidden & ~cut).any():
        problems.append(
            f"something covers {int((ev.hidden & ~cut).sum())} cell(s) (a hand over the board?)"
        )
    glared = int(trust.glared_cells(ev.glare, ev.kind, conf).sum())
    if glared:
        problems.append(f"glare hides {glared} cell(s)")
    kept = 0
    same = np.zeros_like(cut)
    # the last reading's cells are compared only with the board warped the same way round: by
    # its letters (turned since), or at the same corners in the same order
    turned = follows and not _earlier_view(last, profile, pts)
    views: list[tuple[BoardReading, np.ndarray]] = []  # earlier readings, the cells they saw
    if follows and (by_last is not None or not turned):
        if turned and _earlier_view(before_last, profile, pts):
            # turned under the camera since the last (Iago's move ends so), a tile shows other
            # light and shadow: the pixels are compared with the frame before the last, which
            # saw the board standing as it does now. A cell unchanged since held the same tile
            # then and now; the last saw it too where it read it as that frame did (a tile
            # stolen in the last move and stolen back in this one reads otherwise there)
            same = cells.unchanged_cells(before_last.warp, warp, profile) & ~cut
            steady = same & (cells.grid_chars(last.grid) == cells.grid_chars(before_last.grid))
            views = [(before_last, same), (last, steady)]
        else:
            same = cells.unchanged_cells(last.warp, warp, profile) & ~cut
            views = [(last, same)]
        for seen, cells_seen in views:
            grid, conf = cells.two_views(seen.grid, seen.confidence, grid, conf, cells_seen)
        if same.any():
            kept = int(same.sum())
            notes.append(f"{kept} cell(s) unchanged since the last reading read as two views")
    grid, conf, mended = facts.mend_by_facts(grid, conf, ev.probabilities, profile)
    if mended:
        notes.append(
            f"{mended} cell(s) read again under the rules (every tile in a word, the tiles "
            "joined): a blank tile taken for a bare square, or the other way round"
        )
    covered = cut if ev.hidden is None else cut | ev.hidden
    conf, bare = facts.bare_by_facts(grid, conf, ev.probabilities, net.reader_trust_level, covered)
    if bare:
        notes.append(
            f"{bare} cell(s) read bare, in doubt of nothing but a cover, hold no tile by the "
            "rules (their neighbours are bare, and every tile lies in a word)"
        )
    problems += facts.board_facts(grid, profile)
    # a black-and-white photo's inks have no colour to tell (said first, as "no colour")
    if ev.ink_unlike is not None and not colourless:
        unlike = int((ev.ink_unlike & ~same & ~cut).sum())
        if unlike:
            problems.append(f"{unlike} {INK_UNLIKE}")
    if known is not None:
        conf, differ = facts.with_known_board(grid, conf, known, profile, ev.probabilities)
        problems += differ
    # the count needs less than the letters: which cells hold tiles, and the colour each shows
    counted = cells.presence_confidence(grid, ev)
    for seen, cells_seen in views:
        before = seen.confidence if seen.count_confidence is None else seen.count_confidence
        _, counted = cells.two_views(
            seen.grid, before, grid, counted, cells_seen, key=cells.tile_and_colour
        )
    counted = np.where(cut, 0.0, np.maximum(counted, conf)).astype(np.float32)
    level = net.reader_trust_level
    count_problems = list(problems)
    if doubted:
        problems.append(WAY_UNKNOWN)
    # (not "under the level" but "not at or over it": a confidence that is no number is unsure)
    unsure = ~(conf >= level) & ~cut
    if unsure.any():
        problems.append(f"{int(unsure.sum())} {UNSURE_CELLS} ({trust.level_text(level)})")
    unsure = ~(counted >= net.count_trust_level) & ~(conf >= level) & ~cut
    if unsure.any():
        told = trust.level_text(net.count_trust_level)
        count_problems.append(f"{int(unsure.sum())} {UNSURE_OF_TILES} ({told})")
    reading = BoardReading(profile, grid, conf, pts, how, timings)
    reading.problems = problems
    reading.count_problems = count_problems
    reading.count_confidence = counted
    reading.notes = notes
    reading.evidence = ev
    reading.turn = turn
    reading.way_known = way_known
    reading.warp = warp
    reading.kept = kept
    return reading
