"""``companion clock replay``: the differential timer on a script of timed events."""

from __future__ import annotations

import argparse
import json

from companion.cliutil import read_lines
from companion.clock.replay import (
    EVENT_KINDS,
    SCRABBLE_KINDS,
    ScriptError,
    parse_script,
    replay,
    replay_scrabble,
)
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
    p.add_argument(
        "--game",
        choices=("iago", "scrabble"),
        default="iago",
        help="whose clock: iago (the differential timer, default) or scrabble (the tournament "
        "clock with overtime)",
    )
    p.add_argument(
        "--minutes",
        type=int,
        default=None,
        help="each player's allowance (default 5; scrabble: own time, default 25)",
    )
    p.add_argument(
        "--challenge",
        choices=("double", "points"),
        default=None,
        help="scrabble: what a wrong challenge costs (default double: the challenger's turn)",
    )
    p.add_argument(
        "--minute-seconds",
        type=float,
        default=None,
        help=f"iago: the sand minute in seconds, {MIN_MINUTE_SECONDS:g} to {MAX_MINUTE_SECONDS:g} "
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
    scrabble = args.game == "scrabble"
    if scrabble and args.minute_seconds is not None:
        raise ClockError(
            "--minute-seconds is the sand minute of Iago's timer; the scrabble clock has none "
            "(accepted with --game scrabble: --minutes, --challenge, --at)"
        )
    if not scrabble and args.challenge is not None:
        raise ClockError("--challenge is the scrabble clock's; accepted with --game scrabble")
    lines, name = read_lines(args.script, ScriptError)
    events = parse_script(lines, name, SCRABBLE_KINDS if scrabble else EVENT_KINDS)
    at = args.at
    if at is not None and not is_number(at, 0.0):
        raise ScriptError(f"--at {at}: accepted a time in seconds, a finite number 0 or more")
    minutes = args.minutes if args.minutes is not None else (25 if scrabble else 5)
    if not 1 <= minutes <= 99:
        raise ClockError(f"--minutes {minutes}: accepted a whole number from 1 to 99")
    t = at if at is not None else (events[-1].t if events else 0.0)
    if scrabble:
        clock = replay_scrabble(events, minutes, args.challenge or "double", at)
        print(json.dumps(clock.snapshot(t)))
        return 0
    ms = args.minute_seconds if args.minute_seconds is not None else 60.0
    if not is_number(ms, MIN_MINUTE_SECONDS, MAX_MINUTE_SECONDS):
        raise ClockError(f"--minute-seconds {ms:g}: accepted {MINUTE_SECONDS_ACCEPTED}")
    timer = replay(events, minutes, ms, at)
    print(json.dumps(timer.snapshot(t)))
    return 0
