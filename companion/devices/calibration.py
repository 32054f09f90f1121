"""The minute disc's servo calibration: the pulse width that puts each minute in its window.

The disc turns ``degrees_per_minute`` (pin map ``[servo]``) for every minute that passes from one
allowance to the other (Iago rulebook, "The Timer – Description and Function": "the disc moved
around by one minute"). With ``minutes`` each at the start, the blue allowance runs from 0 to
``2 * minutes`` and the disc has ``2 * minutes + 1`` positions. Position ``b`` (blue has ``b``
minutes, red ``2 * minutes - b``) is at the angle ``(b - minutes) * degrees_per_minute`` degrees:
0 at the start, positive as blue gains time. enclosures/disc.scad prints the numbers at the same
angles.

A hobby servo is not linear enough for the numbers to sit squarely in the window everywhere, so
``companion servo calibrate`` steps through every position and lets the builder nudge its pulse
width; the pulse widths are saved in ``<config dir>/servo-calibration.toml`` and the disc then
interpolates between them (piecewise linear in the angle).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError
from companion.paths import config_dir
from companion.textformats import TomlError, loads_toml, shown

CALIBRATION_FILE = "servo-calibration.toml"


class CalibrationError(CompanionError, ValueError):
    """A calibration file or request that cannot be used; the message says what and why."""


def calibration_path() -> Path:
    """``<config dir>/servo-calibration.toml``."""
    return config_dir(create=False) / CALIBRATION_FILE


def position_angle(blue_minutes: int, minutes: int, degrees_per_minute: float) -> float:
    """The disc angle in degrees when blue has ``blue_minutes`` of ``2 * minutes``.

    0 at the start (both ``minutes``), ``+degrees_per_minute`` for every minute blue gains.
    """
    return (blue_minutes - minutes) * degrees_per_minute


def pulse_for_angle(servo, angle: float) -> float:
    """The nominal pulse width in seconds for ``angle`` degrees, linear between the pin map's
    ``(min_angle, min_pulse_seconds)`` and ``(max_angle, max_pulse_seconds)``.

    Args:
        servo: a :class:`~companion.devices.pinmap.ServoMap`.

    Raises:
        CalibrationError: ``angle`` is outside ``[min_angle, max_angle]``.
    """
    if not servo.min_angle <= angle <= servo.max_angle:
        raise CalibrationError(
            f"angle {angle:g} degrees is outside the servo's travel "
            f"{servo.min_angle:g} to {servo.max_angle:g} degrees ([servo] min_angle/max_angle)"
        )
    span = (angle - servo.min_angle) / (servo.max_angle - servo.min_angle)
    return servo.min_pulse_seconds + span * (servo.max_pulse_seconds - servo.min_pulse_seconds)


@dataclass(frozen=True)
class ServoCalibration:
    """Calibrated pulse widths of the disc positions.

    ``minutes``: each player's allowance at the start; ``degrees_per_minute`` as in the pin map;
    ``pulses``: ``2 * minutes + 1`` pulse widths in seconds, indexed by the blue allowance in
    minutes (position ``b`` at :func:`position_angle`).
    """

    minutes: int
    degrees_per_minute: float
    pulses: tuple[float, ...]

    @property
    def angles(self) -> tuple[float, ...]:
        """The angle in degrees of each position, ascending."""
        return tuple(
            position_angle(b, self.minutes, self.degrees_per_minute)
            for b in range(len(self.pulses))
        )

    def pulse_for_angle(self, angle: float) -> float:
        """The pulse width in seconds for ``angle`` degrees: the calibrated pulse at a position,
        linear between neighbouring positions, clamped to the end positions outside them."""
        angles = self.angles
        if angle <= angles[0]:
            return self.pulses[0]
        if angle >= angles[-1]:
            return self.pulses[-1]
        i = bisect.bisect_right(angles, angle) - 1
        frac = (angle - angles[i]) / (angles[i + 1] - angles[i])
        return self.pulses[i] + frac * (self.pulses[i + 1] - self.pulses[i])

    def to_toml(self) -> str:
        """The calibration as the TOML text :func:`load_calibration` reads."""
        lines = [
            "# Servo calibration of the minute disc, written by `companion servo calibrate`.",
            "# pulses[b]: the pulse width in seconds that shows b minutes for blue",
            "# (and 2 * minutes - b for red) in the windows.",
            f"minutes = {self.minutes}",
            f"degrees_per_minute = {self.degrees_per_minute!r}",
            "pulses = [",
            *(
                f"    {p:.7f},  # blue {b}, red {2 * self.minutes - b}"
                for b, p in enumerate(self.pulses)
            ),
            "]",
        ]
        return "\n".join(lines) + "\n"


def default_calibration(servo, minutes: int = 5) -> ServoCalibration:
    """The nominal calibration of the pin map's servo: :func:`pulse_for_angle` at each position.

    Raises:
        CalibrationError: the positions do not fit the servo's travel (too many minutes for
            ``degrees_per_minute``), naming the largest angle needed.
    """
    if not isinstance(minutes, int) or minutes < 1:
        raise CalibrationError(
            f"minutes {minutes!r}: accepted a whole number of minutes, 1 or more"
        )
    need = minutes * servo.degrees_per_minute
    if -need < servo.min_angle or need > servo.max_angle:
        raise CalibrationError(
            f"{minutes} minutes each need the disc to turn {-need:g} to {need:g} degrees "
            f"({servo.degrees_per_minute:g} degrees per minute) but the servo turns only "
            f"{servo.min_angle:g} to {servo.max_angle:g}; lower [servo] degrees_per_minute"
        )
    pulses = tuple(
        pulse_for_angle(servo, position_angle(b, minutes, servo.degrees_per_minute))
        for b in range(2 * minutes + 1)
    )
    return ServoCalibration(minutes, servo.degrees_per_minute, pulses)


def load_calibration(path: Path | str | None = None) -> ServoCalibration | None:
    """The saved calibration, or None when there is none (the disc then uses the nominal pulses).

    Raises:
        CalibrationError: the file exists but is unreadable or inconsistent (names the key).
    """
    path = Path(path) if path is not None else calibration_path()
    if not path.exists():
        return None
    try:
        raw = loads_toml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TomlError) as exc:
        raise CalibrationError(f"{path}: cannot read the servo calibration: {exc}") from None
    errors = []
    minutes = raw.get("minutes")
    dpm = raw.get("degrees_per_minute")
    pulses = raw.get("pulses")
    if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes < 1:
        errors.append(f"minutes = {shown(minutes)}: accepted a whole number, 1 or more")
    if not isinstance(dpm, int | float) or isinstance(dpm, bool) or not 0.5 <= dpm <= 90:
        errors.append(f"degrees_per_minute = {shown(dpm)}: accepted a number from 0.5 to 90")
    if not isinstance(pulses, list) or not all(
        isinstance(p, int | float) and not isinstance(p, bool) and 0.0001 <= p <= 0.003
        for p in pulses
    ):
        errors.append("pulses: accepted a list of pulse widths in seconds from 0.0001 to 0.003")
    elif isinstance(minutes, int) and len(pulses) != 2 * minutes + 1:
        errors.append(
            f"pulses: {len(pulses)} values for {minutes} minutes each; accepted {2 * minutes + 1}"
        )
    if errors:
        raise CalibrationError(f"{path}: " + "; ".join(errors))
    return ServoCalibration(minutes, float(dpm), tuple(float(p) for p in pulses))


def save_calibration(calibration: ServoCalibration, path: Path | str | None = None) -> Path:
    """Write ``calibration`` (atomically: a temporary file renamed over the old one)."""
    path = Path(path) if path is not None else config_dir() / CALIBRATION_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(calibration.to_toml(), encoding="utf-8")
    tmp.replace(path)
    return path


HELP = "Enter: keep   + / -: nudge by one step   ++ / --: five steps   b: back   q: quit"


def calibrate(
    start: ServoCalibration,
    servo,
    set_pulse: Callable[[float], None],
    ask: Callable[[str], str],
    say: Callable[[str], None] = print,
    step_seconds: float = 0.00001,
) -> ServoCalibration | None:
    """Step the disc through every position and let the builder nudge each pulse width.

    Args:
        start: the pulses to begin from (the saved calibration or :func:`default_calibration`).
        servo: the pin map's :class:`~companion.devices.pinmap.ServoMap` (pulses are kept within
            its ``min_pulse_seconds``..``max_pulse_seconds``).
        set_pulse: drives the servo at a pulse width in seconds.
        ask: shows a prompt and returns the typed answer (``input``).
        say: prints a line.
        step_seconds: one nudge, in seconds (default 10 microseconds, about 1 degree).

    Returns:
        The new calibration, or None when the builder quits (nothing is to be saved).
    """
    pulses = list(start.pulses)
    total = len(pulses) - 1
    say(HELP)
    b = 0
    while b <= total:
        set_pulse(pulses[b])
        answer = ask(
            f"blue {b:2d} / red {total - b:2d}: {pulses[b] * 1e6:7.1f} microseconds > "
        ).strip()
        if answer == "":
            b += 1
        elif answer in ("q", "quit"):
            return None
        elif answer == "b":
            b = max(0, b - 1)
        elif answer and set(answer) <= {"+", "-"} and len(set(answer)) == 1:
            sign = 1 if answer[0] == "+" else -1
            steps = 5 if len(answer) >= 2 else 1
            value = pulses[b] + sign * steps * step_seconds
            pulses[b] = min(max(value, servo.min_pulse_seconds), servo.max_pulse_seconds)
        else:
            say(f"{answer!r} is not understood. {HELP}")
    return ServoCalibration(start.minutes, start.degrees_per_minute, tuple(pulses))


def servo_value(servo, pulse_seconds: float) -> float:
    """gpiozero ``Servo.value`` (-1..1) for ``pulse_seconds`` with the pin map's pulse range."""
    span = servo.max_pulse_seconds - servo.min_pulse_seconds
    value = (pulse_seconds - servo.min_pulse_seconds) / span * 2 - 1
    return min(max(value, -1.0), 1.0)
