"""The pin map (hardware/pinmap.toml): every GPIO, I2C address and port the box uses.

It is the only place pins are named. :func:`load_pinmap` reads it and validates it on load: every
problem is reported at once, naming the file, the key, the bad value and what is accepted.
GPIO numbers are Broadcom (BCM) numbers of the 40-pin header (datasheet: Raspberry Pi GPIO
documentation, "GPIO and the 40-pin header").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError
from companion.paths import PROJECT_ROOT, config_dir

DEFAULT_PINMAP = PROJECT_ROOT / "hardware" / "pinmap.toml"
GPIO_RANGE = range(2, 28)  # BCM 2..27 are on the header
I2C_PINS = {1: (2, 3), 0: (0, 1)}  # i2c port -> (SDA, SCL)
# reserved: 0/1 are the HAT EEPROM I2C (ID_SD/ID_SC); 2/3 belong to I2C-1 (the display)
RESERVED = {0: "HAT ID EEPROM (ID_SD)", 1: "HAT ID EEPROM (ID_SC)"}
BACKENDS = ("gpio", "mock", "serial")
DISPLAY_DRIVERS = ("ssd1306", "sh1106")
CAMERA_KINDS = ("none", "picamera2", "opencv", "files")


class PinMapError(CompanionError, ValueError):
    """A pin map that cannot be used; the message lists every problem."""


@dataclass(frozen=True)
class ServoMap:
    """The disc servo: ``pin`` (BCM), pulse widths in seconds, angles in degrees."""

    pin: int
    min_pulse_seconds: float
    max_pulse_seconds: float
    min_angle: float
    max_angle: float
    degrees_per_minute: float


@dataclass(frozen=True)
class DisplayMap:
    """The OLED: luma.oled ``driver``, I2C ``i2c_port`` and 7-bit ``address``, size in pixels."""

    driver: str
    i2c_port: int
    address: int
    width: int
    height: int


@dataclass(frozen=True)
class PinMap:
    """A validated pin map. ``buttons``/``leds`` map a role (blue, red, challenge) to a BCM pin."""

    source: Path
    backend: str
    buttons: dict[str, int]
    bounce_seconds: float
    leds: dict[str, int]
    buzzer: int
    servo: ServoMap
    display: DisplayMap
    camera: dict
    raw: dict

    def gpio_pins(self) -> dict[str, int]:
        """Every GPIO in use, keyed by its role (``buttons.blue``, ``servo.pin``...)."""
        pins = {f"buttons.{k}": v for k, v in self.buttons.items()}
        pins.update({f"leds.{k}": v for k, v in self.leds.items()})
        pins["buzzer.pin"] = self.buzzer
        pins["servo.pin"] = self.servo.pin
        return pins


def default_pinmap_path() -> Path:
    """The per-box override (``<config dir>/pinmap.toml``) if present, else the standard build's."""
    override = config_dir(create=False) / "pinmap.toml"
    return override if override.exists() else DEFAULT_PINMAP


def load_pinmap(path: Path | str | None = None, backend: str | None = None) -> PinMap:
    """Read and validate a pin map.

    Args:
        path: a TOML file; default :func:`default_pinmap_path`.
        backend: overrides ``[backend] kind`` (the simulator passes ``"mock"``).

    Raises:
        PinMapError: unreadable file, or every invalid key at once (pin used twice, reserved pin,
            I2C pins used as GPIO, out-of-range values).
    """
    path = Path(path) if path is not None else default_pinmap_path()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PinMapError(f"{path}: cannot read the pin map: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(f"{path}: not valid TOML: {exc}") from None
    errors: list[str] = []

    def get(section: str, key: str, kind, default=None, accepted: str = ""):
        value = raw.get(section, {}).get(key, default)
        ok = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
        if not ok:
            errors.append(f"[{section}] {key} = {value!r}: accepted {accepted or kind.__name__}")
            return None
        return value

    def gpio(section: str, key: str) -> int | None:
        pin = get(section, key, int, accepted="a BCM GPIO number 2 to 27")
        if pin is None:
            return None
        if pin in RESERVED:
            errors.append(f"[{section}] {key} = {pin}: GPIO {pin} is reserved ({RESERVED[pin]})")
        elif pin not in GPIO_RANGE:
            errors.append(f"[{section}] {key} = {pin}: accepted a BCM GPIO number 2 to 27")
        return pin

    kind = backend or get("backend", "kind", str, "gpio", accepted="one of " + ", ".join(BACKENDS))
    if kind is not None and kind not in BACKENDS:
        errors.append(f"[backend] kind = {kind!r}: accepted one of {', '.join(BACKENDS)}")
    buttons = {k: gpio("buttons", k) for k in ("blue", "red", "challenge")}
    bounce = get("buttons", "bounce_seconds", (int, float), 0.02, "seconds between 0 and 0.2")
    if bounce is not None and not 0 <= bounce <= 0.2:
        errors.append(f"[buttons] bounce_seconds = {bounce}: accepted seconds between 0 and 0.2")
    leds = {k: gpio("leds", k) for k in ("blue", "red")}
    buzzer = gpio("buzzer", "pin")
    servo_pin = gpio("servo", "pin")
    pulses = {}
    for key, default, lo, hi in (
        ("min_pulse_seconds", 0.0005, 0.0001, 0.003),
        ("max_pulse_seconds", 0.0025, 0.0001, 0.003),
        ("min_angle", -90.0, -180.0, 180.0),
        ("max_angle", 90.0, -180.0, 180.0),
        ("degrees_per_minute", 18.0, 0.5, 90.0),
    ):
        v = get("servo", key, (int, float), default, f"a number from {lo} to {hi}")
        if v is not None and not lo <= v <= hi:
            errors.append(f"[servo] {key} = {v}: accepted a number from {lo} to {hi}")
        pulses[key] = v
    if None not in pulses.values():
        if pulses["min_pulse_seconds"] >= pulses["max_pulse_seconds"]:
            errors.append("[servo] min_pulse_seconds must be less than max_pulse_seconds")
        if pulses["min_angle"] >= pulses["max_angle"]:
            errors.append("[servo] min_angle must be less than max_angle")
    driver = get("display", "driver", str, "ssd1306", "one of " + ", ".join(DISPLAY_DRIVERS))
    if driver is not None and driver not in DISPLAY_DRIVERS:
        errors.append(
            f"[display] driver = {driver!r}: accepted one of {', '.join(DISPLAY_DRIVERS)}"
        )
    port = get("display", "i2c_port", int, 1, "0 or 1")
    if port is not None and port not in I2C_PINS:
        errors.append(f"[display] i2c_port = {port}: accepted 0 or 1")
    address = get("display", "address", int, 0x3C, "a 7-bit I2C address 0x03 to 0x77")
    if address is not None and not 0x03 <= address <= 0x77:
        errors.append(
            f"[display] address = {address:#x}: accepted a 7-bit I2C address 0x03 to 0x77"
        )
    width = get("display", "width", int, 128, "128")
    height = get("display", "height", int, 64, "32 or 64")
    camera = raw.get("camera", {"kind": "none"})
    if camera.get("kind", "none") not in CAMERA_KINDS:
        errors.append(
            f"[camera] kind = {camera.get('kind')!r}: accepted one of {', '.join(CAMERA_KINDS)}"
        )

    # no pin used twice, none on the display's I2C pins
    used: dict[int, str] = {}
    roles = {
        **{f"buttons.{k}": v for k, v in buttons.items()},
        **{f"leds.{k}": v for k, v in leds.items()},
    }
    roles.update({"buzzer.pin": buzzer, "servo.pin": servo_pin})
    i2c = I2C_PINS.get(port or 1, (2, 3))
    for role, pin in roles.items():
        if pin is None:
            continue
        if pin in i2c:
            errors.append(f"{role} = {pin}: GPIO {pin} is an I2C pin of the display (SDA/SCL)")
        if pin in used:
            errors.append(f"{role} = {pin}: GPIO {pin} is already used by {used[pin]}")
        else:
            used[pin] = role
    if errors:
        raise PinMapError(f"{path}: " + "; ".join(errors))
    return PinMap(
        source=path,
        backend=kind,  # type: ignore[arg-type]
        buttons=buttons,  # type: ignore[arg-type]
        bounce_seconds=float(bounce),  # type: ignore[arg-type]
        leds=leds,  # type: ignore[arg-type]
        buzzer=buzzer,  # type: ignore[arg-type]
        servo=ServoMap(servo_pin, **{k: float(v) for k, v in pulses.items()}),  # type: ignore[arg-type]
        display=DisplayMap(driver, port, address, width, height),  # type: ignore[arg-type]
        camera=camera,
        raw=raw,
    )
