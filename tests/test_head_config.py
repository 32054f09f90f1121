"""The timer head's pin map section, the board file the firmware reads, flashing, and the serial
backend's devices (docs/head.md)."""

import json
import os
import time

import pytest

from companion.cli import main
from companion.devices.base import Buttons, Disc, Lights, Sounder
from companion.devices.head.cli import flash_commands
from companion.devices.head.config import BOARD_CONFIG, board_config_text, head_map
from companion.devices.head.wire import FIRMWARE_DIR, FIRMWARE_FILES
from companion.devices.pinmap import PinMapError, load_pinmap
from companion.paths import PROJECT_ROOT


def pinmap_with(tmp_path, head_text: str):
    base = (PROJECT_ROOT / "hardware" / "pinmap.toml").read_text(encoding="utf-8")
    base = base.split("\n[head]")[0]  # the Pi's sections, without the standard [head]
    path = tmp_path / "pinmap.toml"
    path.write_text(base + "\n" + head_text, encoding="utf-8")
    return load_pinmap(path)


# --- [head] ---------------------------------------------------------------------------------------


def test_the_standard_head_section():
    head = head_map(load_pinmap(PROJECT_ROOT / "hardware" / "pinmap.toml"))
    assert head.port == "/dev/companion-head"
    assert head.buttons == {"blue": 2, "red": 3, "challenge": 4}
    assert head.leds == {"blue": 6, "red": 7}
    assert (head.buzzer, head.servo) == (8, 15)
    # [servo] min/max_pulse_seconds 0.0005 / 0.0025 in microseconds
    assert (head.servo_min_us, head.servo_max_us) == (500, 2500)


def test_a_pin_map_without_head_section_gets_the_defaults(tmp_path):
    head = head_map(pinmap_with(tmp_path, ""))
    assert head.buttons == {"blue": 2, "red": 3, "challenge": 4} and head.sample_ms == 5


def test_every_problem_of_the_head_section_is_reported_at_once(tmp_path):
    pinmap = pinmap_with(
        tmp_path,
        "[head]\nbuzer = 8\nservo = 24\nsample_ms = 0\n"
        "[head.buttons]\nblue = 2\nred = 2\nchallenge = 40\n[head.leds]\nblue = 6\nred = 7\n",
    )
    with pytest.raises(PinMapError) as err:
        head_map(pinmap)
    message = str(err.value)
    assert str(pinmap.source) in message
    assert "[head] buzer: unknown key (did you mean 'buzzer'?)" in message
    assert "[head] servo = 24: accepted a Pico GP number 0 to 22 or 26 to 28" in message
    assert "[head.buttons] challenge = 40" in message
    assert "[head] sample_ms = 0: accepted milliseconds from 1 to 20" in message
    assert "buttons.red = 2: GP2 is already used by buttons.blue" in message


def test_the_committed_board_file_is_the_one_the_pin_map_makes():
    head = head_map(load_pinmap(PROJECT_ROOT / "hardware" / "pinmap.toml"))
    assert BOARD_CONFIG.read_text(encoding="utf-8") == board_config_text(head)


def test_the_board_file_is_python_with_the_pins_in_role_order():
    head = head_map(load_pinmap(PROJECT_ROOT / "hardware" / "pinmap.toml"))
    namespace: dict = {}
    exec(board_config_text(head), namespace)  # noqa: S102 - our own generated text
    assert namespace["BUTTON_PINS"] == (2, 3, 4)  # proto.BUTTONS order: blue, red, challenge
    assert namespace["LED_PINS"] == (6, 7)
    assert namespace["SAMPLE_MS"] * namespace["DEBOUNCE_SAMPLES"] == 20  # [buttons] 0.02 s


def test_companion_head_config_writes_the_board_file(tmp_path, capsys):
    out = tmp_path / "board_config.py"
    assert main(["head", "config", "-o", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["pins"]["servo"] == 15
    assert "SERVO_PIN = 15" in out.read_text(encoding="utf-8")


def test_flash_is_one_mpremote_command_copying_every_firmware_file(tmp_path):
    board = tmp_path / "board_config.py"
    (command,) = flash_commands("/dev/ttyACM0", board)
    assert command[1:5] == ["-m", "mpremote", "connect", "/dev/ttyACM0"]
    copied = command[command.index("cp") + 1 : command.index(":")]
    assert copied == [str(FIRMWARE_DIR / f) for f in FIRMWARE_FILES] + [str(board)]
    assert command[-2:] == ["+", "reset"]
    for name in FIRMWARE_FILES:
        assert (FIRMWARE_DIR / name).exists()


def test_flash_dry_run_prints_the_command(capsys):
    assert main(["head", "flash", "--port", "/dev/ttyX", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "mpremote connect /dev/ttyX cp" in out and "main.py" in out


def test_udev_rule_names_the_pico_running_micropython():
    rule = (FIRMWARE_DIR / "99-companion-head.rules").read_text(encoding="utf-8")
    assert 'ATTRS{idVendor}=="2e8a"' in rule and 'ATTRS{idProduct}=="0005"' in rule
    assert 'SYMLINK+="companion-head"' in rule


# --- the serial backend's devices -----------------------------------------------------------------


@pytest.fixture
def bundle():
    from companion.devices.head.sim import open_scripted

    clock, devices = open_scripted(load_pinmap(backend="mock"), start=100.0)
    yield clock, devices, devices.extra["virtual_table"]
    devices.close()


def test_the_serial_bundle_satisfies_the_device_interfaces(bundle):
    _, devices, _ = bundle
    assert devices.backend == "serial"
    assert isinstance(devices.buttons, Buttons) and isinstance(devices.lights, Lights)
    assert isinstance(devices.sounder, Sounder) and isinstance(devices.disc, Disc)


def test_press_handler_gets_the_role_and_the_moment_of_contact(bundle):
    clock, devices, table = bundle
    presses = []
    devices.buttons.on_press(lambda role, t: presses.append((role, t)))
    clock.set(101.0)
    table.head.set_button("challenge", True)
    clock.set(101.1)
    table.head.set_button("challenge", False)
    clock.set(101.2)
    assert len(presses) == 1 and presses[0][0] == "challenge"
    assert 101.0 <= presses[0][1] <= 101.0 + 0.005 + 0.002  # sampling period, wire + step


def test_lights_disc_and_sounder_reach_the_head(bundle):
    clock, devices, table = bundle
    devices.lights.set({"blue": False, "red": True})
    devices.disc.turn_to(-45.0)  # 500 + (-45 + 90) / 180 * 2000 us
    devices.sounder.beep(3, on_seconds=0.05, off_seconds=0.05)
    clock.set(clock.t + 0.5)
    hw = table.head.hw
    assert hw.leds == [False, True] and devices.lights.state() == {"blue": False, "red": True}
    assert hw.servo_us == 1000 and devices.disc.angle == -45.0
    assert [on for _, what, on in hw.changes if what == "buzzer"] == [True, False] * 3
    devices.disc.turn_to(500.0)  # clamped to the servo's travel
    clock.set(clock.t + 0.1)
    assert hw.servo_us == 2500 and devices.disc.angle == 90.0


def test_bad_commands_are_refused_with_what_is_accepted(bundle):
    from companion.devices.base import DeviceError

    _, devices, _ = bundle
    with pytest.raises(DeviceError, match="accepted: blue, red"):
        devices.lights.set({"challenge": True})
    with pytest.raises(DeviceError, match="finite number of degrees"):
        devices.disc.turn_to(float("nan"))
    with pytest.raises(DeviceError, match="0-255 beeps"):
        devices.sounder.beep(300)


def test_a_missing_head_port_is_a_clear_error(tmp_path, capsys):
    assert main(["head", "status", "--port", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert "timer head port" in err and "99-companion-head.rules" in err


@pytest.mark.hil
@pytest.mark.skipif(
    not os.environ.get("COMPANION_HEAD_PORT"), reason="set COMPANION_HEAD_PORT to a flashed head"
)
def test_a_real_head_answers_and_lights_its_leds():
    """Hardware in the loop: a flashed Pico on COMPANION_HEAD_PORT."""
    from companion.devices.head.backend import HeadConnection, open_port

    connection = HeadConnection(open_port(os.environ["COMPANION_HEAD_PORT"]))
    try:
        deadline = time.monotonic() + 3.0
        while not connection.link.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        assert connection.link.connected, connection.link.version_error
        connection.link.led(0, True)
        connection.link.servo(1500)
        assert connection.flush(1.0)
    finally:
        connection.close()


def test_the_head_over_a_pseudo_terminal_through_pyserial():
    """The real path: pyserial opens a terminal; the firmware's code runs behind it in a thread.
    Real time, bounded by a deadline (no fixed sleep decides the outcome)."""
    from companion.devices.head.sim import open_realtime

    devices = open_realtime(load_pinmap(backend="mock"))
    try:
        connection, head = devices.extra["head"], devices.extra["virtual_head"]
        presses = []
        devices.buttons.on_press(lambda role, t: presses.append((role, t)))
        deadline = time.monotonic() + 5.0
        while not connection.link.connected and time.monotonic() < deadline:
            time.sleep(0.005)
        assert connection.link.connected
        contact = time.monotonic()
        devices.pins["buttons.red"].drive_low()
        while not presses and time.monotonic() < deadline:
            time.sleep(0.005)
        devices.pins["buttons.red"].drive_high()
        assert presses and presses[0][0] == "red"
        assert contact - 0.002 <= presses[0][1] <= contact + 0.05
        devices.lights.set({"blue": True})
        while head.head.hw.leds != [True, False] and time.monotonic() < deadline:
            time.sleep(0.005)
        assert head.head.hw.leds == [True, False]
    finally:
        devices.close()


def test_the_backend_reopens_the_port_when_the_head_is_plugged_back():
    """Real time, bounded by deadlines: the head is unplugged (its terminal closes), a fresh one
    appears; presses flow again and the LEDs the game set are sent to the new head."""
    from companion.devices.head import bundle_over_port
    from companion.devices.head.backend import open_port
    from companion.devices.head.sim import _dummy_display
    from companion.devices.head.virtual import PtyHead

    pinmap = load_pinmap(backend="mock")
    first, second = PtyHead(), None
    heads = [first]

    def reopen():
        return open_port(heads[-1].path)

    devices = bundle_over_port(
        open_port(first.path), pinmap, display=_dummy_display(pinmap), reopen=reopen
    )
    connection = devices.extra["head"]
    presses = []
    devices.buttons.on_press(lambda role, t: presses.append(role))

    def wait(condition, seconds=5.0):
        deadline = time.monotonic() + seconds
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.005)
        return condition()

    try:
        assert wait(lambda: connection.link.connected)
        devices.lights.set({"red": True})
        first.close()  # unplugged
        assert wait(lambda: connection.error is not None)
        devices.lights.set({"blue": True, "red": True})  # the game goes on meanwhile
        second = PtyHead()  # plugged back (a new terminal, as a new USB device would be)
        heads.append(second)
        assert wait(lambda: connection.reopened == 1 and connection.link.connected)
        assert wait(lambda: second.head.hw.leds == [True, True])
        second.press("blue")
        assert wait(lambda: presses == ["blue"])
        second.release("blue")
    finally:
        devices.close()
        for head in heads:
            head.close()
