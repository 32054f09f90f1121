"""Synthetic photos of a board, with their truth, for tests and evaluation.

A board is drawn top-down (board of a random colour, visible grid, light tiles with the letter in
red or blue ink for Iago, dark ink on wooden tiles for Scrabble, tiles slightly off-centre and
turned, optional ArUco markers at the grid's corners), then photographed: a random perspective
onto a table, a lighting gradient, a soft shadow, a hand at the board's edge, a white balance shift
(warm or cold), blur, sensor noise and JPEG compression. The truth is the grid and the grid's four
outer corners in the photo.

The letters are drawn in FreeSans Bold, a font the letter classifier is not trained on.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.errors import VisionError
from companion.vision.glyphs import LETTERS, SYNTHETIC_FONT, font_path
from companion.vision.localise import ARUCO_DICT, MARKER_IDS
from companion.vision.notation import format_board
from companion.vision.profiles import Profile, get_profile

MARKER_CELLS = 0.9  # side of a printed marker's black square, in cells

BOARD_COLOURS = (  # BGR
    (40, 95, 30),  # green baize
    (45, 35, 120),  # burgundy
    (95, 45, 25),  # navy
    (60, 105, 150),  # wood
    (62, 62, 62),  # dark grey
    (28, 28, 28),  # black
    (150, 175, 190),  # light beige
    (170, 170, 165),  # light grey
)


@dataclass
class SyntheticPhoto:
    """A rendered photo and its truth.

    Attributes:
        image: uint8 (H, W, 3) BGR.
        grid: rows top first (``.``, letters; Iago upper case blue, lower case red).
        corners: float32 (4, 2): the grid's outer corners in the photo, pixels (top-left,
            top-right, bottom-right, bottom-left).
        profile: the profile's name.
    """

    image: np.ndarray
    grid: list[str]
    corners: np.ndarray
    profile: str

    def save(self, stem: Path | str, quality: int | None = None) -> Path:
        """Write ``STEM.jpg`` (or .png), ``STEM.truth.txt`` (one row a line) and
        ``STEM.corners.json``, as in the real photo set; returns the image path."""
        stem = Path(stem)
        path = stem.with_suffix(".png") if quality is None else stem.with_suffix(".jpg")
        params = [] if quality is None else [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
        if not cv2.imwrite(str(path), self.image, params):
            raise VisionError(f"cannot write image {path}")
        Path(f"{stem}.truth.txt").write_text("\n".join(self.grid) + "\n", encoding="utf-8")
        corners = [[float(x), float(y)] for x, y in self.corners]
        Path(f"{stem}.corners.json").write_text(json.dumps(corners) + "\n", encoding="utf-8")
        return path


def random_grid(profile: Profile | str, rng: np.random.Generator, fill: float | None = None):
    """A random grid for ``profile``: tiles in words of 2-7 letters laid across and down from
    the centre, as in play, filling about ``fill`` (default 15-45%) of the cells; Iago tiles
    show blue (upper case) or red (lower case) at random, word by word."""
    profile = get_profile(profile)
    n = profile.size
    target = int((fill if fill is not None else rng.uniform(0.15, 0.45)) * n * n)
    cells = [["."] * n for _ in range(n)]
    placed = 0
    tries = 0
    while placed < target and tries < 400:
        tries += 1
        length = int(rng.integers(2, 8))
        across = bool(rng.integers(0, 2))
        r = int(rng.integers(0, n if across else n - length + 1))
        c = int(rng.integers(0, n - length + 1 if across else n))
        blue = bool(rng.integers(0, 2)) or not profile.coloured_ink
        for k in range(length):
            rr, cc = (r, c + k) if across else (r + k, c)
            if cells[rr][cc] == ".":
                placed += 1
            letter = LETTERS[int(rng.integers(0, 26))]
            cells[rr][cc] = letter if blue else letter.lower()
    return ["".join(row) for row in cells]


@functools.lru_cache(maxsize=8)
def _font(size: int):
    from PIL import ImageFont

    path = font_path(SYNTHETIC_FONT) or font_path("dejavu/DejaVuSans-Bold.ttf")
    if path is None:
        raise VisionError("no font to draw tiles: install fonts-freefont-ttf or fonts-dejavu-core")
    return ImageFont.truetype(str(path), size)


def _tile_sprite(letter: str, px: int, face, ink, rng, point_value: bool) -> np.ndarray:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (px, px), tuple(int(v) for v in face[::-1]))
    draw = ImageDraw.Draw(img)
    cap = rng.uniform(0.50, 0.60) * px
    dx = -0.05 * px if point_value else 0.0
    draw.text(
        (px / 2 + dx, px / 2), letter.upper(), fill=tuple(int(v) for v in ink[::-1]),
        font=_font(int(cap * 1.38)), anchor="mm",
    )  # fmt: skip
    if point_value:
        draw.text(
            (px * 0.80, px * 0.80), str(int(rng.integers(1, 11))),
            fill=tuple(int(v) for v in ink[::-1]), font=_font(int(cap * 0.45)), anchor="mm",
        )  # fmt: skip
    arr = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR).astype(np.float32)
    # a bevelled edge: the tile's rim a little darker
    yy, xx = np.mgrid[0:px, 0:px]
    edge = np.minimum(np.minimum(xx, px - 1 - xx), np.minimum(yy, px - 1 - yy))
    arr *= (0.82 + 0.18 * np.clip(edge / (0.06 * px), 0, 1))[..., None]
    return arr


def _marker(idx: int, px: int) -> np.ndarray:
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    return cv2.aruco.generateImageMarker(dictionary, MARKER_IDS[idx], px, borderBits=1)


def render_board(
    grid: list[str],
    profile: Profile | str,
    rng: np.random.Generator,
    cell_px: int = 64,
    markers: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The board drawn top-down: (uint8 (S, S, 3) BGR, float32 (4, 2) grid corners in it)."""
    profile = get_profile(profile)
    n, p = profile.size, cell_px
    frame = int(1.3 * p)
    side = n * p + 2 * frame
    if profile.coloured_ink:
        board = np.array(BOARD_COLOURS[int(rng.integers(0, len(BOARD_COLOURS)))], np.float32)
        light = board.mean() > 110
        line = board * 0.45 if light else np.minimum(board + rng.uniform(70, 130), 255)
        tile_face = np.array([200, 232, 244], np.float32) + rng.uniform(-15, 8, 3)
    else:
        board = np.array([200, 225, 235], np.float32) + rng.uniform(-25, 10, 3)
        line = np.array([40, 40, 40], np.float32)
        tile_face = np.array([150, 195, 225], np.float32) + rng.uniform(-25, 15, 3)
    img = np.empty((side, side, 3), np.float32)
    img[:] = board * rng.uniform(0.85, 1.0)
    img[frame:-frame, frame:-frame] = board
    lw = max(2, round(0.06 * p))
    for k in range(n + 1):
        a = frame + k * p
        img[a - lw // 2 : a - lw // 2 + lw, frame - lw // 2 : frame + n * p + lw] = line
        img[frame - lw // 2 : frame + n * p + lw, a - lw // 2 : a - lw // 2 + lw] = line
    if not profile.coloured_ink:
        premium = {(0, 3): (170, 110, 60), (1, 1): (150, 150, 235), (2, 6): (215, 190, 140)}
        for r in range(n):
            for c in range(n):
                colour = premium.get(((r * 7 + c * 3) % 11, (r + c) % 3))
                if colour is not None and grid[r][c] == ".":
                    y0, x0 = frame + r * p + lw, frame + c * p + lw
                    sq = np.empty((p - 2 * lw, p - 2 * lw, 3), np.uint8)
                    sq[:] = colour
                    for j, word in enumerate(("DOUBLE", "LETTER", "SCORE")):
                        cv2.putText(
                            sq, word, (2, int((0.3 + 0.22 * j) * p)), cv2.FONT_HERSHEY_SIMPLEX,
                            0.28 * p / 64, (30, 30, 30), 1, cv2.LINE_AA,
                        )  # fmt: skip
                    img[y0 : y0 + p - 2 * lw, x0 : x0 + p - 2 * lw] = sq
    tile = int(0.9 * p)
    for r in range(n):
        for c in range(n):
            ch = grid[r][c]
            if ch == ".":
                continue
            if profile.coloured_ink:
                red = ch.islower()
                ink = (
                    np.array([45, 40, 185], np.float32) + rng.uniform(-20, 20, 3)
                    if red
                    else np.array([165, 80, 30], np.float32) + rng.uniform(-20, 20, 3)
                )
            else:
                ink = np.array([30, 30, 30], np.float32) + rng.uniform(-20, 20, 3)
            face = tile_face + rng.uniform(-6, 6, 3)
            sprite = _tile_sprite(ch, tile, face, ink, rng, not profile.coloured_ink)
            cx = frame + (c + 0.5) * p + rng.uniform(-0.05, 0.05) * p
            cy = frame + (r + 0.5) * p + rng.uniform(-0.05, 0.05) * p
            rot = cv2.getRotationMatrix2D((tile / 2, tile / 2), float(rng.uniform(-4, 4)), 1.0)
            # draw into a patch around the cell only
            x0, y0 = int(cx - p), int(cy - p)
            rot[:, 2] += (cx - tile / 2 - x0, cy - tile / 2 - y0)
            box = (2 * p, 2 * p)
            warped = cv2.warpAffine(sprite, rot, box, flags=cv2.INTER_LINEAR)
            alpha = cv2.warpAffine(np.ones((tile, tile), np.float32), rot, box)
            shadow = cv2.GaussianBlur(np.roll(alpha, (3, 3), (0, 1)), (0, 0), 2.0) * 0.35
            patch = img[y0 : y0 + 2 * p, x0 : x0 + 2 * p]
            patch *= (1 - shadow)[..., None]
            patch[:] = patch * (1 - alpha[..., None]) + warped * alpha[..., None]
    if markers:
        mpx = int(MARKER_CELLS * p)
        quiet = max(2, mpx // 6)
        g0, g1 = frame, frame + n * p
        for idx, (x, y) in enumerate(
            ((g0 - mpx, g0 - mpx), (g1, g0 - mpx), (g1, g1), (g0 - mpx, g1))
        ):
            img[y - quiet : y + mpx + quiet, x - quiet : x + mpx + quiet] = 255
            img[y : y + mpx, x : x + mpx] = _marker(idx, mpx)[..., None]
    g0, g1 = float(frame), float(frame + n * p)
    corners = np.float32([[g0, g0], [g1, g0], [g1, g1], [g0, g1]])
    return np.clip(img, 0, 255).astype(np.uint8), corners


def photograph(
    board: np.ndarray,
    corners: np.ndarray,
    rng: np.random.Generator,
    size: tuple[int, int] = (1600, 1200),
    hand: bool = True,
    jpeg: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """A photo of a top-down board: perspective onto a table, light gradient, shadow, a hand at the
    edge, white balance, blur, noise, JPEG. ``size`` is (width, height) in pixels.

    Returns (uint8 (H, W, 3) BGR photo, float32 (4, 2) grid corners in the photo)."""
    w, h = size
    bs = board.shape[0]
    span = rng.uniform(0.78, 0.95) * min(w, h)
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.04, 0.04, 2) * min(w, h)
    ang = np.radians(rng.uniform(-8, 8))
    rotm = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    quad = (unit * span) @ rotm.T + centre + rng.uniform(-0.035, 0.035, (4, 2)) * span
    src = np.float32([[0, 0], [bs, 0], [bs, bs], [0, bs]])
    hom = cv2.getPerspectiveTransform(src, np.float32(quad))
    table = np.array([90, 120, 150], np.float32) + rng.uniform(-60, 60, 3)
    noise = cv2.resize(rng.normal(0, 12, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h))
    photo = np.clip(table[None, None, :] + noise[..., None], 0, 255).astype(np.uint8)
    cv2.warpPerspective(
        board, hom, (w, h), dst=photo, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT
    )
    out = photo.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # lighting gradient across the photo
    d = rng.uniform(0, 2 * np.pi)
    t = ((xx - w / 2) * np.cos(d) + (yy - h / 2) * np.sin(d)) / max(w, h)
    out *= (1.0 + rng.uniform(0.15, 0.45) * t)[..., None] * rng.uniform(0.8, 1.05)
    # a soft shadow (an arm or the camera stand)
    mask = np.zeros((h, w), np.float32)
    c0 = quad[int(rng.integers(0, 4))]
    cv2.ellipse(
        mask, (int(c0[0]), int(c0[1])), (int(0.3 * span), int(0.12 * span)),
        float(rng.uniform(0, 180)), 0, 360, 1.0, -1,
    )  # fmt: skip
    mask = cv2.GaussianBlur(mask, (0, 0), 0.04 * span)
    out *= (1 - rng.uniform(0.2, 0.4) * mask)[..., None]
    if hand:
        # a hand reaching onto the board's frame from one side (not over the grid)
        k = int(rng.integers(0, 4))
        a, b = quad[k], quad[(k + 1) % 4]
        inward = centre - (a + b) / 2
        inward /= np.linalg.norm(inward)
        gpts = cv2.perspectiveTransform(corners.reshape(1, 4, 2).astype(np.float32), hom)[0]
        ga, gb = gpts[k], gpts[(k + 1) % 4]
        s = rng.uniform(0.3, 0.7)
        edge_pt = a + (b - a) * s
        grid_pt = ga + (gb - ga) * s
        reach = max(0.0, float(np.dot(grid_pt - edge_pt, inward))) * 0.6
        tip = edge_pt + inward * reach
        base = tip - inward * 0.5 * span
        skin = np.array([120, 150, 205], np.float32) + rng.uniform(-30, 20, 3)
        hand_mask = np.zeros((h, w), np.float32)
        axis = (int(0.28 * span), int(0.07 * span))
        mid = (tip + base) / 2
        angle = float(np.degrees(np.arctan2(inward[1], inward[0])))
        cv2.ellipse(hand_mask, (int(mid[0]), int(mid[1])), axis, angle, 0, 360, 1.0, -1)
        hand_mask = cv2.GaussianBlur(hand_mask, (0, 0), 2.0)
        out = out * (1 - hand_mask[..., None]) + skin * hand_mask[..., None]
    # white balance: warm or cold light
    out *= np.array([rng.uniform(0.8, 1.15), 1.0, rng.uniform(0.85, 1.15)], np.float32)
    sigma = rng.uniform(0.0, 1.3) * max(w, h) / 1600
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0, rng.uniform(1.5, 5.0), out.shape).astype(np.float32)
    img = np.clip(out, 0, 255).astype(np.uint8)
    if jpeg:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    truth = cv2.perspectiveTransform(corners.reshape(1, 4, 2).astype(np.float32), hom)[0]
    return img, truth.astype(np.float32)


def render_photo(
    profile: Profile | str = "iago",
    seed: int = 0,
    size: tuple[int, int] = (1600, 1200),
    markers: bool = False,
    grid: list[str] | None = None,
    hand: bool = True,
) -> SyntheticPhoto:
    """One synthetic photo of a random (or the given) board, with its truth. Deterministic for a
    seed. ``size`` is (width, height) in pixels; 1600x1200 is about 2 megapixels."""
    profile = get_profile(profile)
    rng = np.random.default_rng(seed)
    if grid is None:
        grid = random_grid(profile, rng)
    cell = max(32, min(160, int(0.85 * min(size) / profile.size * 1.2)))
    board, corners = render_board(grid, profile, rng, cell_px=cell, markers=markers)
    image, truth = photograph(board, corners, rng, size=size, hand=hand)
    return SyntheticPhoto(image, grid, truth, profile.name)


def notation_of(photo: SyntheticPhoto) -> str:
    """The truth of a synthetic photo in board notation."""
    return format_board(photo.grid)
