"""``companion iago check|board|replay`` against the DESIGN.md contract (JSON on standard output;
exit 0 legal, 1 illegal, 2 bad input)."""

import json

import pytest

from companion.cli import main

EMPTY = "11/11/11/11/11/11/11/11/11/11/11"
POT = "11/11/11/11/11/4POT4/11/11/11/11/11"
SPOT = "11/11/11/11/11/3spot4/11/11/11/11/11"


def run(capsys, *argv):
    code = main(["iago", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_check_a_legal_steal(capsys):
    code, out, _ = run(capsys, "check", EMPTY, POT, SPOT, "--mover", "red", "--no-lexicon")
    assert code == 0
    ruling = json.loads(out)
    assert ruling["legal"] is True and ruling["violations"] == []
    assert ruling["counts"] == {"blue": 0, "red": 4}
    assert ruling["words_formed"] == ["SPOT"]
    assert ruling["steals"][0]["from"] == "POT" and ruling["steals"][0]["to"] == "SPOT"


def test_check_an_illegal_move_exits_1_with_its_codes(capsys):
    off = "3POT5/11/11/11/11/11/11/11/11/11/11"
    code, out, _ = run(capsys, "check", EMPTY, off, "--mover", "blue", "--no-lexicon")
    assert code == 1
    assert [v["code"] for v in json.loads(out)["violations"]] == ["off-centre"]


def test_check_a_stolen_word_turned_in_part_exits_1(capsys):
    love = "11/11/11/11/11/4LOVE3/11/11/11/11/11"
    part = "11/11/11/11/11/4lOVer2/11/11/11/11/11"  # r added, L and E turned, O and V not
    code, out, _ = run(capsys, "check", love, part, "--mover", "red", "--no-lexicon")
    assert code == 1
    (v,) = json.loads(out)["violations"]
    assert v["code"] == "illegal-change" and v["unturned_cells"] == [[6, 6], [6, 7]]


def test_check_a_row_mixing_numbers_and_dots_exits_2(capsys):
    code, _, err = run(capsys, "check", "11/11/11/11/11/4P.T4/11/11/11/11/11", "--no-lexicon")
    assert code == 2 and "row 6, column 6" in err


def test_check_one_board_is_a_move_from_the_empty_board_and_the_mover_is_inferred(capsys):
    code, out, _ = run(capsys, "check", POT, "--no-lexicon")
    assert code == 0 and json.loads(out)["mover"] == "blue"


def test_check_bad_board_exits_2_naming_board_row_and_column(capsys):
    bad = "11/11/11/11/11/4P?T4/11/11/11/11/11"
    code, out, err = run(capsys, "check", EMPTY, bad, "--mover", "blue", "--no-lexicon")
    assert code == 2 and out == ""
    assert "board 2" in err and "row 6, column 6" in err


def test_check_reads_a_board_file_in_lines(capsys, tmp_path):
    lines = ["..........."] * 11
    lines[5] = "....POT...."
    path = tmp_path / "pot.txt"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "check", EMPTY, f"@{path}", "--mover", "blue", "--no-lexicon")
    assert code == 0 and json.loads(out)["board"] == POT


def test_board_command(capsys):
    code, out, _ = run(capsys, "board", POT)
    info = json.loads(out)
    assert code == 0 and info["counts"] == {"blue": 3, "red": 0} and info["leader"] == "blue"
    assert info["words"][0]["word"] == "POT" and info["centre_covered"] and info["connected"]


def test_replay_command(capsys, tmp_path):
    record = {
        "players": {"blue": "Ann", "red": "Bob"},
        "events": [
            {"t": 0, "press": "red"},
            {"t": 10, "board": POT},
            {"t": 11, "press": "blue"},
            {"t": 20, "board": SPOT},
            {"t": 21, "press": "red"},
        ],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path), "--json", "--no-lexicon")
    game = json.loads(out)
    assert code == 0
    assert [m["ruling"]["legal"] for m in game["moves"]] == [True, True]
    assert game["counts"] == {"blue": 0, "red": 4} and game["loser"] is None
    code, out, _ = run(capsys, "replay", str(path), "--no-lexicon")
    assert "Final counts: blue 0, red 4" in out


def test_check_with_the_real_lexicon_and_morphology(capsys):
    # in-process: the morphology (lemminflect, WordNet) is loaded once per test session
    pytest.importorskip("companion.lexicon.morphology")
    love = "11/11/11/11/11/3love4/11/11/11/11/11"
    expected = {
        "11/11/11/11/11/3LOVES3/11/11/11/11/11": ["no-meaning-change"],  # not a steal
        "11/11/11/11/11/3LOVER3/11/11/11/11/11": [],  # a steal
        "11/11/11/11/11/3LOVEX3/11/11/11/11/11": ["invalid-word"],
    }
    for after, codes in expected.items():
        code, out, _ = run(capsys, "check", love, after, "--mover", "blue")
        assert [v["code"] for v in json.loads(out)["violations"]] == codes
        assert code == (1 if codes else 0)


def journal_beside_its_record(folder, mode: str, number: int):
    """(journal, record): a finished game's journal of table ``number`` in ``folder`` (a header
    and one press), and the record saved beside it, as the table names them."""
    header = {"kind": "_game", "mode": mode, "settings": {"number": number}, "seq": 0}
    lines = [header, {"t": 0.0, "kind": "press", "role": "red", "seq": 1}]
    journal = folder / f"20260101-101010-table{number}.journal.jsonl"
    journal.write_text("".join(json.dumps(r) + "\n" for r in lines))
    record = folder / f"20260101-101010-table{number}.json"
    record.write_text("{}")
    return journal, record


def test_replay_of_a_journal_points_to_the_record_beside_it(tmp_path, capsys):
    journal, record = journal_beside_its_record(tmp_path, "iago", 4)
    assert main(["iago", "replay", str(journal)]) == 2
    err = capsys.readouterr().err
    assert "is a table's journal" in err and f"companion iago replay {record}" in err
    assert "Traceback" not in err
    # the journal of a game in progress has no record yet: said so
    live = tmp_path / "journal.jsonl"
    live.write_text(journal.read_text())
    assert main(["iago", "replay", str(live)]) == 2
    assert "records/" in capsys.readouterr().err
