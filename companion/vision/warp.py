"""The grid's corners, checked, and the warp of the photo to a top-down board.

The full-resolution photo is warped once, by the homography of the grid's corners, to a
fixed-size top-down board (``profile.board_px`` pixels a side, half a cell of margin around the
grid); every cell is read there (:mod:`companion.vision.cells`).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.errors import BoardNotFoundError, VisionError
from companion.vision.profiles import Profile

# of a cell: the rim of a cell whose corners must lie in the photo for the cell to be read (a
# tile's edge; the letter lies within)
RIM = 0.06


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
                f"corners: corner {bad[0] + 1} {pts[bad[0]].tolist()} lies more than "
                f"{slack:.0f} px beyond the edge of the {w}x{h} photo; corners up to "
                f"{slack:.0f} px outside it (a quarter of its longer side) are accepted"
            )
    cross = []
    for i in range(4):
        a, b, c = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        u, v = b - a, c - b
        cross.append(u[0] * v[1] - u[1] * v[0])
    if all(z < 0 for z in cross):
        # a convex quadrilateral, but its corners go round the other way: a board seen in a
        # mirror, or two corners swapped; read so, its rows would be its columns, mirrored
        raise VisionError(
            f"corners {pts.tolist()}: they go round counter-clockwise; give them clockwise as "
            "the photo shows the board: top-left, top-right, bottom-right, bottom-left"
        )
    if not all(z > 0 for z in cross):
        raise VisionError(
            "corners do not make a convex quadrilateral in the order top-left, top-right, "
            "bottom-right, bottom-left"
        )
    return pts.astype(np.float32)


# pixels: the least side of a grid cell in the photo a board is read at. A letter in a smaller
# cell is a few pixels of blur: the reader said "too soft" and printed an empty board for a
# photo shrunk to 10x10 pixels or corners 10 pixels apart
MIN_CELL_PX = 10.0


def photo_cell_px(corners: np.ndarray, profile: Profile) -> float:
    """Pixels a cell in the photo along the grid's shortest side (``corners`` float32 (4, 2),
    the grid's outer corners in the photo, pixels): how finely the photo shows the cells."""
    pts = np.float32(corners)
    side = min(float(np.linalg.norm(pts[i] - pts[(i + 1) % 4])) for i in range(4))
    return side / profile.size


def check_cell_size(corners: np.ndarray, profile: Profile, given: bool) -> None:
    """Refuse a grid whose cells are smaller than ``MIN_CELL_PX`` in the photo.

    Args:
        corners: float32 (4, 2), the grid's outer corners in the photo, pixels.
        profile: the board's profile (its ``size`` cells a side).
        given: the corners were given (else the grid was found in the photo).

    Raises:
        VisionError: the corners given make cells under ``MIN_CELL_PX``.
        BoardNotFoundError: the grid found does (a photo too small to read).
    """
    pts = np.float32(corners)
    cell = photo_cell_px(pts, profile)
    if cell >= MIN_CELL_PX:
        return
    what = (
        f"{cell:.1f} pixels a cell ({profile.size} cells a side); at least {MIN_CELL_PX:g} needed"
    )
    if given:
        raise VisionError(
            f"corners {pts.tolist()}: the grid they give is too small to read: {what}"
        )
    raise BoardNotFoundError(
        f"the grid found is too small to read: {what}; take the photo nearer the board or at "
        "a higher resolution"
    )


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


def cells_off_photo(corners: np.ndarray, size: int, shape: tuple[int, ...]) -> np.ndarray:
    """Which cells of the grid at ``corners`` the photo's edge cuts: bool (size, size), true
    where a corner of the cell less its rim (``RIM``)
    lies outside the photo of ``shape`` (the warp fills it by repeating the edge: an
    empty-looking cell, a letter cut short).

    The corners were drawn 15% in until the nineteenth round: real board 1 turned 4 degrees,
    its grid's top-right corner 11 pixels above the photo (a sixth of a cell), had the F
    there cut through its top arm, read as empty at a confidence of 0.998 (its reading was
    refused, the cell looking like a tile)."""
    unit = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    hom = cv2.getPerspectiveTransform(unit, np.float32(corners))
    k = np.arange(size, dtype=np.float32)
    pts = []
    for dy in (RIM, 1 - RIM):
        for dx in (RIM, 1 - RIM):
            yy, xx = np.meshgrid(k + dy, k + dx, indexing="ij")
            pts.append(np.stack([xx, yy], axis=-1).reshape(-1, 2))
    at = cv2.perspectiveTransform(np.concatenate(pts).reshape(1, -1, 2), hom)[0]
    h, w = shape[:2]
    out = (at[:, 0] < 0) | (at[:, 1] < 0) | (at[:, 0] > w - 1) | (at[:, 1] > h - 1)
    return out.reshape(4, size, size).any(axis=0)


def shift_corners(corners: np.ndarray, size: int, rows: int, cols: int) -> np.ndarray:
    """The corners of the grid moved ``rows`` cells down and ``cols`` cells right, along the
    grid's own perspective (float32 (4, 2))."""
    unit = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    hom = cv2.getPerspectiveTransform(unit, np.float32(corners))
    moved = unit + np.float32([cols, rows])
    return cv2.perspectiveTransform(moved.reshape(1, 4, 2), hom)[0].astype(np.float32)
