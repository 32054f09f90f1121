"""Tournament lists: one word a line, any case, comments allowed; every rejected line reported with
its number and reason; never half-imported."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main
from companion.lexicon import LexiconError, LexiconNotFound, open_lexicon, store
from companion.lexicon.store import RejectedLine, import_list, parse_word_list

LISTING = """\
# Club list, 2026 edition
Zebra
café   # folded to CAFE
QI

don't
ice cream
ZEBRA
w0rd
x-ray
  yak
"""


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))


def test_parse_takes_words_and_reports_every_rejected_line():
    parsed = parse_word_list(LISTING.splitlines())
    assert parsed.words == ["zebra", "cafe", "qi", "yak"]
    assert parsed.duplicates == 1  # ZEBRA, line 8
    assert parsed.skipped == 2  # the comment line and the blank line
    assert [(r.line, r.text) for r in parsed.rejected] == [
        (6, "don't"),
        (7, "ice cream"),
        (9, "w0rd"),
        (10, "x-ray"),
    ]
    reasons = [r.reason for r in parsed.rejected]
    assert "apostrophe" in reasons[0] and "one word a line" in reasons[1]
    assert "digit" in reasons[2] and "hyphen" in reasons[3]
    assert str(parsed.rejected[2]) == "line 9: 'w0rd': '0' is a digit"


@given(st.lists(st.text(alphabet="abcxyzABCXYZ", min_size=1, max_size=8), max_size=30))
def test_any_list_of_letter_words_is_taken_whole_in_any_case(entries):
    parsed = parse_word_list(entries)
    assert parsed.rejected == [] and parsed.skipped == 0
    assert parsed.words == list(dict.fromkeys(e.lower() for e in entries))
    assert parsed.duplicates == len(entries) - len(parsed.words)


def test_import_takes_the_words_and_opens_by_name(tmp_path):
    path = tmp_path / "Club List.txt"
    path.write_text(LISTING, encoding="utf-8")
    report = import_list(path)
    assert report.name == "club-list"
    assert (report.taken, report.duplicates, len(report.rejected)) == (4, 1, 4)
    lex = open_lexicon("club-list")
    assert lex.name == "club-list" and len(lex) == 4
    assert {"ZEBRA", "CAFE", "QI", "YAK"} == set(lex)
    assert "x-ray" not in lex and "xray" not in lex and "word" not in lex


def test_iso_8859_1_and_bom_files_are_read(tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("naïve\nsoufflé\n".encode("iso-8859-1"))
    assert set(open_lexicon(import_list(latin).name)) == {"NAIVE", "SOUFFLE"}
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffaxe\n".encode())
    assert set(open_lexicon(import_list(bom).name)) == {"AXE"}


def test_strict_import_takes_nothing_if_any_line_is_rejected(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text(LISTING)
    with pytest.raises(LexiconError) as info:
        import_list(path, strict=True)
    message = str(info.value)
    assert "nothing imported" in message and "4 words would be taken" in message
    for line in (6, 7, 9, 10):
        assert f"line {line}:" in message
    with pytest.raises(LexiconNotFound):
        open_lexicon("club")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "no word to take"),
        (b"# only a comment\n\n", "no word to take"),
        (b"12\n34\n", "no word to take"),
        (b"\x00\x01binary\x00", "not a text file"),
    ],
)
def test_a_list_with_nothing_to_take_is_refused(tmp_path, content, why):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(LexiconError, match=why):
        import_list(path)
    assert not list(store.lexicon_dir().glob("bad*"))


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(LexiconError, match="nowhere.txt"):
        import_list(tmp_path / "nowhere.txt")


@pytest.mark.parametrize("name", ["scowl-70-both", "Bad Name", "", "-x", "a" * 65])
def test_bad_or_reserved_names_are_refused(tmp_path, name):
    path = tmp_path / "ok.txt"
    path.write_text("love\n")
    with pytest.raises(LexiconError, match="name"):
        import_list(path, name)


def test_an_existing_list_is_replaced_only_when_asked(tmp_path):
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("love\n")
    new.write_text("hate\n")
    import_list(old, "club")
    with pytest.raises(LexiconError, match="--replace"):
        import_list(new, "club")
    assert set(open_lexicon("club")) == {"LOVE"}
    report = import_list(new, "club", replace=True)
    assert report.replaced
    assert set(open_lexicon("club")) == {"HATE"}
    assert len(list(store.lexicon_dir().glob("club.*.marisa"))) == 1


def test_a_failed_import_leaves_the_previous_list_whole(tmp_path, monkeypatch):
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("love\n")
    new.write_text("hate\n")
    import_list(old, "club")

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch, pytest.raises(OSError):
        patch.setattr(store, "_compile", disk_full)
        import_list(new, "club", replace=True)
    assert set(open_lexicon("club")) == {"LOVE"}
    leftovers = [p.name for p in store.lexicon_dir().iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_an_imported_list_is_not_rebuilt_on_open(tmp_path, monkeypatch):
    path = tmp_path / "club.txt"
    path.write_text("love\n")
    import_list(path)
    monkeypatch.setattr(store, "_compile", None)  # any build would fail
    assert "love" in open_lexicon("club")


def test_cli_import_reports_taken_and_rejected_lines(tmp_path, capsys):
    path = tmp_path / "club.txt"
    path.write_text(LISTING)
    assert main(["lexicon", "import", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("imported club: 4 words taken, 4 lines rejected, 1 duplicates")
    assert "rejected line 9: 'w0rd': '0' is a digit" in out
    assert main(["lexicon", "import", str(path)]) == 2  # exists already
    assert main(["lexicon", "import", str(path), "--replace", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["taken"] == 4 and report["replaced"] is True
    assert report["rejected"][0] == {
        "line": 6,
        "text": "don't",
        "reason": report["rejected"][0]["reason"],
    }
    assert RejectedLine(6, "don't", "x").line == 6


def test_cli_list_and_info_show_the_imported_list(tmp_path, capsys):
    path = tmp_path / "club.txt"
    path.write_text("love\nqi\n")
    main(["lexicon", "import", str(path)])
    capsys.readouterr()
    assert main(["lexicon", "list", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["club"] == {
        "name": "club",
        "kind": "imported",
        "built": True,
        "words": 2,
        "in_use": False,
    }
    assert rows["scowl-70-both"]["in_use"] is True
    assert {"scowl-35-american", "scowl-95-british"} <= set(rows)
    assert main(["lexicon", "info", "club", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["words"] == 2 and info["two_letter_words"] == 1
    assert info["imported_from"] == str(path.resolve())


def test_cli_remove_deletes_an_imported_list_only(tmp_path, capsys):
    path = tmp_path / "club.txt"
    path.write_text("love\n")
    main(["lexicon", "import", str(path)])
    assert main(["lexicon", "remove", "club"]) == 0
    with pytest.raises(LexiconNotFound):
        open_lexicon("club")
    assert [p.name for p in store.lexicon_dir().glob("club.*")] == []  # the lock file too
    assert main(["lexicon", "remove", "club"]) == 2
    assert main(["lexicon", "remove", "scowl-70-both"]) == 2
    assert "reserved" in capsys.readouterr().err
