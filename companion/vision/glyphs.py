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
import math
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.names import check_name, path_in
from companion.paths import data_dir
from companion.vision.errors import VisionError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MODEL_VERSION = 3

# Fonts the classifier learns from. FreeSans Bold is kept out on purpose: the synthetic photos are
# drawn with it, so the evaluation measures letters in a font the model has not seen.
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
)
SYNTHETIC_FONT = "freefont/FreeSansBold.ttf"
FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))

GLYPH_SIDE = 20  # pixels: the square a glyph is scaled into for features
MIN_CONTRAST = 55  # 8-bit lightness between a tile's face and its ink
MAX_HALF_STROKE = 0.15  # of a cell: half the widest stroke a letter may have


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
    c = cell_px
    a = round(0.2 * c)
    grid = lightness[c // 2 : c // 2 + size * c, c // 2 : c // 2 + size * c]
    cells = grid.reshape(size, c, size, c)[:, a : c - a, :, a : c - a]
    flat = cells.transpose(0, 2, 1, 3).reshape(size, size, -1)
    k = flat.shape[2]
    hi, lo = int(0.90 * (k - 1)), int(0.02 * (k - 1))
    part = np.partition(flat, (lo, hi), axis=2)
    return (part[:, :, hi].astype(np.float32) - part[:, :, lo]).astype(np.float32)


def find_glyph(lightness: np.ndarray, cell_px: int) -> Glyph | None:
    """Find the letter printed on a tile in one cell window, or None if there is none.

    Args:
        lightness: uint8 array (W, W), W = cell_px + 2 * cell_margin(cell_px): the lightness of
            the cell and a margin around it, from the warped top-down board.
        cell_px: side of a cell, pixels.

    The ink is what is darker than 42% of the way from the darkest pixels of the middle of the cell
    to its face (90th percentile there), so the softer shadows of tile edges stay out; the letter is the largest dark component that does not touch the window's
    edge (grid lines, tile gaps and neighbours' letters do), is 30-80% of a cell tall and wide and lies near
    the centre. Pieces overlapping it (broken strokes) join it; a point value beside it does not.
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
    if contrast < MIN_CONTRAST:
        return None
    threshold = dark + 0.42 * contrast
    mask = (lightness < threshold).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    centre = side / 2.0
    candidates = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if x == 0 or y == 0 or x + w >= side or y + h >= side:
            continue
        if h < 0.30 * cell_px or h > 0.80 * cell_px or w > 0.80 * cell_px:
            continue
        if area > 0.85 * w * h and w > 0.3 * cell_px:
            continue  # a filled patch (a square seen between light grid lines), not a letter
        cx, cy = x + w / 2.0, y + h / 2.0
        if abs(cx - centre) > 0.25 * cell_px or abs(cy - centre) > 0.25 * cell_px:
            continue
        candidates.append((area, i))
    best = -1
    for _, i in sorted(candidates, reverse=True):
        x, y, w, h, _ = stats[i]
        blob = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
        # a letter is drawn with strokes; a shadow or a patch of board is thick
        thick = cv2.distanceTransform(np.pad(blob, 1), cv2.DIST_L2, 3).max()
        if thick <= MAX_HALF_STROKE * cell_px:
            best = i
            break
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


def training_samples(
    cell_px: int = 48, variants: int = 8, seed: int = 7
) -> tuple[np.ndarray, np.ndarray]:
    """Features (float32 (n, d)) and letter indices (int32 (n,)) of rendered training glyphs.

    Each font's letter is drawn once, large (plain, with a point value, and bolder), then warped
    ``variants`` times to a cell window: size 42-62% of a cell, up to 7% of a cell off-centre,
    turned up to 6 degrees; then given a face and ink lightness, blur and noise."""
    rng = np.random.default_rng(seed)
    fonts = [p for p in (font_path(f) for f in TRAINING_FONTS) if p is not None]
    if not fonts:
        raise VisionError(
            "no training font found under /usr/share/fonts: install fonts-dejavu-core "
            "(and fonts-liberation, fonts-freefont-ttf, fonts-urw-base35)"
        )
    m = cell_margin(cell_px)
    side = cell_px + 2 * m
    big = 4 * side
    bold = np.ones((5, 5), np.uint8)
    feats, labels = [], []
    for font in fonts:
        for k, letter in enumerate(LETTERS):
            plain = _ink_map(letter, font, big, False)
            maps = (plain, _ink_map(letter, font, big, True), cv2.dilate(plain, bold))
            maps = [cv2.GaussianBlur(mp, (0, 0), 1.5) for mp in maps]
            for v in range(variants):
                ink_map = maps[v % 3]
                scale = side / big * rng.uniform(0.42, 0.62) / 0.52 * (1.3 * cell_px / side)
                rot = cv2.getRotationMatrix2D((big / 2, big / 2), float(rng.uniform(-6, 6)), scale)
                rot[:, 2] += side / 2 - big / 2 + rng.uniform(-0.07, 0.07, 2) * cell_px
                amount = cv2.warpAffine(ink_map, rot, (side, side), flags=cv2.INTER_LINEAR)
                face = rng.uniform(150, 245)
                ink = rng.uniform(0, face - 80)
                win = face - (face - ink) * amount
                sigma = rng.uniform(0.0, 1.1)
                if sigma > 0.3:
                    win = cv2.GaussianBlur(win, (0, 0), sigma)
                win = win + rng.normal(0, rng.uniform(0, 7), win.shape)
                glyph = find_glyph(np.clip(win, 0, 255).astype(np.uint8), cell_px)
                if glyph is None:
                    continue
                feats.append(glyph)
                labels.append(k)
    return glyph_features(feats), np.array(labels, np.int32)


# ----------------------------------------------------------------------------- the classifier


class LetterClassifier:
    """Names the letter of a glyph: PCA-reduced features (cv2.PCACompute), then a vote of the k
    nearest training glyphs (Euclidean distance, numpy).

    Build with :func:`load_classifier` (cached) rather than directly.
    """

    def __init__(self, feats: np.ndarray, labels: np.ndarray, k: int = 5, dims: int = 48):
        self.k = k
        feats = np.asarray(feats, np.float32)
        mean, vecs = cv2.PCACompute(feats, mean=None, maxComponents=dims)
        self.mean = mean
        self.vecs = vecs
        self._feats = feats
        self._labels = np.asarray(labels, np.int32)
        self._train = self._project(feats)
        self._norms = (self._train**2).sum(1)

    def _project(self, feats: np.ndarray) -> np.ndarray:
        return (np.asarray(feats, np.float32) - self.mean) @ self.vecs.T

    def classify(self, feats: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Letters and confidences (share of the k neighbours that agree, 0-1) for feature rows
        (float32 (n, d)). Returns ([], empty) for no rows."""
        if len(feats) == 0:
            return [], np.zeros(0, np.float32)
        q = self._project(feats)
        d = self._norms[None, :] - 2.0 * (q @ self._train.T)
        near = np.argpartition(d, self.k, axis=1)[:, : self.k]
        votes = self._labels[near]
        letters, conf = [], np.zeros(len(q), np.float32)
        for i, row in enumerate(votes):
            counts = np.bincount(row, minlength=len(LETTERS))
            # ties go to the nearest neighbour's letter
            best = counts.max()
            order = near[i][np.argsort(d[i, near[i]])]
            winner = next(int(self._labels[j]) for j in order if counts[self._labels[j]] == best)
            letters.append(LETTERS[winner])
            conf[i] = best / self.k
        return letters, conf

    def with_samples(self, feats: np.ndarray, labels: np.ndarray) -> LetterClassifier:
        """A classifier that also knows these samples (a user's own tiles)."""
        return LetterClassifier(
            np.vstack([self._feats, feats]), np.concatenate([self._labels, labels]), self.k
        )


_CACHE: dict[tuple[str, int], LetterClassifier] = {}
_LOCK = threading.Lock()


def _model_key(cell_px: int) -> str:
    # the key changes with this file, so a changed glyph finder or feature rebuilds the model
    h = hashlib.sha1(Path(__file__).read_bytes())
    h.update(f"{MODEL_VERSION}|{cell_px}|{'|'.join(TRAINING_FONTS)}".encode())
    return h.hexdigest()[:10]


def model_path(cell_px: int = 48) -> Path:
    """Where the trained glyph samples are cached (built on first use)."""
    return data_dir() / "vision" / f"glyphs-{_model_key(cell_px)}.npz"


def calibration_path(profile_name: str) -> Path:
    """Where ``companion vision calibrate`` keeps the user's tile samples for a profile.

    Raises:
        UnsafeNameError: ``profile_name`` could name a file outside the data directory.
    """
    check_name(profile_name, "board profile")
    return path_in(data_dir() / "vision", f"calibration-{profile_name}", ".npz", "board profile")


def train(cell_px: int = 48, force: bool = False) -> Path:
    """Build the glyph samples from the installed fonts and cache them; returns the file.
    A few seconds on one core."""
    path = model_path(cell_px)
    if path.exists() and not force:
        return path
    feats, labels = training_samples(cell_px)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, feats=feats, labels=labels)
    tmp.replace(path)
    return path


def load_classifier(cell_px: int = 48, profile_name: str | None = None) -> LetterClassifier:
    """The letter classifier (trained on first use, then cached on disk and in memory), with the
    calibration samples of ``profile_name`` added if ``companion vision calibrate`` made some."""
    cal = calibration_path(profile_name) if profile_name else None
    stamp = str(cal.stat().st_mtime_ns) if cal is not None and cal.exists() else ""
    key = (f"{profile_name}|{stamp}", cell_px)
    with _LOCK:
        clf = _CACHE.get(key)
        if clf is not None:
            return clf
        path = train(cell_px)
        with np.load(path) as data:
            feats, labels = data["feats"], data["labels"]
        if stamp:
            with np.load(cal) as data:
                # calibration samples count more: each is repeated
                feats = np.vstack([feats] + [data["feats"]] * 3)
                labels = np.concatenate([labels] + [data["labels"]] * 3)
        clf = LetterClassifier(feats, labels)
        _CACHE[key] = clf
        return clf
