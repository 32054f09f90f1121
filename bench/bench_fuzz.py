"""Fuzzing every parser (issue 12, "Bad input never crashes"): 10,000 inputs each, and the
count of tracebacks per parser (goal 0).

The parsers and their inputs are those of bench/fuzz_targets.py: the valid seeds, the inputs that
crashed before (Unicode digits, thousands of digits, a number too large for a float, 500 nested
TOML arrays, ``buzzer = []``, an Iota grid longer than a file name, a word list line of only a
combining accent), then seeds mutated with those troublemakers; for the timer head's serial
frames, random bytes, damaged frames and frames with a valid CRC around random fields. A
traceback is any exception other than the parser's own clear error (a CompanionError).

``python -m bench fuzz`` runs it; ``COMPANION_FUZZ_INPUTS=N`` changes the count per parser.
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from collections import Counter

INPUTS = 10_000
GOAL = 0


def main() -> None:
    """Print, per parser, the inputs fed, the clear errors, the tracebacks and the time."""
    count = int(os.environ.get("COMPANION_FUZZ_INPUTS", INPUTS))
    with tempfile.TemporaryDirectory(prefix="companion-fuzz-") as tmp:
        # the parsers that look up lexicons and game modes read the data directory: a fresh one
        saved = {k: os.environ.get(k) for k in ("COMPANION_DATA_DIR", "COMPANION_CONFIG_DIR")}
        os.environ["COMPANION_DATA_DIR"] = os.path.join(tmp, "data")
        os.environ["COMPANION_CONFIG_DIR"] = os.path.join(tmp, "config")
        try:
            total = _run(count)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    verdict = "goal met" if total <= GOAL else "GOAL MISSED"
    print(f"   all parsers: {total} tracebacks (goal {GOAL}): {verdict}")


def _run(count: int) -> int:
    from bench.fuzz_targets import TARGETS, inputs
    from companion.errors import CompanionError

    print(f"   {'parser':<24} {'inputs':>7} {'clear errors':>13} {'tracebacks':>11} {'seconds':>8}")
    total = 0
    for t in TARGETS:
        values = inputs(t, count)
        errors, crashes, first = 0, Counter(), {}
        start = time.perf_counter()
        for value in values:
            try:
                t.run(value)
            except CompanionError:
                errors += 1
            except Exception as exc:  # noqa: BLE001 - what is counted
                frame = traceback.extract_tb(exc.__traceback__)[-1]
                where = f"{type(exc).__name__} at {os.path.basename(frame.filename)}:{frame.lineno}"
                crashes[where] += 1
                first.setdefault(where, (value, exc))
        seconds = time.perf_counter() - start
        n = sum(crashes.values())
        total += n
        print(f"   {t.name:<24} {len(values):>7} {errors:>13} {n:>11} {seconds:>8.1f}", flush=True)
        for where, k in crashes.most_common():
            value, exc = first[where]
            print(f"      {k} x {where}: {str(exc)[:80]!r} on {value!r:.100}")
    return total


if __name__ == "__main__":
    main()
