"""``companion iago check|board|replay`` against the DESIGN.md contract (JSON on standard output;
exit 0 legal, 1 illegal, 2 bad input)."""

import json
import subprocess
import sys

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


def test_check_with_the_real_lexicon_and_morphology():
    pytest.importorskip("companion.lexicon.morphology")
    love = "11/11/11/11/11/3love4/11/11/11/11/11"
    loves_turned = "11/11/11/11/11/3LOVES3/11/11/11/11/11"
    lover_turned = "11/11/11/11/11/3LOVER3/11/11/11/11/11"
    lovex = "11/11/11/11/11/3LOVEX3/11/11/11/11/11"
    script = (
        "import json, sys\n"
        "from companion.cli import main\n"
        "for after in sys.argv[2:]:\n"
        "    main(['iago', 'check', sys.argv[1], after, '--mover', 'blue'])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, love, loves_turned, lover_turned, lovex],
        capture_output=True,
        text=True,
        timeout=60,
    )
    rulings = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [[v["code"] for v in r["violations"]] for r in rulings] == [
        ["no-meaning-change"],  # LOVE -> LOVES turned: not a steal
        [],  # LOVE -> LOVER: a steal
        ["invalid-word"],
    ]
