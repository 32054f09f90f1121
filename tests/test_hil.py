"""Hardware-in-the-loop tests: for a person at a built box, on the Raspberry Pi.

Skipped anywhere else. On the box (the service stopped, so the pins are free):

    sudo systemctl stop table-companion
    COMPANION_HIL=1 .venv/bin/python -m pytest -m hil tests/test_hil.py -s

They use the box's pin map (/etc/table-companion/pinmap.toml when run with
COMPANION_CONFIG_DIR=/etc/table-companion, else hardware/pinmap.toml) and ask the person to
press buttons and to say what they see and hear.
"""

import os
import sys
from pathlib import Path

import pytest

MODEL = Path("/proc/device-tree/model")


def _on_a_pi() -> bool:
    try:
        return "Raspberry Pi" in MODEL.read_text(errors="replace")
    except OSError:
        return False


pytestmark = [
    pytest.mark.hil,
    pytest.mark.skipif(not _on_a_pi(), reason="hardware-in-the-loop: needs a Raspberry Pi"),
    pytest.mark.skipif(
        os.environ.get("COMPANION_HIL") != "1",
        reason="hardware-in-the-loop: set COMPANION_HIL=1 at a built box (and pass -s)",
    ),
]

WAIT = 20.0  # seconds a person gets to press a button


@pytest.fixture(scope="module")
def pinmap():
    from companion.devices.pinmap import load_pinmap

    return load_pinmap(backend="gpio")


def ask(question: str) -> bool:
    if not sys.stdin.isatty():
        pytest.skip("needs a person at the keyboard: run pytest with -s in a terminal")
    return input(f"\n{question} [y/n] ").strip().lower().startswith("y")


def test_pin_factory_is_the_pis_own():
    from gpiozero import LED, Device

    from companion.devices.pinmap import load_pinmap

    pm = load_pinmap(backend="gpio")
    led = LED(pm.leds["blue"])
    try:
        name = type(Device.pin_factory).__name__
        if "Raspberry Pi 5" in MODEL.read_text(errors="replace"):
            assert name == "LGPIOFactory"
        assert "Mock" not in name
    finally:
        led.close()


def test_i2c_bus_and_oled_answer(pinmap):
    from companion.devices.resilient import resilient_oled

    for name, display in pinmap.displays().items():
        assert Path(f"/dev/i2c-{display.i2c_port}").exists(), "I2C is off: sudo raspi-config"
        oled = resilient_oled(display, name)
        assert oled.ok, oled.problem
        oled.cleanup()


def test_oled_shows_a_test_card(pinmap):
    from luma.core.render import canvas

    from companion.devices.resilient import open_oled

    device = open_oled(pinmap.display)()
    with canvas(device) as draw:
        draw.rectangle(device.bounding_box, outline="white")
        draw.text((8, 24), "TABLE COMPANION", fill="white")
    assert ask("Does the OLED show a frame around TABLE COMPANION?")
    device.cleanup()


@pytest.mark.parametrize("role", ["blue", "red", "challenge"])
def test_button_press(pinmap, role):
    from gpiozero import Button

    button = Button(pinmap.buttons[role], pull_up=True)
    try:
        print(f"\nPress the {role} button (within {WAIT:.0f} s)...", flush=True)
        assert button.wait_for_press(timeout=WAIT), f"no press on GPIO {pinmap.buttons[role]}"
    finally:
        button.close()


@pytest.mark.parametrize("role", ["blue", "red"])
def test_led_ring(pinmap, role):
    from gpiozero import LED

    led = LED(pinmap.leds[role])
    try:
        led.on()
        assert ask(f"Is the {role} button's LED ring lit (and only that one)?")
    finally:
        led.close()


def test_buzzer(pinmap):
    from gpiozero import Buzzer

    buzzer = Buzzer(pinmap.buzzer)
    try:
        buzzer.beep(on_time=0.15, off_time=0.1, n=3, background=False)
        assert ask("Did the buzzer beep three times?")
    finally:
        buzzer.close()


def test_disc_positions(pinmap):
    from companion.devices.calibration import load_calibration, position_angle
    from companion.devices.gpio import GpioDisc

    disc = GpioDisc(pinmap.servo, calibration=load_calibration())
    try:
        for blue in (5, 0, 10, 5):
            disc.turn_to(position_angle(blue, 5, pinmap.servo.degrees_per_minute))
            assert ask(f"Do the windows show blue {blue} and red {10 - blue}?")
    finally:
        disc.close()


def test_camera_takes_a_picture(pinmap):
    if pinmap.camera.get("kind", "none") == "none":
        pytest.skip("[camera] kind = none: this box has no camera")
    from companion.devices.backends import open_camera

    camera = open_camera(pinmap)
    assert camera is not None, "the camera did not open: see the warning above"
    close = getattr(camera, "close", None)
    if close is not None:
        close()
