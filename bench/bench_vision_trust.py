"""The board reader's accuracy and trust by kind: renders and validation photos apart.

- *Validation photos*: the real Scrabble photos (../shared/data, never trained on), at their
  own size and reduced to 1000, 800 and 600 pixels, with the corners given and found.
- *Renders*: synthetic photos of every kind (``companion.vision.synth.KINDS``) for both
  profiles, drawn in FreeSans Bold, a face the cell model never learns from
  (``wide.TEST_FONTS``), corners given and found; and Iago boards in held-out bold faces,
  serif and sans, small in the frame (``ren iago bold small``); the Scrabble renders read
  as a move, with the board before it (:func:`last_moves`, up to 3 a render); and Iago games
  read move by move as the table reads them (:func:`game_readings`: 10 moves a game, seeds
  63000 on at 20 px a cell in those faces, 63500 on in full photos, 63600 on with the board
  turned half round after every move, 63700 on turned and at 20 px).

For each: cells right, boards perfect, boards trusted, wrong boards trusted (must be 0) and the
share of perfect boards trusted.

    .venv/bin/python -m bench vision_trust
    BENCH_TRUST_PHOTOS=4 ...   # photos per profile and kind (default 6)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np

# the real photos in shared/ beside the checkout (as CI lays it out), else the usual place
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real-scrabble-photos"
if not REAL.is_dir():
    REAL = Path("/work/shared/data/real-scrabble-photos")
SEEDS = {"iago": 60000, "scrabble": 61000}
SMALL_IAGO_SEED = 62000
MOVES_A_RENDER = 3
MOVES_A_GAME = 10
# the mover of a game's board k (k >= 1, after move k - 1): blue moves first (synth.iago_game)
MOVERS = ("red", "blue")
GAME_SEEDS = {"small": 63000, "full": 63500, "turned": 63600, "smallturned": 63700}
SMALL_IAGO_FONTS = (
    "urw-base35/P052-Bold.otf",
    "freefont/FreeSansBold.ttf",
    "croscore/Tinos-Bold.ttf",
)
# the games read (:func:`game_readings`): photos' (width, height) in pixels, the letters' faces
# (cycled game by game; None the renders' default), and whether the board is turned half round
# after every move, as the rulebook has the players do (``render_photo(..., turned=)``)
GAME_KINDS = {
    "small": ((340, 256), SMALL_IAGO_FONTS, False),  # about 20 px a cell, held-out bold faces
    "full": ((1600, 1200), (None,), False),
    "turned": ((1600, 1200), (None,), True),
    "smallturned": ((340, 256), SMALL_IAGO_FONTS, True),
    # the same games in each of their two other faces (game g in face g + 1, then g + 2)
    "small+1": ((340, 256), SMALL_IAGO_FONTS[1:] + SMALL_IAGO_FONTS[:1], False),
    "small+2": ((340, 256), SMALL_IAGO_FONTS[2:] + SMALL_IAGO_FONTS[:2], False),
}


class Tally:
    """Cells right, boards perfect, trusted, wrong trusted, perfect trusted, for one kind."""

    def __init__(self) -> None:
        self.cells = self.right = self.boards = self.perfect = 0
        self.trusted = self.wrong_trusted = self.perfect_trusted = 0

    def add(self, truth: list[str], grid: list[str], trusted: bool) -> bool:
        """Count one reading (``grid`` against ``truth``); True when it is perfect."""
        ok = sum(
            a == b for tr, gr in zip(truth, grid, strict=True) for a, b in zip(tr, gr, strict=True)
        )
        n = sum(len(r) for r in truth)
        self.cells += n
        self.right += ok
        self.boards += 1
        self.perfect += ok == n
        self.trusted += trusted
        self.wrong_trusted += trusted and ok != n
        self.perfect_trusted += trusted and ok == n
        return ok == n

    def line(self, label: str) -> str:
        share = self.perfect_trusted / self.perfect if self.perfect else float("nan")
        return (
            f"  {label:<34} cells {self.right / max(self.cells, 1):7.2%}  perfect "
            f"{self.perfect:3d}/{self.boards:<3d} trusted {self.trusted:3d}  wrong trusted "
            f"{self.wrong_trusted}  perfect trusted {share:6.1%}"
        )


class CountTally:
    """The count of the lead (Iago, :attr:`~companion.vision.reader.BoardReading.count_trusted`),
    for one kind: readings whose every cell holds a tile or none as the truth does, each
    tile's colour right (``right``; the count is then right), counted (trusted), counted and
    not right (must be 0), and the share of the right ones counted."""

    def __init__(self) -> None:
        self.readings = self.right = self.trusted = self.wrong_trusted = self.right_trusted = 0

    def add(self, truth: list[str], reading, start=None) -> None:
        """Tally ``reading`` of ``truth``; ``start``, a game's (board when the move began as the
        table holds it or None, mover), counts it as the table does (a tile laid in the other
        player's colour withholds the count: :func:`companion.vision.table.laid_in_other_colour`)."""
        self.readings += 1
        if reading is None:
            return
        from companion.vision.cells import counted_differently
        from companion.vision.table import laid_in_other_colour

        right = not counted_differently(reading.grid, truth).any()
        counted = reading.count_trusted
        if counted and start is not None and start[0] is not None:
            counted = not laid_in_other_colour(start[0], reading, start[1])
        self.right += right
        self.trusted += counted
        self.wrong_trusted += counted and not right
        self.right_trusted += counted and right

    def line(self, label: str) -> str:
        share = self.right_trusted / self.right if self.right else float("nan")
        return (
            f"  {label:<34} count right {self.right:3d}/{self.readings:<3d} counted "
            f"{self.trusted:3d}  counted wrong {self.wrong_trusted}  right counted {share:6.1%}"
        )


def _truth(rows: list[str], profile: str) -> list[str]:
    """What the reader should write: a blank (lower case in a Scrabble truth file) as ``?``."""
    if profile == "scrabble":
        return ["".join("?" if ch.islower() else ch for ch in row) for row in rows]
    return rows


def _read(image, profile, corners, net=None, known=None):
    """The reading of ``image`` (None when the reader refuses it), by ``net`` (a CellNet;
    default the shipped model), with the board the game holds before the move (``known``)."""
    from companion.vision.errors import VisionError
    from companion.vision.reader import read_board

    try:
        r = read_board(image, profile, corners=corners, net=net, known=known)
    except VisionError:
        return None
    return r


def game_readings(seed: int, games: int, kind: str, net=None):
    """Iago games read move by move as the table reads them: each game's boards
    (:func:`companion.vision.synth.iago_game`, :data:`MOVES_A_GAME` moves from the empty
    board) photographed by one still camera (one ``seed`` for the board, the light and the
    pose, each frame its own noise: :func:`companion.vision.synth.another_frame`), each frame
    read by a :class:`companion.vision.table.BoardCamera` as at the table (with the game's last
    readings), corners given and found. Yields (how, truth, reading, start) for each
    move's board (the empty board read first is not yielded); ``reading`` None where the reader
    refuses it; ``start`` (board, mover) as the table holds them for the count: the reading of
    the board when the move began if it was trusted (else None) and the mover (blue moves
    first). ``kind`` is one of :data:`GAME_KINDS`; ``net`` a CellNet (default the shipped
    one)."""
    from companion.errors import CompanionError
    from companion.vision.synth import another_frame, iago_game, render_photo
    from companion.vision.table import BoardCamera

    size, fonts, turned = GAME_KINDS[kind]
    for g in range(games):
        boards = iago_game(np.random.default_rng(seed + g), MOVES_A_GAME)
        frames = np.random.default_rng([seed + g, 1])
        cams: dict = {}
        last: dict = {}  # how -> the reading of the board before (the move's start board)
        for k, grid in enumerate(boards):
            photo = render_photo(
                "iago", seed=seed + g, size=size, grid=grid, font=fonts[g % len(fonts)],
                tile_seed=seed + g, turned=turned and k % 2 == 1,
            )  # fmt: skip
            image = another_frame(photo.image, frames)
            for how, corners in (("given", photo.corners), ("found", None)):
                if how not in cams:
                    cams[how] = BoardCamera(None, "iago", corners=corners, net=net)
                try:
                    r = cams[how].read(frame=image)
                except CompanionError:
                    r = None
                if k:
                    before = last.get(how)
                    start = (before.grid if before and before.trusted else None, MOVERS[k % 2])
                    yield how, grid, r, start
                last[how] = r


def last_moves(rows: list[str]) -> list[list[str]]:
    """The boards before each move that could have been the last on ``rows`` (a truth file's
    rows): a word's tiles that no word across them holds, taken off, when they are at most a
    rack's 7 and the tiles left are one group (Scrabble's rules: a move lays one word's tiles,
    joined to the board). In the order of the words, across then down."""
    from companion.vision.facts import _groups

    n = len(rows)
    tiles = np.array([[ch != "." for ch in row] for row in rows])
    before_each = []
    for across in (True, False):
        grid = tiles if across else tiles.T
        for a in range(n):
            runs = np.split(np.arange(n), np.nonzero(~grid[a])[0])
            for run in (r[grid[a, r]] for r in runs):
                if len(run) < 2:
                    continue
                cells = [(a, b) if across else (b, a) for b in run]
                laid = [
                    (r, c)
                    for r, c in cells
                    if not any(
                        0 <= r + dr < n and 0 <= c + dc < n and tiles[r + dr, c + dc]
                        for dr, dc in (((1, 0), (-1, 0)) if across else ((0, 1), (0, -1)))
                    )
                ]
                left = tiles.copy()
                for r, c in laid:
                    left[r, c] = False
                if not laid or len(laid) > 7 or not left.any():
                    continue
                if _groups(left)[0] != 1:
                    continue
                before = [list(row) for row in rows]
                for r, c in laid:
                    before[r][c] = "."
                before_each.append(["".join(row) for row in before])
    return before_each


def real_photos():
    """Each real photo at its own size (``size`` None) and reduced to 1000, 800 and 600 pixels,
    corners given and found: (size, how, rows, image, corners), ``how`` "given" (the corners,
    float32 (4, 2) pixels) or "found" (None), ``rows`` its truth file's (a blank's letter in
    lower case), ``image`` uint8 BGR."""
    for path in sorted(REAL.glob("*.jpg")):
        image = cv2.imread(str(path))
        rows = path.with_suffix(".truth.txt").read_text().split()
        corners = np.float32(json.loads(path.with_suffix(".corners.json").read_text()))
        for size in (None, 1000, 800, 600):
            f = 1.0 if size is None else size / max(image.shape[:2])
            im = (
                image
                if size is None
                else cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            )
            for how, c in (("given", corners * f), ("found", None)):
                yield size, how, rows, im, c


def real_readings(net=None):
    """Each real photo's readings (:func:`real_photos`): (size, how, truth, reading), ``truth``
    as the reader writes it, ``reading`` None where the reader refuses the photo. ``net``: a
    CellNet (default shipped)."""
    for size, how, rows, im, c in real_photos():
        yield size, how, _truth(rows, "scrabble"), _read(im, "scrabble", c, net)


def validation() -> None:
    print("  validation photos (real, never trained on):")
    tallies: dict[str, Tally] = {}
    for size, how, truth, r in real_readings():
        t = tallies.setdefault(f"{how}, {'full' if size is None else size}", Tally())
        if r is None:
            t.add(truth, ["#" * 15] * 15, False)
        else:
            t.add(truth, r.grid, r.trusted)
    for label, t in tallies.items():
        print(t.line(label))


def renders(count: int) -> None:
    from companion.vision import wide
    from companion.vision.cells import read_cells
    from companion.vision.profiles import get_profile
    from companion.vision.synth import KINDS, render_photo

    print(f"  renders ({count} a kind; letters in a face never trained on):")
    # the Scrabble renders read as a move at the table too, with the board before it (the record)
    move_given, move_found = Tally(), Tally()
    counts = CountTally()
    for profile in ("iago", "scrabble"):
        for kind in KINDS:
            given, found = Tally(), Tally()
            for k in range(count):
                photo = render_photo(
                    profile, seed=SEEDS[profile] + 100 * KINDS.index(kind) + k, kind=kind
                )
                truth = _truth(photo.grid, profile)
                blank = ["#" * len(truth)] * len(truth)
                for c, t in ((photo.corners, given), (None, found)):
                    r = _read(photo.image, profile, c)
                    t.add(truth, r.grid if r else blank, bool(r and r.trusted))
                    if profile == "iago":
                        counts.add(truth, r)
                moves = last_moves(photo.grid)[:MOVES_A_RENDER] if profile == "scrabble" else []
                for before in moves:
                    for c, t in ((photo.corners, move_given), (None, move_found)):
                        r = _read(photo.image, profile, c, known=before)
                        t.add(truth, r.grid if r else blank, bool(r and r.trusted))
            print(given.line(f"{profile} {kind}, given"))
            print(found.line(f"{profile} {kind}, found"))
    # Iago small in the frame (about 20 px a cell), in bold faces held out of training
    given, found, small_counts = Tally(), Tally(), CountTally()
    for k in range(count * 3):
        font = SMALL_IAGO_FONTS[k % len(SMALL_IAGO_FONTS)]
        photo = render_photo("iago", seed=SMALL_IAGO_SEED + k, size=(340, 256), font=font)
        for c, t in ((photo.corners, given), (None, found)):
            r = _read(photo.image, "iago", c)
            t.add(photo.grid, r.grid if r else ["#" * 11] * 11, bool(r and r.trusted))
            small_counts.add(photo.grid, r)
    print(given.line("iago bold, 20 px a cell, given"))
    print(found.line("iago bold, 20 px a cell, found"))
    print(counts.line("iago, every kind, the count"))
    print(small_counts.line("iago bold, 20 px a cell, the count"))
    print(move_given.line("scrabble, every kind, as a move, given"))
    print(move_found.line("scrabble, every kind, as a move, found"))
    # Iago games read move by move, as the table reads them (the last readings kept as views)
    kinds = (("small", 2 * count), ("full", count), ("turned", count), ("smallturned", 2 * count))
    for name, games in kinds:
        tallies: dict = {}
        for how, grid, r, start in game_readings(GAME_SEEDS[name], games, name):
            t, c = tallies.setdefault(how, (Tally(), CountTally()))
            t.add(grid, r.grid if r else ["#" * 11] * 11, bool(r and r.trusted))
            c.add(grid, r, start)
        label = {
            "small": "iago games, 20 px, bold",
            "full": "iago games, plain",
            "turned": "iago games, turned",
            "smallturned": "iago games, turned, 20 px, bold",
        }[name]
        for how, (t, c) in tallies.items():
            print(t.line(f"{label}, {how}"))
            print(c.line(f"{label}, {how}, the count"))
    # the cells alone, wide renders in the held-out faces at 15-60 px a cell
    for profile_name in ("iago", "scrabble"):
        p = get_profile(profile_name)
        t = Tally()
        for k in range(count * 2):
            rng = wide.board_rng(SMALL_IAGO_SEED + 1, 2 * k + (profile_name == "iago"))
            px = float(np.exp(rng.uniform(np.log(15), np.log(60))))
            ren = wide.render(rng, p, fonts=wide.TEST_FONTS, cell_px=px, hands=False, bag=True)
            grid, _, _, _ = read_cells(ren.warp, p, photo_cell_px=ren.cell_px)
            t.add(ren.rows(p.coloured_ink), grid, False)
        print(t.line(f"{profile_name} wide renders, 15-60 px, cells"))


def main() -> None:
    count = int(os.environ.get("BENCH_TRUST_PHOTOS", "6"))
    if REAL.is_dir():
        validation()
    renders(count)


if __name__ == "__main__":
    main()
