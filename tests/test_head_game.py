"""Whole games in the simulator through the virtual timer head (``companion sim --head virtual``):
the table service drives the firmware's own code over the serial link, on a stepped clock.

Expected values come from the Iago rulebook ("The Timer": a sand minute that runs out passes
from the mover's allowance to the opponent's; an allowance at zero loses on time) and the pin map
(18 degrees per minute, pulse 500-2500 us over -90..90 degrees)."""

import json

import pytest

from companion.cli import main
from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.sim import ScriptedTable

SAMPLE = 0.005  # the head samples its buttons every 5 ms: a press counts within that of contact
WORDS = {"CAT", "QI"}


def table(tmp_path, head="virtual", **kw):
    kw.setdefault("minutes", 2)
    kw.setdefault("minute_seconds", 10.0)
    journal = tmp_path / f"{head}-journal.jsonl"
    return ScriptedTable(
        TableConfig(blue="Ada", red="Bob", **kw), set_judge(WORDS), journal, head=head
    )


def press(s, role):
    s.press(role)  # closes the contact on the head, holds it 40 ms, opens it
    s.service.step()


def test_a_whole_game_to_loss_on_time_through_the_head(tmp_path):
    s = table(tmp_path)
    head = s.devices.extra["virtual_table"].head
    s.at(0)
    press(s, "red")  # red has not the first move: blue on move from 0
    s.at(4)
    press(s, "blue")  # 4 s: no minute ran out; red on move from 4
    s.at(21)
    press(s, "red")  # 17 s: the minute running out at 14 goes red -> blue (red 1, blue 3)
    st = s.state()
    assert st["minutes"] == {"blue": 3, "red": 1} and st["mover"] == "blue"
    s.at(21.2)  # the press took 80 ms (held, released); the commands follow in milliseconds
    # the disc: blue 3 of 4 minutes is one minute towards blue, 18 degrees: 1500 + 18/180*2000
    assert head.hw.servo_us == 1700
    assert head.hw.leds == [True, False]  # blue's LED: blue on move
    s.at(25)
    press(s, "blue")  # red on move from 25 with 1 minute: it runs out at 35
    s.at(34.9)
    assert s.state()["status"] == "running"
    s.at(37)  # after the long beep (1.5 s)
    st = s.state()
    assert st["status"] == "finished" and st["loser"] == "red"
    assert st["minutes"] == {"blue": 4, "red": 0} and st["moves_completed"] == 3
    assert st["table"]["beeps"] == 2 and st["table"]["long_beeps"] == 1
    # the head did the beeping: it got a short beep at 14, a short and the long one at 35 (the
    # long one replaces the short one under way: PROTOCOL.md, BUZZER)
    buzzer = [fields for mtype, fields in head.commands if mtype == 0x22]
    assert buzzer == [(1, 150, 100), (1, 150, 100), (1, 1500, 100)]
    buzz = [(ms, on) for ms, what, on in head.hw.changes if what == "buzzer"]
    assert [on for _, on in buzz] == [True, False, True, False]
    assert buzz[1][0] - buzz[0][0] == 150 and buzz[3][0] - buzz[2][0] == 1500
    assert head.hw.servo_us == 1500 + 2 * 200  # blue 4 of 4: two minutes towards blue


def test_the_head_and_the_mock_pins_play_the_same_game(tmp_path):
    script = [
        (0, "press", "red"),
        (7, "press", "blue"),
        (15, "press", "challenge"),  # red's move under way: the sand stops
        (16, "press", "blue"),  # blue challenges red's word
        (20, "type", "ZZX"),
        (21, "press", "challenge"),  # settled: sustained
        (40, "press", "red"),
        (50, "press", "blue"),
        (70, "state", None),
    ]
    results = {}
    for head in ("virtual", "mock"):
        s = table(tmp_path, head=head if head == "virtual" else None)
        for t, action, arg in script:
            s.at(t)
            if action == "press":
                s.press(arg)
            elif action == "type":
                s.service.line(arg)
            s.service.step()
        results[head] = s.state()
    virtual, mock = results["virtual"], results["mock"]
    for key in ("status", "mover", "minutes", "loser", "moves_completed", "challenge_phase"):
        assert virtual[key] == mock[key], key
    assert virtual["table"]["lights"] == mock["table"]["lights"]
    assert virtual["table"]["beeps"] == mock["table"]["beeps"]


def test_a_game_survives_a_bad_wire_and_a_reset_of_the_head(tmp_path):
    from companion.devices.head.virtual import Faults

    s = table(tmp_path, minutes=3)
    vt = s.devices.extra["virtual_table"]
    for wire in (vt.to_host, vt.to_head):
        wire.faults = Faults(corrupt=0.05, drop=0.05, duplicate=0.05)
    s.at(0)
    press(s, "red")
    for i, t in enumerate(range(3, 60, 3)):
        s.at(t)
        if t == 30:
            vt.reset_head()  # the head restarts mid-game; the table carries on
        press(s, "blue" if i % 2 == 0 else "red")
    s.at(61)
    st = s.state()
    assert st["moves_completed"] == 19 and st["minutes"] == {"blue": 3, "red": 3}
    assert vt.host.head_starts == 2
    assert vt.head.hw.leds == [st["table"]["lights"]["blue"], st["table"]["lights"]["red"]]


def test_companion_sim_head_virtual_runs_a_script(tmp_path, capsys):
    script = tmp_path / "game.txt"
    script.write_text("0 press red\n4 press blue\n21 press red\n25 press blue\n36 state\n")
    words = tmp_path / "words.txt"
    words.write_text("CAT\nQI\n")
    args = ["sim", "--head", "virtual", "--minutes", "2", "--minute-seconds", "10"]
    assert main([*args, "--words", str(words), "--script", str(script)]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert final["loser"] == "red" and final["minutes"] == {"blue": 4, "red": 0}
    assert final["t"] == pytest.approx(36.0)
