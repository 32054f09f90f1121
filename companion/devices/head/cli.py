"""``companion head``: the Pico timer head's board file, flashing, a virtual head and its status.

- ``companion head config [-o PATH]`` writes firmware/board_config.py from the pin map's ``[head]``;
- ``companion head flash [--port P] [--dry-run]`` writes it and copies the firmware with mpremote;
- ``companion head virtual [--corrupt P --drop P --duplicate P --delay P]`` serves a virtual head
  on a pseudo-terminal (for a daemon configured with ``[backend] kind = "serial"`` and
  ``[head] port`` set to the printed path), optionally with faults on the frames it sends;
- ``companion head status [--port P]`` connects and prints the link's state as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from companion.errors import CompanionError
from companion.paths import PROJECT_ROOT


class HeadCliError(CompanionError, ValueError):
    """A bad option of a ``companion head`` command."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``head`` and its sub-commands to the ``companion`` parser."""
    head = sub.add_parser("head", help="the Pico timer head: board file, flashing, virtual head")
    hsub = head.add_subparsers(dest="head_command", metavar="ACTION")
    hsub.required = True

    p = hsub.add_parser(
        "config",
        help="write the firmware's board_config.py from the pin map's [head] section",
    )
    p.add_argument("--pinmap", help="the pin map (default: the box's, else hardware/pinmap.toml)")
    p.add_argument(
        "-o", "--output", help="where to write (default firmware/board_config.py; - for stdout)"
    )
    p.set_defaults(func=_config)

    p = hsub.add_parser(
        "flash",
        help="copy the firmware to the Pico with mpremote (board_config.py from the pin map)",
        description=(
            "Writes board_config.py from the pin map, asks a running firmware to leave for the "
            "REPL, then runs: mpremote connect PORT cp headproto.py headcore.py main.py "
            "board_config.py : + reset. The Pico must already run MicroPython (drag its UF2 "
            "onto the RPI-RP2 drive once)."
        ),
    )
    p.add_argument("--port", help="the head's serial port (default: [head] port of the pin map)")
    p.add_argument("--pinmap", help="the pin map (default: the box's, else hardware/pinmap.toml)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.set_defaults(func=_flash)

    p = hsub.add_parser(
        "virtual",
        help="serve a virtual head on a pseudo-terminal and print its path",
    )
    p.add_argument(
        "--seconds", type=float, default=None, help="stop after this long (default: Ctrl-C)"
    )
    for fault in ("corrupt", "drop", "duplicate", "delay"):
        p.add_argument(
            f"--{fault}",
            type=float,
            default=0.0,
            metavar="P",
            help=f"{fault} this fraction of the head's frames (0 to 1)",
        )
    p.set_defaults(func=_virtual)

    p = hsub.add_parser("status", help="connect to the head and print the link's state as JSON")
    p.add_argument("--port", help="the head's serial port (default: [head] port of the pin map)")
    p.add_argument("--pinmap", help="the pin map (default: the box's, else hardware/pinmap.toml)")
    p.add_argument(
        "--wait", type=float, default=2.0, help="seconds to wait for the head (default 2)"
    )
    p.set_defaults(func=_status)


def _head_map(pinmap_path: str | None):
    from companion.devices.head.config import head_map
    from companion.devices.pinmap import load_pinmap

    pinmap = load_pinmap(pinmap_path)
    return pinmap, head_map(pinmap)


def _source_name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


def _config(args: argparse.Namespace) -> int:
    from companion.devices.head.config import BOARD_CONFIG, board_config_text

    pinmap, head = _head_map(args.pinmap)
    text = board_config_text(head, _source_name(pinmap.source))
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    out = Path(args.output) if args.output else BOARD_CONFIG
    out.write_text(text, encoding="utf-8")
    print(json.dumps({"written": str(out), "pins": head.pins()}))
    return 0


def flash_commands(port: str, board_config: Path) -> list[list[str]]:
    """The mpremote command line that copies the firmware (one command, chained with ``+``)."""
    from companion.devices.head.wire import FIRMWARE_DIR, FIRMWARE_FILES

    files = [str(FIRMWARE_DIR / name) for name in FIRMWARE_FILES] + [str(board_config)]
    return [[sys.executable, "-m", "mpremote", "connect", port, "cp", *files, ":", "+", "reset"]]


def request_repl(port: str, wait: float = 0.3) -> bool:
    """Ask a running firmware on ``port`` to leave for the REPL; False if the port cannot be
    opened (mpremote will then say why)."""
    import serial

    from companion.devices.head.wire import proto

    frame = proto.encode_frame(0, 0, proto.T_REPL, proto.REPL_MAGIC)
    try:
        with serial.serial_for_url(port, baudrate=115200, timeout=0.05) as link:
            for _ in range(3):
                link.write(frame)
                time.sleep(0.02)
            time.sleep(wait)
    except (serial.SerialException, OSError, ValueError):
        return False
    return True


def _flash(args: argparse.Namespace) -> int:
    from companion.devices.head.config import board_config_text

    pinmap, head = _head_map(args.pinmap)
    port = args.port or head.port
    with tempfile.TemporaryDirectory(prefix="companion-head-") as tmp:
        board = Path(tmp) / "board_config.py"
        board.write_text(board_config_text(head, _source_name(pinmap.source)), encoding="utf-8")
        commands = flash_commands(port, board)
        if args.dry_run:
            for command in commands:
                print(" ".join(command))
            return 0
        request_repl(port)
        for command in commands:
            result = subprocess.run(command, check=False)
            if result.returncode != 0:
                print(
                    f"companion head flash: mpremote failed on {port} (exit "
                    f"{result.returncode}); is the head plugged in and running MicroPython?",
                    file=sys.stderr,
                )
                return 2
    print(json.dumps({"flashed": port, "pins": head.pins()}))
    return 0


def _virtual(args: argparse.Namespace) -> int:
    from companion.devices.head.virtual import Faults, PtyHead

    rates = {k: getattr(args, k) for k in ("corrupt", "drop", "duplicate", "delay")}
    bad = [f"--{k} {v}" for k, v in rates.items() if not 0.0 <= v <= 1.0]
    if bad:
        raise HeadCliError(f"{', '.join(bad)}: accepted a fraction from 0 to 1")
    head = PtyHead(faults=Faults(**rates))
    print(json.dumps({"port": head.path}), flush=True)
    try:
        if args.seconds is None:
            while True:
                time.sleep(3600)
        else:
            time.sleep(args.seconds)
    except KeyboardInterrupt:
        pass
    finally:
        head.close()
    return 0


def _status(args: argparse.Namespace) -> int:
    from companion.devices.head.backend import HeadConnection, open_port

    _, head = _head_map(args.pinmap)
    connection = HeadConnection(open_port(args.port or head.port))
    try:
        deadline = time.monotonic() + args.wait
        while not connection.link.connected and time.monotonic() < deadline:
            time.sleep(0.02)
        stats = connection.link.stats()
        stats["version_error"] = connection.link.version_error
        print(json.dumps(stats))
        return 0 if stats["connected"] else 1
    finally:
        connection.close()
