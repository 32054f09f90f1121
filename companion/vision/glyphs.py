"""Letters on tiles: finding the glyph in a cell and naming it.

The classifier is trained on glyphs rendered from the Debian fonts the Makefile installs (DejaVu,
Liberation, FreeFont, URW base35), each drawn many times with augmentation (size, offset, rotation,
stroke weight, blur, noise, a point value in the corner) and passed through the very same glyph
finder the reader uses, so training and reading see the same kind of input. Features are OpenCV HOG
descriptors (histograms of oriented gradients, computed here in numpy: OpenCV 5 moved HOG and
its ml module out of the main package) of the glyph scaled into a square; PCA reduces them and a
k-nearest-neighbours vote names the letter (the share of agreeing neighbours is the confidence). Nothing is downloaded: the
model is built on first use in a few seconds and cached under ``data_dir()/vision``;
``companion vision calibrate`` adds samples of the user's own tiles.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from companion.names import check_name, path_in
from companion.paths import data_dir
from companion.vision.errors import VisionError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MODEL_VERSION = 4

# Fonts the classifier learns from (only when it is built: the model is shipped in the package).
# FreeSans Bold is kept out on purpose: the synthetic photos are drawn with it, so the evaluation
# measures letters in a font the model has not seen. Bold, black and wide sans faces are many,
# since the tiles of most sets are printed in one.
TRAINING_FONTS = (
    "dejavu/DejaVuSans.ttf",
    "dejavu/DejaVuSans-Bold.ttf",
    "dejavu/DejaVuSansCondensed-Bold.ttf",
    "dejavu/DejaVuSerif-Bold.ttf",
    "dejavu/DejaVuSansMono-Bold.ttf",
    "liberation/LiberationSans-Regular.ttf",
    "liberation/LiberationSans-Bold.ttf",
    "liberation/LiberationSerif-Bold.ttf",
    "liberation/LiberationSansNarrow-Bold.ttf",
    "freefont/FreeSerifBold.ttf",
    "urw-base35/URWGothic-Book.otf",
    "urw-base35/URWGothic-Demi.otf",
    "urw-base35/NimbusSans-Bold.otf",
    "urw-base35/C059-Bold.otf",
    "urw-base35/URWBookman-Demi.otf",
    "open-sans/OpenSans-Bold.ttf",
    "open-sans/OpenSans-ExtraBold.ttf",
    "roboto/unhinted/RobotoTTF/Roboto-Bold.ttf",
    "roboto/unhinted/RobotoTTF/Roboto-Black.ttf",
    "lato/Lato-Bold.ttf",
    "lato/Lato-Black.ttf",
    "croscore/Arimo-Bold.ttf",
    "crosextra/Carlito-Bold.ttf",
    "league-spartan/LeagueSpartan-Bold.otf",
    "league-spartan/LeagueSpartan-Black.otf",
    "cantarell/Cantarell-ExtraBold.otf",
)
# the Debian packages of those fonts (the Makefile's APT_PACKAGES), for a build's error message
FONT_PACKAGES = (
    "fonts-dejavu-core",
    "fonts-dejavu-extra",
    "fonts-liberation",
    "fonts-freefont-ttf",
    "fonts-urw-base35",
    "fonts-open-sans",
    "fonts-roboto-unhinted",
    "fonts-lato",
    "fonts-croscore",
    "fonts-crosextra-carlito",
    "fonts-league-spartan",
    "fonts-cantarell",
)
SYNTHETIC_FONT = "freefont/FreeSansBold.ttf"
FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))

GLYPH_SIDE = 20  # pixels: the square a glyph is scaled into for features
MIN_CONTRAST = 55  # 8-bit lightness between a tile's face and its ink
MAX_HALF_STROKE = 0.17  # of a cell: half the widest stroke a letter may have (a black face)
# of a cell: how far a letter's middle may lie from the cell's, across or down (a Scrabble letter
# sits up and to the left, clear of its point value; a tile sits off its square's middle; a grid
# found is a little off): a neighbour's letter lies a cell away and touches the window's edge
CENTRE_OFF = 1 / 3
CORE_INK = 0.2  # the darkest ink: within this share of the contrast of the cell's darkest pixels
# of a cell: the tile's rim, which find_glyph cuts off to find a wide letter inside the cell alone
RIM = 0.06
MAX_WIDTH = 0.92  # of a cell: the widest letter (a wide W in a bold face, inside its cell)
# of a cell: the rim the letter finder's last look cuts off, the tile's own edge. A wide, bold W
# (0.8 of a cell) on a tile set 5-7% off its square joined the board seen beside the tile inside
# the cell's ``RIM``, and its cell was read as empty (33 of the 52 cells read wrong in 100 Iago
# renders in a bold face, seeds 105000-105099, corners given)
FACE_RIM = 0.1
# of a cell: what that last look takes for a letter, one as wide as the face and no taller than
# a letter stands on it. Without the bounds, the shading in the corner of a real bare square
# (board 1: the square's raised edge, light and dark) cut to the face made an L as tall as the
# cut and was read as R, H, S, T or N, in 8 empty cells of one photo
FACE_WIDE = 0.6
FACE_TALL = 0.7
VOTE_SCALE = 0.05  # PCA distance over which a farther neighbour's vote falls by e
TRAIN_MIN_CONTRAST = 20  # training windows are kept down to this contrast (pale tiles)


def font_path(name: str) -> Path | None:
    """The installed file of font ``name`` (``dir/file`` below the Debian font folders), or None."""
    for base in FONT_DIRS:
        path = base / name
        if path.exists():
            return path
    return None


def cell_margin(cell_px: int) -> int:
    """Pixels read around a cell on each side, so slightly off-centre tiles are read whole."""
    return max(2, round(0.15 * cell_px))


@dataclass
class Glyph:
    """The ink of one letter found in a cell window.

    Attributes:
        ink: float32 array (h, w), 0 (face) to 1 (ink), the glyph's bounding box only.
        mask: bool array (W, W) over the window: the glyph's ink pixels.
        bbox: (x, y, w, h) of the glyph in the window, pixels.
        face: 8-bit lightness of the tile face around the glyph.
        contrast: lightness between face and ink (0-255).
    """

    ink: np.ndarray
    mask: np.ndarray
    bbox: tuple[int, int, int, int]
    face: float
    contrast: float


def cell_contrasts(lightness: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """The face-to-ink contrast :func:`find_glyph` measures, for every cell of a top-down board
    at once: float32 (size, size). A cell under ``MIN_CONTRAST`` holds no letter.

    Args:
        lightness: uint8 (board_px, board_px), the warped board's lightness (half a cell of
            margin around the grid).
    """
    flat = _cell_middles(lightness, size, cell_px)
    k = flat.shape[2]
    hi, lo = int(0.90 * (k - 1)), int(0.02 * (k - 1))
    part = np.partition(flat, (lo, hi), axis=2)
    return (part[:, :, hi].astype(np.float32) - part[:, :, lo]).astype(np.float32)


def _cell_middles(image: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """The pixels of each cell's middle (the cell less a fifth of its side all round, as
    :func:`cell_contrasts` reads): (size, size, k) of ``image``'s dtype, from an image of the
    top-down board (board_px, board_px), half a cell of margin around the grid."""
    c = cell_px
    a = round(0.2 * c)
    grid = image[c // 2 : c // 2 + size * c, c // 2 : c // 2 + size * c]
    cells = grid.reshape(size, c, size, c)[:, a : c - a, :, a : c - a]
    return cells.transpose(0, 2, 1, 3).reshape(size, size, -1)


# of a cell: the side of the square a dark mark must be narrower than to count as a stroke
# (:func:`cell_strokes`). A letter's strokes are narrower (a bold render's about 0.16 of a cell;
# the widest a letter may have, twice ``MAX_HALF_STROKE``, 0.34); a tile's shadow, the step of
# light at a tile's edge and light falling off across a square are wider
STROKE_SPAN = 0.35


def cell_strokes(lightness: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """How dark the darkest strokes in each cell's middle are: float32 (size, size), 8-bit
    lightness under their surroundings (the 98th percentile of the black-hat, the closing by a
    square of ``STROKE_SPAN`` of a cell less the lightness, over the middle
    :func:`cell_contrasts` reads).

    A letter's ink is strokes; the contrast :func:`cell_contrasts` measures is also made by
    marks that are not: on real board 1 (squares nearly its wooden tiles' colour, the tiles a
    little off the grid), a bare square between tiles has their edge and shadow across its
    middle, a band of light falling off, up to 0.8 of a letter's contrast in soft photos but
    at most a quarter of its strokes (``reader.counted_bare``).

    Args:
        lightness: uint8 (board_px, board_px), the warped board's lightness (half a cell of
            margin around the grid).
    """
    span = max(3, round(STROKE_SPAN * cell_px))
    square = cv2.getStructuringElement(cv2.MORPH_RECT, (span, span))
    hat = cv2.morphologyEx(lightness, cv2.MORPH_BLACKHAT, square)
    flat = _cell_middles(hat, size, cell_px)
    top = int(0.98 * (flat.shape[2] - 1))
    return np.partition(flat, top, axis=2)[:, :, top].astype(np.float32)


# of half the narrower side of its box: a component whose thickest point lies this deep is as thick
# as its box, a filled patch; a letter drawn with strokes is thinner. A bold, wide M fills 86-87%
# of its box (the notch from above and the gaps between its legs are narrow), as a patch does,
# and by the box alone it was taken for one and its cell read as empty (13 of the 52 cells
# read wrong in 100 Iago renders in a bold face, seeds 105000-105099, corners given); its
# thickest point is 0.55-0.6 of that depth, a patch's about 1
PATCH_DEPTH = 0.8


def _depth(labels: np.ndarray, stats: np.ndarray, i: int) -> float:
    """The largest distance (pixels, L2) from a pixel of component ``i`` (of ``labels``, int32
    (W, W), with its ``stats`` from cv2.connectedComponentsWithStats) to the background: half
    its widest stroke."""
    x, y, w, h, _ = stats[i]
    blob = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
    return float(cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 3).max())


def _thick_as_its_box(labels: np.ndarray, stats: np.ndarray, i: int) -> bool:
    """Whether component ``i`` (as for :func:`_depth`) is as thick as its box: its depth is
    ``PATCH_DEPTH`` of half the box's narrower side or more."""
    _, _, w, h, _ = stats[i]
    return _depth(labels, stats, i) >= PATCH_DEPTH * min(w, h) / 2.0


def _cut_to(mask: np.ndarray, ring: int) -> np.ndarray:
    """``mask`` (uint8 (W, W)) with the ``ring`` pixels along each of its edges cleared."""
    side = mask.shape[0]
    inside = np.zeros_like(mask)
    inside[ring : side - ring, ring : side - ring] = mask[ring : side - ring, ring : side - ring]
    return inside


def _wide_letter(stats_row: np.ndarray, cell_px: int) -> bool:
    """Whether a component (its cv2.connectedComponentsWithStats row: x, y, w, h, area, in
    pixels) is shaped as a letter as wide as its tile's face: ``FACE_WIDE`` of a cell wide or
    more, and no more than ``FACE_TALL`` of a cell tall."""
    _, _, w, h, _ = stats_row
    return bool(w >= FACE_WIDE * cell_px and h <= FACE_TALL * cell_px)


def _letter_component(mask: np.ndarray, cell_px: int, edge: bool, core: np.ndarray | None = None):
    """The connected components of ``mask`` and the index of the letter's among them (-1: none):
    of those that (with ``edge``) keep off the window's edge, are 30-80% of a cell tall, at most
    ``MAX_WIDTH`` wide, near the centre, not filled patches, and drawn with strokes, the one with
    the most of the darkest ink (``core``, bool like ``mask``: a letter's ink is darker than a
    tile's shadow or a frame's edge beside it, which may be larger), then the largest. A
    component with none of that ink is no letter when another shaped as a letter holds it:
    on a grid found 0.2 of a cell off, the gap between two tiles (2 pixels wide, none of it
    core ink) lay inside the cell, and with the bold W beside it too wide for this look it was
    read as I at 0.999 in a trusted reading (render seed 109150, bold, grid found). Where the
    darkest ink is only the board beyond the grid's edge (a cell of the edge, its grid found a
    little off), the letter holds none of it and is still a letter."""
    side = mask.shape[0]
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    centre = side / 2.0
    off_edge = (
        (stats[:, 0] > 0)
        & (stats[:, 1] > 0)
        & (stats[:, 0] + stats[:, 2] < side)
        & (stats[:, 1] + stats[:, 3] < side)
    )
    tall = (stats[:, 3] >= 0.30 * cell_px) & (stats[:, 3] <= 0.80 * cell_px)  # as a letter is
    # the components shaped as a letter, off the window's edge, that hold the darkest ink (not
    # the board beyond the grid, nor a tile's outline, which may hold more of it than the letter)
    shaped = off_edge & tall & (stats[:, 2] <= MAX_WIDTH * cell_px)
    inked_letters = (
        set(np.unique(labels[core]).tolist()) & set(np.flatnonzero(shaped).tolist())
        if core is not None
        else set()
    )
    candidates = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if edge and not off_edge[i]:
            continue
        widest = MAX_WIDTH if not edge else 0.80  # a wider one only inside the cell alone
        if not tall[i] or w > widest * cell_px:
            continue
        if area > 0.85 * w * h and w > 0.3 * cell_px and _thick_as_its_box(labels, stats, i):
            continue  # a filled patch (a square seen between light grid lines), not a letter
        cx, cy = x + w / 2.0, y + h / 2.0
        if abs(cx - centre) > CENTRE_OFF * cell_px or abs(cy - centre) > CENTRE_OFF * cell_px:
            continue
        if not edge and (
            w < 0.45 * cell_px or h < 0.42 * cell_px or abs(cx - centre) > 0.15 * cell_px
        ):
            continue  # only a wide letter, well centred, is looked for inside the cell alone
        inked = (
            int(core[y : y + h, x : x + w][labels[y : y + h, x : x + w] == i].sum())
            if core is not None
            else 0
        )  # how much of the darkest ink the component holds
        if inked == 0 and inked_letters - {i}:
            continue  # none of the darkest ink, which a letter beside holds: a tile's gap
        candidates.append((inked, area, i))
    for *_, i in sorted(candidates, reverse=True):
        # a letter is drawn with strokes; a shadow or a patch of board is thick
        if _depth(labels, stats, i) <= MAX_HALF_STROKE * cell_px:
            return n, labels, stats, i
    return n, labels, stats, -1


def find_glyph(
    lightness: np.ndarray, cell_px: int, min_contrast: float = MIN_CONTRAST
) -> Glyph | None:
    """Find the letter printed on a tile in one cell window, or None if there is none.

    Args:
        lightness: uint8 array (W, W), W = cell_px + 2 * cell_margin(cell_px): the lightness of
            the cell and a margin around it, from the warped top-down board.
        cell_px: side of a cell, pixels.
        min_contrast: the least lightness between face and ink that may be a letter (8-bit);
            the reader lowers it for a cell whose colour is the tiles' (a pale tile).

    The ink is what is darker than 42% of the way from the darkest pixels of the middle of the cell
    to its face (90th percentile there), so the softer shadows of tile edges stay out; the letter
    is the largest dark component that does not touch the window's edge (grid lines, tile gaps
    and neighbours' letters do), is 30-80% of a cell tall, at most ``MAX_WIDTH`` wide, lies near
    the centre and is drawn with strokes (not as thick as its box, :func:`_thick_as_its_box`: a
    bold M fills its box as a patch of board does); failing that, the same within the cell alone
    (a wide, bold letter that runs into the tile's rim); failing that, within the tile's face
    (``FACE_RIM``: a letter as wide as the face, on a tile set off its square, runs into the
    board seen beside the tile), where only a wide letter is taken (:func:`_wide_letter`).
    Pieces overlapping it (broken strokes) join it; a point value beside it does not.

    Returns:
        The :class:`Glyph`, or None: no letter (the cell's contrast under ``min_contrast``, or
        no component shaped as a letter).
    """
    side = lightness.shape[0]
    m = cell_margin(cell_px)
    # the middle of the cell, where the letter is (board seen between tiles stays out)
    k = m + round(0.2 * cell_px)
    inner = lightness[k : side - k, k : side - k]
    flat = np.sort(inner, axis=None)
    face = float(flat[int(0.90 * (flat.size - 1))])
    dark = float(flat[int(0.02 * (flat.size - 1))])
    contrast = face - dark
    if contrast < min_contrast:
        return None
    threshold = dark + 0.42 * contrast
    mask = (lightness < threshold).astype(np.uint8)
    core = lightness < dark + CORE_INK * contrast
    n, labels, stats, best = _letter_component(mask, cell_px, True, core)
    if best < 0:
        # a wide or bold letter that runs into the tile's rim or the grid line: cut the window
        # down to the cell itself (the grid lines and tile gaps fall outside) and look again
        inside = _cut_to(mask, m + round(RIM * cell_px))
        n, labels, stats, best = _letter_component(inside, cell_px, False, core)
    if best < 0:
        # a letter as wide as the tile's face, on a tile set off its square: the letter runs into
        # the tile's edge, and the board seen beside the tile lies inside the cell's rim. Cut
        # the window to the face instead (the tile's edge falls outside), and look again
        inside = _cut_to(mask, m + round(FACE_RIM * cell_px))
        n, labels, stats, best = _letter_component(inside, cell_px, False, core)
        if best >= 0 and not _wide_letter(stats[best], cell_px):
            best = -1
    if best < 0:
        return None
    x, y, w, h, _ = stats[best]
    keep = [best]
    for i in range(1, n):
        if i == best:
            continue
        xi, yi, wi, hi, ai = stats[i]
        if xi == 0 or yi == 0 or xi + wi >= side or yi + hi >= side or ai < 2:
            continue
        # a piece of the same letter lies inside the letter's box (a point value does not)
        if xi >= x - 1 and yi >= y - 1 and xi + wi <= x + w + 1 and yi + hi <= y + h + 1:
            keep.append(i)
    sel = np.isin(labels, keep) if len(keep) > 1 else labels == best
    x0, y0, x1, y1 = x, y, x + w, y + h
    for i in keep[1:]:
        xi, yi, wi, hi, _ = stats[i]
        x0, y0, x1, y1 = min(x0, xi), min(y0, yi), max(x1, xi + wi), max(y1, yi + hi)
    box = lightness[y0:y1, x0:x1].astype(np.float32)
    ink = np.clip((face - box) / max(contrast, 1.0), 0.0, 1.0)
    # keep the anti-aliased rim of the letter, drop other ink inside the box
    near = cv2.dilate(sel[y0:y1, x0:x1].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    ink = np.where(near, ink, 0.0).astype(np.float32)
    return Glyph(ink, sel, (int(x0), int(y0), int(x1 - x0), int(y1 - y0)), face, contrast)


# a piece of a glyph whose centre lies this far (of a cell) right of and below the window's
# centre is where a Scrabble tile's point value is printed
POINT_VALUE_CORNER = 0.15
POINT_VALUE_LEAST = 4  # pixels: a smaller piece is the letter's rim, rounded off by the opening
# The stub of a digit: a piece at most ``STUB_WIDE`` pixels wide and ``STUB_LONG`` or more long,
# right of the window's centre by ``STUB_RIGHT`` of a cell or more, whose foot hangs
# ``STUB_BELOW`` pixels or more below the letter's lowest: the top of a point value's 1 (of a
# "1" or a "10") joined to the letter, the rest of the digit under the finder's contrast. Two
# bold Os read as Q at full evidence in trusted readings so (render seeds 90826 and 90830 with
# 3-6 blanks), the stub's middle 0.146 of a cell right of the centre (under
# ``POINT_VALUE_CORNER``) or 3 pixels (under ``POINT_VALUE_LEAST``). A thin E's bottom bar,
# which the opening takes off in real board 1 at 600-800 pixels, is wider than it is long and
# stands no lower than the stem: it stays
STUB_WIDE = 2
STUB_LONG = 3
STUB_RIGHT = 0.1
STUB_BELOW = 2
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))


def point_value_cut(glyph: Glyph, cell_px: int) -> Glyph | None:
    """The glyph without the point value that touches it, or None when no piece of it lies
    where the point value is printed.

    A wide, bold letter can run into its tile's point value (the digit in the lower-right
    corner): the two are then one dark component, and an O or a G with a digit joined to it
    looks like a Q (on renders in a bold face widened 1.2-1.45 times: Os read as Q at full
    evidence, one in a trusted reading, and about one bold G in ten). The glyph's mask is opened
    (a 3x3 cross: the thin join between digit and letter goes, a letter's strokes stay) and the
    largest piece left, grown back by a pixel within the mask, is the letter; each other piece
    of at least ``POINT_VALUE_LEAST`` pixels whose centre is ``POINT_VALUE_CORNER`` of a cell
    or more right of and below the window's centre is dropped, and with it the smaller crumbs
    there (left, they stretched the glyph's box to where the digit was, and a bold O cut from
    its "10" still read as Q at full evidence in a trusted reading, render seed 95050 with 3-6
    blanks). A digit's stub hanging below the letter (``STUB_WIDE``: the top of a 1's stem,
    the rest of the digit under the finder's contrast) is dropped too, wherever its middle
    lies. A Q's tail or an R's leg may be dropped too: the caller reads both glyphs and
    doubts a cell they name differently.

    Args:
        glyph: a glyph from :func:`find_glyph` (``mask`` bool (W, W) over its window).
        cell_px: side of a cell, pixels.

    Returns:
        A :class:`Glyph` with the same face and contrast, its ``ink``, ``mask`` and ``bbox``
        without the dropped pieces; None when nothing is dropped.
    """
    blob = glyph.mask.astype(np.uint8)
    side = blob.shape[0]
    opened = cv2.morphologyEx(blob, cv2.MORPH_OPEN, _CROSS)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    if n <= 1:
        return None
    main = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    letter = cv2.dilate((labels == main).astype(np.uint8), _CROSS) & blob
    n, labels, stats, centres = cv2.connectedComponentsWithStats(blob & (1 - letter), 8)
    corner = POINT_VALUE_CORNER * cell_px
    foot = int(np.nonzero(letter.any(axis=1))[0].max())  # the letter's lowest row
    drop = np.zeros(blob.shape, bool)
    crumbs = np.zeros(blob.shape, bool)
    for i in range(1, n):
        dx, dy = centres[i] - side / 2.0
        _, y, w, h, _ = stats[i]
        stub = w <= STUB_WIDE and h >= STUB_LONG and y + h - 1 >= foot + STUB_BELOW
        if stub and dx >= STUB_RIGHT * cell_px:
            drop |= labels == i  # a digit's stub hanging below the letter
            continue
        if dx > corner and dy > corner:
            if stats[i, cv2.CC_STAT_AREA] >= POINT_VALUE_LEAST:
                drop |= labels == i
            else:
                crumbs |= labels == i
    if not drop.any():
        return None
    # the digit's crumbs go with it: left, they stretched the glyph's box to the digit's corner
    # and the O without its digit still read as Q
    drop |= crumbs
    keep = glyph.mask & ~drop
    ys, xs = np.nonzero(keep)
    x0, y0, x1, y1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
    bx, by, bw, bh = glyph.bbox
    ink = np.zeros(blob.shape, np.float32)
    ink[by : by + bh, bx : bx + bw] = glyph.ink
    near = cv2.dilate(keep.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    ink = np.where(near & ~drop, ink, 0.0)[y0:y1, x0:x1].astype(np.float32)
    return Glyph(ink, keep, (x0, y0, x1 - x0, y1 - y0), glyph.face, glyph.contrast)


def hog(images: np.ndarray, cell: int = 5, bins: int = 9) -> np.ndarray:
    """Histograms of oriented gradients (Dalal and Triggs) of a batch of square images.

    Args:
        images: float32 array (n, S, S), S a multiple of ``cell``.
        cell: cell side, pixels; blocks are 2x2 cells with a stride of one cell, L2-Hys normed.
        bins: unsigned orientation bins over 0-180 degrees.

    Returns:
        float32 array (n, (S/cell - 1)^2 * 4 * bins).
    """
    imgs = np.asarray(images, np.float32)
    n, s, _ = imgs.shape
    gx = np.zeros_like(imgs)
    gy = np.zeros_like(imgs)
    gx[:, :, 1:-1] = imgs[:, :, 2:] - imgs[:, :, :-2]
    gy[:, 1:-1, :] = imgs[:, 2:, :] - imgs[:, :-2, :]
    mag = np.hypot(gx, gy)
    ang = (np.degrees(np.arctan2(gy, gx)) % 180.0) / (180.0 / bins)
    lo = np.floor(ang).astype(np.int64)
    frac = ang - lo
    lo %= bins
    hi = (lo + 1) % bins
    c = s // cell
    cy = (np.arange(s) // cell)[:, None] * c + (np.arange(s) // cell)[None, :]
    idx_base = (np.arange(n)[:, None, None] * (c * c) + cy[None]) * bins
    size = n * c * c * bins
    hist = np.bincount((idx_base + lo).ravel(), (mag * (1 - frac)).ravel(), minlength=size)
    hist += np.bincount((idx_base + hi).ravel(), (mag * frac).ravel(), minlength=size)
    hist = hist.astype(np.float32).reshape(n, c, c, bins)
    blocks = np.concatenate(
        [hist[:, :-1, :-1], hist[:, :-1, 1:], hist[:, 1:, :-1], hist[:, 1:, 1:]], axis=-1
    ).reshape(n, (c - 1) * (c - 1), 4 * bins)
    blocks /= np.sqrt((blocks**2).sum(-1, keepdims=True) + 1e-6)
    np.minimum(blocks, 0.2, out=blocks)
    blocks /= np.sqrt((blocks**2).sum(-1, keepdims=True) + 1e-6)
    return blocks.reshape(n, -1)


def tail_share(glyph: Glyph) -> float:
    """How much of a glyph's ink lies in the lower-right quarter of its box without its
    left-right mirror image there: the ink (0-1) over its mirror's, summed in that quarter, over
    all the glyph's ink; 0-1. A Q's tail lies there, and an O is symmetric.

    Measured on Scrabble renders (seeds 110000-110179, 124000-124179, 128000-128179 and
    130000-130179, corners given; kinds not cut, glared or bumped): 1264 Os at 0.049 or less,
    1206 Qs at 0.060 or more; the real photos at 600-1500 pixels: Os 0.054 or less, Qs 0.094 or
    more. An O cut by the photo's edge, under glare or beside a grid line reaches 0.06-0.23, a
    G's spur 0.11-0.18.
    """
    ink = np.asarray(glyph.ink, np.float32)
    h, w = ink.shape
    total = float(ink.sum())
    if total <= 0 or h < 2 or w < 2:
        return 0.0
    unmatched = np.clip(ink - ink[:, ::-1], 0.0, None)[h // 2 :, w // 2 :]
    return float(unmatched.sum()) / total


OPEN_ROWS = (0.25, 0.55)  # of a glyph's height: the rows where a G opens, between arm and bar
OPENING_INK = 0.6  # of a glyph's ink: a pixel this dark or darker closes a G's opening


def right_opening(glyph: Glyph) -> float:
    """How far in from its box's right edge a glyph's ink stops, at the most, over the rows
    ``OPEN_ROWS`` of its height (from the top): 0-1 of the box's width (a row with no ink, 1).
    A G opens there, between its top arm and its bar; an O's and a Q's bowl is closed (a Q's
    tail lies lower). Ink is a pixel of ``OPENING_INK`` or more. One row is enough: a bold G's
    opening can be a single row between its arm and its bar (render seed 124024), and no O's
    stroke was seen broken so.

    Measured on Scrabble renders (plain, labels and bold; seeds 100000-139143 as cached in the
    twentieth round, corners given and found), with ink at 0.5: Os 0.1 at most, Qs 0.241 at
    most (one in a hundred over 0.129), Gs 0.70 or more for 95 in 100 (a bold G's stroke closes
    the gap in small glyphs: 86 of 2488 under 0.5), Cs 0.67 or more. The real photos at
    600-1500 pixels, blurred by 0-1.2: Os 0.105 at most, Qs 0.053, Gs 0.737 or more, Cs 0.722
    or more. With ink at ``OPENING_INK`` (0.6, the twenty-third round), on every cached
    Scrabble render of every kind (seeds 110000-143143, corners given: 29665 glyphs true or
    read C, G, O or Q): the Os and Qs read as one of the two and without glare 0.18 and 0.31
    at most (one in a thousand over 0.12 and 0.24); the bold Gs under 0.5, 198 -> 43 of 1238
    (the gap between a bold G's arm and bar, blurred and JPEG'd, holds ink of 0.5-0.6); the
    real photos' Os, Qs and Ds 0.105 at most, Gs 0.737 or more, as before.
    """
    ink = np.asarray(glyph.ink) >= OPENING_INK
    h, w = ink.shape
    if h < 4 or w < 2:
        return 0.0
    rows = ink[round(OPEN_ROWS[0] * h) : round(OPEN_ROWS[1] * h) + 1]
    # the rightmost ink pixel of each row, as the count of columns up to it (0 for no ink)
    reach = np.where(rows.any(axis=1), w - np.argmax(rows[:, ::-1], axis=1), 0)
    return float(1.0 - reach.min() / w)


def glyph_square(glyph: Glyph) -> np.ndarray:
    """The glyph's ink scaled, aspect kept, into a float32 (20, 20) square."""
    h, w = glyph.ink.shape
    s = max(h, w)
    canvas = np.zeros((s + 2, s + 2), np.float32)
    oy, ox = (s + 2 - h) // 2, (s + 2 - w) // 2
    canvas[oy : oy + h, ox : ox + w] = glyph.ink
    return cv2.resize(canvas, (GLYPH_SIDE, GLYPH_SIDE), interpolation=cv2.INTER_AREA)


def glyph_features(glyphs: list[Glyph]) -> np.ndarray:
    """Feature vectors of glyphs: HOG of each glyph's 20x20 square, its 6x6 thumbnail and its
    aspect ratio. float32 array (n, 361)."""
    if not glyphs:
        return np.zeros((0, 361), np.float32)
    squares = np.stack([glyph_square(g) for g in glyphs])
    h = hog(squares)
    thumbs = np.stack(
        [cv2.resize(q, (6, 6), interpolation=cv2.INTER_AREA).ravel() * 0.5 for q in squares]
    )
    aspect = np.array([[math.log(g.ink.shape[0] / g.ink.shape[1]) * 0.7] for g in glyphs])
    return np.hstack([h, thumbs, aspect]).astype(np.float32)


# ----------------------------------------------------------------------------- training samples


@functools.lru_cache(maxsize=512)
def _font(path: Path, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(path), size)


def render_cell(
    letter: str,
    font: Path,
    cell_px: int,
    rng: np.random.Generator,
    face: float = 225.0,
    ink: float = 40.0,
    point_value: bool = False,
) -> np.ndarray:
    """Draw one tile's letter as a lightness window (uint8 (W, W)), for training and tests.

    The letter is dark (``ink``) on a light face (``face``), its height 42-62% of a cell, moved
    up to 7% of a cell off-centre and turned up to 6 degrees; with ``point_value`` a small digit
    sits in the lower-right corner as on Scrabble tiles.
    """
    from PIL import Image, ImageDraw

    m = cell_margin(cell_px)
    side = cell_px + 2 * m
    scale = 3
    big = side * scale
    img = Image.new("L", (big, big), int(face))
    draw = ImageDraw.Draw(img)
    cap = rng.uniform(0.42, 0.62) * cell_px * scale
    fnt = _font(font, int(cap * 1.38))
    dx, dy = rng.uniform(-0.07, 0.07, 2) * cell_px * scale
    stroke = int(rng.integers(0, 2)) * scale // 2
    draw.text(
        (big / 2 + dx, big / 2 + dy),
        letter,
        fill=int(ink),
        font=fnt,
        anchor="mm",
        stroke_width=stroke,
        stroke_fill=int(ink),
    )
    if point_value:
        small = _font(font, int(cap * 0.45))
        digit = str(int(rng.integers(1, 11)))
        draw.text(
            (big / 2 + 0.36 * cell_px * scale, big / 2 + 0.30 * cell_px * scale),
            digit,
            fill=int(ink),
            font=small,
            anchor="mm",
        )
    rot = cv2.getRotationMatrix2D((big / 2, big / 2), float(rng.uniform(-6, 6)), 1.0)
    arr = cv2.warpAffine(
        np.asarray(img), rot, (big, big), flags=cv2.INTER_LINEAR, borderValue=int(face)
    )
    arr = cv2.resize(arr, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32)
    sigma = rng.uniform(0.0, 1.1)
    if sigma > 0.3:
        arr = cv2.GaussianBlur(arr, (0, 0), sigma)
    arr += rng.normal(0, rng.uniform(0, 7), arr.shape)
    return np.clip(arr, 0, 255).astype(np.uint8)


def _ink_map(letter: str, font: Path, side: int, point_value: bool) -> np.ndarray:
    """A letter's ink (float32 (side, side), 0-1) drawn large and centred, cap height 52% of
    ``side / 1.3``, for augmenting by affine warps."""
    from PIL import Image, ImageDraw

    img = Image.new("L", (side, side), 0)
    draw = ImageDraw.Draw(img)
    cell = side / 1.3
    cap = 0.52 * cell
    draw.text(
        (side / 2, side / 2), letter, fill=255, font=_font(font, int(cap * 1.38)), anchor="mm"
    )
    if point_value:
        draw.text(
            (side / 2 + 0.36 * cell, side / 2 + 0.30 * cell), "1",
            fill=255, font=_font(font, int(cap * 0.45)), anchor="mm",
        )  # fmt: skip
    return np.asarray(img, np.float32) / 255.0


def _font_rng(seed: int, font_name: str) -> np.random.Generator:
    """A generator of its own for each font, so one font's samples do not depend on which other
    fonts are there (the build is reproducible font by font)."""
    digest = hashlib.sha256(f"{seed}|{font_name}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _augmented_window(ink_map: np.ndarray, side: int, cell_px: int, rng) -> np.ndarray:
    """One training window (float32 (side, side), lightness 0-255) from a large ink map: size,
    width (narrow to wide faces), offset, rotation and a slight perspective; then the tile's face
    and ink lightness, a lighting gradient, blur, noise and JPEG."""
    big = ink_map.shape[0]
    scale = side / big * rng.uniform(0.42, 0.62) / 0.52 * (1.3 * cell_px / side)
    rot = cv2.getRotationMatrix2D((big / 2, big / 2), float(rng.uniform(-6, 6)), scale)
    rot[:, 2] += side / 2 - big / 2 + rng.uniform(-0.07, 0.07, 2) * cell_px
    sx = rng.uniform(0.8, 1.45)  # narrow to wide typefaces, about the window's centre
    stretch = np.array([[sx, 0, side / 2 * (1 - sx)], [0, 1, 0], [0, 0, 1]])
    mat = stretch @ np.vstack([rot, [0, 0, 1]])
    src = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    dst = src + np.float32(rng.uniform(-0.04, 0.04, (4, 2)) * side)
    persp = cv2.getPerspectiveTransform(src, dst) @ mat
    amount = cv2.warpPerspective(ink_map, persp, (side, side), flags=cv2.INTER_LINEAR)
    face = rng.uniform(110, 245)
    ink = rng.uniform(0, face - 45)
    win = face - (face - ink) * amount
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side - 0.5
    d = rng.uniform(0, 2 * np.pi)
    win *= 1.0 + rng.uniform(0, 0.25) * (xx * np.cos(d) + yy * np.sin(d))
    sigma = rng.uniform(0.0, 1.8)
    if sigma > 0.3:
        win = cv2.GaussianBlur(win, (0, 0), sigma)
    win = win + rng.normal(0, rng.uniform(0, 8), win.shape)
    win = np.clip(win, 0, 255).astype(np.uint8)
    if rng.uniform() < 0.5:
        _, buf = cv2.imencode(".jpg", win, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        win = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return win


def font_samples(
    font: Path, font_name: str, cell_px: int = 48, variants: int = 12, seed: int = 7
) -> tuple[list[Glyph], list[int]]:
    """The training glyphs of one font: each letter drawn once large (plain, with a point value,
    bolder, lighter), then ``variants`` augmented windows (:func:`_augmented_window`), each
    passed through :func:`find_glyph` as a photo's cell is. Returns (glyphs, letter indices)."""
    rng = _font_rng(seed, font_name)
    m = cell_margin(cell_px)
    side = cell_px + 2 * m
    big = 4 * side
    bold = np.ones((7, 7), np.uint8)
    thin = np.ones((3, 3), np.uint8)
    found, labels = [], []
    for k, letter in enumerate(LETTERS):
        plain = _ink_map(letter, font, big, False)
        maps = (
            plain,
            _ink_map(letter, font, big, True),
            cv2.dilate(plain, bold),
            cv2.erode(plain, thin),
        )
        maps = [cv2.GaussianBlur(mp, (0, 0), 1.5) for mp in maps]
        for v in range(variants):
            # the window is drawn at the ink map's own scale first, then reduced
            win = _augmented_window(maps[v % len(maps)], side, cell_px, rng)
            glyph = find_glyph(win, cell_px, min_contrast=TRAIN_MIN_CONTRAST)
            if glyph is None:
                continue
            found.append(glyph)
            labels.append(k)
    return found, labels


def training_samples(
    cell_px: int = 48, variants: int = 12, seed: int = 7, fonts: tuple[str, ...] | None = None
) -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """Features (float32 (n, d)), letter indices (int32 (n,)) and the fonts used (name, file
    size, sha256) of rendered training glyphs, from every font of ``fonts`` (default
    ``TRAINING_FONTS``).

    Raises:
        VisionError: a font of the list is not installed (naming it and its Debian package):
            the build must not depend on which fonts the machine happens to have.
    """
    names = TRAINING_FONTS if fonts is None else fonts
    missing = [f for f in names if font_path(f) is None]
    if missing:
        raise VisionError(
            f"training fonts not installed: {', '.join(missing)}; install the Debian packages "
            f"{' '.join(FONT_PACKAGES)} (the Makefile's APT_PACKAGES)"
        )
    glyph_list: list[Glyph] = []
    labels: list[int] = []
    used = []
    for name in names:
        path = font_path(name)
        data = path.read_bytes()
        used.append({"font": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
        g, lab = font_samples(path, name, cell_px, variants, seed)
        glyph_list += g
        labels += lab
    return glyph_features(glyph_list), np.array(labels, np.int32), used


# ----------------------------------------------------------------------------- the classifier


class LetterClassifier:
    """Names the letter of a glyph: features projected by PCA (cv2.PCACompute, or a stored
    projection), then a vote of the k nearest training glyphs (Euclidean distance, numpy).

    Build with :func:`load_classifier` (the shipped model, cached) rather than directly.

    Args:
        feats: float32 (n, d) training features, or (n, dims) already projected when ``mean``
            and ``vecs`` are given.
        labels: int (n,) letter indices (0 = A).
        mean, vecs: a stored PCA projection (float32 (1, d) and (dims, d)), or None to compute
            one from ``feats``.
    """

    def __init__(
        self,
        feats: np.ndarray,
        labels: np.ndarray,
        k: int = 7,
        dims: int = 48,
        mean: np.ndarray | None = None,
        vecs: np.ndarray | None = None,
    ):
        self.k = k
        feats = np.asarray(feats, np.float32)
        if mean is None or vecs is None:
            mean, vecs = cv2.PCACompute(feats, mean=None, maxComponents=dims)
            self.mean, self.vecs = mean, vecs
            self._train = self._project(feats)
        else:
            self.mean, self.vecs = np.asarray(mean, np.float32), np.asarray(vecs, np.float32)
            self._train = feats
        self._labels = np.asarray(labels, np.int32)
        self._norms = (self._train**2).sum(1)
        self._experts = pair_experts(self._train, self._labels)
        # the samples in letter order, and where each letter's run starts: the nearest sample
        # of every letter is then one np.minimum.reduceat over a row of distances
        self._by_letter = np.argsort(self._labels, kind="stable")
        present, starts = np.unique(self._labels[self._by_letter], return_index=True)
        self._present, self._starts = present, starts

    def _project(self, feats: np.ndarray) -> np.ndarray:
        return (np.asarray(feats, np.float32) - self.mean) @ self.vecs.T

    def _squared_distances(self, q: np.ndarray) -> np.ndarray:
        """Squared distances from projected rows (float32 (n, dims)) to every training glyph:
        float32 (n, samples), possibly a little under 0 by rounding."""
        return self._norms[None, :] - 2.0 * (q @ self._train.T) + (q**2).sum(1)[:, None]

    def classify_detail(self, feats: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Letters, shares and margins of :meth:`classify_nearest`, without the distances."""
        letters, share, margin, _ = self.classify_nearest(feats)
        return letters, share, margin

    def classify_nearest(
        self, feats: np.ndarray
    ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Letters, the weighted share of the k nearest neighbours that agree (0-1; a
        neighbour's vote is exp(-(d - d_nearest) / ``VOTE_SCALE``)) and the distance
        margin (0-1: how much farther the nearest glyph of another letter is than the nearest of
        the letter named; 0 when they are as near) for feature rows (float32 (n, d)). When the
        nearest other letter makes an ``EXPERT_PAIRS`` pair with the one named, the pair's
        discriminant (:func:`pair_experts`) names the letter (when it names the pair's other
        letter, the share is its certainty), and the margin is its certainty (``MARGIN_FULL`` at
        full) but no more than the pair stands clear of the nearest third letter (how much
        farther that is than the nearest glyph of the letter the neighbours named). The
        neighbours' own distance margin is not asked there: the pair's small stroke keeps it
        small (a Q's nearest O is nearly as near as its nearest Q).

        Measured on the bench's Scrabble renders, corners given: three soft Gs read as Q at full
        evidence by the O/Q discriminant, their nearest G as near as the nearest O, are under
        the letter level by the third letter's cap. A Q the neighbours named with an O nearly
        as near (distance margin 0.1-0.2) and the discriminant sure of it is now as sure as a
        Q it names against the neighbours (eighth round, with the premium squares' hue check
        beside it: on the bench's 780 cached readings 259 trusted instead of 233, none wrong).

        The letter without the stroke (O of O/Q, C of C/G: the pair's first) with the
        neighbours' distance margin short of the pair's ``PLAIN_CLEAR`` (else ``MARGIN_FULL``) is
        at most half sure, in the share and the margin both (half the distance margin, and half
        its share of that line), and
        named against the neighbours (they named the letter with the stroke) not sure at all: a
        tail too short or too soft to see is no tail to the discriminant. On 1200 new Scrabble
        renders (seeds 90000-90799 and 95000-95399, 2400 readings) two Qs so read as O were in
        trusted readings, at raw evidence 0.92 and 0.82 (0.82 with the neighbours' margin
        alone); of the 5988 Os read right there, 26 had under full evidence.

        The letter the neighbours named and the discriminant confirms is as sure as the
        discriminant (its certainty times the share of the votes the pair has between them),
        or as the neighbours' share if that is more: as sure as a letter the discriminant names
        against them. A Q halfway between the Os and the Qs had the neighbours' share (0.5-0.6,
        raw evidence 0.75-0.8, under the letter level) although the discriminant was sure of
        it, and Qs were the cells that most often kept a good board from being trusted (twelfth
        round: 22 of the unsure cells of the perfect readings held back by their cells alone,
        Scrabble renders seeds 100000-100359). Those Qs now read at 1.0.

        A pair of ``SURE_ONLY`` (G/Q) under ``SURE_ONLY_CERTAINTY`` gives at most half its
        certainty as the share: its discriminant named the wrong letter as often as the right
        one there.

        The fourth item is the distance from each row to the nearest training glyph of each
        letter, in the PCA space: float64 (n, 26), in ``LETTERS`` order, infinite for a letter
        the model has no glyph of (``reader._shape_told`` asks which letters lie near).
        """
        if len(feats) == 0:
            none = np.zeros(0, np.float32)
            return [], none, none.copy(), np.full((0, len(LETTERS)), np.inf)
        q = self._project(feats)
        d = np.sqrt(np.maximum(self._squared_distances(q), 0.0))
        near = np.argpartition(d, self.k, axis=1)[:, : self.k]
        # the nearest sample of each letter: (n, 26), infinite for a letter with no sample
        nearest = np.full((len(q), len(LETTERS)), np.inf)
        nearest[:, self._present] = np.minimum.reduceat(d[:, self._by_letter], self._starts, axis=1)
        letters = []
        share = np.zeros(len(q), np.float32)
        margin = np.zeros(len(q), np.float32)
        for i in range(len(q)):
            # each neighbour's vote weighs less the farther it is than the nearest one
            dist = d[i, near[i]]
            weights = np.exp(-(dist - dist.min()) / VOTE_SCALE)
            counts = np.bincount(self._labels[near[i]], weights=weights, minlength=len(LETTERS))
            winner = int(np.argmax(counts))
            letters.append(LETTERS[winner])
            share[i] = counts[winner] / counts.sum()
            others = nearest[i].copy()
            others[winner] = np.inf
            d_win = float(nearest[i, winner])
            other = int(np.argmin(others))
            has_other = bool(np.isfinite(others[other]))
            d_other = float(others[other]) if has_other else d_win * 2 + 1
            margin[i] = max(0.0, min(1.0, (d_other - d_win) / (d_other + 1e-6)))
            if has_other:
                # two letters that differ by a small stroke (O and Q's tail, C and G's bar): the
                # pair's own discriminant decides, and says how clearly
                expert = self._experts.get((winner, other))
                if expert is not None:
                    w, threshold, spread, (clear_other, clear_winner) = expert
                    z = (float(q[i] @ w) - threshold) / spread  # > 0: the other letter
                    certainty = min(1.0, abs(z) / (clear_other if z > 0 else clear_winner))
                    if z > 0:
                        letters[i] = LETTERS[other]
                        share[i] = certainty
                    else:
                        # the neighbours' votes split between the pair are the discriminant's
                        # to decide: the letter it confirms is as sure as it is, less the
                        # votes of letters outside the pair
                        pair = (counts[winner] + counts[other]) / counts.sum()
                        share[i] = max(share[i], certainty * pair)
                    # as sure as the discriminant is, and no surer than the pair stands clear of
                    # a third letter (a soft G lies as near the Os as the Qs do, and past the
                    # O/Q threshold); not the neighbours' distance margin, which the pair's
                    # small stroke keeps small (a Q's nearest O is nearly as near as its Q)
                    third = nearest[i].copy()
                    third[[winner, other]] = np.inf
                    d_third = float(third.min())
                    clear = (d_third - d_win) / (d_third + 1e-6) if np.isfinite(d_third) else 1
                    apart = margin[i]  # the neighbours' distance margin
                    margin[i] = min(MARGIN_FULL * certainty, max(0.0, clear))
                    # the letter without the stroke (O of O/Q) named, with the other nearly as
                    # near (or nearer: the neighbours named the other): a stroke unseen may be
                    # one too small or too soft to see. Such a letter read right stands clear
                    # of the other (the pair's ``PLAIN_CLEAR``), so short of that it is at most
                    # half sure
                    plain = clear_other < clear_winner if z <= 0 else clear_winner < clear_other
                    clear_of_other = apart if z <= 0 else 0.0
                    pair_letters = frozenset((LETTERS[winner], LETTERS[other]))
                    need = PLAIN_CLEAR.get(pair_letters, MARGIN_FULL)
                    if plain and clear_of_other < need:
                        margin[i] = min(margin[i], 0.5 * clear_of_other)
                        share[i] = min(share[i], 0.5 * clear_of_other / need)
                    if certainty < SURE_ONLY_CERTAINTY and pair_letters in SURE_ONLY:
                        # a pair whose discriminant is right only when nearly sure: short of
                        # that, at most half as sure as it is, in the share
                        share[i] = min(share[i], 0.5 * certainty)
        return letters, share, margin, nearest

    def classify(self, feats: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Letters and confidences (share of the k neighbours that agree, 0-1) for feature rows
        (float32 (n, d)). Returns ([], empty) for no rows."""
        letters, share, _ = self.classify_detail(feats)
        return letters, share

    def nearest_distance(self, feats: np.ndarray) -> np.ndarray:
        """The distance from each feature row (float32 (n, d)) to its nearest training glyph of
        any letter, in the PCA space: float32 (n,)."""
        if len(feats) == 0:
            return np.zeros(0, np.float32)
        d = self._squared_distances(self._project(feats))
        return np.sqrt(np.maximum(d.min(1), 0.0)).astype(np.float32)

    def with_samples(self, feats: np.ndarray, labels: np.ndarray) -> LetterClassifier:
        """A classifier that also knows these samples (a user's own tiles), with the same
        projection."""
        return LetterClassifier(
            np.vstack([self._train, self._project(feats)]),
            np.concatenate([self._labels, labels]),
            self.k,
            mean=self.mean,
            vecs=self.vecs,
        )


# a board photographed from another side: its letters stand upright a quarter turn away when
# their median distance to the nearest training glyph there is under this share of the upright
# one. On 54 rendered photos of every kind (both profiles) and the real photos at 500-1500 px
# blurred up to 2 px, read as taken: the best other turn's median was 1.14-3.1 times the upright
# one's; turned a quarter, 0.29-0.54 times (one pale Scrabble board, its letters barely found,
# 0.99: left as it is)
TURN_RATIO = 0.7
TURN_LEAST = 6  # glyphs: fewer say nothing of the board's orientation
TURN_SAMPLE = 12  # the glyphs of highest contrast that are turned and measured


def upright_turn(glyphs: list[Glyph], classifier: LetterClassifier) -> int:
    """How the board's letters stand: the quarter turns (0-3, counter-clockwise, as
    ``np.rot90``'s k) that make the glyphs read upright; 0 when upright, or when the glyphs do
    not say so clearly (under ``TURN_LEAST`` of them, or no turn that brings the median distance
    to the nearest training glyph under ``TURN_RATIO`` times the upright one's). The
    ``TURN_SAMPLE`` glyphs of highest contrast are measured, in about 4 ms. (Trying no turn when
    the glyphs as they stand are near the training glyphs would save 3 ms, but a board turned
    half round is near them too: its O, S, N, Z, H, I and X read the same.)

    The letters of a board all face one way (a word game's tiles are read from one side), and a
    turned letter is far from every upright training glyph: a photo taken from the side of the
    board or from across it is so read the way its letters are."""
    if len(glyphs) < TURN_LEAST:
        return 0
    sample = sorted(glyphs, key=lambda g: -g.contrast)[:TURN_SAMPLE]
    turned = [
        replace(g, ink=np.ascontiguousarray(np.rot90(g.ink, k))) for k in range(4) for g in sample
    ]
    distance = classifier.nearest_distance(glyph_features(turned)).reshape(4, len(sample))
    medians = np.median(distance, axis=1)
    best = 1 + int(np.argmin(medians[1:]))
    return best if medians[best] < TURN_RATIO * medians[0] else 0


# Pairs of letters one small stroke apart, that the nearest neighbours confuse (in a face not
# trained on, a Q with a short tail is nearer some font's O than any Q): each pair has a linear
# discriminant of its own (Fisher's, in the PCA space), and its threshold is put the stated share
# of the way from the first letter's mean towards the second's (the tail, the bar: a little of it
# is enough).
EXPERT_PAIRS = (
    ("O", "Q", 0.4),
    ("C", "G", 0.4),
    # a bold, wide G's spur lies where a Q's tail does: such a G's nearest other letter is Q,
    # 10-20% farther, and with no discriminant it stayed under the letter level (the bold
    # renders' most unsure letter: 65 of the fresh seeds' unsure cells on perfect boards)
    ("G", "Q", 0.5),
    ("E", "F", 0.5),
    ("P", "R", 0.5),
    ("H", "R", 0.5),
    ("V", "Y", 0.5),
    ("U", "V", 0.5),
    ("M", "N", 0.5),
    # an R whose leg, softened, nearly closes its lower bowl lies near the Bs (the neighbours'
    # margin 0.12-0.17: Rs were the cells that most often kept good bold boards untrusted),
    # and an F whose arm is blurred into a bowl near the Ps (read as P at up to 0.86 in soft
    # renders)
    ("B", "R", 0.5),
    ("F", "P", 0.5),
)
# spreads from the threshold at which a pair's discriminant is sure. At 2, a Q whose tail the
# discriminant saw 1-2 spreads past the threshold stayed under the letter level, and Qs kept
# more good boards from being trusted than any other letter (53 of the 98 unsure cells on the
# bench's perfect Scrabble boards held back by cells alone, then blanks 24, G 16). At 1, with
# the shipped confidence table unchanged: of the bench's check sets' 108 readings a profile,
# Iago's trusted go from 42 to 46 and Scrabble's from 12 to 18, and their expected calibration
# error falls (Iago 0.0025 to 0.0023, Scrabble 0.0019 to 0.0015); the 360-photo larger check
# trusts 38 Scrabble readings instead of 26 and 140 Iago ones instead of 124; no wrong board is
# trusted in any of them, nor in the 90 readings of the real photos at phone sizes
EXPERT_CLEAR = 1.0
# spreads past the threshold at which the letter with the stroke (the second of a pair whose
# threshold sits nearer the first: Q of O/Q, G of C/G) is sure. Glyphs of the bench's Scrabble
# renders (corners given) projected on the O/Q discriminant: no O came within 1.5 spreads of the
# threshold (372 of them), but one Q in ten lay 0-1 spread past it (a short tail, softened), and
# so stayed under the letter level at EXPERT_CLEAR. At 0.5, 14 more right cells reach the letter
# level and no wrong one; of the bench's fit and check sets (both profiles, corners given and
# found), Iago trusts 100 readings instead of 94 and Scrabble 40 instead of 39, none of them wrong
STROKE_CLEAR = 0.5
MARGIN_FULL = 0.3  # the distance margin that counts as full evidence (reader.read_cells)
# the neighbours' distance margin (how much farther the nearest glyph of the pair's other letter
# is) at which the letter without the stroke is sure, by pair (else ``MARGIN_FULL``): short of it,
# the stroke may be there unseen. In a bold face widened 1.2-1.45 times, Iago's Q has a short
# tail that crosses its bowl: two such Qs read as O at 0.99-1.0 in trusted readings, at margins
# 0.32 and 0.36 (Iago renders seeds 104000-104179, bold, corners found), over MARGIN_FULL. Of
# 720 Os read right with a Q their nearest other letter (renders of every kind: Iago seeds
# 104000-104179 and 105000-105099 bold, Scrabble 103000-103179), one lay under 0.4, at 0.2.
# A G's bar is no such stroke: no G was read as C past 0.3 there, and at 0.4 for C/G too, four
# good Iago readings of 360 (seeds 106000-106179) lost their trust to a C at 0.33-0.4
PLAIN_CLEAR = {frozenset(("O", "Q")): 0.4}
# pairs whose discriminant is right only when it is nearly sure (``SURE_ONLY_CERTAINTY`` of
# ``EXPERT_CLEAR`` spreads past its threshold or more). A bold, wide G's spur lies where a Q's
# tail does, and a grid found a little off moves the spur: short of that, the G/Q discriminant
# named the wrong letter as often as the right one (Scrabble renders seeds 110000-110179 and
# 111000-111119 with 3-6 blanks, Iago 109000-109179, corners given and found: of the 10 G/Q
# glyphs it decided at raw evidence under 0.82, 5 wrong; of the 5 at 0.95-0.98 and the 276 it
# was sure of, none), and a bold G read as Q at raw evidence 0.81, just at the letter level,
# was trusted wrong (seed 111010, bold, 3-6 blanks, grid found). Such a letter is at most half
# as sure as the discriminant, in the share (raw evidence at most 0.75 of its certainty: under
# the letter level)
SURE_ONLY = frozenset({frozenset(("G", "Q"))})
SURE_ONLY_CERTAINTY = 0.9


def pair_experts(train: np.ndarray, labels: np.ndarray) -> dict:
    """Each ``EXPERT_PAIRS`` pair's discriminant from projected training samples (float32 (n,
    dims)) and their letters (int (n,)): {(winner, other): (w float64 (dims,), threshold, spread,
    (clear_other, clear_winner))}, both orders, oriented so that a projection above the
    threshold is ``other``; spread is the two letters' mean standard deviation along w, and the
    clear distances are the spreads past the threshold at which each letter is sure
    (``STROKE_CLEAR`` for the letter with the stroke, else ``EXPERT_CLEAR``). Pairs with under 10
    samples a letter are left out."""
    out = {}
    for first, second, share in EXPERT_PAIRS:
        a, b = LETTERS.index(first), LETTERS.index(second)
        xa = np.asarray(train[labels == a], np.float64)
        xb = np.asarray(train[labels == b], np.float64)
        if len(xa) < 10 or len(xb) < 10:
            continue
        within = np.cov(xa.T) + np.cov(xb.T) + 1e-3 * np.eye(train.shape[1])
        w = np.linalg.solve(within, xb.mean(0) - xa.mean(0))
        pa, pb = xa @ w, xb @ w
        threshold = float(pa.mean() + share * (pb.mean() - pa.mean()))
        spread = float(0.5 * (pa.std() + pb.std())) + 1e-9
        # the letter with the stroke (the second, when the threshold sits nearer the first)
        clear_second = STROKE_CLEAR if share < 0.5 else EXPERT_CLEAR
        out[(a, b)] = (w, threshold, spread, (clear_second, EXPERT_CLEAR))
        out[(b, a)] = (-w, -threshold, spread, (EXPERT_CLEAR, clear_second))
    return out


_CACHE: dict[tuple[str, int], LetterClassifier] = {}
_LOCK = threading.Lock()

SHIPPED_MODEL = Path(__file__).resolve().parent / "data" / "glyphs.npz"
"""The classifier shipped in the package, built once from ``TRAINING_FONTS`` by
``companion vision train --output companion/vision/data/glyphs.npz`` (``make vision-model``), so
every install reads with the same model whatever fonts it has."""


def feature_key(cell_px: int = 48) -> str:
    """A hash of the code that turns a cell into features (the glyph finder and the features:
    their syntax trees, so formatting does not count), its constants and the training fonts: a
    model built with another key is stale."""
    import ast
    import inspect
    import textwrap

    h = hashlib.sha1()
    for fn in (
        cell_margin,
        _depth,
        _thick_as_its_box,
        _cut_to,
        _wide_letter,
        _letter_component,
        find_glyph,
        glyph_square,
        glyph_features,
        hog,
    ):
        # the code's syntax tree, not its text: reformatting or a comment changes nothing
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        h.update(ast.dump(tree).encode())
    h.update(
        f"{MODEL_VERSION}|{cell_px}|{GLYPH_SIDE}|{MIN_CONTRAST}|{MAX_HALF_STROKE}|{MAX_WIDTH}|"
        f"{CORE_INK}|{CENTRE_OFF}|{RIM}|{PATCH_DEPTH}|{FACE_RIM}|{FACE_WIDE}|{FACE_TALL}|"
        f"{'|'.join(TRAINING_FONTS)}".encode()
    )
    return h.hexdigest()[:12]


def model_path(cell_px: int = 48) -> Path:
    """Where a classifier built on this machine is cached (only when the shipped one does not
    match the code: a developer's checkout between a change and ``make vision-model``)."""
    return data_dir() / "vision" / f"glyphs-{feature_key(cell_px)}.npz"


def calibration_path(profile_name: str) -> Path:
    """Where ``companion vision calibrate`` keeps the user's tile samples for a profile.

    Raises:
        UnsafeNameError: ``profile_name`` could name a file outside the data directory.
    """
    check_name(profile_name, "board profile")
    return path_in(data_dir() / "vision", f"calibration-{profile_name}", ".npz", "board profile")


def build_model(path: Path, cell_px: int = 48, variants: int = 12, seed: int = 7) -> Path:
    """Build the classifier from ``TRAINING_FONTS`` and write it to ``path`` (.npz: the PCA
    projection, the projected samples as float16, their letters and a JSON ``meta`` naming the
    fonts by sha256, the seed and the feature key). Deterministic for the same fonts and code.

    Raises:
        VisionError: a training font is missing.
    """
    feats, labels, used = training_samples(cell_px, variants, seed)
    clf = LetterClassifier(feats, labels)
    # edited nearest neighbours (Wilson): a sample whose own nearest neighbours are mostly of
    # another letter (a letter warped past recognition) is dropped, so it does not sit among a
    # letter's glyphs and make a clear reading look unsure
    kept = _edited(clf._train, clf._labels, clf.k)
    clf = LetterClassifier(clf._train[kept], clf._labels[kept], mean=clf.mean, vecs=clf.vecs)
    meta = {
        "feature_key": feature_key(cell_px),
        "cell_px": cell_px,
        "variants": variants,
        "seed": seed,
        "samples": len(labels),
        "kept": int(len(kept)),
        "fonts": used,
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(
        tmp,
        mean=clf.mean.astype(np.float32),
        vecs=clf.vecs.astype(np.float32),
        train=clf._train.astype(np.float16),
        labels=clf._labels.astype(np.uint8),
        kept=kept.astype(np.int32),
        meta=np.array(json.dumps(meta)),
    )
    tmp.replace(path)
    return path


def _edited(train: np.ndarray, labels: np.ndarray, k: int, chunk: int = 1024) -> np.ndarray:
    """Indices of the samples (rows of projected ``train``) whose k nearest other samples are
    mostly of their own letter (Wilson's edited nearest neighbour rule)."""
    norms = (train**2).sum(1)
    keep = []
    for start in range(0, len(train), chunk):
        q = train[start : start + chunk]
        d = norms[None, :] - 2.0 * (q @ train.T)
        d[np.arange(len(q)), np.arange(start, start + len(q))] = np.inf  # not itself
        near = np.argpartition(d, k, axis=1)[:, :k]
        same = (labels[near] == labels[start : start + len(q), None]).sum(1)
        keep.extend(start + np.nonzero(same * 2 > k)[0])
    return np.array(keep, np.int64)


def model_meta(path: Path = SHIPPED_MODEL) -> dict:
    """The ``meta`` of a model file (fonts, seed, feature key), or {} if there is none."""
    if not Path(path).exists():
        return {}
    with np.load(path) as data:
        return json.loads(str(data["meta"])) if "meta" in data else {}


def train(cell_px: int = 48, force: bool = False, output: Path | None = None) -> Path:
    """The model file to read with: the shipped one when it matches the code (nothing is
    built), else one built here from the fonts and cached. With ``output``, build the model
    and write it there (``make vision-model`` writes the shipped file).

    Raises:
        VisionError: a model must be built and a training font is missing.
    """
    if output is not None:
        return build_model(Path(output), cell_px)
    if not force and model_meta().get("feature_key") == feature_key(cell_px):
        return SHIPPED_MODEL
    path = model_path(cell_px)
    if path.exists() and not force:
        return path
    return build_model(path, cell_px)


def _load_model(path: Path) -> LetterClassifier:
    with np.load(path) as data:
        return LetterClassifier(
            data["train"].astype(np.float32),
            data["labels"].astype(np.int32),
            mean=data["mean"],
            vecs=data["vecs"],
        )


def load_classifier(cell_px: int = 48, profile_name: str | None = None) -> LetterClassifier:
    """The letter classifier (the shipped model, or one built here when the code changed; kept
    in memory), with the calibration samples of ``profile_name`` added if ``companion vision
    calibrate`` made some (each counted three times)."""
    cal = calibration_path(profile_name) if profile_name else None
    stamp = str(cal.stat().st_mtime_ns) if cal is not None and cal.exists() else ""
    key = (f"{profile_name}|{stamp}", cell_px)
    with _LOCK:
        clf = _CACHE.get(key)
        if clf is not None:
            return clf
        clf = _load_model(train(cell_px))
        if stamp:
            with np.load(cal) as data:
                feats = np.vstack([data["feats"]] * 3)
                labels = np.concatenate([data["labels"]] * 3)
            clf = clf.with_samples(feats, labels)
        _CACHE[key] = clf
        return clf
