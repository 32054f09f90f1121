"""The pin map (hardware/pinmap.toml): every GPIO, I2C address and port the box uses.

It is the only place pins are named. :func:`load_pinmap` reads it and validates it on load: every
problem is reported at once, naming the file, the key, the bad value and what is accepted. The
checks: every GPIO on the header and not reserved, no pin used twice, no GPIO on the pins of an
I2C bus in use, known display drivers and sizes, distinct I2C addresses for the two OLEDs, a
camera kind with the keys it needs, and no unknown key in a known section (with a "did you mean").

A pin map the user gives (``--pinmap FILE``, or a box's own ``<config dir>/pinmap.toml``) names only
what differs from the standard one (hardware/pinmap.toml): :func:`overlay` lays it over the
standard's tables key by key, so every section or key it leaves out keeps the standard's value.
Where a key chooses what the others mean (``[display] driver``, ``[camera] kind``), a new choice
takes none of the standard's keys that belong to the old one (:data:`CHOICE_KEYS`): a
``[display] driver = "ssd1322"`` gets that module's own size and interface (256x64 on SPI), not the
standard SSD1306's 128x64 on I2C.

GPIO numbers are Broadcom (BCM) numbers of the 40-pin header. Sources: Raspberry Pi documentation,
"GPIO and the 40-pin header" and the ``i2c3``..``i2c6`` overlays of /boot/firmware/overlays/README
(extra I2C buses of the BCM2711 and RP1); the HAT specification (GPIO 0/1 belong to the HAT's ID
EEPROM); luma.oled's device classes for the supported display sizes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError
from companion.paths import PROJECT_ROOT, config_dir
from companion.textformats import TomlError, loads_toml, shown

DEFAULT_PINMAP = PROJECT_ROOT / "hardware" / "pinmap.toml"
GPIO_RANGE = range(2, 28)  # BCM 2..27 are on the header
# I2C bus number (/dev/i2c-N) -> (SDA, SCL) BCM pins. 1 is the header's standard bus; 3..6 are the
# extra buses of a Pi 4/5 enabled with dtoverlay=i2c3..i2c6 (default pins of each overlay);
# 0 is the HAT EEPROM bus on GPIO 0/1, reserved.
I2C_PINS = {1: (2, 3), 0: (0, 1), 3: (4, 5), 4: (6, 7), 5: (12, 13), 6: (22, 23)}
I2C_PORTS = (1, 3, 4, 5, 6)
# reserved: 0/1 are the HAT EEPROM I2C (ID_SD/ID_SC); 2/3 belong to I2C-1 (the display)
RESERVED = {0: "HAT ID EEPROM (ID_SD)", 1: "HAT ID EEPROM (ID_SC)"}
BACKENDS = ("gpio", "mock", "serial")
DISPLAY_DRIVERS = ("ssd1306", "sh1106", "ssd1309", "ssd1322")
# (width, height) in pixels that luma.oled's classes accept for the modules sold (the 2.42"
# SSD1309 is 128x64; the 3.12" SSD1322 is 256x64, 4-bit grey, driven here in black and white)
DISPLAY_SIZES = {
    "ssd1306": ((128, 64), (128, 32), (96, 16), (64, 48), (64, 32)),
    "sh1106": ((128, 128), (128, 64), (128, 32)),
    "ssd1309": ((128, 64),),
    "ssd1322": ((256, 64), (256, 48), (256, 32), (128, 64)),
}
DISPLAY_INTERFACES = ("i2c", "spi")
# SPI0 (/dev/spidev0.N): MOSI, SCLK and the chip enable of each device N, BCM pins
SPI0_PINS = {"MOSI": 10, "SCLK": 11}
SPI0_CE = {0: 8, 1: 7}
SPI_ONLY = ("ssd1322",)  # modules with no I2C wiring
CAMERA_KINDS = ("none", "picamera2", "opencv", "files")
# the highest [camera] device index: OpenCV's VideoCapture reads an index of 100 or more as a
# backend's number plus a camera's (200 + N is V4L2's camera N), and a negative one asks it to
# guess (OpenCV 5.1 crashed the process doing so, with no camera); /dev/videoN names the rest
MAX_CAMERA_INDEX = 99
CAMERA_DEVICE_ACCEPTED = (
    f'an index 0 to {MAX_CAMERA_INDEX} (0 is the first camera) or a device path ("/dev/video0")'
)
DISPLAY_KEYS = ("driver", "interface", "i2c_port", "address", "spi_device", "dc", "reset")
DISPLAY_KEYS += ("width", "height")
# the keys each known section may hold (others are reported, with a "did you mean")
KNOWN_KEYS = {
    "backend": ("kind",),
    "buttons": ("blue", "red", "challenge", "bounce_seconds"),
    "leds": ("blue", "red", "challenge"),
    "buzzer": ("pin",),
    "servo": (
        "pin",
        "min_pulse_seconds",
        "max_pulse_seconds",
        "min_angle",
        "max_angle",
        "degrees_per_minute",
    ),
    "display": DISPLAY_KEYS,
    "display2": DISPLAY_KEYS,
    "camera": (
        "kind",
        "camera_num",
        "device",
        "folder",
        "width",
        "height",
        "photo_days",
        "photo_min_free_mb",
    ),
}


# section -> (the key that chooses, the keys that belong to the choice): a user's pin map that
# changes the choice inherits none of them from the standard pin map
CHOICE_KEYS = {
    "display": ("driver", ("interface", "width", "height", "spi_device", "dc", "reset")),
    "display2": ("driver", ("interface", "width", "height", "spi_device", "dc", "reset")),
    "camera": ("kind", ("camera_num", "device", "folder", "width", "height")),
}


class PinMapError(CompanionError, ValueError):
    """A pin map that cannot be used; the message lists every problem."""


@dataclass(frozen=True)
class ServoMap:
    """The disc servo: ``pin`` (BCM), pulse widths in seconds, angles in degrees.

    ``degrees_per_minute`` is how far the disc turns for one minute passing from one player to
    the other (Iago rulebook, "The Timer": "the disc moved around by one minute").
    """

    pin: int
    min_pulse_seconds: float
    max_pulse_seconds: float
    min_angle: float
    max_angle: float
    degrees_per_minute: float


@dataclass(frozen=True)
class DisplayMap:
    """An OLED: luma.oled ``driver``, I2C ``i2c_port`` and 7-bit ``address``, size in pixels.

    With ``interface = "spi"`` (the SSD1322, or an SSD1309 wired for SPI) it is on SPI0:
    ``spi_device`` 0 or 1 (chip enable CE0 = GPIO 8 or CE1 = GPIO 7), ``dc`` the data/command
    GPIO and ``reset`` the reset GPIO (None: tied high); the I2C keys are then unused.
    """

    driver: str
    i2c_port: int
    address: int
    width: int
    height: int
    interface: str = "i2c"
    spi_device: int = 0
    dc: int | None = None
    reset: int | None = None

    def spi_pins(self) -> dict[str, int]:
        """The SPI display's signals and their BCM pins ({} on I2C)."""
        if self.interface != "spi":
            return {}
        pins = {**SPI0_PINS, f"CE{self.spi_device}": SPI0_CE[self.spi_device]}
        pins["DC"] = self.dc  # type: ignore[assignment]
        if self.reset is not None:
            pins["RST"] = self.reset
        return pins


@dataclass(frozen=True)
class PinMap:
    """A validated pin map. ``buttons``/``leds`` map a role (blue, red, challenge) to a BCM pin.

    ``display2`` is the optional second OLED facing the other player (``[display2]``), else None.
    ``camera`` is the ``[camera]`` table as read (``kind`` always present). ``raw`` is the whole
    file, for sections owned elsewhere (``[head]``, the microcontroller timer head).
    """

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
    display2: DisplayMap | None = None

    def gpio_pins(self) -> dict[str, int]:
        """Every GPIO in use, keyed by its role (``buttons.blue``, ``servo.pin``, an SPI display's
        ``display.dc``...)."""
        pins = {f"buttons.{k}": v for k, v in self.buttons.items()}
        for section, d in self.displays().items():
            pins.update({f"{section}.{k}": getattr(d, k) for k in ("dc", "reset")})
            pins = {k: v for k, v in pins.items() if v is not None}
        pins.update({f"leds.{k}": v for k, v in self.leds.items()})
        pins["buzzer.pin"] = self.buzzer
        pins["servo.pin"] = self.servo.pin
        return pins

    def displays(self) -> dict[str, DisplayMap]:
        """The OLEDs in use by section name: ``display`` and, if fitted, ``display2``."""
        found = {"display": self.display}
        if self.display2 is not None:
            found["display2"] = self.display2
        return found

    def i2c_pins(self) -> dict[str, int]:
        """The header pins of the I2C buses in use, keyed ``i2c<N>.sda`` / ``i2c<N>.scl``."""
        pins: dict[str, int] = {}
        for d in self.displays().values():
            if d.interface != "i2c":
                continue
            sda, scl = I2C_PINS[d.i2c_port]
            pins[f"i2c{d.i2c_port}.sda"] = sda
            pins[f"i2c{d.i2c_port}.scl"] = scl
        return pins


def default_pinmap_path() -> Path:
    """The per-box override (``<config dir>/pinmap.toml``) if present, else the standard build's."""
    override = config_dir(create=False) / "pinmap.toml"
    return override if override.exists() else DEFAULT_PINMAP


def overlay(base: dict, user: dict) -> dict:
    """``user``'s pin map laid over ``base`` (both as TOML reads them): a table of ``user`` is
    merged into ``base``'s table of that name key by key (tables within tables too), any other
    value replaces ``base``'s. A section of :data:`CHOICE_KEYS` whose choosing key ``user`` sets to
    another value keeps none of ``base``'s keys that belong to the old choice. Pure; neither
    argument is changed.
    """
    out = dict(base)
    for key, value in user.items():
        old = base.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            if key in CHOICE_KEYS:
                chooser, belonging = CHOICE_KEYS[key]
                if chooser in value and value[chooser] != old.get(chooser):
                    old = {k: v for k, v in old.items() if k not in belonging}
            out[key] = overlay(old, value)
        else:
            out[key] = value
    return out


def standard_raw() -> dict:
    """The standard pin map (hardware/pinmap.toml) as TOML reads it, unvalidated.

    Raises:
        PinMapError: the file cannot be read or is not TOML (a broken checkout).
    """
    try:
        return loads_toml(DEFAULT_PINMAP.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TomlError) as exc:
        raise PinMapError(f"{DEFAULT_PINMAP}: the standard pin map cannot be read: {exc}") from None


def camera_device_ok(device: object) -> bool:
    """True for a ``[camera] device`` OpenCV can be asked to open: a path (a string not blank)
    or an index 0 to :data:`MAX_CAMERA_INDEX` (not a TOML boolean)."""
    if isinstance(device, str):
        return bool(device.strip())
    if isinstance(device, bool) or not isinstance(device, int):
        return False
    return 0 <= device <= MAX_CAMERA_INDEX


def _shown(value: object) -> str:
    """A value as a pin map message quotes it: TOML's ``true``/``false``, ``a table``, else
    :func:`shown` (a value that is missing is said so by the caller, never ``None``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    return shown(value)


def _did_you_mean(key: str, choices) -> str:
    close = difflib.get_close_matches(key, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def load_pinmap(path: Path | str | None = None, backend: str | None = None) -> PinMap:
    """Read and validate a pin map.

    Args:
        path: a TOML file; default :func:`default_pinmap_path`. Any file but the standard
            hardware/pinmap.toml is laid over the standard one (:func:`overlay`): it needs to name
            only what differs.
        backend: overrides ``[backend] kind`` (the simulator passes ``"mock"``).

    Raises:
        PinMapError: unreadable file, or every invalid key at once (pin used twice, reserved pin,
            I2C pins used as GPIO, two OLEDs at one address, unknown keys, out-of-range values).
    """
    path = Path(path) if path is not None else default_pinmap_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PinMapError(f"{path}: cannot read the pin map: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise PinMapError(f"{path}: the pin map is not UTF-8 text") from None
    standard = path.resolve() == DEFAULT_PINMAP.resolve()
    return parse_pinmap(text, path, backend, base=None if standard else standard_raw())


def parse_pinmap(
    text: str,
    path: Path | str = "pinmap.toml",
    backend: str | None = None,
    base: dict | None = None,
) -> PinMap:
    """Validate the text of a pin map (as :func:`load_pinmap` does, without reading a file);
    ``path`` names it in messages. With ``base`` (a pin map as TOML reads it, e.g.
    :func:`standard_raw`), ``text`` is laid over it (:func:`overlay`); without, ``text`` is the
    whole pin map and every key it lacks is reported missing.

    Raises:
        PinMapError: not TOML, or every invalid key at once (see :func:`load_pinmap`).
    """
    path = Path(path)
    try:
        raw = loads_toml(text)
    except TomlError as exc:
        raise PinMapError(f"{path}: not valid TOML: {exc}") from None
    if base is not None:
        raw = overlay(base, raw)
    errors: list[str] = []

    for section, keys in KNOWN_KEYS.items():
        table = raw.get(section, {})
        if not isinstance(table, dict):
            errors.append(f"[{section}] must be a table of keys, not {_shown(table)}")
            raw[section] = {}
            continue
        for key in table:
            if key not in keys:
                errors.append(
                    f"[{section}] {key}: unknown key{_did_you_mean(key, keys)}; "
                    f"accepted {', '.join(keys)}"
                )

    def get(section: str, key: str, kind, default=None, accepted: str = ""):
        value = raw.get(section, {}).get(key, default)
        if value is None:
            errors.append(f"[{section}] {key} is missing: accepted {accepted or kind.__name__}")
            return None
        ok = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
        if not ok:
            errors.append(
                f"[{section}] {key} = {_shown(value)}: accepted {accepted or kind.__name__}"
            )
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
        errors.append(f"[backend] kind = {_shown(kind)}: accepted one of {', '.join(BACKENDS)}")
    buttons = {k: gpio("buttons", k) for k in ("blue", "red", "challenge")}
    bounce = get("buttons", "bounce_seconds", (int, float), 0.02, "seconds between 0 and 0.2")
    if bounce is not None and not 0 <= bounce <= 0.2:
        errors.append(f"[buttons] bounce_seconds = {bounce}: accepted seconds between 0 and 0.2")
    led_roles = ["blue", "red"] + (["challenge"] if "challenge" in raw.get("leds", {}) else [])
    leds = {k: gpio("leds", k) for k in led_roles}
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

    def display(section: str) -> DisplayMap | None:
        accepted = "one of " + ", ".join(DISPLAY_DRIVERS)
        driver = get(section, "driver", str, "ssd1306", accepted)
        if driver is not None and driver not in DISPLAY_DRIVERS:
            errors.append(f"[{section}] driver = {_shown(driver)}: accepted {accepted}")
            driver = None
        ports = ", ".join(map(str, I2C_PORTS))
        port = get(section, "i2c_port", int, 1, f"an I2C bus number: {ports}")
        if port is not None and port not in I2C_PORTS:
            why = " (GPIO 0/1 are the HAT ID EEPROM's)" if port == 0 else ""
            errors.append(f"[{section}] i2c_port = {port}{why}: accepted {ports}")
            port = None
        address = get(section, "address", int, 0x3C, "a 7-bit I2C address 0x03 to 0x77")
        if address is not None and not 0x03 <= address <= 0x77:
            errors.append(
                f"[{section}] address = {address:#x}: accepted a 7-bit I2C address 0x03 to 0x77"
            )
            address = None
        # a driver's own size and interface where the map gives none (its first size is the
        # module sold: 128x64, 256x64 for the SSD1322; SPI for the modules wired only to SPI)
        size = DISPLAY_SIZES[driver][0] if driver is not None else (128, 64)
        width = get(section, "width", int, size[0], "a width in pixels")
        height = get(section, "height", int, size[1], "a height in pixels")
        if None not in (driver, width, height) and (width, height) not in DISPLAY_SIZES[driver]:
            sizes = ", ".join(f"{w}x{h}" for w, h in DISPLAY_SIZES[driver])
            errors.append(
                f"[{section}] width x height = {width}x{height}: accepted for {driver}: {sizes}"
            )
        interface = get(
            section, "interface", str, "spi" if driver in SPI_ONLY else "i2c", "i2c or spi"
        )
        if interface is not None and interface not in DISPLAY_INTERFACES:
            errors.append(f"[{section}] interface = {interface!r}: accepted i2c or spi")
            interface = None
        elif interface == "i2c" and driver in SPI_ONLY:
            errors.append(
                f'[{section}] driver = "{driver}": the module is wired to SPI; accepted with '
                'interface = "spi" (and dc, the data/command GPIO)'
            )
        spi = {"spi_device": 0, "dc": None, "reset": None}
        if interface == "spi":
            spi["spi_device"] = get(section, "spi_device", int, 0, "0 (CE0) or 1 (CE1)")
            if spi["spi_device"] not in (0, 1, None):
                errors.append(f"[{section}] spi_device = {spi['spi_device']}: accepted 0 or 1")
                spi["spi_device"] = None
            keys = raw.get(section, {})
            if "dc" not in keys:
                errors.append(
                    f"[{section}] dc is missing: an SPI display needs its data/command GPIO"
                )
            else:
                spi["dc"] = gpio(section, "dc")
            if "reset" in keys:
                spi["reset"] = gpio(section, "reset")
        if None in (driver, port, address, width, height, interface) or (
            interface == "spi" and None in (spi["spi_device"], spi["dc"])
        ):
            return None
        return DisplayMap(driver, port, address, width, height, interface, **spi)  # type: ignore[arg-type]

    display1 = display("display")
    display2 = display("display2") if "display2" in raw else None
    if (
        display1 is not None
        and display2 is not None
        and display1.interface == display2.interface == "i2c"
        and (display1.i2c_port, display1.address) == (display2.i2c_port, display2.address)
    ):
        errors.append(
            f"[display2] address = {display2.address:#x}: the first OLED already answers at "
            f"{display1.address:#x} on I2C bus {display1.i2c_port}; set the second module's "
            "address jumper (0x3C or 0x3D) or put it on another bus"
        )

    camera = raw.get("camera", {"kind": "none"})
    camera = {"kind": "none", **camera}
    cam_kind = camera["kind"]
    if cam_kind not in CAMERA_KINDS:
        errors.append(
            f"[camera] kind = {_shown(cam_kind)}: accepted one of {', '.join(CAMERA_KINDS)}"
        )
    if "camera_num" in camera:
        get("camera", "camera_num", int, accepted="a camera number 0 or more (picamera2)")
    if "device" in camera and not camera_device_ok(camera["device"]):
        errors.append(
            f"[camera] device = {_shown(camera['device'])}: accepted {CAMERA_DEVICE_ACCEPTED}"
        )
    if cam_kind == "files" and not isinstance(camera.get("folder"), str):
        folder = camera.get("folder")
        said = "is missing" if folder is None else f"= {_shown(folder)}"
        errors.append(f"[camera] folder {said}: kind 'files' needs a folder of images (a path)")
    for key in ("width", "height"):
        if key in camera:
            value = get("camera", key, int, accepted="pixels, a whole number from 16 to 8192")
            if value is not None and not 16 <= value <= 8192:
                errors.append(f"[camera] {key} = {value}: accepted pixels from 16 to 8192")

    # each move's photo (the crossword game): kept so many days, and so much of the card free
    for key, above_zero, accepted in (
        ("photo_days", True, "days, a number above 0"),
        ("photo_min_free_mb", False, "megabytes, a number 0 or more"),
    ):
        if key in camera:
            value = get("camera", key, (int, float), accepted=accepted)
            ok = value is not None and 0 <= value < float("inf") and (value > 0 or not above_zero)
            if value is not None and not ok:
                errors.append(f"[camera] {key} = {value}: accepted {accepted}")

    # no pin used twice, none on the pins of an I2C bus in use
    used: dict[int, str] = {}
    roles = {
        **{f"buttons.{k}": v for k, v in buttons.items()},
        **{f"leds.{k}": v for k, v in leds.items()},
    }
    roles.update({"buzzer.pin": buzzer, "servo.pin": servo_pin})
    i2c: dict[int, str] = {}  # the pins of the display buses in use (I2C, and SPI0)
    spi_displays = [(s, d) for s, d in (("display", display1), ("display2", display2)) if d]
    for section, d in spi_displays:
        if d.interface == "spi":
            roles.update({f"{section}.{k}": getattr(d, k) for k in ("dc", "reset")})
            for signal, pin in d.spi_pins().items():
                if signal not in ("DC", "RST"):
                    i2c[pin] = f"{signal} of SPI0"
    ces = [d.spi_device for _, d in spi_displays if d.interface == "spi"]
    if len(ces) == 2 and ces[0] == ces[1]:
        errors.append(
            f"[display2] spi_device = {ces[1]}: the first display uses CE{ces[0]}; accepted the other"
        )
    for section in ("display", "display2"):
        if section not in raw and section == "display2":
            continue
        table = raw.get(section, {})
        default_interface = "spi" if table.get("driver") in SPI_ONLY else "i2c"
        if table.get("interface", default_interface) != "i2c":
            continue
        port = table.get("i2c_port", 1)
        if port in I2C_PORTS:
            sda, scl = I2C_PINS[port]
            i2c[sda] = f"SDA of I2C bus {port}"
            i2c[scl] = f"SCL of I2C bus {port}"
    for role, pin in roles.items():
        if pin is None:
            continue
        if pin in i2c:
            errors.append(f"{role} = {pin}: GPIO {pin} is the {i2c[pin]} (the OLED)")
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
        display=display1,  # type: ignore[arg-type]
        camera=camera,
        raw=raw,
        display2=display2,
    )
