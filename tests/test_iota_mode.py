"""The Iota scorekeeper on the table service, driven through the simulator's scripted mode (mock
pins, a fake clock): typed plays, buttons ending turns, the journal across a power cut, the record.
"""

import json

import pytest

from companion.daemon import screen
from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.modes.iota import END_QUESTION, PASS_QUESTION
from companion.daemon.sim import ScriptedTable, parse_sim_script
from companion.games.iota.cards import parse_card
from companion.games.iota.scorekeeper import Scorekeeper
from tests.test_oled import drawn


@pytest.fixture
def sim(tmp_path):
    def make():
        return ScriptedTable(
            TableConfig(number=4, game="iota"), set_judge({"QI"}), tmp_path / "journal.jsonl"
        )

    return make


def run(table, script: str) -> dict:
    with open(table.journal_file.with_suffix(".out"), "w") as out:
        return table.run(parse_sim_script(script.strip().splitlines()), out=out)


# the rules' worked example (tests/test_iota.py), typed from the starting card RT2 at 0,0
EXAMPLE = """
0 type Ana Ben
1 type RT2
2 type GC2@0,1 BX2@0,2
3 press blue
4 type RX1@-1,2 GX3@1,2
5 press red
6 type YS2@0,3 RT3@-1,3
7 press blue
8 type YX4@-2,2 GX1@-2,3 RX2@-2,4 BX3@-2,5
9 press red
"""


def test_the_worked_example_kept_at_the_table(sim):
    s = sim()
    final = run(s, EXAMPLE)
    assert final["scores"] == {"Ana": 6 + 34, "Ben": 6 + 208}
    assert final["current"] == "Ana" and final["pile"] == 57 - 10
    assert final["last_turn"] == "Ben: +208 (lot, lot, 4 cards x8)"
    assert final["table"]["beeps"] == 4  # one short beep for each turn taken
    assert s.service.published.lights == {"blue": True, "red": False}


def test_the_wrong_players_button_and_an_illegal_play_change_nothing(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ana Ben
        1 type RT2
        2 press red
        3 type GC1@0,1 BX2@0,2
        """,
    )
    assert final["turns"] == 0 and final["current"] == "Ana" and final["pending"] is None
    # RT2 GC1 BX2: the numbers 2, 1, 2 are neither all the same nor all different
    assert "numbers are neither all the same nor all different" in final["notice"]
    journal = [json.loads(x) for x in s.journal_file.read_text().splitlines()]
    assert [r["kind"] for r in journal if not r["kind"].startswith("_")] == ["players", "start"]


def test_a_typed_play_waits_for_the_press_and_can_be_cancelled(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ana Ben
        1 type RT2
        2 type GC2@0,1 BX2@0,2
        3 cancel
        4 type GC2@0,1
        5 confirm
        """,
    )
    # RT2 GC2: 2 + 2
    assert final["scores"] == {"Ana": 4, "Ben": 0} and final["current"] == "Ben"


def test_three_players_pass_the_turn_round_with_either_button(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ana Ben Cy
        1 type RT2
        2 type pass
        2.5 press red
        3 type pass 2
        4 press red
        5 type GC2@0,1
        6 press blue
        """,
    )
    assert final["scores"] == {"Ana": 0, "Ben": 0, "Cy": 4}
    assert final["current"] == "Ana" and final["pile"] == 66 - 12 - 1 - 1
    assert s.service.published.lights == {"blue": True, "red": True}


@pytest.mark.parametrize("names", ["Ana Ben", "Ana Ben Cy"])
def test_a_press_with_nothing_typed_shows_pass_at_once(sim, names, monkeypatch):
    # with 3-4 players the foot line takes turns with the pile; the question came second, so
    # for 3 s the screen did not change and a second press (to see something) passed the turn
    s = sim()
    run(s, f"0 type {names}\n1 type RT2\n3 press blue\n")
    texts = [t for t, _, _ in drawn(s.service.mode.view(3).frame, (128, 64), monkeypatch)]
    assert any("PASS?" in t for t in texts), texts


def test_an_entry_waiting_for_its_press_is_shown_whole_not_between_the_piles(sim, monkeypatch):
    # three players: "pass, exchange 2  PRESS" was cut into turns that alternated with the
    # pile's (a newcomer read "pass, exchange", "PILE 47", "2 PRESS"); now its turns follow
    s = sim()
    run(s, "0 type Ana Ben Cy\n1 type RT2\n11 type pass 2\n")
    shown = []
    for k in range(4):  # four turns of the foot line
        frame = s.service.mode.view(11 + k * screen.TURN_SECONDS + 0.1).frame
        shown += [t for t, _, _ in drawn(frame, (128, 64), monkeypatch)]
    assert not any(t.startswith("PILE") for t in shown), shown
    assert any("PRESS" in t for t in shown) and any("pass" in t for t in shown), shown


def test_a_power_cut_loses_neither_the_scores_nor_the_typed_play(sim):
    s = sim()
    run(
        s,
        """
        0 type Ana Ben
        1 type RT2
        2 type GC2@0,1 BX2@0,2
        3 press blue
        4 type RX1@-1,2 GX3@1,2
        5 kill
        """,
    )
    s.at(60)
    s.start_service()
    final = run(s, "61 press red")
    assert final["scores"] == {"Ana": 6, "Ben": 6} and final["current"] == "Ana"


def test_undo_takes_back_the_last_turn(sim):
    s = sim()
    final = run(s, EXAMPLE + "10 type undo\n")
    assert final["scores"] == {"Ana": 40, "Ben": 6} and final["current"] == "Ben"


def test_bad_set_up_is_refused_until_corrected(sim):
    s = sim()
    final = run(
        s,
        """
        0 type Ana
        1 type Ana Ben
        2 type RQ2
        3 state
        """,
    )
    assert final["phase"] == "start" and "RQ2" in final["notice"]


# A whole two-player game, dealt from a shuffled deck and played out greedily with
# ``companion iota hint``'s best play (pass with an exchange of the whole hand when nothing fits),
# until Ben lays his last card with the pile empty. Ana is blue, Ben red.
START = "GT2"
WHOLE_GAME = [
    "RS4@-1,-1 GX4@-1,0",
    "YT1@-3,-1 BC2@-2,-1 GX3@0,-1",
    "RC1@-3,-2 YT3@-2,-2",
    "GX1@-2,-3 RS3@-1,-3",
    "GC1@1,0 RT2@1,1",
    "GC4@0,-2 RX2@1,-2 BS3@2,-2",
    "YC1@1,-3 RT1@2,-3 BX1@3,-3",
    "YC4@-1,1 *@0,1",
    "YS2@-4,-3 BS2@-4,-2",
    "BS4@1,-4 YX2@2,-4",
    "BT1@-5,-4 BT3@-5,-3",
    "BX4@1,2 YT4@2,2",
    "YX1@0,3 YS3@1,3 YT2@2,3",
    "RX3@0,-6 YS4@0,-5 GT1@0,-4",
    "YX3@-1,-6 BC4@-1,-5",
    "BX3@-2,1 RX4@-2,2 GX2@-2,3",
    "BX2@-6,-4 RC4@-6,-3",
    "BC3@-3,2 YX4@-3,3 GS2@-3,4",
    "BT4@-5,-5 RC2@-4,-5",
    "BT2@-5,-6 RT4@-4,-6",
    "GS4@3,-5 RC3@3,-4",
    "GS3@2,0",
    "*@-4,3 RS2@-4,4",
    "YS1@-6,-5",
    "GT3@-6,-6",
    "RT3@4,-6 YC3@4,-5",
    "BS1@5,-7 GT4@5,-6",
    "BC1@3,-8 GC3@4,-8 YC2@5,-8",
    "GC2@4,-9",
    "RS1@-1,-7",
]


def test_a_whole_game_from_the_deal_to_the_winner(sim):
    keeper = Scorekeeper(["Ana", "Ben"], parse_card(START))
    for entry in WHOLE_GAME:
        keeper.play(entry)
    assert keeper.finished and keeper.ending == "last-card" and keeper.pile == 0
    lines = ["0 type Ana Ben", f"1 type {START}"]
    for i, entry in enumerate(WHOLE_GAME):
        lines.append(f"{2 + 2 * i} type {entry}")
        lines.append(f"{3 + 2 * i} press {'blue' if i % 2 == 0 else 'red'}")
    s = sim()
    final = run(s, "\n".join(lines))
    assert final["phase"] == "finished" and final["ending"] == "last-card"
    assert final["scores"] == keeper.scores and final["winners"] == keeper.winners
    assert final["table"]["records_saved"] == 1 and final["table"]["long_beeps"] == 1
    record = json.loads(s.service.last_record_path.read_text())
    assert record["result"]["winners"] == keeper.winners
    assert len(record["result"]["turns"]) == len(WHOLE_GAME)
    assert record["result"]["turns"][-1]["doublings"] == ["last-card"]


def test_the_oled_highlights_the_player_on_turn():
    from companion.daemon.modes import ModeContext
    from companion.daemon.modes.iota import IotaMode
    from companion.daemon.screen import render

    mode = IotaMode(ModeContext(TableConfig(game="iota")))
    for ev in [
        {"t": 0, "kind": "players", "names": ["Alexandra", "Ben", "Cy", "Dominique"]},
        {"t": 1, "kind": "start", "card": "RT2"},
        {"t": 2, "kind": "confirm", "role": "red"},  # Alexandra passes: Ben is on turn
    ]:
        mode.apply(ev)
    image = render(mode.view(3).frame)
    # four players: rows of 12 pixels from the top; the lit (inverted) row is the second player's
    lit = [image.getpixel((1, 12 * i + 1)) != 0 for i in range(4)]
    assert lit == [False, True, False, False]


OPENING = """
0 type Ana Ben
1 type RT2
"""


@pytest.mark.parametrize("answer", ["type yes", "confirm", "type end"])
def test_end_asks_first_and_yes_or_enter_ends_the_game(sim, answer):
    s = sim()
    asked = run(s, OPENING + "2 type end\n")
    assert asked["phase"] == "game" and "End the game by agreement?" in asked["notice"]
    assert s.service.mode.view(2.5).prompt == END_QUESTION  # until it is answered
    final = run(s, f"3 {answer}\n")
    assert final["phase"] == "finished" and final["turns"] == 0


def test_anything_else_after_end_plays_on(sim):
    s = sim()
    run(s, OPENING + "2 type end\n")
    final = run(s, "3 type GC2@0,1\n4 press blue\n5 confirm\n6 confirm\n")
    # the play was taken as a play, and the later Enters ended nothing: they passed Ben's turn
    assert final["phase"] == "game" and final["scores"]["Ana"] == 4 and final["turns"] == 2


def test_end_bang_ends_at_once(sim):
    s = sim()
    final = run(s, OPENING + "2 type end!\n")
    assert final["phase"] == "finished"


@pytest.mark.parametrize("entry", ["pass abc", "PASS 1 2", "abc"])
def test_a_bad_entry_names_pass_n_among_what_is_accepted(sim, entry):
    s = sim()
    final = run(s, OPENING + f"2 type {entry}\n")
    assert final["turns"] == 0 and final["pending"] is None
    assert repr(entry) in final["notice"] or entry in final["notice"]
    assert "'pass N'" in final["notice"]


@pytest.mark.parametrize("first", ["confirm", "press blue"])
def test_an_empty_enter_or_press_asks_before_it_passes_the_turn(sim, first):
    s = sim()
    asked = run(s, OPENING + f"2 {first}\n")
    assert asked["turns"] == 0 and asked["current"] == "Ana"  # nothing passed yet
    assert "pass?" in asked["notice"].lower()
    assert s.service.mode.view(2.5).prompt == PASS_QUESTION
    final = run(s, f"3 {first}\n")  # confirmed: Ana passes, without exchange
    assert final["turns"] == 1 and final["current"] == "Ben" and final["scores"]["Ana"] == 0


def test_a_play_typed_after_the_pass_question_plays_on(sim):
    s = sim()
    run(s, OPENING + "2 confirm\n")
    final = run(s, "3 type GC2@0,1\n4 confirm\n")
    assert final["turns"] == 1 and final["scores"] == {"Ana": 4, "Ben": 0}


def test_saying_pass_passes_at_the_press(sim):
    s = sim()
    final = run(s, OPENING + "2 type pass\n3 press blue\n")
    assert final["turns"] == 1 and final["current"] == "Ben"


def test_the_finished_screen_shows_iotas_keys_not_iagos(sim):
    from companion.daemon.sim import status_lines

    s = sim()
    run(s, OPENING + "2 type end!\n")
    pub = s.service.published
    assert pub.status == "finished" and pub.prompt is None
    keys = " ".join(text for text, _ in status_lines(pub, "", False, 200, game="iota"))
    assert "new game" in keys and "q quit" in keys
    for iagos in ("count the colours", "o override", "b blue", "x call off"):
        assert iagos not in keys
