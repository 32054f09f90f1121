"""``make tournament`` as a newcomer runs it (issue 46, item 16): the demo plays a round with the
real director, its broker and two real table services, is stopped with Ctrl-C, and the README's
next step, ``companion director results``, finds the demo's store, which is kept."""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading

import pytest

from companion.cli import main
from companion.tournament import broker as brk

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not brk.os.path.exists("/usr/sbin/mosquitto"),
    reason="Mosquitto is not installed (make deps installs it)",
)


def test_the_demos_store_is_kept_and_found_by_the_directors_commands(tmp_path, monkeypatch, capsys):
    env = {
        **os.environ,
        "COMPANION_DATA_DIR": str(tmp_path / "data"),
        "COMPANION_CONFIG_DIR": str(tmp_path / "config"),
    }
    demo = subprocess.Popen(
        [sys.executable, "-m", "companion.tournament.demo"]
        + ["--tables", "2", "--rounds", "1", "--minute-seconds", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    over = threading.Event()

    def read():
        for line in demo.stdout:
            lines.append(line)
            if "The rounds are over" in line:
                over.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert over.wait(120), "".join(lines[-20:])
    finally:
        demo.send_signal(signal.SIGINT)  # Ctrl-C
        demo.wait(60)
        reader.join(5)
    said = "".join(lines)
    assert "The hall's files stay in" in said, said[-2000:]
    monkeypatch.setenv("COMPANION_DATA_DIR", env["COMPANION_DATA_DIR"])
    monkeypatch.setenv("COMPANION_CONFIG_DIR", env["COMPANION_CONFIG_DIR"])
    # the README's next step, with no --event: the demo's store
    assert main(["director", "results", "--json"]) == 0
    captured = capsys.readouterr()
    results = json.loads(captured.out)
    assert len(results) == 2 and {r["round"] for r in results} == {1}
    assert "the demo's store" in captured.err
    assert main(["director", "standings", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 4 and sum(r["points"] for r in rows) == 2
