"""Commands for building and installing a box: ``companion wiring``, ``companion hardware
check``, ``companion install``. The box's parts themselves (pins, OLEDs, the servo and its
calibration) are :mod:`companion.devices`'s; this package imports them, never the reverse.

Heavy imports (gpiozero, luma) stay inside the handlers so ``companion --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.errors import CompanionError


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``wiring``, ``hardware`` and ``install`` to the ``companion`` parser."""
    p = sub.add_parser(
        "wiring",
        help="the wiring diagram generated from the pin map (text, Markdown or SVG)",
        description=(
            "Print how to wire the box described by the pin map (the per-box "
            "<config dir>/pinmap.toml if present, else hardware/pinmap.toml): each part's "
            "terminals to the header's physical pins. --check only validates the pin map."
        ),
    )
    p.add_argument("--pinmap", type=Path, default=None, help="a pin map file")
    p.add_argument(
        "--format", choices=("text", "markdown", "svg"), default="text", help="default text"
    )
    p.add_argument("-o", "--output", type=Path, default=None, help="write to this file")
    p.add_argument("--check", action="store_true", help="only validate the pin map")
    p.set_defaults(func=_wiring)

    hw = sub.add_parser("hardware", help="the box's hardware: check what answers")
    hsub = hw.add_subparsers(dest="hardware_command", metavar="ACTION")
    hsub.required = True
    p = hsub.add_parser(
        "check",
        help="report each part (pins, OLEDs, servo, camera) as ok, missing or skipped",
        description=(
            "Try each part of the pin map on its own and report it; nothing is driven. Exit "
            "status 1 if a part is missing (the table service still runs without it)."
        ),
    )
    p.add_argument("--pinmap", type=Path, default=None, help="a pin map file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_hardware_check)

    p = sub.add_parser(
        "install",
        help="install the table service on Raspberry Pi OS (packages, user, unit, I2C, lexicon)",
        description=(
            "Install the table service: Debian packages, the service user, the code and its "
            "virtual environment, the systemd unit, I2C, the lexicon. Safe to run twice; "
            "--dry-run prints the steps."
        ),
    )
    from companion.platform.install import add_arguments

    add_arguments(p)
    p.set_defaults(func=_install)


class OutputFileError(CompanionError, ValueError):
    """``-o FILE`` cannot be written (its folder is missing, it is a folder, no permission)."""


def _write(text: str, output: Path | None) -> None:
    """Print ``text``, or write it to ``output``.

    Raises:
        OutputFileError: ``output`` cannot be written; names it and what is accepted.
    """
    if output is None:
        sys.stdout.write(text)
        return
    if output.is_dir():
        problem = "is a folder"
    elif not output.parent.is_dir():
        problem = f"its folder {str(output.parent)!r} does not exist"
    else:
        try:
            output.write_text(text, encoding="utf-8")
            return
        except OSError as exc:
            problem = f"cannot be written ({exc.strerror or exc})"
    raise OutputFileError(
        f"-o {str(output)!r}: {problem}; accepted: a file path in an existing folder "
        "(it is created or overwritten)"
    )


def _wiring(args: argparse.Namespace) -> int:
    from companion.devices.pinmap import load_pinmap
    from companion.platform import wiring

    pinmap = load_pinmap(args.pinmap)
    if args.check:
        print(f"{pinmap.source}: valid ({len(pinmap.gpio_pins())} GPIO pins)")
        return 0
    render = {
        "text": wiring.render_text,
        "markdown": wiring.render_markdown,
        "svg": wiring.render_svg,
    }[args.format]
    _write(render(pinmap), args.output)
    return 0


def _hardware_check(args: argparse.Namespace) -> int:
    import json

    from companion.devices.pinmap import load_pinmap
    from companion.platform.probe import check_all

    findings = check_all(load_pinmap(args.pinmap))
    if args.json:
        print(json.dumps([f.as_dict() for f in findings]))
    else:
        for f in findings:
            print(f"{f.part:<9} {f.status:<8} {f.detail}")
    return 1 if any(f.status == "missing" for f in findings) else 0


def _install(args: argparse.Namespace) -> int:
    from companion.platform.install import run_install

    return run_install(args)
