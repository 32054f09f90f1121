"""``companion iago replay`` on a game saved by the table service (data_dir()/records/*.json).

The record is made by the real table service on the scripted simulator (mock pins, fake clock);
the expected facts are worked out by hand from the rulebook's timer ("The Timer": the first
minute of a move is free, each minute that runs out passes one minute to the opponent, the
mover loses at zero; "Challenge": a sustained challenge of a completed move gives the move back
with the time it had) and from the daemon's restart rule (docs/daemon.md: the clock is paused
where the journal last saw it alive, its heartbeat every whole second of a running clock).
"""

import io
import json
import re

import pytest

from companion.cli import main
from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.sim import ScriptedTable, parse_sim_script
from companion.daemon.table_record import check_result, from_table
from companion.games.iago.record import (
    RecordError,
    WordsEvent,
    parse_record,
    replay_record,
    summary,
)

# Ada (blue) v Bob (red), 2 minutes each, 60-second sand minute.
SCRIPT = """
0 press red           # red turns the sand: blue's move 1 from 0 s
20 press blue         # move 1 (blue) ends: red's move from 20 s
30 press red          # move 2 (red) ends after 10 s: blue's move from 30 s
40 press challenge    # the sand stops at 40 s (blue has used 10 s)
42 press blue         # blue, on move, challenges red's completed move
45 type ZZZ           # not in the word list: the judge says sustained
50 confirm            # sustained: red's move 2 is withdrawn, red on move again with 10 s used
55 press red          # red completes its move again (15 s used): blue's move from 55 s
70 press blue         # move 3 (blue) ends: red's move from 70 s
80 press challenge    # the sand stops at 80 s (red has used 10 s)
81 press blue         # blue challenges red's word being entered
84 type XYZ           # not in the word list: the judge says sustained...
86 override           # ...the arbiter reverses it: rejected
88 confirm            # red's move resumes at 88 s with 10 s used
100 pause             # red has used 22 s
130 resume
140.5 kill            # red has used 32.5 s; the last heartbeat was at 140 s
200 restart           # paused at 140 s (32 s used), game time goes on from 140 s
210 resume            # game time 150 s
400 state
"""
# Red's first minute runs out when its sand reaches 60 s: 150 + (60 - 32) = 178 s (red 1,
# blue 3); the second at 238 s: red 0, red has lost on time at 238 s = 3:58.
LOST_AT = 238.0


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("table")
    table = TableConfig(number=4, blue="Ada", red="Bob", minutes=2, minute_seconds=60)
    s = ScriptedTable(table, set_judge({"CAT", "QI"}, "testwords"), folder / "journal.jsonl")
    s.run(parse_sim_script(SCRIPT.splitlines()), out=io.StringIO())
    path = s.service.last_record_path
    assert path is not None, "the game did not end: no record saved"
    return path


def test_the_journal_becomes_the_clock_events_of_the_game(saved):
    game = from_table(json.loads(saved.read_text()), saved.name)
    events = [
        (e.t, "words", list(e.words), e.judged) if isinstance(e, WordsEvent) else e.to_json()
        for e in game.record.events
    ]
    assert events == [
        {"t": 0.0, "press": "red"},
        {"t": 20.0, "press": "blue"},
        {"t": 30.0, "press": "red"},
        {"t": 40.0, "challenge": "blue"},  # at the button's instant, with the challenger
        (45.0, "words", ["ZZZ"], {"ZZZ": False}),
        {"t": 50.0, "ruling": "sustained"},
        {"t": 55.0, "press": "red"},
        {"t": 70.0, "press": "blue"},
        {"t": 80.0, "challenge": "blue"},
        (84.0, "words", ["XYZ"], {"XYZ": False}),
        {"t": 88.0, "ruling": "rejected"},  # after the override
        {"t": 100.0, "pause": True},
        {"t": 130.0, "resume": True},
        {"t": 140.0, "pause": True},  # the restart
        {"t": 150.0, "resume": True},
    ]
    assert game.record.end == LOST_AT
    assert game.record.players == {"blue": "Ada", "red": "Bob"}
    assert (game.record.minutes, game.record.minute_seconds) == (2, 60.0)
    assert any("restarted at 2:20" in n for n in game.notes)


def test_replaying_a_saved_game_gives_its_moves_challenges_and_result(saved, capsys):
    assert main(["iago", "replay", str(saved), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    moves = [(m["move"], m["mover"], m["t"], m["withdrawn"], m["ruling"]) for m in out["moves"]]
    assert moves == [
        (1, "blue", 20.0, False, None),
        (2, "red", 30.0, True, None),  # withdrawn by blue's sustained challenge
        (3, "red", 55.0, False, None),
        (4, "blue", 70.0, False, None),
    ]
    challenges = [
        (c["t"], c["challenger"], c["move"], c["words"], c["verdict"], c["overridden"])
        for c in out["challenges"]
    ]
    assert challenges == [
        (40.0, "blue", 2, ["ZZZ"], "sustained", False),
        (80.0, "blue", None, ["XYZ"], "rejected", True),
    ]
    assert out["boards_recorded"] is False
    assert (out["loser"], out["winner"], out["lost_at"]) == ("red", "blue", LOST_AT)
    # 3 moves stand; red passed two minutes to blue: blue 2 + 2, red 2 - 2
    assert out["clock"]["moves_completed"] == 3
    assert out["clock"]["minutes"] == {"blue": 4, "red": 0}
    assert out["result_agrees"] is True and out["table_result"]["loser"] == "red"


def test_the_summary_of_a_saved_game(saved, capsys):
    assert main(["iago", "replay", str(saved)]) == 0
    text = capsys.readouterr().out
    assert "Ada (blue) v Bob (red), 2 minutes each" in text
    assert "No boards were recorded" in text
    assert "challenged by blue: ZZZ, judged not acceptable (ZZZ not in testwords): " in text
    assert "sustained, move withdrawn" in text
    assert "blue challenged red's word being entered: XYZ" in text
    assert "rejected (the arbiter overrode the judge)" in text
    assert "Result: Bob (red) lost on time at 3:58; Ada (blue) wins" in text
    assert "the replay agrees" in text


def test_a_saved_result_that_disagrees_is_reported(saved):
    data = json.loads(saved.read_text())
    data["result"]["loser"] = "blue"
    data["result"]["moves_completed"] = 4
    game = from_table(data, "x.json")
    problems = check_result(replay_record(game.record), game.result)
    assert len(problems) == 2
    assert "loser is blue" in problems[0] and "4 moves completed" in problems[1]


def journal(*events, minutes=1):
    settings = {"number": 2, "blue": "Ann", "red": "Bob", "minutes": minutes}
    header = {"t": 0.0, "kind": "_game", "mode": "iago", "settings": settings}
    return {"result": {}, "settings": settings, "record": [header, *events]}


def camera_board(t, board, player, move, trusted=True):
    """A ``_board`` record as the table service journals it: ``board`` notation (or its rows),
    read at the press that began ``player``'s move number ``move``, journaled at ``t``."""
    board = board if isinstance(board, str) else "/".join(board)
    return {"t": t, "kind": "_board", "board": board, "trusted": trusted, "player": player,
            "move": move}  # fmt: skip


def test_a_called_off_challenge_and_ignored_presses_cost_nothing():
    data = journal(
        {"t": 0, "kind": "press", "role": "red"},  # blue on move with 1 minute
        {"t": 5, "kind": "press", "role": "red"},  # not on move: ignored, left out
        {"t": 10, "kind": "challenge_button"},  # the sand stops at 10 s
        {"t": 12, "kind": "challenge_button"},  # called off: the 2 s are not charged
        {"t": 13, "kind": "_alive"},
    )
    data["result"] = {"loser": "blue", "moves_completed": 0}
    game = from_table(data, "x.json")
    assert [e.to_json() for e in game.record.events] == [
        {"t": 0.0, "press": "red"},
        {"t": 10.0, "pause": True},
        {"t": 12.0, "resume": True},
    ]
    # blue's only minute runs out when 60 s of sand have run: 10 s + (60 - 10) after 12 s
    assert game.record.end == 62.0
    replayed = replay_record(game.record)
    assert (replayed.loser, replayed.lost_at) == ("blue", 62.0)
    assert check_result(replayed, game.result) == []
    assert any("called off" in n for n in game.notes)
    assert "No boards were recorded" in summary(replayed)


def test_boards_in_the_journal_are_ruled():
    pot = "11/11/11/11/11/4POT4/11/11/11/11/11"
    data = journal(
        {"t": 0, "kind": "press", "role": "red"},
        {"t": 8, "kind": "board", "board": pot},
        {"t": 9, "kind": "press", "role": "blue"},
    )
    game = replay_record(from_table(data, "x.json").record)
    (move,) = game.moves
    assert move.ruling is not None and move.ruling.legal and move.ruling.counts["blue"] == 3


def test_the_services_camera_boards_are_the_records_boards_when_trusted():
    """The table service reads the board from the frame of each press that begins a move and
    journals it when read, after that press, as ``_board`` with the reader's ``trusted``, the
    player and the move begun; a trusted one is ruled as the board at that press (the end of
    the move before), an unsure one left out."""
    empty = "11/11/11/11/11/11/11/11/11/11/11"
    pot = "11/11/11/11/11/4POT4/11/11/11/11/11"
    wrong = "11/11/11/11/11/4PQT4/11/11/11/11/11"
    data = journal(
        {"t": 0, "kind": "press", "role": "red"},
        camera_board(0.8, empty, "blue", 1),
        {"t": 9, "kind": "press", "role": "blue"},
        camera_board(9.5, pot, "red", 2),
        {"t": 15, "kind": "press", "role": "red"},
        camera_board(15.9, wrong, "blue", 3, trusted=False),
    )
    record = from_table(data, "x.json").record
    boards = [ev for ev in record.events if type(ev).__name__ == "BoardEvent"]
    assert [b.t for b in boards] == [0, 9]  # the unsure reading is not one of the record's boards
    first, second = replay_record(record).moves
    assert first.ruling is not None and first.ruling.legal and first.ruling.counts["blue"] == 3
    assert second.ruling is not None and not second.ruling.placed  # no board seen of its end


def test_a_board_read_late_is_the_board_of_the_press_it_was_read_at():
    """A reading that lags: the board of blue's press at 9 s (red's move 2 begins) is journaled
    after red's press at 10 s. It is still the board blue's move ended on, and red's move has
    no board of its end (nothing laid, as the record's rule has it); a journal of before the ``move`` field has its boards
    taken as the last press's that began a move."""
    empty = "11/11/11/11/11/11/11/11/11/11/11"
    pot = "11/11/11/11/11/4POT4/11/11/11/11/11"
    late = journal(
        {"t": 0, "kind": "press", "role": "red"},
        camera_board(0.5, empty, "blue", 1),
        {"t": 9, "kind": "press", "role": "blue"},
        {"t": 10, "kind": "press", "role": "red"},
        camera_board(10.5, pot, "red", 2),
    )
    moves = replay_record(from_table(late, "x.json").record).moves
    assert moves[0].ruling is not None and moves[0].ruling.counts["blue"] == 3
    assert moves[1].ruling is not None and not moves[1].ruling.placed  # no board of its end
    old = journal(
        {"t": 0, "kind": "press", "role": "red"},
        {"t": 0.5, "kind": "_board", "board": empty, "trusted": True},
        {"t": 9, "kind": "press", "role": "blue"},
        {"t": 9.5, "kind": "_board", "board": pot, "trusted": True},
    )
    (move,) = replay_record(from_table(old, "x.json").record).moves
    assert move.ruling is not None and move.ruling.legal and move.ruling.counts["blue"] == 3


def test_a_challenges_penalty_in_a_camera_game_is_not_ruled_an_illegal_change():
    """Red challenges blue's FOG while blue lays it; FOG is a word, so blue turns over three of
    red's tiles (rulebook, "Challenge") and ends the move. The board read at blue's press is
    that challenge's penalty board: the three tiles turned are the penalty, checked as such, and
    blue's move FOG is legal (the live table does not warn of it either)."""

    e5 = ["11"] * 5
    cafe = "4CAFE3"
    rustic = ["4r6", "4u6", "4s6", "4t6", "4i6"]
    turned = ["4R6", "4U6", "4S6", "4t6", "4i6"]
    fog = ["6O4", "6G4", "11", "11", "11"]
    data = journal(
        {"t": 0, "kind": "press", "role": "red"},
        camera_board(0.5, e5 + ["11"] + e5, "blue", 1),
        {"t": 5, "kind": "press", "role": "blue"},
        camera_board(5.5, e5 + [cafe] + e5, "red", 2),
        {"t": 10, "kind": "press", "role": "red"},
        camera_board(10.5, rustic + [cafe] + e5, "blue", 3),
        {"t": 12, "kind": "challenge_button"},
        {"t": 13, "kind": "press", "role": "red"},
        {"t": 13.5, "kind": "words", "words": ["FOG"], "valid": True, "per_word": {"FOG": True}},
        {"t": 14, "kind": "confirm"},
        {"t": 20, "kind": "press", "role": "blue"},
        camera_board(20.5, turned + [cafe] + fog, "red", 4),
        minutes=5,
    )
    game = replay_record(from_table(data, "x.json").record)
    assert [m.ruling.legal for m in game.moves] == [True, True, True]
    (challenge,) = game.challenges
    assert challenge.verdict == "rejected" and len(challenge.penalty_turned) == 3
    assert challenge.problems == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": 1}, "unknown fields ['extra']"),
        ({"settings": {"minutes": 0}}, "minutes"),
        ({"record": [{"t": 0, "kind": "_game", "mode": "iota"}]}, "Iago games only"),
        ({"record": [{"t": 0, "kind": "jump"}]}, "journal record 1 (jump)"),
        ({"record": [{"t": 0, "kind": "press"}]}, "missing field 'role'"),
        ({"record": [{"t": 5, "kind": "pause"}, {"t": 1, "kind": "resume"}]}, "earlier"),
    ],
)
def test_bad_table_records_are_refused_with_the_place(change, message):
    data = {**journal(), **change}
    with pytest.raises(RecordError, match=re.escape(message)):
        from_table(data, "x.json")


def test_a_bad_table_record_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**journal(), "extra": 1}))
    assert main(["iago", "replay", str(path)]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_the_example_record_replays():
    # docs/examples/iago-game.json: POT, SPOT (steals POT), STOP down through the S, then red's
    # STOPX, challenged by blue and withdrawn; red's move 4 began at 75 s, 26 s used at its
    # press (101 s), given back at 110 s: its minutes run out at 144, 204 and 264 s (3 minutes)
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "examples" / "iago-game.json").read_text()
    game = replay_record(parse_record(text), lexicon={"POT", "SPOT", "STOP"})
    rulings = [(m.mover, m.withdrawn, m.ruling.legal) for m in game.moves if m.ruling]
    assert rulings == [
        ("blue", False, True),
        ("red", False, True),
        ("blue", False, True),
        ("red", True, False),
    ]
    (ch,) = game.challenges
    assert (ch.challenger, ch.verdict, ch.words, len(ch.penalty_turned)) == (
        "blue",
        "sustained",
        ["STOPX"],
        3,
    )
    assert ch.problems == []
    assert (game.loser, game.lost_at) == ("red", 264.0)
    assert game.counts == {"blue": 7, "red": 0}


def test_words_events_and_end_in_a_hand_written_record_are_checked():
    ok = {
        "minutes": 1,
        "end": 70,
        "events": [
            {"t": 0, "press": "red"},
            {"t": 5, "challenge": "red"},  # red challenges blue's word being entered
            {"t": 6, "words": ["qi"], "judged": {"QI": True}, "lexicon": "testwords"},
            {"t": 8, "ruling": "sustained"},  # the judge said acceptable: an override
        ],
    }
    game = replay_record(parse_record(ok))
    (ch,) = game.challenges
    assert (ch.words, ch.judged, ch.overridden) == (["QI"], {"QI": True}, True)
    # blue's only minute: 5 s run before the challenge, 55 more from 8 s: lost at 63 s
    assert (game.loser, game.lost_at) == ("blue", 63.0)
    assert parse_record(parse_record(ok).dumps()).to_json() == parse_record(ok).to_json()
    with pytest.raises(RecordError, match="no challenge under way"):
        replay_record(parse_record({"events": [{"t": 1, "words": ["QI"]}]}))
    bad = {"end": 3, "events": [{"t": 5, "press": "red"}, {"t": 6, "words": ["Q1"]}]}
    with pytest.raises(RecordError) as err:
        parse_record(bad, "g.json")
    assert '"end" 3.0 is earlier' in str(err.value) and "event 2" in str(err.value)


def test_an_abandoned_game_says_so_in_its_result_line_with_the_game_time(tmp_path, capsys):
    table = TableConfig(number=2, blue="Ada", red="Bob", minutes=2, minute_seconds=60)
    s = ScriptedTable(table, set_judge({"CAT"}, "testwords"), tmp_path / "journal.jsonl")
    script = "0 press red\n20 press blue\n69 abandon\n70 confirm\n71 state\n"
    s.run(parse_sim_script(script.splitlines()), out=io.StringIO())
    path = s.service.last_record_path
    assert path is not None and json.loads(path.read_text())["result"]["abandoned_at"] == 70
    assert main(["iago", "replay", str(path)]) == 0
    out = capsys.readouterr().out
    # abandoned at 70 s of game time = 1:10, while red's sand ran: never "not finished"
    assert "Result: the game was abandoned at 1:10 (game time); no winner" in out
    assert "not finished" not in out
    assert "Saved result (the table's): the game was abandoned; the replay agrees" in out


def test_a_plain_record_no_one_lost_is_not_finished():
    game = replay_record(parse_record({"events": [{"t": 0, "press": "red"}]}))
    assert summary(game).endswith("Result: not finished (clock running)")
    assert summary(game, "the game was abandoned").endswith(
        "Result: the game was abandoned; no winner"
    )


def test_a_challenge_no_lexicon_checked_is_noted_as_the_arbiters():
    from companion.daemon.challenge import unchecked_event

    reason = "the lexicon cannot be opened (LexiconNotFound: no lexicon named 'gone')"
    data = journal(
        {"t": 0, "kind": "press", "role": "red"},  # blue on move
        {"t": 10, "kind": "challenge_button"},
        {"t": 10, "kind": "press", "role": "red"},  # red challenges blue's word
        unchecked_event(20, ["cat"], reason),  # as the table journals it
        {"t": 21, "kind": "override"},
        {"t": 22, "kind": "challenge_button"},
        {"t": 23, "kind": "_alive"},
    )
    game = from_table(data, "x.json")
    words = [e.to_json() for e in game.record.events if "words" in e.to_json()]
    assert words == [{"t": 20.0, "words": ["CAT"]}]  # no judgement, no lexicon: not asked
    assert [n for n in game.notes if "arbiter" in n] == [
        f"a challenge at 0:10 was ruled by the arbiter: no lexicon checked the words ({reason})"
    ]
