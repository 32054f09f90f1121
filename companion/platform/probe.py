"""What hardware answers: ``companion hardware check``.

Each part of the box is tried on its own and reported as ``ok``, ``missing`` (with the reason and
what to check) or ``skipped``; one missing part never stops the others being checked, just as the
table service runs without it. Nothing is driven (no LED lit, no servo moved): the
hardware-in-the-loop tests (tests/test_hil.py) do that with a person at the box.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Finding:
    """One part's state: ``status`` is ``ok``, ``missing`` or ``skipped``; ``detail`` says why."""

    part: str
    status: str
    detail: str

    def as_dict(self) -> dict:
        """JSON-ready."""
        return asdict(self)


def check_pins(pinmap) -> Finding:
    """gpiozero's pin factory can claim the pin map's GPIOs (released at once)."""
    if pinmap.backend != "gpio":
        return Finding("gpio", "skipped", f"[backend] kind = {pinmap.backend!r}")
    import warnings

    try:
        from gpiozero import Device, DigitalInputDevice

        with warnings.catch_warnings():  # gpiozero's fall-backs: the final error says enough
            warnings.simplefilter("ignore")
            devices = [DigitalInputDevice(p) for p in pinmap.buttons.values()]
        name = type(Device.pin_factory).__name__
        for d in devices:
            d.close()
    except Exception as exc:  # noqa: BLE001 - gpiozero's BadPinFactory, GPIOPinInUse...
        return Finding(
            "gpio",
            "missing",
            f"{type(exc).__name__}: {exc} (not a Raspberry Pi, or the table service holds the "
            "pins: sudo systemctl stop table-companion)",
        )
    return Finding("gpio", "ok", f"pin factory {name}")


def check_displays(pinmap, opener=None) -> list[Finding]:
    """Each OLED of the pin map answers at its I2C address (luma.oled opens it)."""
    from companion.devices.resilient import ResilientDisplay, open_oled

    found = []
    for section, d in pinmap.displays().items():
        spi = getattr(d, "interface", "i2c") == "spi"
        if spi:  # the SSD1322 (or an SSD1309 wired for SPI) on SPI0
            where = f"{d.driver} on SPI0 CE{d.spi_device}"
            bus = Path(f"/dev/spidev0.{d.spi_device}")
            off = "SPI is off: sudo raspi-config nonint do_spi 0, then reboot"
            wires = "VCC, GND, DIN, CLK, CS, DC and RES"
        else:
            where = f"{d.driver} at I2C bus {d.i2c_port} address {d.address:#04x}"
            bus = Path(f"/dev/i2c-{d.i2c_port}")
            off = "I2C is off: sudo raspi-config nonint do_i2c 0, then reboot"
            wires = f"VCC, GND, SDA, SCL and the address jumper; sudo i2cdetect -y {d.i2c_port}"
        if opener is None and not bus.exists():
            found.append(Finding(section, "missing", f"{where}: {bus} does not exist ({off})"))
            continue
        display = ResilientDisplay((opener or open_oled)(d), d.width, d.height, name=where)
        if display.ok:
            display.cleanup()
            found.append(Finding(section, "ok", where))
        else:
            found.append(
                Finding(
                    section,
                    "missing",
                    f"{display.problem} (check {wires})",
                )
            )
    return found


def check_camera(pinmap) -> Finding:
    """The ``[camera]`` of the pin map opens (through companion.devices.camera)."""
    kind = pinmap.camera.get("kind", "none")
    if kind == "none":
        return Finding("camera", "skipped", "[camera] kind = none")
    from companion.devices.backends import open_camera

    camera = open_camera(pinmap)
    if camera is None:
        return Finding("camera", "missing", f"[camera] kind = {kind!r} did not open (see above)")
    close = getattr(camera, "close", None)
    if close is not None:
        close()
    return Finding("camera", "ok", f"kind {kind}")


def check_servo(pinmap, pins: Finding | None = None) -> Finding:
    """The servo has no feedback: report its pin and whether it is calibrated; ``missing`` when
    the GPIO pins (``pins``, :func:`check_pins`'s finding) cannot be opened, since its pulses
    come from them."""
    from companion.devices.calibration import calibration_path, load_calibration

    if pins is not None and pins.status == "missing":
        return Finding("servo", "missing", f"GPIO {pinmap.servo.pin}: no GPIO pins (see gpio)")

    try:
        cal = load_calibration()
    except ValueError as exc:
        return Finding("servo", "missing", str(exc))
    state = (
        f"calibrated ({calibration_path()})"
        if cal is not None
        else "not calibrated: companion servo calibrate"
    )
    return Finding(
        "servo", "ok", f"GPIO {pinmap.servo.pin}, {state} (an unplugged servo cannot be detected)"
    )


def check_all(pinmap) -> list[Finding]:
    """Every part, each checked on its own."""
    pins = check_pins(pinmap)
    return [pins, *check_displays(pinmap), check_servo(pinmap, pins), check_camera(pinmap)]
