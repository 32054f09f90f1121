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
        # a tester's: OpenCV refused it in its own words ("Overload resolution failed") and the
        # box ran without its camera; -1 crashed OpenCV, 200 is V4L2's first camera
        (
            'kind = "opencv"\ndevice = 99999999999999999999',
            "device = 99999999999999999999: accepted an index 0 to 99 (0 is the first camera) "
            'or a device path ("/dev/video0")',
        ),
        ('kind = "opencv"\ndevice = -1', "device = -1: accepted an index 0 to 99"),
        ('kind = "opencv"\ndevice = 200', "device = 200: accepted an index 0 to 99"),
        ('kind = "opencv"\ndevice = true', "device = true: accepted an index 0 to 99"),
        ('kind = "opencv"\ndevice = " "', "device = ' ': accepted an index 0 to 99"),
        ('kind = "picamera2"\nwidth = 5', "width = 5: accepted pixels from 16 to 8192"),
    ],
)
def test_camera_section(tmp_path, camera, message):
    with pytest.raises(PinMapError, match=re.escape(message)):
        load_pinmap(edit(tmp_path, 'kind = "none"', camera))


def test_camera_kinds_that_load(tmp_path):
    pm = load_pinmap(edit(tmp_path, 'kind = "none"', 'kind = "picamera2"\ncamera_num = 0'))
    assert pm.camera == {"kind": "picamera2", "camera_num": 0}
    for device in ("0", "99", '"/dev/video2"'):
        pm = load_pinmap(edit(tmp_path, 'kind = "none"', f'kind = "opencv"\ndevice = {device}'))
        assert pm.camera["device"] == tomllib.loads(f"d = {device}")["d"]


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


# --- larger displays (issue 16): the SSD1309 128x64 and the SSD1322 256x64 ---------------------

SSD1322 = """driver = "ssd1322"
interface = "spi"
spi_device = 0
dc = 5
reset = 6
width = 256
height = 64"""
STANDARD_DISPLAY = """driver = "ssd1306"
i2c_port = 1        # /dev/i2c-1; 3..6 are a Pi 4/5's extra buses (dtoverlay=i2cN)
address = 0x3C      # most modules; 0x3D with the address jumper moved
width = 128
height = 64"""


def test_a_2_42_inch_ssd1309_is_a_128x64_i2c_display(tmp_path):
    pm = load_pinmap(edit(tmp_path, 'driver = "ssd1306"', 'driver = "ssd1309"'))
    d = pm.display
    assert (d.driver, d.interface, d.width, d.height) == ("ssd1309", "i2c", 128, 64)
    path = edit(
        tmp_path,
        STANDARD_DISPLAY,
        STANDARD_DISPLAY.replace("ssd1306", "ssd1309").replace("width = 128", "width = 256"),
    )
    with pytest.raises(PinMapError, match=r"256x64: accepted for ssd1309: 128x64"):
        load_pinmap(path)


def test_an_ssd1322_is_a_256x64_spi_display_with_its_pins_in_use(tmp_path):
    pm = load_pinmap(edit(tmp_path, STANDARD_DISPLAY, SSD1322))
    d = pm.display
    assert (d.driver, d.interface, d.width, d.height, d.dc, d.reset) == (
        "ssd1322",
        "spi",
        256,
        64,
        5,
        6,
    )
    assert d.spi_pins() == {"MOSI": 10, "SCLK": 11, "CE0": 8, "DC": 5, "RST": 6}
    assert pm.gpio_pins()["display.dc"] == 5 and pm.gpio_pins()["display.reset"] == 6
    assert pm.i2c_pins() == {}  # no I2C bus is taken by it


def test_an_ssd1322_display_is_the_simulators_size(tmp_path):
    from companion.daemon.config import TableConfig
    from companion.daemon.sim import ScriptedTable

    path = edit(tmp_path, STANDARD_DISPLAY, SSD1322)
    table = ScriptedTable(
        TableConfig(), judge=lambda words: None, journal_file=tmp_path / "j.jsonl", pinmap=path
    )
    table.at(1)
    assert table.devices.display.image.size == (256, 64)


@pytest.mark.parametrize(
    ("display", "problem"),
    [
        (
            SSD1322.replace('interface = "spi"', 'interface = "i2c"'),
            r'driver = "ssd1322": the module is wired to SPI',
        ),
        (SSD1322.replace("dc = 5\n", ""), r"\[display\] dc is missing"),
        (SSD1322.replace("dc = 5", "dc = 17"), r"GPIO 17 is already used by buttons.blue"),
        (SSD1322.replace("dc = 5", "dc = 10"), r"GPIO 10 is the MOSI of SPI0"),
        (SSD1322.replace("spi_device = 0", "spi_device = 2"), r"spi_device = 2: accepted 0 or 1"),
        (
            SSD1322.replace('interface = "spi"', 'interface = "usb"'),
            r"interface = 'usb': accepted i2c or spi",
        ),
        (
            SSD1322.replace("reset = 6", "reset = 40"),
            r"reset = 40: accepted a BCM GPIO number 2 to 27",
        ),
    ],
)
def test_a_bad_spi_display_is_named(tmp_path, display, problem):
    with pytest.raises(PinMapError, match=problem):
        load_pinmap(edit(tmp_path, STANDARD_DISPLAY, display))


def test_the_wiring_of_an_spi_display(tmp_path):
    from companion.platform.wiring import connections

    pm = load_pinmap(edit(tmp_path, STANDARD_DISPLAY, SSD1322))
    oled = {w.terminal: w for w in connections(pm) if w.part == "OLED"}
    # header pins (physical) of BCM 10, 11, 8, 5, 6: 19, 23, 24, 29, 31
    assert {
        s: w.pin.number for s, w in oled.items() if w.pin is not None and s not in ("VCC", "GND")
    } == {"DIN (MOSI)": 19, "CLK": 23, "CE0": 24, "DC": 29, "RST": 31}


# --- a user's pin map names only what differs (issue 12a) ---------------------------------------


def _standard_fields(pm):
    return {k: v for k, v in vars(pm).items() if k not in ("source", "raw")}


def test_a_pin_map_of_only_its_display_takes_every_other_value_from_the_standard(tmp_path):
    path = write(tmp_path, '[display]\ndriver = "ssd1322"\ndc = 5\n')
    pm, standard = load_pinmap(path), load_pinmap(DEFAULT_PINMAP)
    assert pm.source == path
    # the new driver brings its own size and interface, not the standard SSD1306's 128x64 on I2C
    d = pm.display
    assert (d.driver, d.interface, d.width, d.height, d.dc) == ("ssd1322", "spi", 256, 64, 5)
    assert pm.i2c_pins() == {}
    assert {**_standard_fields(pm), "display": None} == {
        **_standard_fields(standard),
        "display": None,
    }
    assert pm.raw["head"] == standard.raw["head"]  # sections owned elsewhere too


def test_a_display_driver_alone_is_told_what_it_lacks_never_none(tmp_path):
    with pytest.raises(PinMapError) as info:
        load_pinmap(write(tmp_path, '[display]\ndriver = "ssd1322"\n'))
    message = str(info.value)
    assert message == (
        f"{tmp_path / 'pinmap.toml'}: [display] dc is missing: an SPI display needs its "
        "data/command GPIO"
    )


def test_an_empty_pin_map_is_the_standard_one(tmp_path):
    pm = load_pinmap(write(tmp_path, "# nothing differs\n"))
    assert _standard_fields(pm) == _standard_fields(load_pinmap(DEFAULT_PINMAP))


def test_the_box_override_names_only_what_differs(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    write(tmp_path, "[buzzer]\npin = 5\n")
    pm = load_pinmap()
    assert pm.buzzer == 5 and pm.buttons == {"blue": 17, "red": 27, "challenge": 22}


def test_a_new_camera_kind_keeps_none_of_the_standard_cameras_keys(tmp_path):
    with pytest.raises(PinMapError, match=r"\[camera\] folder is missing: kind 'files' needs"):
        load_pinmap(write(tmp_path, '[camera]\nkind = "files"\n'))
    pm = load_pinmap(write(tmp_path, '[camera]\nkind = "files"\nfolder = "/srv/shots"\n'))
    assert pm.camera == {"kind": "files", "folder": "/srv/shots"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[buttons]\nblue = true\n", "[buttons] blue = true: accepted a BCM GPIO number"),
        ("[display]\nwidth = {a = 1}\n", "[display] width = a table: accepted a width"),
        ("[buttons]\nblue = 40\n", "[buttons] blue = 40: accepted a BCM GPIO number 2 to 27"),
    ],
)
def test_a_bad_value_is_quoted_the_toml_way(tmp_path, text, said):
    with pytest.raises(PinMapError) as info:
        load_pinmap(write(tmp_path, text))
    assert said in str(info.value) and "None" not in str(info.value)


def test_a_whole_pin_map_without_its_keys_says_they_are_missing():
    from companion.devices.pinmap import parse_pinmap

    with pytest.raises(PinMapError) as info:
        parse_pinmap("", "bare.toml")
    message = str(info.value)
    for key in ("[buttons] blue", "[leds] red", "[buzzer] pin", "[servo] pin"):
        assert f"{key} is missing: accepted a BCM GPIO number 2 to 27" in message
    assert "None" not in message


STANDARD_RAW = tomllib.loads(DEFAULT_PINMAP.read_text(encoding="utf-8"))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                (s, k)
                for s, t in STANDARD_RAW.items()
                for k, v in t.items()
                if not isinstance(v, dict)
            ]
        ),
        unique=True,
    )
)
def test_any_part_of_the_standard_pin_map_loads_as_the_whole(tmp_path_factory, keys):
    """Invariant: a user's pin map that names any subset of the standard's keys (with their
    standard values) is the standard pin map: what it leaves out takes the standard's value."""
    from companion.devices.pinmap import overlay

    user: dict = {}
    for section, key in keys:
        user.setdefault(section, {})[key] = STANDARD_RAW[section][key]
    assert overlay(STANDARD_RAW, user) == STANDARD_RAW
    lines = []
    for section, table in user.items():
        lines.append(f"[{section}]")
        lines.extend(f"{k} = {v!r}".replace("'", '"') for k, v in table.items())
    path = write(tmp_path_factory.mktemp("pm"), "\n".join(lines) + "\n")
    assert _standard_fields(load_pinmap(path)) == _standard_fields(load_pinmap(DEFAULT_PINMAP))


def test_wiring_checks_a_pin_map_of_only_what_differs(tmp_path, capsys):
    from companion.cli import main

    path = write(tmp_path, '[display]\ndriver = "ssd1322"\ndc = 5\nreset = 6\n')
    assert main(["wiring", "--check", "--pinmap", str(path)]) == 0
