"""The crossword game's record and GCG: a game recorded by Quackle (the 2006 Human vs. Computer
Showdown's first game, its opening moves) read with its scores and totals checked, written back,
and read again into the same record; the end-of-game racks; every kind of GCG line; a fuzzed
reader."""

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.games.scrabble.record import GameRecord, RecordError, read_gcg, write_gcg

QUACKLE = """#player1 Quackle Quackle Computer
#player2 David David Boys
#description Quackle Computer plays David Boys in Round 1 at the 2006 Human vs. Computer Showdown
#title 2006 Human vs. Computer Showdown Round 1
#incomplete
>Quackle: DEMJNOT 8d JETON +40 40
>David: ?EDYEIG h2 rEDYEING +64 64
>Quackle: BEDGMNP 7e BEDIM +26 66 BE, ET, DO
>David: HEALERS j1 HEALERS +75 139 BEDIMS
"""


def test_a_quackle_game_is_read_with_every_score_checked():
    rec = read_gcg(QUACKLE.replace(" BE, ET, DO", "").replace(" BEDIMS", ""))
    assert rec.players == {"blue": "Quackle Computer", "red": "David Boys"}
    assert [(m.player, m.position, m.word, m.score, m.total) for m in rec.moves] == [
        ("blue", "8D", "JETON", 40, 40),
        ("red", "H2", "rEDYEING", 64, 64),
        ("blue", "7E", "BEDIM", 26, 66),
        ("red", "J1", "HEALERS", 75, 139),
    ]
    assert rec.moves[1].bingo and rec.scores == {"blue": 66, "red": 139}


def test_a_wrong_score_or_total_names_the_line():
    with pytest.raises(RecordError, match=r"GCG:6: the move scores 40, the line says \+41"):
        read_gcg(QUACKLE.replace("+40 40", "+41 41"))
    with pytest.raises(RecordError, match="GCG:7: the running total is 64, the line says 65"):
        read_gcg(QUACKLE.replace("+64 64", "+64 65"))


def whole_game() -> GameRecord:
    rec = GameRecord(players={"blue": "Ada Lovelace", "red": "Bob"}, first="red", lexicon="CSW24")
    rec.play("red", "8D", "JETON", "DEJMNOT")  # 40
    rec.play("blue", "H2", "rEDYEING", "?DEEGIY")  # 64
    rec.play("red", "7E", "BEDIM")  # 26
    rec.take_back("challenged off: BEDIM stands, DO... (a phony for the record)")  # -26
    rec.exchange("blue", "QV", "AEQRTUV")
    rec.pass_turn("red", note="lost turn: wrong challenge (double challenge)")
    rec.challenge_bonus("blue", 5)
    rec.time_penalty("red", 10)
    rec.end({"blue": "", "red": "DATSXK"}, "blue")  # 2+1+1+1+8+5 = 18 each way
    return rec


def test_the_end_of_game_racks_and_penalties_are_in_the_totals():
    rec = whole_game()
    assert rec.scores == {"blue": 64 + 5 + 18, "red": 40 + 26 - 26 - 10 - 18}
    assert [m.kind for m in rec.moves][-2:] == ["out", "rack"]
    assert rec.finished


def test_gcg_round_trip_gives_the_same_record():
    rec = whole_game()
    text = write_gcg(rec)
    assert "#player1 Bob Bob" in text and "#player2 Ada_Lovelace Ada Lovelace" in text
    assert ">Bob: DEJMNOT 8D JETON +40 40" in text
    assert ">Ada_Lovelace: ?DEEGIY H2 rEDYEING +64 64" in text
    assert ">Bob: BEDM -- -26 40" in text
    assert ">Ada_Lovelace: AEQRTUV -QV +0 64" in text
    assert ">Ada_Lovelace: (DATSXK) +18 87" in text and ">Bob: DATSXK (DATSXK) -18 12" in text
    back = read_gcg(text)
    assert back.to_json() == rec.to_json()
    assert write_gcg(back) == text
    assert GameRecord.from_json(json.loads(json.dumps(rec.to_json()))).to_json() == rec.to_json()


def test_gcg_command_writes_a_saved_game(capsys, tmp_path):
    saved = tmp_path / "game.json"
    saved.write_text(json.dumps({"result": {"game_record": whole_game().to_json()}}))
    assert main(["scrabble", "gcg", str(saved)]) == 0
    out = capsys.readouterr().out
    assert read_gcg(out).scores == {"blue": 87, "red": 12}
    gcg = tmp_path / "g.gcg"
    gcg.write_text(out)
    assert main(["scrabble", "gcg", str(gcg)]) == 0 and capsys.readouterr().out == out
    saved.write_text('{"result": {"loser": "red"}}')
    assert main(["scrabble", "gcg", str(saved)]) == 2
    assert "game_record" in capsys.readouterr().err


def test_gcg_of_a_tables_journal_points_to_the_record_beside_it(capsys, tmp_path):
    from tests.test_iago_cli import journal_beside_its_record

    journal, record = journal_beside_its_record(tmp_path, "scrabble", 2)
    assert main(["scrabble", "gcg", str(journal)]) == 2
    err = capsys.readouterr().err
    assert "is a table's journal" in err and f"companion scrabble gcg {record}" in err
    assert "Traceback" not in err and "Extra data" not in err


def test_an_illegal_play_in_a_record_is_refused():
    rec = GameRecord()
    with pytest.raises(RecordError, match="off-centre"):
        rec.play("blue", "1A", "CAT")
    with pytest.raises(RecordError, match="accepted"):
        rec.play("blue", "8Z", "CAT")


@given(st.text(max_size=400))
def test_the_gcg_reader_raises_only_its_error(text):
    with contextlib.suppress(RecordError):
        read_gcg(text)


@given(st.lists(st.sampled_from([
    ">A: X 8D CAT +10 10", ">B: X - +0 0", ">A: X -- -10 0", ">B: X -AB +0 0",
    ">A: (AB) +8 8", ">B: AB (AB) -4 -4", ">A: X (time) -10 -10", ">B: X (challenge) +5 5",
    "#note hello", ">A: X H7 ACT +8 8", ">C: X - +0 0", ">A: X 8D CAT +10",
]), max_size=8))  # fmt: skip
def test_the_gcg_reader_on_shuffled_lines(lines):
    text = "#player1 A Ann\n#player2 B Ben\n" + "\n".join(lines)
    try:
        rec = read_gcg(text)
    except RecordError:
        return
    assert read_gcg(write_gcg(rec)).to_json() == rec.to_json()
