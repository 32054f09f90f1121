"""Synthetic photos of a board, with their truth, for tests and evaluation.

A board is drawn top-down (board of a random colour, visible grid, light tiles with the letter in
red or blue ink for Iago, dark ink on wooden tiles for Scrabble, tiles slightly off-centre and
turned, optional ArUco markers at the grid's corners), then photographed: a random perspective
onto a table, a lighting gradient, a soft shadow, a hand at the board's edge, a white balance shift
(warm or cold), blur, sensor noise and JPEG compression. The truth is the grid and the grid's four
outer corners in the photo.

The letters are drawn in FreeSans Bold, a face the cell model never learns from
(``wide.TEST_FONTS``), or in another face given.
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
from companion.vision.profiles import Profile, get_profile, premium_kind

MARKER_CELLS = 0.9  # side of a printed marker's black square, in cells

KINDS = ("plain", "labels", "cut", "glare", "dark", "blur", "bold", "pale", "bumped")
"""What can be wrong with a photo, one kind at a time (``companion vision render --kind``):

- ``plain``: the photo as before (perspective, light gradient, shadow, a hand, white balance,
  light blur, noise, JPEG);
- ``labels``: the board in a frame with letters and numbers printed round the grid at the
  cells' pitch and a dark border one cell out (a grid found one line off fits them);
- ``cut``: the photo's edge cuts the grid by half a cell to a cell and a half on one or two sides;
- ``glare``: a lamp's hotspot blows out part of the board;
- ``dark``: a first frame taken before the exposure settled, at 0.15-0.35 of the light;
- ``blur``: a soft photo (out of focus), 2-4 pixels at 2 MP;
- ``bold``: the letters in a bold, wide face (FreeSans Bold widened 1.2-1.45 times, heavier);
- ``pale``: tiles nearly the board's colour, with light, thin letters (FreeSans), slightly soft;
- ``bumped``: the corners file is where the grid was before the camera was bumped (0.4-1.2 cells
  off): read with those corners, the reading must not be trusted.
"""

PREMIUM_COLOURS = (  # BGR: triple word, double word, triple letter, double letter
    (55, 50, 200),
    (175, 160, 240),
    (190, 120, 40),
    (235, 205, 150),
)
PREMIUM_NAMES = (
    ("TRIPLE", "WORD", "SCORE"),
    ("DOUBLE", "WORD", "SCORE"),
    ("TRIPLE", "LETTER", "SCORE"),
    ("DOUBLE", "LETTER", "SCORE"),
)

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
        kind: what the photo shows (one of ``KINDS``).
        true_corners: where the grid really is (differs from ``corners`` only for ``bumped``).
    """

    image: np.ndarray
    grid: list[str]
    corners: np.ndarray
    profile: str
    kind: str = "plain"
    true_corners: np.ndarray | None = None

    def save(self, stem: Path | str, quality: int | None = None) -> Path:
        """Write ``STEM.jpg`` (or .png), ``STEM.truth.txt`` (one row a line) and
        ``STEM.corners.json``, as in the real photo set, and ``STEM.kind.txt`` (the kind, which
        ``vision eval`` reports apart); returns the image path."""
        stem = Path(stem)
        path = stem.with_suffix(".png") if quality is None else stem.with_suffix(".jpg")
        params = [] if quality is None else [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
        if not cv2.imwrite(str(path), self.image, params):
            raise VisionError(f"cannot write image {path}")
        Path(f"{stem}.truth.txt").write_text("\n".join(self.grid) + "\n", encoding="utf-8")
        corners = [[float(x), float(y)] for x, y in self.corners]
        Path(f"{stem}.corners.json").write_text(json.dumps(corners) + "\n", encoding="utf-8")
        Path(f"{stem}.kind.txt").write_text(self.kind + "\n", encoding="utf-8")
        return path


SET_BLANKS = (0, 3)  # blank tiles a random grid gets by default: 0-2, as a set's two allow


def random_grid(
    profile: Profile | str,
    rng: np.random.Generator,
    fill: float | None = None,
    blanks: tuple[int, int] = SET_BLANKS,
):
    """A random grid for ``profile``: tiles in words of 2-7 letters laid across and down as in
    play, the first through the centre and each next one through a tile already laid, so the
    tiles form one group (each letter drawn from the set's bag where the profile gives its
    distribution, else evenly from A-Z), filling about ``fill`` (default 15-45%) of the cells. Iago tiles
    show blue (upper case) or red (lower case) at random, word by word. A profile with blank
    tiles gets ``blanks[0]`` to ``blanks[1] - 1`` of them (a set has two; the bench renders more
    to fit their confidence)."""
    profile = get_profile(profile)
    n = profile.size
    target = int((fill if fill is not None else rng.uniform(0.15, 0.45)) * n * n)
    cells = [["."] * n for _ in range(n)]
    placed = 0
    tries = 0
    # a set with a known distribution is drawn from its bag, so no board holds more of a letter
    # than the set does (the reader's board facts); else each letter evenly
    counts = profile.tile_counts or {}
    bag = [ch for ch, k in counts.items() if ch != "?" for _ in range(k)]
    bag = [bag[int(i)] for i in rng.permutation(len(bag))]
    while placed < target and tries < 400:
        tries += 1
        squares = _word_squares(rng, cells)
        if squares is None:
            continue
        blue = bool(rng.integers(0, 2)) or not profile.coloured_ink
        for rr, cc in squares:
            if cells[rr][cc] != ".":
                continue  # the crossing tile stays
            if counts and not bag:
                break
            placed += 1
            letter = bag.pop() if counts else LETTERS[int(rng.integers(0, 26))]
            cells[rr][cc] = letter if blue else letter.lower()
    if profile.blank_tiles:
        # a blank or two, declared as a letter (lower case in the truth, as the real photos')
        tiles = [(r, c) for r in range(n) for c in range(n) if cells[r][c] != "."]
        for k in rng.permutation(len(tiles))[: int(rng.integers(*blanks))]:
            r, c = tiles[int(k)]
            cells[r][c] = cells[r][c].lower()
    return ["".join(row) for row in cells]


def iago_game(rng: np.random.Generator, moves: int = 10, n: int = 11) -> list[list[str]]:
    """The boards of the first ``moves`` moves of a random Iago game on an ``n`` x ``n`` grid,
    the empty board first (``moves + 1`` boards of rows: ``.`` empty, a letter showing blue,
    lower case showing red), as the camera sees them at each move's end.

    Blue moves first and the players take turns (the rulebook's "The Move"). A move enters a
    word of 2-7 letters in the mover's colour, the first through the centre and each next one
    through a tile already laid (the cross-link letter turned to the mover's colour: "Cross-Link
    Letters"), as :func:`random_grid` lays them; or, on a third of the moves once the opponent
    has a word, steals one
    ("Stealing"): a row's or column's run of two or more tiles holding the opponent's colour
    gets a letter added at a free end, or one letter substituted, and every letter of the run
    turned over to the mover's colour. Letters are drawn evenly from A-Z; no lexicon is asked
    (the camera reads what lies there, words or not)."""
    cells = [["."] * n for _ in range(n)]
    boards = [["".join(row) for row in cells]]
    for move in range(moves):
        blue = move % 2 == 0
        paint = str.upper if blue else str.lower
        for _ in range(400):
            if rng.uniform() < 1 / 3 and _steal(rng, cells, blue, paint):
                break
            if _enter_word(rng, cells, paint):
                break
        boards.append(["".join(row) for row in cells])
    return boards


def _steal(rng, cells, blue: bool, paint) -> bool:
    """Steal a word of the opponent's (:func:`iago_game`); False when none can be."""
    from companion.games.iago.board import Board

    n = len(cells)
    words = Board.from_rows(["".join(row) for row in cells]).words()
    runs = [list(w.cells) for w in words]
    theirs = [run for run in runs if any(cells[r][c].isupper() != blue for r, c in run)]
    if not theirs:
        return False
    run = theirs[int(rng.integers(0, len(theirs)))]
    (r0, c0), (r1, c1) = run[0], run[-1]
    dr, dc = (0, 1) if r0 == r1 else (1, 0)
    ends = [(r0 - dr, c0 - dc), (r1 + dr, c1 + dc)]
    free = [(r, c) for r, c in ends if 0 <= r < n and 0 <= c < n and cells[r][c] == "."]
    if free and rng.uniform() < 0.6:
        run = run + [free[int(rng.integers(0, len(free)))]]
        added = run[-1]
        cells[added[0]][added[1]] = LETTERS[int(rng.integers(0, 26))]
    else:
        r, c = run[int(rng.integers(0, len(run)))]
        old = cells[r][c].upper()
        cells[r][c] = str(rng.choice([ch for ch in LETTERS if ch != old]))
    for r, c in run:
        cells[r][c] = paint(cells[r][c])
    return True


def _word_squares(rng, cells) -> list[tuple[int, int]] | None:
    """The squares of a word of 2-7 letters drawn across or down through a tile laid (the first
    word through the centre), as play lays them; None when it runs off the board."""
    n = len(cells)
    length = int(rng.integers(2, 8))
    across = bool(rng.integers(0, 2))
    laid = [(r, c) for r in range(n) for c in range(n) if cells[r][c] != "."]
    ar, ac = laid[int(rng.integers(0, len(laid)))] if laid else (n // 2, n // 2)
    k0 = int(rng.integers(0, length))
    r, c = (ar, ac - k0) if across else (ar - k0, ac)
    if r < 0 or c < 0 or (across and c + length > n) or (not across and r + length > n):
        return None
    return [(r, c + k) if across else (r + k, c) for k in range(length)]


def _enter_word(rng, cells, paint) -> bool:
    """Enter a word through a tile laid, or the centre (:func:`iago_game`); False when the
    word drawn does not fit."""
    squares = _word_squares(rng, cells)
    if squares is None or all(cells[rr][cc] != "." for rr, cc in squares):
        return False  # off the board, or nothing new to lay
    for rr, cc in squares:
        # a cross-link letter is turned to the mover's colour too
        letter = cells[rr][cc] if cells[rr][cc] != "." else LETTERS[int(rng.integers(0, 26))]
        cells[rr][cc] = paint(letter)
    return True


PALE_FONT = "freefont/FreeSans.ttf"  # the regular weight: thin strokes


@functools.lru_cache(maxsize=16)
def _font(size: int, name: str = SYNTHETIC_FONT):
    from PIL import ImageFont

    path = font_path(name) or font_path(SYNTHETIC_FONT) or font_path("dejavu/DejaVuSans-Bold.ttf")
    if path is None:
        raise VisionError("no font to draw tiles: install fonts-freefont-ttf or fonts-dejavu-core")
    return ImageFont.truetype(str(path), size)


def _tile_sprite(
    letter: str,
    px: int,
    face,
    ink,
    rng,
    point_value: bool,
    look: str = "plain",
    font: str | None = None,
) -> np.ndarray:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (px, px), tuple(int(v) for v in face[::-1]))
    cap = rng.uniform(0.50, 0.60) * px
    dx = -0.05 * px if point_value else 0.0
    if letter != "?":
        wide = rng.uniform(1.2, 1.45) if look == "bold" else 1.0
        # a wide face: drawn narrow-canvas then stretched across
        lw = int(round(px / wide))
        glyph = Image.new("RGB", (lw, px), tuple(int(v) for v in face[::-1]))
        draw = ImageDraw.Draw(glyph)
        name = font or (PALE_FONT if look == "pale" else SYNTHETIC_FONT)
        stroke = max(1, round(0.02 * px)) if look == "bold" else 0
        draw.text(
            (lw / 2 + dx / wide, px / 2), letter.upper(), fill=tuple(int(v) for v in ink[::-1]),
            font=_font(int(cap * 1.38), name), anchor="mm", stroke_width=stroke,
            stroke_fill=tuple(int(v) for v in ink[::-1]),
        )  # fmt: skip
        glyph = glyph.resize((px, px), Image.BILINEAR)
        img.paste(glyph, (0, 0))
    draw = ImageDraw.Draw(img)
    if point_value and letter != "?":
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


def _label_frame(img: np.ndarray, frame: int, n: int, p: int, line, rng) -> None:
    """Letters and numbers printed round the grid at the cells' pitch (A-O across, 1-15 down),
    and a dark border one cell out: what a grid found one line off fits."""
    ink = tuple(int(v) for v in np.clip(line * 0.6, 0, 255))
    canvas = np.clip(img, 0, 255).astype(np.uint8)
    scale = 0.018 * p
    thick = max(1, round(0.04 * p))
    for k in range(n):
        centre = frame + int((k + 0.5) * p)
        label = LETTERS[k] if k < 26 else str(k)
        for text, (x, y) in (
            (label, (centre, frame - p // 2)),
            (label, (centre, frame + n * p + p // 2)),
            (str(k + 1), (frame - p // 2, centre)),
            (str(k + 1), (frame + n * p + p // 2, centre)),
        ):
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale / 1.5, thick)
            cv2.putText(
                canvas, text, (x - tw // 2, y + th // 2), cv2.FONT_HERSHEY_DUPLEX, scale / 1.5,
                ink, thick, cv2.LINE_AA,
            )  # fmt: skip
    lw = max(2, round(0.08 * p))
    a, b = frame - p, frame + (n + 1) * p
    cv2.rectangle(canvas, (a, a), (b, b), ink, lw)
    img[:] = canvas


def render_board(
    grid: list[str],
    profile: Profile | str,
    rng: np.random.Generator,
    cell_px: int = 64,
    markers: bool = False,
    look: str = "plain",
    font: str | None = None,
    tile_seed: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The board drawn top-down: (uint8 (S, S, 3) BGR, float32 (4, 2) grid corners in it).

    ``look`` is one of ``KINDS``; only ``labels``, ``bold`` and ``pale`` change the board itself.
    For Scrabble the premium squares are the standard board's (``Profile.premium``), coloured
    and labelled, and a lower-case letter of the grid is a blank tile (no letter). ``font``
    draws the letters in another face (a path below the Debian font folders). ``tile_seed``:
    each tile drawn from a generator of its own, seeded by it, the tile's square and what it
    shows, so that the same board drawn again after a move (tiles laid, turned over or
    substituted) draws every other tile and everything after the tiles alike, as a game's
    frames; None draws the tiles from ``rng`` in turn."""
    profile = get_profile(profile)
    n, p = profile.size, cell_px
    frame = int((2.2 if look == "labels" else 1.3) * p)
    side = n * p + 2 * frame
    if profile.coloured_ink:
        board = np.array(BOARD_COLOURS[int(rng.integers(0, len(BOARD_COLOURS)))], np.float32)
        tile_face = np.array([200, 232, 244], np.float32) + rng.uniform(-15, 8, 3)
        if look == "pale":
            board = tile_face * rng.uniform(0.86, 0.95)
        light = board.mean() > 110
        line = board * 0.45 if light else np.minimum(board + rng.uniform(70, 130), 255)
    else:
        board = np.array([200, 225, 235], np.float32) + rng.uniform(-25, 10, 3)
        line = np.array([40, 40, 40], np.float32)
        tile_face = np.array([150, 195, 225], np.float32) + rng.uniform(-25, 15, 3)
        if look == "pale":
            tile_face = board * rng.uniform(0.9, 0.97) + rng.uniform(-6, 6, 3)
            line = board * 0.6
    img = np.empty((side, side, 3), np.float32)
    img[:] = board * rng.uniform(0.85, 1.0)
    img[frame:-frame, frame:-frame] = board
    if look == "labels":
        _label_frame(img, frame, n, p, line, rng)
    lw = max(2, round(0.06 * p))
    for k in range(n + 1):
        a = frame + k * p
        img[a - lw // 2 : a - lw // 2 + lw, frame - lw // 2 : frame + n * p + lw] = line
        img[frame - lw // 2 : frame + n * p + lw, a - lw // 2 : a - lw // 2 + lw] = line
    for r, c in sorted(profile.premium):
        if grid[r][c] != ".":
            continue
        k = premium_kind(r, c, n)
        y0, x0 = frame + r * p + lw, frame + c * p + lw
        sq = np.empty((p - 2 * lw, p - 2 * lw, 3), np.uint8)
        sq[:] = PREMIUM_COLOURS[k]
        for j, word in enumerate(PREMIUM_NAMES[k]):
            cv2.putText(
                sq, word, (2, int((0.3 + 0.22 * j) * p)), cv2.FONT_HERSHEY_SIMPLEX,
                0.26 * p / 64, (245, 245, 245) if k in (0, 2) else (30, 30, 30), 1, cv2.LINE_AA,
            )  # fmt: skip
        img[y0 : y0 + p - 2 * lw, x0 : x0 + p - 2 * lw] = sq
    tile = int(0.9 * p)
    own = tile_seed is not None
    for r in range(n):
        for c in range(n):
            ch = grid[r][c]
            if ch == ".":
                continue
            rng_tile = np.random.default_rng([tile_seed, r, c, ord(ch)]) if own else rng
            if profile.coloured_ink:
                red = ch.islower()
                ink = (
                    np.array([45, 40, 185], np.float32) + rng_tile.uniform(-20, 20, 3)
                    if red
                    else np.array([165, 80, 30], np.float32) + rng_tile.uniform(-20, 20, 3)
                )
            else:
                ink = np.array([30, 30, 30], np.float32) + rng_tile.uniform(-20, 20, 3)
            face = tile_face + rng_tile.uniform(-6, 6, 3)
            if look == "pale":
                ink = ink + (face - ink) * rng_tile.uniform(0.3, 0.5)  # light ink
            letter = "?" if profile.blank_tiles and ch.islower() else ch
            sprite = _tile_sprite(
                letter, tile, face, ink, rng_tile, not profile.coloured_ink, look, font
            )
            cx = frame + (c + 0.5) * p + rng_tile.uniform(-0.05, 0.05) * p
            cy = frame + (r + 0.5) * p + rng_tile.uniform(-0.05, 0.05) * p
            rot = cv2.getRotationMatrix2D((tile / 2, tile / 2), float(rng_tile.uniform(-4, 4)), 1.0)
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
    look: str = "plain",
    cells: int = 11,
) -> tuple[np.ndarray, np.ndarray]:
    """A photo of a top-down board: perspective onto a table, light gradient, shadow, a hand at the
    edge, white balance, blur, noise, JPEG. ``size`` is (width, height) in pixels; ``look`` one
    of ``KINDS`` (``cut``, ``glare``, ``dark``, ``blur`` and ``pale`` change the photo);
    ``cells`` the grid's size.

    Returns (uint8 (H, W, 3) BGR photo, float32 (4, 2) grid corners in the photo)."""
    w, h = size
    bs = board.shape[0]
    span = rng.uniform(0.78, 0.95) * min(w, h)
    if look == "cut":
        span = min(w, h) * rng.uniform(0.95, 1.05)
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.04, 0.04, 2) * min(w, h)
    ang = np.radians(rng.uniform(-8, 8))
    rotm = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    quad = (unit * span) @ rotm.T + centre + rng.uniform(-0.035, 0.035, (4, 2)) * span
    src = np.float32([[0, 0], [bs, 0], [bs, bs], [0, bs]])
    hom = cv2.getPerspectiveTransform(src, np.float32(quad))
    if look == "cut":
        # move the board so the photo's edge cuts the grid by 0.5-1.5 cells on one or two sides
        gpts = cv2.perspectiveTransform(corners.reshape(1, 4, 2).astype(np.float32), hom)[0]
        cell = float(np.linalg.norm(gpts[1] - gpts[0])) / cells
        shift = np.zeros(2)
        sides = rng.permutation(4)[: int(rng.integers(1, 3))]
        for side in sides:
            cut = rng.uniform(0.5, 1.5) * cell
            if side == 0:
                shift[0] = -cut - gpts[:, 0].min()
            elif side == 1:
                shift[0] = w + cut - gpts[:, 0].max()
            elif side == 2:
                shift[1] = -cut - gpts[:, 1].min()
            else:
                shift[1] = h + cut - gpts[:, 1].max()
        quad = quad + shift
        centre = centre + shift
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
    if look == "glare":
        # a lamp's hotspot over the grid, blown out in its middle
        gpts = cv2.perspectiveTransform(corners.reshape(1, 4, 2).astype(np.float32), hom)[0]
        spot = gpts.mean(0) + rng.uniform(-0.35, 0.35, 2) * span
        radius = rng.uniform(0.03, 0.07) * span
        blob = np.exp(-((xx - spot[0]) ** 2 + (yy - spot[1]) ** 2) / (2 * radius**2))
        out += (rng.uniform(150, 260) * blob)[..., None]
    if look == "dark":
        out *= rng.uniform(0.15, 0.35)  # a frame taken before the exposure settled
    sigma = rng.uniform(0.0, 1.3) * max(w, h) / 1600
    if look == "blur":
        sigma = rng.uniform(2.0, 4.0) * max(w, h) / 1600
    elif look == "pale":
        sigma = rng.uniform(0.8, 1.8) * max(w, h) / 1600
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
    kind: str = "plain",
    blanks: tuple[int, int] = SET_BLANKS,
    font: str | None = None,
    tile_seed: int | None = None,
    turned: bool = False,
) -> SyntheticPhoto:
    """One synthetic photo of a random (or the given) board, with its truth. Deterministic for a
    seed. ``size`` is (width, height) in pixels; 1600x1200 is about 2 megapixels. ``kind`` is one
    of ``KINDS``; for ``bumped`` the photo's ``corners`` are where the grid was before the camera
    moved (``true_corners`` where it is). ``blanks``: how many blank tiles a random grid gets
    (:func:`random_grid`). ``font``: the letters' face (default FreeSans Bold, a face the cell
    model never learns from). ``tile_seed``: each tile drawn on its own (:func:`render_board`),
    so that the photos of one ``seed`` and ``tile_seed`` with a move's grids between them are
    one camera's frames of a game (alike but for the move's tiles; they share the sensor's
    noise too, which a game's frames do not: add a frame's own). ``turned``: the board lies
    turned half round under the same camera (Iago's players turn it towards the opponent after
    every move: rulebook, "The Move"); ``grid`` is still the board as its letters stand, and
    ``corners`` are in the photo's order (top-left as the camera sees it first).

    Raises:
        VisionError: an unknown kind.
    """
    if kind not in KINDS:
        raise VisionError(f"kind {kind!r}: accepted kinds are {', '.join(KINDS)}")
    profile = get_profile(profile)
    rng = np.random.default_rng(seed)
    if grid is None:
        grid = random_grid(profile, rng, blanks=blanks)
    cell = max(32, min(160, int(0.85 * min(size) / profile.size * 1.2)))
    board, corners = render_board(
        grid,
        profile,
        rng,
        cell_px=cell,
        markers=markers,
        look=kind,
        font=font,
        tile_seed=tile_seed,
    )
    if turned:
        # the square board turned in place: its grid's corners lie where they did
        board = np.ascontiguousarray(board[::-1, ::-1])
    image, truth = photograph(
        board, corners, rng, size=size, hand=hand, look=kind, cells=profile.size
    )
    photo = SyntheticPhoto(image, grid, truth, profile.name, kind=kind, true_corners=truth)
    if kind == "bumped":
        # the camera was bumped after its corners were set: the corners are the old ones
        cellv = (truth[1] - truth[0]) / profile.size
        cellh = (truth[3] - truth[0]) / profile.size
        a, b = rng.uniform(0.4, 1.2) * rng.choice([-1, 1]), rng.uniform(-0.6, 0.6)
        ang = np.radians(rng.uniform(-2, 2))
        centre = truth.mean(0)
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        old = (truth - centre) @ rot.T + centre + a * cellv + b * cellh
        photo.corners = old.astype(np.float32)
    return photo


def another_frame(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Another frame of one still camera: ``image`` (uint8 (H, W, 3) BGR) with the sensor's
    own noise (sigma 1.5-4, 8-bit levels), the exposure within 5% and a JPEG of its own
    (quality 60-95), as :func:`photograph` draws them. Returns uint8 (H, W, 3) BGR."""
    out = image.astype(np.float32) * rng.uniform(0.95, 1.05)
    out += rng.normal(0, rng.uniform(1.5, 4.0), image.shape)
    quality = int(rng.integers(60, 95))
    ok, buf = cv2.imencode(
        ".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def notation_of(photo: SyntheticPhoto) -> str:
    """The truth of a synthetic photo in board notation."""
    return format_board(photo.grid)
