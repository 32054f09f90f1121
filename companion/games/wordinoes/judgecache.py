"""A compact cache of exactly what the Wordinoes match judge reads of WordNet and lemminflect.

Opening nltk's WordNet reader takes about 1.5 s, reading WordNet's definitions for co-occurrence
about as long, lemminflect's tables 0.4 s: too slow for a one-off ``companion wordinoes match``
(a Raspberry Pi takes three times as long). ``companion wordinoes warm`` (run by ``make install``
and ``make run``; a one-off command on a PC builds it at its first use too) writes, once, a sqlite
file in ``data_dir()/cache/``; the table service never builds it (:func:`cache_problem`). The build
streams WordNet into SQLite in batches, so its peak stays near 110 MB, inside a Zero 2 W's 512 MB
(``bench/bench_judgecache.py``). It holds

- WordNet's lemma index (lemma -> part of speech -> synset names, in WordNet's sense order) and its
  exception lists, so that nltk's ``morphy`` and ``synsets``/``lemmas`` are answered the same way;
- every synset's name, definition, lemmas (with their antonym, derivation and pertainym pointers)
  and the semantic pointers the judge follows, read from WordNet's ``data.*`` files as nltk reads
  them (nltk's own index gives the synset names);
- the definitions index for co-occurrence: every entry's line and, for every token, the entries
  that use it;
- lemminflect's base forms and inflections of every word it knows.

It is stamped with the source files' size and modification time, the nltk and lemminflect
versions and :data:`CACHE_VERSION`, and rebuilt when any of them changes. :class:`CachedWordNet`
and :class:`CachedGlosses` offer the few calls of nltk's reader and of
:class:`companion.games.wordinoes.sources.Glosses` the judge makes, so the judge runs the same code
on either and gives the same answers (the tests compare them).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import re
import sqlite3
import zlib
from array import array
from collections import defaultdict
from pathlib import Path

from companion.errors import CompanionError
from companion.games.wordinoes import sources
from companion.lexicon import phonetics

CACHE_VERSION = 3
"""Bump when the layout or the meaning of what is stored changes: the cache is then rebuilt."""

GLOSS_KEPT = 91
"""Characters of each gloss kept: the judge quotes 90 and adds "..." when there are more."""

POS_LIST = ("n", "v", "a", "r")
"""nltk's ``POS_LIST``: the parts of speech ``synsets(word)`` looks in, in order."""

MORPHOLOGICAL_SUBSTITUTIONS = {
    "n": [("s", ""), ("ses", "s"), ("ves", "f"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
          ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}  # fmt: skip
"""nltk's ``WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS`` (WordNet's morphy(7WN) rules)."""

SYNSET_POINTERS = {
    "hypernyms": "@", "instance_hypernyms": "@i", "hyponyms": "~", "instance_hyponyms": "~i",
    "member_holonyms": "#m", "part_holonyms": "#p", "substance_holonyms": "#s",
    "member_meronyms": "%m", "part_meronyms": "%p", "substance_meronyms": "%s",
    "topic_domains": ";c", "region_domains": ";r", "usage_domains": ";u",
    "in_topic_domains": "-c", "in_region_domains": "-r", "in_usage_domains": "-u",
    "attributes": "=", "entailments": "*", "causes": ">", "also_sees": "^", "similar_tos": "&",
    "verb_groups": "$",
}  # fmt: skip
"""nltk's Synset methods and the wndb(5WN) pointer symbols they follow."""

LEMMA_POINTERS = {"antonyms": "!", "derivationally_related_forms": "+", "pertainyms": "\\"}
"""nltk's Lemma methods and their pointer symbols."""

_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}


def _pack(data) -> bytes:
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode("utf8"))


def _unpack(blob: bytes):
    return json.loads(zlib.decompress(blob))


class _Synset:
    """The part of nltk's ``Synset`` the judge uses; equal when the names are equal."""

    __slots__ = ("_wn", "_name", "_data")

    def __init__(self, wn: CachedWordNet, name: str, data: dict):
        self._wn, self._name, self._data = wn, name, data

    def name(self) -> str:
        return self._name

    def definition(self) -> str:
        return self._data["d"]

    def lemma_names(self) -> list[str]:
        return list(self._data["l"])

    def lemmas(self) -> list[_Lemma]:
        return [_Lemma(self, i) for i in range(len(self._data["l"]))]

    def _related(self, symbol: str) -> list[_Synset]:
        return [self._wn.synset(n) for n in self._data["p"].get(symbol, ())]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Synset) and other._name == self._name

    def __hash__(self) -> int:
        return hash(self._name)

    def __repr__(self) -> str:
        return f"Synset({self._name!r})"


def _synset_method(symbol: str):
    return lambda self: self._related(symbol)


for _method, _symbol in SYNSET_POINTERS.items():
    setattr(_Synset, _method, _synset_method(_symbol))


class _Lemma:
    """The part of nltk's ``Lemma`` the judge uses."""

    __slots__ = ("_synset", "_index")

    def __init__(self, synset: _Synset, index: int):
        self._synset, self._index = synset, index

    def name(self) -> str:
        return self._synset._data["l"][self._index]

    def synset(self) -> _Synset:
        return self._synset

    def _related(self, symbol: str) -> list[_Lemma]:
        # nltk keys lemma pointers by the lemma's name
        targets = self._synset._data["lp"].get(self.name(), {}).get(symbol, ())
        wn = self._synset._wn
        return [_Lemma(wn.synset(name), i) for name, i in targets]


def _lemma_method(symbol: str):
    return lambda self: self._related(symbol)


for _method, _symbol in LEMMA_POINTERS.items():
    setattr(_Lemma, _method, _lemma_method(_symbol))


class CachedWordNet:
    """nltk's ``WordNetCorpusReader`` as far as the judge uses it (``synsets``, ``lemmas``,
    ``_morphy``), answered from the cache with nltk's own rules."""

    def __init__(self, con: sqlite3.Connection):
        self._con = con
        self._index: dict[str, dict[str, list[str]]] = {}
        self._exc: dict[str, dict[str, list[str]]] = {}
        self._synsets: dict[str, _Synset] = {}

    def _index_of(self, form: str) -> dict[str, list[str]]:
        found = self._index.get(form)
        if found is None:
            row = self._con.execute("SELECT data FROM idx WHERE form = ?", (form,)).fetchone()
            found = self._index[form] = json.loads(row[0]) if row else {}
        return found

    def _exceptions(self, form: str) -> dict[str, list[str]]:
        found = self._exc.get(form)
        if found is None:
            row = self._con.execute("SELECT data FROM exc WHERE form = ?", (form,)).fetchone()
            found = self._exc[form] = json.loads(row[0]) if row else {}
        return found

    def synset(self, name: str) -> _Synset:
        found = self._synsets.get(name)
        if found is None:
            row = self._con.execute("SELECT data FROM synset WHERE name = ?", (name,)).fetchone()
            found = self._synsets[name] = _Synset(self, name, _unpack(row[0]))
        return found

    def _morphy(self, form: str, pos: str, check_exceptions: bool = True) -> list[str]:
        """nltk 3.10's ``_morphy``: ``form`` and its base forms that are lemmas of ``pos``."""
        exceptions = self._exceptions(form)
        if check_exceptions and pos in exceptions:
            forms = exceptions[pos]
        else:
            forms = [
                form[: -len(old)] + new
                for old, new in MORPHOLOGICAL_SUBSTITUTIONS[pos]
                if form.endswith(old)
            ]
        result: list[str] = []
        for f in [form, *forms]:
            if pos in self._index_of(f) and f not in result:
                result.append(f)
        return result

    def synsets(self, lemma: str, pos=None) -> list[_Synset]:
        """The senses of ``lemma`` (any inflection), in nltk's order."""
        lemma = lemma.lower()
        return [
            self.synset(name)
            for p in (POS_LIST if pos is None else pos)
            for form in self._morphy(lemma, p)
            for name in self._index_of(form).get(p, [])
        ]

    def lemmas(self, lemma: str, pos=None) -> list[_Lemma]:
        """The lemmas named ``lemma`` (case ignored) among its senses, as nltk gives them."""
        lemma = lemma.lower()
        return [
            x for s in self.synsets(lemma, pos) for x in s.lemmas() if x.name().lower() == lemma
        ]


class CachedGlosses:
    """:class:`companion.games.wordinoes.sources.Glosses` answered from the cache."""

    def __init__(self, con: sqlite3.Connection, forms):
        self._con = con
        self._forms = forms
        self._cache: dict[str, frozenset[int]] = {}
        self._lines: dict[int, tuple[str, str, tuple]] = {}
        self.entries = int(
            con.execute("SELECT value FROM meta WHERE key = 'entries'").fetchone()[0]
        )

    def lines_with(self, word: str) -> frozenset[int]:
        hits = self._cache.get(word)
        if hits is None:
            found: set[int] = set()
            for form in self._forms(word):
                row = self._con.execute("SELECT ids FROM post WHERE token = ?", (form,)).fetchone()
                if row:
                    found.update(array("I", row[0]))
            hits = self._cache[word] = frozenset(found)
        return hits

    def _entry(self, i: int) -> tuple[str, str, tuple]:
        found = self._lines.get(i)
        if found is None:
            text, name, lemmas = self._con.execute(
                "SELECT gloss, name, lemmas FROM line WHERE id = ?", (i,)
            ).fetchone()
            lemmas = tuple(tuple(words) for words in json.loads(lemmas))
            found = self._lines[i] = (text, name, lemmas)
        return found

    def gloss(self, i: int) -> str:
        """The start of entry ``i``'s gloss: its first :data:`GLOSS_KEPT` characters."""
        return self._entry(i)[0]

    def name(self, i: int) -> str:
        return self._entry(i)[1]

    def lemmas_of(self, i: int) -> tuple[tuple[str, ...], ...]:
        return self._entry(i)[2]


class JudgeCache:
    """The opened cache: :attr:`wordnet`, :attr:`glosses`, :meth:`forms`, :meth:`base_forms`."""

    def __init__(self, con: sqlite3.Connection):
        self._con = con
        self.wordnet = CachedWordNet(con)
        self.glosses = CachedGlosses(con, self.forms)

    @functools.lru_cache(maxsize=4096)  # noqa: B019  (one cache per process)
    def forms(self, word: str) -> frozenset[str]:
        """``sources.forms(word)``: the word and its inflections (lemminflect)."""
        row = self._con.execute("SELECT forms FROM forms WHERE word = ?", (word,)).fetchone()
        if row:
            return frozenset(row[0].split())
        return frozenset({word.lower()} if word.isalpha() else ())

    @functools.lru_cache(maxsize=4096)  # noqa: B019
    def base_forms(self, word: str) -> tuple[str, ...]:
        """``sources.base_forms(word)``: the word, then the nouns and verbs it inflects."""
        row = self._con.execute("SELECT bases FROM bases WHERE word = ?", (word,)).fetchone()
        return tuple(row[0].split()) if row else (word,)


# --- building -----------------------------------------------------------------------------------


def _source_files(root: Path) -> list[Path]:
    spec = importlib.util.find_spec("lemminflect")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the lemminflect package is not installed")
    names = [f"{kind}.{pos}" for kind in ("data", "index") for pos in _FILES.values()]
    names += [f"{pos}.exc" for pos in _FILES.values()]
    files = [root / n for n in names]
    res = Path(spec.submodule_search_locations[0]) / "resources"
    files += sorted(res.glob("*.csv*"))
    return files


def _stamp(root: Path) -> str:
    from importlib.metadata import version

    return phonetics.file_stamp(
        _source_files(root), CACHE_VERSION, version("nltk"), version("lemminflect")
    )


_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")
_EXAMPLE = re.compile(r"[\"].*?[\"]")


def _parse_synsets(root: Path):
    """WordNet's data files parsed as nltk 3.10's ``_synset_from_pos_and_line`` does: for each
    synset its file, offset, type, definition, lemma names, synset and lemma pointers."""
    for pos, name in _FILES.items():
        with (root / f"data.{name}").open(encoding="utf8") as f:
            for raw in f:
                if raw.startswith(" "):
                    continue
                columns, gloss = raw.strip().split("|")
                definition = _EXAMPLE.sub("", gloss).strip().strip("; ")
                tokens = iter(columns.split())
                offset = int(next(tokens))
                next(tokens)
                ss_type = next(tokens)
                lemmas = []
                for _ in range(int(next(tokens), 16)):
                    lemmas.append(_MARKER.match(next(tokens)).group(1))
                    next(tokens)
                pointers: dict[str, list] = defaultdict(list)
                lemma_pointers: dict[str, dict[str, list]] = {}
                for _ in range(int(next(tokens))):
                    symbol, target, tpos, ids = (next(tokens) for _ in range(4))
                    if ids == "0000":
                        if (tpos, int(target)) not in pointers[symbol]:
                            pointers[symbol].append((tpos, int(target)))
                    else:
                        source = lemmas[int(ids[:2], 16) - 1]
                        by_symbol = lemma_pointers.setdefault(source, {})
                        by_symbol.setdefault(symbol, []).append(
                            (tpos, int(target), int(ids[2:], 16) - 1)
                        )
                yield pos, offset, ss_type, definition, lemmas, pointers, lemma_pointers


def _index_lines(root: Path):
    """WordNet's ``index.*`` files as nltk 3.10's ``_load_lemma_pos_offset_map`` reads them, one
    line at a time: ``(lemma, pos, offsets)``, the synset offsets in sense order."""
    for name in _FILES.values():
        with (root / f"index.{name}").open(encoding="utf8") as f:
            for line in f:
                if line.startswith(" "):
                    continue
                t = line.split()
                lemma, pos, count, pointers = t[0], t[1], int(t[2]), int(t[3])
                yield lemma, pos, [int(x) for x in t[6 + pointers : 6 + pointers + count]]


def _senses(root: Path, satellites: set[int]):
    """``(lemma, pos, offsets)`` of every index line and, after an adjective's, the same lemma's
    satellites as part of speech ``s`` (nltk lists them under both ``a`` and ``s``)."""
    for lemma, pos, offsets in _index_lines(root):
        yield lemma, pos, offsets
        if pos == "a":
            yield lemma, "s", [o for o in offsets if o in satellites]


def _parse_exceptions(root: Path) -> dict[str, dict[str, list[str]]]:
    """WordNet's ``*.exc`` files: inflected form -> part of speech -> base forms (nltk's
    ``_exception_map``, turned inside out)."""
    exceptions: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for pos, name in _FILES.items():
        with (root / f"{name}.exc").open(encoding="utf8") as f:
            for line in f:
                terms = line.split()
                exceptions[terms[0]][pos] = terms[1:]
    return exceptions


def _key(pos: str, offset: int) -> int:
    # one int per synset: its data file (satellites live in the adjectives') and its offset
    return offset * 4 + "nvar".index("a" if pos == "s" else pos)


TOKEN = re.compile(r"[^\W_]+")
r"""A token of the definitions index: a run of characters ``str.isalnum`` accepts (``\w`` is those
and the underscore)."""


def _synset_names(root: Path) -> tuple[dict[int, str], set[int]]:
    """nltk's name (``dog.n.01``) of every synset, keyed by :func:`_key`, and the offsets of the
    adjective satellites: the first lemma, the
    synset type and the synset's place among that lemma's senses. Two passes that keep one short
    string a synset: the data files for each synset's first lemma, then the index files."""
    names: dict[int, str] = {}
    satellites: set[int] = set()
    for pos, offset, ss_type, _, lemmas, _, _ in _parse_synsets(root):
        names[_key(pos, offset)] = f"{lemmas[0].lower()}\t{ss_type}"
        if ss_type == "s":
            satellites.add(offset)
    for lemma, pos, offsets in _senses(root, satellites):
        wanted = f"{lemma}\t{pos}"
        for sense, offset in enumerate(offsets, 1):
            key = _key(pos, offset)
            if names.get(key) == wanted:
                names[key] = f"{lemma}.{pos}.{sense:02d}"
    unnamed = [k for k, v in names.items() if "\t" in v]
    if unnamed:
        raise ValueError(
            f"WordNet in {root}: {len(unnamed)} synset(s) missing from their first lemma's "
            f"index entry (the first at offset {unnamed[0] // 4}); is the data complete?"
        )
    return names, satellites


BATCH_ROWS = 2000
"""Rows handed to SQLite at a time while building (memory stays flat, whatever WordNet's size)."""


def _insert(con: sqlite3.Connection, sql: str, rows) -> None:
    batch: list = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH_ROWS:
            con.executemany(sql, batch)
            batch.clear()
    if batch:
        con.executemany(sql, batch)


def _build(con: sqlite3.Connection, root: Path) -> None:
    """Fill ``con`` with the cache's tables, reading WordNet and lemminflect as streams: rows go
    to SQLite in batches, and only the synsets' names (one short string each) and the
    definitions index's postings are held at once, so the peak stays near 100 MB (lemminflect's
    own tables are most of it; ``bench/bench_judgecache.py`` measures it)."""
    names, satellites = _synset_names(root)

    def name_of(tpos: str, offset: int) -> str:
        return names[_key(tpos, offset)]

    wanted = set(SYNSET_POINTERS.values())
    lemma_wanted = set(LEMMA_POINTERS.values())

    def synset_rows():
        for pos, offset, _, definition, lemmas, pointers, lemma_pointers in _parse_synsets(root):
            p = {
                sym: sorted(name_of(tp, off) for tp, off in targets)
                for sym, targets in pointers.items()
                if sym in wanted
            }
            lp = {
                lemma: {
                    sym: [[name_of(tp, off), i] for tp, off, i in targets]
                    for sym, targets in by_symbol.items()
                    if sym in lemma_wanted
                }
                for lemma, by_symbol in lemma_pointers.items()
            }
            data = {"d": definition, "l": lemmas, "p": p, "lp": {k: v for k, v in lp.items() if v}}
            yield name_of(pos, offset), _pack(data)

    con.execute("CREATE TABLE synset (name TEXT PRIMARY KEY, data TEXT) WITHOUT ROWID")
    _insert(con, "INSERT INTO synset VALUES (?, ?)", synset_rows())

    # the lemma index: a lemma's parts of speech come from several files; SQLite sorts them
    # together, so that each lemma's row is written from one group
    con.execute("CREATE TEMP TABLE senses (form TEXT, pos TEXT, names TEXT)")
    _insert(
        con,
        "INSERT INTO senses VALUES (?, ?, ?)",
        (
            (lemma, pos, json.dumps([name_of(pos, o) for o in offsets]))
            for lemma, pos, offsets in _senses(root, satellites)
        ),
    )
    con.execute("CREATE TABLE idx (form TEXT PRIMARY KEY, data TEXT) WITHOUT ROWID")
    rows = con.execute("SELECT form, pos, names FROM senses ORDER BY form, rowid")
    by_form = itertools.groupby(rows, key=lambda r: r[0])
    _insert(
        con.cursor(),
        "INSERT INTO idx VALUES (?, ?)",
        ((form, json.dumps({p: json.loads(n) for _, p, n in group})) for form, group in by_form),
    )
    con.execute("DROP TABLE senses")
    names.clear()

    exceptions = _parse_exceptions(root)
    con.execute("CREATE TABLE exc (form TEXT PRIMARY KEY, data TEXT) WITHOUT ROWID")
    _insert(
        con, "INSERT INTO exc VALUES (?, ?)", ((f, json.dumps(d)) for f, d in exceptions.items())
    )
    del exceptions

    # the definitions index: entries, and for every token the entries using it
    postings: dict[str, array] = defaultdict(lambda: array("I"))
    entries = 0

    def line_rows():
        nonlocal entries
        for i, (line, name, lemmas, proper) in enumerate(sources.gloss_entries(root)):
            if not proper:  # names are not evidence
                entries += 1
                for t in set(TOKEN.findall(line)):
                    postings[t].append(i)
            gloss = line.partition(" | ")[2][:GLOSS_KEPT]
            yield i, gloss, name, json.dumps(lemmas)

    con.execute("CREATE TABLE line (id INTEGER PRIMARY KEY, gloss TEXT, name TEXT, lemmas TEXT)")
    _insert(con, "INSERT INTO line VALUES (?, ?, ?, ?)", line_rows())
    con.execute("CREATE TABLE post (token TEXT PRIMARY KEY, ids BLOB) WITHOUT ROWID")
    _insert(
        con, "INSERT INTO post VALUES (?, ?)", ((t, ids.tobytes()) for t, ids in postings.items())
    )
    postings.clear()
    con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
    con.execute("INSERT INTO meta VALUES ('entries', ?)", (str(entries),))

    # lemminflect: base forms and inflections of every word it knows (the readers' own, unwrapped
    # from their per-process caches, which would keep every word's answer)
    from lemminflect import Inflections, Lemmatizer

    known = set(Lemmatizer()._getLemmaDict()) | set(Lemmatizer()._getOverridesDict())
    known |= set(Inflections()._getInflDict()) | set(Inflections()._getOverridesDict())
    words = sorted(w for w in known if w.isalpha() and w == w.lower())
    del known
    forms_of = getattr(sources.forms, "__wrapped__", sources.forms)
    bases_of = getattr(sources.base_forms, "__wrapped__", sources.base_forms)
    con.execute("CREATE TABLE forms (word TEXT PRIMARY KEY, forms TEXT) WITHOUT ROWID")
    con.execute("CREATE TABLE bases (word TEXT PRIMARY KEY, bases TEXT) WITHOUT ROWID")

    def form_rows():
        for w in words:
            forms = forms_of(w)
            if forms != {w}:
                yield w, " ".join(sorted(forms))

    def base_rows():
        for w in words:
            bases = bases_of(w)
            if bases != (w,):
                yield w, " ".join(bases)

    _insert(con, "INSERT INTO forms VALUES (?, ?)", form_rows())
    _insert(con, "INSERT INTO bases VALUES (?, ?)", base_rows())


def cache_path() -> Path:
    """Where the judge's cache lives: ``data_dir()/cache/wordinoes-judge-vN.sqlite``."""
    return phonetics.cache_dir() / f"wordinoes-judge-v{CACHE_VERSION}.sqlite"


def _stamp_of(path: Path) -> str | None:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    return row[0] if row else None


def cache_problem(root: Path | None = None) -> str | None:
    """None when the judge's caches (this one and CMUdict's) are built and current; else what
    is missing, in words for the table's log. Only looks: nothing is built (the table service
    asks this and, on a problem, judges from the sources themselves, slower, rather than build
    a cache beside the clock; ``companion wordinoes warm`` builds them, as ``make install``
    and ``make run`` do)."""
    root = root or sources.WORDNET_DATA
    how = "run `companion wordinoes warm` (make install does it)"
    try:
        current = _stamp(root)
        cmu_stamp = phonetics.file_stamp(phonetics._cmudict_files(), phonetics.CACHE_VERSION)
    except (OSError, CompanionError) as exc:
        return f"the Wordinoes judge's sources cannot be read ({exc})"
    path = cache_path()
    if not path.exists():
        return f"the Wordinoes judge's cache {path} is not built: {how}"
    if _stamp_of(path) != current:
        return f"the Wordinoes judge's cache {path} is out of date: {how}"
    cmu = phonetics.cache_dir() / f"cmudict-v{phonetics.CACHE_VERSION}.sqlite"
    if not cmu.exists() or _stamp_of(cmu) != cmu_stamp:
        return f"the CMUdict cache {cmu} is not built or out of date: {how}"
    return None


@functools.cache
def judge_cache(root: Path | None = None) -> JudgeCache:
    """The process-wide :class:`JudgeCache` over WordNet in ``root`` (default
    ``/usr/share/wordnet``), built when missing or stale (about ten seconds on a PC, a peak
    near 110 MB) in ``data_dir()/cache``. The table service never calls it to build: it asks
    :func:`cache_problem` first; the build belongs to ``companion wordinoes warm``.

    Raises:
        OSError, sqlite3.Error: the cache can neither be read nor built (the judge then reads
            WordNet itself).
    """
    root = root or sources.WORDNET_DATA
    path = cache_path()
    con = phonetics.open_cache_db(path, _stamp(root), lambda c: _build(c, root))
    phonetics.remove_old_versions(path, "wordinoes-judge-v*.sqlite")
    return JudgeCache(con)
