"""``companion iota score`` and ``companion iota hint``: the contract of DESIGN.md (JSON on standard
output; exit 0 legal, 1 illegal, 2 bad input)."""

import io
import json
import subprocess
import sys

import pytest

from companion.cli import main

from .test_iota import TURN2, TURN3, TURN4


def cli(capsys, *argv):
    code = main(["iota", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_score_prints_the_contract_for_the_third_worked_turn(capsys):
    code, out, _ = cli(capsys, "score", TURN2, TURN3)
    assert code == 0
    assert out["legal"] is True and out["score"] == 34 and out["violations"] == []
    assert sorted(line["sum"] for line in out["lines"]) == [4, 5, 8]
    lot = next(line for line in out["lines"] if line["lot"])
    assert lot["cards"] == ["RT2", "GC2", "BX2", "YS2"] and lot["direction"] == "row"
    assert lot["cells"][0] == {"row": 2, "column": 0}
    assert out["lots"] == 1 and out["doublings"] == ["lot"] and out["multiplier"] == 2
    assert {p["card"] for p in out["played"]} == {"YS2", "RT3"}


def test_score_doubles_the_last_card(capsys):
    code, out, _ = cli(capsys, "score", TURN3, TURN4, "--last-card")
    assert code == 0 and out["score"] == 416
    assert out["doublings"] == ["lot", "lot", "all-four-cards", "last-card"]


def test_an_illegal_play_exits_1_with_coded_violations(capsys):
    code, out, _ = cli(capsys, "score", "RT1 . .", "RT1 . GT1")
    assert code == 1 and out["legal"] is False and out["score"] == 0
    assert [v["code"] for v in out["violations"]] == ["not-connected"]
    assert out["violations"][0]["message"]


def test_bad_notation_exits_2_naming_row_and_column(capsys):
    code, out, err = cli(capsys, "score", "RT1 .", "RT1 ./. GZ2")
    assert code == 2 and out is None
    assert "AFTER" in err and "row 1" in err and "column 1" in err and "GZ2" in err


def test_a_before_no_game_can_reach_exits_2(capsys):
    code, _, err = cli(capsys, "score", "RT1 GT1 GT2 .", "RT1 GT1 GT2 BS3")
    assert code == 2 and "BEFORE" in err


def test_grids_may_come_from_a_file_or_standard_input(capsys, tmp_path, monkeypatch):
    before = tmp_path / "before.txt"
    before.write_text(TURN2.replace("/", "\n") + "\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO(TURN3))
    code, out, _ = cli(capsys, "score", str(before), "-")
    assert code == 0 and out["score"] == 34


def test_grids_of_different_sizes_share_the_top_left_corner(capsys):
    code, out, _ = cli(capsys, "score", "RT1", "RT1 GT2")
    assert code == 0 and out["score"] == 3 and out["before"] == "RT1 ."


def test_hint_lists_the_best_play_first(capsys):
    code, out, _ = cli(capsys, "hint", TURN3, "YX4 GX1 RX2 BX3", "--limit", "3")
    assert code == 0 and out["count"] > 3 and len(out["plays"]) == 3
    best = out["plays"][0]
    assert best["score"] == 208  # the fourth worked turn is the best this hand can do
    scores = [p["score"] for p in out["plays"]]
    assert scores == sorted(scores, reverse=True)
    # the hinted table, in the same frame as TURN3 (its top row was empty), is legal by `score`
    assert best["after_top_left"] == {"row": 0, "column": 0}
    code, ruled, _ = cli(capsys, "score", TURN3, best["after"])
    assert code == 0 and ruled["score"] == 208


def test_hint_rejects_a_bad_hand(capsys):
    code, _, err = cli(capsys, "hint", "RT1", "RT1 GT9")
    assert code == 2 and "GT9" in err


def test_the_command_line_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "iota", "score", "RT1 .", "RT1 GT1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["score"] == 2


def test_score_says_what_a_wild_card_stands_for_and_why(capsys):
    # RT1 * RT3: a red triangle 2 or 4 (numbers all different); RT2 is on the table already
    code, out, _ = cli(capsys, "score", "RT1 . RT3/. . RT2", "RT1 * RT3/. . RT2")
    assert code == 0 and out["score"] == 1 + 0 + 3
    assert out["wild_cards"] == [{"row": 0, "column": 1, "stands_for": ["RT4"], "decided": True}]
    assert "RT4" in out["notes"][0] and "RT2" in out["notes"][0]


def test_a_before_in_its_own_smaller_frame_is_found_in_after(capsys):
    # turn 2 written with BEFORE in its own one-row frame: RX1 above BX2, GX3 below it (6)
    code, out, _ = cli(capsys, "score", "RT2 GC2 BX2", ". . RX1/RT2 GC2 BX2/. . GX3")
    assert code == 0 and out["score"] == 6
    assert "1 row down" in out["notes"][0] and out["before"] == ". . ./RT2 GC2 BX2/. . ."
    # no place holds BEFORE's cards: the top-left reading stands, and a card was taken off
    code, out, _ = cli(capsys, "score", "RT2 YS4", ". ./RT2 GC2")
    assert code == 1 and "card-removed" in [v["code"] for v in out["violations"]]


def test_hint_refuses_a_card_of_the_hand_that_is_on_the_table(capsys):
    code, out, err = cli(capsys, "hint", "RT1 GT1", "BT1 RT1")
    assert code == 2 and out is None
    assert "RT1 is already on the table (row 0, column 0)" in err and "each card once" in err
    assert "BT1 is" not in err


def test_hint_refuses_more_wild_cards_than_the_deck_holds(capsys):
    code, _, err = cli(capsys, "hint", "RT1 * *", "*")
    assert code == 2 and "3 wild cards" in err and "holds 2" in err


@pytest.mark.parametrize("grid", ["", ".", ". ./. ."])
def test_hint_on_a_table_without_the_starting_card_says_so(capsys, grid):
    code, out, err = cli(capsys, "hint", grid, "GT2 BT3")
    assert code == 2 and out is None
    assert "GRID holds no card" in err and "starting card" in err


@pytest.mark.parametrize("arg", ["nofile.txt", "games/turn3.grid", "x.md"])
def test_a_missing_file_is_named_as_such(capsys, tmp_path, monkeypatch, arg):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, "score", arg, "RT1")
    assert code == 2
    assert f"BEFORE {arg!r}: no such file, and not an Iota grid" in err
    assert "is not a card" not in err


@pytest.mark.parametrize("arg", ["RT1.GT2", "RT1/GT2/GX", "rt1 . gt2.x"])
def test_notation_errors_are_not_taken_for_file_names(capsys, arg):
    code, _, err = cli(capsys, "score", arg, "RT1")
    assert code == 2 and "no such file" not in err and "is not a card" in err


def test_a_hint_is_typed_at_the_table_as_it_is_printed(capsys):
    # one way of counting cells (issue 16): with the starting card written at GRID's row 0,
    # column 0, a hint's entry is what a player types at the table, and scores the same there
    from companion.games.iota.cards import parse_card
    from companion.games.iota.scorekeeper import Scorekeeper

    code, out, _ = cli(capsys, "hint", "RT1", "GT2 BT3 YT4 RS2", "--limit", "1")
    best = out["plays"][0]
    cells = [(c["row"], c["column"]) for c in best["cards"]]
    typed = {f"{c['card']}@{c['row']},{c['column']}" for c in best["cards"]}
    assert set(best["entry"].split()) == typed
    assert all(cell != (0, 0) for cell in cells)  # the starting card's cell is taken
    keeper = Scorekeeper(["Ada", "Bob"], parse_card("RT1"))
    assert keeper.play(best["entry"]).score == best["score"]
