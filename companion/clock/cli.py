"""``companion clock replay``: the differential timer on a script of timed events."""

from __future__ import annotations

import argparse
import json

from companion.cliutil import read_lines
from companion.clock.replay import ScriptError, parse_script, replay
from companion.clock.timer import (
    MAX_MINUTE_SECONDS,
    MIN_MINUTE_SECONDS,
    MINUTE_SECONDS_ACCEPTED,
    ClockError,
)
from companion.textformats import is_number


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``clock`` and its sub-commands to the ``companion`` parser."""
    clock = sub.add_parser("clock", help="the differential timer")
    csub = clock.add_subparsers(dest="clock_command", metavar="ACTION")
    csub.required = True
    p = csub.add_parser(
        "replay",
        help="replay a script of timed events and print the clock's state as JSON",
        description=(
            'Replay a script (one JSON object a line, e.g. {"t": 12.5, "press": "blue"}) '
            "with a simulated clock and print the state at the last event, or at --at T."
        ),
    )
    p.add_argument("script", help="the script file, or - for standard input")
    p.add_argument("--minutes", type=int, default=5, help="each player's allowance (default 5)")
    p.add_argument(
        "--minute-seconds",
        type=float,
        default=60.0,
        help=f"the sand minute in seconds, {MIN_MINUTE_SECONDS:g} to {MAX_MINUTE_SECONDS:g} "
        "(default 60)",
    )
    p.add_argument(
        "--at",
        type=float,
        default=None,
        help="print the state at this time in seconds (events after it are not applied)",
    )
    p.set_defaults(func=_replay)


def _replay(args: argparse.Namespace) -> int:
    lines, name = read_lines(args.script, ScriptError)
    events = parse_script(lines, name)
    at = args.at
    if at is not None and not is_number(at, 0.0):
        raise ScriptError(f"--at {at}: accepted a time in seconds, a finite number 0 or more")
    ms = args.minute_seconds
    if not is_number(ms, MIN_MINUTE_SECONDS, MAX_MINUTE_SECONDS):
        raise ClockError(f"--minute-seconds {ms:g}: accepted {MINUTE_SECONDS_ACCEPTED}")
    if not 1 <= args.minutes <= 99:
        raise ClockError(f"--minutes {args.minutes}: accepted a whole number from 1 to 99")
    timer = replay(events, args.minutes, ms, at)
    t = at if at is not None else (events[-1].t if events else 0.0)
    print(json.dumps(timer.snapshot(t)))
    return 0
