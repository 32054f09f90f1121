"""``companion judge --explain cat xqzt dogs``: wall time and peak memory, with and without the
explain index (issue 47 item 7).

Goal: under 1 s warm and under 150 MB peak resident, on a Raspberry Pi Zero 2 W's budget (512
MB). Before the index the command took 6-11 s warm (16.6 s the first time) and 345 MB: it read
every SCOWL file, opened nltk's WordNet reader and decompressed GCIDE. With it: 0.23 s warm and
33 MB; checked whole at every opening (``PRAGMA quick_check``) 0.30 s and 35 MB; the index's
build 30 s and 127 MB (docs/lexicon.md, "The explain index").

Everything runs in a data directory of its own (the user's lexicon index and screen cache are
copied in when there, else built first, outside the figures): the command without the index (the
fallback, the figures before), then the index built (``companion lexicon explain-index``: time,
peak, size), then the command with it. Each command runs in a child process measured by
:func:`bench.bench_judgecache.run_measured` (the peak of that process alone; its time includes
the small launcher's start, some 20 ms). ``--json`` prints the figures as one JSON line.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_judgecache import run_measured

GOAL_SECONDS = 1.0
GOAL_MB = 150.0
WORDS = ["cat", "xqzt", "dogs"]
WARM_RUNS = 5
FALLBACK_WARM_RUNS = 2

_EXPLAIN = [sys.executable, "-m", "companion", "judge", "--explain", *WORDS]
_BUILD = [sys.executable, "-m", "companion", "lexicon", "explain-index"]


def _timed(cmd: list[str], env: dict, ok=(0,)) -> tuple[float, float, str]:
    """Seconds and peak MiB of ``cmd``, and its standard error.

    Raises:
        RuntimeError: ``cmd`` exited with a code not in ``ok`` (its error output is in the
            message).
    """
    start = time.perf_counter()
    code, peak_kb, err = run_measured(cmd, env)
    seconds = time.perf_counter() - start
    if code not in ok:
        raise RuntimeError(f"{' '.join(cmd[2:])} failed (exit {code}):\n{err[-2000:]}")
    return seconds, peak_kb / 1024, err


def _runs(cmd: list[str], env: dict, warm: int) -> dict:
    """The first run and ``warm`` more of ``cmd`` (judge exits 1: XQZT is invalid)."""
    first, first_mb, err = _timed(cmd, env, ok=(1,))
    times, peaks = [], [first_mb]
    for _ in range(warm):
        seconds, mb, _ = _timed(cmd, env, ok=(1,))
        times.append(seconds)
        peaks.append(mb)
    return {
        "first_seconds": first,
        "warm_seconds": statistics.median(times),
        "peak_mb": max(peaks),
        "note": err.strip(),
    }


def _seed(data: Path) -> None:
    """Copy the user's lexicon indexes and screen cache into ``data`` when there (they are
    rebuilt otherwise: some 30 s), so the figures are the command's alone."""
    from companion.paths import data_dir

    home = data_dir(create=False)
    if (home / "lexicons").is_dir():
        shutil.copytree(
            home / "lexicons", data / "lexicons", ignore=shutil.ignore_patterns("*.lock")
        )
    (data / "cache").mkdir(parents=True, exist_ok=True)
    for screen in (home / "cache").glob("lexicon-screen-*.json"):
        shutil.copy2(screen, data / "cache" / screen.name)


def measure() -> dict:
    """The figures: ``without_index`` and ``with_index`` (``first_seconds``, ``warm_seconds``
    (median), ``peak_mb``), ``build`` (``seconds``, ``peak_mb``, ``size_mb``) and the goals.

    Raises:
        RuntimeError: a command failed (its error output is in the message).
    """
    with tempfile.TemporaryDirectory(prefix="explain-bench-") as tmp:
        data = Path(tmp)
        _seed(data)
        env = dict(os.environ, COMPANION_DATA_DIR=str(data))
        env.setdefault("COMPANION_CONFIG_DIR", str(data / "config"))
        _timed([sys.executable, "-m", "companion", "judge", "cat"], env)  # the lexicon, if needed
        without = _runs(_EXPLAIN, env, FALLBACK_WARM_RUNS)
        seconds, peak, _ = _timed(_BUILD, env)
        from companion.lexicon.explainindex import INDEX_VERSION

        index = data / "cache" / f"lexicon-explain-v{INDEX_VERSION}.sqlite"
        build = {"seconds": seconds, "peak_mb": peak, "size_mb": index.stat().st_size / 2**20}
        with_index = _runs(_EXPLAIN, env, WARM_RUNS)
    return {
        "without_index": without,
        "build": build,
        "with_index": with_index,
        "goal_seconds": GOAL_SECONDS,
        "goal_mb": GOAL_MB,
    }


def main() -> None:
    figures = measure()
    if "--json" in sys.argv[1:]:
        print(json.dumps(figures))
        return
    words = " ".join(WORDS)
    w, b, i = figures["without_index"], figures["build"], figures["with_index"]
    print(
        f"judge --explain {words}, without the index (the fallback): first {w['first_seconds']:.1f}"
        f" s, warm {w['warm_seconds']:.1f} s (median of {FALLBACK_WARM_RUNS}), peak "
        f"{w['peak_mb']:.0f} MB"
    )
    print(
        f"explain index build: {b['seconds']:.1f} s, peak {b['peak_mb']:.0f} MB, file "
        f"{b['size_mb']:.1f} MB"
    )
    fast = i["warm_seconds"] < GOAL_SECONDS
    light = i["peak_mb"] < GOAL_MB
    print(
        f"judge --explain {words}, with the index: first {i['first_seconds']:.2f} s, warm "
        f"{i['warm_seconds']:.2f} s (median of {WARM_RUNS}; {'meets' if fast else 'MISSES'} the "
        f"goal, < {GOAL_SECONDS:.0f} s), peak {i['peak_mb']:.0f} MB ("
        f"{'meets' if light else 'MISSES'} the goal, < {GOAL_MB:.0f} MB)"
    )
    if i["note"]:
        print(f"  MISSES: the index was not used: {i['note']}")


if __name__ == "__main__":
    main()
