"""Least privilege: a name read from a record, table.toml or an argument never reaches a file
outside the data directory.

Each test puts a trap where ``../../x`` would lead from the lexicons folder (a word list
``x.words.txt`` beside the data directory: the old code would have built an index of it there,
writing ``x.json``, ``x.lock`` and ``x.*.marisa`` outside the data directory), gives the hostile
name through one of the ways a lexicon name is read, and checks that the command refuses it
(exit 2, naming the name and what is accepted) and that nothing outside the data and
configuration directories changed.
"""

from __future__ import annotations

import json

import pytest

from companion.cli import main
from companion.names import UnsafeNameError, check_name, is_safe_name, path_in

HOSTILE = ["../../x", "../x", "/etc/x", "a/b", "..", ".", "", "x\x00", "-x", "_x", "a b", "é"]


@pytest.mark.parametrize("name", HOSTILE + ["x" * 65, "a\\b", "x\n"])
def test_a_hostile_name_is_refused(name):
    assert not is_safe_name(name)
    with pytest.raises(UnsafeNameError, match="accepted: 1 to 64 characters"):
        check_name(name, "lexicon name")


@pytest.mark.parametrize("name", ["scowl-70-both", "tournament_2026", "A", "x" * 64, "7"])
def test_a_plain_name_is_taken(name):
    assert check_name(name) == name


def test_a_name_that_is_not_text_is_refused():
    with pytest.raises(UnsafeNameError, match="is not text"):
        check_name(["x"], "lexicon name")


def test_path_in_stays_in_its_folder(tmp_path):
    assert path_in(tmp_path, "list", ".json") == tmp_path / "list.json"
    with pytest.raises(UnsafeNameError, match="could leave its folder"):
        path_in(tmp_path, "../list", ".json")


@pytest.fixture
def trap(tmp_path, monkeypatch):
    """A data and a configuration directory inside ``tmp_path/box``, and the trap: the word list
    ``../../x`` names from the lexicons folder. Returns a function giving every file outside the
    two directories with its contents."""
    box = tmp_path / "box"
    data, config = box / "data", box / "config"
    data.mkdir(parents=True)
    config.mkdir()
    monkeypatch.setenv("COMPANION_DATA_DIR", str(data))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(config))
    (box / "x.words.txt").write_text("cat\ndog\n")
    (tmp_path / "x.words.txt").write_text("cat\ndog\n")

    def outside() -> dict:
        return {
            str(p): p.read_bytes()
            for p in tmp_path.rglob("*")
            if p.is_file() and data not in p.parents and config not in p.parents
        }

    outside.box = box  # type: ignore[attr-defined]
    return outside


def _refused(argv, capsys, *needles):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


ACCEPTED = "1 to 64 characters a-z, A-Z, 0-9, '_' or '-'"


@pytest.mark.parametrize(
    "argv",
    [
        ["judge", "--lexicon", "../../x", "CAT"],
        ["lexicon", "build", "../../x"],
        ["lexicon", "info", "../../x"],
        ["lexicon", "remove", "../../x"],
        ["iago", "check", "--lexicon", "../../x", "--mover", "blue"]
        + ["11/11/11/11/11/11/11/11/11/11/11", "11/11/11/11/11/4CAT4/11/11/11/11/11"],
        ["wordinoes", "match", "--lexicon", "../../x", "SUN", "FLOWER"],
    ],
    ids=["judge", "build", "info", "remove", "iago check", "wordinoes match"],
)
def test_a_hostile_lexicon_argument_is_refused_and_writes_nothing(argv, trap, capsys):
    before = trap()
    _refused(argv, capsys, "'../../x'", ACCEPTED)
    assert trap() == before


def test_a_hostile_import_name_is_refused(trap, capsys, tmp_path):
    words = tmp_path / "list.txt"
    words.write_text("cat\n")
    before = trap()
    _refused(["lexicon", "import", str(words), "--name", "../../x"], capsys, "'../../x'")
    assert trap() == before


def test_a_hostile_lexicon_in_table_toml_is_refused(trap, capsys):
    (trap.box / "config" / "table.toml").write_text('[table]\nlexicon = "../../x"\n')
    before = trap()
    _refused(["table", "show"], capsys, "[table] lexicon = '../../x'", ACCEPTED)
    _refused(["judge", "CAT"], capsys, "lexicon = '../../x'")  # the table's lexicon
    _refused(["lexicon", "info"], capsys, "'../../x'")
    assert trap() == before


def test_table_setup_refuses_a_hostile_lexicon(trap, capsys):
    before = trap()
    _refused(["table", "setup", "--lexicon", "../../x"], capsys, "'../../x'", ACCEPTED)
    assert not (trap.box / "config" / "table.toml").exists()
    assert trap() == before


def _record(lexicon: str) -> dict:
    return {
        "game": "iago",
        "lexicon": lexicon,
        "events": [
            {"t": 0, "press": "red"},
            {"t": 10, "board": "11/11/11/11/11/4CAT4/11/11/11/11/11"},
            {"t": 11, "press": "blue"},
        ],
    }


def test_replaying_a_record_with_a_hostile_lexicon_writes_nothing(trap, capsys, tmp_path):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(_record("../../x")))
    before = trap()
    _refused(["iago", "replay", str(path)], capsys, "\"lexicon\" is '../../x'", ACCEPTED)
    assert trap() == before


def test_a_table_record_never_takes_a_hostile_judge_name_as_its_lexicon():
    from companion.daemon.table_record import from_table

    settings = {"blue": "Ada", "red": "Bob", "minutes": 2}
    journal = [
        {"kind": "_game", "mode": "iago", "settings": settings, "t": 0},
        {"kind": "press", "role": "red", "t": 0},
        {"kind": "press", "role": "blue", "t": 20},
        {"kind": "challenge_button", "t": 25},
        {"kind": "press", "role": "red", "t": 26},
        {"kind": "words", "words": ["CAT"], "t": 30, "valid": True, "per_word": {"CAT": True},
         "lexicon": "../../x"},
    ]  # fmt: skip
    game = from_table({"settings": settings, "record": journal})
    assert game.record.lexicon is None


def test_a_journal_header_with_a_hostile_lexicon_is_refused():
    from companion.daemon.config import TableConfigError, validate

    with pytest.raises(TableConfigError, match=r"\[table\] lexicon = '\.\./\.\./x'"):
        validate({"lexicon": "../../x"}, "journal", check_names=False)


@pytest.mark.parametrize("name", ["../../x", "a/b", ".."])
def test_other_names_that_become_paths(name):
    from companion.daemon.sim import sim_journal
    from companion.lexicon.store import LexiconNotFound, canonical_name
    from companion.vision.calibrate import calibration_path

    with pytest.raises(UnsafeNameError):
        sim_journal(False, name)
    with pytest.raises(UnsafeNameError):
        calibration_path(name)
    with pytest.raises(LexiconNotFound, match=ACCEPTED):
        canonical_name(name)
