"""The wiring diagram is generated from the pin map: it must put every part on the right pin."""

import re
from pathlib import Path

import pytest

from companion.devices.pinmap import DEFAULT_PINMAP, load_pinmap
from companion.platform.wiring import connections, header, render_markdown, render_svg, render_text

HARDWARE = DEFAULT_PINMAP.parent

# BCM GPIO -> physical header pin, from the Raspberry Pi documentation's header drawing
# ("GPIO and the 40-pin header"), written out by hand for the pins this build uses.
BCM_TO_PHYSICAL = {2: 3, 3: 5, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 25: 22, 5: 29}
GROUND_PINS = {6, 9, 14, 20, 25, 30, 34, 39}
FIVE_VOLT_PINS = {2, 4}
THREE_VOLT_PINS = {1, 17}


def test_header_matches_the_documented_layout():
    pins = header()
    assert len(pins) == 40
    assert {n for n, p in pins.items() if p.name == "GND"} == GROUND_PINS
    assert {n for n, p in pins.items() if p.name == "5V"} == FIVE_VOLT_PINS
    assert {n for n, p in pins.items() if p.name == "3V3"} == THREE_VOLT_PINS
    for gpio, number in BCM_TO_PHYSICAL.items():
        assert pins[number].gpio == gpio


def test_every_signal_goes_to_its_pin_map_gpio():
    pm = load_pinmap(DEFAULT_PINMAP)
    wires = connections(pm)
    signal = {
        (w.part, w.terminal): w.pin.number
        for w in wires
        if w.pin is not None and w.pin.gpio is not None
    }
    assert signal[("blue button", "switch")] == BCM_TO_PHYSICAL[pm.buttons["blue"]]
    assert signal[("red button", "switch")] == BCM_TO_PHYSICAL[pm.buttons["red"]]
    assert signal[("challenge button", "switch")] == BCM_TO_PHYSICAL[pm.buttons["challenge"]]
    assert signal[("blue LED ring", "NPN base")] == BCM_TO_PHYSICAL[pm.leds["blue"]]
    assert signal[("red LED ring", "NPN base")] == BCM_TO_PHYSICAL[pm.leds["red"]]
    assert signal[("buzzer", "NPN base")] == BCM_TO_PHYSICAL[pm.buzzer]
    assert signal[("servo", "signal (orange)")] == BCM_TO_PHYSICAL[pm.servo.pin]
    assert signal[("OLED", "SDA")] == 3 and signal[("OLED", "SCL")] == 5
    # nothing else is wired to a GPIO
    assert len(signal) == 9


def test_power_and_ground_go_to_power_and_ground_pins():
    wires = connections(load_pinmap(DEFAULT_PINMAP))
    for w in wires:
        if w.terminal in ("switch (other leg)", "NPN emitter", "GND", "GND (brown)"):
            assert w.pin.number in GROUND_PINS, w
        if w.terminal in ("LED +", "buzzer +"):
            assert w.pin.number in FIVE_VOLT_PINS, w
        if w.part == "OLED" and w.terminal == "VCC":
            assert w.pin.number in THREE_VOLT_PINS, w  # the OLED runs on 3.3 V
    servo_power = [w for w in wires if w.part == "servo" and w.terminal == "V+ (red)"]
    assert servo_power[0].pin is None and "own 5 V supply" in servo_power[0].note


def test_a_changed_pin_map_changes_the_diagram(tmp_path):
    path = tmp_path / "pinmap.toml"
    text = DEFAULT_PINMAP.read_text(encoding="utf-8").replace("pin = 25", "pin = 5")
    path.write_text(text + "\n[display2]\naddress = 0x3D\n", encoding="utf-8")
    pm = load_pinmap(path)
    out = render_text(pm)
    assert re.search(r"buzzer +NPN base +-> pin 29 \(GPIO5\)", out.replace("\n", " "))
    assert "GPIO25" not in [w.pin.name for w in connections(pm) if w.pin is not None]
    second = {w.terminal: w.pin.number for w in connections(pm) if w.part == "second OLED"}
    assert second["SDA"] == 3 and second["SCL"] == 5 and second["VCC"] in THREE_VOLT_PINS


def test_the_committed_diagram_and_guide_match_the_pin_map():
    pm = load_pinmap(DEFAULT_PINMAP)
    assert (HARDWARE / "wiring.svg").read_text(encoding="utf-8") == render_svg(pm)
    guide = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    block = guide.split("-->\n", 1)[1].split("<!-- END generated -->")[0]
    assert "<!-- BEGIN generated" in guide
    assert block == render_markdown(pm)


def test_svg_labels_each_used_pin():
    pm = load_pinmap(DEFAULT_PINMAP)
    svg = render_svg(pm)
    labelled = {int(n) for n in re.findall(r'data-pin="(\d+)"', svg)}
    expected = {w.pin.number for w in connections(pm) if w.pin is not None}
    assert labelled == expected


def test_companion_wiring_command(capsys, tmp_path):
    from companion.cli import main

    assert main(["wiring", "--pinmap", str(DEFAULT_PINMAP)]) == 0
    assert "pin 11 (GPIO17)" in capsys.readouterr().out
    assert main(["wiring", "--pinmap", str(DEFAULT_PINMAP), "--check"]) == 0
    assert "valid" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text(DEFAULT_PINMAP.read_text().replace("red = 24", "red = 17"))
    assert main(["wiring", "--pinmap", str(bad)]) == 2
    assert "already used by buttons.blue" in capsys.readouterr().err
    out = tmp_path / "w.svg"
    assert main(["wiring", "--pinmap", str(DEFAULT_PINMAP), "--format", "svg", "-o", str(out)]) == 0
    assert Path(out).read_text().startswith("<svg")


@pytest.mark.parametrize(
    ("where", "problem"),
    [("missing/w.md", "its folder"), ("missing/w.md", "does not exist"), (".", "is a folder")],
)
def test_wiring_output_that_cannot_be_written_exits_2(capsys, tmp_path, where, problem):
    from companion.cli import main

    out = tmp_path / where
    code = main(["wiring", "--pinmap", str(DEFAULT_PINMAP), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert repr(str(out)) in err and "accepted: a file path in an existing folder" in err
    assert problem in err
    assert "Traceback" not in err
