"""Board reader timing on one core: a warped 15x15 board's 225 cells read by the cell model (goal:
under 150 ms); a photo at 2 MP and at 12 MP (goals: under 100 ms and 300 ms), by stage, with the
grid's corners given, found from ArUco markers and found from the grid itself; and the real
Scrabble photos (about 7 MP).

The photo is already decoded (a camera gives arrays); JPEG decoding is shown apart.

    .venv/bin/python -m bench vision
    .venv/bin/python -m bench.bench_vision --json   # the figures also as one JSON line, last

The JSON line (what ``make pi-check`` reads): ``cells_225_cpu_ms``, the warped board's 225 cells
(CPU ms, median of 5), and ``photos``, for each photo line's label (``"12 MP, grid found (no
markers)"``, ...) its ``mp`` (megapixels), ``cpu_ms`` and ``wall_ms`` (medians of 5), ``goal_ms``
and ``stages`` (median wall ms of each stage); ``real_photos`` is false when the real photos were
not there.
"""

from __future__ import annotations

import json
import os
import sys

# one core: numpy's BLAS and OpenCV on one thread (effective when numpy is not yet loaded)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402

# the real photos in shared/ beside the checkout (as CI lays it out), else the usual place
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real-scrabble-photos"
if not REAL.is_dir():
    REAL = Path("/work/shared/data/real-scrabble-photos")
GOALS_MS = {"2 MP": 100.0, "12 MP": 300.0}
REPEATS = 5


def _time(fn, repeats: int = REPEATS) -> tuple[float, float, dict[str, float]]:
    """Median CPU seconds and wall seconds of ``fn()`` (a BoardReading), and the median wall
    time of each stage. CPU time is the figure for one core: the machine may be shared."""
    fn()  # warm-up: the classifier is loaded and the caches filled
    cpu, wall, stages = [], [], {}
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        reading = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - t0)
        for k, v in reading.timings.items():
            stages.setdefault(k, []).append(v)
    return (
        statistics.median(cpu),
        statistics.median(wall),
        {k: statistics.median(v) for k, v in stages.items()},
    )


def _figures(mp: float, result: tuple, goal_ms: float) -> dict:
    """One photo line's figures for ``--json``: megapixels, CPU and wall ms, goal ms, stages' ms."""
    cpu, wall, stages = result
    return {
        "mp": round(mp, 2),
        "cpu_ms": 1000 * cpu,
        "wall_ms": 1000 * wall,
        "goal_ms": goal_ms,
        "stages": {k: 1000 * v for k, v in stages.items()},
    }


def _line(label: str, result: tuple, goal_ms: float | None) -> str:
    cpu, wall, stages = result
    parts = ", ".join(f"{k} {1000 * v:.0f}" for k, v in stages.items())
    verdict = ""
    if goal_ms is not None:
        verdict = f"  goal < {goal_ms:.0f} ms: {'met' if 1000 * cpu < goal_ms else 'NOT met'}"
    return f"  {label:<32} cpu {1000 * cpu:6.1f} ms  wall {1000 * wall:6.1f} ms  ({parts}){verdict}"


def main() -> None:
    cv2.setNumThreads(1)  # one core
    os.environ.setdefault("COMPANION_DATA_DIR", tempfile.mkdtemp(prefix="bench-vision-"))
    from companion.vision.cells import read_cells
    from companion.vision.localise import BoardTracker
    from companion.vision.profiles import get_profile
    from companion.vision.reader import read_board
    from companion.vision.synth import render_photo

    scrabble = get_profile("scrabble")
    photo = render_photo("scrabble", seed=3, size=(1600, 1200))
    from companion.vision.reader import warp_board

    warp = warp_board(photo.image, photo.corners, scrabble)
    read_cells(warp, scrabble)
    times = []
    for _ in range(REPEATS):
        c0 = time.process_time()
        read_cells(warp, scrabble)
        times.append(time.process_time() - c0)
    ms = 1000 * statistics.median(times)
    figures: dict = {"cells_225_cpu_ms": ms, "photos": {}, "real_photos": REAL.is_dir()}
    print(
        f"  warped 15x15 board, 225 cells read: cpu {ms:6.1f} ms  goal < 150 ms: "
        f"{'met' if ms < 150 else 'NOT met'}"
    )
    print("  synthetic Iago photos, one core, median of 5 (stages in ms):")
    for markers in (False, True):
        photo = render_photo("iago", seed=3, size=(1600, 1200), markers=markers)
        for label, scale in (("2 MP", 1.0), ("12 MP", 2.5)):
            image = photo.image
            corners = photo.corners
            if scale != 1.0:
                image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
                corners = corners * scale
            mp = image.shape[0] * image.shape[1] / 1e6
            goal = GOALS_MS[label]
            if not markers:
                tracker = BoardTracker("iago")
                runs = {
                    f"{label}, corners given": lambda im=image, c=corners: read_board(
                        im, "iago", corners=c
                    ),
                    f"{label}, grid found (no markers)": lambda im=image: read_board(im, "iago"),
                    f"{label}, fixed camera (tracked)": lambda im=image, tr=tracker: read_board(
                        im, "iago", tracker=tr
                    ),
                }
            else:
                runs = {f"{label}, ArUco markers found": lambda im=image: read_board(im, "iago")}
            for name, fn in runs.items():
                r = _time(fn)
                shown = name.replace(", corners", f" ({mp:.1f} MP), corners", 1)
                print(_line(shown, r, goal), flush=True)
                figures["photos"][name] = _figures(mp, r, goal)

    if REAL.is_dir():
        print("  real Scrabble photos (about 7 MP), one core:")
        for path in sorted(REAL.glob("*.jpg")):
            t0 = time.perf_counter()
            image = cv2.imread(str(path))
            decode = time.perf_counter() - t0
            corners = json.loads(path.with_suffix(".corners.json").read_text())
            r = _time(lambda im=image, c=corners: read_board(im, "scrabble", corners=c), 3)
            print(_line(f"{path.name}, corners given", r, None))
            r = _time(lambda im=image: read_board(im, "scrabble"), 3)
            print(_line(f"{path.name}, grid found", r, None))
            print(f"  {'':<32} (JPEG decoding apart: {1000 * decode:.0f} ms wall)")
    if "--json" in sys.argv[1:]:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
