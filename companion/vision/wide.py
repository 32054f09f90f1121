"""Wide renders: boards of every look, for teaching and measuring the cell model.

Each render draws a whole board top-down at a fixed resolution, gives it a look drawn at random
from a wide space, lights it, photographs it at 12 to 64 pixels a cell, and warps it back to the
reader's top-down board (``profile.board_px``) through grid corners that are off by up to a
quarter of a cell, as a grid found or given in a real photo is:

- fonts: every Debian font installed with the Latin capitals (:func:`letter_fonts`): serif,
  sans, slab, rounded, condensed, regular and bold, narrowed or widened; :data:`TEST_FONTS` are
  kept out of the training and used only to report;
- tiles: wood (with grain), ivory, plastic, coloured; thick or flat, shadowed, set off their
  squares and turned; a point value in the corner or none; dark ink, Iago's red and blue ink,
  or light ink on a dark tile; blank tiles (no letter) on boards of games that have them;
- boards: any colour, grid lines light or dark, thin or wide, grooves; premium squares in any
  colour with printed labels (``DOUBLE LETTER SCORE``, ``DL``, ``2W``), a star, frames;
- light: warm, cool and green casts, exposure, gradients, vignetting, hard shadows across part
  of the board, glare spots;
- camera: defocus, motion blur, noise, JPEG quality 50-95;
- a hand (skin or a sleeve, fingers) reaching over the board from one side on a quarter of the
  boards: a cell whose middle it covers is ``hidden``.

The truth of a cell is a class (:data:`CLASSES`: ``empty``, ``blank``, A-Z, ``hidden``) and, for
a lettered tile, its ink (0 blue, 1 red, -1 where ink says nothing).
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.glyphs import FONT_DIRS, LETTERS
from companion.vision.profiles import SCRABBLE_PREMIUM, Profile, get_profile, premium_kind

CLASSES = ("empty", "blank", *LETTERS, "hidden")
"""The cell model's classes: index 0 an empty square, 1 a blank tile, 2-27 the letters A-Z, 28 a
cell hidden (a hand or a thing over it: what it holds cannot be seen)."""
EMPTY, BLANK, HIDDEN = 0, 1, 28
HIDDEN_SHARE = 0.4  # of a cell's middle (its inner half): covered this much, the cell is hidden

# fonts never drawn in training: the report's held-out faces (a bold serif, a bold sans, a
# regular sans and a condensed one), so a figure on them is a figure on faces the model never saw
TEST_FONTS = (
    "urw-base35/P052-Bold.otf",
    "freefont/FreeSansBold.ttf",
    "croscore/Tinos-Bold.ttf",
    "liberation/LiberationSansNarrow-Regular.ttf",
)
RENDER_PX = 64  # pixels a cell the board is drawn at, before the camera's resolution
CELL_PX_RANGE = (12.0, 80.0)  # pixels a cell in the photographed board (log-uniform)
MISREGISTER = 0.25  # of a cell: how far the corners handed to the warp may be off the grid


# faces no tile set is printed in, left out of the letter fonts: slanted, hairline and thin
# strokes, scripts, and fonts whose A-Z code points draw other signs (Greek, dingbats)
NOT_TILE_FACES = re.compile(
    r"Ita|Oblique|Thin|Hairline|Light|Symbol|Dingbat|D050000L|Z003", re.IGNORECASE
)


@functools.cache
def letter_fonts() -> tuple[str, ...]:
    """Every installed font (relative to ``/usr/share/fonts/{truetype,opentype}``) that draws
    all 26 Latin capitals in a face tiles are printed in (serif, sans, slab, rounded, mono,
    condensed; regular to black), sorted; fonts of symbols, CJK and emoji, and the faces of
    :data:`NOT_TILE_FACES`, are left out."""
    from fontTools.ttLib import TTFont

    names = []
    for root in FONT_DIRS:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix.lower() not in (".ttf", ".otf") or "wqy" in str(path):
                continue
            if NOT_TILE_FACES.search(path.name):
                continue
            try:
                cmap = TTFont(str(path), lazy=True, fontNumber=0).getBestCmap() or {}
            except Exception:  # noqa: BLE001 - an unreadable font is no training font
                continue
            if all(ord(ch) in cmap for ch in LETTERS):
                names.append(str(path.relative_to(root)))
    return tuple(sorted(set(names)))


def training_fonts() -> tuple[str, ...]:
    """The letter fonts the model learns from: :func:`letter_fonts` less :data:`TEST_FONTS`."""
    return tuple(f for f in letter_fonts() if f not in TEST_FONTS)


def _font_file(name: str) -> Path:
    for root in FONT_DIRS:
        if (root / name).is_file():
            return root / name
    raise FileNotFoundError(f"font {name} is not installed (make deps installs the fonts)")


@functools.lru_cache(maxsize=512)
def _pil_font(name: str, size: int):
    from PIL import ImageFont

    return ImageFont.truetype(str(_font_file(name)), max(int(size), 4))


def board_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of render ``index`` of a set seeded ``seed``: each render is drawn alone,
    so a set is the same whatever order or process renders it."""
    digest = hashlib.sha256(f"wide|{seed}|{index}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@dataclass
class WideRender:
    """One wide render and its truth.

    Attributes:
        warp: uint8 (board_px, board_px, 3) BGR: the top-down board as the reader warps it.
        labels: int64 (n, n): each cell's class (:data:`CLASSES`).
        ink: int64 (n, n): 0 blue, 1 red, -1 (no tile, a blank, or ink that says nothing).
        photo: uint8 (H, W, 3) BGR: the board as photographed, top-down.
        corners: float32 (4, 2): the grid's true outer corners in ``photo``, pixels.
        cell_px: pixels a cell in ``photo``.
        font: the letters' font.
    """

    warp: np.ndarray
    labels: np.ndarray
    ink: np.ndarray
    photo: np.ndarray
    corners: np.ndarray
    cell_px: float
    font: str

    def rows(self, coloured_ink: bool) -> list[str]:
        """The truth as the reader writes it: ``.`` empty, ``?`` a blank, a letter (lower case
        for Iago's red face when ``coloured_ink``); ``#`` a hidden cell, which no reading
        matches."""
        out = []
        for r in range(self.labels.shape[0]):
            row = ""
            for c in range(self.labels.shape[1]):
                k = int(self.labels[r, c])
                ch = (
                    "." if k == EMPTY else "?" if k == BLANK else "#" if k == HIDDEN else CLASSES[k]
                )
                row += ch.lower() if coloured_ink and self.ink[r, c] == 1 else ch
            out.append(row)
        return out


def _random_colour(rng, lo: float = 0, hi: float = 255) -> np.ndarray:
    return rng.uniform(lo, hi, 3)


def _face_colour(rng, style: str) -> np.ndarray:
    """A tile face's BGR colour for a style."""
    if style == "wood":
        return np.array([150, 190, 225]) + rng.uniform(-45, 20, 3) * [1.0, 0.9, 0.7]
    if style == "ivory":
        return np.array([200, 232, 244]) + rng.uniform(-25, 10, 3)
    if style == "plastic":
        return np.full(3, rng.uniform(205, 250)) + rng.uniform(-12, 6, 3)
    return _random_colour(rng, 20, 120)  # dark coloured tile, light ink


def _grain(rng, h: int, w: int) -> np.ndarray:
    """A wood grain's lightness offsets, float32 (h, w), about -1..1."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    freq = rng.uniform(0.08, 0.35)
    warp = cv2.resize(rng.normal(0, 1, (4, 4)).astype(np.float32), (w, h)) * rng.uniform(2, 8)
    t = xx * np.cos(ang) + yy * np.sin(ang) + warp
    return np.sin(t * freq).astype(np.float32)


def _tile_sprite(rng, look: dict, letter: str | None, ink_bgr, r: int) -> np.ndarray:
    """One tile drawn as float32 (S, S, 4) BGRA (alpha 0-1) of side S = 2r, centred, with its
    body's thickness, its face and, when ``letter`` is given, the letter and point value."""
    from PIL import Image, ImageDraw

    side = 2 * r
    face_px = int(look["tile"] * r)
    face = look["face"] + rng.uniform(-8, 8, 3)
    img = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    x0 = (side - face_px) // 2
    thick = look["thick"] * r
    dx, dy = look["thick_dir"] * thick
    body = np.clip(face * look["body_shade"], 0, 255)
    rad = int(look["round"] * face_px)
    # the tile's body, seen past its face where the camera is not straight above it
    for k in np.linspace(1.0, 0.0, 4):
        draw.rounded_rectangle(
            (x0 + dx * k, x0 + dy * k, x0 + dx * k + face_px, x0 + dy * k + face_px),
            radius=rad,
            fill=(int(body[2]), int(body[1]), int(body[0]), 255),
        )
    draw.rounded_rectangle(
        (x0, x0, x0 + face_px, x0 + face_px),
        radius=rad,
        fill=(int(face[2]), int(face[1]), int(face[0]), 255),
    )
    if letter is not None:
        ink = np.clip(ink_bgr + rng.uniform(-15, 15, 3), 0, 255)
        fill = (int(ink[2]), int(ink[1]), int(ink[0]), 255)
        cap = look["cap"] * face_px
        font = _pil_font(look["font"], cap * 1.38)
        cx = x0 + face_px / 2 + (look["letter_dx"] + rng.uniform(-0.03, 0.03)) * face_px
        cy = x0 + face_px / 2 + (look["letter_dy"] + rng.uniform(-0.03, 0.03)) * face_px
        layer = Image.new("RGBA", (side, side), (0, 0, 0, 0))
        ImageDraw.Draw(layer).text(
            (cx, cy), letter, fill=fill, font=font, anchor="mm",
            stroke_width=look["stroke"], stroke_fill=fill,
        )  # fmt: skip
        if look["wide"] != 1.0:
            arr = np.asarray(layer)
            m = np.float32([[look["wide"], 0, cx * (1 - look["wide"])], [0, 1, 0]])
            arr = cv2.warpAffine(arr, m, (side, side), flags=cv2.INTER_LINEAR)
            layer = Image.fromarray(arr)
        img = Image.alpha_composite(img, layer)
        if look["points"]:
            # the point value in the face's lower-right corner, whatever the letter's width
            digit = str(int(rng.choice([1, 1, 1, 2, 3, 4, 5, 8, 10])))
            small = _pil_font(look["points_font"], cap * look["points_size"])
            px_ = x0 + face_px * (look["points_x"] + rng.uniform(-0.02, 0.02))
            py_ = x0 + face_px * (look["points_y"] + rng.uniform(-0.02, 0.02))
            ImageDraw.Draw(img).text((px_, py_), digit, fill=fill, font=small, anchor="mm")
    arr = np.asarray(img, np.float32)
    out = np.empty_like(arr)
    out[..., :3] = arr[..., 2::-1]
    out[..., 3] = arr[..., 3] / 255.0
    if look["grain"] > 0:
        g = _grain(rng, side, side) * look["grain"]
        out[..., :3] += g[..., None] * (out[..., 3:] > 0)
    return out


def _look(rng, profile: Profile, fonts: tuple[str, ...]) -> dict:
    """The drawn look of one board: tiles, letters, squares, lines (a dict of plain values)."""
    coloured = profile.coloured_ink
    style = rng.choice(
        ["ivory", "plastic", "wood"] if coloured else ["wood"] * 4 + ["ivory", "plastic", "dark"]
    )
    face = _face_colour(rng, style)
    light_ink = style == "dark"
    board = _random_colour(rng, 30, 235)
    if rng.uniform() < 0.5:  # boards are often near the tiles' colour, or a light beige/grey
        board = np.clip(face * rng.uniform(0.75, 1.05) + rng.uniform(-20, 20, 3), 0, 255)
    lines_dark = rng.uniform() < 0.5
    line = (
        board * rng.uniform(0.2, 0.6)
        if lines_dark
        else np.minimum(board + rng.uniform(40, 140), 255)
    )
    font = str(rng.choice(fonts))
    look = {
        "style": style,
        "face": face,
        "board": board,
        "frame": _random_colour(rng, 20, 230),
        "line": line,
        "line_w": rng.uniform(0.015, 0.11),
        "font": font,
        "points_font": font if rng.uniform() < 0.7 else str(rng.choice(fonts)),
        "points": bool(profile.point_values and rng.uniform() < 0.85) or (not coloured and rng.uniform() < 0.1),
        "points_size": rng.uniform(0.28, 0.5),
        "points_x": rng.uniform(0.76, 0.87),  # of the face: where the point value's middle is
        "points_y": rng.uniform(0.72, 0.84),
        "cap": rng.uniform(0.42, 0.68),
        "wide": float(rng.choice([1.0, rng.uniform(0.8, 1.35)])),
        "stroke": int(rng.uniform() < 0.15),
        "tile": rng.uniform(0.82, 0.97),
        "round": rng.uniform(0.0, 0.15),
        "thick": rng.uniform(0.0, 0.16) if rng.uniform() < 0.7 else 0.0,
        "thick_dir": (lambda a: np.array([np.cos(a), np.sin(a)]))(rng.uniform(0, 2 * np.pi)),
        "body_shade": rng.uniform(0.55, 0.85),
        "grain": rng.uniform(4, 14) if style == "wood" else 0.0,
        "offset": rng.uniform(-0.1, 0.1, 2),  # tiles' common offset off their squares, of a cell
        "jitter": rng.uniform(0.0, 0.07),
        "turn": rng.uniform(0.0, 6.0),
        "shadow": rng.uniform(0.0, 0.5),
        "premium": profile.size == 15 and rng.uniform() < 0.85 or rng.uniform() < 0.1,
        "labels": rng.choice(["long", "short", "none"], p=[0.65, 0.25, 0.1]),
        "label_size": rng.uniform(0.13, 0.26),
        "premium_colours": [_random_colour(rng, 20, 250) for _ in range(4)],
        "label_ink": [(255.0, 255.0, 255.0) if rng.uniform() < 0.5 else (20.0, 20.0, 20.0) for _ in range(4)],
    }  # fmt: skip
    if rng.uniform() < 0.5:  # the standard colours, somewhat shifted
        std = [(55, 50, 200), (175, 160, 240), (190, 120, 40), (235, 205, 150)]
        look["premium_colours"] = [
            np.clip(np.array(c) + rng.uniform(-40, 40, 3), 0, 255) for c in std
        ]
    if not coloured and rng.uniform() < 0.5:  # the classic set: wood on a light board
        look["style"], look["face"] = "wood", _face_colour(rng, "wood")
        look["grain"] = rng.uniform(4, 14)
        look["board"] = np.array([200, 212, 214]) + rng.uniform(-40, 25, 3)
        look["line"] = (
            np.minimum(look["board"] + rng.uniform(20, 60), 255)
            if rng.uniform() < 0.6
            else look["board"] * rng.uniform(0.2, 0.5)
        )
        look["labels"] = "long"
        std = [(55, 50, 200), (175, 160, 240), (190, 120, 40), (235, 205, 150)]
        look["premium_colours"] = [
            np.clip(np.array(c) * rng.uniform(0.5, 1.1) + rng.uniform(-30, 30, 3), 0, 255)
            for c in std
        ]
        look["points"] = True
        light_ink = False
    if coloured:
        look["inks"] = (
            np.array([150, 70, 25]) + rng.uniform(-40, 40, 3),  # blue
            np.array([40, 40, 190]) + rng.uniform(-40, 40, 3),  # red
        )
    elif light_ink:
        look["inks"] = (np.clip(look["face"] + rng.uniform(110, 200), 0, 255),)
    else:
        look["inks"] = (np.array([30, 30, 30]) + rng.uniform(-25, 40, 3),)
    if profile.point_values or rng.uniform() < 0.5:
        look["letter_dx"], look["letter_dy"] = -rng.uniform(0.0, 0.1), -rng.uniform(0.0, 0.08)
    else:
        look["letter_dx"], look["letter_dy"] = 0.0, 0.0
    return look


PREMIUM_LABELS = (
    (("TRIPLE", "WORD", "SCORE"), ("TW",), ("3W",), ("TWS",)),
    (("DOUBLE", "WORD", "SCORE"), ("DW",), ("2W",), ("DWS",)),
    (("TRIPLE", "LETTER", "SCORE"), ("TL",), ("3L",), ("TLS",)),
    (("DOUBLE", "LETTER", "SCORE"), ("DL",), ("2L",), ("DLS",)),
)


def _draw_board(rng, look: dict, n: int, premium: frozenset, r: int) -> np.ndarray:
    """The bare board: float32 (H, W, 3) BGR, a cell ``r`` pixels, one cell of frame round the
    grid."""
    from PIL import Image, ImageDraw

    side = (n + 2) * r
    img = np.empty((side, side, 3), np.float32)
    img[:] = look["frame"]
    g0, g1 = r, r + n * r
    img[g0:g1, g0:g1] = look["board"]
    pil = Image.fromarray(np.clip(img[..., ::-1], 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(pil)
    lab_font = str(rng.choice(letter_fonts()))
    for rr, cc in premium:
        k = premium_kind(rr, cc, 15) if n == 15 else int(rng.integers(0, 4))
        col = look["premium_colours"][k]
        x, y = g0 + cc * r, g0 + rr * r
        draw.rectangle((x, y, x + r, y + r), fill=(int(col[2]), int(col[1]), int(col[0])))
        if look["labels"] == "none":
            continue
        ink = look["label_ink"][k]
        fill = (int(ink[2]), int(ink[1]), int(ink[0]))
        words = (
            PREMIUM_LABELS[k][0]
            if look["labels"] == "long"
            else PREMIUM_LABELS[k][1 + int(rng.integers(0, 3))]
        )
        # a label's size: three lines of small capitals (a seventh to a quarter of a square:
        # as large as a tile's letter's strokes on some boards) or one short word
        size = r * look["label_size"] * (1.0 if len(words) == 3 else 2.0)
        fnt = _pil_font(lab_font, size)
        for i, word in enumerate(words):
            yy = y + r / 2 + (i - (len(words) - 1) / 2) * size * 1.1
            draw.text((x + r / 2, yy), word, fill=fill, font=fnt, anchor="mm")
    if n == 15 and rng.uniform() < 0.6:  # the centre star
        cx = cy = g0 + 7.5 * r
        pts = []
        for i in range(10):
            rad = r * (0.38 if i % 2 == 0 else 0.16)
            a = -np.pi / 2 + i * np.pi / 5
            pts.append((cx + rad * np.cos(a), cy + rad * np.sin(a)))
        star = look["label_ink"][1]
        draw.polygon(pts, fill=(int(star[2]), int(star[1]), int(star[0])))
    img = np.asarray(pil, np.float32)[..., ::-1].copy()
    lw = max(1, int(round(look["line_w"] * r)))
    for k in range(n + 1):
        p = g0 + k * r
        a, b = max(p - lw // 2, 0), p + (lw + 1) // 2
        img[a:b, g0 - lw // 2 : g1 + lw // 2] = look["line"]
        img[g0 - lw // 2 : g1 + lw // 2, a:b] = look["line"]
    img += rng.normal(0, 1, (side // 8 + 1, side // 8 + 1)).astype(np.float32).repeat(8, 0).repeat(8, 1)[:side, :side, None] * rng.uniform(0, 6)  # fmt: skip
    return img


def _composite(dst: np.ndarray, sprite: np.ndarray, x: float, y: float, turn: float) -> None:
    """Paste ``sprite`` (float32 (S, S, 4) BGRA) centred at (x, y), turned ``turn`` degrees."""
    s = sprite.shape[0]
    m = cv2.getRotationMatrix2D((s / 2, s / 2), turn, 1.0)
    m[:, 2] += [x - s / 2, y - s / 2]
    x0, y0 = int(np.floor(x - s / 2)) - 1, int(np.floor(y - s / 2)) - 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x0 + s + 2, dst.shape[1]), min(y0 + s + 2, dst.shape[0])
    m[:, 2] -= [x0, y0]
    patch = cv2.warpAffine(sprite, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = patch[..., 3:]
    dst[y0:y1, x0:x1] = dst[y0:y1, x0:x1] * (1 - alpha) + patch[..., :3] * alpha


def _hand(rng, img: np.ndarray, n: int, r: int) -> np.ndarray:
    """Draw a hand reaching over the board from one side (a palm, four fingers, in a skin's or
    a sleeve's colour, softly shaded) into ``img`` (float32 BGR, a cell ``r`` pixels, one cell of
    frame); returns its mask, float32 (H, W), 0-1."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    side = int(rng.integers(0, 4))
    depth = rng.uniform(0.5, 4.0) * r  # how far past the grid's edge the palm reaches
    along = rng.uniform(r, r + n * r)
    g0, g1 = r, r + n * r
    if side == 0:
        cx, cy, ang = along, g0 + depth - 2.5 * r, 90.0
    elif side == 1:
        cx, cy, ang = g1 - depth + 2.5 * r, along, 180.0
    elif side == 2:
        cx, cy, ang = along, g1 - depth + 2.5 * r, 270.0
    else:
        cx, cy, ang = g0 + depth - 2.5 * r, along, 0.0
    ang += rng.uniform(-30, 30)
    a = np.radians(ang)
    cv2.ellipse(mask, (int(cx), int(cy)), (int(2.2 * r), int(1.6 * r)), ang, 0, 360, 1.0, -1)
    for k in range(4):  # fingers, spread across the palm's front
        off = (k - 1.5) * 0.7 * r
        fx = cx + np.cos(a) * 2.2 * r - np.sin(a) * off
        fy = cy + np.sin(a) * 2.2 * r + np.cos(a) * off
        length = rng.uniform(0.8, 1.6) * r
        cv2.ellipse(mask, (int(fx), int(fy)), (int(length), int(0.3 * r)), ang, 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.08 * r)
    colour = (
        np.array([120, 150, 205]) + rng.uniform(-60, 40, 3)
        if rng.uniform() < 0.75
        else _random_colour(rng, 20, 230)
    )
    shade = 0.8 + 0.2 * cv2.GaussianBlur(rng.uniform(0, 1, (h, w)).astype(np.float32), (0, 0), r)
    hand = colour[None, None, :] * shade[..., None]
    img *= 1 - mask[..., None]
    img += hand * mask[..., None]
    return mask


def _light(rng, img: np.ndarray) -> np.ndarray:
    """Light the board: cast, exposure, gradient, vignetting, a hard shadow, glare."""
    h, w = img.shape[:2]
    cast = rng.choice(["none", "warm", "cool", "green", "any"], p=[0.35, 0.2, 0.15, 0.1, 0.2])
    gains = {
        "none": np.ones(3),
        "warm": np.array([rng.uniform(0.55, 0.85), rng.uniform(0.85, 1.0), 1.0]),
        "cool": np.array([1.0, rng.uniform(0.9, 1.0), rng.uniform(0.7, 0.9)]),
        "green": np.array([rng.uniform(0.75, 0.95), 1.0, rng.uniform(0.75, 0.95)]),
        "any": rng.uniform(0.75, 1.1, 3),
    }[cast]
    img = img * gains * rng.uniform(0.45, 1.2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    yy /= h
    xx /= w
    d = rng.uniform(0, 2 * np.pi)
    ramp = (xx - 0.5) * np.cos(d) + (yy - 0.5) * np.sin(d)
    shade = 1.0 + rng.uniform(0, 0.6) * ramp
    if rng.uniform() < 0.3:  # vignetting
        shade *= 1.0 - rng.uniform(0.1, 0.4) * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * 2
    if rng.uniform() < 0.25:  # a hard shadow across part of the board
        a = rng.uniform(0, 2 * np.pi)
        cut = (xx - rng.uniform(0.2, 0.8)) * np.cos(a) + (yy - rng.uniform(0.2, 0.8)) * np.sin(a)
        edge = max(rng.uniform(0.002, 0.03), 1e-3)
        shade *= 1.0 - rng.uniform(0.25, 0.55) / (1.0 + np.exp(-np.clip(cut / edge, -50, 50)))
    img = img * shade[..., None]
    if rng.uniform() < 0.2:  # glare spots
        for _ in range(int(rng.integers(1, 3))):
            cx, cy = rng.uniform(0.1, 0.9, 2)
            rad = rng.uniform(0.02, 0.08)
            blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rad**2))
            img = img + (rng.uniform(60, 220) * blob)[..., None]
    return img


def _camera(rng, img: np.ndarray) -> np.ndarray:
    """The camera at its own resolution: defocus, motion blur, noise, JPEG 50-95 (uint8 out)."""
    sigma = rng.uniform(0.0, 1.3) if rng.uniform() < 0.9 else rng.uniform(1.3, 2.0)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.uniform() < 0.15:
        length = int(rng.integers(2, 6))
        k = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
        k[length, :] = 1.0
        rot = cv2.getRotationMatrix2D((length, length), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, rot, k.shape[::-1])
        img = cv2.filter2D(img, -1, k / max(float(k.sum()), 1e-6))
    img = img + rng.normal(0, rng.uniform(0.5, 6.0), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 96))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def random_cells(
    rng, profile: Profile, fill: float | None = None, bag: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """A random filling of ``profile``'s grid: (labels, ink) int64 (n, n) each (see
    :class:`WideRender`). Tiles lie in random runs across and down; each letter evenly drawn
    (training: the rare letters as often as the rest), or with ``bag`` drawn from the set's
    bag where the profile gives its distribution (a board as a set can lay it); a board of a
    game with blank tiles gets 0-6 of them (with ``bag``, at most the set's), and Iago's tiles
    show either face."""
    n = profile.size
    labels = np.zeros((n, n), np.int64)
    ink = np.full((n, n), -1, np.int64)
    target = (fill if fill is not None else rng.uniform(0.2, 0.75)) * n * n
    counts = profile.tile_counts if bag else None
    letters = [ch for ch, k in (counts or {}).items() if ch != "?" for _ in range(k)]
    letters = [letters[int(i)] for i in rng.permutation(len(letters))]
    if counts:
        target = min(target, len(letters))
    tries = 0
    while (labels > 0).sum() < target and tries < 500:
        tries += 1
        length = int(rng.integers(1, 9))
        across = bool(rng.integers(0, 2))
        r0 = int(rng.integers(0, n if across else n - length + 1))
        c0 = int(rng.integers(0, n - length + 1 if across else n))
        colour = int(rng.integers(0, 2)) if profile.coloured_ink else -1
        for k in range(length):
            r, c = (r0, c0 + k) if across else (r0 + k, c0)
            if counts:
                if labels[r, c] or not letters:
                    continue
                labels[r, c] = 2 + LETTERS.index(letters.pop())
            else:
                labels[r, c] = 2 + int(rng.integers(0, 26))
            ink[r, c] = colour
    if profile.blank_tiles:
        tiles = np.argwhere(labels > 0)
        most = min(6, counts.get("?", 6)) if counts else 6
        for k in rng.permutation(len(tiles))[: int(rng.integers(0, most + 1))]:
            r, c = tiles[int(k)]
            labels[r, c] = BLANK
            ink[r, c] = -1
    return labels, ink


def render(
    rng: np.random.Generator,
    profile: Profile | str,
    fonts: tuple[str, ...] | None = None,
    cell_px: float | None = None,
    misregister: float = MISREGISTER,
    labels: np.ndarray | None = None,
    ink: np.ndarray | None = None,
    hands: bool | None = None,
    bag: bool = False,
) -> WideRender:
    """Draw, light, photograph and warp one board.

    Args:
        rng: the render's generator (:func:`board_rng`).
        profile: ``iago`` or ``scrabble`` (a Profile or its name): grid size, ink, blanks.
        fonts: the fonts to draw letters in (default :func:`training_fonts`).
        cell_px: pixels a cell in the photo (default log-uniform in :data:`CELL_PX_RANGE`).
        misregister: of a cell, the most the warp's corners are off the true grid.
        labels, ink: the cells to draw (default :func:`random_cells`).
        hands: draw a hand over the board (True), none (False), or one on a quarter of the
            boards (None); the cells it hides are labelled ``hidden``.
        bag: draw the letters from the set's bag (:func:`random_cells`), as the reports do.

    Returns:
        A :class:`WideRender`.

    Raises:
        FileNotFoundError: a font is not installed.
    """
    from companion.vision.warp import warp_board

    profile = get_profile(profile)
    n = profile.size
    fonts = fonts or training_fonts()
    if labels is None:
        labels, ink = random_cells(rng, profile, bag=bag)
    elif ink is None:
        ink = np.full(labels.shape, -1, np.int64)
    look = _look(rng, profile, fonts)
    r = RENDER_PX
    if look["premium"]:
        premium = SCRABBLE_PREMIUM if n == 15 else frozenset(
            (int(a), int(b)) for a, b in rng.integers(0, n, (int(rng.integers(4, 20)), 2))
        )  # fmt: skip
    else:
        premium = frozenset()
    img = _draw_board(rng, look, n, premium, r)
    off = look["offset"] * r
    shadow = np.zeros(img.shape[:2], np.float32)
    sprites = []
    for rr, cc in np.argwhere(labels > 0):
        cls = int(labels[rr, cc])
        letter = None if cls == BLANK else LETTERS[cls - 2]
        inks = look["inks"]
        col = inks[int(ink[rr, cc])] if len(inks) == 2 and ink[rr, cc] >= 0 else inks[0]
        sprite = _tile_sprite(rng, look, letter, col, r)
        x = r + (cc + 0.5) * r + off[0] + rng.normal(0, look["jitter"]) * r
        y = r + (rr + 0.5) * r + off[1] + rng.normal(0, look["jitter"]) * r
        sprites.append((sprite, x, y, float(rng.uniform(-look["turn"], look["turn"]))))
        half = look["tile"] * r / 2
        x0, y0 = (
            int(x - half + look["thick_dir"][0] * r * 0.1),
            int(y - half + look["thick_dir"][1] * r * 0.1),
        )
        shadow[max(y0, 0) : max(y0 + int(2 * half), 0), max(x0, 0) : max(x0 + int(2 * half), 0)] = 1.0  # fmt: skip
    if look["shadow"] > 0.05:
        shadow = cv2.GaussianBlur(shadow, (0, 0), r * 0.08)
        img *= (1 - look["shadow"] * shadow)[..., None]
    for sprite, x, y, turn in sprites:
        _composite(img, sprite, x, y, turn)
    if hands if hands is not None else rng.uniform() < 0.25:
        mask = _hand(rng, img, n, r)
        q = r // 4
        grid_mask = mask[r : r + n * r, r : r + n * r].reshape(n, r, n, r)
        covered = grid_mask[:, q : r - q, :, q : r - q].mean(axis=(1, 3)) >= HIDDEN_SHARE
        labels = np.where(covered, HIDDEN, labels)
        ink = np.where(covered, -1, ink)
    img = _light(rng, img)
    lo, hi = CELL_PX_RANGE
    px = float(cell_px if cell_px is not None else np.exp(rng.uniform(np.log(lo), np.log(hi))))
    scale = px / r
    size = max(int(round(img.shape[1] * scale)), 8)
    photo = cv2.resize(np.clip(img, 0, 255), (size, size), interpolation=cv2.INTER_AREA)
    photo = _camera(rng, photo)
    g0, g1 = r * scale, (r + n * r) * scale
    corners = np.float32([[g0, g0], [g1, g0], [g1, g1], [g0, g1]])
    shift = rng.uniform(-misregister, misregister, 2) * px if misregister else np.zeros(2)
    jitter = (
        rng.uniform(-0.1, 0.1, (4, 2)) * px * (misregister / MISREGISTER) if misregister else 0.0
    )
    given = corners + np.float32(shift) + np.float32(jitter)
    warp = warp_board(photo, given, profile)
    return WideRender(warp, labels, ink, photo, corners, px, look["font"])
