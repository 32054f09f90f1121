"""``companion sim``, ``companion daemon`` (alias ``serve``) and ``companion table setup|show``."""

from __future__ import annotations

import argparse
import sys

from companion.clock.timer import MAX_MINUTE_SECONDS, MIN_MINUTE_SECONDS

MINUTE_RANGE = f"{MIN_MINUTE_SECONDS:g} to {MAX_MINUTE_SECONDS:g}"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the table service's commands to the ``companion`` parser."""
    # `companion iago replay` also reads the games this service saves; the reader lives here
    from companion.games.iago import cli as iago_cli

    iago_cli.TABLE_RECORDS = "companion.daemon.table_record"
    p = sub.add_parser(
        "sim",
        help="the table on simulated hardware, in this terminal (keys press the buttons)",
        description=(
            "Run the table service on mock pins and a dummy OLED. Interactive in a terminal: "
            "b/r press blue's/red's button, c the challenge button, p pause/resume, o override, "
            "Enter confirm, q quit; while the screen asks for typed text (Iota, Wordinoes, "
            "challenged words) every key types and F1/F2/F3 press the buttons, F4 pauses, "
            "F9 abandons, F10 quits. Each game resumes its own game in progress. With --script FILE (or a non-terminal standard input) it "
            "runs a script of 'TIME ACTION [ARGS]' lines on a simulated clock and prints JSON."
        ),
    )
    p.add_argument("--script", help="a script file, or - for standard input")
    p.add_argument("--minutes", type=int, help="each player's allowance (default: table.toml)")
    p.add_argument(
        "--minute-seconds",
        type=float,
        help=f"the sand minute in seconds, {MINUTE_RANGE} (default: table.toml's, else 60)",
    )
    p.add_argument("--game", help="the game mode (default: table.toml's, else iago)")
    p.add_argument("--words", help="judge with this word list (one word a line) instead")
    p.add_argument(
        "--render",
        choices=("half", "quadrant", "braille", "ascii"),
        help="how the OLED is drawn in the terminal: half blocks (1x2 pixels a character, the "
        "sharpest), quadrants (2x2), braille (2x4, the smallest), ascii (no UTF-8); default: the "
        "sharpest that fits the terminal",
    )
    p.add_argument(
        "--frames",
        metavar="DIR",
        help="save every OLED frame as a PNG in DIR (NNNNN-T.png: frame number, seconds of the "
        "script, else of the game)",
    )
    p.add_argument(
        "--frames-scale",
        type=int,
        default=1,
        metavar="N",
        help="enlarge the saved frames N times, pixels kept sharp (for documentation; 1 to 8)",
    )
    p.add_argument(
        "--pinmap", help="pin map file: its [display] sets the OLED's size (default: the box's)"
    )
    p.add_argument(
        "--head",
        choices=("virtual",),
        help="drive buttons, LEDs, buzzer and disc through a virtual Pico timer head (serial)",
    )
    p.set_defaults(func=_sim)

    for name in ("daemon", "serve"):
        d = sub.add_parser(
            name,
            help="run the table service on the configured hardware"
            + (" (same as daemon)" if name == "serve" else ""),
            description=(
                "Run the table service: buttons, LEDs, buzzer, servo and OLED from the pin map "
                "([backend] kind), the game journaled in the data directory. Typed lines on "
                "standard input (a USB keyboard on the console) are the challenged words; "
                "/pause, /resume, /override, /confirm, /cancel, /new are the arbiter's; "
                "/count shows the colour count read by the camera."
            ),
        )
        d.add_argument("--pinmap", help="pin map file (default: the box's or hardware/pinmap.toml)")
        d.add_argument("--backend", choices=("gpio", "mock", "serial"), help="override the backend")
        d.set_defaults(func=_daemon)

    t = sub.add_parser(
        "table",
        help="the table's set-up (table.toml in the configuration directory)",
        description=(
            "The table's set-up, [table] in table.toml in the configuration directory: "
            "$COMPANION_CONFIG_DIR, else $CONFIGURATION_DIRECTORY (systemd), else "
            "$XDG_CONFIG_HOME/companion, else ~/.config/companion. 'table show' prints the path."
        ),
    )
    tsub = t.add_subparsers(dest="table_command", metavar="ACTION")
    tsub.required = True
    s = tsub.add_parser(
        "setup",
        help="write the table's set-up: number, players, colours, time control, lexicon",
        description=(
            "Write [table] in table.toml in the configuration directory ($COMPANION_CONFIG_DIR, "
            "else ~/.config/companion; 'table show' prints the path); its other sections are "
            "kept. Keys not given keep their current value. "
            "--players FIRST SECOND gives blue then red, or with --lot the colours are drawn."
        ),
    )
    s.add_argument("--number", type=int, help="the table number, 1 to 999")
    s.add_argument(
        "--players",
        nargs="+",
        metavar="NAME",
        help="the two players' names, blue then red (Iago is a game for two)",
    )
    s.add_argument("--blue", help="the blue player's name")
    s.add_argument("--red", help="the red player's name")
    s.add_argument("--lot", action="store_true", help="draw the colours by lot")
    s.add_argument("--minutes", type=int, help="each player's allowance in minutes, 1 to 99")
    s.add_argument(
        "--minute-seconds", type=float, help=f"the sand minute in seconds, {MINUTE_RANGE}"
    )
    s.add_argument("--lexicon", help="the lexicon's name (companion lexicon list)")
    s.add_argument("--game", help="the game mode (iago, iota, wordinoes, scrabble)")
    s.add_argument(
        "--challenge",
        help="scrabble: what a wrong challenge costs: double (the challenger's turn; NASPA's "
        "rule for its North American lexicon) or points (WESPA's)",
    )
    s.add_argument(
        "--challenge-points",
        type=int,
        help="scrabble: the points of a wrong challenge under --challenge points (default 5)",
    )
    s.add_argument(
        "--overtime-points",
        type=int,
        help="scrabble: points off for each minute or part of overtime (default 10)",
    )
    s.add_argument(
        "--replace",
        action="store_true",
        help="start table.toml afresh: keep nothing of the old file (even when it is broken); "
        "keys not given take their defaults",
    )
    s.set_defaults(func=_setup)
    show = tsub.add_parser("show", help="print the table's set-up as JSON")
    show.set_defaults(func=_show)


def _sim(args: argparse.Namespace) -> int:
    from companion.cliutil import read_lines
    from companion.daemon import sim

    table = sim.load_sim_table(args.minutes, args.minute_seconds, args.game)
    judge = sim.words_judge(args.words) if args.words else None
    frames = sim.FrameSaver(args.frames, args.frames_scale) if args.frames else None
    extra = {"frames": frames, "pinmap": args.pinmap}
    if args.script or not sys.stdin.isatty():
        if not args.script:
            print(
                "companion sim: standard input is not a terminal: reading it as a script (one "
                "'SECONDS ACTION' per line; run in a terminal for the interactive simulator)",
                file=sys.stderr,
            )
        lines, name = read_lines(args.script or "-", sim.SimScriptError)
        return sim.run_script(lines, name, table, judge, head=args.head, **extra)
    if not sys.stdout.isatty():
        raise sim.SimScriptError("the interactive simulator needs a terminal; use --script")
    return sim.run_interactive(table, args.render, judge, head=args.head, **extra)


def _daemon(args: argparse.Namespace) -> int:
    from companion.daemon.run import serve

    return serve(pinmap_path=args.pinmap, backend=args.backend)


def _setup(args: argparse.Namespace) -> int:
    import json

    from companion.daemon.config import (
        TableConfig,
        TableConfigError,
        draw_colours,
        read_table_values,
        save_table,
        table_path,
        updated,
    )

    # the keys as written, unchecked: a bad key in the file is reported with the others and
    # can be fixed by this very command
    values = {} if args.replace else read_table_values()
    current = TableConfig(**{k: v for k, v in values.items() if k in ("blue", "red")})
    blue, red = args.blue, args.red
    if args.players:
        if args.blue or args.red:
            raise TableConfigError("give --players BLUE RED or --blue/--red, not both")
        if len(args.players) != 2:
            n = len(args.players)
            raise TableConfigError(
                f"--players {' '.join(args.players)}: Iago takes two players, not {n}; "
                "accepted: --players BLUE RED (two names, blue then red). Iota and Wordinoes "
                "players are named at the table (companion sim --game iota)"
            )
        blue, red = args.players
    lot = None
    if args.lot:
        first, second = blue or current.blue, red or current.red
        blue, red = draw_colours(first, second)
        lot = True
    elif blue or red:
        lot = False
    options = {
        "number": "--number",
        "drawn_by_lot": "--lot",
        "minutes": "--minutes",
        "minute_seconds": "--minute-seconds",
        "lexicon": "--lexicon",
        "game": "--game",
        "challenge": "--challenge",
        "challenge_points": "--challenge-points",
        "overtime_points": "--overtime-points",
    }
    minutes = args.minutes
    if minutes is None and args.game == "scrabble" and values.get("game") != "scrabble":
        from companion.daemon.config import SCRABBLE_MINUTES

        minutes = SCRABBLE_MINUTES  # the crossword game's own time, unless told
    elif (
        minutes is None and args.game not in (None, "scrabble") and values.get("game") == "scrabble"
    ):
        minutes = TableConfig().minutes  # the crossword game's time is no allowance (Iago's 5)
    for colour in ("blue", "red"):
        options[colour] = "--players" if args.players else f"--{colour}"
    config = updated(
        values,
        source=str(table_path()),
        options=options,
        number=args.number,
        blue=blue,
        red=red,
        drawn_by_lot=lot,
        minutes=minutes,
        minute_seconds=args.minute_seconds,
        lexicon=args.lexicon,
        game=args.game,
        challenge=args.challenge,
        challenge_points=args.challenge_points,
        overtime_points=args.overtime_points,
    )
    path = save_table(config, replace=args.replace)
    print(json.dumps({"written": str(path), "table": config.to_dict()}, ensure_ascii=False))
    _warn_undrawable({"blue": config.blue, "red": config.red})
    if lot:
        # the same lot decides who starts (rulebook, "How to Play"): blue has the first move
        print(
            f"By lot: {config.blue} plays blue and has the first move; {config.red} (red) "
            "presses to start it (the ready screen says RED PRESSES TO START BLUE)",
            file=sys.stderr,
        )
    elif lot is False and values.get("drawn_by_lot"):
        # colours given by hand replace the lot's: said, not dropped unsaid
        print(
            f"companion table setup: the colours are now as given ({config.blue} blue, "
            f"{config.red} red), no longer drawn by lot; --lot draws them again",
            file=sys.stderr,
        )
    return 0


def _warn_undrawable(names: dict[str, str]) -> None:
    """Warn (standard error) about a player's name with characters none of the OLED's fonts
    draws (they would show as empty boxes); Chinese, Japanese and Korean names are drawn
    (fonts-wqy-microhei)."""
    from companion.daemon.screen import undrawable

    for colour, name in names.items():
        missing = undrawable(name)
        if missing:
            print(
                f"companion table setup: warning: {colour} {name!r}: the OLED's fonts cannot draw "
                f"{' '.join(missing)} (they would show as empty boxes); spell the name in another "
                "script (e.g. in Latin letters) with --players or --" + colour,
                file=sys.stderr,
            )


def _show(args: argparse.Namespace) -> int:
    import json

    from companion.daemon.config import load_table, table_path

    print(
        json.dumps({"file": str(table_path()), "table": load_table().to_dict()}, ensure_ascii=False)
    )
    return 0
