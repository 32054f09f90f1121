"""The pin map loader: the standard build loads, and every kind of mistake is reported at once."""

import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.devices.pinmap import DEFAULT_PINMAP, PinMapError, load_pinmap

GPIO_ROLES = [
    ("buttons", "blue"),
    ("buttons", "red"),
    ("buttons", "challenge"),
    ("leds", "blue"),
    ("leds", "red"),
    ("buzzer", "pin"),
    ("servo", "pin"),
]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pinmap.toml"
    path.write_text(text, encoding="utf-8")
    return path


def edit(tmp_path: Path, old: str, new: str) -> Path:
    """The standard pin map with one line changed (the line must exist)."""
    text = DEFAULT_PINMAP.read_text(encoding="utf-8")
    assert old in text, old
    return write(tmp_path, text.replace(old, new, 1))


def test_standard_build_loads_with_its_documented_pins():
    pm = load_pinmap(DEFAULT_PINMAP)
    # the standard build: three buttons, two LED rings, buzzer, servo on PWM0, one OLED
    assert pm.buttons == {"blue": 17, "red": 27, "challenge": 22}
    assert pm.leds == {"blue": 23, "red": 24}
    assert (pm.buzzer, pm.servo.pin) == (25, 18)
    assert (pm.display.driver, pm.display.i2c_port, pm.display.address) == ("ssd1306", 1, 0x3C)
    assert pm.display2 is None
    assert pm.i2c_pins() == {"i2c1.sda": 2, "i2c1.scl": 3}
    assert pm.camera["kind"] == "none"


def test_no_pin_is_named_outside_the_pin_map():
    """The pin map is the only place pins are named: no BCM number of the standard build appears
    as a pin argument in the package's code (the wiring guide's tables are generated)."""
    root = DEFAULT_PINMAP.parent.parent / "companion"
    pattern = re.compile(r"\b(?:pin|gpio|GPIO)\s*[=(]\s*(17|27|22|23|24|25|18)\b")
    offenders = [
        f"{path}:{n}"
        for path in root.rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_a_pin_used_twice_names_both_roles(tmp_path):
    path = edit(tmp_path, "red = 24", "red = 17")
    with pytest.raises(PinMapError) as err:
        load_pinmap(path)
    assert "leds.red = 17" in str(err.value) and "buttons.blue" in str(err.value)


@pytest.mark.parametrize("pin", [0, 1])
def test_the_hat_eeprom_pins_are_reserved(tmp_path, pin):
    with pytest.raises(PinMapError, match=f"GPIO {pin} is reserved"):
        load_pinmap(edit(tmp_path, "pin = 25", f"pin = {pin}"))


@pytest.mark.parametrize("pin", [2, 3])
def test_the_display_i2c_pins_cannot_be_gpio(tmp_path, pin):
    with pytest.raises(PinMapError, match=f"GPIO {pin} is the S(DA|CL) of I2C bus 1"):
        load_pinmap(edit(tmp_path, "challenge = 22", f"challenge = {pin}"))


def test_an_extra_i2c_bus_reserves_its_own_pins(tmp_path):
    # dtoverlay=i2c6 puts bus 6 on GPIO 22 (SDA) / 23 (SCL): the challenge button and blue LED
    with pytest.raises(PinMapError) as err:
        load_pinmap(edit(tmp_path, "i2c_port = 1 ", "i2c_port = 6 "))
    assert "GPIO 22 is the SDA of I2C bus 6" in str(err.value)
    assert "GPIO 23 is the SCL of I2C bus 6" in str(err.value)


def test_i2c_bus_0_is_refused_as_the_hat_eeprom_bus(tmp_path):
    with pytest.raises(PinMapError, match="i2c_port = 0 .*HAT ID EEPROM"):
        load_pinmap(edit(tmp_path, "i2c_port = 1 ", "i2c_port = 0 "))


def test_out_of_header_pin(tmp_path):
    with pytest.raises(PinMapError, match=r"\[buzzer\] pin = 28: accepted a BCM GPIO number"):
        load_pinmap(edit(tmp_path, "pin = 25", "pin = 28"))


def test_every_problem_is_reported_at_once(tmp_path):
    text = DEFAULT_PINMAP.read_text(encoding="utf-8")
    text = text.replace("red = 24", "red = 17").replace('driver = "ssd1306"', 'driver = "st7735"')
    text = text.replace("bounce_seconds = 0.02", "bounce_seconds = 3")
    with pytest.raises(PinMapError) as err:
        load_pinmap(write(tmp_path, text))
    message = str(err.value)
    assert str(tmp_path / "pinmap.toml") in message
    assert "leds.red = 17" in message
    assert "driver = 'st7735'" in message and "ssd1306, sh1106" in message
    assert "bounce_seconds = 3" in message


def test_an_unknown_key_gets_a_did_you_mean(tmp_path):
    with pytest.raises(
        PinMapError, match=r"\[buttons\] chalenge: unknown key \(did you mean 'challenge'\?\)"
    ):
        load_pinmap(edit(tmp_path, "challenge = 22", "challenge = 22\nchalenge = 5"))


def test_display_size_must_suit_the_driver(tmp_path):
    with pytest.raises(PinMapError, match="width x height = 128x48: accepted for ssd1306"):
        load_pinmap(edit(tmp_path, "height = 64", "height = 48"))
    pm = load_pinmap(edit(tmp_path, "height = 64", "height = 32"))
    assert (pm.display.width, pm.display.height) == (128, 32)


SECOND = '\n[display2]\ndriver = "sh1106"\ni2c_port = 1\naddress = {address}\n'


def test_second_oled_on_the_other_address(tmp_path):
    text = DEFAULT_PINMAP.read_text(encoding="utf-8") + SECOND.format(address="0x3D")
    pm = load_pinmap(write(tmp_path, text))
    assert pm.display2 is not None
    assert (pm.display2.driver, pm.display2.address) == ("sh1106", 0x3D)
    assert set(pm.displays()) == {"display", "display2"}


def test_two_oleds_at_one_address_are_refused(tmp_path):
    text = DEFAULT_PINMAP.read_text(encoding="utf-8") + SECOND.format(address="0x3C")
    with pytest.raises(PinMapError, match=r"\[display2\] address = 0x3c: the first OLED"):
        load_pinmap(write(tmp_path, text))


@pytest.mark.parametrize(
    ("camera", "message"),
    [
        ('kind = "webcam"', "kind = 'webcam': accepted one of none, picamera2, opencv, files"),
        ('kind = "files"', "kind 'files' needs a folder"),
        ('kind = "opencv"\ndevice = 1.5', "device = 1.5: accepted an index"),
        ('kind = "picamera2"\nwidth = 5', "width = 5: accepted pixels from 16 to 8192"),
    ],
)
def test_camera_section(tmp_path, camera, message):
    with pytest.raises(PinMapError, match=re.escape(message)):
        load_pinmap(edit(tmp_path, 'kind = "none"', camera))


def test_camera_kinds_that_load(tmp_path):
    pm = load_pinmap(edit(tmp_path, 'kind = "none"', 'kind = "picamera2"\ncamera_num = 0'))
    assert pm.camera == {"kind": "picamera2", "camera_num": 0}


def test_the_box_override_in_the_config_dir_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    assert load_pinmap().source == DEFAULT_PINMAP
    edit(tmp_path, "pin = 25", "pin = 5")
    pm = load_pinmap()
    assert pm.source == tmp_path / "pinmap.toml" and pm.buzzer == 5


def test_unreadable_and_invalid_toml(tmp_path):
    with pytest.raises(PinMapError, match="cannot read the pin map"):
        load_pinmap(tmp_path / "absent.toml")
    with pytest.raises(PinMapError, match="not valid TOML"):
        load_pinmap(write(tmp_path, "[buttons\nblue = 1"))


FREE = [p for p in range(2, 28) if p not in (2, 3)]


@settings(max_examples=40, deadline=None)
@given(st.permutations(FREE).map(lambda p: p[: len(GPIO_ROLES)]), st.data())
def test_distinct_free_pins_load_and_any_repeat_fails(tmp_path_factory, pins, data):
    """Invariant: any assignment of distinct non-reserved pins loads and reads back as written;
    making one role repeat another's pin always fails naming that role."""
    raw = tomllib.loads(DEFAULT_PINMAP.read_text(encoding="utf-8"))
    for (section, key), pin in zip(GPIO_ROLES, pins, strict=True):
        raw[section][key] = pin
    tmp = tmp_path_factory.mktemp("pm")

    def dump(doc) -> Path:
        lines = []

        def table(name, items):
            lines.append(f"[{name}]")
            lines.extend(
                f"{k} = {v!r}".replace("'", '"')
                for k, v in items.items()
                if not isinstance(v, dict)
            )
            for k, v in items.items():
                if isinstance(v, dict):
                    table(f"{name}.{k}", v)

        for section, items in doc.items():
            table(section, items)
        return write(tmp, "\n".join(lines) + "\n")

    pm = load_pinmap(dump(raw))
    assert sorted(pm.gpio_pins().values()) == sorted(pins)
    i = data.draw(st.integers(1, len(GPIO_ROLES) - 1))
    j = data.draw(st.integers(0, i - 1))
    (section, key) = GPIO_ROLES[i]
    raw[section][key] = pins[j]
    with pytest.raises(
        PinMapError, match=rf"{section}\.{key} = {pins[j]}: GPIO {pins[j]} is already used"
    ):
        load_pinmap(dump(raw))
