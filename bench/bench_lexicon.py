"""Lexicon figures (issue #3, "Speed and size, measured in bench/"), on the size-80 list:

- lookup time per word, the memory-mapped marisa-trie against a plain Python set and a sorted list
  with bisect, in one run (goal: within twice the set's time, at a tenth of its memory);
- index size on disk and time to open it (goal: under 1 MB and under 5 ms);
- resident memory of a process with the lexicon open (reported).

Run with ``python -m bench lexicon``. Builds the index in the data directory if needed.
"""

from __future__ import annotations

import bisect
import gc
import random
import statistics
import subprocess
import sys
import time

NAME = "scowl-80-both"
REPEATS = 5


def _deep_size(container) -> int:
    return sys.getsizeof(container) + sum(sys.getsizeof(w) for w in container)


def _per_word_ns(contains, words: list[str]) -> float:
    """Best of REPEATS: nanoseconds per ``contains(word)``, minus the bare loop's cost.

    Each repeat probes fresh copies of the words, as a word typed or read at the table arrives:
    a str caches its hash, and a set would otherwise be timed without hashing.
    """

    def loop(fn):
        fresh = [w.encode().decode() for w in words]
        start = time.perf_counter_ns()
        for w in fresh:
            fn(w)
        return time.perf_counter_ns() - start

    def bare(w):
        return w

    best = min(loop(contains) for _ in range(REPEATS))
    base = min(loop(bare) for _ in range(REPEATS))
    return max(best - base, 0) / len(words)


def _probe_words(words: list[str], n: int = 40_000) -> list[str]:
    """Half words of the list, half near misses (one letter changed), shuffled, fixed seed."""
    rng = random.Random(80)
    present = rng.sample(words, n // 2)
    absent = []
    letters = "abcdefghijklmnopqrstuvwxyz"
    for w in rng.sample(words, n // 2):
        i = rng.randrange(len(w))
        absent.append(w[:i] + rng.choice(letters) + w[i + 1 :])
    probe = present + absent
    rng.shuffle(probe)
    return probe


_CHILD = """
import sys, time
t0 = time.perf_counter()
from companion.lexicon import open_lexicon
t1 = time.perf_counter()
lex = open_lexicon({name!r})
t2 = time.perf_counter()
probe = {probe!r}
hits = sum(w in lex for w in probe)
touch_all = {touch_all!r}
if touch_all:
    n = sum(1 for _ in lex)
rss = [l for l in open('/proc/self/status') if l.startswith(('VmRSS', 'RssFile', 'RssAnon'))]
print((t1 - t0) * 1e3, (t2 - t1) * 1e3, *[int(l.split()[1]) for l in rss])
"""

_BASELINE = """
import companion.lexicon, marisa_trie
rss = [l for l in open('/proc/self/status') if l.startswith(('VmRSS', 'RssFile', 'RssAnon'))]
print(*[int(l.split()[1]) for l in rss])
"""


def _child(code: str) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [float(x) for x in out.stdout.split()]


def main() -> None:
    from companion.lexicon.store import build, open_lexicon

    lex = build(NAME, progress=True)
    words = list(lex._trie)  # lower case, as stored
    trie = lex._trie
    print(f"lexicon {lex.name}: {len(lex)} words")

    # --- lookups, in one run -----------------------------------------------------------------
    probe = _probe_words(words)
    as_set = set(words)
    as_sorted = sorted(words)

    def in_sorted(w, a=as_sorted, bl=bisect.bisect_left):
        i = bl(a, w)
        return i < len(a) and a[i] == w

    set_ns = _per_word_ns(as_set.__contains__, probe)
    sorted_ns = _per_word_ns(in_sorted, probe)
    trie_ns = _per_word_ns(trie.__contains__, probe)
    lex_ns = _per_word_ns(lex.__contains__, probe)
    upper_probe = [w.upper() for w in probe]
    lex_upper_ns = _per_word_ns(lex.__contains__, upper_probe)
    set_upper_ns = _per_word_ns(lambda w, s=as_set: w.lower() in s, upper_probe)
    print(f"lookup per word ({len(probe)} probes, half present, best of {REPEATS}):")
    print(f"  set                        {set_ns:8.0f} ns")
    print(f"  sorted list + bisect       {sorted_ns:8.0f} ns   ({sorted_ns / set_ns:.1f}x set)")
    print(f"  marisa-trie (raw key)      {trie_ns:8.0f} ns   ({trie_ns / set_ns:.1f}x set)")
    print(f"  Lexicon 'in' (lower case)  {lex_ns:8.0f} ns   ({lex_ns / set_ns:.1f}x set)")
    print(
        f"  Lexicon 'in' (UPPER case)  {lex_upper_ns:8.0f} ns   "
        f"(set with .lower(): {set_upper_ns:.0f} ns; {lex_upper_ns / set_upper_ns:.1f}x)"
    )
    goal = "met" if trie_ns <= 2 * set_ns else "NOT met"
    print(f"  goal within 2x the set's time: {goal} ({trie_ns / set_ns:.1f}x)")

    # --- memory -------------------------------------------------------------------------------
    set_bytes = _deep_size(as_set)
    sorted_bytes = _deep_size(as_sorted)
    index_bytes = lex.path.stat().st_size
    print("memory:")
    print(f"  set of str                 {set_bytes / 1e6:8.2f} MB")
    print(f"  sorted list of str         {sorted_bytes / 1e6:8.2f} MB")
    print(
        f"  marisa-trie (mapped file)  {index_bytes / 1e6:8.2f} MB   "
        f"({index_bytes / set_bytes:.3f} of the set)"
    )
    goal = "met" if index_bytes * 10 <= set_bytes else "NOT met"
    print(f"  goal a tenth of the set's memory: {goal}")
    del as_set, as_sorted
    gc.collect()

    # --- disk and open time -------------------------------------------------------------------
    times = []
    for _ in range(50):
        start = time.perf_counter()
        open_lexicon(NAME)
        times.append((time.perf_counter() - start) * 1e3)
    print("index:")
    goal = "met" if index_bytes < 1_000_000 else "NOT met"
    print(f"  size on disk               {index_bytes / 1e6:8.3f} MB   (goal < 1 MB: {goal})")
    med = statistics.median(times)
    goal = "met" if med < 5 else "NOT met"
    print(
        f"  open_lexicon (warm)        {med:8.3f} ms median, {max(times):.3f} ms worst of "
        f"{len(times)}   (goal < 5 ms: {goal})"
    )
    sample = probe[:2000]
    imp, opn, *_ = _child(_CHILD.format(name=NAME, probe=sample, touch_all=False))
    print(f"  new process: import {imp:.1f} ms, open_lexicon {opn:.2f} ms")

    # --- resident memory ----------------------------------------------------------------------
    base = _child(_BASELINE)
    _, _, rss, anon, filed = _child(_CHILD.format(name=NAME, probe=sample, touch_all=False))
    _, _, rss_all, _, file_all = _child(_CHILD.format(name=NAME, probe=sample, touch_all=True))
    print("resident memory (VmRSS) of a Python process:")
    print(f"  imports only (no lexicon)  {base[0] / 1e3:8.1f} MB")
    print(
        f"  lexicon open, 2000 lookups {rss / 1e3:8.1f} MB   (+{(rss - base[0]) / 1e3:.1f} MB; "
        f"anonymous {anon / 1e3:.1f} MB, file-backed {filed / 1e3:.1f} MB)"
    )
    print(
        f"  every word read once       {rss_all / 1e3:8.1f} MB   (+{(rss_all - base[0]) / 1e3:.1f} "
        f"MB; file-backed {file_all / 1e3:.1f} MB, shared by every process)"
    )


if __name__ == "__main__":
    main()
