"""The ``companion`` command. Each area registers its own sub-commands from its ``cli`` module,
so this file is only the dispatcher.

Exit codes: 0 success, 1 a negative answer (INVALID, illegal), 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys

from companion import __version__
from companion.cliutil import CompanionParser
from companion.errors import CompanionError

# module paths with a ``register(subparsers)`` function; imported when the parser is built,
# so each must keep heavy imports (OpenCV, the lexicon) inside its handlers.
COMMAND_MODULES = (
    "companion.clock.cli",
    "companion.daemon.cli",
    "companion.lexicon.cli",
    "companion.games.iago.cli",
    "companion.games.iota.cli",
    "companion.games.wordinoes.cli",
    "companion.games.scrabble.cli",
    "companion.vision.cli",
    "companion.devices.cli",
    "companion.platform.cli",
    "companion.devices.head.cli",
    "companion.tournament.cli",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every area's sub-commands."""
    parser = CompanionParser(
        prog="companion",
        description="Table Companion: Iago's differential timer, word judge and board reader.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for path in COMMAND_MODULES:
        try:
            module = importlib.import_module(path)
        except ModuleNotFoundError as exc:
            if exc.name and (path == exc.name or path.startswith(exc.name + ".")):
                continue  # an area not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (130 for Ctrl-C, at any moment: the
    sub-commands' modules are imported while the parser is built, which takes a few seconds).

    Names and words print as themselves (JSON with ``ensure_ascii=False``); a character the
    terminal's encoding cannot show prints as a backslash escape instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    try:
        return int(args.func(args) or 0)
    except CompanionError as exc:
        print(f"companion {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
