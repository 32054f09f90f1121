"""The crossword game on the table service, driven through the simulator's scripted mode (mock
pins, a fake clock): the tournament clock, typed moves scored on the board, a challenge judged,
the end-of-game racks and overtime, the journal across a power cut, and the saved record's GCG."""

import json

import pytest

from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig, TableConfigError, validate
from companion.daemon.sim import ScriptedTable, parse_sim_script
from companion.games.scrabble.record import read_gcg, record_from_text, write_gcg


@pytest.fixture
def sim(tmp_path):
    def make(**settings):
        table = TableConfig(number=3, blue="Ada", red="Bob", game="scrabble", **settings)
        return ScriptedTable(
            table, set_judge({"JETON", "REDYEING", "BEDIM", "BE", "ET", "DO"}), tmp_path / "j.jsonl"
        )

    return make


def run(table, script: str) -> dict:
    with open(table.journal_file.with_suffix(".out"), "w") as out:
        return table.run(parse_sim_script(script.strip().splitlines()), out=out)


# Ada (blue) goes first: Bob presses to start her clock. Scores hand-worked in
# tests/test_scrabble_rules.py: JETON 40, rEDYEING 64, BEDIM 26.
OPENING = """
0 press red
10 type 8D JETON
12 press blue
40 type H2 rEDYEING
45 press red
50 type 7E BEDIM
55 press blue
"""


def test_typed_moves_are_scored_and_the_clocks_run_for_the_mover_only(sim):
    s = sim(minutes=25)
    final = run(s, OPENING)
    assert final["scores"] == {"blue": 66, "red": 64}
    assert final["mover"] == "red" and final["moves_completed"] == 3
    assert final["time_left"] == {"blue": 1500 - 12 - 10, "red": 1500 - 33}
    assert s.service.published.lights == {"blue": False, "red": True}


def test_a_challenged_phony_comes_off_and_the_challenger_moves(sim):
    s = sim(minutes=25)
    final = run(
        s,
        OPENING
        + """
        60 press challenge
        61 type BEDIMX
        62 press challenge
        """,
    )
    # BEDIMX is not in the word list: the play comes off, Bob (the challenger) moves
    assert final["scores"] == {"blue": 40, "red": 64} and final["mover"] == "red"
    assert final["time_left"]["red"] == 1500 - 33 - 5  # held from 60 to 62
    assert final["last_move"]["kind"] == "phony"


def test_a_wrong_double_challenge_loses_the_challengers_turn(sim):
    s = sim(minutes=25, challenge="double")
    final = run(s, OPENING + '60 press challenge\n61 type ""\n62 press challenge\n')
    assert final["mover"] == "blue" and final["scores"] == {"blue": 66, "red": 64}
    assert final["last_move"]["kind"] == "pass" and "lost turn" in final["last_move"]["note"]


def test_enter_alone_in_a_challenge_takes_the_words_of_the_recorded_play(sim):
    # Enter with nothing typed sends 'confirm' (the simulator's terminal, the Pi's keyboard);
    # the prompt says it takes the play's words. It used to be journaled and do nothing.
    s = sim(minutes=25, challenge="double")
    final = run(s, OPENING + "60 press challenge\n61 confirm\n62 press challenge\n")
    assert final["mover"] == "blue" and final["scores"] == {"blue": 66, "red": 64}
    assert "lost turn" in final["last_move"]["note"]
    [challenge] = s.service.mode.challenges
    assert sorted(challenge["words"]) == ["BE", "BEDIM", "DO", "ET"]


def test_enter_alone_in_a_challenge_of_an_unrecorded_play_asks_for_the_words(sim):
    s = sim(minutes=25)
    final = run(s, "0 press red\n10 press blue\n12 press challenge\n13 confirm\n")
    assert final["status"] == "challenge" and final["challenge_phase"] == "words"
    assert "type the challenged words" in s.service.message


def test_a_wrong_challenge_under_the_points_rule_gives_points(sim):
    s = sim(minutes=25, challenge="points", challenge_points=5)
    final = run(s, OPENING + "60 press challenge\n61 type BEDIM BE ET DO\n62 confirm\n")
    assert final["mover"] == "red" and final["scores"] == {"blue": 71, "red": 64}


def test_the_end_racks_and_overtime_make_the_result(sim, tmp_path):
    s = sim(minutes=1)
    final = run(
        s,
        """
        0 press red
        10 type 8D JETON
        12 press blue
        20 type H2 rEDYEING
        95 press red
        96 type end DAT
        """,
    )
    # Bob pressed at 95: 83 s used of 60, 23 s over: one minute begun, 10 points.
    # Bob went out (he moved last): Ada's D A T (2+1+1 = 4) go from her to him.
    assert final["status"] == "finished"
    assert final["overtime_penalty"] == {"blue": 0, "red": 10}
    assert final["scores"] == {"blue": 40 - 4, "red": 64 + 4 - 10}
    saved = sorted(s.service._records_dir().glob("*.json"))[-1]
    data = json.loads(saved.read_text())
    result = data["result"]
    assert result["scores"] == {"blue": 36, "red": 58} and result["winner"] == "red"
    rec = record_from_text(saved.read_text())
    gcg = write_gcg(rec)
    assert ">Bob: (DAT) +4 68" in gcg and ">Bob: ?EDYEIG (time) -10 58" in gcg
    # the same game typed as GCG gives the same record
    assert read_gcg(gcg).to_json() == rec.to_json()


def test_no_one_goes_out_on_a_pass_so_one_rack_does_not_end_the_game(sim):
    """A player goes out by playing his last tiles: after a pass (or an exchange), ``end
    RACK`` is refused, saying what to type, and the game goes on; both racks end it."""
    s = sim(minutes=25)
    final = run(s, OPENING + "60 type pass\n62 press red\n64 type end AEI\n65 state\n")
    assert final["status"] == "running"
    said = final["table"]["message"]
    assert "no one went out: the last turn was a pass" in said and "end BLUERACK REDRACK" in said
    final = run(s, "66 type end - AEI\n67 state\n")
    assert final["status"] == "finished"


def test_final_scores_typed_without_moves_less_overtime(sim):
    s = sim(minutes=1)
    final = run(s, "0 press red\n70 press blue\n80 type scores 300 280\n")
    assert final["scores"] == {"blue": 290, "red": 280}


def test_a_power_cut_pauses_the_clocks_and_keeps_the_moves(sim):
    s = sim(minutes=25)
    run(s, OPENING + "56 kill\n")
    s.at(300)
    s.start_service()
    final = run(s, "301 resume\n311 press red")
    assert final["scores"] == {"blue": 66, "red": 64}
    assert final["time_left"]["red"] == 1500 - 33 - 1 - 10
    assert final["mover"] == "blue"


def test_an_illegal_typed_move_changes_nothing_and_says_why(sim):
    s = sim(minutes=25)
    final = run(s, "0 press red\n5 type 1A CAT\n6 press blue\n")
    assert final["scores"] == {"blue": 0, "red": 0} and final["last_move"] is None
    assert final["mover"] == "red"


def test_the_set_up_takes_the_challenge_rule_and_penalties():
    cfg = validate({"game": "scrabble", "challenge": "points", "overtime_points": 5})
    assert cfg.challenge == "points" and cfg.overtime_points == 5
    with pytest.raises(TableConfigError, match="challenge = 'triple': accepted double or points"):
        validate({"game": "scrabble", "challenge": "triple"})


def test_a_tournament_round_of_scrabble_tables_gives_the_score_difference_as_spread(sim, tmp_path):
    from companion.tournament.link import tournament_record
    from companion.tournament.pairing import Pairing
    from companion.tournament.rounds import make_round
    from companion.tournament.store import Store

    store = Store(tmp_path / "director.sqlite", durable=False)
    try:
        setups = make_round(
            store, 1, [Pairing("Ada", "Bob", 3)], minutes=25, game="scrabble", colours="fixed",
            scrabble={"challenge": "points"}, now=0.0,
        )  # fmt: skip
        setup = setups[3]
        assert setup["game"] == "scrabble" and setup["minutes"] == 25
        assert (setup["challenge"], setup["challenge_points"], setup["overtime_points"]) == (
            "points",
            5,
            10,
        )
        s = sim(minutes=25, challenge="points", round=1)
        run(s, OPENING + "60 type end DM\n")  # Ada moved last and went out; Bob holds D M (5)
        saved = json.loads(sorted(s.service._records_dir().glob("*.json"))[-1].read_text())
        record = tournament_record(saved)
        assert record["scores"] == {"blue": 66 + 5, "red": 64 - 5}
        store.record_result(3, "g1", 1, record, 1.0)
        rows = {r["player"]: r for r in store.standings()}
        assert rows["Ada"]["wins"] == 1 and rows["Ada"]["spread"] == 71 - 59
        assert rows["Bob"]["losses"] == 1 and rows["Bob"]["spread"] == 59 - 71
    finally:
        store.close()


def test_override_and_call_off_with_nothing_to_act_on_say_so_and_leave_the_clock(sim):
    """The crossword game as Iago: ``override`` with no challenge under way and ``cancel`` with
    neither a challenge waiting for its words nor a typed move waiting say so on the OLED
    (NOTHING TO OVERRIDE, NOTHING TO CALL OFF; TOO LATE TO CALL OFF once the verdict is shown),
    journal nothing and leave the clock running; with something to act on they act as before."""
    from tests.test_faults import shows_banner

    s = sim(minutes=25)
    run(s, "0 press red\n10 pause\n11 resume\n")
    for command, title in (("override", "NOTHING TO OVERRIDE"), ("cancel", "NOTHING TO CALL OFF")):
        s.service.command(command)
        s.at(s.service.published.t + 0.5)
        assert shows_banner(s.devices.display.image, title)
        assert s.service.published.message.startswith(title.lower())
    st = s.state()
    assert st["status"] == "running" and st["mover"] == "blue"
    assert st["time_left"]["blue"] == pytest.approx(1500 - 10 - (s.service.published.t - 11))
    # a typed move waiting is called off; a verdict shown is too late to call off
    s.service.line("8D JETON")
    s.at(s.service.published.t + 0.5)
    s.service.command("cancel")
    s.at(s.service.published.t + 0.5)
    assert not shows_banner(s.devices.display.image, "NOTHING TO CALL OFF")
    kinds = [r.get("kind") for r in s.service.journal.records]
    assert kinds.count("cancel") == 1 and "override" not in kinds
    s.press("blue")
    s.press("challenge")
    s.at(s.service.published.t + 0.5)
    s.service.line("JETON")
    s.settle()
    assert s.service.mode.phase == "verdict"
    s.service.command("cancel")
    s.at(s.service.published.t + 0.5)
    assert shows_banner(s.devices.display.image, "TOO LATE TO CALL OFF")
    assert s.service.mode.phase == "verdict"


def test_with_no_lexicon_to_judge_the_arbiter_rules_a_wrong_challenge_as_iagos_does(
    tmp_path, monkeypatch
):
    """The set-up's word list cannot be opened: the challenged words are taken unchecked and
    shown ACCEPTABLE (NO LEXICON: ARBITER RULES), and settled so the challenge was wrong: under
    the double rule the challenger loses the turn. Before, the words were refused and the
    arbiter could only rule NOT ACCEPTABLE (override) or call the challenge off, which costs a
    wrong challenger nothing."""
    from companion.daemon.challenge import lexicon_judge
    from tests.test_daemon import _words_shown

    judge = lexicon_judge("no-such-list")
    assert judge.wait(30)
    table = TableConfig(number=3, blue="Ada", red="Bob", game="scrabble", challenge="double")
    s = ScriptedTable(table, judge, tmp_path / "j.jsonl")
    run(s, OPENING + "60 press challenge\n61 type BEDIM\n")
    assert s.service.mode.phase == "verdict"
    assert "NO LEXICON: ARBITER RULES" in _words_shown(s, monkeypatch, 61.5)
    assert "cannot be opened" in s.service.message and "override" in s.service.message
    s.service.command("confirm")
    s.at(s.service.published.t + 0.5)
    final = s.state()
    assert final["mover"] == "blue" and final["last_move"]["kind"] == "pass"
    assert "lost turn" in final["last_move"]["note"]
    c = s.service.mode.challenges[-1]
    assert c["judged_by"] == "arbiter" and "cannot be opened" in c["unchecked"]
    assert not c["overridden"] and c["verdict"] == "rejected"
    words = [r for r in s.service.journal.records if r.get("kind") == "words"]
    assert words[-1]["valid"] is None and words[-1]["unchecked"] == c["unchecked"]
    # the arbiter's override turns it, and is no lexicon overridden
    s2 = ScriptedTable(table, judge, tmp_path / "j2.jsonl")
    run(s2, OPENING + "60 press challenge\n61 type BEDIM\n62 override\n63 confirm\n")
    c2 = s2.service.mode.challenges[-1]
    assert c2["verdict"] == "sustained" and not c2["overridden"]
    assert s2.state()["last_move"]["kind"] == "phony"


def test_a_verdict_is_not_confirmed_while_paused_nor_typed_over(sim):
    """With the verdict shown, ``confirm`` while the clock is paused (a restart comes back so)
    says to resume first and is not journaled, as Iago's; a line typed then says the verdict is
    shown, not that the game has not started. The button resumes, then settles."""
    s = sim(minutes=25)
    run(s, OPENING + "60 press challenge\n61 type BEDIM\n62 pause\n")
    assert s.service.mode.phase == "verdict"
    s.service.command("confirm")
    s.at(63)
    assert s.service.message.startswith("the clock is paused: resume it first")
    assert s.service.mode.phase == "verdict"
    assert "confirm" not in [r.get("kind") for r in s.service.journal.records]
    s.service.line("BEDIM")
    s.at(64)
    assert s.service.message.startswith("the verdict is shown")
    s.press("challenge")  # resumes
    s.at(65)
    s.press("challenge")  # settles: BEDIM is good, the challenger (red) moves on
    s.at(66)
    assert s.service.mode.phase is None and s.state()["status"] == "running"
