"""companion sim --script: the real service on mock pins, driven without a terminal."""

import io
import json

import pytest

from companion.cli import main
from companion.daemon.sim import SimScriptError, parse_sim_script


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "config"))
    words = tmp_path / "words.txt"
    words.write_text("cat\nqi\n")
    return tmp_path, words


def run(monkeypatch, capsys, script: str, *args):
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    code = main(["sim", *args])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines() if line.startswith("{")]


def test_script_from_stdin_plays_moves_and_prints_states(dirs, monkeypatch, capsys):
    _, words = dirs
    script = "0 press red\n61 state\n61.5 press blue\n75 state\n"
    code, states = run(monkeypatch, capsys, script, "--words", str(words))
    assert code == 0
    first, second, final = states
    assert first["minutes"] == {"blue": 4, "red": 6} and first["mover"] == "blue"
    assert second["mover"] == "red" and second["sand_left"] == pytest.approx(60 - 13.5)
    assert final["t"] == 75


def test_script_challenge_kill_and_restart(dirs, monkeypatch, capsys):
    _, words = dirs
    script = """
    0 press red        # blue on move
    10 press challenge
    11 press red       # red challenges blue's word
    12 type cat qi
    13 confirm         # acceptable: blue resumes
    20.5 kill          # power cut; heartbeats every second: last at 20 s
    100 restart
    100 state
    101 resume
    141 state
    """
    code, states = run(monkeypatch, capsys, script, "--words", str(words), "--minute-seconds", "60")
    assert code == 0
    after_restart, later, _ = states
    # sand stopped from 10 to 13 s: 10 + (20 - 13) = 17 s used when the last heartbeat was written
    assert after_restart["status"] == "paused"
    assert after_restart["sand_left"] == pytest.approx(60 - 17)
    assert later["minutes"] == {"blue": 5, "red": 5}
    assert later["sand_left"] == pytest.approx(60 - 17 - 40)


def test_script_errors_are_listed_together():
    with pytest.raises(SimScriptError) as exc:
        parse_sim_script(["x press red", "2 jump", "3 press green", "5 state", "4 state"], "s")
    text = str(exc.value)
    assert "s:1:" in text and "s:2: action 'jump'" in text and "s:3: press 'green'" in text
    assert "s:5: time 4.0 goes backwards" in text


def test_bad_script_exits_2(dirs, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("0 fly\n"))
    code = main(["sim"])
    assert "action 'fly'; accepted: press" in capsys.readouterr().err
    assert code == 2


def test_frame_action_prints_the_oled(dirs, monkeypatch, capsys):
    _, words = dirs
    monkeypatch.setattr("sys.stdin", io.StringIO("0 frame\n"))
    assert main(["sim", "--words", str(words)]) == 0
    lines = capsys.readouterr().out.splitlines()
    frame = [line for line in lines if not line.startswith("{")]
    assert len(frame) == 16 and all(len(line) == 64 for line in frame)
    assert any(ch != " " for line in frame for ch in line)
