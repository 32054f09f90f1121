"""Run every benchmark module (``bench/bench_*.py``) in turn: ``python -m bench [NAME...]``.

Each module has a ``main()`` that measures and prints its figures against the goals of its issue.
"""

import importlib
import pkgutil
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    for name in names:
        print(f"== {name} ==", flush=True)
        start = time.perf_counter()
        importlib.import_module(f"bench.{name}").main()
        print(f"   ({time.perf_counter() - start:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
