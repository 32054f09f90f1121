"""Board reader timing on one core: a photo at 2 MP and at 12 MP (goals: under 100 ms and 300 ms),
by stage, with the grid's corners given, found from ArUco markers and found from the grid itself;
and the real Scrabble photos (about 7 MP). Also the time to build the letter classifier.

The photo is already decoded (a camera gives arrays); JPEG decoding is shown apart.

    .venv/bin/python -m bench vision
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

import cv2

REAL = Path("/work/shared/data/real-scrabble-photos")
GOALS_MS = {"2 MP": 100.0, "12 MP": 300.0}
REPEATS = 5


def _time(fn, repeats: int = REPEATS) -> tuple[float, dict[str, float]]:
    """Median seconds of ``fn()`` (a BoardReading) and the median of each stage."""
    fn()  # warm-up: the classifier is loaded and the caches filled
    totals, stages = [], {}
    for _ in range(repeats):
        t0 = time.perf_counter()
        reading = fn()
        totals.append(time.perf_counter() - t0)
        for k, v in reading.timings.items():
            stages.setdefault(k, []).append(v)
    return statistics.median(totals), {k: statistics.median(v) for k, v in stages.items()}


def _line(label: str, seconds: float, stages: dict[str, float], goal_ms: float | None) -> str:
    parts = ", ".join(f"{k} {1000 * v:.0f}" for k, v in stages.items())
    verdict = ""
    if goal_ms is not None:
        verdict = f"  goal < {goal_ms:.0f} ms: {'met' if 1000 * seconds < goal_ms else 'NOT met'}"
    return f"  {label:<34} {1000 * seconds:7.1f} ms  ({parts}){verdict}"


def main() -> None:
    cv2.setNumThreads(1)  # one core
    os.environ.setdefault("COMPANION_DATA_DIR", tempfile.mkdtemp(prefix="bench-vision-"))
    from companion.vision import glyphs
    from companion.vision.reader import read_board
    from companion.vision.synth import render_photo

    t0 = time.perf_counter()
    glyphs.train(force=True)
    glyphs._CACHE.clear()
    glyphs.load_classifier(48, "iago")
    print(f"  letter classifier built from fonts in {time.perf_counter() - t0:.1f} s")

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
                s, st = _time(lambda im=image, c=corners: read_board(im, "iago", corners=c))
                print(_line(f"{label} ({mp:.1f} MP), corners given", s, st, goal))
                s, st = _time(lambda im=image: read_board(im, "iago"))
                print(_line(f"{label}, grid found (no markers)", s, st, goal))
            else:
                s, st = _time(lambda im=image: read_board(im, "iago"))
                print(_line(f"{label}, ArUco markers found", s, st, goal))

    if REAL.is_dir():
        import json

        print("  real Scrabble photos (about 7 MP), one core:")
        for path in sorted(REAL.glob("*.jpg")):
            t0 = time.perf_counter()
            image = cv2.imread(str(path))
            decode = time.perf_counter() - t0
            corners = json.loads(path.with_suffix(".corners.json").read_text())
            s, st = _time(lambda im=image, c=corners: read_board(im, "scrabble", corners=c), 3)
            print(_line(f"{path.name}, corners given", s, st, None))
            s, st = _time(lambda im=image: read_board(im, "scrabble"), 3)
            print(_line(f"{path.name}, grid found", s, st, None))
            print(f"  {'':<34} (JPEG decoding apart: {1000 * decode:.0f} ms)")


if __name__ == "__main__":
    main()
