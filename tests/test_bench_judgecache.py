"""The judge-cache bench measures the build's own processes (issue 47): neither a larger child
reaped earlier in the same run (another bench's) nor the memory of the process that runs the
bench (pytest here, ``python -m bench`` there) is reported as the build's peak."""

import subprocess
import sys

from bench.bench_judgecache import run_measured

BIG = "b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096])"
"""A process that touches 200 MiB (every page written, so it is resident)."""


def test_the_peak_is_the_measured_processes_not_an_earlier_larger_child():
    subprocess.run([sys.executable, "-c", BIG], check=True)  # an earlier, larger child
    code, peak_kb, _ = run_measured([sys.executable, "-c", "pass"])
    assert code == 0
    assert peak_kb < 100 * 1024  # a bare interpreter: tens of MiB, not the 200 MiB child


def test_the_peak_is_not_the_measuring_process_own_memory():
    ballast = bytearray(300 * 2**20)
    ballast[:: 2**12] = b"x" * len(ballast[:: 2**12])  # this process now holds 300 MiB
    code, peak_kb, _ = run_measured([sys.executable, "-c", "pass"])
    del ballast
    assert code == 0 and peak_kb < 100 * 1024


def test_the_peak_counts_the_descendants_the_process_waits_for():
    inner = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BIG!r}], check=True)"
    code, peak_kb, _ = run_measured([sys.executable, "-c", inner])
    assert code == 0 and peak_kb > 200 * 1024


def test_the_exit_code_and_errors_are_reported():
    code, _, err = run_measured([sys.executable, "-c", "import sys; sys.exit('no cache: x')"])
    assert code == 1 and "no cache: x" in err
