"""The word judge and ``companion judge``: the DESIGN.md contract.

"`companion judge WORD...` prints `VALID` or `INVALID` for the whole play (exit 0 or 1; 2 on
error) and never says which word failed unless `--explain` is given."
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.lexicon import Lexicon, open_lexicon
from companion.lexicon.judge import JudgeInputError, Judgement, judge

WORDS = {"love", "loves", "lover", "dear", "hear", "cafe"}


@pytest.fixture(scope="session")
def default_lexicon():
    """The default list; its index is built at most once per session (shared data directory)."""
    return open_lexicon()


# --- judge() ---------------------------------------------------------------------------------


def test_a_play_of_good_words_is_valid():
    ruling = judge(["LOVE", "dear"], WORDS)
    assert ruling == Judgement(True, {"LOVE": True, "DEAR": True}, "")


def test_one_bad_word_makes_the_whole_play_invalid():
    ruling = judge(["love", "xqzt", "hear"], WORDS)
    assert ruling.valid is False
    assert ruling.words == {"LOVE": True, "XQZT": False, "HEAR": True}


def test_case_and_accents_do_not_matter():
    assert judge(["LoVeR", "Café", " dear "], WORDS).valid
    assert list(judge(["Café"], WORDS).words) == ["CAFE"]


def test_a_lexicon_names_itself_in_the_ruling():
    lex = Lexicon.from_words(WORDS, name="club-list")
    ruling = judge(["love"], lex)
    assert ruling.valid and ruling.lexicon == "club-list"


def test_a_repeated_word_is_judged_once():
    assert judge(["love", "LOVE"], WORDS).words == {"LOVE": True}


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("lo3e", "'3' is a digit"),
        ("don't", "apostrophe"),
        ("e-mail", "hyphen"),
        ("ice cream", "space"),
        ("ωmega", "not a letter"),
    ],
)
def test_bad_input_raises_naming_the_word(word, reason):
    with pytest.raises(JudgeInputError, match=reason) as info:
        judge(["love", word], WORDS)
    assert repr(word) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_every_bad_word_is_named_at_once():
    with pytest.raises(JudgeInputError) as info:
        judge(["b4", "love", "x-ray"], WORDS)
    assert "'b4'" in str(info.value) and "'x-ray'" in str(info.value)


def test_an_empty_play_is_bad_input():
    with pytest.raises(JudgeInputError, match="no words"):
        judge([], WORDS)


@given(st.lists(st.text(alphabet="abcdehlorsvx", min_size=1, max_size=6), min_size=1, max_size=5))
def test_a_play_is_valid_exactly_when_every_word_is_in_the_lexicon(play):
    ruling = judge(play, WORDS)
    assert ruling.valid == all(w in WORDS for w in play)
    assert judge([w.upper() for w in play], WORDS) == ruling


# --- companion judge --------------------------------------------------------------------------


def run(capsys, *argv):
    code = main(["judge", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_valid_play_exits_0(default_lexicon, capsys):
    assert run(capsys, "love", "LOVES", "Dear") == (0, "VALID\n", "")


def test_cli_invalid_play_exits_1_and_does_not_say_which_word(default_lexicon, capsys):
    code, out, err = run(capsys, "love", "xqzt", "dear")
    assert (code, out) == (1, "INVALID\n")
    assert "XQZT" not in out.upper() + err.upper()


@pytest.mark.parametrize("abbreviation", ["kb", "KB", "mb", "lm", "ln", "lx", "mf"])
def test_cli_units_scowl_files_as_words_are_invalid(default_lexicon, capsys, abbreviation):
    # Iago: "Not acceptable are ... abbreviations" (kilobyte, megabyte, lumen, log, lux, ...)
    assert run(capsys, abbreviation) == (1, "INVALID\n", "")


def test_cli_explain_gives_each_word_for_the_arbiter(default_lexicon, capsys):
    code, out, _ = run(capsys, "love", "xqzt", "--explain")
    lines = out.splitlines()
    assert code == 1 and lines[0] == "INVALID"
    assert "LOVE\tvalid" in lines and "XQZT\tinvalid" in lines
    assert f"lexicon\t{default_lexicon.name}" in lines


def test_cli_explain_finds_a_word_spelt_with_an_accent_in_scowl(default_lexicon, capsys):
    """SCOWL spells CAFE café and the lexicon folds the accent: explain says where it is found."""
    code, out, _ = run(capsys, "café", "--explain")
    assert code == 0 and "CAFE\tvalid" in out
    found = [line for line in out.splitlines() if line.strip().startswith("found in:")]
    assert found and "english-words" in found[0]


def test_cli_json_keeps_the_failed_word_for_explain(default_lexicon, capsys):
    import json

    code, out, _ = run(capsys, "love", "xqzt", "--json")
    assert code == 1
    assert json.loads(out) == {"verdict": "INVALID", "valid": False, "lexicon": "scowl-70-both"}
    code, out, _ = run(capsys, "love", "xqzt", "--json", "--explain")
    assert json.loads(out)["words"] == {"LOVE": True, "XQZT": False}


@pytest.mark.parametrize("bad", ["", "l0ve", "love!", "two words"])
def test_cli_bad_input_exits_2_with_a_message(default_lexicon, capsys, bad):
    code, out, err = run(capsys, "love", bad)
    assert code == 2 and out == ""
    assert repr(bad) in err and "letters A-Z" in err


def test_cli_needs_at_least_one_word(capsys):
    with pytest.raises(SystemExit) as info:
        main(["judge"])
    assert info.value.code == 2


def test_cli_lexicon_is_chosen_per_call(tmp_path, capsys):
    listing = tmp_path / "club.txt"
    listing.write_text("QI\nZA\n")
    assert main(["lexicon", "import", str(listing), "--name", "club-for-judge"]) == 0
    capsys.readouterr()
    assert run(capsys, "qi", "za", "--lexicon", "club-for-judge") == (0, "VALID\n", "")
    assert run(capsys, "love", "--lexicon", "club-for-judge")[:2] == (1, "INVALID\n")


def test_cli_unknown_lexicon_exits_2(capsys):
    code, out, err = run(capsys, "love", "--lexicon", "no-such-list")
    assert code == 2 and out == "" and "no-such-list" in err
