"""``companion wordinoes``: the match judge (and a game replay) on the command line.

``companion wordinoes match LEFT RIGHT`` prints the contract's JSON (docs/wordinoes.md) and exits
0 when the words match, 1 when no match was found (the players vote on an association), 2 on bad
input.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``wordinoes`` and its sub-commands to the ``companion`` parser."""
    w = sub.add_parser("wordinoes", help="Wordinoes: the match judge and the game's bookkeeping")
    wsub = w.add_subparsers(dest="wordinoes_command", metavar="ACTION")
    wsub.required = True
    p = wsub.add_parser(
        "match",
        help="do two adjoining words match? prints JSON",
        description=(
            "Judge two adjoining words of a Wordinoes chain (LEFT is the left word): compound, "
            "phrase, association, opposite, identical or rhyme. * is a blank end. Exit 0 match, "
            "1 no match found (the players vote on an association), 2 bad input."
        ),
    )
    p.add_argument("left", help="the left word (letters A-Z, or * for a blank end)")
    p.add_argument("right", help="the right word (letters A-Z, or * for a blank end)")
    p.add_argument(
        "--homonyms",
        action="store_true",
        help='the "Allow Homonyms?" variation: a word may stand for a homophone (SUN for SON)',
    )
    p.add_argument(
        "--lexicon", default=None, help="the lexicon for compounds (default: the table's)"
    )
    p.set_defaults(func=_match)

    w_ = wsub.add_parser(
        "warm",
        help="build the judge's caches (WordNet, lemminflect, CMUdict) if missing or stale",
        description=(
            "Build the match judge's caches in the data directory when they are missing or out "
            "of date (a Raspberry Pi Zero 2 W can: each step peaks near 110-125 MB). make install "
            "and make run call it; the table service never builds them itself."
        ),
    )
    w_.set_defaults(func=_warm)

    r = wsub.add_parser(
        "replay",
        help="replay a game script (JSON lines) and print the game's state as JSON",
        description="Replay a Wordinoes game script; see docs/wordinoes.md for its format.",
    )
    r.add_argument("script", help="the script file, or - for standard input")
    r.set_defaults(func=_replay)


def _match(args: argparse.Namespace) -> int:
    from companion.games.wordinoes.match import MatchJudge, check_word

    left, right = check_word(args.left, "LEFT"), check_word(args.right, "RIGHT")
    lexicon = None
    if args.lexicon is not None:
        from companion.lexicon import open_lexicon

        lexicon = open_lexicon(args.lexicon)
    result = MatchJudge(lexicon=lexicon, homonyms=args.homonyms).match(left, right)
    print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    return 0 if result.match else 1


_BUILD_JUDGE_CACHE = (
    "import signal, sys\n"
    "def _stop(signum, frame):\n"
    "    raise SystemExit(128 + signum)  # the half-built file is removed on the way out\n"
    "signal.signal(signal.SIGTERM, _stop)\n"
    "from companion.games.wordinoes.judgecache import judge_cache\n"
    "from companion.errors import CompanionError\n"
    "try:\n"
    "    judge_cache()\n"
    "except KeyboardInterrupt:\n"
    "    sys.exit(130)\n"
    "except (CompanionError, OSError) as exc:\n"
    "    sys.exit(f'companion wordinoes warm: error: {exc}')\n"
)


def _warm(args: argparse.Namespace) -> int:
    import time

    from companion.games.wordinoes.judgecache import cache_path, cache_problem
    from companion.games.wordinoes.match import warm_up

    before = cache_problem()
    start = time.perf_counter()
    if before:
        print(
            f"building the Wordinoes judge's cache {cache_path()} from WordNet, lemminflect and "
            "CMUdict (once; 15 s to a few minutes, longer on a Pi)...",
            flush=True,
        )
        # in a process of its own, so this one's peak (the build's, about 110 MB) is not added
        # to the sources warm_up opens next (CMUdict's own cache): each step's peak stays apart
        import subprocess

        built = subprocess.run(
            [sys.executable, "-c", _BUILD_JUDGE_CACHE], stdout=subprocess.DEVNULL, check=False
        )
        if built.returncode in (130, 143, -2, -15):
            print(
                "companion wordinoes warm: stopped before the cache was built; nothing is "
                "left half-built (run it again to build it)",
                file=sys.stderr,
            )
            return 130
        if built.returncode != 0:
            print(
                f"companion wordinoes warm: error: the cache build stopped (status "
                f"{built.returncode}); its own message is above",
                file=sys.stderr,
            )
            return 2
    warm_up()
    seconds = time.perf_counter() - start
    after = cache_problem()
    if after:
        print(f"companion wordinoes warm: error: {after}", file=sys.stderr)
        return 2
    print(f"{'built' if before else 'up to date'}: {cache_path()} ({seconds:.1f} s)")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from companion.cliutil import read_lines
    from companion.games.wordinoes.replay import ScriptError, replay_lines

    lines, name = read_lines(args.script, ScriptError)
    game = replay_lines(lines, name)
    print(json.dumps(game.snapshot(), indent=2, ensure_ascii=False))
    return 0
