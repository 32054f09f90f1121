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

from companion.vision import trust
from companion.vision.errors import BoardNotFoundError, VisionError
from companion.vision.glyphs import (
    LETTERS,
    MARGIN_FULL,
    MIN_CONTRAST,
    RIM,
    Glyph,
    LetterClassifier,
    cell_contrasts,
    cell_margin,
    cell_strokes,
    find_glyph,
    glyph_features,
    load_classifier,
    point_value_cut,
    right_opening,
    tail_share,
    upright_turn,
)
from companion.vision.notation import format_board
from companion.vision.profiles import Profile, get_profile

COLOURS = ("blue", "red")
BORDER_WEIGHT = 0.5  # of the border-minus-centre lightness, in the blank finder's colour space
# Lab weighed so when a tile is compared with a square: a lettered tile's face seems darker than
# a blank's (its ink and the ink's blur reach into the lightest pixels), and light falls off
# across a board, while the hue of the wood stays
LAB_WEIGHT = np.float32([0.5, 1.0, 1.0])


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
        timings: seconds spent in each stage (``locate``, ``warp``, ``cells``, ``letters``,
            ``turn``, ``check``).
        problems: what puts the reading in doubt, in words (empty: ``trusted``).
        notes: what the reader put right (the grid moved one row or column to fit the premium
            squares; the board read turned, the way its letters stand).
        evidence: the cells' evidence (:class:`CellEvidence`), or None.
        turn: quarter turns (0-3, clockwise) the board lies turned in the photo, the corners
            taken in that order (:func:`companion.vision.glyphs.upright_turn`).
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

    @property
    def trusted(self) -> bool:
        """True only when the reader is sure of every cell: nothing about the photo or the grid
        is in doubt (``problems`` is empty). DESIGN.md, "The board reader's trust"."""
        return not self.problems

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
        places: the calibrated probability that the cell is read right), colour counts, corners,
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
    side = min(float(np.linalg.norm(pts[i] - pts[(i + 1) % 4])) for i in range(4))
    cell = side / profile.size
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


def tile_features(lab: np.ndarray, colours: np.ndarray, n: int, c: int):
    """What tells a tile from a square, for every cell: its face colour (Lab, ``colours``) and
    how much lighter or darker the cell's border is than its middle (a tile hides the grid lines
    along the border; a square shows them), weighed ``LAB_WEIGHT`` and ``BORDER_WEIGHT``:
    float32 (n, n, 4); and
    how even the middle is (lightness standard deviation, float32 (n, n): a printed label or a
    grid line is not even). ``lab``: float32 (board_px, board_px, 3) of the warped board."""
    grid = lab[c // 2 : c // 2 + n * c, c // 2 : c // 2 + n * c].reshape(n, c, n, c, 3)
    b = c // 6
    evenness = grid[:, b : c - b, :, b : c - b, 0].std(axis=(1, 3))
    ring = trust.cell_borders(lab[:, :, 0], n, c, outside=3)
    border = np.median(ring, axis=2) - colours[:, :, 0]
    feature = np.concatenate([colours * LAB_WEIGHT, BORDER_WEIGHT * border[:, :, None]], axis=2)
    return feature.astype(np.float32), evenness.astype(np.float32)


# Lab (weighed): a label's face is under this from an empty premium square's. It was 7 until
# the twenty-fifth round: real board 1's blue triple-letter square, its label read as an S, lay
# 7.0-8.4 from the other bare ones in photos turned, tilted, lit cool or bright, noised (600-1500
# pixels, blurred by 0.8 pixels; 24 readings), and its S stood as a letter in doubt instead of a
# bare square. Cells read as letters 7-9 from a bare premium square and far from the tiles, on
# 3016 cached Scrabble renders (corners given and found): 11, of which 3 letters read right, each
# at raw evidence 1.0 (a printed label is an unclear letter: ``LABEL_EVIDENCE``); on the real
# photos, 2 letters read right at 1.0
LABEL_NEAR_PREMIUM = 9.0
LABEL_EVIDENCE = 0.8  # a glyph read with raw evidence under this may be a printed label
# the most raw evidence of a letter whose face is a bare premium square's and whose ink is
# fainter than LABEL_INK_SHARE of the set's letters' (under the letters' trust level): a
# double-letter label, its lines blurred together, was read as a clear L (raw 1.0, ink 0.38 of
# the letters') in a trusted reading (render seed 91459 with 3-6 blanks, dark, 900x700)
LABEL_FACE_READING = 0.5
# ... and the share of the letters' median ink (contrast) under which such a letter is in doubt.
# It was RELAXED_INK_SHARE (0.5) until the twenty-fifth round: real board 1's triple-letter label
# ("TRIPLE LETTER SCORE", three lines of small print) was read as an S at raw evidence 0.80-0.90,
# its ink 0.53-0.55 of the letters', and the reading trusted (800 and 1000 pixels under a warm
# lamp, blurred by 0.8 pixels; 700 pixels turned 2.5 degrees, grid found). On the real photos
# so changed (780 readings: sizes 600-1500, 13 kinds of light and handling), the labels read as
# letters on such faces had 0.53-0.62 of the ink, the letters read right there (48) 0.88 or
# more; letters on such faces read right on the renders (80) had 0.34 or more, none of them in
# a trusted reading
LABEL_INK_SHARE = 0.75


def _printed_labels(
    colours: np.ndarray,
    kind: np.ndarray,
    raw: np.ndarray,
    premium: frozenset[tuple[int, int]],
) -> list[tuple[int, int]]:
    """Premium squares read as letters that are the square's printed label ("DOUBLE LETTER
    SCORE", blurred into a letter-sized blob in a soft or small photo): cells (row, column) whose
    face colour (``colours``, Lab float32 (n, n, 3), weighed ``LAB_WEIGHT``) is within
    ``LABEL_NEAR_PREMIUM`` of an empty premium square's, more than 2.5 times as far (and 4
    more) from the lettered tiles' on plain squares (their median; 3 or more are needed), and
    whose letter is unclear (raw evidence under ``LABEL_EVIDENCE``). A tile on a premium square
    hides it: its face is the tiles' colour.

    Measured on the real photos reduced to 500-1500 pixels and blurred (sigma 0 to 2 pixels)
    and on the bench's Scrabble renders, corners given and found: this takes 47 of the 49
    labels read as letters (the other two under glare), and 7 of the 7,855 letters on premium
    squares, of which 5 were misread already (in a 500-pixel photo too soft to read) and 2 right
    (there, and a glared tile): figures of ``LABEL_NEAR_PREMIUM`` 7. At 9 (twenty-fifth round),
    on the real photos changed 13 ways (780 readings) and 3016 cached renders (6007 readings),
    the faces 7-9 from a bare premium square read as letters under ``LABEL_EVIDENCE`` were all
    labels (see ``LABEL_NEAR_PREMIUM``).

    Args:
        colours: the cells' face colours (:func:`trust.cell_colours`).
        kind: int8 (n, n), index in ``trust.CELL_KINDS`` (1: a letter).
        raw: float32 (n, n), the cells' raw evidence.
        premium: the profile's premium squares, (row, column) 0-based.
    """
    faces = _label_faces(colours, kind, premium)
    return [(int(r), int(col)) for r, col in np.argwhere(faces & (raw < LABEL_EVIDENCE))]


def _label_faces(
    colours: np.ndarray, kind: np.ndarray, premium: frozenset[tuple[int, int]]
) -> np.ndarray:
    """The premium squares read as letters whose face is a bare premium square's, not a
    tile's: bool (n, n), true where a cell read as a letter (``kind`` 1) on a premium square
    has a face colour (``colours``, Lab float32 (n, n, 3), weighed ``LAB_WEIGHT``) within
    ``LABEL_NEAR_PREMIUM`` of an empty premium square's and more than 2.5 times as far (and 4
    more) from the lettered tiles' on plain squares (their median; 3 or more are needed, and
    one empty premium square). A tile on a premium square hides it: its face is the tiles'
    colour. An unclear letter there is the square's label (:func:`_printed_labels`); a clear
    one is in doubt (:func:`read_cells`)."""
    n = kind.shape[0]
    out = np.zeros((n, n), bool)
    weighed = colours * LAB_WEIGHT
    on_premium = trust.premium_layout(premium, n)
    plain_letters = (kind == 1) & ~on_premium
    bare = np.argwhere((kind == 0) & on_premium)
    if plain_letters.sum() < 3 or len(bare) == 0:
        return out
    tiles = np.median(weighed[plain_letters], axis=0)
    squares = weighed[tuple(bare.T)]
    for r, col in np.argwhere((kind == 1) & on_premium):
        d_square = float(np.linalg.norm(squares - weighed[r, col], axis=1).min())
        d_tile = float(np.linalg.norm(weighed[r, col] - tiles))
        out[r, col] = d_square < LABEL_NEAR_PREMIUM and d_tile > 2.5 * d_square + 4.0
    return out


def _squares_near(
    cols: np.ndarray, inline: np.ndarray, near: np.ndarray, among: np.ndarray, board: np.ndarray
) -> np.ndarray:
    """The median of the squares ``cols`` (float32 (k, d)) that are ``among`` (bool (k,)): those
    ``inline`` if 2 or more, else those ``near`` if 3 or more, else all of them, else ``board``."""
    if (inline & among).sum() >= 2:
        return np.median(cols[inline & among], axis=0)
    if (near & among).sum() >= 3:
        return np.median(cols[near & among], axis=0)
    return np.median(cols[among], axis=0) if among.any() else board


# a blank is also measured against the lettered tiles within this many cells (3 or more): on
# real board 3 a blank beside 18 such tiles is 3.4 from theirs and 12.9 from the set's (whose
# median is darker: the tiles across the board are lit less), and was read as a bare square
LOCAL_TILES = 3
# on a board whose tiles and squares differ in hue (``HUE_APART``), a blank whose hue is not
# nearer the tiles' than the squares' (Lab a and b, figure under this) is in doubt: its evidence
# is at most BLANK_HUE_READING, under the blanks' trust level. A bare square at a render's edge,
# as dark as the tiles but 0.8 nearer the squares' hue (6.95 apart from the tiles'), was taken
# for a blank at raw 0.68 (confidence 1.0) in a trusted reading (seed 91536 with 3-6 blanks,
# plain, 1600x1200). Blanks found on renders with 3-6 blanks (seeds 90000-90399, corners given
# and found: 3100) under it there: 9, in 2 trusted readings; at 1.5, 20 in 7; real board 1's at
# 1.46-1.48 (its hues 3.6 apart, not told by hue)
BLANK_HUE_SURE = 0.0
BLANK_HUE_READING = 0.55
# on such a board, a blank whose hue is this many units nearer the tiles' than the squares' (or
# more) is no longer in doubt for being only a little nearer the tiles in its whole colour (0.6-0.7
# of the distance, ``BLANK_RATIO``; or a margin under the noise floor): its evidence is at least
# BLANK_HUE_CLEAR_READING, among the blanks read sure. Of the blanks in doubt on the eighteenth
# round's Scrabble renders (seeds 110000-110179, 111000-111119, 113000-113059, 115000-115143,
# 124000-124179, 125000-125119, 126000-126159, 127000-127119; corners given and found: 390
# cells), 130 had 4 or more on a board whose hues stand 6 apart (``HUE_APART``): 127 blanks, a
# bare square under glare, and a Z on a tile cut by the photo's edge, read so twice (corners
# given and found); each of those readings refused for its glare, its cut. Readings held back
# by such blanks alone: 49, all of them right. From 2 to 5: 144 to 114 cells, the same three
# wrong. It was 4 until the twenty-first round: at 3, on the twentieth round's 3656 Scrabble
# readings 1886 -> 1894 trusted, none wrong (blanks at 3.2-3.9 held back good boards, render seed
# 128051's bold one at 3.3 in both its readings); on the real photos and Iago, as before. At 2
# since the twenty-second round: on 6032 Scrabble readings (seeds 110000-143143, every kind,
# corners given and found) 3110 -> 3122 trusted, none wrong (blanks at 2.4-2.9, as render seed
# 138020's plain one at 2.6, held back readings otherwise right); the real photos as before
BLANK_HUE_CLEAR = 2.0
BLANK_HUE_CLEAR_READING = 0.7
# in a frame the reader brightened this many times or more (``trust.exposure_gain``: a frame
# taken before the exposure settled), a blank in the outermost row or column is in doubt
# (evidence at most BLANK_HUE_READING). Two boards were trusted with bare squares in a corner's
# fall-off read as blanks, at raw 0.64-0.74, on renders of the dark kind (gain 3.3) made in the
# eighteenth round (Scrabble seeds 131087, corners given and found, and 131111 found; 3-6
# blanks), as once before (the eleventh round's limits). Of the blanks read sure on the round's
# other renders of the dark kind, 8 of 166 in the outermost row or column were bare squares,
# none of 764 inside it; of the plain, labels and bold kinds, 2 of 2513 anywhere. The dark kind
# is brightened 2.5-5 times; every other kind, and the real photos, not at all. Putting every
# blank of a dim frame in doubt kept no more wrong boards out, and of the 91 perfect dark
# readings trusted before the round (seeds 110000-110179, 124000-124179, 128000-128179,
# 130000-130179: 150 perfect) left 26 trusted; the rim alone leaves 83
BLANK_GAIN_MAX = 2.0


def _outermost(n: int) -> np.ndarray:
    """The cells of the outermost rows and columns of an n x n grid: bool (n, n)."""
    rim = np.ones((n, n), bool)
    rim[1:-1, 1:-1] = False
    return rim


# 8-bit lightness: an outermost row or column whose bare plain squares are this much darker
# than the bare plain squares inside the rim (their medians) lies in a frame's shadow (see
# ``_shaded_rim``)
FRAME_SHADOW = 25.0
# Lab a and b: a blank on a line in a frame's shadow whose hue figure (``_tile_like_and_hue``,
# against the set's tiles, measured before the blanks are looked for, as ``hue_tile_like``) is
# under this is in doubt. Real board 3's shaded squares read as blanks under a warm lamp, a
# warmer one, a green tube and vignetting (600-1500 pixels, sharp and blurred by 0.8 pixels:
# 107 cells) had -1.9 to 5.4 (the square between the E and the Y -6 to -7 in the photo as
# taken: the casts moved it 7-11 towards the tiles'). On 6007 readings of 3016 cached Scrabble
# renders (corners given and found), the blanks read right on lines 25 or more under the inner
# squares: 44, in 22 trusted readings; with the hue under 8, in 8 readings (four renders, given
# and found; none of the render sets the docs' trust figures are grouped by, docs/vision.md).
# A blank found beside another is judged by the figure measured with the other among the
# squares, which can be lower: it errs towards doubt
SHADED_HUE_CLEAR = 8.0


def _shaded_rim(colours: np.ndarray, kind: np.ndarray, premium: frozenset) -> np.ndarray:
    """The cells of the outermost rows and columns that lie in a frame's shadow: bool (n, n).

    A line is shaded when the median face lightness (``colours`` Lab float32 (n, n, 3), 8-bit)
    of its bare plain squares (cells of ``kind`` 0, int (n, n), not in ``premium``; the line
    needs 2 or more) is ``FRAME_SHADOW`` or more under that of the bare plain squares inside
    the rim (3 or more are needed, else no line is shaded). There a bare
    square is as dark as a tile, and only its hue tells it from a blank; a colour cast (a warm
    lamp, a green tube) moves a dark cell's Lab a and b less than a light one's, which brings a
    shaded square's hue towards the tiles'. Real board 3's bottom row lies 59-66 under its
    inner squares; under a warm lamp its bare square between the E and the Y was read as a
    blank at a confidence of 1.0 in every reading (600-1500 pixels), and with one of its two
    blanks taken off the board the reading was trusted wrong. Its other sides lie within 11,
    real board 2's bottom row 27-33 under, real board 1's sides 8 under to 21 over (its blank
    on the left edge, 9 over)."""
    n = kind.shape[0]
    light = colours[..., 0]
    bare = kind == 0
    if premium:
        bare = bare & ~trust.premium_layout(premium, n)
    inside = bare & ~_outermost(n)
    out = np.zeros((n, n), bool)
    if inside.sum() < 3:
        return out
    level = float(np.median(light[inside]))
    for line in ((0, slice(None)), (n - 1, slice(None)), (slice(None), 0), (slice(None), n - 1)):
        squares = light[line][bare[line]]
        if len(squares) >= 2 and float(np.median(squares)) <= level - FRAME_SHADOW:
            out[line] = True
    return out


def _blank_tiles(
    feature: np.ndarray,
    evenness: np.ndarray,
    glyph_cells: list[tuple[int, int]],
    empty: list,
    premium: frozenset[tuple[int, int]] = frozenset(),
    tile_like: np.ndarray | None = None,
    hue_like: np.ndarray | None = None,
    blanks: frozenset[tuple[int, int]] = frozenset(),
    hues_told: bool = False,
) -> dict[tuple[int, int], float]:
    """Cells without a letter that look like the game's tiles (Scrabble's blanks), with a
    confidence.

    The tiles that do have a letter are the model (``feature``, :func:`tile_features`: face
    colour and border): their median, and the median of those within ``LOCAL_TILES`` cells (3
    or more; light falls off across a board, and a tile's face with it), a cell's distance from
    the tiles being the mean of its distances from the two. A letterless cell is a blank when it
    has a lettered tile beside it (a blank is part of a word), is much nearer the tiles than the
    board's squares around it (the median of the letterless cells in its row and column within
    three cells, else within two cells all round; for a plain square, of the plain ones: a red
    triple-word square and a pink double-word one in line with a bare square in a dark photo's
    corner made it look unlike the board, and it was taken for a blank in a trusted reading,
    render seed 95251 with 3-6 blanks), and is as even as a tile's face (``evenness``: no
    printed label, no grid line). "Much nearer": under ``BLANK_RATIO`` of the distance from the
    squares; up to ``BLANK_DOUBT_RATIO``, a blank in doubt (evidence at most
    ``BLANK_HUE_READING``).

    Measured on the real photos reduced to 500-1500 pixels and blurred (sigma 0-2 pixels),
    corners given and found: with the tiles nearby, real board 3's blank is found in all 20
    readings blurred by 1 pixel or less (it was in 3), and 59 of those 60 readings of the three
    boards are perfect (42 were). On the bench's Scrabble renders and 72 new ones, 10 more of
    376 blanks were found; 6 more bare squares were taken for blanks and 3 fewer, none of them
    on a reading that was trusted.

    A cell of ``premium`` (row, column, 0-based) would show a coloured square if it were empty,
    unlike the plain squares in line with it: it is also measured against the plain squares
    around it and the nearest other empty premium square (the nearer of the two), and the
    larger of that and the in-line figure is its distance from the board. A blank on a
    double-letter square between cream squares and a dark triple-letter one is so found; a bare
    premium square is near the other premium squares of its colour.

    With ``tile_like`` (float32 (n, n): how much nearer a cell's face colour is to the lettered
    tiles' than to the squares around it, the tiles' colour the nearer of the set's and that of
    the tiles near the cell: :func:`_tile_like_figures`, the near whole-colour figure, the trust
    check's own), a cell whose colour is plainly the squares' (``trust.TILE_LIKE_MAX`` or under,
    the trust check's line for a cell that looks like a tile) is not a blank, whatever its
    border: a bare square beside a tile has the tile's shadow and edge in its border. Measured
    on the bench's Scrabble renders, 72 new ones and the real photos, given and found: the 322
    blanks found all had 0.4 or more; 14 of the 19 bare squares taken for blanks had -3.4 or
    less (-6.2 for real board 1's, below its G; five at a confidence of 0.997, enough for a
    trusted reading). Until the twenty-second round the tiles' colour was the set's alone:
    under a lamp's ramp (0.8 to 1.05 of the light across the photo), real board 1's blank in
    its left column lies at the dark end, down to -7.1 against the set's tiles (-2.1 to +0.8
    against the tiles near it), and was read empty; only 4 of the 36 readings of the board so
    lit were perfect. Against the nearer of the two: 27 of those 36; the real photos' 216
    readings perfect 174 -> 197, trusted 142 -> 161, none wrong (a bare square in the shadow of
    board 1's G, -1.9 against the tiles near it, is now taken for a blank in doubt once, the
    reading refused). On 6032 Scrabble renders' readings (seeds 110000-143143, every kind),
    perfect 4523 -> 4525, trusted as before, none wrong; 18 changed by a cell either way, 16 of
    them of the pale kind.

    With ``hue_like`` (float32 (n, n), the same figure from the hue alone:
    :func:`_tile_like_and_hue`), a cell whose hue is plainly the squares' is not a blank either:
    a cream square among tiles of nearly its colour, the board's squares around it too far to
    compare, was found a blank at raw evidence 0.71 (a confidence of 0.997) and the reading
    trusted wrong; its hue was -4.0, the whole colour's +7.0. On the bench's Scrabble renders
    and the real photos, given and found, the 385 blanks found had a hue figure of 1.5 or more;
    3 of the 4 bare squares taken for blanks had -2.5 or less.

    With ``blanks`` (the blanks a first search found, (row, column); left out of ``empty``),
    only the cells beside one of them are searched, and a blank beside one counts as beside a
    tile: blanks side by side (a set has two, and a word may hold both) were measured against
    "squares" that were the other blanks, and a blank with only blanks beside it was never
    looked at (read empty at a confidence of 0.998 in a trusted reading: render seed 90553 with
    3-6 blanks). The caller passes figures measured without the blanks among the squares.
    Measured on renders with 3-6 blanks (seeds 90000-90599, corners given and found), perfect
    readings 863 -> 924 of 1200, trusted 753 -> 802, none wrong; bare squares read wrong on
    every Scrabble set measured, 784 -> 785 (fourteenth round, docs/vision.md).

    With ``hues_told`` (the board's tiles and squares differ in hue: :func:`hues_apart` at
    ``HUE_APART`` or more), a blank whose hue figure is under ``BLANK_HUE_SURE`` (not nearer the
    tiles' hue than the squares') is found at no more than ``BLANK_HUE_READING``: in doubt; one
    whose hue figure is ``BLANK_HUE_CLEAR`` or more is found at no less than
    ``BLANK_HUE_CLEAR_READING``, however little nearer the tiles its whole colour is.

    Returns:
        {(row, column): confidence 0.5-1}, raw evidence before calibration.
    """
    if len(glyph_cells) < 3 or not empty:
        return {}

    def centre(r: int, col: int) -> np.ndarray:
        return feature[r, col]

    def even(r: int, col: int) -> bool:
        return float(evenness[r, col]) < 10.0  # no printed label, no grid line crossing it

    tiles = np.array([centre(r, col) for r, col in glyph_cells])
    glyphs = np.array(glyph_cells)
    tile_model = np.median(tiles, axis=0)
    spread = np.median(np.linalg.norm(tiles - tile_model, axis=1)) + 4.0
    cols = np.array([centre(r, col) for r, col in empty])
    board_model = np.median(cols, axis=0)
    found = {}
    where = np.array(empty)
    lettered = set(glyph_cells) | set(blanks)
    on_premium = trust.premium_layout(premium, feature.shape[0])[where[:, 0], where[:, 1]]
    every = np.ones(len(cols), bool)
    for (r, col), v in zip(empty, cols, strict=True):
        # a blank is part of a word: it has a lettered tile beside it, across or down
        beside = {(r - 1, col), (r + 1, col), (r, col - 1), (r, col + 1)}
        if not lettered & beside or (blanks and not blanks & beside):
            continue
        if tile_like is not None and tile_like[r, col] <= trust.TILE_LIKE_MAX:
            continue  # coloured like the squares round it, not like the tiles
        if hue_like is not None and hue_like[r, col] <= trust.TILE_LIKE_MAX:
            continue  # the squares' hue, whatever its lightness
        # light falls off across a board, and the tiles' faces with it: the cell is measured
        # against the set's tiles and against the tiles near it (the mean of the two distances)
        d_tile = float(np.linalg.norm(v - tile_model))
        nearby = np.abs(glyphs - (r, col)).max(axis=1) <= LOCAL_TILES
        if nearby.sum() >= 3:
            d_tile = 0.5 * (d_tile + float(np.linalg.norm(v - np.median(tiles[nearby], axis=0))))
        # the board's squares nearby: light falls off across a board (and a frame's shadow
        # darkens its edge rows), so compare with the squares in line with it first
        off = np.abs(where - (r, col))
        inline = (off.min(axis=1) == 0) & (off.max(axis=1) > 0) & (off.max(axis=1) <= 3)
        near = (off.max(axis=1) <= 2) & (off.max(axis=1) > 0)
        # a plain square among the plain squares (when there are any): a coloured premium
        # square in line with it is unlike the board by design
        among = every if (r, col) in premium or on_premium.all() else ~on_premium
        d_board = float(np.linalg.norm(v - _squares_near(cols, inline, near, among, board_model)))
        if (r, col) in premium:
            plain = _squares_near(cols, inline, near, ~on_premium, board_model)
            others = on_premium & (off.max(axis=1) > 0)
            d_plain = float(np.linalg.norm(v - plain))
            d_other = (
                float(np.linalg.norm(cols[others] - v, axis=1).min()) if others.any() else np.inf
            )
            d_board = max(d_board, min(d_plain, d_other))
        if d_tile < 1.5 * spread and d_tile < BLANK_DOUBT_RATIO * d_board and even(r, col):
            # how much nearer the tiles than the squares, against a noise floor: a tile nearly
            # the board's colour gives a weak figure however the two compare
            margin = (d_board - d_tile) / (d_board + d_tile + 10.0)
            found[(r, col)] = float(0.5 + 0.5 * min(1.0, max(0.0, margin)))
            if d_tile >= BLANK_RATIO * d_board:
                # nearer the tiles, but not by much: a blank more likely than not, in doubt
                found[(r, col)] = min(found[(r, col)], BLANK_HUE_READING)
            if hues_told and hue_like is not None:
                if hue_like[r, col] < BLANK_HUE_SURE:
                    # the hue not the tiles': a square in a shadow as likely as a blank
                    found[(r, col)] = min(found[(r, col)], BLANK_HUE_READING)
                elif hue_like[r, col] >= BLANK_HUE_CLEAR:
                    # only a little nearer the tiles in the whole colour, but plainly of the
                    # tiles' hue: the hue, a witness the lightness of a shadow or a lamp does
                    # not sway, says it is a tile
                    found[(r, col)] = max(found[(r, col)], BLANK_HUE_CLEAR_READING)
    return found


# A letterless cell beside a tile is a blank when its distance from the tiles is under
# ``BLANK_RATIO`` of its distance from the squares around it; from there to ``BLANK_DOUBT_RATIO``
# it is read as a blank in doubt (raw evidence at most ``BLANK_HUE_READING``: under the blanks'
# trust level, so the reading is not trusted). Missed blanks (read empty, the reading refused
# for an empty cell that looks like a tile) mostly lay at 0.6-0.72. Measured with the search at
# 0.7 (seventeenth round, corners given and found; boards perfect, cells wrong): the real
# photos at 600-1500 pixels, blurred and under a lamp's ramp, 159 -> 174 of 216, 70 -> 55 (15
# readings better, none worse); Scrabble renders with the set's two blanks (seeds
# 115000-115143) 215 -> 228 of 288, 173 -> 165; every kind (110000-110179) 259 -> 261 of 360;
# 3-6 blanks (111000-111119) 207 -> 218 of 240, 69 -> 51. No reading's trust changed. Read
# worse: 8 readings, pale, glared or dark, a bare square taken for a blank in doubt. At 0.8,
# more cells wrong on both sets of renders (168 and 1439)
BLANK_RATIO = 0.6
BLANK_DOUBT_RATIO = 0.7

# Lab (:func:`trust.tile_separation`): the blanks are looked for on a board whose lettered tiles
# stand this far from its squares or more. Under ``trust.TILE_BOARD_MIN`` (9) the reading is
# never trusted (a blank, or a tile whose letter was missed, may look empty), but its blanks are
# still read: with the search off there, they were read as empty cells. Measured on Scrabble
# renders, corners given and found (seventeenth round): with exactly the set's two blanks
# (seeds 115000-115143, six kinds) boards perfect 167 -> 215 of 288, cells wrong 286 -> 173;
# seeds 110000-110179 (every kind) 234 -> 259 of 360, 1475 -> 1441; with 3-6 blanks (seeds
# 111000-111119) 188 -> 207 of 240, 193 -> 69; no reading trusted or refused otherwise. Under
# 6, tiles nearly the squares' colour (the pale kind), bare squares were taken for blanks more
# often than blanks were found
BLANK_SEARCH_MIN = 6.0
RELAXED_CONTRAST = 25  # a cell coloured like the tiles is searched for a letter down to this
NEAR_MISS_CONTRAST = 10  # any cell this close under the letter contrast is searched again
# A plain square (no printed label) read empty whose middle has a contrast
# (:func:`~companion.vision.glyphs.cell_contrasts`, 8-bit) of ``INKED_CONTRAST`` or more, and
# ``INKED_SHARE`` or more of the median contrast of the board's letters, holds ink as dark as a
# letter's: a tile whose letter the finder refused. It is read empty with no evidence (raw 0),
# never trusted. A bold, wide M, its strokes merged into a patch thicker than a letter's stroke
# (``glyphs.MAX_HALF_STROKE``), was read empty at a confidence of 0.99996 in a trusted reading
# (render seed 90118 with 3-6 blanks). The share keeps out a hotspot's glare falling off across
# a dark Iago square (contrast 94-111, the letters' 149: three trusted readings of seeds
# 100000-100359 would have been lost). Measured on the bench's renders (Scrabble seeds
# 100000-100359 and 90000-90199 with 3-6 blanks, Iago seeds 100000-100359; corners given and
# found, the bumped camera's aside), the squares taken are 113 Scrabble and 266 Iago tiles
# whose letter was not found, and 48 Scrabble and 216 Iago bare squares, all on readings not
# trusted already (nine in ten on a grid cut by the photo's edge); on the real photos,
# none (real board 1's tall tiles reach into the squares beside them at 57-84, under the
# share)
INKED_CONTRAST = 70
INKED_SHARE = 0.8
# a letter found only at a lower contrast has at least this share of the contrast of the board's
# letters found at the usual one (their median): on the bench's photos such letters had 0.65 or
# more; a glyph found in a blank's wood grain or a tile's shadow, 0.41 or less
RELAXED_INK_SHARE = 0.5


def _neighbourhood_median(
    values: np.ndarray, valid: np.ndarray, reach: int = 2, inline: bool = False, least: int = 3
) -> np.ndarray:
    """For every cell, the median of ``values`` (float32 (n, n, k)) over the valid cells within
    ``reach`` cells all round (``inline``: only in its row and column), the cell itself left
    out; NaN where under ``least`` are valid."""
    n = values.shape[0]
    pad = np.full((n + 2 * reach, n + 2 * reach, values.shape[2]), np.nan, np.float32)
    pad[reach : reach + n, reach : reach + n] = np.where(valid[..., None], values, np.nan)
    stack = [
        pad[reach + dr : reach + dr + n, reach + dc : reach + dc + n]
        for dr in range(-reach, reach + 1)
        for dc in range(-reach, reach + 1)
        if (dr, dc) != (0, 0) and (not inline or dr == 0 or dc == 0)
    ]
    stack = np.stack(stack)
    enough = (~np.isnan(stack[..., 0])).sum(axis=0) >= least
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(stack, axis=0)
    med[~enough] = np.nan
    return med


def _tile_like(
    colours: np.ndarray,
    lettered: np.ndarray,
    empty: np.ndarray,
    premium: frozenset[tuple[int, int]] = frozenset(),
) -> np.ndarray:
    """For each cell, how much nearer its colour (Lab, weighed ``LAB_WEIGHT``) is to the lettered
    tiles' than to the board's empty squares around it (:func:`_tile_like_and_hue`, the first);
    float32 (n, n), -inf everywhere with under 3 lettered tiles."""
    return _tile_like_and_hue(colours, lettered, empty, premium)[0]


def _tile_like_and_hue(
    colours: np.ndarray,
    lettered: np.ndarray,
    empty: np.ndarray,
    premium: frozenset[tuple[int, int]] = frozenset(),
    near: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """For each cell, how much nearer its colour (Lab, weighed ``LAB_WEIGHT``) is to the lettered
    tiles' than to the board's empty squares around it (in its row and column within three
    cells, else within two all round, else the board's) (> 0: nearer the tiles); and the same
    from the hue alone (Lab a and b, lightness left out: a shadow darkens a square without
    making it the tiles' hue). Two float32 (n, n), -inf everywhere with under 3 lettered tiles.

    A plain square is compared with the plain squares around it only, when there are 3 or more:
    the premium squares are another colour by design, and a dark triple-letter square in line
    with a cream square would make the cream one look unlike the board.

    With ``near``, the tiles' colour is the nearer of the set's (median) and that of the
    lettered tiles within ``LOCAL_TILES`` cells (3 or more): light falls off across a board,
    and a shadow darkens a corner's tiles and squares alike. A blank in a corner's shadow, on a
    triple-word square (lightness 163 against the set's tiles' 213, the tiles beside it 184),
    was 3.7 nearer the squares than the set's tiles and read empty in a trusted reading; it is
    2.0 nearer the tiles beside it (the trust check's figure, :func:`tile_like_cells`). Both
    at once, the squares around each cell measured once: :func:`_tile_like_figures`.

    Args:
        colours: float32 (n, n, 3), the cells' face colours (:func:`trust.cell_colours`).
        lettered, empty: bool (n, n).
        premium: the profile's premium squares, (row, column) 0-based.
    """
    return _tile_like_figures(colours, lettered, empty, premium)[1 if near else 0]


def _tile_like_figures(
    colours: np.ndarray,
    lettered: np.ndarray,
    empty: np.ndarray,
    premium: frozenset[tuple[int, int]] = frozenset(),
    tiles_near: np.ndarray | None = None,
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """:func:`_tile_like_and_hue`'s figures (whole colour, hue) against the set's tiles, and
    against the nearer of the set's and the tiles near each cell: ((whole, hue), (near whole,
    near hue)), each float32 (n, n). ``tiles_near``: the near tiles' colours (weighed), when
    already measured."""
    n = colours.shape[0]
    weighed = colours * LAB_WEIGHT
    if tiles_near is None:
        tiles_near = _neighbourhood_median(weighed, lettered, reach=LOCAL_TILES, least=3)
    if premium:
        plain = ~trust.premium_layout(premium, n)
        if (plain & empty).sum() >= 3:
            every = _tile_like_figures(colours, lettered, empty, tiles_near=tiles_near)
            on_plain = _tile_like_figures(colours, lettered, empty & plain, tiles_near=tiles_near)
            return tuple(
                tuple(np.where(plain, p, e) for p, e in zip(op, ev, strict=True))
                for op, ev in zip(on_plain, every, strict=True)
            )
    if lettered.sum() < 3 or not empty.any():
        none = np.full((n, n), -np.inf, np.float32)
        return (none, none.copy()), (none.copy(), none.copy())
    colours = weighed
    tile_model = np.median(colours[lettered], axis=0)
    # the squares in line with the cell first (light falls off across a board, and a frame's
    # shadow darkens its edge rows), else those all round, else the board's
    local = _neighbourhood_median(colours, empty, reach=3, inline=True, least=2)
    around = _neighbourhood_median(colours, empty)
    overall = np.median(colours[empty], axis=0)
    local = np.where(np.isnan(local), around, local)
    local = np.where(np.isnan(local), overall, local)
    by_set, by_near = [], []
    for channels in (slice(0, 3), slice(1, 3)):
        d_board = np.linalg.norm(colours[..., channels] - local[..., channels], axis=2)
        d_tile = np.linalg.norm(colours[..., channels] - tile_model[channels], axis=2)
        d_near = np.linalg.norm(colours[..., channels] - tiles_near[..., channels], axis=2)
        by_set.append((d_board - d_tile).astype(np.float32))
        # (NaN where under 3 tiles are near: the set's)
        by_near.append((d_board - np.fmin(d_tile, d_near)).astype(np.float32))
    return (by_set[0], by_set[1]), (by_near[0], by_near[1])


# Lab a and b: the lettered tiles' hue (median) at least this far from the empty squares' lets
# the hue speak for a square darkened to the tiles' lightness; a cell whose hue figure is this
# many units nearer the squares' (or more) is a square by its hue (SQUARE_HUE). At -5, the square
# in real board 3's bottom row, in the frame's shadow and under a lamp's ramp, was a square by 4.1
# only and held back 25 readings otherwise right (nineteenth round). From -5 to -4, on Scrabble
# renders (seeds 110000-110179, 111000-111119, 115000-115143, 124000-124179, 125000-125119, corners
# given; 744 photos): 352 cells so judged, of the tiles by the whole colour, on boards whose hues
# stand 6 apart, 348 bare squares and 4 tiles on photos cut or bumped (each refused for it). On the
# 3656 Scrabble readings of the round before, and 360 Iago ones, no reading changed; on the real
# photos (216 readings), 127 -> 142 trusted, none wrong. The hue is judged by both figures, the
# set's tiles' and the near tiles' (``_colour_or_hue``)
HUE_APART = 6.0
SQUARE_HUE = -4.0


def _colour_or_hue(
    colours: np.ndarray,
    lettered: np.ndarray,
    tile_like: np.ndarray,
    hue_like: np.ndarray,
    near_hue: np.ndarray | None = None,
) -> np.ndarray:
    """The tile-likeness an empty cell's evidence is measured by (float32 (n, n), Lab units, >
    0: nearer the tiles): the whole colour's (``tile_like``), or the hue's (``hue_like``) where
    that is lower and plainly the squares' (``SQUARE_HUE`` or under) on a board whose tiles
    and squares differ in hue (``HUE_APART``): a shadow (a frame's, along real board 3's
    bottom row) darkens a square to the tiles' lightness without giving it their hue, and the
    whole colour then took a bare square for a tile (raw evidence 0, confidence 0.79). Under a
    lamp's ramp, darker still, that square's hue figure was -4.1 (``SQUARE_HUE`` is -4).

    With ``near_hue`` (the hue figure against the nearer of the set's tiles and the tiles near
    the cell: :func:`_tile_like_figures`), the hue must be plainly the squares' by both: a
    blank read empty on a double-word square (render seed 100276, bold) was 4.4 nearer the
    squares' hue than the set's tiles', but only 2.6 nearer than the tiles beside it, and
    judged by the set's hue alone it was read empty at a confidence of 0.998 (the reading was
    refused, the trust check's tile-like cells comparing it with the tiles near it too).

    Measured on the bench's Scrabble renders and 800 blank-rich ones, corners given (137347
    empty cells, 861 read wrong): of the cells tile-like by the whole colour (over
    ``trust.TILE_LIKE_MAX``) and by their hue plainly squares, 1346 lie on boards whose hues
    are 6 apart or more, none of them read wrong; the missed tiles with such a hue (down to
    -5.5) lay on boards whose hues were 5.5 apart or less.

    Args:
        colours: float32 (n, n, 3), the cells' face colours, Lab.
        lettered: bool (n, n), the cells read as letters.
        tile_like, hue_like: float32 (n, n), :func:`_tile_like_and_hue`.
        near_hue: float32 (n, n), the hue figure by the tiles near each cell too, or None.
    """
    if hues_apart(colours, lettered) < HUE_APART:
        return tile_like
    # (the near figure is never less tile-like than the set's: the nearer of two models)
    hue = hue_like if near_hue is None else np.maximum(hue_like, near_hue)
    return np.where(hue <= SQUARE_HUE, np.minimum(tile_like, hue), tile_like)


def hues_apart(colours: np.ndarray, lettered: np.ndarray) -> float:
    """How far the lettered tiles' hue (median Lab a and b) is from the other cells': Lab units;
    0 with under 3 lettered tiles or no other cell. ``colours``: float32 (n, n, 3), Lab;
    ``lettered``: bool (n, n)."""
    if lettered.sum() < 3 or lettered.all():
        return 0.0
    tiles = np.median(colours[lettered][:, 1:], axis=0)
    return float(np.linalg.norm(tiles - np.median(colours[~lettered][:, 1:], axis=0)))


@dataclass
class CellEvidence:
    """What the reader knows about each cell, besides what it read.

    Attributes:
        raw: float32 (size, size), 0-1: the raw evidence that the cell is read right (an empty
            cell: how far under the letter contrast and how unlike a tile; a letter: the share of
            agreeing neighbours and the distance margin; both lowered by glare).
        kind: int8 (size, size): index in ``trust.CELL_KINDS`` (empty, letter, blank).
        glare: float32 (size, size): share of the cell blown out by glare (0 where the grid
            lines round it are as dark as elsewhere: a white square clipped by the exposure,
            :func:`companion.vision.trust.lines_seen`).
        contrast: float32 (size, size): face-to-ink lightness of the cell's middle (after gain).
        gain: the exposure gain applied to a dim board (1: none).
        level: the board's brightest tenth before the gain, 8-bit lightness.
        softness: grid-line edge width in cells (:func:`companion.vision.trust.edge_width`).
        premium: the premium layout's fit by shift (:func:`companion.vision.trust.premium_fit`).
        premium_against: how much better the layout fits where it is than moved, on the cells
            the two disagree about (:func:`companion.vision.trust.premium_against_shifts`).
        tile_like: float32 (size, size): how much nearer a cell's colour is to the lettered
            tiles' than to the squares around it, Lab units (> 0: nearer the tiles).
        colours: float32 (size, size, 3): each cell's face colour, Lab
            (:func:`companion.vision.trust.cell_colours`).
        separation: how far the lettered tiles' face colour is from the empty squares', Lab
            (:func:`companion.vision.trust.tile_separation`; inf with too few of either).
        glyphs: the letters' glyphs found, [(row, column, Glyph)].
        hue_tile_like: float32 (size, size): as ``tile_like``, from the colour's hue alone (Lab
            a and b): a shadow darkens a square without making it the tiles' hue.
        chroma: how coloured the board is (:func:`companion.vision.trust.colourfulness`, 8-bit
            Lab chroma; 0 for a black-and-white photo).
        near_tile_like: ``tile_like`` and ``hue_tile_like`` measured against the nearer of the
            set's tiles and the tiles near the cell (:func:`_tile_like_and_hue` ``near``): the
            trust check's figures.
        faintest: 8-bit lightness: the faintest ink a letter of this set may have
            (``RELAXED_INK_SHARE`` of the letters' median contrast; 0 with under 3 letters).
        strokes: float32 (size, size): how dark the darkest strokes in the cell's middle are,
            8-bit lightness (:func:`companion.vision.glyphs.cell_strokes`); None where the set's
            blanks are not counted on (:func:`counted_blanks`), which alone uses them.
    """

    raw: np.ndarray
    kind: np.ndarray
    glare: np.ndarray
    contrast: np.ndarray
    tile_like: np.ndarray | None = None
    colours: np.ndarray | None = None
    gain: float = 1.0
    level: float = 255.0
    softness: float = 0.0
    premium: dict = field(default_factory=dict)
    premium_against: dict = field(default_factory=dict)
    separation: float = float("inf")
    glyphs: list = field(default_factory=list)
    hue_tile_like: np.ndarray | None = None
    chroma: float = float("inf")
    near_tile_like: tuple[np.ndarray, np.ndarray] | None = None
    faintest: float = 0.0
    strokes: np.ndarray | None = None


def _letter_evidence(share: float, margin: float) -> float:
    """A letter's raw evidence (0-1) from the neighbours' share and the distance margin
    (:meth:`~companion.vision.glyphs.LetterClassifier.classify_detail`): their mean, the margin
    full at ``MARGIN_FULL``."""
    return 0.5 * float(share) + 0.5 * min(1.0, float(margin) / MARGIN_FULL)


# the evidence at which a glyph without its point-value corner is a reading of its own
CUT_READING = 0.5
# the evidence at which a bold glyph read as one letter whole is the letter it reads without
# the corner
CUT_SURE = 0.9
# of a cell: half the widest stroke of a bold letter (the bench's bold renders' glyphs, 0.08
# to 0.11; the other kinds' Qs, 0.05-0.07, the dark photos' 0.08)
BOLD_HALF_STROKE = 0.075


def _bold(glyph: Glyph, cell_px: int) -> bool:
    """Whether ``glyph`` is drawn with bold strokes: half its widest stroke (the largest
    distance from its ink to the face, pixels) is ``BOLD_HALF_STROKE`` of a cell or more."""
    mask = np.pad(glyph.mask.astype(np.uint8), 1)
    return float(cv2.distanceTransform(mask, cv2.DIST_L2, 3).max()) >= BOLD_HALF_STROKE * cell_px


def _on_the_face(whole: Glyph, cut: Glyph, cell_px: int) -> bool:
    """Whether the piece :func:`~companion.vision.glyphs.point_value_cut` dropped from ``whole``
    (leaving ``cut``) lies on the tile's face, as a point value does: off the rim the letter
    finder cuts away (``RIM``, and a pixel more). A piece that reaches it is a grid line
    or a tile's edge, seen through a grid the camera has moved off (the bench's bumped renders:
    grid lines read as T or H, their cut glyphs surer of the same letter)."""
    drop = whole.mask & ~cut.mask
    side = drop.shape[0]
    edge = side - cell_margin(cell_px) - round(RIM * cell_px) - 2
    ys, xs = np.nonzero(drop)
    return bool(len(xs)) and int(xs.max()) < edge and int(ys.max()) < edge


# of a cell: a glyph whose centre lies this far off the cell's centre, across and down, lies in
# the cell's corner
CORNER_OFF = 0.2


def _in_a_corner(glyph: Glyph, cell_px: int) -> bool:
    """Whether ``glyph``'s box is centred ``CORNER_OFF`` of a cell or more off the cell's centre
    both across and down: a tile's rim and its shadow (an L in the corner), not the letter,
    which is printed in the middle of the tile. Such a glyph is never sure (``CUT_READING``).

    A wide, bold W, too wide for the letter finder's first look, left the tile's rim in the
    window's corner as the glyph, read L at raw evidence 1.0 in a trusted reading (render seed
    90454 with 3-6 blanks); a soft P so too (seed 100131, blur). Measured on the bench's
    renders (Scrabble seeds 100000-100359 and 90000-90599 with 3-6 blanks, Iago seeds
    100000-100359; corners given and found): outside the bumped camera's and the cut photos'
    readings (their grid off, never trusted), those two were the only glyphs so placed; on
    the real photos, whose letters stand up to 0.3 of a cell off along one axis (tall tiles,
    perspective), no glyph is off by more than 0.15 along both."""
    x, y, w, h = glyph.bbox
    half = glyph.mask.shape[0] / 2.0
    return min(abs(x + w / 2.0 - half), abs(y + h / 2.0 - half)) >= CORNER_OFF * cell_px


def _point_value_readings(
    found: list[tuple[int, int, Glyph]],
    letters: list[str],
    evidence: list[float],
    classifier: LetterClassifier,
    cell_px: int,
) -> tuple[dict[int, tuple[str, float]], dict[int, tuple[Glyph, np.ndarray]]]:
    """The glyphs read differently without the piece in their point value's corner
    (:func:`~companion.vision.glyphs.point_value_cut`): {index in ``found``: (letter, raw
    evidence)}; ``letters`` and ``evidence`` are the whole glyphs' (:func:`_letter_evidence`).
    When the cut glyph reads the same letter, surer (the digit only blurred it), the cell is as
    sure as the cut glyph, if the piece dropped lies on the tile's face (:func:`_on_the_face`);
    those glyphs are also returned, second, as {index: (the cut glyph, float64 (26,) its
    distance from each letter's nearest training glyph)}, for their shape to be measured
    without the digit (:func:`_shapes_told`).

    A glyph is in doubt when the glyph cut reads as another letter with evidence
    ``CUT_READING`` or more: the piece is the point value (an O or a G with its digit joined
    reads as Q) or the letter's own stroke (a Q's tail), and the reader cannot say which. The
    cell then reads the letter of the reading with more evidence (the cut one when they are as
    sure: a digit joined to a G or an O is a Q's tail to the pair discriminants, which may then
    be as sure of the Q as the cut glyph is of its letter; on the bench's renders, seeds
    100000-100359, two bold Os read as Q so), and its evidence is no more than
    ``CUT_READING``: never trusted. But a bold glyph (:func:`_bold`) read as another letter cut,
    at ``CUT_SURE`` or more, is that letter, as sure as the cut glyph: the opening that finds
    the pieces parts only thin joins, and a bold letter's strokes are too wide to be parted (a
    bold Q's tail is as wide as its bowl, a bold R's leg as its stem), so only a digit joined to
    the letter is cut away. A thin Q's tail may be opened off: that one stays in doubt. For a
    glyph read whole as a letter other than Q, the piece dropped must lie on the tile's face
    too (:func:`_on_the_face`): a grid line or a tile's edge seen through a moved grid is no
    point value. Until the twenty-second round only a glyph read Q whole was so judged: a bold
    R whose 1 joined its leg reads B whole (raw 0.86-0.94) and R cut (1.0), and the cell was
    capped at ``CUT_READING``, holding back readings otherwise right (render seeds 124069 and
    137177, bold). On 1740 Scrabble renders of every kind (seeds 110000-141179, 0-2 and 3-6
    blanks; corners given and found), 46 bold glyphs read as another letter cut at ``CUT_SURE``
    or more, every one the letter cut: 43 read Q whole, 3 Rs read B whole. On the 6032 readings
    of the round's sets, 4 more trusted (3 bold Rs, a plain render's M read H whole), none
    wrong.

    Measured, the same letter surer: on the bench's Scrabble renders (seeds 100000-100359, all
    kinds, corners given), 51 glyphs were read surer so; 50 right (8 raised from under 0.8 to
    0.8 or more: 6 bold Gs, Es, Cs and Xs), one wrong, a grid crossing read H seen through a bumped
    camera's grid (0.62 to 0.82; the grid is refused whole). Bold boards perfect and trusted,
    corners given: 25 of 36 instead of 21; found: 29 of 37 instead of 24 (31 and 31 with the
    Q's rule too). Read Q whole: on the
    same renders, the six glyphs read Q whole and another letter cut at 0.9 or more were three
    bold Os and three bold Gs, all cut at 1.0, with half-strokes of 0.08-0.10 of a cell; all 31
    Qs that lost a corner piece read Q cut too (one at 0.61).

    Measured on 1700 Scrabble renders (the bench's, seeds 100000-100359, and 3-6 blanks at seeds
    90000-90799, 95000-95399, 97000-97399; corners given): 271 glyphs lose a corner piece, 47
    of them read differently. 31 Gs and 6 Os read as Q with their digit joined read right
    without it (an O at evidence 1.0 in a trusted reading); 2 Qs whose tail was cut read O
    without it at evidence 0.0-0.22 (so not doubted); one G read as Q without its bar's corner,
    at 0.51 against 0.43 (doubted, and read wrong)."""
    cuts = [(i, point_value_cut(g, cell_px)) for i, (_, _, g) in enumerate(found)]
    cuts = [(i, g) for i, g in cuts if g is not None]
    if not cuts:
        return {}, {}
    cut_letters, cut_share, cut_margin, cut_nearest = classifier.classify_nearest(
        glyph_features([g for _, g in cuts])
    )
    out, blurred = {}, {}
    for (i, glyph), letter, sh, mg, near in zip(
        cuts, cut_letters, cut_share, cut_margin, cut_nearest, strict=True
    ):
        cut = _letter_evidence(sh, mg)
        whole = evidence[i]
        if letter == letters[i]:
            if cut > whole and _on_the_face(found[i][2], glyph, cell_px):
                # the digit only blurred the letter: as sure as the letter without it
                out[i] = (letter, cut)
                blurred[i] = (glyph, near)
            continue
        if cut < CUT_READING:
            continue
        if (
            cut >= CUT_SURE
            and _bold(glyph, cell_px)
            and (letters[i] == "Q" or _on_the_face(found[i][2], glyph, cell_px))
        ):
            # a bold letter whose digit joined it (an O or a G read as Q, an R as B): a bold
            # letter's own strokes, a Q's tail, an R's leg, stay in the cut
            out[i] = (letter, cut)
            continue
        out[i] = (letter if cut >= whole else letters[i], min(CUT_READING, max(cut, whole)))
    return out, blurred


# the share of a glyph's ink in its lower-right quarter unmatched by its mirror image
# (:func:`glyphs.tail_share`) from which a Q is told from an O by its tail, and the raw evidence
# such a Q has at least (the letter level's 0.8, and more). Of the Scrabble renders' Os
# (seeds 110000-110179, 124000-124179, 128000-128179 and 130000-130179, corners given; kinds
# not cut, glared or bumped: 1264), none had more than 0.049; of the Qs (1206), 5 had under
# 0.07; the real photos' Os 0.054 at most, their Qs 0.094 or more. The letter features (a
# 20-pixel HOG) barely see a short tail: the Qs read unsure there (26, raw 0.2-0.8) all had
# 0.07 or more, and they held back more good readings than any other letter
Q_TAIL = 0.07
# (mid-bin in the confidence table: the table is fitted in float64 and looked up in float32, and
# a float32 0.9 falls below the 0.9 edge in one and on it in the other)
Q_TAIL_READING = 0.925
# how much farther the nearest third letter (neither Q nor O) must be than the nearer of the two
# (a share of its distance) for the tail to speak: a soft G named Q by the O/Q discriminant, its
# nearest G about as near as its nearest O, has a spur as unlike its mirror as a tail (0.07-0.085
# on blurred renders: its third letter G 0.06-0.14 farther); the Qs 0.275 or more, one at 0.088
# (its third letter C)
Q_THIRD_CLEAR = 0.2
# the tail share (:func:`glyphs.tail_share`) under which an O is told from a Q by the want of a
# tail (such an O has raw evidence ``Q_TAIL_READING`` at least, as a tailed Q), about half
# ``Q_TAIL``. The O/Q pair holds an O in doubt while a Q lies nearly as near (``PLAIN_CLEAR``):
# Os on real boards 2 and 3, their nearest Q at 0.32-0.39 of the distance farther, showed
# 0.008-0.031 and held back six readings otherwise right. Measured on the cached renders of
# the twenty-fourth round (both profiles, every kind, corners given): of 6910 Qs, none under
# 0.060 in a photo not bumped or glared (a bold Iago Q's tail, which crosses its bowl, 0.081 or
# more; the real photos' Qs 0.094 or more); a glared Q's 0.014 (glare is asked), and a bumped
# grid's cells hold other letters
O_TAIL_MAX = 0.035


# the right opening (:func:`glyphs.right_opening`) from which a G is told from a Q or an O (such
# a G has raw evidence ``Q_TAIL_READING`` at least, as a tailed Q). The features see a bold G's
# bar where a Q's tail lies: of the Gs read unsure on the cached plain, labels and bold renders
# of the twentieth round (7, all bold, raw 0.09-0.88), five showed the opening (0.72-0.75) and
# two not (0.07-0.09: a thick stroke closes the gap); no O or Q of any render or real photo
# reached 0.25
G_OPEN = 0.5


def _shape_told(
    found: list[tuple[int, int, Glyph]],
    letters: list[str],
    nearest: np.ndarray,
    glare: np.ndarray,
    letter: str,
    alike: str,
    shows,
) -> set[int]:
    """The glyphs read ``letter`` that a measure of their shape tells from the letters
    ``alike``: indices into ``found``. Such a glyph's nearest other letter is one of ``alike``,
    its nearest letter outside ``letter`` and ``alike`` stands clear of them (``Q_THIRD_CLEAR``
    of its distance farther than the nearer of ``letter`` and that one: the pair decided it),
    its cell has no glare, and ``shows(glyph)`` is true.

    The Q told from the O by its tail (``glyphs.tail_share`` at ``Q_TAIL``): the third letter's
    clearance keeps out a G, whose spur lies where a Q's tail does and is as unlike its mirror
    (a soft G can be named Q by the O/Q discriminant); the glare, an O whose bowl glare eats
    unevenly (glared Os reach 0.137). The G told from the Q and the O by its opening
    (``glyphs.right_opening`` at ``G_OPEN``): the third letter's clearance keeps out a C, as
    open as a G.

    Args:
        found: (row, column, glyph) of the letters found.
        letters: the letter named for each.
        nearest: float64 (len(found), 26), the distance from each to the nearest training
            glyph of each letter (``LetterClassifier.classify_nearest``, which named them).
        glare: float32 (n, n), the cells' glare (:func:`trust.glare_cells`).
        letter: the letter read; alike: the letters told from it (each in ``LETTERS``).
        shows: Glyph -> bool, whether the glyph's shape is the letter's.
    """
    named = [i for i, read in enumerate(letters) if read == letter]
    own = LETTERS.index(letter)
    near = [LETTERS.index(ch) for ch in alike]
    told = set()
    for i in named:
        others = nearest[i].copy()
        others[own] = np.inf
        third = others.copy()
        third[near] = np.inf
        pair = min(nearest[i, own], others.min())
        clear = (third.min() - pair) / third.min() if np.isfinite(third.min()) else 1.0
        if (
            int(np.argmin(others)) in near
            and clear >= Q_THIRD_CLEAR
            and glare[found[i][0], found[i][1]] == 0
            and shows(found[i][2])
        ):
            told.add(i)
    return told


def _shapes_told(
    found: list[tuple[int, int, Glyph]], letters: list[str], nearest: np.ndarray, glare: np.ndarray
) -> set[int]:
    """The glyphs whose shape tells their letter (:func:`_shape_told`): a Q by its tail
    (``glyphs.tail_share`` at ``Q_TAIL``) from an O, an O by the want of one (under
    ``O_TAIL_MAX``) from a Q, a G by its opening (``glyphs.right_opening`` at ``G_OPEN``) from
    a Q or an O. Indices into ``found``; ``letters``, ``nearest`` and ``glare`` as
    :func:`_shape_told` takes them."""

    def told(letter: str, alike: str, shows) -> set[int]:
        return _shape_told(found, letters, nearest, glare, letter, alike, shows)

    return (
        told("Q", "O", lambda g: tail_share(g) >= Q_TAIL)
        | told("O", "Q", lambda g: tail_share(g) < O_TAIL_MAX)
        | told("G", "OQ", lambda g: right_opening(g) >= G_OPEN)
    )


def read_cells(
    warp: np.ndarray,
    profile: Profile,
    classifier: LetterClassifier | None = None,
    timings: dict[str, float] | None = None,
) -> tuple[list[str], np.ndarray, CellEvidence]:
    """Read every cell of a top-down board (from :func:`warp_board`).

    A dim board is first brightened (:func:`companion.vision.trust.exposure_gain`). A cell holds
    a letter when :func:`~companion.vision.glyphs.find_glyph` finds one; a cell without one whose
    colour is the lettered tiles' is searched again down to ``RELAXED_CONTRAST`` (a pale tile, a
    thin letter in a soft photo), but never under ``RELAXED_INK_SHARE`` of the contrast of the
    letters found at the usual one (a blank's wood grain, a tile's shadow on a square).

    Returns:
        (grid, confidence, evidence): rows of ``.``, letters and ``?``; float32 (size, size)
        calibrated confidence in 0-1 (:func:`companion.vision.trust.calibrated`); the evidence.
    """
    t0 = time.perf_counter()
    n, c = profile.size, profile.cell_px
    m = cell_margin(c)
    lab8 = cv2.cvtColor(warp, cv2.COLOR_BGR2Lab)
    gain, level = trust.exposure_gain(lab8[:, :, 0], n, c)
    if gain > 1.0:
        warp = np.clip(warp.astype(np.float32) * gain, 0, 255).astype(np.uint8)
        lab8 = cv2.cvtColor(warp, cv2.COLOR_BGR2Lab)
    lightness = np.ascontiguousarray(lab8[:, :, 0])
    glare = trust.glare_cells(lightness, n, c)
    # a white square clipped by the exposure, its grid lines as dark as elsewhere: no hotspot
    glare[trust.lines_seen(lightness, glare, n, c)] = 0.0
    lab = lab8.astype(np.float32)
    colours = trust.cell_colours(lab, n, c)
    feature, evenness = tile_features(lab, colours, n, c)
    cells = [["."] * n for _ in range(n)]
    raw = np.ones((n, n), np.float32)
    kind = np.zeros((n, n), np.int8)
    found: list[tuple[int, int, Glyph]] = []
    empty: list[tuple[int, int]] = []
    contrasts = cell_contrasts(lightness, n, c)

    def window(r: int, col: int) -> np.ndarray:
        y0 = c // 2 + r * c - m
        x0 = c // 2 + col * c - m
        return lightness[y0 : y0 + c + 2 * m, x0 : x0 + c + 2 * m]

    for r in range(n):
        for col in range(n):
            glyph = find_glyph(window(r, col), c) if contrasts[r, col] >= MIN_CONTRAST else None
            if glyph is None:
                empty.append((r, col))
            else:
                found.append((r, col, glyph))
    # a pale tile or a thin, soft letter: a letterless cell coloured like the tiles is searched
    # again at a lower contrast
    lettered = np.zeros((n, n), bool)
    for r, col, _ in found:
        lettered[r, col] = True
    # the lettered tiles near each cell (weighed): measured once, whatever the squares
    tiles_near = _neighbourhood_median(colours * LAB_WEIGHT, lettered, reach=LOCAL_TILES, least=3)
    (tile_like, hue_like), near_like = _tile_like_figures(
        colours, lettered, ~lettered, profile.premium, tiles_near
    )
    relaxed = set()
    # a cell whose contrast only just missed the letter contrast is searched again too, whatever
    # its colour (light ink on a tile coloured like its neighbours' squares)
    near_miss = contrasts >= MIN_CONTRAST - NEAR_MISS_CONTRAST
    again = (~lettered) & (((tile_like > 0) & (contrasts >= RELAXED_CONTRAST)) | near_miss)
    # one set's tiles share one ink: a letter found only at a lower contrast is as dark as the
    # others, less what softness or a pale face takes; a mark far fainter is the wood's grain
    # on a blank, or a tile's shadow on a square (with under 3 letters, the ink is not known)
    inks = [g.contrast for _, _, g in found]
    ink_median = float(np.median(inks)) if len(inks) >= 3 else 0.0  # 0: not known
    faintest = RELAXED_INK_SHARE * ink_median
    for r, col in zip(*np.nonzero(again), strict=True):
        floor = RELAXED_CONTRAST if tile_like[r, col] > 0 else MIN_CONTRAST - NEAR_MISS_CONTRAST
        glyph = find_glyph(window(int(r), int(col)), c, min_contrast=max(floor, faintest))
        if glyph is not None:
            found.append((int(r), int(col), glyph))
            empty.remove((int(r), int(col)))
            relaxed.add((int(r), int(col)))
    t1 = time.perf_counter()
    # an empty cell: how unlike a tile its colour is (a blank, a pale tile), less when its
    # contrast is near the letter contrast (a faded letter the finder only just missed)
    figure = _colour_or_hue(colours, lettered, tile_like, hue_like, near_like[1])
    unlike_tile = np.clip(0.5 - figure / 20.0, 0, 1)
    near_letter = np.exp(-(((contrasts - MIN_CONTRAST) / 12.0) ** 2))
    raw[:] = unlike_tile * (1.0 - 0.8 * near_letter)
    if found:
        clf = classifier or load_classifier(c, profile.name)
        feats = glyph_features([g for _, _, g in found])
        letters, share, margin, nearest = clf.classify_nearest(feats)
        whole = [_letter_evidence(sh, mg) for sh, mg in zip(share, margin, strict=True)]
        two_readings, blurred = (
            _point_value_readings(found, letters, whole, clf, c)
            if profile.point_values
            else ({}, {})
        )
        # (not a letter found only at a lower contrast: the line was measured on the others)
        low = {i for i, (r, col, _) in enumerate(found) if (r, col) in relaxed}
        told = _shapes_told(found, letters, nearest, glare) - set(two_readings) - low
        # a letter whose point value only blurred it (read the same without the digit): its
        # shape is measured on the glyph without the digit, which changes its box (until the
        # twenty-third round such a letter's shape was not asked: bold Gs so joined, their
        # opening plain without the digit, held back readings otherwise right, render seeds
        # 131082 and 143104; on the 6032 Scrabble readings of the round, seeds 110000-143143,
        # 2 more trusted, none wrong, no G or Q read wrong at Q_TAIL_READING)
        same = [i for i in blurred if i not in low]
        if same:
            cut_found = [(found[i][0], found[i][1], blurred[i][0]) for i in same]
            cut_nearest = np.array([blurred[i][1] for i in same])
            cut_told = _shapes_told(cut_found, [letters[i] for i in same], cut_nearest, glare)
            told |= {same[k] for k in cut_told}
        for i, ((r, col, glyph), letter, evidence) in enumerate(
            zip(found, letters, whole, strict=True)
        ):
            kind[r, col] = 1
            if i in two_readings:
                # a point value joined to the letter, or a stroke of the letter: either reading
                letter, evidence = two_readings[i]
            if i in told:
                # a Q's tail, a G's opening, seen in its shape, which the features barely see
                evidence = max(evidence, Q_TAIL_READING)
            if (r, col) in relaxed:
                # found only at a lower contrast: as sure as the contrast is near the usual
                evidence *= min(1.0, float(glyph.contrast) / MIN_CONTRAST)
            if _in_a_corner(glyph, c):
                evidence = min(evidence, CUT_READING)
            if profile.coloured_ink:
                y0 = c // 2 + r * c - m
                x0 = c // 2 + col * c - m
                win_bgr = warp[y0 : y0 + c + 2 * m, x0 : x0 + c + 2 * m]
                colour, cc = _ink_colour(win_bgr, window(r, col), glyph)
                cells[r][col] = letter if colour == "blue" else letter.lower()
                evidence = min(evidence, 0.5 + 0.5 * cc)
            else:
                cells[r][col] = letter
            raw[r, col] = evidence
    # a premium square's printed label read as a letter; each one found is a bare premium square
    # the others are compared with, so look again until none is found
    labels = _printed_labels(colours, kind, raw, profile.premium) if profile.premium else []
    while labels:
        for r, col in labels:
            # the square's own label, not a tile: as sure it is empty as the letter was unsure
            cells[r][col] = "."
            kind[r, col] = 0
            raw[r, col] = 1.0 - raw[r, col]
            empty.append((r, col))
        gone = set(labels)
        found = [f for f in found if (f[0], f[1]) not in gone]
        labels = _printed_labels(colours, kind, raw, profile.premium)
    separation = trust.tile_separation(feature, kind == 1, kind == 0)
    if profile.blank_tiles and separation >= BLANK_SEARCH_MIN:
        # (tiles that look like the squares: a blank would be a guess, so none is claimed; under
        # ``trust.TILE_BOARD_MIN`` the blanks are looked for, but the reading is not trusted)
        lettered_cells = [(r, col) for r, col, _ in found]

        def claim(blanks: dict[tuple[int, int], float]) -> None:
            """Read the cells of ``blanks`` ({(row, column): raw evidence}) as blanks."""
            for (r, col), bc in blanks.items():
                cells[r][col] = "?"
                raw[r, col] = bc
                kind[r, col] = 2

        told = hues_apart(colours, kind == 1) >= HUE_APART
        # (whether a cell is coloured like the squares, against the nearer of the set's tiles
        # and the tiles near it: light falls off across a board)
        blanks = _blank_tiles(
            feature, evenness, lettered_cells, empty, profile.premium, near_like[0], hue_like,
            hues_told=told,
        )  # fmt: skip
        claim(blanks)
        if blanks:
            # a blank found is a tile, not one of the squares around a cell: blanks side by
            # side made each other's squares (one read empty, its colour the tiles', looked
            # nearer its neighbours' than the tiles'). The figures are measured again without
            # them (the trust check's too), and the cells beside them searched again
            (_, again_hue), near_like = _tile_like_figures(
                colours, lettered, kind == 0, profile.premium, tiles_near
            )
            rest = [cell for cell in empty if cell not in blanks]
            more = _blank_tiles(
                feature, evenness, lettered_cells, rest, profile.premium, near_like[0], again_hue,
                frozenset(blanks), told,
            )  # fmt: skip
            claim(more)
            if more:
                _, near_like = _tile_like_figures(
                    colours, lettered, kind == 0, profile.premium, tiles_near
                )
        if gain >= BLANK_GAIN_MAX:
            # a dim frame brightened this much: the lens's fall-off and a frame's shadow darken
            # the outermost squares most, brightened with the rest, and a blank is told by its
            # colour alone
            doubt = (kind == 2) & _outermost(n)
            raw[doubt] = np.minimum(raw[doubt], BLANK_HUE_READING)
        # a blank in a frame's shadow: a bare square there is as dark as a tile, its hue all
        # that tells it, and a colour cast blurs the hue of dark cells most (``_shaded_rim``);
        # a blank whose hue is plainly the tiles' (``SHADED_HUE_CLEAR``) is told by it still
        doubt = (kind == 2) & _shaded_rim(colours, kind, profile.premium)
        doubt &= hue_like < SHADED_HUE_CLEAR
        raw[doubt] = np.minimum(raw[doubt], BLANK_HUE_READING)
    if profile.premium:
        # a letter on a face of a bare premium square's colour (the blanks found are not
        # bare), its ink under LABEL_INK_SHARE of the set's letters' (their median; with under
        # 3 letters, not known): the square's label read as a clear letter, in doubt
        ink = np.zeros((n, n), np.float32)
        for r, col, glyph in found:
            ink[r, col] = glyph.contrast
        faces = _label_faces(colours, kind, profile.premium) & (ink < LABEL_INK_SHARE * ink_median)
        raw[faces] = np.minimum(raw[faces], LABEL_FACE_READING)
        # a coloured premium square is unlike the plain squares around it, and so may seem
        # nearer the tiles: one that looks like the other bare premium squares is not
        # tile-like. Bare: the blanks found are left out, or two blanks on premium squares
        # would vouch for each other (a blank read empty at confidence 1.0 so, beside a
        # blank found on the other double-word square of its row). A printed label read as a
        # letter and put right (lettered at first) keeps the evidence it was given there
        like = (kind == 0) & ~lettered & trust.like_premium(colours, kind == 0, profile.premium)
        raw[like] = 1.0 - 0.8 * near_letter[like]
    # a plain square read empty whose middle holds ink as dark as a letter's: a tile whose
    # letter the finder refused (no evidence the square is bare)
    plain = ~trust.premium_layout(profile.premium, n) if profile.premium else True
    inked = max(INKED_CONTRAST, INKED_SHARE * float(np.median(inks))) if inks else INKED_CONTRAST
    raw[(kind == 0) & plain & (contrasts >= inked)] = 0.0
    # the set's blanks all found, on a board whose tiles stand far enough from its squares for
    # the count to hold (``tile_like_cells``): a cell read empty with no letter's ink in its
    # middle is no tile, whatever its colour says (``counted_bare``). Bare squares in a render's
    # corner shadow, nearer the tiles' colour than the squares' by 10-13 (raw evidence 0), held
    # back bold readings otherwise right (render seeds 115098 and 141042). On 3792 Scrabble
    # readings of boards holding at most a set's blanks (seeds 110000-143143, every kind,
    # corners given and found), 3 more were trusted, none wrong; of the cells read wrong, one
    # changed: a pale render's blank read empty beside a bare square taken for a blank (seed
    # 130025, refused for its glare), 0.9976 -> 1.0, over the empty cells' level before as after
    counted = counted_blanks(profile, separation)
    # (the strokes serve the count alone: not measured where it is not counted on)
    strokes = cell_strokes(lightness, n, c) if counted else None
    bare = counted_bare(kind, contrasts, strokes, faintest, counted)
    raw[bare] = np.maximum(raw[bare], 1.0 - 0.8 * near_letter[bare])
    # glare over a cell read empty may hide a tile's letter (a letter read is judged by itself)
    raw = np.where(kind == 0, raw * (1.0 - np.clip(glare * 5.0, 0.0, 1.0)), raw).astype(np.float32)
    raw = _lone_cells_bare(raw, kind, profile.name)
    conf = trust.calibrated(raw, kind)
    grid = ["".join(row) for row in cells]
    evidence = CellEvidence(
        raw,
        kind,
        glare,
        contrasts,
        tile_like=tile_like,
        colours=colours,
        gain=gain,
        level=level,
        hue_tile_like=hue_like,
        chroma=trust.colourfulness(lab8, n, c),
        near_tile_like=near_like,
    )
    evidence.softness = trust.edge_width(lightness, n, c)
    evidence.separation = separation
    evidence.glyphs = found
    evidence.faintest = faintest
    evidence.strokes = strokes
    if profile.premium:
        is_empty = np.array([[ch == "." for ch in row] for row in grid])
        evidence.premium = trust.premium_fit(colours, is_empty, profile.premium)
        evidence.premium_against = trust.premium_against_shifts(colours, is_empty, profile.premium)
    if timings is not None:
        timings["cells"] = t1 - t0
        timings["letters"] = time.perf_counter() - t1
    return grid, conf, evidence


# tile-likeness (Lab) over which an empty cell beside a tile, across or down, is in doubt
BESIDE_TILE_LIKE_MAX = -3.0


# the four cells beside a cell, across and down (the cell itself left out)
_RING = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], np.uint8)


def _beside(cells: np.ndarray) -> np.ndarray:
    """Which cells have one of ``cells`` (bool (n, n)) beside them, across or down: bool (n, n)
    (the cell itself not counted)."""
    return cv2.dilate(cells.astype(np.uint8), _RING) > 0


def lone_tiles(kind: np.ndarray) -> np.ndarray:
    """The tiles read (a letter or a blank) with no other tile beside them, across or down:
    bool (n, n). ``kind``: int (n, n), index in ``trust.CELL_KINDS``.

    Every tile lies in a word of two letters or more (Iago's rulebook, "The Move": words are
    "connected ... vertically or horizontally - as in a crossword puzzle"; Scrabble's the same),
    so a lone tile is a move against the rules (Iago's table warns of it: ``disconnected``), or
    a tile beside it was read empty (a blank in a word of two, a pale tile), or the lone tile is
    a bare square read as one (render seed 128007, pale: a square read E). :func:`read_board`
    withholds trust for one on a profile with blank tiles (Scrabble: a blank read empty is the
    usual cause, and no move is checked); on Iago a lone tile read surely is left to the
    table's rule check. On 4882 Scrabble renders' readings of the twentieth round (seeds
    110000-139143 but 131000-131119, every kind, corners given and found; every rendered tile
    has another beside it) it held for none of the 3664 read right and for 380 of the 1218 read
    wrong; 20 of those were refused otherwise only for 1-3 cells that look like a tile.
    """
    tiles = kind != 0
    return tiles & ~_beside(tiles)


def _lone_cells_bare(raw: np.ndarray, kind: np.ndarray, profile: str) -> np.ndarray:
    """The raw evidence with the game's word rule applied to the empty cells in doubt: float32
    (n, n). Every tile lies in a word of two letters or more, across or down, so a tile has
    another beside it (Iago's rulebook, "The Move": "all subsequent words must be connected to
    this first word, or to each other - vertically or horizontally - as in a crossword puzzle";
    Scrabble's the same, a blank too). An empty cell in doubt (its calibrated confidence under
    the empty cells' trust level: ``trust.unsure_cells``) with nothing beside it but bare
    squares read sure is no tile: a tile there would stand alone. It is as sure as the least sure of them (a tile
    there needs one of them to be a tile too). A cell in doubt beside another in doubt, or
    beside a tile, keeps its evidence (a whole word can lie in a corner's shadow or under glare).

    Args:
        raw: float32 (n, n), 0-1, the cells' raw evidence.
        kind: int (n, n), index in ``trust.CELL_KINDS``.
        profile: the profile's name, whose trust levels say which cells are in doubt.
    """
    doubt = (kind == 0) & trust.unsure_cells(trust.calibrated(raw, kind), kind, profile=profile)
    lone = doubt & ~_beside((kind != 0) | doubt)
    # (the border counts as sure: erosion pads with the largest value)
    return np.where(lone, np.maximum(raw, cv2.erode(raw, _RING)), raw).astype(np.float32)


def tile_like_cells(
    ev: CellEvidence, premium: frozenset[tuple[int, int]], set_blanks: int = 0
) -> np.ndarray:
    """The empty cells that look like a tile (a blank the blank finder did not take, a pale
    tile whose letter was not seen): bool (size, size), true where a cell read empty is nearly
    as near the lettered tiles' colour as the squares' around it, or nearer (``tile_like``
    over ``trust.TILE_LIKE_MAX``), in its hue too (``hue_tile_like``, when the reader gave
    it), and, on a premium square, is not coloured like the other empty premium squares
    (``trust.like_premium``).

    The hue is asked because a shadow darkens a square without making it the tiles' hue: on
    real board 3 the bottom row lies in the frame's shadow, its squares as dark as the tiles
    (tile-like by 6 to 20 in the whole colour, -6 to -8 in the hue), while its blanks are
    tile-like in both (+5 and +9 in the hue). Measured on the bench's renders (390 photos of
    both profiles, corners given and found: 780 readings): 233 trusted instead of 224, none
    wrong; on 180 more photos of each profile (seeds 60000-60179, 360 readings each): Scrabble
    53 trusted instead of 42, Iago 143 as before, none wrong.

    On a board whose tiles and squares differ in hue (:func:`hues_apart`, ``HUE_APART`` or
    more), a cell whose hue is nearer the tiles' by 2 or more (``-trust.TILE_LIKE_MAX``) is in
    doubt whatever its whole colour: a blank in a render's dark corner, as dark as the squares
    there (-11.6 in the whole colour, +6.0 in the hue), was read empty at confidence 1.0 in a
    trusted reading (new seeds 100000-100359, corners given and found).

    Both figures are the trust check's own (``near_tile_like``, when the reader gave it): the
    tiles' colour is the nearer of the set's and that of the tiles near the cell. On 800 new
    Scrabble renders with 3-6 blanks each (seeds 90000-90799, plain, labels, bold and dark:
    1600 readings), three blanks read as empty in five trusted readings, on premium squares at
    the board's edge (one in a corner's shadow, darker than the set's tiles but not than those
    beside it), were measured against the set's tiles only; none of those readings is trusted
    now, and 229 are instead of 235 (the bench's 504 readings: 165 instead of 166; the real
    photos' 42 readings at phone sizes: 13 as before).

    A cell beside a tile (across or down; a blank is part of a word, a bare square far from
    the tiles cannot be one) is doubted from ``BESIDE_TILE_LIKE_MAX`` in both figures, a unit
    under the others' line: a blank in a render's lit corner, lighter than the tiles beside it
    (-2.5 in the whole colour and -2.6 in the hue, by the tiles near it), was read empty at a
    confidence of 0.998 in a trusted reading, corners given and found (seed 90194 with 3-6
    blanks). On Scrabble renders with 3-6 blanks (seeds 90000-90599: 1200 readings, corners
    given and found) three readings with a blank read empty are no longer trusted (that one,
    and seed 90553's, -2.3 in both figures), nor four perfect ones; on the bench's seeds
    100000-100359 and the real photos, none changes.

    Two things the game says about its tiles clear a cell so doubted:

    - every tile lies in a word of two letters or more, across or down: a cell with neither a
      tile nor another doubted cell beside it is no tile (a blank beside a tile that was also
      read empty would leave that tile read wrong whatever this cell says);
    - a set holds ``set_blanks`` blanks (the profile's; Scrabble's two): with every one of them
      found, a doubted cell can only be a tile whose letter was missed, and one whose middle
      holds no ink a letter of the set could leave (its contrast under ``BARE_INK_SHARE`` of the
      letters' median, a little over the reader's own floor for a letter found at a lower
      contrast, ``ev.faintest``) is a bare square. On real board 1, tiles of nearly its squares' colour, with tiles' edges and
      shadows over the squares beside them, 20-43 squares were so doubted at every size; both
      blanks are found, and with this rule 7 of its 10 readings are trusted (its squares' ink
      was at most 0.52 of the letters'; the other three 0.53-0.58). On renders with 3-6
      blanks, more than a set holds, a board with two of them found may be wrong (2 of 400
      readings, seeds 90000-90199): those boards cannot happen at a table. The reader passes
      the count only for a board whose tiles stand ``trust.BLANKS_COUNTED_MIN`` or more from
      its squares: nearer, a bare square may be one of the blanks "found".

    Args:
        ev: the reading's evidence (:class:`CellEvidence`, ``tile_like`` set).
        premium: the profile's premium squares, (row, column) 0-based.
        set_blanks: the blanks a set holds (:attr:`Profile.set_blanks`); 0 when not known, or
            not to be counted on.
    """
    whole, hue = ev.near_tile_like or (ev.tile_like, ev.hue_tile_like)
    # a blank is part of a word: beside a tile (the tiles grown by a cross), a cell is doubted
    # from further off
    cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    beside = cv2.dilate((ev.kind != 0).astype(np.uint8), cross) > 0
    line = np.where(beside, BESIDE_TILE_LIKE_MAX, trust.TILE_LIKE_MAX)
    suspect = (ev.kind == 0) & (whole > line)
    if hue is not None:
        squares_hue = hue <= line
        if ev.colours is not None:
            # the hue clears a cell only if it lies outside the lettered tiles' own hues
            squares_hue &= ~within_tiles_hue(ev.colours, ev.kind == 1)
        suspect &= ~squares_hue
        if ev.colours is not None and hues_apart(ev.colours, ev.kind == 1) >= HUE_APART:
            # tiles and squares differ in hue: a cell of the tiles' hue is in doubt whatever
            # its lightness (a blank in a dark corner, as dark as the squares there)
            suspect |= (ev.kind == 0) & (hue >= -trust.TILE_LIKE_MAX)
    if premium and ev.colours is not None:
        # a coloured premium square is unlike the plain squares around it: it looks like a
        # tile only if it is nearer the tiles than the other premium squares too
        suspect &= ~trust.like_premium(ev.colours, ev.kind == 0, premium)
    # a tile lies in a word: some tile, or some cell in doubt, is beside it across or down
    suspect &= _beside((ev.kind != 0) | suspect)
    return suspect & ~counted_bare(ev.kind, ev.contrast, ev.strokes, ev.faintest, set_blanks)


def counted_blanks(profile: Profile, separation: float) -> int:
    """The set's blanks a reading may count on (:func:`counted_bare`): the profile's
    ``set_blanks`` on a board whose lettered tiles stand ``trust.BLANKS_COUNTED_MIN`` or more
    from its squares (``separation``, Lab: :func:`trust.tile_separation`), else 0: nearer, a
    bare square may be one of the blanks "found"."""
    return profile.set_blanks if separation >= trust.BLANKS_COUNTED_MIN else 0


def counted_bare(
    kind: np.ndarray,
    contrast: np.ndarray,
    strokes: np.ndarray | None,
    faintest: float,
    set_blanks: int,
) -> np.ndarray:
    """The cells read empty that the set's count of blanks shows are bare squares: bool (n, n).
    With every one of the set's ``set_blanks`` blanks found (``kind`` 2; no more, no fewer), a
    cell read empty that is a tile can only be a tile whose letter was missed, and one whose
    middle holds no ink a letter of the set could leave (``contrast`` under ``BARE_INK_SHARE``
    of the letters' median, ``faintest`` being ``RELAXED_INK_SHARE`` of it; or ``strokes``
    under ``BARE_STROKE_SHARE`` of the letters' median, with 3 letters or more) is a bare
    square. None when ``set_blanks`` is 0 (not known, or not to be counted on: the callers pass
    it only for a board whose tiles stand ``trust.BLANKS_COUNTED_MIN`` or more from its
    squares) or the letters' ink is not known (``faintest`` 0). ``kind``: int (n, n), index in
    ``trust.CELL_KINDS``; ``contrast`` and ``strokes`` (:func:`glyphs.cell_strokes`; None: not
    measured): float32 (n, n), 8-bit lightness."""
    if not set_blanks or int((kind == 2).sum()) != set_blanks or faintest <= 0:
        return np.zeros(kind.shape, bool)
    inkless = contrast < faintest / RELAXED_INK_SHARE * BARE_INK_SHARE
    if strokes is not None and int((kind == 1).sum()) >= 3:
        # or whose marks are no letter's strokes: the edge and shadow of the tiles beside it
        inkless |= strokes < BARE_STROKE_SHARE * float(np.median(strokes[kind == 1]))
    return (kind == 0) & inkless


# of the letters' median contrast: a cell read empty with less ink in its middle holds no letter
# of the set (``tile_like_cells``, once the set's blanks are all found). Of 46,799 letters read
# right (Scrabble renders seeds 110000-110179, 111000-111119 and 113000-113059, the real photos
# at 600-1500 pixels blurred by 0-1.2 pixels; corners given and found), the faintest had 0.61
# of its reading's median, one in a thousand under 0.71; of the 33 tiles whose letter the
# finder missed there, the faintest 0.70. The squares that real board 1's soft photos doubted
# (the tiles' edges over them) had up to 0.79, most under 0.46: at 0.5, 16 of the 36 such
# readings were cleared of every doubt; at 0.55, 26
BARE_INK_SHARE = 0.55
# of the letters' median strokes (:func:`glyphs.cell_strokes`): a cell read empty whose darkest
# marks are fainter strokes than this holds no letter either (``counted_bare``), whatever its
# contrast: the contrast there is the edge and shadow of the tiles beside it. On the real photos
# (216 readings, corners given and found) the squares the trust check doubted had up to 0.80 of
# the letters' contrast but 0.27 of their strokes at most, and the letters read right 0.62 or
# more; on 3016 cached Scrabble renders (every kind) the letters read right 0.30 or more (one
# in a thousand under 0.58), and of the tiles whose letter was missed, those under this line
# but over BARE_INK_SHARE of the contrast all lay at a cut photo's edge (refused for the cut).
# With it, real board 1's soft readings: trusted 167 -> 180 of the 216; the renders' as before
BARE_STROKE_SHARE = 0.3


# a cell's hue (Lab a and b) this many times the lettered tiles' spread of hues (the 90th
# percentile of their distances from their median hue) from their median, or nearer, is a hue
# some tile of the set has: it does not show the cell is a square
TILE_HUE_SPREAD = 1.6


def within_tiles_hue(colours: np.ndarray, lettered: np.ndarray) -> np.ndarray:
    """Which cells' hue lies among the lettered tiles' hues: bool (n, n), true where a cell's
    Lab a and b are within ``TILE_HUE_SPREAD`` times the tiles' spread of hues (the 90th
    percentile of the distances of the lettered tiles' hues from their median) of that median;
    false everywhere with under 3 lettered tiles.

    A set's tiles differ in hue from one to the next (a rendered set by up to 7 Lab units, real
    board 3's by 3), and a blank's face is one of them: a blank read empty whose hue was 4-5.4
    nearer the squares' than the tiles' median (``hue_tile_like`` -4.2 to -5.4), but 6.3-7.6 from
    that median where the tiles' spread was 4.9-6.1, was taken for a bare square by its hue,
    and three readings were trusted wrong (Scrabble renders with 3-6 blanks, seeds 90000-90399).
    Real board 3's squares in its frame's shadow, which the hue tells from tiles, lie 2.8 or
    more times the spread away.

    Args:
        colours: float32 (n, n, 3), the cells' face colours, Lab (:func:`trust.cell_colours`).
        lettered: bool (n, n), the cells read as letters.
    """
    if lettered.sum() < 3:
        return np.zeros(lettered.shape, bool)
    hues = colours[..., 1:]
    median = np.median(hues[lettered], axis=0)
    spread = float(np.percentile(np.linalg.norm(hues[lettered] - median, axis=1), 90))
    return np.linalg.norm(hues - median, axis=2) <= TILE_HUE_SPREAD * spread


def cells_off_photo(corners: np.ndarray, size: int, shape: tuple[int, ...]) -> np.ndarray:
    """Which cells of the grid at ``corners`` the photo's edge cuts: bool (size, size), true
    where a corner of what the letter finder reads (the cell less its rim, ``glyphs.RIM``)
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


def _shift_corners(corners: np.ndarray, size: int, rows: int, cols: int) -> np.ndarray:
    """The corners of the grid moved ``rows`` cells down and ``cols`` cells right, along the
    grid's own perspective (float32 (4, 2))."""
    unit = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    hom = cv2.getPerspectiveTransform(unit, np.float32(corners))
    moved = unit + np.float32([cols, rows])
    return cv2.perspectiveTransform(moved.reshape(1, 4, 2), hom)[0].astype(np.float32)


def grid_problems(
    image: np.ndarray, corners: np.ndarray, profile: Profile, reduced=None, placed: bool = False
) -> list[str]:
    """What is wrong with the grid at ``corners`` in the photo, in words (empty: nothing):

    - its lines do not stand out at the corners' comb (:func:`~companion.vision.localise.
      grid_phase`: clarity under ``GRID_LINES_MIN``), or stand out best ``GRID_MOVED`` of a
      cell or more away from it: the camera or the board moved since the corners were set;
    - a full grid line lies one cell beyond one edge and not beyond the opposite one
      (:func:`~companion.vision.localise.beyond_sides`): the grid is one line off (a frame drawn
      round the grid shows a line beyond every edge and is not taken for one). Not said when
      ``placed``: the premium squares put the grid where it is beyond doubt
      (:data:`BEYOND_PREMIUM`);
    - no grid line crosses an outermost row or column (:func:`~companion.vision.localise.
      edge_bands` under ``EDGE_BAND_MIN``): the grid is one line off the other way, a label band
      and the frame's line taken for its last row and line. A band is judged when its side lies
      in the photo (a band the photo's edge cuts shows no line), though the edge cut another
      side: a grid found in a photo cut along its bottom row had the board's empty border for
      its top row, and was read a row off.
    """
    from companion.vision import localise

    grey, f = reduced if reduced is not None else localise.reduce(image)
    n = profile.size
    pts = np.float32(corners) * f
    problems = []
    dx, dy, clarity = localise.grid_phase(grey, pts, n)
    if clarity < GRID_LINES_MIN:
        problems.append("the grid's lines are not where the corners put them")
    elif max(abs(dx), abs(dy)) >= GRID_MOVED:
        problems.append(
            f"the grid's lines are {max(abs(dx), abs(dy)):.1f} of a cell from where the corners "
            "put them (camera or board moved)"
        )
    top, right, bottom, left = localise.beyond_sides(grey, pts, n)
    beyond = max(top - bottom, bottom - top, left - right, right - left) > GRID_BEYOND_MAX
    if beyond and not placed:
        problems.append("a grid line lies beyond the grid's edge: the grid may be one line off")
    elif any(
        inside and band < localise.EDGE_BAND_MIN
        for band, inside in zip(
            localise.edge_bands(grey, pts, n), localise.sides_inside(pts, grey.shape), strict=True
        )
    ):
        problems.append(
            "no grid line crosses the grid's outer row or column: the grid may be one line off "
            "(a frame or labels round the board)"
        )
    return problems


GRID_MOVED = 0.2  # of a cell: lines found this far from the corners' comb have moved
GRID_LINES_MIN = 1.25  # line response on the grid's lines over that between them
GRID_BEYOND_MAX = 0.6  # a line one cell beyond one edge, this much stronger than beyond the other
# The premium layout fits the grid as found better than moved one row and/or column each way by
# this much or more (:func:`~companion.vision.trust.premium_against_shifts`, its least figure;
# Lab), and the grid was not moved to get there: a line beyond one edge is then not the grid's,
# and does not put the grid in doubt. On the bench's Scrabble renders (seeds 100000-100359 and
# 90000-90399 with 3-6 blanks, corners given and found: 1520 readings), of the 40 readings with
# such a line, every grid one or more lines off had a least figure of 2.7 or less; the grids
# where they belong, 21.7-43.6 (a plain board's frame, a label band's line). Fifteen is five
# times ``trust.PREMIUM_MARGIN``.
BEYOND_PREMIUM = 15.0


def _blanks_over_the_set(
    conf: np.ndarray, kind: np.ndarray, set_blanks: int
) -> tuple[np.ndarray, str | None]:
    """More blanks read than a set holds: at least one of them is a bare square (or a tile)
    read as a blank, and the reading cannot say which.

    A Scrabble set holds two blanks (the rules' tile distribution; :attr:`Profile.set_blanks`).
    With ``k`` blanks read (``kind`` 2, int (n, n)) over a set's ``set_blanks``, each is right at
    best ``set_blanks / k`` of the time, so every blank's confidence (``conf``, float32 (n, n),
    0-1) is held to that, under any trust level. ``set_blanks`` 0 (not known, or not to be
    counted on) checks nothing.

    Returns:
        (confidence, problem): the confidence, float32 (n, n); the problem to report, or None.
    """
    blanks = kind == 2
    count = int(blanks.sum())
    if not set_blanks or count <= set_blanks:
        return conf, None
    held = np.where(blanks, np.minimum(conf, set_blanks / count), conf).astype(np.float32)
    return held, (
        f"{count} blanks read, but a set holds {set_blanks}: a square or a tile was read as a "
        "blank (or the set holds more)"
    )


def read_board(
    image: np.ndarray,
    profile: Profile | str = "iago",
    corners=None,
    tracker=None,
    net=None,
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

    Unless ArUco markers say which corner is which, a board whose letters stand turned in the
    photo (taken from its side, or from across it) is read the way they stand
    (:func:`companion.vision.glyphs.upright_turn`), and a note says so.

    Returns:
        A :class:`BoardReading` whose ``problems`` list what is in doubt and whose ``trusted``
        is true only when nothing is (:mod:`companion.vision.trust`).

    Raises:
        VisionError: the image is not a colour photo, or the corners are bad.
        BoardNotFoundError: no corners given and the board cannot be found.
    """
    from companion.vision import cells, localise, trust
    from companion.vision.cellnet import load_cellnet

    profile = get_profile(profile)
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
        shape = getattr(image, "shape", None)
        raise VisionError(f"image: expected a colour photo (H, W, 3) array, got shape {shape}")
    if image.dtype != np.uint8:
        raise VisionError(f"image: expected 8-bit pixels (uint8), got {image.dtype}")
    net = net or load_cellnet()
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
    grid, conf, ev, crops = cells.read_cells(warp, profile, net, timings)
    problems: list[str] = []
    notes: list[str] = []
    by_markers = how == "markers" or (tracker is not None and tracker.how == "markers")
    turn = 0
    if not by_markers:
        # photographed from another side of the board (markers say which corner is which):
        # the letters say how it stands, and it is read their way
        t_turn = time.perf_counter()
        turn = cells.upright_turn(net, crops, profile.size, profile)
        timings["turn"] = time.perf_counter() - t_turn
        if turn:
            pts = np.roll(pts, -turn, axis=0)
            if tracker is not None:
                tracker.corners = pts
            warp = warp_board(image, pts, profile)
            grid, conf, ev, crops = cells.read_cells(warp, profile, net, timings)
            notes.append(
                f"the board is turned {90 * turn} degrees clockwise in the photo: read the way "
                "its letters stand"
            )
    colourless = ev.chroma < trust.GREY_CHROMA
    if colourless:
        # said first: the colours it lacks are what the other checks (and a player) need
        told = "red ink from blue" if profile.coloured_ink else "the premium squares and blanks"
        problems.append(
            f"the photo has no colour (a black-and-white camera or setting?): {told} cannot be told"
        )
    placed = False  # the premium squares put the grid where it is beyond doubt
    if profile.premium and ev.premium and not colourless:
        # the coloured squares say where the grid is: one row or column off is put right
        best = max(ev.premium, key=ev.premium.get)
        here = ev.premium.get((0, 0), -np.inf)
        moved = best != (0, 0) and ev.premium[best] > max(here, 0.0) + trust.PREMIUM_MARGIN
        if moved:
            pts = _shift_corners(pts, profile.size, -best[0], -best[1])
            warp = warp_board(image, pts, profile)
            grid, conf, ev, crops = cells.read_cells(warp, profile, net, timings)
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
    glared = int(trust.glared_cells(ev.glare, ev.kind, conf).sum())
    if glared:
        problems.append(f"glare hides {glared} cell(s)")
    problems += cells.board_facts(grid, profile)
    level = net.trust_level
    unsure = (conf < level) & ~cut
    if unsure.any():
        problems.append(
            f"{int(unsure.sum())} cell(s) read with a confidence under what a trusted reading "
            f"needs ({trust.level_text(level)})"
        )
    reading = BoardReading(profile, grid, conf, pts, how, timings)
    reading.problems = problems
    reading.notes = notes
    reading.evidence = ev
    reading.turn = turn
    return reading
