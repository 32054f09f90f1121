"""The timer head's section of the pin map (``[head]`` in hardware/pinmap.toml) and the
``board_config.py`` the firmware reads, generated from it.

The Pi's loader (:func:`companion.devices.pinmap.load_pinmap`) keeps the ``[head]`` table in
``PinMap.raw``; this module validates it, reporting every problem at once. Pins are the Pico's GP
numbers: GP0 to GP22 and GP26 to GP28 are on its edge (GP23 to GP25 drive the power supply,
VBUS sensing and the on-board LED; Raspberry Pi Pico datasheet, "Pinout").
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from companion.devices.head.wire import FIRMWARE_DIR, proto
from companion.devices.pinmap import PinMap, PinMapError
from companion.textformats import shown

PICO_GPIO = tuple(range(0, 23)) + (26, 27, 28)
DEFAULT_PORT = "/dev/companion-head"
BOARD_CONFIG = FIRMWARE_DIR / "board_config.py"
KNOWN = {
    "head": ("port", "sample_ms", "debounce_samples", "buzzer", "servo", "buttons", "leds"),
    "head.buttons": proto.BUTTONS,
    "head.leds": proto.LEDS,
}


@dataclass(frozen=True)
class HeadMap:
    """The validated ``[head]`` section.

    ``port``: the head's serial device (the udev rule's stable name); ``buttons``/``leds``: role ->
    Pico GP number; ``buzzer``, ``servo``: GP numbers; ``sample_ms``: button sampling period in
    milliseconds; ``debounce_samples``: equal samples needed to accept a change;
    ``servo_min_us``/``servo_max_us``: the servo's pulse range in microseconds (from ``[servo]``).
    """

    port: str
    buttons: dict[str, int]
    leds: dict[str, int]
    buzzer: int
    servo: int
    sample_ms: int
    debounce_samples: int
    servo_min_us: int
    servo_max_us: int

    def pins(self) -> dict[str, int]:
        """Every GP pin in use, keyed by role (``buttons.blue``, ``servo``...)."""
        pins = {f"buttons.{k}": v for k, v in self.buttons.items()}
        pins.update({f"leds.{k}": v for k, v in self.leds.items()})
        pins["buzzer"] = self.buzzer
        pins["servo"] = self.servo
        return pins


def _did_you_mean(key: str, keys) -> str:
    close = difflib.get_close_matches(key, keys, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def head_map(pinmap: PinMap) -> HeadMap:
    """Validate the ``[head]`` section of a loaded pin map.

    Defaults (a pin map without ``[head]``): port /dev/companion-head, buttons GP2/GP3/GP4, LEDs
    GP6/GP7, buzzer GP8, servo GP15, sampling every 5 ms, 4 equal samples.

    Raises:
        PinMapError: every problem at once, naming the file, the key, the value and what is
            accepted (unknown keys, pins off the Pico's edge, a pin used twice, ranges).
    """
    raw = pinmap.raw.get("head", {})
    errors: list[str] = []
    if not isinstance(raw, dict):
        raise PinMapError(f"{pinmap.source}: [head] must be a table of keys, not {shown(raw)}")
    tables = {
        "head": raw,
        "head.buttons": raw.get("buttons", {}),
        "head.leds": raw.get("leds", {}),
    }
    for name, table in tables.items():
        if not isinstance(table, dict):
            errors.append(f"[{name}] must be a table of keys, not {shown(table)}")
            tables[name] = {}
            continue
        for key in table:
            if key not in KNOWN[name]:
                errors.append(
                    f"[{name}] {key}: unknown key{_did_you_mean(key, KNOWN[name])}; "
                    f"accepted {', '.join(KNOWN[name])}"
                )

    def number(table: str, key: str, default: int, lo: int, hi: int, what: str) -> int:
        value = tables[table].get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            errors.append(f"[{table}] {key} = {shown(value)}: accepted {what}")
            return default
        return value

    def gp(table: str, key: str, default: int) -> int | None:
        value = tables[table].get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value not in PICO_GPIO:
            errors.append(
                f"[{table}] {key} = {shown(value)}: accepted a Pico GP number 0 to 22 or 26 to 28"
            )
            return None  # not a pin: left out of the check for pins used twice
        return value

    port = raw.get("port", DEFAULT_PORT)
    if not isinstance(port, str) or not port or "\0" in port:
        errors.append(f"[head] port = {shown(port)}: accepted a serial device path")
    buttons = {r: gp("head.buttons", r, d) for r, d in zip(proto.BUTTONS, (2, 3, 4), strict=True)}
    leds = {r: gp("head.leds", r, d) for r, d in zip(proto.LEDS, (6, 7), strict=True)}
    buzzer = gp("head", "buzzer", 8)
    servo = gp("head", "servo", 15)
    sample_ms = number("head", "sample_ms", 5, 1, 20, "milliseconds from 1 to 20")
    debounce = number("head", "debounce_samples", 4, 2, 10, "a count from 2 to 10")
    used: dict[object, str] = {}
    roles = {f"buttons.{k}": v for k, v in buttons.items()}
    roles.update({f"leds.{k}": v for k, v in leds.items()})
    roles.update({"buzzer": buzzer, "servo": servo})
    for role, pin in roles.items():
        if pin is None:
            continue
        if pin in used:
            errors.append(f"[head] {role} = {pin}: GP{pin} is already used by {used[pin]}")
        else:
            used[pin] = role
    if errors:
        raise PinMapError(f"{pinmap.source}: " + "; ".join(errors))
    return HeadMap(
        port=port,
        buttons=buttons,
        leds=leds,
        buzzer=buzzer,
        servo=servo,
        sample_ms=sample_ms,
        debounce_samples=debounce,
        servo_min_us=round(pinmap.servo.min_pulse_seconds * 1e6),
        servo_max_us=round(pinmap.servo.max_pulse_seconds * 1e6),
    )


def board_config_text(head: HeadMap, source: Path | str = "hardware/pinmap.toml") -> str:
    """The text of ``board_config.py``: the head's pins and timing as MicroPython constants."""
    b, leds = head.buttons, head.leds
    return (
        f'"""The timer head\'s pins (Pico GP numbers) and timing, generated by `companion head '
        f'config`\nfrom {source}: edit the pin map, not this file."""\n'
        "\n"
        f"BUTTON_PINS = ({b['blue']}, {b['red']}, {b['challenge']})  # blue, red, challenge\n"
        f"LED_PINS = ({leds['blue']}, {leds['red']})  # blue, red\n"
        f"BUZZER_PIN = {head.buzzer}\n"
        f"SERVO_PIN = {head.servo}\n"
        f"SERVO_MIN_US = {head.servo_min_us}  # pulse range, microseconds\n"
        f"SERVO_MAX_US = {head.servo_max_us}\n"
        f"SAMPLE_MS = {head.sample_ms}  # button sampling period, milliseconds\n"
        f"DEBOUNCE_SAMPLES = {head.debounce_samples}  # equal samples to accept a change\n"
    )


def write_board_config(head: HeadMap, path: Path | str = BOARD_CONFIG, source="") -> Path:
    """Write ``board_config.py`` to ``path``; returns the path."""
    path = Path(path)
    path.write_text(board_config_text(head, source or "hardware/pinmap.toml"), encoding="utf-8")
    return path
