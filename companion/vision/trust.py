"""How far a reading can be trusted (DESIGN.md, "The board reader's trust"): the photo's checks.

A reading is ``trusted`` only when nothing about the photo or the grid is in doubt, the board's
facts hold (:func:`companion.vision.facts.board_facts`) and every cell's calibrated probability
is at least the cell model's trust level (chosen on the validation renders:
:mod:`companion.vision.learn`). What this module measures puts a reading in doubt (each becomes
a ``problems`` entry, in words a player understands):

- the photo: too dark to read (the board's brightest tenth under ``DARK_LEVEL``), black and
  white (:func:`colourfulness` under ``GREY_CHROMA``: red and blue ink, the premium squares and
  the blanks are told by colour), a glare hotspot over the grid (blown-out pixels), too soft (the
  grid lines' edges spread over more than ``SOFT_EDGE`` of a cell);
- the grid: its coloured premium squares do not sit where the profile's layout puts them (the
  grid found is one row or column off: the reader moves it when the shifted layout fits better,
  and refuses it when no layout fits).

:func:`expected_calibration_error` and :func:`reliability` say how well a confidence predicts
being right (``companion vision eval`` reports both).
"""

from __future__ import annotations

import decimal
import functools

import cv2
import numpy as np

DARK_LEVEL = 40.0  # 8-bit lightness of the board's brightest tenth under which it is refused
GAIN_TARGET = 200.0  # the reader brightens a dim board so its brightest tenth reaches this
MAX_GAIN = 5.0
GLARE_LEVEL = 250  # 8-bit: a pixel this bright in every channel is blown out
GLARE_CELL = 0.04  # share of a cell's middle blown out that makes the cell glared
# of a cell: grid-line edges wider than this are too soft to trust. Set before the cell model;
# measured since on 600 of its validation renders (the recipe's seed): of the cells read at or
# over a reading's trust level, 35 of 44,689 were wrong in renders at or under it (0.08%), 77 of
# 29,997 over it (0.26%, over the 0.1% the level is chosen for); none over it read every cell
# at the level
SOFT_EDGE = 0.085
# 8-bit Lab chroma: a board whose most coloured pixels (the top 0.1%) are greyer than this is a
# black-and-white photo (0, JPEG or not). Colour photos: 9.2 and more (the real ones, the bench's
# every kind, an empty Iago board); with their colour faded to a quarter, 2.8 and more
GREY_CHROMA = 1.5
PREMIUM_MIN = 6.0  # Lab distance: premium squares at least this far from the plain squares
PREMIUM_MARGIN = 3.0  # the layout where it should be beats any shifted one by this much

CELL_KINDS = ("empty", "letter", "blank")


# ----------------------------------------------------------------------------- the photo


def exposure_gain(lightness: np.ndarray, profile_size: int, cell_px: int) -> tuple[float, float]:
    """The gain that brings a dim board's brightest tenth to ``GAIN_TARGET`` (1 for a board lit
    well enough, at most ``MAX_GAIN``) and that brightest tenth's lightness (8-bit), measured
    inside the grid of a warped board's lightness (uint8 (board_px, board_px))."""
    c = cell_px
    inside = lightness[c // 2 : c // 2 + profile_size * c, c // 2 : c // 2 + profile_size * c]
    level = float(np.percentile(inside[::4, ::4], 90))
    if level >= 0.8 * GAIN_TARGET:
        return 1.0, level
    return float(min(MAX_GAIN, GAIN_TARGET / max(level, 1.0))), level


def _cell_middles(plane: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """Each cell's middle (a sixth of its side in from every edge) of a warped board's plane
    (board_px, board_px): a view (size, size, m, m)."""
    c = cell_px
    a = c // 6
    grid = plane[c // 2 : c // 2 + size * c, c // 2 : c // 2 + size * c]
    return grid.reshape(size, c, size, c)[:, a : c - a, :, a : c - a].transpose(0, 2, 1, 3)


def glare_cells(lightness: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """The share (float32 (size, size), 0-1) of each cell's middle that is blown out (lightness
    at least ``GLARE_LEVEL``: white in every channel): a lamp's hotspot, where no letter can be
    seen. ``lightness``: uint8 (board_px, board_px) of a warped board."""
    blown = (lightness >= GLARE_LEVEL).astype(np.float32)
    return _cell_middles(blown, size, cell_px).mean(axis=(2, 3)).astype(np.float32)


def cell_borders(plane: np.ndarray, size: int, cell_px: int, outside: int) -> np.ndarray:
    """Each cell's border: the band 8 pixels wide along its four edges, ``outside`` of them
    beyond the cell's edge (where the grid line is) and the rest inside (where a tile's edge
    is), from a warped board's plane (board_px, board_px): (size, size, k), the band's pixels
    (the corners twice)."""
    c, band = cell_px, 8
    side = c + 2 * outside
    windows = np.lib.stride_tricks.sliding_window_view(plane, (side, side))
    windows = windows[c // 2 - outside :: c, c // 2 - outside :: c][:size, :size]
    return np.concatenate(
        [
            windows[:, :, :band, :].reshape(size, size, -1),
            windows[:, :, -band:, :].reshape(size, size, -1),
            windows[:, :, :, :band].reshape(size, size, -1),
            windows[:, :, :, -band:].reshape(size, size, -1),
        ],
        axis=2,
    )


# 8-bit lightness: a blown-out cell whose border's darkest tenth (the grid lines round it) is no
# more than this over the board's (the median cell's) shows its lines: no lamp's hotspot there
LINES_SEEN = 15.0
WHITE_MIDDLE = 240  # 8-bit: such a cell's middle is this light or more in all but its darkest 5%


def lines_seen(lightness: np.ndarray, glare: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """Which blown-out cells (``glare`` share ``GLARE_CELL`` or more) still show the grid lines
    round them as dark as the board's other cells do: bool (size, size). The light there is
    the square's own white clipped by the exposure, not a lamp's hotspot: light strong enough to
    wash out a tile's letter (ink some 200 levels darker than its face) lightens the lines round
    it too.

    The border is the band 8 pixels wide across the cell's edge (4 inside, 4 outside; the grid
    line and a tile's edge lie in it), its darkness the 10th percentile of its lightness; the
    board's, the median of the cells not blown out. The cell's middle must be white all over
    too (its 5th percentile ``WHITE_MIDDLE`` or more): a spot of light smaller than a tile,
    over its letter, leaves the tile's edge and lines as they are but not its face. Measured
    on 1520 Scrabble renders (the bench's kinds and 3-6 blanks, corners given): the borders of the 31 tiles read as empty
    under a lamp's hotspot were 22 or more levels lighter than the board's (80 or more for nine
    in ten); of the 1055 blown-out squares on renders with no hotspot (white boards whose bare
    squares clip at 250), 975 are within 15 (``LINES_SEEN``) and white all over the middle,
    and none of the tiles.

    Args:
        lightness: uint8 (board_px, board_px), the warped board's lightness (after the gain).
        glare: float32 (size, size), :func:`glare_cells`.
        size: cells a side; cell_px: a cell's side, pixels.
    """
    blown = glare >= GLARE_CELL
    out = np.zeros(blown.shape, bool)
    if not blown.any() or blown.all():
        return out
    ring = cell_borders(lightness, size, cell_px, outside=4)
    k = ring.shape[2]
    darkest = np.partition(ring, k // 10, axis=2)[..., k // 10].astype(np.float32)
    level = float(np.median(darkest[~blown]))
    middles = _cell_middles(lightness, size, cell_px)
    for r, col in zip(*np.nonzero(blown & (darkest <= level + LINES_SEEN)), strict=True):
        # white all over its middle: a white square, not a tile's face with a spot of light
        out[r, col] = np.percentile(middles[r, col], 5) >= WHITE_MIDDLE
    return out


def glared_cells(glare: np.ndarray, kind: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """The cells glare may have changed: bool (size, size), true where a cell's middle is
    ``GLARE_CELL`` or more blown out and it was read empty (a washed-out tile), as a blank (a
    bare square washed white looks like one, and a blank has no letter to prove it a tile) or
    as a letter without clear evidence (raw under 0.9: a stroke washed away). Only a tile's face
    blown out around a clear letter is not in doubt: a bench render (Scrabble glare, seed
    61504) read a bare square under a lamp's hotspot as a blank at 0.9997, and was trusted."""
    blown = glare >= GLARE_CELL
    return blown & ((kind != 1) | (raw < 0.9))


def edge_width(lightness: np.ndarray, size: int, cell_px: int) -> float:
    """How soft the photo is: the width (in cells) over which the lightness changes across the
    grid's lines, from the ratio of the strongest edges' gradient to their step (10-90% rise of
    a blurred step is about 2.56 sigma). A sharp photo gives a few hundredths of a cell."""
    c = cell_px
    inside = lightness[c // 2 : c // 2 + size * c, c // 2 : c // 2 + size * c].astype(np.float32)
    gx = np.abs(inside[::2, 1:] - inside[::2, :-1])
    gy = np.abs(inside[1:, ::2] - inside[:-1, ::2])
    grad = float(np.percentile(np.concatenate([gx.ravel(), gy.ravel()]), 99.5))
    lo, hi = np.percentile(inside[::3, ::3], (5, 95))
    step = float(hi - lo)
    if grad <= 0 or step <= 0:
        return 1.0
    sigma = step / (grad * np.sqrt(2 * np.pi))
    return float(2.56 * sigma / c)


def colourfulness(lab8: np.ndarray, size: int, cell_px: int) -> float:
    """How coloured the board is: the 99.9th percentile of the chroma (distance from grey in
    Lab's a and b, 8-bit units) of every 5th pixel each way inside the grid of a warped board's
    Lab image (uint8 (board_px, board_px, 3), OpenCV's Lab: a and b centred on 128): the most
    coloured pixels, so that a few letters' ink on a neutral board counts. A black-and-white
    photo gives 0; a colour photo of a board many times ``GREY_CHROMA``. Under 1 ms."""
    c = cell_px
    ab = lab8[c // 2 : c // 2 + size * c : 5, c // 2 : c // 2 + size * c : 5, 1:].astype(np.int16)
    ab -= 128
    squared = (ab * ab).sum(axis=2, dtype=np.int32).ravel()
    k = int(0.999 * (squared.size - 1))
    return float(np.sqrt(np.partition(squared, k)[k]))


# ----------------------------------------------------------------------------- the grid


def _middle_pixels(lab: np.ndarray, size: int, cell_px: int, step: int) -> np.ndarray:
    """Each cell's middle (a fifth of its side in from every edge), every ``step``-th pixel
    across and down, of a warped board's Lab image (float32 (board_px, board_px, 3)): float32
    (size, size, m, 3)."""
    c = cell_px
    a = c // 5
    grid = lab[c // 2 : c // 2 + size * c, c // 2 : c // 2 + size * c].reshape(size, c, size, c, 3)
    middle = grid[:, a : c - a : step, :, a : c - a : step].transpose(0, 2, 1, 3, 4)
    return middle.reshape(size, size, -1, 3)


def _quarter_mean(middle: np.ndarray, lightest: bool) -> np.ndarray:
    """The mean colour (float (size, size, 3)) of the lightest (or the darkest) quarter of each
    cell's middle pixels (:func:`_middle_pixels`), by lightness."""
    light = middle[..., 0]
    k = light.shape[2]
    if lightest:
        edge = np.partition(light, int(0.75 * (k - 1)), axis=2)[..., int(0.75 * (k - 1))]
        keep = light >= edge[..., None]
    else:
        edge = np.partition(light, (k - 1) // 4, axis=2)[..., (k - 1) // 4]
        keep = light <= edge[..., None]
    keep = keep[..., None]
    return (middle * keep).sum(axis=2) / np.maximum(keep.sum(axis=2), 1)


def cell_colours(lab: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """The colour of each cell's face (float32 (size, size, 3), Lab): the mean of the lightest
    quarter of its middle's pixels, so a tile's colour is its face's, not its letter's (a bold,
    wide letter covers half the middle or more, and its ink would darken a lighter half: a
    blank then looked unlike the lettered tiles), from a warped board's Lab image (float32
    (board_px, board_px, 3))."""
    middle = _middle_pixels(lab, size, cell_px, step=2)
    return _quarter_mean(middle, lightest=True).astype(np.float32)


def ink_colours(lab: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """The colour of each cell's ink against its face (float32 (size, size, 2)): the mean of the
    darkest quarter of its middle's pixels less the mean of the lightest quarter (the face, as
    :func:`cell_colours` takes it, from every pixel), its a and b of Lab divided by the
    lightness it loses (at least 1), from a warped board's Lab image (float32 (board_px,
    board_px, 3)). A pixel partly ink and partly face moves all three by the ink's share, so
    the ratio is the ink's hue whether the letter is thin or bold, large or small; told against
    the face, a light's cast moves face and ink alike and drops out. On a cell without a letter
    it is the face's own spread, and says nothing."""
    middle = _middle_pixels(lab, size, cell_px, step=1)
    d = _quarter_mean(middle, lightest=False) - _quarter_mean(middle, lightest=True)
    # per unit of lightness the ink takes off: a thin letter's darkest quarter holds more face
    # than a bold one's, and a mix of ink and face moves a, b and the lightness alike
    return (d[..., 1:] / np.maximum(-d[..., :1], 1.0)).astype(np.float32)


def compared(colours: np.ndarray) -> np.ndarray:
    """Lab colours (float (..., 3)) as cells' colours are compared: the lightness weighed half
    (a shadow or the exposure moves it more than the hue), so a Euclidean distance between
    them is the colour distance of :func:`premium_fit` and of the tiles' colour
    (:func:`companion.vision.cells.tile_colour_odds`)."""
    return colours * np.float32([0.5, 1.0, 1.0])


def _from_plain(colours: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Each cell's colour distance from the empty cells' median (the plain squares), as
    :func:`compared`: float32 (n, n)."""
    plain = np.median(colours[empty], axis=0)
    return np.linalg.norm(compared(colours - plain), axis=2)


def premium_layout(
    premium: frozenset[tuple[int, int]], n: int, dr: int = 0, dc: int = 0
) -> np.ndarray:
    """bool (n, n): true on the premium squares (row, column, 0-based) of ``premium``, for a
    grid whose true first row is its ``dr``-th and first column its ``dc``-th (moved: -1, 0 or
    1; those moved off the grid left out)."""
    mask = np.zeros((n, n), bool)
    for r, c in premium:
        if 0 <= r - dr < n and 0 <= c - dc < n:
            mask[r - dr, c - dc] = True
    return mask


def premium_fit(
    colours: np.ndarray, empty: np.ndarray, premium: frozenset[tuple[int, int]]
) -> dict[tuple[int, int], float]:
    """How well the premium squares' layout fits the coloured squares seen, for the grid as found
    (0, 0) and moved one row and/or column each way: the median colour distance from the plain
    squares of the empty cells the layout makes premium, less that of the other empty cells
    (Lab, lightness weighed half). The layout where it belongs gives a clear positive figure.

    Args:
        colours: float32 (n, n, 3), :func:`cell_colours`.
        empty: bool (n, n), cells read as empty (tiles hide their squares).
        premium: the profile's premium squares.

    Returns:
        {(rows, columns): fit}: (1, 0) means the layout fits the grid moved one row down (the
        true first row is the grid's second).
    """
    n = colours.shape[0]
    if empty.sum() < 10:
        return {}
    dist = _from_plain(colours, empty)
    out = {}
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            mask = premium_layout(premium, n, dr, dc)
            on, off = dist[mask & empty], dist[~mask & empty]
            if len(on) < 3 or len(off) < 3:
                continue
            out[(dr, dc)] = float(np.median(on) - np.median(off))
    return out


def premium_against_shifts(
    colours: np.ndarray, empty: np.ndarray, premium: frozenset[tuple[int, int]]
) -> dict[tuple[int, int], float]:
    """How much better the premium layout fits the grid as found than moved one row and/or
    column each way, judged only on the empty cells where the two layouts differ: the median
    colour distance from the plain squares (as :func:`premium_fit`) of those the layout where it
    is makes premium, less that of those the moved one does. The standard board's main diagonal
    is premium nearly end to end, so a layout moved one row and one column along it keeps half
    its squares coloured, and its whole fit came within 2 of the true one's on a perfect
    reading of a board with 78 tiles; on the cells the two layouts disagree about, the true
    layout stands clear.

    Args: as :func:`premium_fit`.

    Returns:
        {(rows, columns): figure} for each move with 3 or more such empty cells each way; > 0:
        the grid as found fits better.
    """
    n = colours.shape[0]
    if empty.sum() < 10:
        return {}
    dist = _from_plain(colours, empty)
    here = premium_layout(premium, n)
    out = {}
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0):
                continue
            moved = premium_layout(premium, n, dr, dc)
            ours, theirs = dist[here & ~moved & empty], dist[moved & ~here & empty]
            if len(ours) >= 3 and len(theirs) >= 3:
                out[(dr, dc)] = float(np.median(ours) - np.median(theirs))
    return out


# ----------------------------------------------------------------------------- cell confidence


@functools.lru_cache(maxsize=1)
def level_text(level: float) -> str:
    """A trust level (0-1) written for a problem's words: to 5 decimals, rounded down and without
    trailing zeros, so a level is never shown above what it is (0.99716 is "0.99716", not
    "1.00"; 0.97 is "0.97")."""
    # the shortest decimal that is the float (0.97 is "0.97", not 0.96999...), then rounded down
    exact = decimal.Decimal(repr(float(level)))
    text = f"{exact.quantize(decimal.Decimal('0.00001'), rounding=decimal.ROUND_FLOOR):f}"
    return text.rstrip("0").rstrip(".") or "0"


def reliability(conf: np.ndarray, right: np.ndarray, bins: int = 10) -> list[dict]:
    """The reliability diagram's rows: for each confidence bin (equal width, 0-1) the cells in it,
    their mean confidence and the share read right."""
    conf = np.asarray(conf, np.float64)
    right = np.asarray(right, bool)
    idx = np.clip((conf * bins).astype(int), 0, bins - 1)
    rows = []
    for b in range(bins):
        sel = idx == b
        if sel.any():
            rows.append(
                {
                    "from": b / bins,
                    "to": (b + 1) / bins,
                    "cells": int(sel.sum()),
                    "confidence": round(float(conf[sel].mean()), 4),
                    "right": round(float(right[sel].mean()), 4),
                }
            )
    return rows


def expected_calibration_error(conf: np.ndarray, right: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: the cell-weighted mean, over confidence bins, of the gap
    between the mean confidence and the share read right (0 is perfectly calibrated)."""
    conf = np.asarray(conf, np.float64)
    if len(conf) == 0:
        return 0.0
    total = 0.0
    for row in reliability(conf, right, bins):
        total += row["cells"] * abs(row["confidence"] - row["right"])
    return float(total / len(conf))


def lightness_of(warp: np.ndarray) -> np.ndarray:
    """The 8-bit lightness (L of Lab, uint8 (H, W)) of a BGR image."""
    return cv2.cvtColor(warp, cv2.COLOR_BGR2Lab)[:, :, 0]
