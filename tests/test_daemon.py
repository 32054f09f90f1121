"""The table service on mock pins with a fake monotonic clock: no sleeps, every deadline exact.

Expected values come from the Iago rulebook ("The Timer", "Challenge") and the pin map
(hardware/pinmap.toml: 18 degrees per minute, servo range -90..90).
"""

import json
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.overlays import BANNER_SECONDS
from companion.daemon.service import LATE_INPUT_SECONDS
from companion.daemon.sim import START, ScriptedTable
from companion.paths import data_dir

WORDS = {"CAT", "CATS", "DOG", "QI"}


@pytest.fixture
def sim(tmp_path):
    def make(**table):
        table.setdefault("number", 3)
        table.setdefault("blue", "Ada")
        table.setdefault("red", "Bob")
        return ScriptedTable(
            TableConfig(**table), set_judge(WORDS, "testwords"), tmp_path / "journal.jsonl"
        )

    return make


def state(s):
    return s.state()


def test_first_press_starts_the_other_players_move(sim):
    s = sim()
    s.at(0)
    assert state(s)["status"] == "ready"
    assert s.service.published.lights == {"blue": True, "red": True}
    s.press("red")
    s.at(0.0)
    st = state(s)
    assert (st["status"], st["mover"]) == ("running", "blue")
    assert s.service.published.lights == {"blue": True, "red": False}


def test_minutes_pass_at_exact_boundaries_with_beeps_and_disc(sim):
    s = sim()
    s.at(0)
    s.press("red")  # blue on move from t=0
    s.at(59.999)
    assert state(s)["minutes"] == {"blue": 5, "red": 5}
    s.at(60.0)  # the first minute runs out at 60 s: 5 becomes 4 (rulebook example)
    st = state(s)
    assert st["minutes"] == {"blue": 4, "red": 6} and st["sand_left"] == pytest.approx(60.0)
    assert s.service.published.beeps == 1
    assert s.service.published.disc_angle == pytest.approx(-18.0)
    s.at(130)
    s.press("blue")  # blue completes his move at 130 s: two minutes passed (60, 120)
    s.at(130)
    st = state(s)
    assert st["minutes"] == {"blue": 3, "red": 7} and st["mover"] == "red"
    assert s.service.published.disc_angle == pytest.approx(-36.0)
    assert s.service.published.lights == {"blue": False, "red": True}
    s.at(131)
    s.press("blue")  # not on move: ignored but journaled
    s.at(131)
    assert state(s)["mover"] == "red"
    kinds = [r.get("role") for r in s.service.journal.records if r.get("kind") == "press"]
    assert kinds == ["red", "blue", "blue"]


def test_lost_on_time_ends_the_game_and_saves_the_record(sim):
    s = sim(minutes=1)
    s.at(0)
    s.press("blue")  # red on move with 1 minute
    s.at(60)
    st = state(s)
    assert st["status"] == "finished" and st["loser"] == "red"
    assert s.service.published.long_beeps == 1
    assert s.service.last_record_path is None  # kept LATE_INPUT_SECONDS for a press told late
    s.at(60 + LATE_INPUT_SECONDS)
    saved = json.loads(s.service.last_record_path.read_text())
    assert saved["result"]["loser"] == "red" and saved["result"]["winner"] == "blue"
    assert [r["kind"] for r in saved["record"]][:2] == ["_game", "press"]
    # a scripted table's games are kept apart from the real ones (data_dir()/records)
    assert s.service.last_record_path.parent == data_dir() / "sim" / "records"
    # the challenge button starts a new game: clean allowances, nobody on move
    s.at(70)
    s.press("challenge")
    s.at(70)
    st = state(s)
    assert st["status"] == "ready" and st["minutes"] == {"blue": 1, "red": 1}


def test_challenge_of_the_movers_word_stops_the_sand_then_resumes(sim):
    s = sim()
    s.at(0)
    s.press("red")  # blue on move
    s.at(20)
    s.press("challenge")
    s.at(25)
    assert state(s)["sand_left"] == pytest.approx(40.0)  # stopped at 20 s
    assert state(s)["challenge_phase"] == "who"
    s.press("red")  # red challenges blue's word
    s.at(25)
    assert s.service.published.prompt is not None
    s.at(90)  # time spent typing is not charged
    s.service.line("cat qi")
    s.at(91)
    assert state(s)["challenge_phase"] == "verdict"
    s.press("challenge")  # settle: acceptable, challenge rejected
    s.at(92)
    st = state(s)
    assert st["status"] == "running" and st["mover"] == "blue"
    assert st["sand_left"] == pytest.approx(40.0 - 1.0)  # ran from 91 to 92
    rec = s.service.mode.challenges[-1]
    assert rec["words"] == ["CAT", "QI"] and rec["verdict"] == "rejected"
    assert rec["challenger"] == "red" and rec["seconds"] == pytest.approx(91 - 20)
    assert rec["penalty"] == "BLUE turns over 3 RED tiles"


def test_sustained_challenge_of_completed_move_gives_the_move_back(sim):
    s = sim()
    s.at(0)
    s.press("red")  # blue on move
    s.at(70)  # one minute passed: blue 4, red 6; 10 s into the second minute
    s.press("blue")  # blue completes at 70 s
    s.at(75)
    s.press("challenge")
    s.at(76)
    s.press("red")  # red, on move, challenges blue's completed move
    s.at(80)
    s.service.line("CATX")
    s.at(81)
    s.service.command("override")  # the arbiter reverses, then reverses back
    s.service.command("override")
    s.at(82)
    s.press("challenge")
    s.at(82)
    st = state(s)
    # sustained: blue gets the move back with the time he had when he pressed (70 s elapsed)
    assert st["mover"] == "blue" and st["minutes"] == {"blue": 4, "red": 6}
    assert st["sand_left"] == pytest.approx(50.0) and st["moves_completed"] == 0
    rec = s.service.mode.challenges[-1]
    assert rec["verdict"] == "sustained" and rec["overridden"] is False
    assert rec["penalty"] == "Restore the board. RED turns over 3 BLUE tiles"
    kinds = [r["kind"] for r in s.service.journal.records if not r["kind"].startswith("_")]
    assert kinds[-6:] == [
        "challenge_button",
        "press",
        "words",
        "override",
        "override",
        "challenge_button",
    ]


def test_challenge_with_nothing_to_challenge_is_called_off(sim, monkeypatch):
    s = sim()
    s.at(0)
    s.press("red")  # blue on move, no move completed yet
    s.at(5)
    s.press("challenge")
    s.at(8)
    s.press("blue")  # blue, on move, would challenge the move just completed: there is none
    s.at(8.5)
    # said on the OLED and the service's line (a newcomer saw the challenge vanish unsaid)
    assert "NOTHING TO CHALLENGE" in _words_shown(s, monkeypatch, 8.5)
    assert s.service.message.startswith("nothing to challenge")
    s.at(10)
    st = state(s)
    assert st["status"] == "running" and st["challenge_phase"] is None
    assert st["sand_left"] == pytest.approx(60 - 5 - 2)  # stopped from 5 to 8
    assert s.service.mode.challenges[-1]["outcome"].startswith("nothing to challenge")


def test_challenge_pressed_twice_is_called_off_without_charging(sim):
    s = sim()
    s.at(0)
    s.press("red")
    s.at(10)
    s.press("challenge")
    s.at(50)
    s.press("challenge")
    s.at(55)
    assert state(s)["sand_left"] == pytest.approx(60 - 10 - 5)


def test_bad_words_keep_the_challenge_open(sim):
    s = sim()
    s.at(0)
    s.press("red")
    s.at(1)
    s.press("challenge")
    s.press("red")
    s.at(2)
    s.service.line("C4T")
    s.at(3)
    assert state(s)["challenge_phase"] == "words"
    assert "C4T" in s.service.mode.notice


def test_kill_mid_move_then_restart_resumes_paused_exactly(sim, tmp_path):
    s = sim()
    s.at(0)
    s.press("red")  # blue on move
    s.at(70)
    s.press("blue")  # red on move from 70 s
    s.at(107.5)  # heartbeats every second: the last before the kill is at 107 s
    s.kill()
    with open(tmp_path / "journal.jsonl", "ab") as f:
        f.write(b'{"seq": 999, "t": 107.6, "kind": "pre')  # torn by the power cut
    s.at(400)  # the box was off for almost 5 minutes
    s.start_service()
    st = state(s)
    assert st["status"] == "paused" and st["mover"] == "red"
    assert st["minutes"] == {"blue": 4, "red": 6}
    assert st["sand_left"] == pytest.approx(60 - 37.0)
    assert s.service.published.message.startswith("Restarted")
    s.service.command("resume")
    s.at(400 + 23)  # red's first minute runs out 23 s after the resume
    assert state(s)["minutes"] == {"blue": 5, "red": 5}


def test_clean_stop_loses_nothing(sim):
    s = sim()
    s.at(0)
    s.press("red")
    s.at(12.25)
    s.service.stop()
    s.service.step()
    s.service._shutdown()
    s.service = None
    s.at(50)
    s.start_service()
    assert state(s)["sand_left"] == pytest.approx(60 - 12.25)


def test_restart_before_the_start_takes_a_new_setup(sim):
    s = sim()
    s.at(0)
    s.kill()
    s.table = TableConfig(number=9, minutes=2)
    s.start_service()
    assert state(s)["minutes"] == {"blue": 2, "red": 2}


def _row(image, y):
    return sum(1 for x in range(image.width) if image.getpixel((x, y)))


def test_frame_bar_drains_with_the_sand(sim):
    s = sim()
    s.at(0)
    s.press("red")
    s.at(30)  # half the minute left: 62 of the bar's 124 pixels, plus the outline's two ends
    image = s.devices.display.image
    assert _row(image, 49) == 62 + 2
    s.at(45)  # a quarter left: 31 pixels
    assert _row(s.devices.display.image, 49) == 31 + 2


def test_verdict_frame_is_big_letters(sim):
    s = sim()
    s.at(0)
    s.press("red")
    s.at(1)
    s.press("challenge")
    s.press("red")
    s.at(2)
    s.service.line("DOGZ")
    s.at(2)
    img = s.devices.display.image
    lit_rows = [y for y in range(40) if _row(img, y)]
    # NOT on top, ACCEPTABLE below: letters taller than 12 pixels each
    assert len(lit_rows) > 24
    from companion.daemon.modes.iago import PAGE_SECONDS

    s.at(2 + PAGE_SECONDS)  # then the penalty page
    assert s.devices.display.image.tobytes() != img.tobytes()


def test_slow_display_never_delays_the_clock(tmp_path):
    """The display blocks; the clock thread's steps still run and minutes still pass."""
    from companion.daemon.service import TableService
    from companion.daemon.sim import FakeClock
    from companion.devices.backends import open_devices
    from companion.devices.pinmap import load_pinmap

    clock = FakeClock()
    pinmap = load_pinmap(backend="mock")
    devices = open_devices(pinmap, clock=clock)
    gate = threading.Event()
    shown = []

    class StuckDisplay:
        width, height, mode = 128, 64, "1"

        def display(self, image):
            gate.wait(5)
            shown.append(image)

    devices.display = StuckDisplay()
    svc = TableService(
        devices,
        pinmap,
        table=TableConfig(),
        judge=set_judge(WORDS),
        clock=clock,
        journal_file=tmp_path / "j.jsonl",
        fsync=False,
    )
    svc.step()
    devices.pins["buttons.red"].drive_low()
    devices.extra["pin_factory"].run_due(clock() + 0.01)  # a 10 ms tap
    devices.pins["buttons.red"].drive_high()
    svc.run_until(START + 125, clock.set)
    assert svc.mode.state(svc.game_time())["minutes"] == {"blue": 3, "red": 7}
    gate.set()
    svc.close()
    devices.close()


ACTIONS = st.sampled_from(
    [
        "press blue",
        "press red",
        "press challenge",
        "type CAT",
        "type ZZZ",
        "confirm",
        "pause",
        "resume",
        "override",
    ]
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0.03, 90.0), ACTIONS), max_size=14))
def test_restart_from_the_journal_rebuilds_the_same_game(tmp_path_factory, steps):
    """Whatever happened, a clean stop and restart gives the same allowances, mover, moves and
    sand (paused if it was running); the allowances always sum to twice the starting one."""
    folder = tmp_path_factory.mktemp("j")
    s = ScriptedTable(TableConfig(minutes=3), set_judge(WORDS), folder / "j.jsonl")
    try:
        _play_stop_and_restart(s, steps)
    finally:
        s.devices.close()


def _play_stop_and_restart(s, steps):
    t = 0.0
    for gap, action in steps:
        t += gap
        s.at(t)
        verb, _, arg = action.partition(" ")
        if verb == "press":
            s.press(arg)
        elif verb == "type":
            s.service.line(arg)
        else:
            s.service.command(verb)
        s.at(t)
        m = state(s)["minutes"]
        assert m["blue"] + m["red"] == 6
    before = state(s)
    s.service.stop()
    s.service._shutdown()
    s.service = None
    s.at(t + 1000)
    s.start_service()
    after = state(s)
    if before["status"] == "finished":  # the record was saved: a new game starts clean
        assert after["status"] == "ready" and after["minutes"] == {"blue": 3, "red": 3}
        return
    for key in ("minutes", "mover", "moves_completed", "loser", "sand_left"):
        assert after[key] == before[key], key
    if before["status"] in ("running", "challenge"):
        assert after["status"] == "paused"


def test_failing_devices_never_stop_the_table(sim):
    """A display and a servo that raise: the clock runs on, the failures are counted."""
    s = sim()

    def broken(*args):
        raise OSError("I2C remote I/O error")

    s.service._display.fn = broken
    s.service._disc.fn = broken
    s.at(0)
    s.press("red")
    s.at(61)
    assert state(s)["minutes"] == {"blue": 4, "red": 6}
    assert s.service._display.failures > 0 and s.service._disc.failures > 0
    assert "remote I/O" in s.service._display.errors[-1]


def test_keyboard_lines_words_and_slash_commands():
    from companion.daemon.run import _read_lines

    class Service:
        def __init__(self):
            self.got = []

        def line(self, text):
            self.got.append(("line", text))

        def command(self, name):
            self.got.append(("command", name))

    svc = Service()
    _read_lines(["new cat\n", "/pause\n", "NEW\n", "\n", "/Resume\n", "/fly\n"], svc)
    assert svc.got == [
        ("line", "new cat"),
        ("command", "pause"),
        ("line", "NEW"),
        ("command", "confirm"),
        ("command", "resume"),
    ]


def test_garbage_right_after_the_header_leaves_no_game_and_is_set_aside(tmp_path):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"seq":1,"t":0,"kind":"_game"}\ngarbage\n{"seq":3,"t":1,"kind":"press"}\n')
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    assert state(s)["status"] == "ready"
    assert "journal damaged" in s.service.published.message
    (aside,) = tmp_path.glob("journal.jsonl.rest-*")
    assert aside.read_bytes() == b'garbage\n{"seq":3,"t":1,"kind":"press"}\n'
    assert s.service.published.banner.startswith("JOURNAL DAMAGED")
    # an input that does nothing (p before the first press) says so over the warning, which
    # comes back when that banner's seconds are over (it used to replace it, or go unsaid)
    s.at(10)
    s.service.command("pause")
    s.at(10.1)
    assert s.service.published.message.startswith("nothing to pause")
    assert s.service.published.banner.startswith("NOTHING TO PAUSE")
    s.at(10 + BANNER_SECONDS + 0.1)
    assert s.service.published.banner.startswith("JOURNAL DAMAGED")


def test_the_abandon_question_goes_when_the_game_ends_on_time(sim):
    s = sim(minutes=1)
    s.at(0)
    s.press("red")
    s.at(58)
    s.service.command("abandon")
    s.at(58.5)
    assert s.service.published.banner.startswith("ABANDON GAME?")
    s.at(66)  # the flag fell meanwhile: nothing left to abandon, LOST ON TIME shows
    assert state(s)["status"] == "finished" and s.service.published.banner == ""


def test_the_abandon_question_stays_shown_while_the_heads_silence_pauses_the_clock(sim):
    # the head's pause is no one's answer: the question stays asked, so it stays on the OLED
    # (it went, still asked: the arbiter's Enter later abandoned the game unasked)
    s = sim()
    s.at(0)
    s.press("red")
    s.at(10)
    s.service.command("abandon")
    s.at(10.5)
    assert s.service.published.banner.startswith("ABANDON GAME?")
    s.service._on_link(False, START + 10.5)
    s.settle()
    s.at(11)
    assert state(s)["status"] == "paused"
    assert s.service.published.banner.startswith("ABANDON GAME?")
    s.service._on_link(True, START + 12)
    s.at(12)
    assert s.service.published.banner.startswith("ABANDON GAME?")


def test_abandon_asks_first_and_anything_else_plays_on(sim):
    from tests.test_faults import shows_banner

    s = sim()
    s.at(0)
    s.press("red")  # blue on move from 0 s
    s.at(30)
    s.service.command("abandon")
    s.at(31)
    st = state(s)
    assert (st["status"], st["mover"]) == ("running", "blue")  # nothing abandoned yet
    assert "Abandon the game in progress?" in s.service.published.message
    assert shows_banner(s.devices.display.image, "ABANDON GAME?", "again or Enter: yes")
    s.press("blue")  # the mover ends his move: the answer is no, and the press counts
    s.at(32)
    st = state(s)
    assert (st["status"], st["mover"], st["moves_completed"]) == ("running", "red", 1)
    assert "not abandoned" in s.service.published.message and s.service.published.banner == ""
    s.service.command("confirm")  # asked nothing now: confirm abandons nothing
    s.at(33)
    assert state(s)["status"] == "running" and s.service.last_record_path is None


def test_the_challenge_button_before_the_first_press_says_nothing_to_challenge(sim):
    # it was journaled and said nothing; the director's page showed a challenge under way
    from tests.test_faults import shows_banner

    s = sim()
    s.at(0)
    s.press("challenge")
    s.at(0.5)
    assert shows_banner(s.devices.display.image, "NOTHING TO CHALLENGE")
    assert s.service.published.message.startswith("nothing to challenge")
    assert state(s)["status"] == "ready" and not s.service.journal.records[1:]
    s.press("red")  # the game starts as usual
    s.at(1)
    assert (state(s)["status"], state(s)["mover"]) == ("running", "blue")


def test_override_and_call_off_with_nothing_to_act_on_say_so_and_leave_the_clock(sim):
    from companion.daemon.overlays import BANNER_SECONDS
    from tests.test_faults import shows_banner

    s = sim()
    s.at(0)
    s.service.command("pause")  # p before the first press: nothing to pause (a newcomer's)
    s.at(0)
    assert shows_banner(s.devices.display.image, "NOTHING TO PAUSE")
    assert state(s)["status"] == "ready" and not s.service.journal.records[1:]
    s.press("red")  # blue on move from 0 s
    s.at(10)
    s.service.command("override")  # no verdict on the screen
    s.at(11)
    assert shows_banner(s.devices.display.image, "NOTHING TO OVERRIDE")
    assert s.service.published.message.startswith("nothing to override")
    s.at(12)
    s.service.command("cancel")  # x: no challenge to call off
    s.at(13)
    assert shows_banner(s.devices.display.image, "NOTHING TO CALL OFF")
    assert s.service.published.message.startswith("nothing to call off")
    s.at(12 + BANNER_SECONDS + 1)  # the banner is gone by itself
    assert s.service.published.banner == ""
    st = state(s)
    assert (st["status"], st["mover"], st["moves_completed"]) == ("running", "blue", 0)
    assert st["sand_left"] == pytest.approx(60 - (12 + BANNER_SECONDS + 1))  # never stopped
    s.service.command("resume")  # running: nothing to resume
    s.at(s.service.published.t + 0.5)
    assert shows_banner(s.devices.display.image, "NOTHING TO RESUME")
    # in a challenge whose challenger has pressed, x is too late and o has no verdict yet
    s.press("blue")
    s.at(20)
    s.press("challenge")
    s.press("blue")  # blue challenges red's move: the words are asked for
    s.at(21)
    for command, title in (("cancel", "TOO LATE TO CALL OFF"), ("override", "NOTHING TO OVERRIDE")):
        s.service.command(command)
        s.at(s.service.published.t + 0.5)
        assert shows_banner(s.devices.display.image, title)
        assert state(s)["challenge_phase"] == "words"
    kinds = [r.get("kind") for r in s.service.journal.records]
    assert "override" not in kinds and "cancel" not in kinds  # nothing journaled


def test_an_arbiters_command_after_the_end_says_the_game_is_over(sim):
    from tests.test_faults import shows_banner

    """override, call off, confirm, pause or resume once the game has ended (lost on time) say
    so, and how a new game starts, rather than nothing; the finished game is untouched."""
    s = sim(minutes=1)
    s.at(0)
    s.press("blue")
    s.at(60 + LATE_INPUT_SECONDS + 1)
    records = len(s.service.journal.records)
    for command, said in (("override", "override"), ("cancel", "call off"), ("pause", "pause")):
        s.service.command(command)
        s.at(s.service.published.t + 0.5)
        assert s.service.published.message.startswith(f"the game is over: nothing to {said}")
        assert shows_banner(s.devices.display.image, "THE GAME IS OVER", "CHALLENGE: a new game")
        assert state(s)["status"] == "finished"
    s.service.line("CAT")  # a line typed after the end too
    s.at(s.service.published.t + 0.5)
    assert s.service.published.message.startswith("the game is over: the line is not taken")
    assert len(s.service.journal.records) == records
    # the banner, timed on the finished game's clock, does not stay on the new game's screen
    s.service.command("override")
    s.press("challenge")  # a new game
    s.at(s.service.published.t + 0.5)
    assert state(s)["status"] == "ready" and s.service.published.banner == ""


@pytest.mark.parametrize("answer", ["abandon", "confirm"])
def test_abandon_saves_the_record_and_starts_a_new_game(sim, answer):
    s = sim()
    s.at(0)
    s.press("red")
    s.at(69)
    s.service.command("abandon")
    s.at(70)
    s.service.command(answer)  # abandon again, or Enter
    s.at(71)
    st = state(s)
    assert st["status"] == "ready" and st["minutes"] == {"blue": 5, "red": 5}
    saved = json.loads(s.service.last_record_path.read_text())
    assert saved["result"]["abandoned"] is True and saved["result"]["abandoned_at"] == 70
    assert saved["result"]["minutes"] == {"blue": 4, "red": 6}


def test_journal_that_cannot_be_replayed_is_set_aside(tmp_path):
    path = tmp_path / "journal.jsonl"
    header = {"seq": 1, "t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}}
    bad = {"seq": 2, "t": 1, "kind": "teleport"}
    path.write_text(json.dumps(header) + "\n" + json.dumps(bad) + "\n")
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    assert state(s)["status"] == "ready"
    message = s.service.published.message
    assert "journal damaged" in message and "line 2" in message and "teleport" in message
    (aside,) = tmp_path.glob("journal.jsonl.rest-*")
    assert json.loads(aside.read_text()) == bad


def test_a_bad_record_in_the_middle_resumes_the_game_from_the_last_good_one(tmp_path):
    path = tmp_path / "journal.jsonl"
    header = {"seq": 1, "t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}}
    good = {"seq": 2, "t": 1, "kind": "press", "role": "red"}
    bad = {"seq": 3, "kind": "press", "role": "purple"}  # no time: line 3 of the file
    later = {"seq": 4, "t": 4, "kind": "press", "role": "blue"}
    path.write_text("".join(json.dumps(r) + "\n" for r in (header, good, bad, later)))
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    st = state(s)
    # red's press at 1 s started blue's move; the game resumes there, paused (restart)
    assert (st["status"], st["mover"], st["minutes"]) == ("paused", "blue", {"blue": 5, "red": 5})
    assert st["sand_left"] == pytest.approx(60.0)  # blue's move began at 1 s, the last record
    message = s.service.published.message
    (aside,) = tmp_path.glob("journal.jsonl.rest-*")
    assert "line 3:" in message and "'t' is missing" in message and '"role":"purple"' in message
    assert aside.name in message and "resumes from its last good record (seq 2)" in message
    assert [json.loads(x) for x in aside.read_text().splitlines()] == [bad, later]
    assert "('t')" not in message
    assert s.service.published.banner == "JOURNAL DAMAGED resumed at record 2"
    # the journal holds the good prefix, then the restart; nothing of the rest is replayed
    kinds = [(r["seq"], r["kind"]) for r in s.service.journal.records]
    assert kinds == [(1, "_game"), (2, "press"), (3, "restart")]


def test_journal_damaged_of_a_finished_game_goes_when_challenge_starts_a_new_one(tmp_path):
    # the good records end the game (its scores typed): saved at the restart, JOURNAL DAMAGED
    # says so over its final screen; CHALLENGE starts a new game, an input that does something,
    # and the banner of the old game's records went on over the new game's ready screen
    path = tmp_path / "journal.jsonl"
    header = {"seq": 1, "t": 0, "kind": "_game", "mode": "scrabble", "settings": {"minutes": 5}}
    records = [
        header,
        {"seq": 2, "t": 1, "kind": "press", "role": "red"},
        {"seq": 3, "t": 6, "kind": "scores", "blue": 300, "red": 250},
        "garbage",
        {"seq": 5, "t": 7, "kind": "_alive"},
    ]
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    s = ScriptedTable(TableConfig(game="scrabble"), set_judge(WORDS), path, resume=True)
    s.at(8)
    assert state(s)["status"] == "finished" and s.service.last_record_path is not None
    assert s.service.published.banner == "JOURNAL DAMAGED resumed at record 3"
    s.service.command("pause")  # THE GAME IS OVER over it for a few seconds
    s.at(9)
    assert s.service.published.banner.startswith("THE GAME IS OVER")
    s.press("challenge")  # a new game
    s.at(10)
    assert state(s)["status"] == "ready" and s.service.published.banner == ""
    s.at(20)
    assert s.service.published.banner == ""


@pytest.mark.parametrize("seqs", [(1, 2, 4, 5), (1, 2, 2, 3)], ids=["missing", "duplicated"])
def test_a_missing_or_duplicated_record_is_found_and_not_replayed(tmp_path, seqs):
    path = tmp_path / "journal.jsonl"
    records = [
        {"t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}},
        {"t": 1, "kind": "press", "role": "red"},  # blue on move
        {"t": 20, "kind": "press", "role": "blue"},  # red on move
        {"t": 30, "kind": "press", "role": "red"},  # blue on move again
    ]
    path.write_text(
        "".join(json.dumps({"seq": n, **r}) + "\n" for n, r in zip(seqs, records, strict=True))
    )
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    st = state(s)
    # records 1 and 2 are good; the third is out of sequence: the game resumes after the second
    assert (st["status"], st["mover"], st["moves_completed"]) == ("paused", "blue", 0)
    assert f"seq {seqs[2]} where seq 3 was expected" in s.service.published.message


def test_a_record_with_a_time_that_is_not_a_number_names_its_line(tmp_path):
    path = tmp_path / "journal.jsonl"
    header = {"seq": 1, "t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}}
    beat = {"seq": 2, "t": "soon", "kind": "_alive"}  # skipped by the mode, not by the clock
    press = {"seq": 3, "t": 1, "kind": "press", "role": "red"}
    path.write_text("".join(json.dumps(r) + "\n" for r in (header, beat, press)))
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    assert state(s)["status"] == "ready"
    message = s.service.published.message
    assert "line 2:" in message and "'soon'" in message and "finite number" in message


def test_a_press_handled_after_a_minute_ran_out_counts_at_the_instant_of_the_pin(sim):
    s = sim()
    s.at(0)
    s.press("red")  # blue on move from t=0
    s.at(59.99)
    s.press("blue")  # the pin changes at 59.99 s...
    svc = s.service
    late = svc._queue.get_nowait()  # ...but the clock thread wakes for the 60 s deadline first
    s.at(60.5)
    assert state(s)["minutes"] == {"blue": 4, "red": 6}  # the minute ran out meanwhile
    svc._queue.put(late)
    svc.step()
    st = state(s)
    # the press was made before the first minute ran out: that minute was free (rulebook)
    assert st["minutes"] == {"blue": 5, "red": 5}
    assert st["mover"] == "red"
    assert st["sand_left"] == pytest.approx(60.0 - (60.5 - 59.99))


def test_scripted_time_with_unround_presses_reaches_every_deadline(sim):
    s = sim()
    s.at(0.0137)
    s.press("red")  # blue on move from 0.0137 s
    s.at(10.0231)
    s.press("blue")  # red on move from 10.0231 s
    s.at(69)
    st = state(s)
    assert st["mover"] == "red" and st["minutes"] == {"blue": 5, "red": 5}
    s.at(70.0231)
    assert state(s)["minutes"] == {"blue": 6, "red": 4}


def test_words_typed_while_paused_after_a_restart_in_a_challenge_are_taken(sim):
    import io

    from companion.daemon.sim import parse_sim_script

    s = sim(minutes=2, minute_seconds=5)
    script = "0 press blue\n3 press red\n4 press challenge\n4.5 press blue\n6 kill\n60 restart\n"
    s.run(parse_sim_script(script.splitlines()), out=io.StringIO())
    pub = s.service.published
    # paused where the journal last saw the game (4.5 s), still asking for the words: says so
    assert pub.status == "paused:challenge:words" and "taken while paused" in pub.prompt
    s.at(62)
    s.service.line("HOUSE")
    s.at(62)
    st = state(s)
    assert st["status"] == "paused" and st["challenge_phase"] == "verdict"
    assert s.service.mode.challenge_rec.words == ["HOUSE"]  # not in WORDS: not acceptable
    assert s.service.published.status == "paused:challenge:verdict"
    # settling waits for the resume, and says so
    s.service.command("confirm")
    s.at(63)
    assert state(s)["challenge_phase"] == "verdict" and "resume it first" in s.service.message
    # a box without keyboard: the challenge button resumes, the next one settles
    s.press("challenge")
    s.at(64)
    assert state(s)["status"] == "challenge" and state(s)["challenge_phase"] == "verdict"
    s.press("challenge")
    s.at(65)
    st = state(s)
    # settled: the challenge is in the record and the sand runs again
    assert st["challenge_phase"] is None and st["status"] == "running"
    assert s.service.mode.challenges[-1]["words"] == ["HOUSE"]


def _words_shown(s, monkeypatch, since: float, turns: int = 2) -> str:
    """Every text the OLED draws over ``turns`` turns from game time ``since``."""
    from companion.daemon import screen
    from tests.test_oled import drawn

    svc = s.service
    return " ".join(
        text
        for n in range(turns)
        for text, _, _ in drawn(
            svc.mode.view(since + n * screen.TURN_SECONDS).frame, (256, 64), monkeypatch
        )
    )


def test_by_lot_the_first_movers_press_is_ignored_and_the_screen_says_who_presses(sim, monkeypatch):
    # the lot that drew the colours gave blue the first move (rulebook, "How to Play": the
    # player who does not have the first move starts it): blue's own press starts nothing
    s = sim(drawn_by_lot=True)
    s.at(0)
    s.press("blue")
    s.at(1)
    st = state(s)
    assert (st["status"], st["mover"], st["moves_completed"]) == ("ready", None, 0)
    assert s.service.published.lights == {"blue": True, "red": True}
    seen = _words_shown(s, monkeypatch, 1)
    assert "RED PRESSES TO START BLUE" in seen and "BLUE HAS THE FIRST MOVE" in seen
    presses = [r["role"] for r in s.service.journal.records if r.get("kind") == "press"]
    assert presses == ["blue"]  # journaled, like any press
    s.at(2)
    s.press("red")  # red starts blue's first move
    s.at(2.5)  # the ready screen's answer goes with it (it showed cut off on the running screen)
    assert "HAS THE" not in _words_shown(s, monkeypatch, 2.5)
    s.at(62)
    st = state(s)
    assert (st["status"], st["mover"]) == ("running", "blue")
    assert st["minutes"] == {"blue": 4, "red": 6}  # blue's minute ran from 2 s, not from 1 s


def test_colours_chosen_by_the_players_let_either_press_start(sim):
    s = sim(drawn_by_lot=False)  # the players settled the first move themselves
    s.at(0)
    s.press("blue")
    s.at(1)
    assert (state(s)["status"], state(s)["mover"]) == ("running", "red")


def _write_journal(path, records) -> None:
    path.write_text("".join(json.dumps({"seq": n, **r}) + "\n" for n, r in enumerate(records, 1)))


def test_a_record_whose_time_jumped_ahead_is_set_aside_and_the_game_resumes(tmp_path):
    from tests.test_faults import shows_banner

    path = tmp_path / "journal.jsonl"
    records = [
        {"t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}},
        {"t": 1, "kind": "press", "role": "red"},  # blue on move from 1 s
        {"t": 2.5, "kind": "_alive"},
        {"t": 8.1, "kind": "challenge_button"},  # damaged: later than the records after it
        {"t": 3.0, "kind": "_alive"},
        {"t": 3.2, "kind": "press", "role": "blue"},
    ]
    _write_journal(path, records)
    for restart in range(2):  # and again: the table never stays down
        s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
        st = state(s)
        # the game resumes from the heartbeat at 2.5 s, paused: blue on move, 1.5 s used (and
        # the second time the one second it ran after the first restart)
        assert (st["status"], st["mover"], st["challenge_phase"]) == ("paused", "blue", None)
        assert st["sand_left"] == pytest.approx(60 - 1.5 - restart)
        if restart == 0:
            message = s.service.published.message
            assert "line 4" in message and "8.1 s is later" in message
            assert "resumes from its last good record (seq 3)" in message
            assert shows_banner(s.devices.display.image, "JOURNAL DAMAGED", "resumed at record 3")
            (aside,) = tmp_path.glob("journal.jsonl.rest-*")
            assert [json.loads(x)["t"] for x in aside.read_text().splitlines()] == [8.1, 3.0, 3.2]
        s.at(1)
        s.service.command("resume")
        s.at(2)
        assert state(s)["status"] == "running"
        s.kill()


def test_a_record_whose_time_went_back_is_set_aside_with_the_rest(tmp_path):
    path = tmp_path / "journal.jsonl"
    records = [
        {"t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}},
        {"t": 1, "kind": "press", "role": "red"},  # blue on move from 1 s
        {"t": 5, "kind": "_alive"},
        {"t": 6, "kind": "_alive"},
        {"t": 0.5, "kind": "challenge_button"},  # damaged: earlier than everything before it
        {"t": 7, "kind": "_alive"},
    ]
    _write_journal(path, records)
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    st = state(s)
    assert (st["status"], st["mover"], st["challenge_phase"]) == ("paused", "blue", None)
    assert st["sand_left"] == pytest.approx(60 - 5)
    assert (
        "line 5" in s.service.published.message
        and "0.5 s is earlier" in s.service.published.message
    )


_KINDS = st.sampled_from(
    [
        {"kind": "press", "role": "red"},
        {"kind": "press", "role": "blue"},
        {"kind": "challenge_button"},
        {"kind": "pause"},
        {"kind": "resume"},
        {"kind": "_alive"},
    ]
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0, 200), _KINDS), min_size=1, max_size=8))
def test_a_journal_with_times_in_any_order_always_resumes(tmp_path_factory, events):
    """Whatever order the times are in, the table starts, keeps a prefix whose time never goes
    back, and starts again on what it wrote."""
    folder = tmp_path_factory.mktemp("j")
    path = folder / "journal.jsonl"
    header = {"t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}}
    _write_journal(path, [header, *({"t": t, **kind} for t, kind in events)])
    for _ in range(2):
        s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
        try:
            records = s.service.journal.records
            event = latest = 0.0
            for r in records[1:]:  # late by an input counted back at most, never past an event
                assert r["t"] >= event and r["t"] >= latest - LATE_INPUT_SECONDS
                if not r["kind"].startswith("_"):
                    event = r["t"]
                latest = max(latest, r["t"])
            s.kill()
        finally:
            s.devices.close()


def _state_after_restart(s):
    s.kill()
    s.start_service()
    s.settle()
    return s.state()


@pytest.mark.parametrize("heard_ago", [2.0, 6.0])
def test_the_timer_heads_silence_counted_back_survives_a_restart(tmp_path, heard_ago):
    """The head goes silent: noticed at 10.4 s, last heard ``heard_ago`` seconds before. The
    clock pauses at the instant it was last heard (journaled after the heartbeats since), and no
    further back than LATE_INPUT_SECONDS before the journal's last record. A restart resumes
    the game there, with every move after it (it used to set the pause and all that followed
    aside as JOURNAL DAMAGED)."""
    s = ScriptedTable(TableConfig(minute_seconds=60.0), set_judge(WORDS), tmp_path / "j.jsonl")
    s.at(0)
    s.press("red")
    s.settle()
    s.at(10.4)
    s.service._on_link(False, START + 10.4 - heard_ago)  # as the head's backend tells silence
    s.settle()
    pause = next(r for r in s.service.journal.records if r["kind"] == "pause")
    alive = max(r["t"] for r in s.service.journal.records if r["kind"] == "_alive")
    assert pause["t"] == pytest.approx(max(10.4 - heard_ago, alive - LATE_INPUT_SECONDS))
    s.service._on_link(True, START + 11)
    s.at(12)
    s.service.command("resume")
    s.at(13)
    s.press("blue")
    s.at(14)
    before = state(s)
    after = _state_after_restart(s)
    assert "DAMAGED" not in after["table"]["message"] and not list(tmp_path.glob("*.rest-*"))
    assert (after["mover"], after["moves_completed"]) == (before["mover"], 1)
    assert after["sand_left"] == pytest.approx(before["sand_left"])


def test_the_head_back_says_challenge_resumes_only_while_its_pause_lasts(tmp_path):
    """The head's pause is over once the clock runs again: silent again later (in a challenge,
    where the clock is not running and nothing is paused), its return does not tell the arbiter
    that CHALLENGE resumes a clock never paused (the challenge button would call the challenge
    off there)."""
    s = ScriptedTable(TableConfig(), set_judge(WORDS), tmp_path / "j.jsonl")
    s.at(0)
    s.press("red")
    s.settle()
    s.at(10)
    s.service._on_link(False, START + 10)
    s.settle()
    s.service._on_link(True, START + 11)
    s.at(11)
    assert "CHALLENGE (or the arbiter) resumes the clock" in s.service.message
    s.service.command("resume")
    s.at(12)
    s.press("challenge")  # the sand stands: waiting for the challenger
    s.settle()
    s.service._on_link(False, START + 13)
    s.settle()
    s.service._on_link(True, START + 14)
    s.at(14)
    assert s.service.message == "the timer head is back"


def test_an_input_journaled_further_back_than_a_late_input_is_set_aside(tmp_path):
    """A press 3 s earlier than the heartbeat before it is more than any input is counted back
    (LATE_INPUT_SECONDS): a damaged record, set aside with the rest, as a press earlier than a
    game event before it is."""
    path = tmp_path / "journal.jsonl"
    records = [
        {"t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}},
        {"t": 1, "kind": "press", "role": "red"},  # blue on move from 1 s
        {"t": 5, "kind": "_alive"},
        {"t": 5 - LATE_INPUT_SECONDS - 0.5, "kind": "press", "role": "blue"},
        {"t": 6, "kind": "_alive"},
    ]
    _write_journal(path, records)
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    assert (state(s)["mover"], state(s)["moves_completed"]) == ("blue", 0)
    message = s.service.published.message
    assert message.startswith("journal damaged (line 3")  # the 5 s (or the press, line 4)
    assert "the journal's time never goes backwards" in message


def test_a_press_stamped_before_a_board_journaled_while_it_waited_is_kept(tmp_path):
    """A camera's board read (the service's own ``_board`` record, journaled when the reading
    came, at 5 s) and blue's press stamped a moment before it (4.999 s, accepted by the glitch
    filter after): the journal goes back by a millisecond, as an input counted late does, and a
    restart keeps the press (it used to set it aside as JOURNAL DAMAGED)."""
    path = tmp_path / "journal.jsonl"
    board = "11/11/11/11/11/4CAFE3/11/11/11/11/11"
    records = [
        {"t": 0, "kind": "_game", "mode": "iago", "settings": {"minutes": 5}},
        {"t": 0, "kind": "press", "role": "red"},
        {"t": 5.0, "kind": "_board", "board": board, "trusted": True, "player": "blue", "move": 1},
        {"t": 4.999, "kind": "press", "role": "blue"},
        {"t": 6, "kind": "_alive"},
    ]
    _write_journal(path, records)
    s = ScriptedTable(TableConfig(), set_judge(WORDS), path, resume=True)
    assert (state(s)["mover"], state(s)["moves_completed"]) == ("red", 1)
    assert s.service.published.message == "Restarted: the game resumes where it was, paused"


@pytest.mark.parametrize("minutes", [1, 5])
def test_a_press_made_before_the_last_minute_ran_out_and_told_after_loses_nothing(
    tmp_path, minutes
):
    """Blue's contact closes at 9.999 s, 1 ms before his last sand minute runs out (minutes=1:
    he would lose on time at 10 s); the glitch filter accepts the press 2 ms later, stamped at
    its first edge, after the clock handled the flag. The press counts at 9.999 s (issue 2):
    blue has not lost, no minute is charged, and a restart keeps it, journaled after the flag's
    or minute's heartbeat at 10 s. (The finished game's record used to be saved at the flag, so
    the press came too late to count.)"""
    table = TableConfig(minutes=minutes, minute_seconds=10.0)
    s = ScriptedTable(table, set_judge(WORDS), tmp_path / "j.jsonl")
    s.at(0)
    s.press("red")
    s.settle()
    s.at(9.999)
    pin = s.devices.pins["buttons.blue"]
    pin.drive_low()
    s.at(10.001)  # the flag falls (minutes=1) or a minute runs out
    s.devices.extra["pin_factory"].run_due()  # the press is accepted, stamped 9.999
    pin.drive_high()
    s.settle()
    st = state(s)
    assert (st["status"], st["loser"], st["mover"]) == ("running", None, "red")
    assert st["minutes"] == {"blue": minutes, "red": minutes}
    assert s.service.last_record_path is None
    after = _state_after_restart(s)  # it used to say JOURNAL DAMAGED and set the press aside
    assert "DAMAGED" not in after["table"]["message"] and not list(tmp_path.glob("*.rest-*"))
    assert (after["loser"], after["mover"], after["moves_completed"]) == (None, "red", 1)
    assert after["minutes"] == {"blue": minutes, "red": minutes}


def _challenged_at_20_s(judge, tmp_path) -> ScriptedTable:
    """A table judging with ``judge`` (waited for until open or failed) at 30 s of a game where
    red challenged blue's first move at 20 s: the words are asked for."""
    assert judge.wait(30)
    s = ScriptedTable(TableConfig(number=3, blue="Ada", red="Bob"), judge, tmp_path / "j.jsonl")
    s.at(0)
    s.press("red")  # blue on move
    s.at(20)
    s.press("challenge")
    s.press("red")  # red challenges blue's word: the sand stands at 20 s
    s.at(30)
    return s


def test_a_lexicon_that_could_not_be_opened_is_opened_again_at_the_next_challenge(
    tmp_path, monkeypatch
):
    # the set-up names a club's list not imported yet: the first challenge goes to the arbiter;
    # the list imported meanwhile judges the next one (it used to stay failed until a restart)
    from companion.daemon.challenge import lexicon_judge
    from companion.lexicon.store import import_list

    name = f"club{tmp_path.name[-6:]}"
    judge = lexicon_judge(name)
    s = _challenged_at_20_s(judge, tmp_path)
    s.service.line("CAT")
    s.at(31)
    assert "NO LEXICON: ARBITER RULES" in _words_shown(s, monkeypatch, 31)
    s.press("challenge")  # the arbiter lets it stand: the sand runs again, red on move
    s.at(32)
    words = tmp_path / "club.txt"
    words.write_text("CAT\nDOG\n", encoding="utf-8")
    import_list(words, name)
    s.press("red")  # blue on move again
    s.at(40)
    s.press("challenge")
    s.press("red")
    s.at(41)
    s.service.line("COW")
    s.at(42)
    rec = s.service.mode.challenge_rec
    assert (rec.verdict, rec.per_word, rec.judged_by) == ("sustained", {"COW": False}, "lexicon")
    assert rec.lexicon == judge.name == name


def test_a_lexicon_that_fails_slowly_again_does_not_hold_the_challenge_for_ever(
    tmp_path, monkeypatch
):
    # the list fails after longer than the judge waits (an index built, then not written: the
    # card full): opened again at each typing, it was "still loading" for ever and the words
    # never reached the arbiter
    import time

    import companion.lexicon
    from companion.daemon.challenge import lexicon_judge

    def fails_slowly(name=None):
        time.sleep(0.8)
        raise OSError("No space left on device")

    monkeypatch.setattr(companion.lexicon, "open_lexicon", fails_slowly)
    judge = lexicon_judge("club")
    s = _challenged_at_20_s(judge, tmp_path)
    for t in (31, 35, 39):
        s.service.line("CAT")
        s.at(t)
        if state(s)["challenge_phase"] == "verdict":
            break
        time.sleep(1)  # the player types the words again, as told
    assert state(s)["challenge_phase"] == "verdict"
    assert "cannot be opened" in s.service.message and "No space left" in s.service.message


def test_a_lexicon_that_cannot_be_opened_leaves_the_verdict_to_the_arbiter(tmp_path, monkeypatch):
    # the set-up names a word list that is not there: the judge cannot rule on any word
    from companion.daemon.challenge import lexicon_judge

    judge = lexicon_judge("no-such-list")
    s = _challenged_at_20_s(judge, tmp_path)
    s.service.line("CAT")
    s.at(31)
    st = state(s)
    # not stuck: the words go to a verdict the arbiter rules, said so on the OLED and the line
    assert st["challenge_phase"] == "verdict" and st["sand_left"] == pytest.approx(40.0)
    assert "NO LEXICON: ARBITER RULES" in _words_shown(s, monkeypatch, 31)
    assert "override" in s.service.message and "cannot be opened" in s.service.message
    s.service.command("override")  # the arbiter finds CAT not acceptable
    s.at(32)
    assert s.service.mode.challenge_rec.verdict == "sustained"
    s.press("challenge")  # settled: the sand runs again
    s.at(33)
    st = state(s)
    assert (st["status"], st["challenge_phase"]) == ("running", None)
    rec = s.service.mode.challenges[-1]
    assert rec["words"] == ["CAT"] and rec["verdict"] == "sustained"
    assert rec["judged_by"] == "arbiter" and rec["lexicon"] == "" and rec["judged_valid"] is None
    assert "cannot be opened" in rec["unchecked"]
    words = [r for r in s.service.journal.records if r.get("kind") == "words"]
    assert words[-1]["valid"] is None and words[-1]["unchecked"] == rec["unchecked"]
    # a restart replays the journal without asking the lexicon: the same game, paused
    expected = s.service.mode.challenges
    s.service.close()
    s.start_service()
    assert s.service.mode.challenges == expected
    assert state(s)["status"] == "paused"


def test_no_lexicon_goes_to_the_arbiter_and_a_lexicon_still_loading_asks_again():
    from companion.daemon.challenge import LexiconUnavailable
    from companion.daemon.modes import Line, ModeContext, Press
    from companion.daemon.modes.iago import IagoTimerMode

    def in_challenge(judge):
        mode = IagoTimerMode(ModeContext(TableConfig(), judge=judge))
        for t, role in ((0, "red"), (5, "challenge"), (5, "red")):
            for ev in mode.decide(Press(role, t)):
                mode.apply(ev)
        assert mode.phase == "words"
        return mode

    # no judge at all (a table given none): the words are taken, not checked
    mode = in_challenge(None)
    [ev] = mode.decide(Line("cat, dogs", 9))
    assert (ev["words"], ev["valid"], ev["lexicon"]) == (["CAT", "DOGS"], None, "")
    assert ev["unchecked"] == "no lexicon at this table"
    assert "the arbiter rules" in mode.apply(ev).say
    assert (mode.phase, mode.challenge_rec.verdict) == ("verdict", "rejected")
    mode = in_challenge(None)  # not letters: refused, unchecked too
    assert mode.decide(Line("C4T", 10)) == [] and "C4T" in mode.notice

    def loading(words):
        raise LexiconUnavailable("the lexicon is still loading: type again", transient=True)

    mode = in_challenge(loading)
    assert mode.decide(Line("CAT", 9)) == [] and mode.notice.startswith("the lexicon is still")
    assert mode.phase == "words"
