"""Lexicons compiled once into memory-mapped marisa-tries in the data directory.

Layout, in ``data_dir()/lexicons/``:

- ``NAME.json``: what the index was built from (parameters, sources, their fingerprints), how many
  words it holds, and the index file's name;
- ``NAME.KEY.marisa``: the index, a marisa-trie of lower-case a-z words, opened with ``mmap`` so
  that every process shares the same pages and opening costs well under a millisecond;
- ``NAME.words.txt``: for an imported list, the accepted words (the source the index is built from);
- ``NAME.lock``: held while building, so two processes never build the same index at once
  (``remove`` deletes it with the list).

An index is rebuilt only when its source changes: opening compares the sources' sizes and
modification times (and the build parameters, which for SCOWL include ``scowl.BUILD_RULE``, the
version of the rule for a word, and the stamp of the screen's sources, WordNet's and GCIDE's
files) with those recorded; when they differ, the sources' contents (and what the screen leaves
out) are hashed and only a different hash rebuilds (a touched file just refreshes the record).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import hashlib
import json
import os
import re
import secrets
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import CompanionError
from companion.lexicon import scowl
from companion.lexicon.listfile import NotText, decode_list
from companion.lexicon.words import fold, is_plain_word, why_not_a_word
from companion.names import check_name as check_safe_name
from companion.names import path_in
from companion.paths import config_dir, data_dir
from companion.textformats import TomlError, loads_toml, shown

FORMAT = 1
"""Version of the index layout; changing it rebuilds every index."""

DEFAULT_NAME = scowl.ScowlParams().name
"""The lexicon used when the table names none: ``scowl-70-both``."""


class LexiconError(CompanionError, ValueError):
    """A lexicon cannot be found, built or imported; the message names it and what is accepted."""


class LexiconNotFound(LexiconError, LookupError):
    """No lexicon of that name is offered or imported."""


def lexicon_dir(create: bool = True) -> Path:
    """``data_dir()/lexicons``, created if missing (unless ``create`` is False)."""
    path = data_dir(create=create) / "lexicons"
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


class Lexicon:
    """A word list open for lookups: ``"love" in lex`` (any case, accents folded), ``len(lex)``.

    Attributes:
        name: the lexicon's name as shown on the table's screen (``scowl-70-both``, or the name a
            tournament list was imported under).
        meta: what ``NAME.json`` records (empty for a list made in memory).
        path: the memory-mapped index file, or None for a list made in memory.
    """

    __slots__ = ("_trie", "meta", "name", "path")

    def __init__(self, name: str, trie, meta: dict | None = None, path: Path | None = None):
        self.name = name
        self._trie = trie
        self.meta = meta or {}
        self.path = path

    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "custom") -> Lexicon:
        """An in-memory lexicon of ``words`` (any case; accents folded).

        Raises:
            LexiconError: a word is not letters A-Z once folded (all such words are listed).
        """
        import marisa_trie

        keys, bad = set(), []
        for w in words:
            key = fold(w).lower()
            if is_plain_word(key):
                keys.add(key)
            else:
                bad.append(w)
        if bad:
            raise LexiconError(
                f"lexicon {name!r}: {len(bad)} entries are not words of letters A-Z: "
                + ", ".join(repr(b) for b in bad[:10])
                + (" ..." if len(bad) > 10 else "")
            )
        return cls(name, marisa_trie.Trie(keys))

    def __contains__(self, word: object) -> bool:
        """True if ``word`` (any case, accents folded) is in the list; False for anything else,
        including non-strings and words with characters other than letters."""
        if not isinstance(word, str):
            return False
        if word.isascii():
            return word.lower() in self._trie
        return fold(word).lower() in self._trie

    def __len__(self) -> int:
        return len(self._trie)

    def __iter__(self) -> Iterator[str]:
        """The words in upper case, in the index's order."""
        return (w.upper() for w in self._trie)

    def __repr__(self) -> str:
        return f"<Lexicon {self.name!r}: {len(self)} words>"


# ---------------------------------------------------------------------------------------------
# fingerprints


def _json_key(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _stat_key(params: dict, files: list[Path]) -> str:
    stats = []
    for f in files:
        st = f.stat()
        stats.append([str(f), st.st_size, st.st_mtime_ns])
    return _json_key(FORMAT, params, stats)


def _content_key(params: dict, files: list[Path]) -> str:
    h = hashlib.sha256(json.dumps([FORMAT, params], sort_keys=True).encode())
    for f in files:
        h.update(f.name.encode() + b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def _file(name: str, suffix: str) -> Path:
    """``lexicon_dir()/NAME+suffix`` for a safe lexicon name (never outside the folder).

    Raises:
        LexiconNotFound: ``name`` is not a safe name (``../../x``).
    """
    check_safe_name(name, "lexicon name", LexiconNotFound)
    return path_in(lexicon_dir(), name, suffix, "lexicon name")


@contextlib.contextmanager
def _locked(name: str):
    with open(_file(name, ".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


# ---------------------------------------------------------------------------------------------
# sources of a lexicon


@dataclass
class _Source:
    name: str
    kind: str  # "scowl" | "imported"
    params: dict
    files: list[Path]
    scowl: scowl.ScowlParams | None = None

    def words(self, tally: Counter, progress) -> Iterator[str]:
        if self.scowl is not None:
            from companion.lexicon.screen import screen

            return _scowl_words(self.scowl, self.files, screen(), tally, progress)
        return _iter_imported(self.files[0], tally, progress)


def _scowl_words(params: scowl.ScowlParams, files: list[Path], sc, tally: Counter, progress):
    """The words of a SCOWL list: its own files' words (``scowl.iter_words``, with the screen),
    then the two rules that add words (:mod:`companion.lexicon.screen`): ``second source``, the
    entries of ``params.vouched_files()`` (among ``files``) that WordNet vouches for, and ``GCIDE
    form``, the forms GCIDE names of a word the list holds, that lemminflect also spells so.
    ``tally`` counts each rule's additions under ``"added: second source"`` and ``"added: GCIDE
    form"`` (words, not entries)."""
    extra = set(params.vouched_files(files[0].parent)) if files else set()
    own = [f for f in files if f not in extra]
    kept: set[str] = set()
    for word in scowl.iter_words(own, tally, progress, sc.why):
        kept.add(word)
        yield word
    for word in scowl.iter_words([f for f in files if f in extra], None, progress, sc.why):
        if word not in kept and sc.vouched_for(word):
            kept.add(word)
            tally["added: second source"] += 1
            yield word
    if params.size < scowl.SECOND_SOURCE_FROM:
        return
    for form, base in sorted(sc.forms.items()):
        if base in kept and form not in kept:
            kept.add(form)
            tally["added: GCIDE form"] += 1
            yield form


def _iter_imported(path: Path, tally: Counter, progress) -> Iterator[str]:
    text = path.read_text(encoding="ascii")
    for line in text.splitlines():
        if line:
            tally["read"] += 1
            tally["kept"] += 1
            yield line
    if progress:
        progress(len(text))


def _scowl_source(params: scowl.ScowlParams, root: Path | None = None) -> _Source:
    root = root or scowl.SCOWL_DIR
    files = params.files(root)
    if files:
        files += params.vouched_files(root)
    if not files:
        raise LexiconError(
            f"SCOWL word lists are not installed: no {root}/english-words.* files; "
            "install the Debian package scowl (make deps does)"
        )
    p = {"kind": "scowl", "size": params.size, "spelling": params.spelling}
    p["variants"] = params.variants
    p["rule"] = scowl.BUILD_RULE  # a new rule for a word rebuilds the indexes of the old one
    return _Source(params.name, "scowl", p, files, params)


def _imported_source(name: str) -> _Source:
    return _Source(name, "imported", {"kind": "imported"}, [_file(name, ".words.txt")])


def canonical_name(name: str) -> str:
    """The full name of lexicon ``name`` (``scowl-80`` -> ``scowl-80-both``), without building it;
    for checking a name in a table's set-up.

    Raises:
        LexiconNotFound: neither a SCOWL name nor an imported list (the message says what is).
    """
    return _source_for(name.strip().lower()).name


def _source_for(name: str) -> _Source:
    """The source of lexicon ``name`` (lower case). Every way of opening, building, importing or
    removing a lexicon passes here, so a name that could leave the data directory is refused
    before any file is touched."""
    check_safe_name(name, "lexicon name", LexiconNotFound)
    params = scowl.parse_name(name)
    if params is not None:
        return _scowl_source(params)
    if _file(name, ".words.txt").exists():
        return _imported_source(name)
    raise LexiconNotFound(
        f"no lexicon named {name!r}: give scowl-SIZE[-american|-british|-both] with SIZE one of "
        f"{', '.join(map(str, scowl.SIZES))}, or the name of an imported list "
        f"(companion lexicon list shows them)"
    )


# ---------------------------------------------------------------------------------------------
# building and opening


def record(name: str) -> dict | None:
    """What ``NAME.json`` records about lexicon ``name``'s index, or None if it was never built."""
    try:
        return _read_meta(_source_for(name.lower()).name)
    except LexiconNotFound:
        return None


def _read_meta(name: str) -> dict | None:
    try:
        meta = json.loads(_file(name, ".json").read_text())
    except (OSError, ValueError, RecursionError):
        return None
    return meta if isinstance(meta, dict) and meta.get("format") == FORMAT else None


def _open_index(name: str, meta: dict) -> Lexicon | None:
    import marisa_trie

    index = meta.get("index", "")
    if not isinstance(index, str) or not index or Path(index).name != index:
        return None  # a record naming a file elsewhere: rebuilt by the caller
    path = lexicon_dir() / index
    try:
        trie = marisa_trie.Trie().mmap(str(path))
    except Exception:  # missing or damaged index: rebuilt by the caller
        return None
    return Lexicon(name, trie, meta, path)


def _screen_stamp(source: _Source) -> str | None:
    """The stamp of the screen's sources (a few stats) for a SCOWL list, None for an imported one."""
    if source.scowl is None:
        return None
    from companion.lexicon.screen import stamp

    return stamp()


def _screen_key(source: _Source) -> str | None:
    """The hash of what the screen leaves out (building the screen if its sources changed)."""
    if source.scowl is None:
        return None
    from companion.lexicon.screen import screen

    return screen().key()


def _fresh(source: _Source, meta: dict | None) -> bool | None:
    """True if ``meta`` matches the sources by stat, None if only by content, False if stale.

    For a SCOWL list the screen (:mod:`companion.lexicon.screen`) is a source too: by its
    sources' stamp, then by the hash of what it leaves out."""
    if meta is None or meta.get("params") != source.params:
        return False
    stats_same = meta.get("stat_key") == _stat_key(source.params, source.files)
    if stats_same and meta.get("screen_stamp") == _screen_stamp(source):
        return True
    content_same = stats_same or meta.get("content_key") == _content_key(
        source.params, source.files
    )
    if content_same and meta.get("screen_key") == _screen_key(source):
        return None
    return False


@dataclass
class _Compiled:
    """A trie saved to a temporary file, not yet in use, and what went into it."""

    tmp: Path
    words: int
    lengths: Counter
    tally: Counter


def _compile(source: _Source, progress: bool | None, files: list[Path] | None = None) -> _Compiled:
    """Read the source (or ``files`` in its place) and save its trie to a temporary file."""
    import marisa_trie
    from tqdm import tqdm

    read = _Source(source.name, source.kind, source.params, files or source.files, source.scowl)
    total = sum(f.stat().st_size for f in read.files)
    tally: Counter = Counter()
    with tqdm(
        total=total,
        unit="B",
        unit_scale=True,
        desc=f"building {source.name}",
        disable=None if progress is None else not progress,
        leave=False,
    ) as bar:
        keys = set(read.words(tally, bar.update))
        bar.set_description(f"indexing {source.name}")
        trie = marisa_trie.Trie(keys)
    tmp = lexicon_dir() / f".{source.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    trie.save(str(tmp))
    return _Compiled(tmp, len(trie), Counter(min(len(k), 3) for k in keys), tally)


def _commit(source: _Source, compiled: _Compiled, extra: dict | None = None) -> dict:
    """Put a compiled trie in use: rename it into place, then write the record (the commit
    point), then delete the lexicon's older index files."""
    d = lexicon_dir()
    stat_key = _stat_key(source.params, source.files)
    index = f"{source.name}.{secrets.token_hex(6)}.marisa"
    compiled.tmp.replace(d / index)
    old = _read_meta(source.name) or {}
    meta = {
        "format": FORMAT,
        "name": source.name,
        "kind": source.kind,
        "params": source.params,
        "sources": [str(f) for f in source.files],
        "stat_key": stat_key,
        "content_key": _content_key(source.params, source.files),
        "screen_stamp": _screen_stamp(source),
        "screen_key": _screen_key(source),
        "index": index,
        "words": compiled.words,
        "one_letter": compiled.lengths[1],
        "two_letter": compiled.lengths[2],
        "entries": dict(compiled.tally),
        "built_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    for key in ("imported_from", "import_sha256", "import_report"):
        if key in old:
            meta[key] = old[key]
    meta.update(extra or {})
    _write_atomic(d / f"{source.name}.json", json.dumps(meta, indent=1).encode())
    for stale in d.glob(f"{source.name}.*.marisa"):
        if stale.name != index:
            stale.unlink(missing_ok=True)
    return meta


def _build(source: _Source, progress: bool | None) -> dict:
    compiled = _compile(source, progress)
    try:
        return _commit(source, compiled)
    finally:
        compiled.tmp.unlink(missing_ok=True)


def build(name: str | None = None, *, force: bool = False, progress: bool | None = None) -> Lexicon:
    """Compile lexicon ``name`` (default: the table's) if its index is missing or stale, and open it.

    ``force`` rebuilds even a fresh index. ``progress``: True shows a tqdm bar on standard error,
    False never, None (default) only when standard error is a terminal.

    Raises:
        LexiconNotFound: ``name`` is neither a SCOWL name nor an imported list.
        LexiconError: SCOWL is not installed, or the index cannot be written (a read-only data
            directory, a full disk).
    """
    source = _source_for((name or table_lexicon_name()).lower())
    name = source.name
    try:
        with _locked(name):
            meta = _read_meta(name)
            state = False if force else _fresh(source, meta)
            if state is None:  # touched, same content: record the new stats, keep the index
                meta["stat_key"] = _stat_key(source.params, source.files)
                meta["screen_stamp"] = _screen_stamp(source)
                _write_atomic(lexicon_dir() / f"{name}.json", json.dumps(meta, indent=1).encode())
            if state is False:
                meta = _build(source, progress)
            lex = _open_index(name, meta)
            if lex is None:
                lex = _open_index(name, _build(source, progress))
    except OSError as exc:
        raise LexiconError(
            f"lexicon {name!r}: cannot build its index in {lexicon_dir(create=False)} "
            f"({exc.strerror or exc}); build it as the user that owns that directory "
            "(companion lexicon build)"
        ) from None
    if lex is None:
        raise LexiconError(f"lexicon {name!r}: the index in {lexicon_dir()} cannot be opened")
    return lex


def open_lexicon(name: str | None = None) -> Lexicon:
    """Open lexicon ``name`` for lookups, building its index first if missing or stale.

    ``name`` None is the table's lexicon: ``[table] lexicon = "..."`` in ``config_dir()/table.toml``
    if set, else ``scowl-70-both``. Names: ``scowl-SIZE[-american|-british|-both][-v0|-v2]``
    (SIZE 35, 40, 50, 55, 60, 70, 80, 95) or the name of an imported tournament list.
    Opening a fresh index takes well under 5 ms (a memory map and a few file stats).

    Raises:
        LexiconNotFound: no such lexicon.
        LexiconError: table.toml is unreadable, or SCOWL is not installed.
    """
    source = _source_for((name or table_lexicon_name()).lower())
    name = source.name
    meta = _read_meta(name)
    if meta is not None and meta.get("params") == source.params:
        try:
            fresh = meta.get("stat_key") == _stat_key(source.params, source.files)
            fresh = fresh and meta.get("screen_stamp") == _screen_stamp(source)
        except OSError:
            fresh = False
        if fresh:
            lex = _open_index(name, meta)
            if lex is not None:
                return lex
    return build(name)


def table_lexicon_name() -> str:
    """The lexicon named in ``config_dir()/table.toml`` (``[table] lexicon``), else the default
    (also for ``lexicon = ""``).

    Raises:
        LexiconError: the file is not valid TOML, or ``lexicon`` is not a string.
    """
    path = config_dir() / "table.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return DEFAULT_NAME
    except (OSError, UnicodeDecodeError) as exc:
        raise LexiconError(f"{path}: cannot be read ({exc})") from None
    try:
        table = loads_toml(text).get("table", {})
    except TomlError as exc:
        raise LexiconError(f"{path}: not valid TOML ({exc})") from None
    value = table.get("lexicon", DEFAULT_NAME) if isinstance(table, dict) else DEFAULT_NAME
    if isinstance(value, str) and not value.strip():
        return DEFAULT_NAME  # "" names the default list (the daemon's table set-up writes it)
    if not isinstance(value, str):
        raise LexiconError(
            f"{path}: [table] lexicon = {shown(value)} is not a lexicon name; "
            'give e.g. "scowl-70-both" or an imported list\'s name'
        )
    return check_safe_name(value.strip().lower(), f"{path}: [table] lexicon =", LexiconError)


# ---------------------------------------------------------------------------------------------
# tournament lists


@dataclass(frozen=True)
class RejectedLine:
    """A line of an imported list that was not taken: its number (from 1), text and reason."""

    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.text!r}: {self.reason}"


@dataclass
class ParsedList:
    """A word list read line by line: ``words`` taken (lower case, first occurrence order),
    ``duplicates`` (count of repeats, not rejected), ``rejected`` lines, and ``skipped`` (blank or
    comment-only lines)."""

    words: list[str] = field(default_factory=list)
    duplicates: int = 0
    rejected: list[RejectedLine] = field(default_factory=list)
    skipped: int = 0


def parse_word_list(lines: Iterable[str]) -> ParsedList:
    """Read a tournament list: one word a line, any case; ``#`` starts a comment (whole line or
    after the word); blank lines are skipped; accents are folded (café is CAFE).

    Every line that is not a single word of letters A-Z is rejected with its reason (digit, space,
    hyphen, apostrophe, other character). Pure: no I/O.
    """
    out = ParsedList()
    seen: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            out.skipped += 1
            continue
        why = why_not_a_word(text)
        if why is not None:
            if any(c.isspace() for c in text):
                why = "more than one word on the line (one word a line)"
            out.rejected.append(RejectedLine(number, raw.rstrip("\r\n"), why))
            continue
        key = fold(text).lower()
        if not is_plain_word(key):  # why_not_a_word and the index's rule must agree
            out.rejected.append(RejectedLine(number, raw.rstrip("\r\n"), "not letters A-Z"))
            continue
        if key in seen:
            out.duplicates += 1
        else:
            seen.add(key)
            out.words.append(key)
    return out


@dataclass
class ImportReport:
    """What ``import_list`` did: the lexicon ``name``, ``taken`` words, ``duplicates``,
    ``skipped`` blank/comment lines, every ``rejected`` line, and whether an older list of that
    name was ``replaced``."""

    name: str
    source: str
    taken: int
    duplicates: int
    skipped: int
    rejected: list[RejectedLine]
    replaced: bool = False

    def to_json(self) -> dict:
        """The report as a JSON-ready dict."""
        return {
            "name": self.name,
            "source": self.source,
            "taken": self.taken,
            "duplicates": self.duplicates,
            "skipped": self.skipped,
            "rejected": [
                {"line": r.line, "text": r.text, "reason": r.reason} for r in self.rejected
            ],
            "replaced": self.replaced,
        }


def _read_list_file(path: Path, encoding: str | None = None) -> list[str]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LexiconError(f"cannot read word list {path}: {exc.strerror}") from None
    try:
        return decode_list(data, encoding)
    except NotText as exc:
        raise LexiconError(
            f"word list {path} is not a text file: {exc}; nothing imported"
        ) from None


def _is_scowl_name(low: str) -> bool:
    """A lower-case name reserved for the SCOWL lists (``scowl`` and ``scowl-...``)."""
    return low == "scowl" or low.startswith("scowl-")


def check_name(name: str) -> str:
    """``name`` in lower case if it can name an imported list.

    Raises:
        LexiconError: not a safe name (:func:`companion.names.check_name`: 1-64 characters
            a-z, 0-9, ``_``, ``-`` starting with a letter or digit), or it starts with
            ``scowl-`` (reserved for the SCOWL lists).
    """
    low = check_safe_name(name, "lexicon name", LexiconError).lower()
    if _is_scowl_name(low):
        raise LexiconError(f"lexicon name {name!r} is reserved for the SCOWL lists: choose another")
    return low


def import_list(
    path: str | Path,
    name: str | None = None,
    *,
    strict: bool = False,
    replace: bool = False,
    progress: bool | None = None,
    encoding: str | None = None,
) -> ImportReport:
    """Import a tournament word list from file ``path`` as lexicon ``name`` (default: the file's
    stem), all at once or not at all.

    Lines that are not one word of letters are rejected and reported with their numbers; the other
    words are taken, unless ``strict``, where any rejected line stops the import. The accepted words
    and the index are written to temporary files and renamed into place, so a failure or crash
    leaves the previous list of that name (if any) whole.

    ``encoding`` (a Python codec name: ``mac_roman``, ``shift_jis``...) reads the file in that
    encoding instead of finding it (:func:`companion.lexicon.listfile.decode_list`).

    Raises:
        LexiconError: unreadable or binary file, a file in a legacy encoding other than
            ISO-8859-1 / Windows-1252 without ``encoding``, a bad name, no word taken, the name
            exists and ``replace`` is False, or ``strict`` and some line was rejected (all are
            listed).
    """
    path = Path(path)
    name = check_name(name if name is not None else re.sub(r"[^a-z0-9_-]", "-", path.stem.lower()))
    parsed = parse_word_list(_read_list_file(path, encoding))
    if parsed.rejected and strict:
        raise LexiconError(
            f"word list {path}: {len(parsed.rejected)} lines rejected, nothing imported "
            f"({len(parsed.words)} words would be taken):\n"
            + "\n".join(f"  {r}" for r in parsed.rejected)
        )
    if not parsed.words:
        detail = "".join(f"\n  {r}" for r in parsed.rejected[:20])
        raise LexiconError(f"word list {path}: no word to take, nothing imported{detail}")
    d = lexicon_dir()
    target = d / f"{name}.words.txt"
    with _locked(name):
        existed = target.exists()
        if existed and not replace:
            raise LexiconError(
                f"a lexicon named {name!r} already exists: give --replace to replace it, "
                "or --name for another name"
            )
        report = ImportReport(
            name,
            str(path),
            len(parsed.words),
            parsed.duplicates,
            parsed.skipped,
            parsed.rejected,
            existed,
        )
        # everything that can fail slowly happens on temporary files; the renames commit
        words_tmp = d / f".{name}.words.{os.getpid()}.tmp"
        words_tmp.write_text("\n".join(sorted(parsed.words)) + "\n", encoding="ascii")
        compiled = None
        try:
            source = _imported_source(name)
            compiled = _compile(source, progress, files=[words_tmp])
            if compiled.words == 0 or compiled.words != len(parsed.words):
                raise LexiconError(
                    f"word list {path}: {len(parsed.words)} words taken but the index would "
                    f"hold {compiled.words}: nothing imported"
                )
            provenance = {
                "imported_from": str(path.resolve()),
                "import_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "import_report": {k: v for k, v in report.to_json().items() if k != "rejected"}
                | {"rejected": len(parsed.rejected)},
            }
            words_tmp.replace(target)
            _commit(source, compiled, provenance)
        finally:
            words_tmp.unlink(missing_ok=True)
            if compiled is not None:
                compiled.tmp.unlink(missing_ok=True)
    return report


def remove(name: str) -> None:
    """Delete imported lexicon ``name``: its words, index, record and lock file.

    Raises:
        LexiconError: ``name`` is a SCOWL list or no imported list has that name.
    """
    if _is_scowl_name(name.strip().lower()):
        raise LexiconError(
            f"lexicon {name!r} is one of the SCOWL lists, which come with Debian's scowl "
            "package and cannot be removed: only imported lists can"
        )
    name = check_name(name)
    d = lexicon_dir()
    if not (d / f"{name}.words.txt").exists():
        raise LexiconNotFound(f"no imported lexicon named {name!r}")
    with _locked(name):
        for f in [d / f"{name}.json", d / f"{name}.words.txt", *d.glob(f"{name}.*.marisa")]:
            f.unlink(missing_ok=True)
        # last, still held: a process waiting for it finds no list and reports none
        (d / f"{name}.lock").unlink(missing_ok=True)


def available() -> list[dict]:
    """Every lexicon that can be opened: the SCOWL ones (sizes x spellings, default variants) and
    the imported ones; each ``{"name", "kind", "built", "words" (or None), "in_use"}``."""
    try:
        in_use = table_lexicon_name()
    except LexiconError:
        in_use = None
    names = [scowl.ScowlParams(s, sp).name for s in scowl.SIZES for sp in scowl.SPELLINGS]
    d = lexicon_dir()
    built = {p.stem for p in d.glob("*.json")}
    names += sorted(n for n in built if scowl.parse_name(n) is not None and n not in names)
    names += sorted(p.name[: -len(".words.txt")] for p in d.glob("*.words.txt"))
    out = []
    for n in names:
        meta = _read_meta(n) if n in built else None
        out.append(
            {
                "name": n,
                "kind": "scowl" if scowl.parse_name(n) else "imported",
                "built": bool(meta and meta.get("index")),
                "words": meta.get("words") if meta else None,
                "in_use": n == in_use,
            }
        )
    return out
