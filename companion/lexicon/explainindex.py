"""The explain index: what ``companion judge --explain`` reads, built once into an SQLite file.

``--explain`` tells the arbiter where SCOWL has a word and gives a short definition
(:mod:`companion.lexicon.explain`). Read from the sources themselves that takes seconds and some
350 MB: every SCOWL file is scanned for the word, nltk's WordNet reader loads its whole lemma
index (about 3 s), and GCIDE's 40 MB of text is decompressed and parsed (about 5 s). A Raspberry
Pi Zero 2 W has 512 MB. So ``companion lexicon explain-index`` (run by ``make install`` and
``make run``) writes, once, ``data_dir()/cache/lexicon-explain-vN.sqlite`` holding

- ``scowl``: for every a-z word and every SCOWL file that has it (:func:`explain.scowl_files`),
  the file's lines that are the word, exactly as :func:`explain._entries_in` finds them (``Cat``,
  ``CAT``, ``cat.``; a line NULL when it is the word itself);
- ``words`` and ``definitions``: the definition :func:`explain._definition` gives every word that
  has one: WordNet's (:func:`explain.wordnet_definition`, computed with nltk's own reader for every
  word its ``morphy`` can reach: each lemma, each exception form, each lemma with a suffix rule
  undone) and, for a word WordNet does not know, GCIDE's first
  (:func:`companion.lexicon.gcide.first_definitions`). Definitions shared by several words
  (CAT, CATS) are stored once.

``--explain`` then opens the file read-only and asks for the few words of the play (a few
milliseconds and a few MB). The file is stamped with the size and modification time of every
SCOWL file, WordNet's and GCIDE's files, nltk's WordNet reader and :data:`INDEX_VERSION`; when it is
missing, damaged or stale, ``--explain`` says so on standard error and reads the sources
themselves, with the same answer (:func:`open_index`). Damaged is checked on every opening, not
only the stamp: ``PRAGMA quick_check`` reads every page's structure (about 0.08 s for the 30 MB
file on a PC, warm), so a page a card's bit rot overwrote is found before it can answer "no
definition" for a word it lost, and every query the index makes is tried once (a table or a
column gone). An error of a later query (:class:`ExplainIndexError`) makes ``--explain`` say so
and read the sources after all. The build takes about 30 s on a PC, with
a peak near 130 MB (nltk's reader, its lemma index kept compact), and is never done by the table
service.
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import json
import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from companion.lexicon import phonetics, scowl
from companion.lexicon.explain import (
    _entries_in,
    gcide_definition,
    scowl_files,
    wordnet_definition,
)
from companion.lexicon.words import fold, is_plain_word

INDEX_VERSION = 1
"""Bump when what is stored, or how explain reads it, changes: the index is then stale."""

BUILD_HINT = "companion lexicon explain-index builds it (make install and make run do)"
REBUILD_HINT = "companion lexicon explain-index rebuilds it"
FORCE_HINT = "companion lexicon explain-index --force rebuilds it"
"""What a query's error tells the arbiter: the index passed the checks of :func:`index_problem`
(so the plain command would leave it), yet it fails."""

_LINE = re.compile(r"(?m)^([a-z]+)\.?$")
"""A line of a lowered SCOWL file that is a word of a-z, with a full stop or not: the lines
:func:`explain._entries_in` matches, for every word at once."""

_SCHEMA = """
CREATE TABLE files (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE scowl (word TEXT NOT NULL, file INTEGER NOT NULL, seq INTEGER NOT NULL, entry TEXT,
                    PRIMARY KEY (word, file, seq)) WITHOUT ROWID;
CREATE TABLE definitions (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE words (word TEXT PRIMARY KEY, source TEXT NOT NULL, lead TEXT NOT NULL,
                    definition INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT);
"""


def index_path() -> Path:
    """Where the explain index lives: ``data_dir()/cache/lexicon-explain-vN.sqlite``."""
    return phonetics.cache_dir() / f"lexicon-explain-v{INDEX_VERSION}.sqlite"


def _source_files() -> list[Path]:
    from companion.lexicon.gcide import DATA, GCIDE_DIR, INDEX
    from companion.lexicon.wordnet import WORDNET_DIR

    files = scowl_files()
    if WORDNET_DIR.is_dir():
        files += [p for p in WORDNET_DIR.iterdir() if p.name.startswith(("data.", "index."))]
        files += WORDNET_DIR.glob("*.exc")
    files += [p for p in (GCIDE_DIR / INDEX, GCIDE_DIR / DATA) if p.exists()]
    return files


def _nltk_reader() -> list[Path]:
    """nltk's WordNet reader's source file, whose parsing the definitions come from: a new nltk
    replaces it (a stat, cheaper than asking for nltk's version)."""
    spec = importlib.util.find_spec("nltk")
    if spec is None or not spec.submodule_search_locations:
        return []
    reader = Path(spec.submodule_search_locations[0]) / "corpus" / "reader" / "wordnet.py"
    return [reader] if reader.exists() else []


def stamp() -> str:
    """The stamp of the index's sources: every SCOWL file's, WordNet's and GCIDE's path, size and
    modification time (the folders' lists: a file added or removed changes it), nltk's WordNet
    reader's and :data:`INDEX_VERSION`. A few hundred stats: about a millisecond."""
    files = _source_files() + _nltk_reader()
    return phonetics.file_stamp(files, INDEX_VERSION, scowl.SCOWL_DIR)


class ExplainIndexError(sqlite3.DatabaseError):
    """A query of an open explain index failed (the file was damaged past what the opening's
    checks see, or changed under it): the message names the file, what failed and
    :data:`FORCE_HINT`. ``judge --explain`` says it and reads the sources themselves."""


_ENTRIES_SQL = "SELECT file, entry FROM scowl WHERE word = ? ORDER BY file, seq"
_DEFINITION_SQL = (
    "SELECT w.lead, d.text, w.source FROM words w JOIN definitions d "
    "ON d.id = w.definition WHERE w.word = ?"
)


class ExplainIndex:
    """The explain index open read-only (module docstring): the SCOWL lines and the definition
    of a word, a query each.

    Raises:
        sqlite3.Error, KeyError, TypeError, ValueError: the file is not an SQLite database of
            this layout (:func:`open_index` reports it and falls back). The queries raise
            :class:`ExplainIndexError`.
    """

    def __init__(self, path: Path):
        self.path = path
        self._con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = self._con.execute("SELECT key, value FROM info").fetchall()
            self.info = dict(rows)
            self.root = Path(self.info["scowl_dir"])
            self._names = dict(self._con.execute("SELECT id, name FROM files").fetchall())
        except BaseException:
            self._con.close()
            raise
        self._covered = {str(self.root / name) for name in self._names.values()}
        self._last: tuple[str, dict[str, list[str]]] = ("", {})

    def problem(self) -> str | None:
        """None when the index is current and whole; else what is wrong, naming the file: out
        of date (the stamp), or damaged (``PRAGMA quick_check``, about 0.08 s for the full
        file on a PC; or a query of the index that cannot run: a table or a column gone)."""
        path = self.path
        try:
            row = self._con.execute("SELECT value FROM info WHERE key = 'stamp'").fetchone()
        except sqlite3.Error as exc:
            return f"the explain index {path} cannot be read ({exc})"
        try:
            current = stamp()
        except OSError as exc:
            return f"the explain index's sources cannot be read ({exc})"
        if row is None or row[0] != current:
            return (
                f"the explain index {path} is out of date (SCOWL, WordNet, GCIDE or nltk changed)"
            )
        try:
            (check,) = self._con.execute("PRAGMA quick_check(1)").fetchone()
            if check == "ok":
                self._con.execute(_ENTRIES_SQL, ("",)).fetchall()
                self._con.execute(_DEFINITION_SQL, ("",)).fetchall()
        except sqlite3.Error as exc:
            check = str(exc)
        if check != "ok":
            first = " ".join(str(check).split("\n")[-1].split())  # the first fault found
            return f"the explain index {path} is damaged ({first})"
        return None

    def _failed(self, exc: Exception) -> ExplainIndexError:
        what = f"no such SCOWL file id {exc}" if isinstance(exc, KeyError) else str(exc)
        return ExplainIndexError(f"the explain index {self.path} is damaged ({what}): {FORCE_HINT}")

    def covers(self, word: str) -> bool:
        """True for a word the index answers for: lower-case letters a-z."""
        return is_plain_word(word)

    def _entries(self, word: str) -> dict[str, list[str]]:
        """Every file's lines for ``word``, one query (kept for the word's other files)."""
        if self._last[0] == word:
            return self._last[1]
        out: dict[str, list[str]] = {}
        try:
            for file, entry in self._con.execute(_ENTRIES_SQL, (word,)).fetchall():
                out.setdefault(self._names[file], []).append(word if entry is None else entry)
        except (sqlite3.Error, KeyError) as exc:
            raise self._failed(exc) from None
        self._last = (word, out)
        return out

    def entries_in(self, path: Path, word: str) -> list[str]:
        """The lines of SCOWL file ``path`` that are ``word`` (lower-case a-z), as
        :func:`explain._entries_in` reads them from the file; a file the index was not built
        from (another folder) is read itself.

        Raises:
            ExplainIndexError: the query failed (the file is damaged).
        """
        if str(path) not in self._covered:
            return _entries_in(path, word)
        return list(self._entries(word).get(path.name, []))

    def definition(self, word: str) -> tuple[str | None, str | None]:
        """``(definition, source)`` of ``word`` (lower-case a-z), source ``wordnet`` or
        ``gcide``, as :func:`explain._definition` gives it; ``(None, None)`` when neither has it.

        Raises:
            ExplainIndexError: the query failed (the file is damaged).
        """
        try:
            row = self._con.execute(_DEFINITION_SQL, (word,)).fetchone()
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        return (None, None) if row is None else (row[0] + row[1], row[2])

    def close(self) -> None:
        """Close the database."""
        self._con.close()


def _open(path: Path) -> tuple[ExplainIndex | None, str | None]:
    """The index at ``path`` open and None, or None and what is wrong (naming the file)."""
    if not path.exists():
        return None, f"the explain index {path} is not built"
    try:
        index = ExplainIndex(path)
    except (sqlite3.Error, KeyError, TypeError, ValueError) as exc:
        return None, f"the explain index {path} cannot be read ({exc})"
    problem = index.problem()
    if problem is not None:
        index.close()
        return None, problem
    return index, None


def index_problem(path: Path | None = None) -> str | None:
    """None when the explain index at ``path`` (default :func:`index_path`) is built, current
    and whole; else what is wrong, naming the file (missing, cannot be read, out of date,
    damaged: :meth:`ExplainIndex.problem`). Only looks: about 0.1 s for the full index."""
    index, problem = _open(path or index_path())
    if index is not None:
        index.close()
    return problem


def open_index(path: Path | None = None) -> tuple[ExplainIndex | None, str | None]:
    """The explain index at ``path`` (default :func:`index_path`) open, and None; or None and
    why it cannot be used (missing, damaged, stale: the message names the file and the command
    that builds it), for ``--explain`` to say before reading the sources themselves. Checked
    whole on every opening (:meth:`ExplainIndex.problem`). Never builds."""
    index, problem = _open(path or index_path())
    if problem is None:
        return index, None
    hint = BUILD_HINT if "not built" in problem else REBUILD_HINT
    return None, f"{problem}: {hint}"


# --- building ---------------------------------------------------------------------------------


def _scowl_rows(files: list[Path], words: set[str] | None):
    """``(word, file id, seq, entry or None)`` for every line of ``files`` that
    :func:`explain._entries_in` would give for some word of a-z (the whole word list, or
    ``words``)."""
    for fid, path in enumerate(files):
        text = scowl.read_text(path)
        low = text.lower()
        matched: set[str] = set()
        seq = 0
        for m in _LINE.finditer(low):
            word = m.group(1)
            matched.add(word)
            if words is not None and word not in words:
                continue
            entry = text[m.start() : m.end()]
            yield word, fid, seq, None if entry == word else entry
            seq += 1
        if text.isascii():
            continue
        # a word no line matched is looked for again with accents folded (_entries_in)
        for line in text.splitlines():
            word = fold(line).lower()
            if word in matched or not is_plain_word(word):
                continue
            if words is not None and word not in words:
                continue
            yield word, fid, seq, None if line == word else line
            seq += 1


def wordnet_candidates(wn) -> Iterator[str]:
    """Every a-z word nltk's ``wn.synsets`` can find a sense of, some more than once: WordNet's
    lemmas, its exception forms, and each lemma with one of ``morphy``'s suffix rules undone
    (CAT: CATS; BOX: BOXES), for its part of speech. ``morphy`` applies one rule or one
    exception to the word asked, so no other word has a sense."""
    subs = wn.MORPHOLOGICAL_SUBSTITUTIONS
    for lemma, by_pos in wn._lemma_pos_offset_map.items():
        for pos in by_pos:
            if pos not in subs:
                continue
            forms = [lemma] + [
                lemma[: len(lemma) - len(n)] + o for o, n in subs[pos] if lemma.endswith(n)
            ]
            yield from (w for w in forms if is_plain_word(w))
    for pos in ("n", "v", "a", "r"):
        yield from (w for w in wn._exception_map[pos] if is_plain_word(w))


class _Definitions:
    """Writes ``words`` and ``definitions`` rows, each distinct definition once (found through a
    unique index dropped at the end, so the build keeps none of them in memory)."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con
        con.execute("CREATE UNIQUE INDEX definitions_text ON definitions (text)")

    def add(self, word: str, source: str, lead: str, text: str) -> None:
        con = self.con
        con.execute("INSERT OR IGNORE INTO definitions (text) VALUES (?)", (text,))
        (did,) = con.execute("SELECT id FROM definitions WHERE text = ?", (text,)).fetchone()
        con.execute("INSERT INTO words VALUES (?, ?, ?, ?)", (word, source, lead, did))

    def finish(self) -> None:
        self.con.execute("DROP INDEX definitions_text")


def _wordnet_rows(defs: _Definitions, words: set[str] | None) -> str | None:
    """WordNet's definition of every word it has a sense of; returns ``"wordnet"``, or None
    when WordNet cannot be read (then GCIDE answers for every word, as in explain)."""
    from companion.lexicon.wordnet import compact_wordnet

    con = defs.con
    con.execute("CREATE TABLE candidates (word TEXT PRIMARY KEY) WITHOUT ROWID")
    try:
        wn = compact_wordnet()  # nltk's reader, its lemma index kept in a third of the memory
        found = wordnet_candidates(wn)
        if words is not None:
            found = (w for w in found if w in words)
        con.executemany("INSERT OR IGNORE INTO candidates VALUES (?)", ((w,) for w in found))
    except Exception:  # missing or unreadable: explain._definition then asks GCIDE
        con.execute("DROP TABLE candidates")
        return None
    candidates = con.execute("SELECT word FROM candidates ORDER BY word")  # read as a stream
    for n, (word,) in enumerate(candidates):
        try:
            found = wordnet_definition(word, wn)
        except Exception:  # as explain._definition: that word from GCIDE
            found = None
        if found is not None:
            defs.add(word, "wordnet", found[0], found[1])
        if n % 2000 == 1999:
            wn._synset_offset_cache.clear()  # the synsets read so far: bound the memory
    con.execute("DROP TABLE candidates")
    return "wordnet"


def _gcide_rows(con: sqlite3.Connection, words: set[str] | None) -> str | None:
    """GCIDE's first definition of every one-word headword, in the table ``gcide_first`` (the
    words WordNet defines are taken out after); ``"gcide"``, or None when GCIDE cannot be read."""
    from companion.lexicon.gcide import first_definitions

    con.execute("CREATE TABLE gcide_first (word TEXT PRIMARY KEY, text TEXT) WITHOUT ROWID")
    try:
        rows = (
            (word, gcide_definition(text))
            for word, text in first_definitions()
            if words is None or word in words
        )
        con.executemany("INSERT INTO gcide_first VALUES (?, ?)", rows)
    except Exception:  # missing or unreadable: explain._definition gives none
        con.execute("DELETE FROM gcide_first")
        return None
    return "gcide"


def _build(con: sqlite3.Connection, words: set[str] | None) -> None:
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    con.executescript(_SCHEMA)
    files = scowl_files()
    con.executemany("INSERT INTO files VALUES (?, ?)", [(i, p.name) for i, p in enumerate(files)])
    con.executemany("INSERT INTO scowl VALUES (?, ?, ?, ?)", _scowl_rows(files, words))
    # GCIDE before nltk's reader, so that the two large reads are never in memory together
    gcide = _gcide_rows(con, words)
    defs = _Definitions(con)
    wordnet = _wordnet_rows(defs, words)
    new = "FROM gcide_first g WHERE g.word NOT IN (SELECT word FROM words)"
    con.execute(f"INSERT OR IGNORE INTO definitions (text) SELECT g.text {new}")
    con.execute(
        "INSERT INTO words SELECT g.word, 'gcide', '', d.id FROM gcide_first g "
        "JOIN definitions d ON d.text = g.text WHERE g.word NOT IN (SELECT word FROM words)"
    )
    defs.finish()
    con.execute("DROP TABLE gcide_first")
    (defined,) = con.execute("SELECT COUNT(*) FROM words").fetchone()
    info = {
        "scowl_dir": str(scowl.SCOWL_DIR),
        "sources": json.dumps([s for s in ("scowl", wordnet, gcide) if s]),
        "words_defined": str(defined),
        "only": json.dumps(sorted(words)) if words is not None else "",
        "built_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    con.executemany("INSERT INTO info VALUES (?, ?)", info.items())


def build_index(
    path: Path | None = None, *, force: bool = False, words: set[str] | None = None
) -> tuple[Path, bool]:
    """Build the explain index at ``path`` (default :func:`index_path`) unless it is current and
    whole (:func:`index_problem`: a damaged one is rebuilt, and a journal left beside it removed);
    returns the path and whether it was built. ``force`` rebuilds a current one. ``words``
    (lower-case a-z) limits it to those words, for tests (such an index is never current for
    ``--explain``: its stamp says so). About 30 s on a PC, a peak near 130 MB.

    Raises:
        OSError, sqlite3.Error: the index cannot be written (a read-only data directory, a full
            disk); the message names the file.
    """
    path = path or index_path()
    if not force and words is None and index_problem(path) is None:
        return path, False
    current = stamp() if words is None else f"only {len(words)} words"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        con = sqlite3.connect(tmp)
        try:
            _build(con, words)
            # the stamp goes in with the rest: a build cut short is never taken as current
            con.execute("INSERT INTO info VALUES ('stamp', ?)", (current,))
            con.commit()
            con.execute("VACUUM")  # rows came in no order: packed tight
        finally:
            con.close()
        for suffix in ("-journal", "-wal", "-shm"):  # a damaged file's: never rolled into this
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        os.replace(tmp, path)
    except sqlite3.Error as exc:
        raise sqlite3.Error(f"the explain index {path} cannot be written: {exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    phonetics.remove_old_versions(path, "lexicon-explain-v*.sqlite")
    return path, True
