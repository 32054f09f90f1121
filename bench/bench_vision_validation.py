"""The board reader's validation figures: the sets a change to the reader is chosen with.

A model, a shift, a level or a rule of the reader is chosen on these and on nothing else; the
renders of ``bench vision_trust`` (seeds 60000-62000) and the cross-profile check's are test
data, only reported. The sets:

- ``real``: the real Scrabble photos of ../shared/data (never trained on), at their own size and
  reduced to 1000, 800 and 600 pixels, corners given and found;
- ``scrabble``: Scrabble renders of every kind (``companion.vision.synth.KINDS``), seeds 81000
  on, 6 a kind, in FreeSans Bold, given and found;
- ``iago20``: Iago boards small in the frame (about 20 px a cell) in the held-out bold faces,
  seeds 83000 on, 36 photos, given and found;
- ``iagokinds``: Iago renders of every kind, seeds 83500 on, 4 a kind, given and found;
- ``realmoves``: the real photos read as a move at the table, with the board the game held
  before it (``read_board(..., known=)``): each word's tiles that no word across holds, taken
  off the truth, when the tiles left are one group (:func:`last_moves`), up to 8 a photo, each
  read as ``real`` reads the photo (4 sizes, corners given and found): 3 photos, 92 readings;
- ``iagogames``: Iago games read move by move as the table reads them, each frame with the
  game's last reading (:func:`bench.bench_vision_trust.game_readings`): 48 games at
  about 20 px a cell in the held-out bold faces (seeds 84000 on; 15-22 px) and 6 in full
  photos (84500 on), 10 moves each, given and found;
- ``iagoturned``: Iago games whose board is turned half round after every move under the same
  camera, as the rulebook has the players do: 6 in full photos (seeds 84600 on) and 12 at
  about 20 px a cell in the held-out bold faces (84700 on);
- ``iagofaces``: the 48 games of ``iagogames`` at about 20 px a cell, each read again in its
  two other held-out faces (seeds 84000 on).

Each line: cells right, boards perfect, trusted, wrong boards trusted (must be 0), the share
of perfect boards trusted, the cells under the reading's trust level, and what holds back the
boards read right but not trusted: a check (of the photo, the grid, the board's facts) or
cells in doubt alone.

    .venv/bin/python -m bench vision_validation
    BENCH_VALIDATION_MODEL=/tmp/m/cellnet.onnx ...  # another model (its recipe beside it)
    BENCH_VALIDATION_SETS=real,iago20 ...            # some of the sets
    BENCH_LEVEL_BOARDS=600 ...  # also: the trust level its recipe's rule gives on that many of
                                # the recipe's validation renders (how stable the level is)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from bench.bench_vision_trust import (
    REAL,
    SMALL_IAGO_FONTS,
    CountTally,
    Tally,
    _read,
    _truth,
    game_readings,
    last_moves,
    real_photos,
    real_readings,
)
from companion.vision.reader import UNSURE_CELLS

SCRABBLE_SEED = 81000
IAGO_SMALL_SEED = 83000
IAGO_KINDS_SEED = 83500
IAGO_GAME_SEEDS = {
    "small": 84000, "full": 84500, "turned": 84600, "smallturned": 84700,
    "small+1": 84000, "small+2": 84000,
}  # fmt: skip
SETS = (
    "real", "scrabble", "iago20", "iagokinds", "realmoves", "iagogames", "iagoturned", "iagofaces",
)  # fmt: skip
MOVES_A_PHOTO = 8


class Doubt:
    """What holds readings back from trust, over the readings of one set and way: the cells
    under the reading's trust level (``low``), and the boards read right but not trusted, held
    back by a check of the photo, the grid or the board's facts (``checks``: too soft, dark,
    glare, cut, something over the board, ...) or by cells in doubt alone (``doubt``)."""

    def __init__(self) -> None:
        self.low = self.checks = self.doubt = 0

    def add(self, reading, level: float, perfect: bool) -> None:
        if reading is None:
            return
        self.low += int((reading.confidence < level).sum())
        if perfect and reading.problems:
            if all(UNSURE_CELLS in p for p in reading.problems):
                self.doubt += 1
            else:
                self.checks += 1

    def line(self) -> str:
        return (
            f"  cells under the level {self.low}; right, not trusted: {self.checks} by the checks, "
            f"{self.doubt} by cells in doubt alone"
        )


def _tally(tallies: dict, label: str, truth: list[str], reading, level: float, start=None) -> None:
    t, d = tallies.setdefault(label, (Tally(), Doubt()))
    n = len(truth)
    perfect = t.add(
        truth, reading.grid if reading else ["#" * n] * n, bool(reading and reading.trusted)
    )
    d.add(reading, level, perfect)
    if label.startswith("iago"):
        # the count of the lead, which asks only the tiles and their colours
        counted = label.split(",")[0] + ", the count"
        c, _ = tallies.setdefault(counted, (CountTally(), None))
        c.add(truth, reading, start)


def read_sets(net, sets: tuple[str, ...]) -> dict:
    """{label: (Tally, Doubt)} of the validation ``sets`` read by ``net`` (a CellNet)."""
    from companion.vision.synth import KINDS, render_photo

    level = net.reader_trust_level
    out: dict = {}
    if "real" in sets and REAL.is_dir():
        for _, how, truth, reading in real_readings(net):
            _tally(out, f"real photos, {how}", truth, reading, level)
    if "scrabble" in sets:
        for i, kind in enumerate(KINDS):
            for k in range(6):
                photo = render_photo("scrabble", seed=SCRABBLE_SEED + 100 * i + k, kind=kind)
                truth = _truth(photo.grid, "scrabble")
                for how, c in (("given", photo.corners), ("found", None)):
                    reading = _read(photo.image, "scrabble", c, net)
                    _tally(out, f"scrabble kinds, {how}", truth, reading, level)
    if "iago20" in sets:
        for k in range(36):
            font = SMALL_IAGO_FONTS[k % len(SMALL_IAGO_FONTS)]
            photo = render_photo("iago", seed=IAGO_SMALL_SEED + k, size=(340, 256), font=font)
            for how, c in (("given", photo.corners), ("found", None)):
                reading = _read(photo.image, "iago", c, net)
                _tally(out, f"iago bold 20 px, {how}", photo.grid, reading, level)
    if "iagokinds" in sets:
        for i, kind in enumerate(KINDS):
            for k in range(4):
                photo = render_photo("iago", seed=IAGO_KINDS_SEED + 100 * i + k, kind=kind)
                for how, c in (("given", photo.corners), ("found", None)):
                    reading = _read(photo.image, "iago", c, net)
                    _tally(out, f"iago kinds, {how}", photo.grid, reading, level)
    if "realmoves" in sets and REAL.is_dir():
        for _, how, rows, image, corners in real_photos():
            truth = _truth(rows, "scrabble")
            for before in last_moves(rows)[:MOVES_A_PHOTO]:
                reading = _read(image, "scrabble", corners, net, known=before)
                _tally(out, f"real photos, moves, {how}", truth, reading, level)
    games = []
    if "iagogames" in sets:
        games += [("small", 48, "20 px"), ("full", 6, "plain")]
    if "iagoturned" in sets:
        games += [("turned", 6, "turned"), ("smallturned", 12, "turned 20 px")]
    if "iagofaces" in sets:
        games += [("small+1", 48, "20 px next face"), ("small+2", 48, "20 px third face")]
    for kind, count, name in games:
        for how, grid, reading, start in game_readings(IAGO_GAME_SEEDS[kind], count, kind, net):
            _tally(out, f"iago games {name}, {how}", grid, reading, level, start)
    return out


def level_stability(path: Path, boards: int) -> None:
    """Print the trust levels the recipe's rule (:func:`companion.vision.learn.reader_trust_level`)
    chooses on ``boards`` of the recipe's validation renders, beside the recipe's own."""
    from companion.vision import learn

    recipe = json.loads(path.with_suffix(".json").read_text())
    seed = int(recipe["validation"]["seed"])
    level, count_level, cells = learn.reader_trust_level(path, recipe, seed, boards)
    print(
        f"  trust levels by the recipe's rule on {boards} validation renders ({cells} cells): "
        f"a reading's {level}, a count's {count_level} (the recipe's, on "
        f"{recipe['validation']['boards']}: {recipe.get('reader_trust_level')}, "
        f"{recipe.get('count_trust_level')})"
    )


def main() -> None:
    from companion.vision import cellnet

    model = os.environ.get("BENCH_VALIDATION_MODEL")
    path = Path(model) if model else cellnet.SHIPPED_MODEL
    net = cellnet.CellNet(path) if model else cellnet.load_cellnet()
    sets = tuple(
        s.strip() for s in os.environ.get("BENCH_VALIDATION_SETS", ",".join(SETS)).split(",")
    )
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        raise SystemExit(
            f"BENCH_VALIDATION_SETS: no validation set {', '.join(map(repr, unknown))}; "
            f"the sets are {', '.join(SETS)}"
        )
    print(f"  model {path} (trust level {net.reader_trust_level}); validation sets only:")
    for label, (t, d) in read_sets(net, sets).items():
        print(t.line(label) + (d.line() if d is not None else ""))
    boards = int(os.environ.get("BENCH_LEVEL_BOARDS", "0"))
    if boards:
        level_stability(path, boards)


if __name__ == "__main__":
    main()
