"""Servo calibration, the resilient OLED and the installer's plan."""

import argparse
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from companion.devices.calibration import (
    CalibrationError,
    ServoCalibration,
    calibrate,
    default_calibration,
    load_calibration,
    position_angle,
    save_calibration,
    servo_value,
)
from companion.devices.pinmap import DEFAULT_PINMAP, ServoMap, load_pinmap
from companion.devices.resilient import ResilientDisplay
from companion.platform import install

SERVO = ServoMap(18, 0.0005, 0.0025, -90.0, 90.0, 18.0)

# --- calibration -----------------------------------------------------------------------------


def test_nominal_positions_of_a_five_minute_game():
    # 5 + 5 minutes: 11 positions, blue 0 at -90 degrees (0.5 ms), 5 at 0 (1.5 ms), 10 at +90
    cal = default_calibration(SERVO, 5)
    assert len(cal.pulses) == 11
    assert cal.angles[0] == -90.0 and cal.angles[5] == 0.0 and cal.angles[10] == 90.0
    assert cal.pulses[0] == pytest.approx(0.0005)
    assert cal.pulses[5] == pytest.approx(0.0015)
    assert cal.pulses[10] == pytest.approx(0.0025)
    assert cal.pulses[6] - cal.pulses[5] == pytest.approx(0.0002)  # 18 degrees of 180 = 0.2 ms


def test_too_many_minutes_for_the_servo_travel():
    with pytest.raises(CalibrationError, match="6 minutes each need the disc to turn -108 to 108"):
        default_calibration(SERVO, 6)


def test_calibrated_pulses_are_interpolated_between_positions():
    cal = ServoCalibration(1, 45.0, (0.001, 0.0015, 0.0022))  # angles -45, 0, 45
    assert cal.pulse_for_angle(0.0) == 0.0015
    assert cal.pulse_for_angle(22.5) == pytest.approx(0.00185)
    assert cal.pulse_for_angle(-90.0) == 0.001  # clamped to the end positions
    assert cal.pulse_for_angle(90.0) == 0.0022


@given(st.floats(-90, 90))
def test_interpolation_stays_between_neighbouring_pulses(angle):
    cal = default_calibration(SERVO, 5)
    i = min(int((angle + 90) // 18), 9)
    lo, hi = sorted(cal.pulses[i : i + 2])
    assert lo - 1e-12 <= cal.pulse_for_angle(angle) <= hi + 1e-12


def test_calibrate_steps_through_every_position_and_saves(tmp_path):
    start = default_calibration(SERVO, 5)
    driven: list[float] = []
    # position 0: two nudges up then keep; position 1: "--" (5 steps down) then keep; then back
    # to position 1 with "b", keep, and keep all the rest
    answers = iter(["+", "+", "", "--", "", "b", "", *[""] * 20])
    result = calibrate(
        start, SERVO, driven.append, lambda prompt: next(answers), say=lambda s: None
    )
    assert result.pulses[0] == pytest.approx(0.0005 + 2 * 0.00001)
    assert result.pulses[1] == pytest.approx(0.0007 - 5 * 0.00001)
    assert result.pulses[2:] == start.pulses[2:]
    # every position was shown, in order
    assert driven[-9:] == list(result.pulses[2:])
    path = save_calibration(result, tmp_path / "servo-calibration.toml")
    assert load_calibration(path).pulses == pytest.approx(result.pulses, abs=1e-7)


def test_calibrate_keeps_pulses_inside_the_servo_range():
    start = default_calibration(SERVO, 5)
    answers = iter(["--"] * 3 + [""] * 11)
    result = calibrate(start, SERVO, lambda p: None, lambda p: next(answers), say=lambda s: None)
    assert result.pulses[0] == SERVO.min_pulse_seconds


def test_quitting_calibration_saves_nothing():
    start = default_calibration(SERVO, 5)
    assert calibrate(start, SERVO, lambda p: None, lambda p: "q", say=lambda s: None) is None


def test_a_bad_calibration_file_is_named(tmp_path):
    path = tmp_path / "servo-calibration.toml"
    path.write_text("minutes = 5\ndegrees_per_minute = 18.0\npulses = [0.001, 0.002]\n")
    with pytest.raises(CalibrationError, match="2 values for 5 minutes each; accepted 11"):
        load_calibration(path)
    assert load_calibration(tmp_path / "none.toml") is None


def test_servo_value_maps_the_pulse_range_to_minus_one_to_one():
    assert servo_value(SERVO, 0.0005) == -1.0
    assert servo_value(SERVO, 0.0015) == pytest.approx(0.0)
    assert servo_value(SERVO, 0.0025) == 1.0


def test_calibrate_command_with_mock_pins(monkeypatch, tmp_path, capsys):
    from companion.cli import main

    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    answers = iter(["+", *[""] * 11])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["servo", "calibrate", "--mock", "--pinmap", str(DEFAULT_PINMAP)]) == 0
    saved = load_calibration(tmp_path / "servo-calibration.toml")
    assert saved.pulses[0] == pytest.approx(0.00051)
    assert position_angle(10, 5, 18.0) == 90.0


def test_calibrate_on_a_machine_without_gpio_says_one_clear_message(tmp_path):
    import os
    import subprocess
    import sys

    from companion.devices.backends import probe_pin_factory
    from companion.devices.base import DeviceError

    try:
        probe_pin_factory()
    except DeviceError:
        pass
    else:
        pytest.skip("a GPIO pin factory loads here (a Raspberry Pi)")
    env = {**os.environ, "COMPANION_CONFIG_DIR": str(tmp_path), "PYTHONWARNINGS": ""}
    done = subprocess.run(
        [sys.executable, "-m", "companion", "servo", "calibrate", "--pinmap", str(DEFAULT_PINMAP)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2
    # one message of its own, first: no library warning with a file path before it
    assert done.stderr.startswith("companion servo calibrate: the servo on GPIO 18 cannot be")
    assert "Warning" not in done.stderr and ".py:" not in done.stderr
    assert "lgpio" in done.stderr and "--mock" in done.stderr  # what was tried, what to do


# --- the resilient OLED ----------------------------------------------------------------------


class FlakyOled:
    """A luma-like device whose wire comes loose: ``display`` raises OSError while ``loose``."""

    def __init__(self, board):
        self.board = board
        self.frames = []

    def display(self, image):
        if self.board["loose"]:
            raise OSError(121, "Remote I/O error")
        self.frames.append(image)


def make_display(board, now):
    opened = []

    def opener():
        if board["loose"]:
            raise OSError(121, "Remote I/O error")
        opened.append(FlakyOled(board))
        return opened[-1]

    display = ResilientDisplay(opener, 128, 64, retry_seconds=2.0, clock=lambda: now[0])
    return display, opened


def frame(n):
    return Image.new("1", (128, 64), n % 2)


def test_a_loose_wire_never_raises_and_the_display_comes_back(caplog):
    board, now = {"loose": False}, [0.0]
    display, opened = make_display(board, now)
    display.display(frame(1))
    assert display.ok and opened[0].frames == [display.image]
    board["loose"] = True
    now[0] = 1.0
    display.display(frame(2))  # the write fails: no exception reaches the clock
    assert not display.ok and "Remote I/O error" in display.problem
    now[0] = 2.5  # before the retry is due: no attempt
    display.display(frame(3))
    assert len(opened) == 1
    board["loose"] = False  # the wire is pushed back
    now[0] = 3.0
    latest = frame(4)
    display.display(latest)  # re-opened and the latest frame shown
    assert display.ok and display.problem is None and display.reopened == 1
    assert len(opened) == 2 and opened[1].frames == [latest]
    assert sum("failed" in r.message for r in caplog.records) == 1


def test_a_missing_oled_at_start_is_reported_and_retried():
    board, now = {"loose": True}, [0.0]
    display, opened = make_display(board, now)
    assert not display.ok and "opening failed" in display.problem
    display.display(frame(1))
    board["loose"] = False
    now[0] = 2.0
    display.poll()  # shows the kept frame once the module answers
    assert display.ok and opened[0].frames == [display.image]


def test_other_errors_are_not_hidden():
    def opener():
        raise TypeError("a bug, not a loose wire")

    with pytest.raises(TypeError):
        ResilientDisplay(opener, 128, 64)


def test_resilient_oled_on_a_machine_without_i2c():
    from companion.devices.resilient import resilient_oled

    pm = load_pinmap(DEFAULT_PINMAP)
    display = resilient_oled(pm.display)
    if display.ok:  # pragma: no cover - a machine with an OLED on /dev/i2c-1
        pytest.skip("an OLED answers on this machine")
    assert "ssd1306 at I2C bus 1 address 0x3c" in display.problem
    display.display(frame(1))  # still never raises


# --- the installer ---------------------------------------------------------------------------


def fake_plan(tmp_path, **kwargs):
    options = install.Options(
        prefix=tmp_path / "opt",
        unit_dir=tmp_path / "units",
        config_dir=tmp_path / "etc",
        state_dir=tmp_path / "var",
        udev_dir=tmp_path / "udev",
    )
    defaults = dict(
        groups_exist=lambda g: True,
        installed=lambda pkgs: set(),
        available=lambda pkgs: set(pkgs),
        booted=lambda: True,
        udev=lambda: True,
        user_exists=lambda user: False,  # a fresh box (on an installed one the user exists)
    )
    defaults.update(kwargs)
    return options, install.plan(options, **defaults)


def test_dry_run_prints_every_step_and_changes_nothing(tmp_path):
    options, steps = fake_plan(tmp_path)
    lines: list[str] = []
    install.execute(steps, dry_run=True, run=lambda argv: pytest.fail("ran"), say=lines.append)
    text = "\n".join(lines)
    for expected in (
        "apt-get install -y --no-install-recommends python3-venv",
        "python3-lgpio",
        "useradd --system",
        "usermod --append --groups gpio,i2c,video,dialout companion",
        "rsync -a --delete",
        "-m venv --system-site-packages",
        "systemctl daemon-reload",
        "udevadm control --reload-rules",
        "companion lexicon build",
        "companion lexicon explain-index",
        "companion wordinoes warm",
        "systemctl enable table-companion.service",
        "systemctl restart table-companion.service",
    ):
        assert expected in text, expected
    assert not (tmp_path / "units").exists() and not (tmp_path / "opt").exists()


def test_an_existing_service_user_is_not_added_again(tmp_path):
    _, steps = fake_plan(tmp_path, user_exists=lambda user: user == "companion")
    lines: list[str] = []
    install.execute(steps, dry_run=True, run=lambda argv: pytest.fail("ran"), say=lines.append)
    text = "\n".join(lines)
    assert "useradd" not in text
    assert "usermod --append --groups gpio,i2c,video,dialout companion" in text


def test_dry_run_command(capsys):
    from companion.cli import main

    assert main(["install", "--dry-run", "--no-start"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Dry run: nothing is changed.")
    assert "systemctl enable" not in out


def test_install_twice_skips_what_is_done(tmp_path):
    ran: list[list[str]] = []
    options, steps = fake_plan(tmp_path)
    install.execute(steps, run=lambda argv: ran.append(list(argv)) or 0, say=lambda s: None)
    unit = tmp_path / "units" / install.UNIT_NAME
    assert f"ExecStart={tmp_path / 'opt'}/.venv/bin/companion daemon" in unit.read_text()
    # second run: the packages are there, the unit is unchanged: those steps are skipped
    ran.clear()
    lines: list[str] = []
    _, steps = fake_plan(tmp_path, installed=lambda pkgs: set(pkgs))
    install.execute(steps, run=lambda argv: ran.append(list(argv)) or 0, say=lines.append)
    assert any("Debian packages" in s and "already done" in s for s in lines)
    assert any("systemd unit" in s and "already done" in s for s in lines)
    assert ["apt-get", "update"] not in ran


def test_the_box_pin_map_is_never_overwritten(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "pinmap.toml").write_text("# this box's own\n")
    _, steps = fake_plan(tmp_path)
    config = next(s for s in steps if s.title.startswith("configuration"))
    assert config.done()
    assert not any("pinmap.toml" in " ".join(c) for c in config.commands)


def test_a_failing_command_names_the_step(tmp_path):
    _, steps = fake_plan(tmp_path)
    with pytest.raises(install.InstallError, match=r"step 1 \(Debian packages\): `apt-get update`"):
        install.execute(steps, run=lambda argv: 100, say=lambda s: None)


def test_the_code_in_the_prefix_is_roots_not_the_login_users(tmp_path):
    _, steps = fake_plan(tmp_path)
    copy = next(s for s in steps if s.title.startswith("code copied"))
    argv = [" ".join(c) for c in copy.commands]
    assert "-o root -g root" in argv[0]
    assert "--chown=root:root" in argv[1] and "go-w" in argv[1]


def test_the_unit_names_only_groups_this_system_has(tmp_path):
    # a Debian PC has video and dialout but no gpio or i2c: systemd would refuse to start a unit
    # naming them (status 216/GROUP)
    pc = {"video", "dialout"}
    options, steps = fake_plan(tmp_path, groups_exist=lambda g: g in pc)
    install.execute(steps, run=lambda argv: 0, say=lambda s: None)
    unit = (tmp_path / "units" / install.UNIT_NAME).read_text()
    assert "SupplementaryGroups=video dialout\n" in unit
    nothing = install.render_unit(
        "User=companion\nSupplementaryGroups=gpio\n", options, lambda g: False
    )
    assert "SupplementaryGroups" not in nothing


def test_in_a_chroot_the_unit_is_enabled_not_started(tmp_path):
    _, steps = fake_plan(tmp_path, booted=lambda: False, udev=lambda: False)
    lines: list[str] = []
    install.execute(steps, dry_run=True, say=lines.append)
    text = "\n".join(lines)
    assert "systemctl enable table-companion.service" in text
    assert "systemctl restart" not in text and "daemon-reload" not in text
    assert "udevadm" not in text
    assert "it starts at the next boot" in text


def test_a_missing_program_fails_its_step_without_a_traceback(tmp_path):
    step = install.Step("a tool", [["companion-no-such-program-here"]])
    with pytest.raises(install.InstallError, match=r"exited with status 127"):
        install.execute([step], say=lambda s: None)


@pytest.mark.parametrize(
    ("machine", "arch", "bits"),
    [
        ("armv7l", "armhf", 32),
        ("aarch64", "armhf", 32),
        ("armv6l", None, 32),
        ("aarch64", "arm64", 32),
    ],
)
def test_a_32_bit_system_is_refused_naming_the_64_bit_image(machine, arch, bits):
    # a Pi 4/5 on 32-bit Raspberry Pi OS runs a 64-bit kernel: uname says aarch64, dpkg armhf
    problem = install.thirty_two_bit_problem(machine, arch, bits)
    assert problem is not None
    assert "Raspberry Pi OS (64-bit)" in problem and "Zero 2 W" in problem


def test_a_64_bit_system_is_accepted():
    assert install.thirty_two_bit_problem("aarch64", "arm64", 64) is None
    assert install.thirty_two_bit_problem("x86_64", "amd64", 64) is None


def test_the_installer_refuses_32_bit_before_anything(monkeypatch):
    monkeypatch.setattr(install, "thirty_two_bit_problem", lambda: "this is a 32-bit system")
    monkeypatch.setattr(install, "plan", lambda *a, **k: pytest.fail("planned"))
    code = install.main(["--dry-run"])
    assert code == 2


def test_installing_needs_root(monkeypatch):
    monkeypatch.setattr(install.os, "geteuid", lambda: 1000)
    args = argparse.Namespace(
        dry_run=False, prefix=Path("/opt/x"), user="companion", no_start=False, no_lexicon=False
    )
    with pytest.raises(install.InstallError, match="needs root"):
        install.run_install(args)


def test_mirrored_display_shows_both_and_survives_one_lost():
    from companion.devices.resilient import MirroredDisplay

    board, now = {"loose": False}, [0.0]
    first, opened_first = make_display(board, now)
    other_board = {"loose": True}  # the second OLED is not connected
    second, _ = make_display(other_board, now)
    both = MirroredDisplay(first, second)
    image = frame(1)
    both.display(image)
    assert opened_first[0].frames == [image]
    assert both.problem is not None and "opening failed" in both.problem


def test_disc_uses_the_saved_calibration():
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from companion.devices.gpio import GpioDisc

    factory = MockFactory(pin_class=MockPWMPin)
    nominal = default_calibration(SERVO, 5)
    pulses = list(nominal.pulses)
    pulses[6] = 0.00175  # blue 6 / red 4 needed 50 microseconds more than nominal
    cal = ServoCalibration(5, 18.0, tuple(pulses))
    disc = GpioDisc(SERVO, pin_factory=factory, calibration=cal)
    disc.turn_to(18.0)  # blue has gained one minute: position 6
    # the servo frame is 20 ms (50 Hz): the pin's duty cycle is the pulse over the frame
    assert factory.pin(18).state == pytest.approx(0.00175 / 0.020)
    disc.turn_to(9.0)  # half-way between positions 5 and 6
    assert factory.pin(18).state == pytest.approx((0.0015 + 0.00175) / 2 / 0.020)
    assert disc.angle == 9.0
    disc.close()


# --- companion hardware check ----------------------------------------------------------------


def test_hardware_check_reports_each_display_on_its_own(tmp_path):
    from companion.platform.probe import check_displays

    text = DEFAULT_PINMAP.read_text(encoding="utf-8") + "\n[display2]\naddress = 0x3D\n"
    (tmp_path / "pinmap.toml").write_text(text)
    pm = load_pinmap(tmp_path / "pinmap.toml")

    def opener(display_map):
        def open_():
            if display_map.address == 0x3D:  # the second module is not connected
                raise OSError(121, "Remote I/O error")
            return FlakyOled({"loose": False})

        return open_

    found = {f.part: f for f in check_displays(pm, opener=opener)}
    assert found["display"].status == "ok"
    assert found["display2"].status == "missing"
    assert "0x3d" in found["display2"].detail and "Remote I/O error" in found["display2"].detail


def test_hardware_check_command_off_a_pi(capsys, monkeypatch, tmp_path):
    from companion.cli import main
    from companion.platform import probe

    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    monkeypatch.setattr(probe, "check_pins", lambda pm: probe.Finding("gpio", "missing", "x"))
    assert main(["hardware", "check", "--pinmap", str(DEFAULT_PINMAP), "--json"]) == 1
    import json

    parts = {f["part"]: f for f in json.loads(capsys.readouterr().out)}
    assert parts["gpio"]["status"] == "missing"
    assert parts["camera"]["status"] == "skipped"  # the standard build has kind = "none"
    # the servo's pulses come from the GPIO pins: with none it cannot be "ok"
    assert parts["servo"]["status"] == "missing" and "no GPIO pins" in parts["servo"]["detail"]


def test_the_servo_check_says_its_calibration_when_the_pins_open(monkeypatch, tmp_path):
    from companion.platform import probe

    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    pins = probe.Finding("gpio", "ok", "pin factory MockFactory")
    found = probe.check_servo(load_pinmap(DEFAULT_PINMAP), pins)
    assert found.status == "ok" and "not calibrated" in found.detail


def test_the_link_unit_is_installed_and_enabled_only_for_a_tournament(tmp_path):
    options, steps = fake_plan(tmp_path)
    ran: list[str] = []
    install.execute(steps, run=lambda argv: ran.append(" ".join(argv)) or 0, say=lambda s: None)
    link = (tmp_path / "units" / install.LINK_UNIT_NAME).read_text()
    assert f"ExecStart={tmp_path / 'opt'}/.venv/bin/companion link" in link
    assert not any(install.LINK_UNIT_NAME in r for r in ran)  # no [tournament]: not enabled
    (tmp_path / "etc").mkdir(exist_ok=True)
    (tmp_path / "etc" / "table.toml").write_text(
        '[table]\nnumber = 7\n[tournament]\nbroker = "mqtt://10.42.0.1:1883"\nevent = "spring"\n'
    )
    ran.clear()
    _, steps = fake_plan(tmp_path)
    install.execute(steps, run=lambda argv: ran.append(" ".join(argv)) or 0, say=lambda s: None)
    assert f"systemctl enable {install.LINK_UNIT_NAME}" in ran
    assert f"systemctl restart {install.LINK_UNIT_NAME}" in ran
    # a file that is not TOML is no tournament, and no traceback
    (tmp_path / "etc" / "table.toml").write_text("[tournament\n" + "[" * 5000)
    assert install.in_tournament(tmp_path / "etc" / "table.toml") is False


def test_dictd_is_masked_before_dict_gcide_installs_it(tmp_path):
    # dict-gcide depends on dictd | dict-server (not a recommendation: --no-install-recommends
    # cannot leave it out) and dictd's postinst starts the DICT server; the lexicon reads GCIDE's
    # files itself, so the unit is masked first (invoke-rc.d starts no masked unit)
    _, steps = fake_plan(tmp_path)
    packages = steps[0].commands
    install_at = next(i for i, c in enumerate(packages) if c[:2] == ["apt-get", "install"])
    assert "dict-gcide" in packages[install_at]
    assert ["systemctl", "mask", "dictd.service"] in packages[:install_at]
    server = next(s for s in steps if s.title.startswith("unused servers masked"))
    assert server.commands == [["systemctl", "mask", "dictd.service"]]  # not running: no stop
    assert not server.done()


def test_a_dictd_already_running_is_stopped_and_masked(tmp_path):
    _, steps = fake_plan(tmp_path, installed=lambda pkgs: set(pkgs))
    assert steps[0].commands == []  # every package there: nothing masked or installed
    server = next(s for s in steps if s.title.startswith("unused servers masked"))
    assert server.commands == [["systemctl", "mask", "dictd.service"],
                               ["systemctl", "stop", "dictd.service"]]  # fmt: skip
    (tmp_path / "units").mkdir()
    (tmp_path / "units" / "dictd.service").symlink_to("/dev/null")
    assert server.done()


def test_the_service_environment_is_made_with_debians_python(tmp_path):
    """Not whichever ``python3`` is first on root's PATH: a pyenv interpreter under /root cannot be
    run by the service user, and sees none of Debian's packages (picamera2, lgpio)."""
    options, steps = fake_plan(tmp_path)
    env = next(s for s in steps if s.title.startswith("Python environment"))
    assert env.commands[0][:3] == ["/usr/bin/python3", "-m", "venv"]


def test_an_environment_made_with_another_python_is_made_again(tmp_path):
    venv = tmp_path / "opt" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / "pyvenv.cfg").write_text("home = /root/.pyenv/versions/3.11.7/bin\n")
    _, steps = fake_plan(tmp_path)
    env = next(s for s in steps if s.title.startswith("Python environment"))
    assert env.commands[0] == [
        "/usr/bin/python3",
        "-m",
        "venv",
        "--clear",
        "--system-site-packages",
        str(venv),
    ]
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    _, steps = fake_plan(tmp_path)
    env = next(s for s in steps if s.title.startswith("Python environment"))
    assert [c[1:3] for c in env.commands] == [["-m", "pip"]]
