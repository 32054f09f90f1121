"""Iago game records: a recorded game replays with every move re-ruled (rulebook "How to Play",
"Challenge"; record format in docs/iago.md)."""

import json

import pytest

from companion.games.iago import Board
from companion.games.iago.record import (
    GameRecord,
    RecordError,
    parse_record,
    replay_record,
    summary,
)

E = Board.empty()
WORDS = {"POT", "SPOT", "NOD"}


def put(board, word, row, col, down=False):
    cells = {}
    for i, letter in enumerate(word):
        if letter != " ":
            cells[(row + i, col) if down else (row, col + i)] = letter
    return board.with_cells(cells)


POT = put(E, "POT", 5, 4)  # blue's first word, across the centre
NOD = put(POT, "nod", 4, 5, down=True)  # red: NOD down through the O, which turns red
POTX = put(NOD, "POTX", 5, 4)  # blue: POT -> POTX, not a word
PENALISED = put(NOD, "pot", 5, 4)  # restored, and red turned blue's P and T
SPOT = put(NOD, "SPOT", 5, 3)  # blue steals POT (now red) with SPOT; O is NOD's link letter


def game_record(penalty_board=PENALISED):
    return {
        "game": "iago",
        "version": 1,
        "players": {"blue": "Ann", "red": "Bob"},
        "minutes": 5,
        "minute_seconds": 60,
        "events": [
            {"t": 0, "press": "red"},  # red turns the sand timer: blue moves first
            {"t": 20, "board": str(POT)},
            {"t": 21, "press": "blue"},
            {"t": 30, "board": str(NOD)},
            {"t": 31, "press": "red"},
            {"t": 40, "board": str(POTX)},
            {"t": 41, "press": "blue"},
            {"t": 45, "challenge": "red"},  # red, now on move, challenges POTX
            {"t": 50, "ruling": "sustained"},
            {"t": 55, "board": str(penalty_board), "penalty": True},
            {"t": 70, "board": str(SPOT)},
            {"t": 71, "press": "blue"},
            {"t": 500, "pause": True},  # red never completes a move: lost on time
        ],
    }


def test_a_recorded_game_replays_with_every_move_re_ruled():
    game = replay_record(parse_record(json.dumps(game_record())), lexicon=WORDS)
    moves = [(m.number, m.mover, m.withdrawn, m.ruling.legal) for m in game.moves]
    assert moves == [
        (1, "blue", False, True),
        (2, "red", False, True),
        (3, "blue", True, False),  # withdrawn by the sustained challenge
        (4, "blue", False, True),
    ]
    assert [v.code for v in game.moves[2].ruling.violations] == ["invalid-word"]
    assert game.moves[1].ruling.counts == {"blue": 2, "red": 3}
    # move 4 is ruled from the penalised board: SPOT steals POT (all red after the penalty)
    last = game.moves[3].ruling
    assert last.before == PENALISED
    assert [(s.stolen.text, s.word.text) for s in last.steals] == [("POT", "SPOT")]
    (ch,) = game.challenges
    assert (ch.challenger, ch.move, ch.verdict, ch.lexicon_agrees) == ("red", 3, "sustained", True)
    assert sorted(ch.penalty_turned) == [(5, 4), (5, 6)] and ch.problems == []
    assert game.board == SPOT and game.counts == {"blue": 4, "red": 2}
    # red's move began at 71 s with 5 minutes: the fifth minute runs out at 371 s
    assert game.loser == "red" and game.clock["status"] == "finished"
    out = game.to_json()
    assert out["winner"] == "blue" and out["illegal_moves"] == [3]


def test_the_summary_lists_moves_words_steals_and_final_counts():
    game = replay_record(parse_record(game_record()), lexicon=WORDS)
    text = summary(game)
    assert "Ann (blue) v Bob (red)" in text
    assert "SPOT (steals POT)" in text
    assert "challenged by red: sustained, move withdrawn" in text
    assert "Final counts: blue 4, red 2" in text
    assert "Bob (red) lost on time" in text


def test_a_penalty_of_more_than_three_tiles_or_an_unrestored_board_is_reported():
    bad = put(NOD, "pot", 5, 4).with_cells({(6, 4): "Z"})  # a letter left on the board
    game = replay_record(parse_record(game_record(bad)), lexicon=WORDS)
    (ch,) = game.challenges
    assert any("not restored" in p for p in ch.problems)


def test_a_record_round_trips_through_the_writer():
    rec = parse_record(game_record())
    again = parse_record(rec.dumps())
    assert again.to_json() == rec.to_json()
    built = GameRecord(players={"blue": "Ann"})
    built.clock(0, "press", "red")
    built.board(5.5, POT)
    built.clock(6, "press", "blue")
    game = replay_record(parse_record(built.dumps()), lexicon=WORDS)
    assert [m.ruling.legal for m in game.moves] == [True]


def test_bad_records_list_every_problem():
    bad = game_record()
    bad["minutes"] = 0
    bad["events"][1] = {"t": 20, "board": "11/11/11"}
    bad["events"][2] = {"t": 1, "press": "green"}
    with pytest.raises(RecordError) as err:
        parse_record(bad, "game.json")
    text = str(err.value)
    assert '"minutes"' in text and "event 2" in text and "event 3" in text
    with pytest.raises(RecordError, match="not JSON"):
        parse_record("{", "game.json")
    with pytest.raises(RecordError, match="penalty"):
        replay_record(parse_record({"events": [{"t": 0, "board": str(POT), "penalty": True}]}))


def test_penalty_turns_during_a_move_are_not_mistaken_for_illegal_changes():
    # blue challenges red's NOD while red is still on move; rejected, so red turns over one of
    # blue's letters (the P) as the penalty, then completes the move
    penalised = NOD.with_cells({(5, 4): "p"})
    record = {
        "events": [
            {"t": 0, "press": "red"},
            {"t": 20, "board": str(POT)},
            {"t": 21, "press": "blue"},
            {"t": 30, "board": str(NOD)},
            {"t": 32, "challenge": "blue"},
            {"t": 35, "ruling": "rejected"},
            {"t": 36, "board": str(penalised), "penalty": True},
            {"t": 40, "press": "red"},
        ]
    }
    game = replay_record(parse_record(record), lexicon=WORDS)
    (ch,) = game.challenges
    assert (ch.move, ch.verdict, ch.penalty_turned, ch.problems) == (None, "rejected", [(5, 4)], [])
    last = game.moves[1].ruling
    assert last.legal and last.counts == {"blue": 1, "red": 4}
    assert last.turned == (((5, 5), "red"),)  # only NOD's link letter; the P was the penalty


def test_a_penalty_turning_the_wrong_colour_is_reported():
    wrong = PENALISED.with_cells({(4, 5): "N"})  # red's N turned blue as well
    game = replay_record(parse_record(game_record(wrong)), lexicon=WORDS)
    (ch,) = game.challenges
    assert any("penalty turns tiles of blue only" in p for p in ch.problems)
