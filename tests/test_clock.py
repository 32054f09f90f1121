"""The differential timer against the rulebook ("The Timer", "How to Play", "Challenge")."""

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.clock import ClockError, DifferentialTimer, Status
from companion.clock.replay import ScriptError, parse_script, replay
from companion.clock.timer import LostOnTime, MinutePassed


def started(first_mover="red", t=0.0, **kw):
    timer = DifferentialTimer(**kw)
    other = "blue" if first_mover == "red" else "red"
    timer.press(other, t)
    return timer


def test_the_player_without_the_first_move_presses_to_start_it():
    timer = DifferentialTimer()
    assert timer.status == Status.READY and timer.mover is None
    timer.press("blue", 3.0)
    assert timer.status == Status.RUNNING
    assert timer.mover == "red"
    assert timer.moves_completed == 0


@pytest.mark.parametrize("first", ["blue", "red"])
def test_a_known_first_movers_own_press_starts_nothing(first):
    from companion.clock.timer import Ignored

    timer = DifferentialTimer(first_mover=first)
    other = "red" if first == "blue" else "blue"
    notices = timer.press(first, 1.0)
    assert [type(n) for n in notices] == [Ignored] and f"{other} presses" in notices[0].reason
    assert timer.status == Status.READY and timer.mover is None
    timer.press(other, 2.0)
    assert (timer.status, timer.mover) == (Status.RUNNING, first)
    assert timer.next_deadline() == pytest.approx(62.0)


def test_first_mover_must_be_a_colour():
    with pytest.raises(ClockError, match="first_mover 'green'"):
        DifferentialTimer(first_mover="green")


def test_first_minute_is_free():
    timer = started()
    timer.press("red", 59.9)
    assert timer.allowance == {"blue": 5, "red": 5}
    assert timer.mover == "blue" and timer.moves_completed == 1


def test_rulebook_example_five_becomes_four_and_opponent_six():
    timer = started()
    notices = timer.advance(60.0)  # an event at the instant sees the minute run out
    assert [type(n) for n in notices] == [MinutePassed]
    assert timer.allowance == {"red": 4, "blue": 6}
    timer.press("red", 100.0)
    assert timer.mover == "blue" and timer.allowance == {"red": 4, "blue": 6}


def test_press_at_exact_minute_sees_it_run_out():
    timer = started()
    timer.press("red", 120.0)
    assert timer.allowance == {"red": 3, "blue": 7}


def test_press_by_the_player_not_on_move_is_ignored():
    timer = started()
    timer.press("blue", 10.0)
    assert timer.mover == "red" and timer.moves_completed == 0


def test_mover_loses_when_allowance_reaches_zero():
    timer = started(minutes=2)
    notices = timer.advance(200.0)
    assert timer.status == Status.FINISHED
    assert timer.loser == "red"
    assert timer.allowance == {"red": 0, "blue": 4}
    lost = [n for n in notices if isinstance(n, LostOnTime)]
    assert lost == [LostOnTime(120.0, "red")]
    # nothing moves after the end
    timer.press("red", 300.0)
    assert timer.allowance == {"red": 0, "blue": 4}


def test_each_move_has_its_own_sand_minute():
    timer = started(minute_seconds=10)
    timer.press("red", 15.0)  # red lost one minute: 4/6
    timer.advance(24.9)  # blue's move started at 15: 9.9 s in, free
    assert timer.allowance == {"red": 4, "blue": 6}
    assert timer.sand_left(24.9) == pytest.approx(0.1)
    timer.advance(25.0)
    assert timer.allowance == {"red": 5, "blue": 5}


def test_challenge_of_the_movers_word_stops_sand_and_resumes_where_it_stopped():
    timer = started()
    timer.advance(50.0)
    timer.challenge("blue", 50.0)  # blue is not on move: red's word is challenged
    assert timer.status == Status.CHALLENGE
    timer.advance(500.0)  # the sand is stopped
    assert timer.allowance == {"red": 5, "blue": 5}
    assert timer.penalty("sustained").describe() == "Restore the board. BLUE turns over 3 RED tiles"
    timer.rule("sustained", 500.0)
    assert timer.mover == "red" and timer.status == Status.RUNNING
    assert timer.sand_left(505.0) == pytest.approx(5.0)
    timer.advance(510.0)
    assert timer.allowance == {"red": 4, "blue": 6}


def test_sustained_challenge_of_completed_move_gives_it_back_with_its_time():
    timer = started()
    timer.press("red", 70.0)  # red: 4, blue: 6; red's move used 70 s
    timer.advance(130.0)  # blue's move, 60 s in: blue 5, red 5
    assert timer.allowance == {"red": 5, "blue": 5}
    timer.challenge("blue", 130.0)  # blue is on move: challenges red's completed move
    pen = timer.penalty("sustained")
    assert (pen.turner, pen.owner, pen.restore_board) == ("blue", "red", True)
    timer.rule("sustained", 140.0)
    assert timer.mover == "red"
    assert timer.allowance == {"red": 4, "blue": 6}  # blue's passed minute is undone
    assert timer.moves_completed == 0
    # red's move resumes at 70 s of sand: the next minute runs out 50 s later
    timer.advance(189.9)
    assert timer.allowance == {"red": 4, "blue": 6}
    timer.advance(190.0)
    assert timer.allowance == {"red": 3, "blue": 7}


def test_rejected_challenge_of_completed_move_resumes_challengers_move():
    timer = started()
    timer.press("red", 10.0)
    timer.challenge("blue", 30.0)
    pen = timer.penalty("rejected")
    assert (pen.turner, pen.owner, pen.restore_board) == ("red", "blue", False)
    timer.rule("rejected", 100.0)
    assert timer.mover == "blue" and timer.moves_completed == 1
    assert timer.sand_left(100.0) == pytest.approx(40.0)


def test_pause_and_resume_do_not_charge_time():
    timer = started()
    timer.pause(30.0)
    timer.advance(1000.0)
    assert timer.status == Status.PAUSED and timer.allowance == {"red": 5, "blue": 5}
    timer.resume(1000.0)
    timer.advance(1029.9)
    assert timer.allowance == {"red": 5, "blue": 5}
    timer.advance(1030.0)
    assert timer.allowance == {"red": 4, "blue": 6}


def test_bad_settings_and_times_are_refused_with_the_range():
    with pytest.raises(ClockError, match="minutes 0 is out of range; accepted: 1 to 99"):
        DifferentialTimer(minutes=0)
    timer = started(t=10.0)
    with pytest.raises(ClockError, match="earlier than the last event"):
        timer.press("red", 5.0)
    with pytest.raises(ClockError, match="accepted: 'blue', 'red'"):
        timer.press("green", 20.0)


def test_script_errors_name_line_and_field_all_at_once():
    lines = ['{"t": 1, "press": "blue"}', '{"t": "x", "press": "red"}', "nope", '{"t": 3}']
    with pytest.raises(ScriptError) as info:
        parse_script(lines, "s.jsonl")
    msg = str(info.value)
    assert "s.jsonl:2" in msg and "s.jsonl:3" in msg and "s.jsonl:4" in msg
    assert "s.jsonl:1" not in msg


def test_replay_command_prints_the_contract(tmp_path):
    script = tmp_path / "game.jsonl"
    script.write_text(
        "\n".join(
            json.dumps(e)
            for e in [
                {"t": 0, "press": "blue"},
                {"t": 75, "press": "red"},
                {"t": 90, "challenge": "blue"},
                {"t": 120, "ruling": "rejected"},
            ]
        )
    )
    out = subprocess.run(
        [sys.executable, "-m", "companion", "clock", "replay", str(script), "--at", "150"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    state = json.loads(out)
    # red's move: 75 s (one minute passed) -> red 4, blue 6; blue's move 15 s + 30 s after ruling
    assert state == {
        "status": "running",
        "mover": "blue",
        "minutes": {"blue": 6, "red": 4},
        "loser": None,
        "moves_completed": 1,
        "sand_left": 15.0,
    }


def test_replay_command_bad_script_exits_2(tmp_path):
    script = tmp_path / "bad.jsonl"
    script.write_text('{"t": 1, "press": "purple"}\n')
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "clock", "replay", str(script)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert "bad.jsonl:1" in proc.stderr and "purple" in proc.stderr


events = st.lists(
    st.tuples(
        st.floats(0, 200, allow_nan=False),
        st.sampled_from(["press", "challenge", "ruling", "pause", "resume"]),
        st.sampled_from(["blue", "red", "sustained", "rejected"]),
    ),
    max_size=40,
)


def _run(script, minutes, ms):
    timer = DifferentialTimer(minutes=minutes, minute_seconds=ms)
    t = 0.0
    for dt, kind, arg in script:
        t += dt
        if kind in ("press", "challenge"):
            arg = arg if arg in ("blue", "red") else "blue"
            getattr(timer, kind)(arg, t)
        elif kind == "ruling":
            timer.rule(arg if arg in ("sustained", "rejected") else "rejected", t)
        else:
            getattr(timer, kind)(t)
        yield timer, t


@settings(max_examples=300, deadline=None)
@given(events, st.integers(1, 9), st.sampled_from([1.0, 10.0, 60.0]))
def test_allowances_always_sum_to_the_total_and_never_go_negative(script, minutes, ms):
    for timer, t in _run(script, minutes, ms):
        assert timer.allowance["blue"] + timer.allowance["red"] == 2 * minutes
        assert min(timer.allowance.values()) >= 0
        assert (timer.loser is not None) == (timer.status == Status.FINISHED)
        if timer.loser:
            assert timer.allowance[timer.loser] == 0
        sand = timer.sand_left(t)
        if sand is not None:
            assert 0 < sand <= ms + 1e-9


@settings(max_examples=200, deadline=None)
@given(events, st.floats(0, 500, allow_nan=False))
def test_advancing_in_steps_equals_advancing_at_once(script, extra):
    a = list(_run(script, 5, 10.0))
    b = list(_run(script, 5, 10.0))
    if not a:
        return
    ta, t_end = a[-1][0], a[-1][1]
    tb = b[-1][0]
    for k in range(1, 11):
        ta.advance(t_end + extra * k / 10)
    tb.advance(t_end + extra)
    assert ta.snapshot(t_end + extra) == tb.snapshot(t_end + extra)


def test_replay_function_matches_manual_steps():
    evs = parse_script(['{"t": 0, "press": "red"}', '{"t": 61, "press": "blue"}'])
    timer = replay(evs)
    assert timer.snapshot(61) == {
        "status": "running",
        "mover": "red",
        "minutes": {"blue": 4, "red": 6},
        "loser": None,
        "moves_completed": 1,
        "sand_left": 60.0,
    }


@pytest.mark.parametrize("ms,k", [(1.1, 3), (1.3, 7), (2.7, 6), (10.1, 3), (60.0, 4)])
def test_a_minute_runs_out_at_its_instant_whatever_the_float_rounding(ms, k):
    # k minutes of ms seconds: k * ms in decimal is the instant the k-th minute runs out
    at = float(f"{k * ms:.6f}")
    timer = started(minutes=9, minute_seconds=ms)
    timer.advance(at)
    assert timer.allowance == {"red": 9 - k, "blue": 9 + k}
    assert timer.sand_left(at) == pytest.approx(ms)


def test_sustained_challenge_restores_minutes_passed_with_unround_minute():
    timer = started(minute_seconds=1.1)
    timer.press("red", 3.3)  # three minutes ran out at 3.3 s exactly: red 2, blue 8
    assert timer.allowance == {"red": 2, "blue": 8}
    timer.challenge("blue", 3.5)
    timer.rule("sustained", 4.0)
    assert timer.mover == "red" and timer.allowance == {"red": 2, "blue": 8}
    timer.advance(4.0 + 1.1 - 1e-6)  # red resumes with 3.3 s used: the 4th minute is 1.1 s away
    assert timer.allowance == {"red": 2, "blue": 8}
    timer.advance(5.1)
    assert timer.allowance == {"red": 1, "blue": 9}


def test_replay_at_a_time_before_later_events_shows_the_state_then(tmp_path):
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 0, "press": "blue"}\n{"t": 30, "press": "red"}\n')
    out = subprocess.run(
        [sys.executable, "-m", "companion", "clock", "replay", str(script), "--at", "20"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    state = json.loads(out)
    # at 20 s red is on move (blue pressed at 0); red's press at 30 s has not happened yet
    assert state["mover"] == "red" and state["moves_completed"] == 0
    assert state["sand_left"] == pytest.approx(40.0)


@pytest.mark.parametrize(
    "bad", [0, -1.0, 0.5, 600.5, 3600, float("inf"), float("nan"), 1e300, True]
)
def test_minute_length_out_of_range_is_refused_with_the_range(bad):
    with pytest.raises(ClockError, match="accepted: a number of seconds from 1 to 600"):
        DifferentialTimer(minute_seconds=bad)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(0.5, 1.5),
        st.floats(599.5, 600.5),
        st.sampled_from([1, 1.0, 600, 600.0, 0.999999, 600.000001, 3600]),
    )
)
def test_every_way_of_giving_the_sand_minute_takes_the_one_range(ms):
    """The clock, [table] minute_seconds (table setup, sim) and a game record's "minute_seconds"
    accept the same lengths: MIN_MINUTE_SECONDS to MAX_MINUTE_SECONDS (1 to 600 s)."""
    from companion.clock.timer import MAX_MINUTE_SECONDS, MIN_MINUTE_SECONDS
    from companion.daemon.config import TableConfigError, validate
    from companion.games.iago.record import RecordError, parse_record

    def takes(make, error) -> bool:
        try:
            make()
        except error:
            return False
        return True

    expected = MIN_MINUTE_SECONDS <= ms <= MAX_MINUTE_SECONDS  # False for nan
    assert (MIN_MINUTE_SECONDS, MAX_MINUTE_SECONDS) == (1.0, 600.0)  # docs/clock.md, daemon.md
    assert takes(lambda: DifferentialTimer(minute_seconds=ms), ClockError) == expected
    assert (
        takes(lambda: validate({"minute_seconds": ms}, check_names=False), TableConfigError)
        == expected
    )
    assert (
        takes(lambda: parse_record({"minute_seconds": ms, "events": []}), RecordError) == expected
    )


@pytest.mark.parametrize(
    ("ms", "code"), [("1", 0), ("600", 0), ("0.5", 2), ("601", 2), ("3600", 2)]
)
def test_clock_replay_takes_the_one_range_naming_the_option(tmp_path, capsys, ms, code):
    from companion.cli import main

    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 0, "press": "red"}\n')
    assert main(["clock", "replay", str(script), "--minute-seconds", ms]) == code
    if code:
        assert (
            f"--minute-seconds {ms}: accepted a number of seconds from 1 to 600"
            in capsys.readouterr().err
        )
