"""The link's unit and the table service's: the service keeps no network, the link has it."""

import shutil
import subprocess
from pathlib import Path

import pytest

from companion.platform.install import Options, render_unit

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"


def settings(name: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in (SYSTEMD / name).read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


def test_the_table_service_still_has_no_network():
    s = settings("table-companion.service")
    assert s["PrivateNetwork"] == ["yes"]
    assert s["IPAddressDeny"] == ["any"]
    families = s["RestrictAddressFamilies"][0].split()
    assert "AF_INET" not in families and "AF_INET6" not in families


def test_the_link_is_its_own_unit_with_the_network_and_the_same_files():
    link, table = settings("table-companion-link.service"), settings("table-companion.service")
    assert link["ExecStart"][0].split()[1:] == ["link"]
    assert "PrivateNetwork" not in link and "IPAddressDeny" not in link
    assert {"AF_INET", "AF_INET6"} <= set(link["RestrictAddressFamilies"][0].split())
    assert "network-online.target" in link["After"][0].split()
    # it reads the service's journal and records and writes table.toml's set-up
    assert link["StateDirectory"] == table["StateDirectory"]
    assert link["ConfigurationDirectory"] == table["ConfigurationDirectory"]
    assert link["User"] == table["User"]
    assert "/etc/table-companion" in link["ReadWritePaths"]


def test_the_link_command_exists():
    from companion.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    assert "link" in commands and "director" in commands


def test_link_unit_verifies(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    prefix = tmp_path / "opt"
    exe = prefix / ".venv" / "bin" / "companion"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    unit = tmp_path / "table-companion-link.service"
    text = (SYSTEMD / "table-companion-link.service").read_text(encoding="utf-8")
    unit.write_text(render_unit(text, Options(prefix=prefix)))
    result = subprocess.run(
        [analyze, "verify", "--man=no", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "table-companion-link.service" not in result.stderr, result.stderr
