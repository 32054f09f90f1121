"""The lexicon: SCOWL lists folded and filtered, compiled once, rebuilt only when their source
changes, opened by name or from the table's configuration.

Expected words come from reading SCOWL's files by hand (grep in /usr/share/dict/scowl) and from
Iago's rulebook: "Not acceptable are proper nouns, foreign words, abbreviations and words requiring
hyphens or apostrophes."
"""

import json
import os
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.lexicon import (
    DEFAULT_NAME,
    Lexicon,
    LexiconError,
    LexiconNotFound,
    open_lexicon,
    scowl,
    store,
)
from companion.lexicon.words import fold, is_plain_word


@pytest.fixture(scope="session")
def default_lexicon():
    """The default list (scowl-70-both), built once for the whole session."""
    return open_lexicon()


# --- folding and the word rule --------------------------------------------------------------


def test_fold_strips_accents_as_word_games_do():
    assert fold("café") == "cafe"
    assert fold("naïve") == "naive"
    assert fold("Señor") == "Senor"
    assert fold("smørrebrød") == "smorrebrod"
    assert fold("Æsop") == "AEsop"


@given(st.text())
def test_fold_is_idempotent_and_keeps_ascii(text):
    assert fold(fold(text)) == fold(text)
    if text.isascii():
        assert fold(text) == text


@pytest.mark.parametrize("entry", ["a", "qi", "love", "zyzzyva"])
def test_plain_lower_case_words_are_words(entry):
    assert is_plain_word(entry)


@pytest.mark.parametrize(
    "entry",
    ["OK", "pH", "dB", "London", "don't", "cat's", "e-mail", "ice cream", "r2d2", "", "café"],
)
def test_capitals_apostrophes_hyphens_spaces_digits_and_accents_are_not(entry):
    assert not is_plain_word(entry)


# --- choosing SCOWL files --------------------------------------------------------------------


def test_names_parse_to_size_spelling_and_variants():
    # the default reads SCOWL's variant_1 and variant_2 files (APICES, HERNIAE, COMBATTING)
    assert scowl.parse_name("scowl-80") == scowl.ScowlParams(80, "both", 2)
    assert scowl.parse_name("scowl-70-british") == scowl.ScowlParams(70, "british", 2)
    assert scowl.parse_name("SCOWL-95-american-v1") == scowl.ScowlParams(95, "american", 1)
    assert scowl.ScowlParams(95, "american", 1).name == "scowl-95-american-v1"
    assert scowl.ScowlParams(70, "both", 2).name == "scowl-70-both"
    for bad in ("scowl-10", "scowl-65", "scowl-70-french", "scowl-70-both-v3", "tour", "scowl"):
        assert scowl.parse_name(bad) is None, bad


@pytest.fixture
def fake_scowl(tmp_path, monkeypatch):
    """A small SCOWL tree and empty data directory of the test's own."""
    root = tmp_path / "scowl"
    root.mkdir()
    files = {
        "english-words.10": "dog\nOK\ncat's\ncafé\n",
        "english-words.35": "zebra\n",
        "english-words.80": "quokka\n",
        "american-words.10": "color\n",
        "british-words.10": "colour\nrealise\n",
        "british_z-words.10": "realize\n",
        "variant_1-words.10": "ameba\n",
        "english-abbreviations.10": "etc\n",
        "english-proper-names.10": "london\n",
        "english-upper.10": "Monday\n",
    }
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    # upstream SCOWL is ISO-8859-1: this file is not valid UTF-8
    (root / "english-words.20").write_bytes("fiancé\nnaïve\n".encode("iso-8859-1"))
    monkeypatch.setattr(scowl, "SCOWL_DIR", root)
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    return root


def test_size_includes_every_smaller_size_and_only_words_files(fake_scowl):
    names = [p.name for p in scowl.ScowlParams(35, "american", 0).files()]
    assert names == [
        "english-words.10",
        "english-words.20",
        "english-words.35",
        "american-words.10",
    ]


def test_british_reads_british_and_oxford_ize_spellings(fake_scowl):
    names = {p.name for p in scowl.ScowlParams(35, "british", 1).files()}
    assert {"british-words.10", "british_z-words.10"} <= names
    assert "american-words.10" not in names and "variant_1-words.10" not in names


def test_built_list_keeps_folded_plain_words_only(fake_scowl):
    lex = open_lexicon("scowl-35-both")
    # english 10, 20 (ISO-8859-1, folded), 35; american, british, british_z, variant_1 at 10
    expected = {"dog", "cafe", "fiance", "naive", "zebra", "color", "colour", "realise", "realize"}
    assert set(w.lower() for w in lex) == expected | {"ameba"}
    assert len(lex) == 10
    for left_out in ("ok", "cats", "cat", "etc", "london", "monday", "quokka"):
        assert left_out not in lex
    assert "CAFÉ" in lex and "Café" in lex and "CAFE" in lex
    assert lex.meta["entries"] == {"read": 12, "kept": 10, "upper case": 1, "apostrophe": 1}


def test_american_and_british_spellings(fake_scowl):
    american, british = open_lexicon("scowl-35-american"), open_lexicon("scowl-35-british")
    assert "color" in american and "colour" not in american and "ameba" in american
    assert "colour" in british and "color" not in british and "ameba" not in british
    assert "realise" in british and "realize" in british and "realise" not in american


def test_short_entries_accepted_and_left_out(fake_scowl):
    (fake_scowl / "english-words.35").write_text("zebra\nqi\nx\npH\n")
    (fake_scowl / "english-abbreviations.10").write_text("aa\netc\nqi\n")
    (fake_scowl / "english-upper.10").write_text("A\nA's\nMonday\n")
    short = scowl.short_entries(scowl.ScowlParams(35, "both", 1))
    assert short["accepted"] == ["QI", "X"]
    assert short["left_out"]["words"] == ["OK", "pH"]
    assert short["left_out"]["abbreviations"] == ["aa", "qi"]
    assert short["left_out"]["upper"] == ["A", "A's"]
    # QI is a word despite its abbreviation; AA, A, OK and PH are not
    assert short["rejected"] == ["A", "AA", "OK", "PH"]


@pytest.mark.parametrize(
    "entry",
    ["kb", "mb", "lm", "ln", "lx", "mf", "csc", "hhd", "dkl", "bbls", "sqrt", "www", "xxv"],
)
def test_a_word_without_a_vowel_is_an_abbreviation(entry):
    assert scowl.is_vowelless_abbreviation(entry)
    assert scowl.reason_left_out(entry) == "no vowel"


@pytest.mark.parametrize(
    "entry",
    [
        # interjections and their verb forms
        "hmm", "shh", "sh", "brr", "tsk", "tsks", "psst", "zzz", "pfft", "tch",
        # Welsh loanwords, an adjective, a verb
        "cwm", "cwms", "crwth", "nth", "pwn",
        # a letter's plural (SCOWL: cs at size 10)
        "cs", "ms", "ps", "ss",
        # y is a vowel; one letter is the letter's name
        "by", "my", "gym", "tryst", "nymphs", "b", "x",
    ],
)  # fmt: skip
def test_interjections_letter_plurals_and_y_words_are_kept(entry):
    assert not scowl.is_vowelless_abbreviation(entry)
    assert scowl.reason_left_out(entry) is None


def test_vowelless_entries_of_words_files_are_left_out(fake_scowl):
    (fake_scowl / "english-words.35").write_text("zebra\nkb\nlx\nhmm\ncwm\nts\n")
    lex = open_lexicon("scowl-35-both")
    assert "kb" not in lex and "LX" not in lex
    assert "hmm" in lex and "cwm" in lex and "ts" in lex and "zebra" in lex
    assert lex.meta["entries"]["no vowel"] == 2
    assert lex.meta["params"]["rule"] == scowl.BUILD_RULE
    short = scowl.short_entries(scowl.ScowlParams(35, "both", 1))
    assert "KB" in short["rejected"] and "LX" in short["rejected"]
    assert "kb" in short["left_out"]["words"] and "TS" in short["accepted"]


def test_an_index_built_under_an_older_rule_is_rebuilt(fake_scowl, monkeypatch, build_count):
    (fake_scowl / "english-words.35").write_text("zebra\nkb\n")
    with monkeypatch.context() as m:  # the rule before vowelless abbreviations were left out
        m.setattr(scowl, "BUILD_RULE", 1)
        m.setattr(scowl, "is_vowelless_abbreviation", lambda entry: False)
        assert "kb" in open_lexicon("scowl-35-both")
    lex = open_lexicon("scowl-35-both")
    assert "kb" not in lex and "zebra" in lex
    assert build_count == ["scowl-35-both", "scowl-35-both"]
    open_lexicon("scowl-35-both")
    assert len(build_count) == 2


def test_missing_scowl_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(scowl, "SCOWL_DIR", tmp_path / "nowhere")
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    with pytest.raises(LexiconError, match="scowl"):
        open_lexicon("scowl-35-both")


# --- rebuilt only when the source changes ----------------------------------------------------


@pytest.fixture
def build_count(monkeypatch):
    calls = []
    real = store._compile

    def counting(source, *args, **kwargs):
        calls.append(source.name)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(store, "_compile", counting)
    return calls


def test_index_is_built_once_and_reopened(fake_scowl, build_count):
    first = open_lexicon("scowl-35-both")
    again = open_lexicon("scowl-35-both")
    assert build_count == ["scowl-35-both"]
    assert again.path == first.path and len(again) == len(first)


def test_touched_source_with_same_content_is_not_rebuilt(fake_scowl, build_count):
    open_lexicon("scowl-35-both")
    target = fake_scowl / "english-words.35"
    st_ = target.stat()
    os.utime(target, ns=(st_.st_atime_ns, st_.st_mtime_ns + 10**9))
    open_lexicon("scowl-35-both")
    open_lexicon("scowl-35-both")
    assert build_count == ["scowl-35-both"]


def test_changed_source_is_rebuilt(fake_scowl, build_count):
    assert "yak" not in open_lexicon("scowl-35-both")
    (fake_scowl / "english-words.35").write_text("zebra\nyak\n")
    lex = open_lexicon("scowl-35-both")
    assert "yak" in lex
    assert build_count == ["scowl-35-both", "scowl-35-both"]


def test_a_new_file_of_a_read_category_rebuilds(fake_scowl, build_count):
    open_lexicon("scowl-35-both")
    (fake_scowl / "english-words.40").write_text("gnu\n")  # not read at size 35
    assert "gnu" not in open_lexicon("scowl-35-both")
    (fake_scowl / "american-words.20").write_text("gnu\n")  # read at size 35
    assert "gnu" in open_lexicon("scowl-35-both")
    assert build_count == ["scowl-35-both", "scowl-35-both"]


def test_other_parameters_are_another_index(fake_scowl, build_count):
    open_lexicon("scowl-35-both")
    assert "quokka" in open_lexicon("scowl-80-both")
    assert build_count == ["scowl-35-both", "scowl-80-both"]


def test_damaged_index_is_rebuilt(fake_scowl, build_count):
    lex = open_lexicon("scowl-35-both")
    lex.path.write_bytes(b"not a trie")
    assert "zebra" in open_lexicon("scowl-35-both")
    assert len(build_count) == 2


def test_an_unwritable_data_directory_is_a_clear_error(fake_scowl, monkeypatch):
    def read_only(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(store, "_write_atomic", read_only)
    with pytest.raises(LexiconError, match="cannot build its index.*Permission denied"):
        open_lexicon("scowl-35-both")


def test_force_rebuilds(fake_scowl, build_count):
    store.build("scowl-35-both")
    store.build("scowl-35-both", force=True)
    assert len(build_count) == 2
    assert len(list((store.lexicon_dir()).glob("scowl-35-both.*.marisa"))) == 1


# --- names and the table's choice ------------------------------------------------------------


def test_unknown_name_says_what_is_accepted():
    with pytest.raises(LexiconNotFound, match=r"scowl-SIZE.*35, 40, 50, 55, 60, 70, 80, 95"):
        open_lexicon("webster")
    with pytest.raises(ValueError):  # callers may catch the builtin
        open_lexicon("scowl-65")


def test_canonical_names():
    assert store.canonical_name("SCOWL-80") == "scowl-80-both"
    assert store.canonical_name("scowl-35-british-v0") == "scowl-35-british-v0"
    with pytest.raises(LexiconNotFound):
        store.canonical_name("scowl-99")


def test_table_toml_names_the_lexicon(fake_scowl, tmp_path, monkeypatch):
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(config))
    assert store.table_lexicon_name() == DEFAULT_NAME
    (config / "table.toml").write_text('[table]\nnumber = 4\nlexicon = "scowl-35-british"\n')
    assert open_lexicon().name == "scowl-35-british"
    (config / "table.toml").write_text('[table]\nlexicon = ""\n')
    assert store.table_lexicon_name() == DEFAULT_NAME
    (config / "table.toml").write_text("[table\nlexicon = ")
    with pytest.raises(LexiconError, match="table.toml"):
        open_lexicon()
    (config / "table.toml").write_text("[table]\nlexicon = 80\n")
    with pytest.raises(LexiconError, match="lexicon = 80"):
        open_lexicon()


def test_from_words_makes_an_in_memory_lexicon():
    lex = Lexicon.from_words(["Love", "CAFÉ"], name="mine")
    assert lex.name == "mine" and len(lex) == 2 and "cafe" in lex and "LOVE" in lex
    assert 3 not in lex and "" not in lex
    with pytest.raises(LexiconError, match="'e-mail'"):
        Lexicon.from_words(["e-mail"])


# --- the default list, from the real SCOWL -----------------------------------------------------


def test_default_lexicon_is_scowl_70_both(default_lexicon):
    assert default_lexicon.name == DEFAULT_NAME == "scowl-70-both"
    assert "love" in default_lexicon and "LOVE" in default_lexicon and "Love" in default_lexicon
    assert "xqzt" not in default_lexicon


def test_default_lexicon_holds_both_spellings_and_folded_accents(default_lexicon):
    for word in ("color", "colour", "realize", "realise", "cafe", "CAFÉ", "cliche", "fiance"):
        assert word in default_lexicon, word


@pytest.mark.parametrize(
    "word",
    [
        "london",  # english-proper-names
        "ok",  # upper case in english-words.35
        "ph",  # pH, upper case in english-words.50
        "dont",  # don't, english-contractions
        "nasa",  # NASA, english-abbreviations
        "etc",  # english-abbreviations
        "zyzzyva",  # only at size 95
        "kb",  # english-words.70, a unit: an abbreviation (KB in english-abbreviations.60)
        "lx",  # english-words.70, lux's symbol
        "csc",  # english-words.70, cosecant
    ],
)
def test_default_lexicon_leaves_out_names_abbreviations_contractions(default_lexicon, word):
    assert word not in default_lexicon


def test_default_lexicon_matches_a_plain_reading_of_its_files(default_lexicon):
    # the files SCOWL's README says make a size-70 list, read with nothing but a regex
    cats = ["english", "american", "variant_1", "variant_2", "british", "british_z"]
    cats += ["british_variant_1", "british_variant_2"]
    words = set()
    for cat in cats:
        for size in (10, 20, 35, 40, 50, 55, 60, 70):
            path = scowl.SCOWL_DIR / f"{cat}-words.{size}"
            if path.exists():
                for line in path.read_text("utf-8").splitlines():
                    plain = "".join(
                        c
                        for c in unicodedata.normalize("NFD", line)
                        if not unicodedata.combining(c)
                    )
                    if re.fullmatch("[a-z]+", plain):
                        words.add(plain)
    # less the entries of two or more letters with no vowel, read with grep -v '[aeiouy]': all
    # units and symbols (kilobyte, lumen, natural log, lux, megabyte, millifarad, cosecant,
    # hyperbolic cosecant, decalitre, hogshead); the letter plurals and the interjections stay
    no_vowel = {w for w in words if len(w) > 1 and not re.search("[aeiouy]", w)}
    units = {"kb", "lm", "ln", "lx", "mb", "mf", "csc", "csch", "dkl", "hhd"}
    assert units <= no_vowel
    assert no_vowel - units == {
        "cs", "ms", "gs", "ks", "ls", "rs", "ts", "ps", "ss", "sh", "shh", "ssh", "hmm", "brr",
        "nth", "psst", "pwn", "pwns", "cwm", "cwms", "crwth",
    }  # fmt: skip
    # less the names, abbreviations and foreign words the screen finds with WordNet and GCIDE: a
    # few dozen at this size, each with its reason (docs/lexicon.md lists them)
    from companion.lexicon.screen import screen

    screened = {w for w in words if screen().why(w)}
    assert {"hoc", "situ", "quo", "amu"} <= screened and len(screened) < 60
    # plus the words of the size-80 files and of the seldom-used variant_3 files up to 70 that
    # WordNet vouches for (the rule "second source"), and the forms GCIDE names of a word kept
    more = set()
    for path in [*scowl.SCOWL_DIR.glob("*-words.80"), *scowl.SCOWL_DIR.glob("variant_3-words.*")]:
        cat, size = path.name.split("-words.")
        if (cat in cats and size == "80") or (cat == "variant_3" and int(size) <= 70):
            for line in path.read_text("utf-8").splitlines():
                nfd = unicodedata.normalize("NFD", line)
                plain = "".join(c for c in nfd if not unicodedata.combining(c))
                if screen().vouched_for(plain):
                    more.add(plain)
    more -= words | screened
    kept = words - units - screened
    more |= {f for f, base in screen().forms.items() if base in kept | more}
    assert 9000 < len(more) < 11000
    assert {w.lower() for w in default_lexicon} == kept | more
    assert len(default_lexicon) == len(kept | more)
    # every letter is a one-letter word of SCOWL's lists (the letter's name)
    assert default_lexicon.meta["one_letter"] == 26


# --- companion lexicon build / list / info -----------------------------------------------------


def test_cli_build_builds_once_then_reports_up_to_date(fake_scowl, capsys):
    from companion.cli import main

    assert main(["lexicon", "build", "--size", "35", "--spelling", "american"]) == 0
    assert capsys.readouterr().out.startswith("scowl-35-american: built, 7 words")
    assert main(["lexicon", "build", "scowl-35-american"]) == 0
    assert capsys.readouterr().out.startswith("scowl-35-american: up to date, 7 words")
    assert main(["lexicon", "build", "--size", "65"]) == 2
    assert "35, 40, 50, 55, 60, 70, 80, 95" in capsys.readouterr().err


def test_cli_info_short_lists_one_and_two_letter_entries(fake_scowl, capsys):
    from companion.cli import main

    (fake_scowl / "english-words.35").write_text("qi\nx\n")
    assert main(["lexicon", "info", "scowl-35-both", "--short"]) == 0
    out = capsys.readouterr().out
    assert "accepted 1-letter words (1): X" in out
    assert "accepted 2-letter words (1): QI" in out
    assert "rejected 1-2 letter strings (1): OK" in out
    # the lists follow the name and counts at once, before the (long) list of source files
    lines = out.splitlines()
    assert lines[0] == "name: scowl-35-both" and lines[2].startswith("words: ")
    assert lines[5].startswith("accepted 1-letter words") and lines.index("sources:") > 8
    assert all(line.startswith("  ") for line in lines[lines.index("sources:") + 1 :])
    # the JSON is as it was: the same keys in the same order, the lists under "short"
    assert main(["lexicon", "info", "scowl-35-both", "--short", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert list(info)[:7] == [
        "name",
        "kind",
        "words",
        "one_letter_words",
        "two_letter_words",
        "params",
        "sources",
    ]
    assert info["short"]["accepted"] == ["QI", "X"] and list(info)[-1] == "short"


def test_cli_build_shows_no_progress_bar_when_not_on_a_terminal(fake_scowl, capsys):
    from companion.cli import main

    assert main(["lexicon", "build", "scowl-35-both"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("scowl-35-both: built,")
    assert "\r" not in out + err and "building" not in err


def test_cli_unknown_option_shows_the_actions_usage(capsys):
    from companion.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["lexicon", "info", "--lexicon", "x"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: companion lexicon info")
    assert "unrecognized arguments: --lexicon" in err  # x is taken as the NAME


@given(st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZé", min_size=1, max_size=9)))
def test_a_lexicon_holds_exactly_its_words_in_any_case(words):
    lex = Lexicon.from_words(words)
    expected = {fold(w).lower() for w in words}
    assert len(lex) == len(expected)
    assert {w.lower() for w in lex} == expected
    for w in words:
        assert w in lex and w.upper() in lex and w.swapcase() in lex
