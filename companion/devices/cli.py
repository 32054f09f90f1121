"""The device commands: ``companion servo calibrate``. (Building and installing a box,
``companion wiring``, ``hardware check`` and ``install``, are in :mod:`companion.platform.cli`;
the platform imports the devices, never the reverse.)

Heavy imports (gpiozero) stay inside the handlers so ``companion --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``servo`` to the ``companion`` parser."""
    servo = sub.add_parser("servo", help="the minute disc's servo")
    ssub = servo.add_subparsers(dest="servo_command", metavar="ACTION")
    ssub.required = True
    p = ssub.add_parser(
        "calibrate",
        help="step the disc through every minute position and save the pulse widths",
        description=(
            "Turns the disc to each position (blue 0 / red 10 up to blue 10 / red 0 for 5 "
            "minutes each); at each, nudge with + or - until the numbers sit in the windows, "
            "then press Enter. The pulse widths are saved in <config dir>/servo-calibration.toml "
            "and used by the table service."
        ),
    )
    p.add_argument("--minutes", type=int, default=5, help="each player's allowance (default 5)")
    p.add_argument("--pinmap", type=Path, default=None, help="a pin map file")
    p.add_argument(
        "--step-us", type=float, default=10.0, help="one nudge in microseconds (default 10)"
    )
    p.add_argument("--reset", action="store_true", help="start from the nominal pulses")
    p.add_argument(
        "--mock", action="store_true", help="gpiozero's mock pins (practice without a servo)"
    )
    p.set_defaults(func=_calibrate)


def _calibrate(args: argparse.Namespace) -> int:
    from companion.devices.calibration import (
        CalibrationError,
        calibrate,
        default_calibration,
        load_calibration,
        save_calibration,
        servo_value,
    )
    from companion.devices.pinmap import load_pinmap

    pinmap = load_pinmap(args.pinmap, backend="mock" if args.mock else None)
    if pinmap.backend == "serial":
        raise CalibrationError(
            "[backend] kind = 'serial': the servo is on the timer head; calibrate it there"
        )
    if not 0.5 <= args.step_us <= 200:
        raise CalibrationError(f"--step-us {args.step_us}: accepted 0.5 to 200 microseconds")
    start = default_calibration(pinmap.servo, args.minutes)
    saved = None if args.reset else load_calibration()
    if saved is not None and (saved.minutes, saved.degrees_per_minute) == (
        start.minutes,
        start.degrees_per_minute,
    ):
        start = saved
    from gpiozero import Servo

    factory = None
    s = pinmap.servo
    if pinmap.backend == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        factory = MockFactory(pin_class=MockPWMPin)
    else:
        from companion.devices.backends import probe_pin_factory
        from companion.devices.base import DeviceError

        try:  # gpiozero's fall-back warnings (file paths) folded into one message
            probe_pin_factory()
        except DeviceError as exc:
            print(
                f"companion servo calibrate: the servo on GPIO {s.pin} cannot be driven: {exc} "
                "(to practise on this machine: companion servo calibrate --mock)",
                file=sys.stderr,
            )
            return 2
    try:
        device = Servo(
            s.pin,
            initial_value=None,
            min_pulse_width=s.min_pulse_seconds,
            max_pulse_width=s.max_pulse_seconds,
            pin_factory=factory,
        )
    except Exception as exc:  # gpiozero: BadPinFactory, PinPWMUnsupported, GPIOPinInUse...
        print(
            f"companion servo calibrate: the servo on GPIO {s.pin} cannot be driven "
            f"({type(exc).__name__}: {exc}); stop the table service first (sudo systemctl stop "
            "table-companion), or practise on a non-Pi machine with --mock",
            file=sys.stderr,
        )
        return 2

    def set_pulse(seconds: float) -> None:
        device.value = servo_value(s, seconds)

    try:
        result = calibrate(start, s, set_pulse, input, step_seconds=args.step_us / 1e6)
    except EOFError:
        result = None
    finally:
        device.close()
    if result is None:
        print("Calibration abandoned; nothing saved.")
        return 1
    path = save_calibration(result)
    print(f"Saved {len(result.pulses)} positions to {path}.")
    return 0
