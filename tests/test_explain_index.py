"""``judge --explain`` from the explain index (issue 47 item 7): the same answer as read from
SCOWL's files, WordNet and GCIDE themselves, for words of every kind; and without a current
index (missing, damaged, stale) explain says so and still answers.

The index is built here for the sample's words only (``build_index(words=...)``): the same code
as the full build (every SCOWL file scanned, WordNet's candidates found with nltk's reader,
GCIDE streamed), with fewer rows written.
"""

import contextlib
import functools
import json
import sqlite3

import pytest

from companion.cli import main
from companion.lexicon import open_lexicon, scowl
from companion.lexicon.explain import explain
from companion.lexicon.explainindex import (
    ExplainIndex,
    build_index,
    index_path,
    index_problem,
    open_index,
    stamp,
    wordnet_candidates,
)

SAMPLE = [
    # plain words, and inflections WordNet reaches through morphy's rules and exception lists
    "cat", "love", "dogs", "boxes", "geese", "ran", "running", "better", "apices", "lensed",
    # added by the screen's rules (second source; GCIDE form), kept at a larger size only
    "beignet", "corraled", "quixotry",
    # accented in SCOWL (abbé, café), defined by GCIDE only (abacist)
    "abbe", "cafe", "abacist",
    # left out: no vowel, name, abbreviation, foreign; not a word at all
    "kb", "tuesday", "london", "kcal", "aeq", "hoc", "oui", "xqzt", "qqqq", "catx",
]  # fmt: skip


@pytest.fixture(scope="module")
def lexicon():
    return open_lexicon()


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    path, built = build_index(tmp_path_factory.mktemp("explain") / "x.sqlite", words=set(SAMPLE))
    assert built
    idx = ExplainIndex(path)
    yield idx
    idx.close()


@pytest.fixture(scope="module")
def from_sources(lexicon):
    """The answers read from the sources themselves, each SCOWL file read once for all words
    (the same function, its file reads kept)."""
    saved = scowl.read_text
    scowl.read_text = functools.cache(saved)
    try:
        return {w: explain(w, lexicon, index=None) for w in SAMPLE}
    finally:
        scowl.read_text = saved


@pytest.mark.parametrize("word", SAMPLE)
def test_the_index_gives_the_same_explanation_as_the_sources(lexicon, index, from_sources, word):
    slow = from_sources[word]
    fast = explain(word.upper(), lexicon, index=index)
    assert fast == slow
    assert fast.lines() == slow.lines()


def test_the_sample_covers_every_kind_of_answer(index, from_sources):
    kinds = {w: (e.valid, e.definition_source) for w, e in from_sources.items()}
    assert kinds["dogs"] == (True, "wordnet") and from_sources["dogs"].definition.startswith("DOG")
    assert kinds["abacist"][1] == "gcide" and kinds["xqzt"] == (False, None)
    assert "left out" in from_sources["kcal"].why and from_sources["tuesday"].elsewhere
    # SCOWL spells it abbé: found with accents folded, as explain's own reading finds it
    assert index.entries_in(scowl.SCOWL_DIR / "english-words.50", "abbe") == ["abbé"]
    assert "GCIDE form" in from_sources["corraled"].why


def test_an_imported_list_is_explained_from_the_index_too(index, tmp_path):
    from companion.lexicon.store import import_list

    words = tmp_path / "club.txt"
    words.write_text("cat\ndogs\n")
    import_list(words, "club-explain", replace=True)
    club = open_lexicon("club-explain")
    for word in ("dogs", "abacist", "xqzt"):
        assert explain(word, club, index=index) == explain(word, club, index=None)


def test_wordnet_has_no_sense_of_a_word_outside_the_candidates():
    from companion.lexicon.wordnet import wordnet

    wn = wordnet()
    candidates = set(wordnet_candidates(wn))
    assert {"dogs", "geese", "ran", "apices", "boxes"} <= candidates
    near = [w + s for w in sorted(candidates)[::997] for s in ("q", "ss", "ingz", "x")]
    near = [w for w in near if w not in candidates]
    assert near and not [w for w in near if wn.synsets(w)]


def test_a_current_index_is_not_rebuilt(index, tmp_path):
    path = tmp_path / "current.sqlite"
    path.write_bytes(index.path.read_bytes())
    assert "out of date" in index_problem(path)
    _stamp_as_current(path)
    assert index_problem(path) is None
    assert build_index(path) == (path, False)


def _stamp_as_current(path):
    with contextlib.closing(sqlite3.connect(path)) as con:
        con.execute("UPDATE info SET value = ? WHERE key = 'stamp'", (stamp(),))
        con.commit()


def _judge(capsys, *args):
    code = main(["judge", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("state", ["missing", "damaged", "stale"])
def test_without_a_current_index_explain_says_so_and_still_answers(
    lexicon, index, from_sources, capsys, state
):
    path = index_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if state == "damaged":
        path.write_bytes(b"this is no SQLite database\n" * 40)
    elif state == "stale":
        path.write_bytes(index.path.read_bytes())  # stamped for its sample's words only
    else:
        path.unlink(missing_ok=True)
    try:
        assert open_index()[0] is None
        code, out, err = _judge(capsys, "dogs", "xqzt", "--explain", "--json")
    finally:
        path.unlink(missing_ok=True)
    assert code == 1
    assert str(path) in err and "explain-index" in err
    said = {"missing": "not built", "damaged": "cannot be read", "stale": "out of date"}[state]
    assert said in err
    answers = json.loads(out)["explain"]
    assert answers["DOGS"] == from_sources["dogs"].to_json()
    assert answers["XQZT"] == from_sources["xqzt"].to_json()


def test_with_a_current_index_explain_is_quiet(index, from_sources, capsys):
    path = index_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(index.path.read_bytes())
    _stamp_as_current(path)
    try:
        assert open_index()[1] is None
        code, out, err = _judge(capsys, "cat", "xqzt", "dogs", "--explain")
    finally:
        path.unlink(missing_ok=True)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == "INVALID" and "XQZT\tinvalid" in lines
    for word in ("cat", "dogs"):
        assert all(line in lines for line in from_sources[word].lines())


def test_the_build_command_leaves_a_current_index_alone(index, capsys):
    path = index_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(index.path.read_bytes())
    _stamp_as_current(path)
    try:
        assert main(["lexicon", "explain-index"]) == 0
        out = capsys.readouterr().out
        assert out.startswith("explain index: up to date") and str(path) in out
    finally:
        path.unlink(missing_ok=True)


def test_the_compact_reader_holds_nltk_lemma_index_whole():
    from companion.lexicon.wordnet import compact_wordnet, wordnet

    full, compact = wordnet()._lemma_pos_offset_map, compact_wordnet()._lemma_pos_offset_map
    assert len(compact) == len(full) > 140_000
    assert all(compact[lemma] == by_pos for lemma, by_pos in full.items())
    assert compact["good"]["s"] and "xqzt" not in compact and compact["xqzt"] == {}
