"""The table service's unit (systemd/table-companion.service) and the sd_notify helper."""

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from companion.platform.install import Options, render_unit
from companion.platform.systemd import Notifier

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "table-companion.service"


def unit_settings() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


def test_unit_runs_the_daemon_as_a_watched_notify_service():
    s = unit_settings()
    assert s["Type"] == ["notify"]
    assert float(s["WatchdogSec"][0]) > 0
    assert s["Restart"] == ["on-failure"]
    assert s["ExecStart"][0].split()[1:] == ["daemon"]
    assert s["User"] == ["companion"]
    assert set(s["SupplementaryGroups"][0].split()) == {"gpio", "i2c", "video", "dialout"}
    assert s["StateDirectory"] == ["table-companion"]
    assert s["ConfigurationDirectory"] == ["table-companion"]


def test_the_daemon_command_exists():
    """ExecStart runs `companion daemon`: the command must be registered."""
    from companion.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # argparse's sub-command table
    if "daemon" not in commands:
        pytest.skip("the daemon engineer's `companion daemon` is not registered yet")
    assert "daemon" in commands


def systemd_analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    return path


def test_unit_verifies(tmp_path):
    """`systemd-analyze verify` on the unit as installed, with its ExecStart present (a temporary
    prefix holding an executable `companion`)."""
    analyze = systemd_analyze()
    prefix = tmp_path / "opt"
    exe = prefix / ".venv" / "bin" / "companion"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    unit = tmp_path / "table-companion.service"
    unit.write_text(render_unit(UNIT.read_text(encoding="utf-8"), Options(prefix=prefix)))
    result = subprocess.run(
        [analyze, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "table-companion.service" not in result.stderr, result.stderr


def test_unit_exposure_is_at_most_3(tmp_path):
    analyze = systemd_analyze()
    result = subprocess.run(
        [analyze, "security", "--offline=true", "--threshold=30", str(UNIT)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "Unknown option" in result.stderr or "unrecognized option" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline (systemd < 250)")
    # --threshold=30: exit status non-zero when the exposure is above 3.0
    assert result.returncode == 0, result.stdout[-500:] + result.stderr
    assert "Overall exposure level" in result.stdout


def listen(tmp_path) -> tuple[socket.socket, str]:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(1.0)
    return sock, path


def test_notifier_sends_ready_status_and_watchdog(tmp_path):
    sock, path = listen(tmp_path)
    with sock:
        n = Notifier.from_environment({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000"})
        assert n.enabled and n.watchdog_seconds == 30.0
        assert n.ready("waiting for the first press")
        assert sock.recv(4096) == b"READY=1\nSTATUS=waiting for the first press"
        # the watchdog is fed at most every half interval (15 s here), by the injected clock
        assert n.tick(100.0)
        assert sock.recv(4096) == b"WATCHDOG=1"
        assert not n.tick(114.9)
        assert n.tick(115.0)
        assert sock.recv(4096) == b"WATCHDOG=1"
        assert n.stopping()
        assert sock.recv(4096) == b"STOPPING=1"


def test_abstract_socket_address(tmp_path):
    name = f"companion-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(1.0)
    with sock:
        assert Notifier(f"@{name}").status("ok")
        assert sock.recv(100) == b"STATUS=ok"


def test_notifier_outside_systemd_is_a_no_op():
    n = Notifier.from_environment({})
    assert not n.enabled
    assert not n.ready() and not n.tick(0.0) and not n.watchdog()


def test_watchdog_for_another_process_is_ignored(tmp_path):
    env = {"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid() + 1)}
    assert Notifier.from_environment(env).watchdog_seconds is None
    env["WATCHDOG_PID"] = str(os.getpid())
    assert Notifier.from_environment(env).watchdog_seconds == 1.0


def test_an_unreachable_socket_never_raises(tmp_path, caplog):
    n = Notifier(str(tmp_path / "nobody-listens"), 2.0)
    assert not n.ready()
    assert not n.tick(0.0)
    assert sum("cannot notify systemd" in r.message for r in caplog.records) == 1


def test_python_module_runs_without_the_venv_packages():
    """The installer must run from a fresh clone with only the standard library."""
    root = UNIT.parent.parent
    result = subprocess.run(
        [sys.executable, "-S", "-m", "companion.platform.install", "--help"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert "--dry-run" in result.stdout


def test_the_daemon_notifies_systemd_and_feeds_the_watchdog(tmp_path):
    """`companion daemon` (mock pins) under a fake systemd: READY=1, then WATCHDOG=1 while idle,
    STOPPING=1 on SIGTERM."""
    import signal

    from companion.cli import build_parser

    if "daemon" not in build_parser()._subparsers._group_actions[0].choices:
        pytest.skip("`companion daemon` is not registered yet")
    sock, path = listen(tmp_path)
    env = {
        **os.environ,
        "NOTIFY_SOCKET": path,
        "WATCHDOG_USEC": "400000",  # 0.4 s: fed at least every 0.2 s
        "COMPANION_DATA_DIR": str(tmp_path / "data"),
        "COMPANION_CONFIG_DIR": str(tmp_path / "config"),
    }
    sock.settimeout(20)
    with sock:
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "daemon", "--backend", "mock"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            messages = [sock.recv(4096)]
            while not any(m.startswith(b"READY=1") for m in messages):
                messages.append(sock.recv(4096))
            watchdogs = 0
            while watchdogs < 2:  # fed again while nothing happens at the table
                watchdogs += sock.recv(4096) == b"WATCHDOG=1"
            proc.send_signal(signal.SIGTERM)
            while sock.recv(4096) != b"STOPPING=1":
                pass
            assert proc.wait(timeout=20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    ready = next(m for m in messages if m.startswith(b"READY=1"))
    assert b"STATUS=table service running (mock)" in ready
