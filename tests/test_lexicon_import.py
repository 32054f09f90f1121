"""Tournament lists: one word a line, any case, comments allowed; every rejected line reported with
its number and reason; never half-imported."""

import codecs
import json
import random
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.lexicon import LexiconError, LexiconNotFound, open_lexicon, store
from companion.lexicon.listfile import ACCEPTED, NotText, decode_list
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
        (b"\xff\xfe\n", "not a text file: it starts with the UTF-16"),
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
    err = capsys.readouterr().err
    assert "one of the SCOWL lists" in err and "cannot be removed" in err


# what is a text file: encodings decoded, binaries refused (companion/lexicon/listfile.py)

_WORDS = st.lists(st.text(alphabet="abzAZéïñøÆ", min_size=1, max_size=8), min_size=1, max_size=20)


@settings(deadline=None)  # the first call loads unicodedata's tables
@given(
    _WORDS,
    st.sampled_from(
        [
            "utf-8",
            "utf-8-sig",
            "utf-16",
            "utf-16-le",
            "utf-16-be",
            "utf-32",
            "utf-32-le",
            "utf-32-be",
            "iso-8859-1",
        ]
    ),
)
def test_a_list_in_any_accepted_encoding_reads_as_the_same_lines(words, encoding):
    text = "\n".join(words) + "\n"
    assert decode_list(text.encode(encoding)) == words


@settings(deadline=None)  # the first call loads unicodedata's tables
@given(st.binary(max_size=300))
def test_any_bytes_are_lines_of_text_or_refused_saying_what_is_accepted(data):
    try:
        lines = decode_list(data)
    except NotText as exc:
        assert "line" in str(exc) or "bytes" in str(exc) or "byte-order mark" in str(exc)
        assert str(exc).endswith(ACCEPTED)
        return
    for line in lines:
        assert not any(unicodedata.category(c) == "Cc" and c != "\t" for c in line), line


@settings(deadline=None)  # the first call loads unicodedata's tables
@given(_WORDS, st.data())
def test_a_control_character_on_any_line_refuses_the_file_at_that_line(words, data):
    at = data.draw(st.integers(0, len(words) - 1))
    control = data.draw(st.sampled_from(["\x01", "\x08", "\x1b", "\x7f", "\x85"]))
    words = words[:at] + [words[at] + control] + words[at + 1 :]
    with pytest.raises(NotText, match=rf"line {at + 1} holds the control character"):
        decode_list(("\n".join(words) + "\n").encode())


@pytest.mark.parametrize(
    ("content", "why"),
    [
        # a UTF-16 byte-order mark on a file that is not UTF-16 (once read as the word YTH)
        (b"\xff\xfecat\ndog\n", r"UTF-16 \(little-endian\) byte-order mark.*iconv -f UTF-16"),
        (b"cat\n\xff\xfedog\n", "line 2 holds the bytes FF FE, a UTF-16 byte-order mark"),
        (b"cat\n\xfe\xffdog\n", "line 2 holds the bytes FE FF"),
        # a UTF-16 file that does not decode (a lone surrogate), or of odd length
        (b"\xff\xfe" + "cat\n".encode("utf-16-le") + b"\x00\xd8", r"UTF-16.*do not decode"),
        (codecs.BOM_UTF32_LE + b"\x00\x00\x11\x00", r"UTF-32.*iconv -f UTF-32"),
        # NULs out of any UTF-16 pattern
        (b"cat\n\x00\x00dog\n", "line 2 holds a NUL byte"),
        # Latin-1 that is not text: high bytes that are not letters
        (b"cat\n" + bytes(range(0xA0, 0xC0)) + b"\n", "not ISO-8859-1 text either"),
        # printable but mostly not letters, outside comments
        (b"!@$%^&*()_+{}|:<>?~" * 3 + b"\n", "not letters .the first at line 1.: a binary"),
        (b"cat\n\xef\xbb\xbfdog\n", "line 2 holds a byte-order mark"),
    ],
)
def test_bytes_that_are_not_a_text_file_are_refused_naming_why(content, why):
    with pytest.raises(NotText, match=why):
        decode_list(content)


def _jpeg_without_nuls() -> bytes:
    rng = random.Random(12)
    body = bytes(rng.randrange(256) for _ in range(4000))
    return (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01" + body + b"\xff\xd9").replace(b"\0", b"")


def test_a_binary_with_its_nuls_stripped_is_refused_and_nothing_imported(tmp_path, capsys):
    path = tmp_path / "photo.txt"
    path.write_bytes(_jpeg_without_nuls())
    assert main(["lexicon", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"word list {path} is not a text file: line " in err
    assert "control character" in err and "accepted: a text file of one word a line" in err
    assert "Traceback" not in err and not list(store.lexicon_dir().glob("photo*"))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32-be"])
def test_a_utf16_or_utf32_list_is_imported_as_text(tmp_path, encoding):
    path = tmp_path / "wide.txt"
    path.write_bytes("# club\ncafé\nzebra\n".encode(encoding))
    assert set(open_lexicon(import_list(path).name)) == {"CAFE", "ZEBRA"}


def test_a_macroman_list_is_refused_naming_the_line_or_read_with_its_encoding(tmp_path, capsys):
    path = tmp_path / "club.txt"
    path.write_bytes("cat\ncafé\ndog\n".encode("mac_roman"))  # é is 0x8E: Ž in Windows-1252
    assert main(["lexicon", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 2 is 'café' in MacRoman but 'cafŽ' in Windows-1252" in err
    assert "--encoding mac_roman" in err and "nothing imported" in err
    with pytest.raises(LexiconNotFound):
        open_lexicon("club")  # nothing imported: no CAFZ
    assert main(["lexicon", "import", str(path), "--encoding", "mac_roman"]) == 0
    assert set(open_lexicon("club")) == {"CAT", "CAFE", "DOG"}


def test_a_shift_jis_line_is_refused_as_shift_jis_not_as_more_than_one_word(tmp_path, capsys):
    path = tmp_path / "jp.txt"
    path.write_bytes("cat\n猫\ndog\n".encode("shift_jis"))
    assert main(["lexicon", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 2 is '猫' in Shift-JIS" in err and "--encoding cp932" in err
    assert "more than one word" not in err


def test_an_encoding_given_is_checked(tmp_path, capsys):
    path = tmp_path / "club.txt"
    path.write_bytes(b"cat\ncaf\x8e\n")
    assert main(["lexicon", "import", str(path), "--encoding", "klingon"]) == 2
    assert "encoding 'klingon' is not one Python knows" in capsys.readouterr().err
    path.write_bytes("cat\n猫\n".encode())
    assert main(["lexicon", "import", str(path), "--encoding", "ascii"]) == 2
    assert "line 2 is not ascii text (byte 0xE7" in capsys.readouterr().err


@pytest.mark.parametrize("codec", ["cp1252", "latin-1"])
def test_latin_lists_without_windows_only_bytes_are_still_read_as_they_were(codec):
    words = "abbé\nÅngström\nfiancée\nNiño\nNAÏVE\n"
    assert decode_list(words.encode(codec)) == words.splitlines()
