"""The crossword game's tournament clock on cases written from WESPA's Game Rules and NASPA's
Official Tournament Rules: the second player starts the first's clock, each clock runs only while
its player is on move, overtime counts up and costs 10 points for each minute or part of one, a
challenge holds both clocks, and a wrong challenge costs a turn (double challenge) or lets the
challenger move on (points)."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.clock.timer import ClockError, Status
from companion.games.scrabble.clock import TournamentClock, overtime_penalty


def test_the_player_who_goes_second_starts_the_firsts_clock():
    clock = TournamentClock()
    assert clock.status == Status.READY and clock.own_time == 25 * 60
    clock.press("red", 10.0)  # red goes second: red's press starts blue's clock
    assert clock.mover == "blue" and clock.status == Status.RUNNING
    assert clock.time_left("blue", 70.0) == 1500 - 60
    assert clock.time_left("red", 70.0) == 1500  # red's clock stands while blue is on move


def test_pressing_ends_the_turn_and_only_the_mover_can():
    clock = TournamentClock(minutes=25)
    clock.press("red", 0.0)
    clock.press("red", 5.0)  # not on move: nothing happens
    assert clock.mover == "blue" and clock.moves_completed == 0
    clock.press("blue", 40.0)
    clock.press("red", 100.0)
    assert clock.moves_completed == 2 and clock.mover == "blue"
    assert clock.time_left("blue", 100.0) == 1500 - 40
    assert clock.time_left("red", 100.0) == 1500 - 60


@pytest.mark.parametrize(
    ("over", "points"),
    [(0.0, 0), (0.5, 10), (59.9, 10), (60.0, 10), (60.1, 20), (119.0, 20), (120.0, 20), (121, 30)],
)
def test_overtime_is_10_points_for_each_minute_or_part_of_a_minute(over, points):
    assert overtime_penalty(over) == points
    clock = TournamentClock(minutes=1)
    clock.press("red", 0.0)
    clock.press("blue", 60.0 + over)
    assert clock.time_left("blue") == pytest.approx(-over)
    assert clock.penalty("blue") == points and clock.penalty("red") == 0


def test_the_overtime_penalty_is_configurable():
    assert overtime_penalty(61.0, 5) == 10
    clock = TournamentClock(minutes=1, overtime_points=25)
    clock.press("red", 0.0)
    clock.press("blue", 130.0)  # 70 s over: two minutes begun
    assert clock.penalty("blue") == 50


def test_the_clock_counts_up_past_zero_and_says_so_at_zero_and_each_whole_minute():
    clock = TournamentClock(minutes=1)
    clock.press("red", 0.0)
    assert clock.next_deadline() == 60.0
    assert clock.advance(60.0) == ["overtime blue"]
    assert clock.next_deadline() == 120.0
    assert clock.advance(185.0) == ["minute blue", "minute blue"]
    assert clock.time_left("blue") == -125.0 and clock.penalty("blue") == 30


def test_a_challenge_holds_both_clocks():
    clock = TournamentClock()
    clock.press("red", 0.0)
    clock.press("blue", 30.0)  # blue played; red on move
    clock.challenge("red", 45.0)
    assert clock.status == Status.CHALLENGE
    left = {c: clock.time_left(c, 45.0) for c in ("blue", "red")}
    assert {c: clock.time_left(c, 400.0) for c in ("blue", "red")} == left
    assert clock.next_deadline() is None


def test_double_challenge_a_wrong_challenge_loses_the_challengers_turn():
    clock = TournamentClock(challenge_rule="double")
    clock.press("red", 0.0)
    clock.press("blue", 30.0)
    clock.challenge("red", 45.0)
    clock.rule("rejected", 100.0)  # the play stands: red loses the turn, blue moves again
    assert clock.mover == "blue" and clock.status == Status.RUNNING
    assert clock.moves_completed == 2  # blue's play and red's lost turn
    assert clock.time_left("red", 100.0) == 1500 - 15
    assert clock.time_left("blue", 110.0) == 1500 - 30 - 10


def test_points_rule_the_challenger_moves_after_a_wrong_challenge():
    clock = TournamentClock(challenge_rule="points")
    clock.press("red", 0.0)
    clock.press("blue", 30.0)
    clock.challenge("red", 45.0)
    clock.rule("rejected", 100.0)
    assert clock.mover == "red" and clock.moves_completed == 1
    assert clock.time_left("red", 110.0) == 1500 - 15 - 10


@pytest.mark.parametrize("rule", ["double", "points"])
def test_a_play_challenged_off_is_a_lost_turn_and_the_challenger_moves(rule):
    clock = TournamentClock(challenge_rule=rule)
    clock.press("red", 0.0)
    clock.press("blue", 30.0)
    clock.challenge("red", 45.0)
    clock.rule("sustained", 100.0)
    assert clock.mover == "red" and clock.moves_completed == 1


def test_only_the_player_on_move_challenges_and_only_a_play_made():
    clock = TournamentClock()
    clock.press("red", 0.0)
    clock.challenge("blue", 5.0)  # no play made yet
    clock.challenge("red", 6.0)  # red is not on move: blue is still thinking
    assert clock.status == Status.RUNNING and clock.mover == "blue"


def test_a_play_can_be_challenged_until_the_next_move_is_made_and_once():
    clock = TournamentClock(challenge_rule="points")
    clock.press("red", 0.0)
    clock.press("blue", 30.0)  # blue's play: red, on move, can challenge it
    assert clock.challengeable
    clock.press("red", 50.0)  # red made his own move: blue's play stands
    assert clock.challenge("red", 55.0) == ["too late: red has ended his turn since the play"]
    assert clock.status == Status.RUNNING and clock.time_left("blue", 60.0) == 1500 - 30 - 10
    clock.challenge("blue", 60.0)  # red's play, just made: in time
    assert clock.status == Status.CHALLENGE and not clock.challengeable
    clock.rule("rejected", 70.0)  # ruled: blue moves on and cannot challenge it again
    assert clock.mover == "blue" and not clock.challengeable
    assert clock.challenge("blue", 75.0)[-1].startswith("too late: the play was challenged")
    assert clock.status == Status.RUNNING and clock.time_left("blue", 80.0) == 1500 - 30 - 10 - 10


def test_a_turn_lost_to_a_wrong_double_challenge_cannot_be_challenged():
    clock = TournamentClock(challenge_rule="double")
    clock.press("red", 0.0)
    clock.press("blue", 30.0)
    clock.challenge("red", 45.0)
    clock.rule("rejected", 60.0)  # blue moves again: red's lost turn is no play
    assert clock.mover == "blue" and not clock.challengeable
    assert clock.challenge("blue", 65.0)[-1].startswith("too late")
    assert clock.status == Status.RUNNING


def test_a_challenge_called_off_leaves_the_play_open_and_a_void_one_was_never_held():
    clock = TournamentClock(minutes=1)
    clock.press("red", 0.0)
    clock.press("blue", 10.0)  # red on move from 10 s
    clock.challenge("red", 20.0)
    clock.call_off(30.0)  # the 10 s held are charged to no one; the play is still open
    assert clock.challengeable and clock.time_left("red", 30.0) == 60 - 10
    clock.challenge("red", 40.0)  # red has used 20 s
    clock.pause(50.0)  # a pause in the challenge is never charged
    clock.resume(500.0)
    notes = clock.void(540.0)  # no challenge after all: the 50 s since 40 s are red's
    assert notes == ["overtime red", "void: red on move, as if never held"]
    assert clock.status == Status.RUNNING and clock.mover == "red" and clock.challengeable
    assert clock.time_left("red", 540.0) == 60 - 20 - 50
    assert clock.next_deadline() == 540.0 + 50  # the next whole minute of overtime at 60 s over
    assert clock.void(541.0) == ["ignored void: there is no challenge under way"]


def test_pause_and_resume_hold_the_clocks_in_a_challenge_too():
    clock = TournamentClock()
    clock.press("red", 0.0)
    clock.pause(20.0)
    clock.resume(500.0)
    assert clock.time_left("blue", 510.0) == 1500 - 30
    clock.press("blue", 510.0)
    clock.challenge("red", 520.0)
    clock.pause(530.0)
    clock.resume(900.0)
    assert clock.status == Status.CHALLENGE
    clock.rule("sustained", 950.0)
    assert clock.time_left("red", 960.0) == 1500 - 20


def test_the_end_stops_the_clocks_and_fixes_the_penalties():
    clock = TournamentClock(minutes=1)
    clock.press("red", 0.0)
    clock.end(90.0)
    assert clock.status == Status.FINISHED
    assert clock.time_left("blue", 5000.0) == -30.0 and clock.penalty("blue") == 10


def test_bad_settings_are_named_all_at_once():
    with pytest.raises(ClockError, match="minutes 0.*challenge rule 'triple'"):
        TournamentClock(minutes=0, challenge_rule="triple")


# -- the command line: DESIGN.md's contract -----------------------------------------------------


def replay(capsys, tmp_path, lines, *options):
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    code = main(["clock", "replay", str(script), "--game", "scrabble", *options])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_replay_prints_the_scrabble_state(capsys, tmp_path):
    lines = [
        {"t": 0, "press": "red"},
        {"t": 1560, "press": "blue"},  # blue used 26 minutes: 60 s over, one minute: 10
        {"t": 1570, "challenge": "red"},
        {"t": 1600, "ruling": "rejected"},
        {"t": 1700, "press": "blue"},
    ]
    code, out, _ = replay(capsys, tmp_path, lines)
    assert code == 0
    assert out == {
        "status": "running",
        "mover": "red",
        "time_left": {"blue": -160.0, "red": 1490.0},
        "overtime_penalty": {"blue": 30, "red": 0},
        "moves_completed": 3,
    }
    code, out, _ = replay(capsys, tmp_path, lines[:4], "--challenge", "points", "--at", "1650")
    assert out["mover"] == "red" and out["time_left"]["red"] == 1500 - 10 - 50
    code, out, _ = replay(capsys, tmp_path, [*lines, {"t": 1800, "end": True}], "--minutes", "30")
    assert out["status"] == "finished" and out["time_left"]["blue"] == 1800 - 1660
    assert out["time_left"]["red"] == 1800 - 10 - 100


def test_replay_refuses_minute_seconds_and_bad_end(capsys, tmp_path):
    code, _, err = replay(capsys, tmp_path, [{"t": 0, "press": "red"}], "--minute-seconds", "30")
    assert code == 2 and "--minute-seconds" in err
    code, _, err = replay(capsys, tmp_path, [{"t": 0, "end": "yes"}])
    assert code == 2 and '"end"' in err and "true" in err
    script = tmp_path / "iago.jsonl"
    script.write_text('{"t": 0, "end": true}\n')
    assert main(["clock", "replay", str(script)]) == 2  # Iago's clock has no end event


# -- invariants ---------------------------------------------------------------------------------

events = st.lists(
    st.tuples(
        st.floats(0, 400, allow_nan=False),
        st.sampled_from(["press blue", "press red", "challenge blue", "challenge red",
                         "ruling sustained", "ruling rejected", "pause", "resume",
                         "call_off"]),
    ),
    max_size=40,
)  # fmt: skip


@given(events, st.sampled_from(["double", "points"]))
def test_time_is_conserved_every_second_run_is_charged_to_one_player(evs, rule):
    clock = TournamentClock(minutes=5, challenge_rule=rule)
    t, ran = 0.0, 0.0
    for dt, what in evs:
        running = clock.status == Status.RUNNING
        t += dt
        ran += dt if running else 0.0
        kind, _, arg = what.partition(" ")
        if kind == "press":
            clock.press(arg, t)
        elif kind == "challenge":
            clock.challenge(arg, t)
        elif kind == "ruling":
            clock.rule(arg, t)
        else:
            getattr(clock, kind)(t)
        used = clock.used_at("blue", t) + clock.used_at("red", t)
        assert used == pytest.approx(ran, abs=1e-6)
        assert clock.penalty("blue", t) == overtime_penalty(
            max(0.0, clock.used_at("blue", t) - 300)
        )
