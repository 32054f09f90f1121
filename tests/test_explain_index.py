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


def _current_copy(index, path):
    """A copy of the sample index at ``path``, stamped as current."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(index.path.read_bytes())
    _stamp_as_current(path)
    return path


def _smash_pages(path, tables=("words", "definitions")):
    """Bit rot on a card: the leaf pages of ``tables`` overwritten past their headers (their
    cells' offsets), the stamp and the rest of the file left whole."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as con:
        size = con.execute("PRAGMA page_size").fetchone()[0]
        marks = ",".join("?" * len(tables))
        pages = con.execute(
            f"SELECT pageno FROM dbstat WHERE name IN ({marks}) AND pagetype = 'leaf'", tables
        ).fetchall()
    assert pages
    with open(path, "r+b") as f:
        for (page,) in pages:
            f.seek((page - 1) * size + 8)
            f.write(b"\xff" * 64)


def _drop(path, table):
    with contextlib.closing(sqlite3.connect(path)) as con:
        con.execute(f"DROP TABLE {table}")
        con.commit()


@pytest.mark.parametrize("damage", ["pages smashed", "words dropped", "scowl dropped"])
def test_a_damaged_index_is_said_and_explain_answers_from_the_sources(
    index, from_sources, capsys, damage
):
    """Any damage to a current-stamped index (pages a card's bit rot overwrote, a table gone)
    is said in one line naming the file and the command that rebuilds it, and the answer is
    the sources' own: never a traceback, never a silently different answer."""
    path = _current_copy(index, index_path())
    if damage == "pages smashed":
        _smash_pages(path)
    else:
        _drop(path, damage.split()[0])
    try:
        assert "damaged" in index_problem(path)
        assert open_index()[0] is None
        code, out, err = _judge(capsys, "cat", "xqzt", "dogs", "--explain", "--json")
    finally:
        path.unlink(missing_ok=True)
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and str(path) in err
    assert "damaged" in err and "companion lexicon explain-index" in err
    answers = json.loads(out)["explain"]
    for word in ("cat", "xqzt", "dogs"):
        assert answers[word.upper()] == from_sources[word].to_json()


def test_an_error_while_reading_the_index_falls_back_to_the_sources(index, from_sources, capsys):
    """An index that opens and checks whole but fails a query later (here: a row naming a
    SCOWL file the index does not list) is said, with the command that rebuilds it whatever it
    thinks of the file (--force), and the answer is read from the sources."""
    path = _current_copy(index, index_path())
    with contextlib.closing(sqlite3.connect(path)) as con:
        con.execute("UPDATE scowl SET file = 999 WHERE word = 'dogs'")
        con.commit()
    try:
        assert index_problem(path) is None
        code, out, err = _judge(capsys, "cat", "dogs", "--explain", "--json")
    finally:
        path.unlink(missing_ok=True)
    assert code == 0
    assert len(err.strip().splitlines()) == 1 and str(path) in err
    assert "explain-index --force" in err
    answers = json.loads(out)["explain"]
    assert answers["DOGS"] == from_sources["dogs"].to_json()
    assert answers["CAT"] == from_sources["cat"].to_json()


def test_the_build_command_checks_the_files_integrity(index, tmp_path):
    """``explain-index`` says "up to date" only for a whole file: a current-stamped index with
    smashed pages or a table gone is damaged, so it is rebuilt (build_index's check)."""
    for damage in ("pages", "words"):
        path = _current_copy(index, tmp_path / f"{damage}.sqlite")
        assert index_problem(path) is None
        _smash_pages(path) if damage == "pages" else _drop(path, "words")
        problem = index_problem(path)
        assert problem and "damaged" in problem and str(path) in problem


def test_a_rebuilt_index_leaves_no_stale_journal_beside_it(index, tmp_path):
    """A journal left beside a damaged index (a write cut short) would be rolled into the new
    file, or refuse its read-only opening: the build removes it with the old file."""
    path = tmp_path / "x.sqlite"
    path.write_bytes(b"this is no SQLite database\n" * 40)
    for suffix in ("-journal", "-wal", "-shm"):
        path.with_name(path.name + suffix).write_bytes(b"\x5a" * 5000)
    build_index(path, words={"cat"})
    assert not [p for p in tmp_path.iterdir() if p.name != "x.sqlite"]
    with contextlib.closing(ExplainIndex(path)) as idx:
        assert idx.definition("cat")[1] == "wordnet"
