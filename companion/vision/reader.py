"""Reading a board from a photo: locate the grid, warp once to a top-down board, read the cells.

``read_board(image, profile)`` is the whole pipeline. The grid is found on a reduced copy of the
photo (see :mod:`companion.vision.localise`) unless its corners are given; the full-resolution
photo is then warped once, by the homography, to a fixed-size top-down board
(``profile.board_px`` pixels a side, half a cell of margin around the grid), and every cell is read
there: a tile or not, its letter (:mod:`companion.vision.glyphs`) and, for Iago, the colour of its
ink.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.errors import VisionError
from companion.vision.glyphs import (
    MIN_CONTRAST,
    Glyph,
    LetterClassifier,
    cell_contrasts,
    cell_margin,
    find_glyph,
    glyph_features,
    load_classifier,
)
from companion.vision.notation import format_board
from companion.vision.profiles import Profile, get_profile

COLOURS = ("blue", "red")
BORDER_WEIGHT = 0.5  # of the border-minus-centre lightness, in the blank finder's colour space


@dataclass
class BoardReading:
    """What the reader saw.

    Attributes:
        profile: the profile read with.
        grid: rows top first, one character a cell: ``.`` empty, a letter (Iago: upper case blue,
            lower case red; other profiles upper case), ``?`` a blank tile.
        confidence: float32 array (size, size), 0-1, how sure the reader is of each cell.
        corners: float32 array (4, 2): the grid's outer corners in the photo (top-left, top-right,
            bottom-right, bottom-left), pixels.
        located_by: ``given``, ``markers``, ``grid`` or ``tracked``.
        timings: seconds spent in each stage (``locate``, ``warp``, ``cells``, ``letters``).
    """

    profile: Profile
    grid: list[str]
    confidence: np.ndarray
    corners: np.ndarray
    located_by: str
    timings: dict[str, float] = field(default_factory=dict)

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
        places), colour counts, corners and stage timings."""
        out = {
            "board": self.notation,
            "profile": self.profile.name,
            "rows": self.grid,
            "blanks": [[r + 1, c + 1] for r, c in self.blanks],
            "confidence": [[round(float(c), 3) for c in row] for row in self.confidence],
            "min_confidence": round(float(self.confidence.min()), 3),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "located_by": self.located_by,
            "timings_ms": {k: round(v * 1000, 1) for k, v in self.timings.items()},
        }
        if self.profile.coloured_ink:
            out["counts"] = self.counts()
        return out


def check_corners(corners, image_shape: tuple[int, ...] | None = None) -> np.ndarray:
    """The four grid corners as a float32 (4, 2) array, checked.

    Args:
        corners: 8 numbers or 4 (x, y) pairs: top-left, top-right, bottom-right, bottom-left,
            pixels.
        image_shape: the photo's shape, to check the corners lie near it.

    Raises:
        VisionError: wrong count, not numbers, a corner far outside the photo, or a quadrilateral
            that is not convex in the stated order.
    """
    try:
        pts = np.asarray(corners, np.float64).reshape(4, 2)
    except (TypeError, ValueError):
        raise VisionError(
            f"corners {corners!r}: expected 8 numbers X,Y for top-left, top-right, "
            "bottom-right and bottom-left"
        ) from None
    if not np.isfinite(pts).all():
        raise VisionError(f"corners {corners!r}: every coordinate must be a finite number")
    if image_shape is not None:
        h, w = image_shape[:2]
        slack = 0.25 * max(h, w)
        bad = [
            i
            for i, (x, y) in enumerate(pts)
            if x < -slack or y < -slack or x > w + slack or y > h + slack
        ]
        if bad:
            raise VisionError(
                f"corners: corner {bad[0] + 1} {pts[bad[0]].tolist()} lies outside the "
                f"{w}x{h} photo"
            )
    cross = []
    for i in range(4):
        a, b, c = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        u, v = b - a, c - b
        cross.append(u[0] * v[1] - u[1] * v[0])
    if not (all(z > 0 for z in cross) or all(z < 0 for z in cross)):
        raise VisionError(
            "corners do not make a convex quadrilateral in the order top-left, top-right, "
            "bottom-right, bottom-left"
        )
    return pts.astype(np.float32)


def board_homography(corners: np.ndarray, profile: Profile) -> np.ndarray:
    """Homography (3x3 float64) from photo pixels to the top-down board of ``profile``: the
    grid's corners go to half a cell in from the board's edges."""
    c, n = profile.cell_px, profile.size
    lo, hi = c / 2.0, c / 2.0 + n * c
    dst = np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])
    return cv2.getPerspectiveTransform(np.float32(corners), dst)


def warp_board(image: np.ndarray, corners: np.ndarray, profile: Profile) -> np.ndarray:
    """The top-down board: uint8 (board_px, board_px, 3) BGR, warped once from the full photo.

    When the grid is much larger in the photo than on the top-down board, the photo is first
    reduced by a power of two around the grid only (``cv2.pyrDown``), so the warp averages
    rather than skips pixels.
    """
    pts = np.float32(corners)
    side = float(max(np.linalg.norm(pts[i] - pts[(i + 1) % 4]) for i in range(4))) / max(
        profile.size, 1
    )
    x0, y0 = np.floor(pts.min(0) - side).astype(int)
    x1, y1 = np.ceil(pts.max(0) + side).astype(int)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    crop = image[y0:y1, x0:x1]
    pts = pts - np.float32([x0, y0])
    scale = side / profile.cell_px
    while scale >= 3.0 and min(crop.shape[:2]) > 16:
        crop = cv2.pyrDown(crop)
        pts = pts / 2.0
        scale /= 2.0
    hom = board_homography(pts, profile)
    return cv2.warpPerspective(
        crop,
        hom,
        (profile.board_px, profile.board_px),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _ink_colour(window_bgr: np.ndarray, lightness: np.ndarray, glyph: Glyph) -> tuple[str, float]:
    """Red or blue, and a confidence, from the ink relative to the tile's own face.

    The ink's reflectance in each channel is divided by the face's (von Kries white balance on the
    tile itself), so warm or cold light and the camera's white balance cancel out; red ink keeps
    red and loses blue, blue ink the reverse: score = log((R_ink/R_face) / (B_ink/B_face)).
    """
    core = glyph.mask & (lightness < glyph.face - 0.55 * glyph.contrast)
    if core.sum() < 3:
        core = glyph.mask
    x, y, w, h = glyph.bbox
    near = np.zeros_like(glyph.mask)
    near[max(y - 3, 0) : y + h + 3, max(x - 3, 0) : x + w + 3] = True
    face = near & ~glyph.mask & (lightness > glyph.face - 0.2 * glyph.contrast)
    if face.sum() < 5:
        face = lightness >= glyph.face - 1
    ink_bgr = window_bgr[core].astype(np.float32).mean(0) + 1.0
    face_bgr = window_bgr[face].astype(np.float32).mean(0) + 1.0
    rel = ink_bgr / face_bgr
    score = float(np.log(rel[2] / rel[0]))
    return ("red" if score > 0 else "blue"), float(min(1.0, abs(score) / 0.4))


def _blank_tiles(
    warp: np.ndarray, profile: Profile, glyph_cells: list[tuple[int, int]], empty: list
) -> dict[tuple[int, int], float]:
    """Cells without a letter that look like the game's tiles (Scrabble's blanks), with a
    confidence.

    The tiles that do have a letter are the model: their face colour (Lab, middle of the cell)
    and how much lighter or darker the cell's border is than its middle (a tile hides the grid
    lines along the border; a square shows them). A letterless cell is a blank when it has a
    lettered tile beside it (a blank is part of a word), is much nearer that model than the
    board's squares around it (the median of the letterless cells in its row and column within
    three cells, else within two cells all round: light falls off across a board), and is as
    even as a tile's face (no printed label, no grid line).
    """
    if len(glyph_cells) < 3 or not empty:
        return {}
    c, n = profile.cell_px, profile.size
    lab = cv2.cvtColor(warp, cv2.COLOR_BGR2Lab).astype(np.float32)
    # every cell at once: the middle's colour, the border's lightness, the middle's evenness
    a = c // 5
    grid = lab[c // 2 : c // 2 + n * c, c // 2 : c // 2 + n * c].reshape(n, c, n, c, 3)
    middle = grid[:, a : c - a, :, a : c - a].transpose(0, 2, 1, 3, 4).reshape(n, n, -1, 3)
    colour = np.median(middle, axis=2)
    b = c // 6
    evenness = grid[:, b : c - b, :, b : c - b, 0].std(axis=(1, 3))
    windows = np.lib.stride_tricks.sliding_window_view(lab[:, :, 0], (c + 6, c + 6))
    windows = windows[c // 2 - 3 :: c, c // 2 - 3 :: c][:n, :n]
    ring = np.concatenate(
        [
            windows[:, :, :8, :].reshape(n, n, -1),
            windows[:, :, -8:, :].reshape(n, n, -1),
            windows[:, :, :, :8].reshape(n, n, -1),
            windows[:, :, :, -8:].reshape(n, n, -1),
        ],
        axis=2,
    )
    border = np.median(ring, axis=2) - colour[:, :, 0]
    # a tile hides the grid lines along the cell's border; a square shows them
    feature = np.concatenate([colour, BORDER_WEIGHT * border[:, :, None]], axis=2)

    def centre(r: int, col: int) -> np.ndarray:
        return feature[r, col]

    def even(r: int, col: int) -> bool:
        return float(evenness[r, col]) < 10.0  # no printed label, no grid line crossing it

    tiles = np.array([centre(r, col) for r, col in glyph_cells])
    tile_model = np.median(tiles, axis=0)
    spread = np.median(np.linalg.norm(tiles - tile_model, axis=1)) + 4.0
    cols = np.array([centre(r, col) for r, col in empty])
    board_model = np.median(cols, axis=0)
    found = {}
    gap = float(np.linalg.norm(tile_model - board_model)) + 1e-6
    where = np.array(empty)
    lettered = set(glyph_cells)
    for (r, col), v in zip(empty, cols, strict=True):
        # a blank is part of a word: it has a lettered tile beside it, across or down
        if not lettered & {(r - 1, col), (r + 1, col), (r, col - 1), (r, col + 1)}:
            continue
        d_tile = float(np.linalg.norm(v - tile_model))
        # the board's squares nearby: light falls off across a board (and a frame's shadow
        # darkens its edge rows), so compare with the squares in line with it first
        off = np.abs(where - (r, col))
        inline = (off.min(axis=1) == 0) & (off.max(axis=1) > 0) & (off.max(axis=1) <= 3)
        near = (off.max(axis=1) <= 2) & (off.max(axis=1) > 0)
        if inline.sum() >= 2:
            local = np.median(cols[inline], axis=0)
        elif near.sum() >= 3:
            local = np.median(cols[near], axis=0)
        else:
            local = board_model
        d_board = float(np.linalg.norm(v - local))
        if d_tile < 1.5 * spread and d_tile < 0.6 * d_board and even(r, col):
            found[(r, col)] = float(min(1.0, 0.5 + (d_board - d_tile) / (2 * gap)))
    return found


def read_cells(
    warp: np.ndarray,
    profile: Profile,
    classifier: LetterClassifier | None = None,
    timings: dict[str, float] | None = None,
) -> tuple[list[str], np.ndarray]:
    """Read every cell of a top-down board (from :func:`warp_board`).

    Returns:
        (grid, confidence): rows of ``.``, letters and ``?``; float32 (size, size) in 0-1.
    """
    t0 = time.perf_counter()
    n, c = profile.size, profile.cell_px
    m = cell_margin(c)
    lightness = cv2.cvtColor(warp, cv2.COLOR_BGR2Lab)[:, :, 0]
    cells = [["."] * n for _ in range(n)]
    conf = np.ones((n, n), np.float32)
    found: list[tuple[int, int, Glyph]] = []
    empty: list[tuple[int, int]] = []
    inked = cell_contrasts(lightness, n, c) >= MIN_CONTRAST
    for r in range(n):
        for col in range(n):
            if not inked[r, col]:
                empty.append((r, col))
                continue
            y0 = c // 2 + r * c - m
            x0 = c // 2 + col * c - m
            win = lightness[y0 : y0 + c + 2 * m, x0 : x0 + c + 2 * m]
            glyph = find_glyph(win, c)
            if glyph is None:
                empty.append((r, col))
            else:
                found.append((r, col, glyph))
    t1 = time.perf_counter()
    if found:
        clf = classifier or load_classifier(c, profile.name)
        letters, lconf = clf.classify(glyph_features([g for _, _, g in found]))
        for (r, col, glyph), letter, lc in zip(found, letters, lconf, strict=True):
            if profile.coloured_ink:
                y0 = c // 2 + r * c - m
                x0 = c // 2 + col * c - m
                win_bgr = warp[y0 : y0 + c + 2 * m, x0 : x0 + c + 2 * m]
                win_l = lightness[y0 : y0 + c + 2 * m, x0 : x0 + c + 2 * m]
                colour, cc = _ink_colour(win_bgr, win_l, glyph)
                cells[r][col] = letter if colour == "blue" else letter.lower()
                conf[r, col] = min(float(lc), cc)
            else:
                cells[r][col] = letter
                conf[r, col] = float(lc)
    if profile.blank_tiles:
        blanks = _blank_tiles(warp, profile, [(r, col) for r, col, _ in found], empty)
        for (r, col), bc in blanks.items():
            cells[r][col] = "?"
            conf[r, col] = bc
    if timings is not None:
        timings["cells"] = t1 - t0
        timings["letters"] = time.perf_counter() - t1
    return ["".join(row) for row in cells], conf


def read_board(
    image: np.ndarray,
    profile: Profile | str = "iago",
    corners=None,
    tracker=None,
    classifier: LetterClassifier | None = None,
) -> BoardReading:
    """Read the board in a photo.

    Args:
        image: uint8 array (H, W, 3), BGR channel order (OpenCV's; picamera2's ``RGB888`` is the
            same in memory).
        profile: a Profile or its name (``iago``, ``scrabble``).
        corners: the grid's outer corners in the photo (8 numbers or 4 pairs: top-left,
            top-right, bottom-right, bottom-left, pixels), or None to find the board.
        tracker: a :class:`companion.vision.localise.BoardTracker` keeping the homography of a
            fixed camera between frames; None finds the board afresh.
        classifier: a letter classifier; None loads the cached one (built on first use).

    Raises:
        VisionError: the image is not a colour photo, or the corners are bad.
        BoardNotFoundError: no corners given and the board cannot be found.
    """
    from companion.vision import localise

    profile = get_profile(profile)
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        raise VisionError(f"image: expected a colour photo (H, W, 3) array, got shape {shape}")
    if image.dtype != np.uint8:
        raise VisionError(f"image: expected 8-bit pixels (uint8), got {image.dtype}")
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    if corners is not None:
        pts, how = check_corners(corners, image.shape), "given"
    elif tracker is not None:
        pts, how = tracker.locate(image)
    else:
        pts, how = localise.find_board(image, profile)
    t1 = time.perf_counter()
    warp = warp_board(image, pts, profile)
    t2 = time.perf_counter()
    timings["locate"] = t1 - t0
    timings["warp"] = t2 - t1
    grid, conf = read_cells(warp, profile, classifier, timings)
    return BoardReading(profile, grid, conf, pts, how, timings)
