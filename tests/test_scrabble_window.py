"""A play can be challenged until the next move is made (issue 48 item 5; WESPA and NASPA, see
docs/scrabble.md "The challenge window"), on the table service driven by the simulator's
scripted mode: the OLED says CAN BE CHALLENGED while it can, and a challenge after that says
TOO LATE TO CHALLENGE and the word, with the clock not held (each test checks the screen and the
clock)."""

import pytest
from PIL import ImageChops

from companion.daemon import screen
from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.sim import ScriptedTable, parse_sim_script
from tests.test_faults import oled
from tests.test_scrabble_mode import OPENING  # JETON 40, rEDYEING 64, BEDIM 26

# Blue's clock runs 0-12 and 45-55 in OPENING, red's 12-45.
OWN = 25 * 60


@pytest.fixture
def sim(tmp_path):
    def make(**settings):
        table = TableConfig(number=3, blue="Ada", red="Bob", game="scrabble", **settings)
        judge = set_judge({"JETON", "REDYEING", "BEDIM", "BE", "ET", "DO"})
        return ScriptedTable(table, judge, tmp_path / "j.jsonl")

    return make


def run(table, script: str) -> dict:
    with open(table.journal_file.with_suffix(".out"), "w") as out:
        return table.run(parse_sim_script(script.strip().splitlines()), out=out)


def foot_shows(image, text: str, turn: int = 0) -> bool:
    """The OLED's bottom line (under both clocks) shows exactly ``text`` at its ``turn`` (a
    text longer than the line is shown in turns of 3 s from the last event)."""
    w, h = image.size
    box = (0, 44, w, h)
    expected = screen.render(
        lambda d, w_, h_: screen.fitted(d, (0, 44, w_ - 1, h_ - 1), text, 14, False, turn), w, h
    )
    return ImageChops.difference(image.crop(box), expected.crop(box)).getbbox() is None


def test_the_screen_says_while_the_play_just_made_can_be_challenged(sim):
    s = sim(minutes=25)
    st = run(s, OPENING.split("50 type")[0] + "46 state\n")  # red's rEDYEING, blue on move
    assert st["challengeable"] and st["mover"] == "blue"
    assert foot_shows(oled(s), "rEDYEING 64")  # the play, then (its next turn) the window
    assert not foot_shows(oled(s), "CAN BE CHALLENGED")
    st = run(s, "49 state\n")
    assert foot_shows(oled(s), "CAN BE CHALLENGED")
    st = run(s, "50 type 7E BEDIM\n55 press blue\n56 state\n")  # blue moved: red's play stands
    assert st["mover"] == "red" and st["last_move"]["word"] == "BEDIM" and st["challengeable"]
    assert foot_shows(oled(s), "BEDIM 26")
    run(s, "58.5 state\n")
    assert foot_shows(oled(s), "CAN BE CHALLENGED")  # now blue's BEDIM can be challenged


def test_words_of_a_play_whose_window_closed_are_too_late_and_the_clock_was_never_held(sim):
    s = sim(minutes=25)
    # Ada made her own move (BEDIM, pressed at 55) and only then challenges Bob's rEDYEING:
    # the box takes the challenge as Bob's (he is on move) until the words say otherwise
    st = run(s, OPENING + "60 press challenge\n61 state\n")
    assert st["status"] == "challenge" and st["challenge_phase"] == "words"
    st = run(s, "66 type REDYEING\n67 state\n")
    assert st["status"] == "running" and st["mover"] == "red" and st["challenge_phase"] is None
    late = "TOO LATE TO CHALLENGE REDYEING"  # "TOO LATE TO", then "CHALLENGE REDYEING"
    assert foot_shows(oled(s), late, 0) and not foot_shows(oled(s), late, 1)
    run(s, "69.5 state\n")
    assert foot_shows(oled(s), late, 1)  # "CHALLENGE"
    run(s, "72.5 state\n")
    assert foot_shows(oled(s), late, 2)  # "REDYEING": the notice stays for all its turns
    # not held: red's clock ran on from 55 s as if the button had never been pressed
    assert st["time_left"] == {"blue": OWN - 22, "red": OWN - 33 - (67 - 55)}
    assert st["scores"] == {"blue": 66, "red": 64} and st["moves_completed"] == 3
    assert s.service.mode.challenges[-1]["outcome"] == "too late"
    # Bob can still challenge BEDIM, the play just made: the judge rules it acceptable
    st = run(s, "75 press challenge\n76 type BEDIM\n77 state\n")
    assert st["status"] == "challenge" and st["challenge_phase"] == "verdict"
    assert st["time_left"]["red"] == OWN - 33 - (75 - 55)  # this one holds the clocks


def test_a_challenge_once_the_play_was_ruled_is_too_late_and_the_clock_runs_on(sim):
    s = sim(minutes=25, challenge="points", challenge_points=5)
    st = run(s, OPENING + "60 press challenge\n61 type BEDIM BE ET DO\n62 confirm\n63 state\n")
    assert st["mover"] == "red" and not st["challengeable"]  # ruled: BEDIM stands
    st = run(s, "64 press challenge\n67.5 state\n")
    assert st["status"] == "running" and st["challenge_phase"] is None
    assert foot_shows(oled(s), "TOO LATE TO CHALLENGE BEDIM", 1)
    st = run(s, "70 state\n")
    assert st["time_left"]["red"] == OWN - 33 - (60 - 55) - (70 - 62)  # never held at 64 s


def test_a_turn_lost_to_a_wrong_double_challenge_cannot_be_challenged(sim):
    s = sim(minutes=25, challenge="double")
    st = run(s, OPENING + '60 press challenge\n61 type ""\n62 press challenge\n63 state\n')
    assert st["mover"] == "blue" and not st["challengeable"]  # Ada moves again
    st = run(s, "64 press challenge\n70 state\n")
    assert st["status"] == "running" and st["time_left"]["blue"] == OWN - 22 - (70 - 62)
    assert s.service.mode.notice == "TOO LATE TO CHALLENGE BEDIM"


def test_a_pass_holds_nothing_to_challenge(sim):
    s = sim(minutes=25)
    st = run(s, "0 press red\n10 type pass\n12 press blue\n15 press challenge\n16 state\n")
    assert st["status"] == "running" and st["mover"] == "red" and not st["challengeable"]
    assert foot_shows(oled(s), "Nothing to challenge: no play")
    assert st["time_left"]["red"] == OWN - 4


def test_a_challenge_refused_is_not_journaled_and_the_pages_show_none_under_way(sim):
    # a press that challenges nothing (a pass; a play already ruled) is said and refused before
    # the journal: the director's pages, which read the journal, used to show it under way
    from companion.tournament.web import views

    s = sim(minutes=25)
    run(s, "0 press challenge\n")  # before the first press: said (it used to go unsaid)
    assert foot_shows(oled(s), "Nothing to challenge yet")
    run(s, "1 press red\n10 type pass\n12 press blue\n15 press challenge\n16 state\n")
    assert foot_shows(oled(s), "Nothing to challenge: no play")
    assert not [r for r in s.service.journal.records if r.get("kind") == "challenge_button"]
    s = sim(minutes=25, challenge="points", challenge_points=5)
    run(s, OPENING + "60 press challenge\n61 type BEDIM BE ET DO\n62 confirm\n64 press challenge\n")
    run(s, "67.5 state\n")
    assert foot_shows(oled(s), "TOO LATE TO CHALLENGE BEDIM", 1)
    records = s.service.journal.records
    assert [r["t"] for r in records if r.get("kind") == "challenge_button"] == [60]
    shown = views.challenges(records, game="scrabble")
    assert [(c["words"], c["verdict"]) for c in shown] == [
        (["BEDIM", "BE", "ET", "DO"], "ACCEPTABLE")
    ]


def test_the_pages_end_a_challenge_whose_words_came_too_late():
    from companion.tournament.web import views

    events = [
        {"t": 60.0, "kind": "challenge_button"},
        {"t": 66.0, "kind": "too_late", "words": ["REDYEING"]},
        {"t": 70.0, "kind": "press", "role": "red"},
    ]
    (c,) = views.challenges(events, game="scrabble")
    assert (c["words"], c["verdict"]) == (["REDYEING"], "too late")


@pytest.mark.parametrize("call_off", ["cancel", "press challenge"])
def test_a_challenge_called_off_while_the_clocks_are_paused_leaves_a_clock_to_resume(sim, call_off):
    # paused in a challenge (the arbiter's pause), then called off: the clock was left held in
    # a challenge no one could settle (presses ignored, the button said nothing to challenge)
    s = sim(minutes=25)
    st = run(s, OPENING + "60 press challenge\n61 pause\n")
    st = run(s, f"62 {call_off}\n63 state\n")
    assert st["status"] == "paused" and st["challenge_phase"] is None
    assert s.service.mode.challenges[-1]["outcome"] == "called off"
    st = run(s, "65 resume\n66 state\n")
    assert st["status"] == "running" and st["mover"] == "red" and st["challengeable"]
    assert st["time_left"]["red"] == OWN - 33 - (60 - 55) - (66 - 65)  # held 60-65
    st = run(s, "70 press red\n71 state\n")
    assert st["mover"] == "blue" and st["moves_completed"] == 4


def test_a_refused_entry_is_no_longer_said_once_its_turn_has_ended(sim):
    # a newcomer saw "H7 CAT: ..." stay on the bottom line after the next press, and on the
    # challenge screen: what was said of a turn goes when the turn ends
    s = sim(minutes=25)
    run(s, "0 press red\n1 type 8D JETON\n3 press blue\n5 type H7 CAT\n5.5 state\n")
    refusal = s.service.mode.notice
    assert refusal.startswith("H7 CAT")
    assert foot_shows(oled(s), refusal)
    run(s, "6 press red\n6.5 state\n")
    assert s.service.mode.notice == "" and not foot_shows(oled(s), refusal)
