"""Wordinoes: the peak memory and the time of building the judge's cache from scratch.

Goal (issue 14): the build fits a Raspberry Pi Zero 2 W (512 MB, about 420 MB free on Raspberry
Pi OS Lite): a peak under 150 MB resident. It runs at install time (``companion wordinoes warm``),
never inside the table service. ``companion wordinoes warm`` runs in a fresh subprocess with its
own data directory; the peak is the largest ``ru_maxrss`` of it and the build process it starts,
read by a small launcher started for it alone (:func:`run_measured`), so the interpreter,
imports and sqlite are all counted and nothing else is: this process's
``getrusage(RUSAGE_CHILDREN)`` gives the largest child of the whole run, an earlier bench's, and a
child started straight from a large process is charged that process's peak (``make bench``
reported 502 MB for a 120 MB build). ``--json`` prints the figures as one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

GOAL_MB = 150.0

_BUILD = [sys.executable, "-m", "companion", "wordinoes", "warm"]
"""What ``make install`` and ``make run`` run: the judge's cache built in a process of its own,
then every source opened (CMUdict's cache built); the peak is the largest of those processes."""
_CHECK = (
    "from companion.games.wordinoes.judgecache import judge_cache; "
    "assert judge_cache().wordnet.synsets('dog'), 'the built cache has no dog'"
)


_LAUNCHER = (
    "import resource, subprocess, sys; "
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
    "sys.exit(done.returncode)"
)
"""A fresh, small interpreter that runs the measured command and prints the largest
``ru_maxrss`` (KiB) of its children: the command and the descendants it waited for."""


def run_measured(cmd: list[str], env: dict | None = None) -> tuple[int, float, str]:
    """Run ``cmd`` and return its exit code, the peak resident memory (KiB) of that process and
    of the descendants it waited for, and its standard error.

    The command runs under :data:`_LAUNCHER`, a small interpreter started for it alone, which
    reads ``RUSAGE_CHILDREN`` of its own: a process's ``ru_maxrss`` starts from the peak of the
    process it was started from (Linux carries the old memory's peak over an ``exec``, and
    ``subprocess`` starts children by ``vfork``), so a command started straight from a large
    process (the bench run, pytest) would be charged that process's peak; and this process's
    own ``RUSAGE_CHILDREN`` is the largest child it ever reaped, an earlier bench's.
    """
    with tempfile.TemporaryFile() as err:
        done = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, *cmd],
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            check=False,
        )
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    lines = done.stdout.split()
    peak = float(lines[-1]) if lines and lines[-1].isdigit() else float("nan")
    return done.returncode, peak, stderr


def measure() -> dict:
    """Build the cache in a subprocess; returns ``peak_mb`` (resident, MiB), ``seconds``,
    ``size_mb`` (the sqlite file) and ``goal_mb``.

    Raises:
        RuntimeError: the build failed (its error output is in the message).
    """
    with tempfile.TemporaryDirectory(prefix="judgecache-bench-") as data:
        env = dict(os.environ, COMPANION_DATA_DIR=data)
        start = time.perf_counter()
        code, peak_kb, stderr = run_measured(_BUILD, env)
        seconds = time.perf_counter() - start
        if code != 0:
            raise RuntimeError(f"the cache build failed:\n{stderr[-2000:]}")
        checked = subprocess.run(
            [sys.executable, "-c", _CHECK], env=env, capture_output=True, text=True, check=False
        )
        if checked.returncode != 0:
            raise RuntimeError(f"the built cache does not answer:\n{checked.stderr[-2000:]}")
        files = [os.path.join(r, f) for r, _, fs in os.walk(data) for f in fs if "judge" in f]
        size = sum(os.path.getsize(f) for f in files)
    return {
        "peak_mb": peak_kb / 1024,
        "seconds": seconds,
        "size_mb": size / 2**20,
        "goal_mb": GOAL_MB,
    }


def main() -> None:
    figures = measure()
    if "--json" in sys.argv[1:]:
        print(json.dumps(figures))
        return
    verdict = "meets" if figures["peak_mb"] < GOAL_MB else "MISSES"
    print(
        f"judge cache build: peak {figures['peak_mb']:.0f} MB resident ({verdict} the goal, "
        f"< {GOAL_MB:.0f} MB), {figures['seconds']:.1f} s, cache file {figures['size_mb']:.1f} MB"
    )


if __name__ == "__main__":
    main()
