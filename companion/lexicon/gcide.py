"""GCIDE, the GNU Collaborative International Dictionary of English (Debian ``dict-gcide``), read
by our own code.

Debian ships it for dictd as ``/usr/share/dictd/gcide.index`` (one line an entry: headword, TAB,
offset, TAB, length; offset and length in dictd's base 64, digits ``A-Za-z0-9+/``, dictd(8)) and
``gcide.dict.dz``, the entries' text, dictzip-compressed: a gzip file that Python's ``gzip``
module reads whole. The text is the 1913 Webster and its supplements (UTF-8, with Latin-1 bytes
in a few entries). An entry starts with its headword(s) and pronunciation between backslashes,
then its part-of-speech label and etymology: ``Apex \\A"pex\\, n.; pl. E. {Apexes}; L. {Apices}.
[L.]``. Forms the entry names (plurals, past tenses) are in braces in that header.

What this module reads of it: which words are headwords or forms of an entry, the labels of their
entries (``n.``, ``a.``, ``v. t.``, ``interj.``, ``pr. n.`` ...), the multi-word headwords of
foreign phrases (an entry whose etymology comes straight after the headword and names a foreign
language: ``Ad hoc``, ``In situ \\In si"tu\\ adv. & adj. [L.]``, ``Status quo``), and a short
definition for ``companion judge --explain``.
"""

from __future__ import annotations

import functools
import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

GCIDE_DIR = Path("/usr/share/dictd")
INDEX = "gcide.index"
DATA = "gcide.dict.dz"

_B64 = {
    c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
}

NOUN_LABELS = frozenset({"n.", "pr. n.", "prop. n.", "n. pl.", "pl.", "n.pl."})
"""Labels of a noun entry: a name is a noun, so only an entry of another part of speech vouches
for a common word (EUREKA, interj.)."""

FOREIGN_ETYMOLOGIES = (
    "L.", "F.", "It.", "Sp.", "Pg.", "G.", "Gr.", "NL.", "LL.", "OF.", "Ar.", "Heb.", "Skr.",
)  # fmt: skip
"""Etymologies that mark a phrase as foreign when they come straight after its headword, with
no English part of speech before them (Webster's way of entering ``Ad hoc``, ``Bona fide``)."""

_LABEL = re.compile(
    r"\\\s*(?:\([^)]*\)\s*)?,?\s*((?:pr\.|prop\.|p\.)?\s*[a-z][a-z. &]*?\.)(?=[\s;,\[]|$)"
)
_FORMS = re.compile(r"\{([A-Za-z\[\]\"'`*-]+)\}")
_ETYM_FIRST = re.compile(r"\\\s*(?:\([^)]*\)\s*)?[,.]?\s*\[([A-Za-z]+\.)")
_ETYM_ANY = re.compile(r"\[([A-Za-z]+\.)[,\]]")
FORM_AFTER_LABEL = re.compile(
    r"(?:(?:pl\.|plural)[^{\]]{0,20}(?:L\.|Gr\.|It\.|Heb\.)\s*|(?:imp\.|p\. p\.)[^{\]]{0,20})"
    r"\{([A-Za-z\[\]]+)\}"
)
"""A form GCIDE names in an entry's header as a classical plural (``pl. E. {Apexes}; L.
{Apices}``) or as a past or participle (``imp. & p. p. {Corraled} or {Corralled}``)."""


def _header(text: str) -> str:
    """An entry's header: its first line, and the lines after it while a bracket it opened (the
    etymology) is still open."""
    depth, j = 0, 0
    while j < len(text) and (text[j] != "\n" or depth > 0):
        depth += {"[": 1, "]": -1}.get(text[j], 0)
        j += 1
    return text[:j]


class GcideUnavailable(FileNotFoundError):
    """GCIDE's files are missing: install the Debian package ``dict-gcide`` (``make deps``)."""


def _b64(text: str) -> int:
    n = 0
    for c in text:
        n = n * 64 + _B64[c]
    return n


def _plain(headword: str) -> str:
    """A GCIDE headword or form as a-z: ``Herni[ae]`` -> ``herniae``, accents markup dropped."""
    text = re.sub(r"\[([a-z]+)\]", r"\1", headword)  # [ae] ligature, [e] for e-acute...
    return re.sub(r"[^a-z]", "", text.lower()) if text.isascii() else ""


@dataclass(frozen=True)
class Entry:
    """One GCIDE entry: its text, the part-of-speech ``label`` after the headword ("" if none),
    and whether it is a foreign phrase (see :data:`FOREIGN_ETYMOLOGIES`)."""

    headword: str
    text: str
    label: str
    foreign: bool

    def definition(self) -> str:
        """The first sense of the entry, one line, without its header (headword, pronunciation,
        label, etymology), subject tag (``(Zool.)``) or source tag (``[1913 Webster]``)."""
        lines = []
        for line in self.text[len(_header(self.text)) :].split("\n"):
            s = line.strip()
            if not s:
                if lines:
                    break
                continue
            if s.startswith("[") and s.endswith("]") or s.startswith("Syn:"):
                if lines:
                    break
                continue
            lines.append(s)
        out = " ".join(lines)
        out = re.sub(r"^\d+\.\s*", "", out)
        out = re.sub(r"^(\([A-Z][A-Za-z. &]*\)\s*)+", "", out)  # (Zool.), (Med.)
        return re.sub(r"[{}]", "", out).strip()


def _chunks(index: Path, data: Path) -> Iterator[tuple[str, int, int, str]]:
    """Each entry of the index (headword, offset, length) with its text, in the index's order
    (the database's own ``00-database-...`` entries left out)."""
    with gzip.open(data) as fh:  # dictzip is gzip with a chunk table in its extra field
        raw = fh.read()
    for line in index.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or parts[0].startswith("00-database"):
            continue
        head, off, length = parts[0], _b64(parts[1]), _b64(parts[2])
        yield head, off, length, raw[off : off + length].decode("utf-8", errors="replace")


def first_definitions(root: Path = GCIDE_DIR) -> Iterator[tuple[str, str]]:
    """``(word, definition)`` for every one-word headword (lower-case a-z, as
    :meth:`Gcide.entries` keys it): the first non-empty :meth:`Entry.definition` of its entries
    in the index's order, which is what ``Gcide(root).entries(word)`` gives first. Read as a
    stream, keeping no entry (for ``companion lexicon explain-index``: a tenth of the memory of
    :class:`Gcide`).

    Raises:
        GcideUnavailable: the Debian package is not installed.
    """
    index, data = root / INDEX, root / DATA
    if not index.exists() or not data.exists():
        raise GcideUnavailable(
            f"GCIDE is not installed: {index} is missing; install the Debian package "
            "dict-gcide (make deps does)"
        )
    done: set[str] = set()
    for head, _, _, chunk in _chunks(index, data):
        if len(head.split()) != 1:
            continue
        key = _plain(head)
        if not key or key in done:
            continue
        text = Entry(head, chunk, "", False).definition()
        if text:
            done.add(key)
            yield key, text


class Gcide:
    """GCIDE's index and entries, read once (about a second: the 40 MB text is decompressed).

    Raises:
        GcideUnavailable: the Debian package is not installed.
    """

    def __init__(self, root: Path = GCIDE_DIR):
        index, data = root / INDEX, root / DATA
        if not index.exists() or not data.exists():
            raise GcideUnavailable(
                f"GCIDE is not installed: {index} is missing; install the Debian package "
                "dict-gcide (make deps does)"
            )
        self.files = [index, data]
        self._entries: dict[str, list[Entry]] = {}
        self._forms: set[str] = set()
        self.inflections: list[tuple[str, str]] = []
        self.phrases: list[tuple[str, ...]] = []
        seen: set[tuple[int, int]] = set()
        for head, off, length, chunk in _chunks(index, data):
            top = chunk[:400].replace("\n", " ")
            m = _LABEL.search(top)
            label = re.sub(r"\s+", " ", m.group(1)).strip() if m else ""
            words = head.split()
            if len(words) > 1:  # a phrase: foreign when its own etymology is a bare language
                region = chunk[:300].split("\n\n", 1)[0]
                etym = _ETYM_ANY.search(region)
                foreign = False
                if etym is not None and etym.group(1) in FOREIGN_ETYMOLOGIES:
                    before = re.sub(r"[^a-z\s]", "", region[: etym.start()].lower())
                    phrase = " ".join(_plain(w) for w in words)
                    foreign = phrase in re.sub(r"\s+", " ", before)
            else:
                etym = _ETYM_FIRST.search(top)
                foreign = etym is not None and etym.group(1) in FOREIGN_ETYMOLOGIES and not label
            entry = Entry(head, chunk, label, foreign)
            key = _plain(head) if len(words) == 1 else ""
            if key:
                self._entries.setdefault(key, []).append(entry)
            elif len(words) > 1 and foreign:
                phrase = tuple(_plain(w) for w in words)
                if all(phrase):
                    self.phrases.append(phrase)
            if (off, length) in seen:
                continue
            seen.add((off, length))
            header = chunk.split("\n\n", 1)[0][:600]
            for form in _FORMS.findall(header):
                if " " not in form:
                    self._forms.add(_plain(form))
            if key:
                for form in FORM_AFTER_LABEL.findall(header[:500]):
                    if _plain(form) and _plain(form) != key:
                        self.inflections.append((key, _plain(form)))
        self._forms.discard("")

    def inflection_forms(self) -> list[tuple[str, str]]:
        """(headword, form) pairs, lower-case a-z, in the index's order: each form an entry's
        header names as a past or participle (``imp. & p. p.``) or a classical plural (``pl.
        ... L.``) of its one-word headword (CORRAL, CORRALED; APEX, APICES)."""
        return list(self.inflections)

    def entries(self, word: str) -> list[Entry]:
        """The entries whose headword is ``word`` (any case; a-z only), in the index's order."""
        return self._entries.get(word.lower(), [])

    def knows(self, word: str) -> bool:
        """True when ``word`` (lower case) is a one-word headword or a form an entry names in its
        header (APICES in APEX's ``pl. ... L. {Apices}``)."""
        return word in self._entries or word in self._forms

    def labels(self, word: str) -> set[str]:
        """The part-of-speech labels of ``word``'s entries."""
        return {e.label for e in self.entries(word)}


@functools.cache
def gcide(root: Path = GCIDE_DIR) -> Gcide:
    """GCIDE read once per process (see :class:`Gcide`).

    Raises:
        GcideUnavailable: the Debian package is not installed.
    """
    return Gcide(root)


QUOTING_LANGUAGES = ("F.", "G.", "It.", "Sp.", "Pg.", "D.")
"""Labels of the living languages whose words GCIDE quotes as such, right after the label
(``F. oui``, ``G. trocken``, ``It. grandioso``, ``D. tweeling``: French, German, Italian, Spanish,
Portuguese, Dutch). Latin and Greek are left out on purpose: English takes their words whole
(NODUS, HARUSPEX), so a quotation of one says less."""

_ACCENT = re.compile(r"\[[`'\"^=.~,]?([a-z]|ae|oe)\]", re.IGNORECASE)
_QUOTED = re.compile(
    r"(?<![A-Za-z])(" + "|".join(re.escape(x[:-1]) for x in QUOTING_LANGUAGES) + r")\.,?\s+"
    r"(?:&\s+[A-Z][A-Za-z]*\.,?\s+)?([A-Za-z]+)(?![A-Za-z])"
)
_WORD = re.compile(r"[a-z]+")


@dataclass
class Quotations:
    """How GCIDE's text uses one word: ``foreign`` lists each quotation of it as a word of a
    living foreign language (:data:`QUOTING_LANGUAGES`), as (label, the headwords of the entry
    that quotes it); ``other`` counts its other occurrences (in English text, or after another
    label)."""

    foreign: list[tuple[str, tuple[str, ...]]]
    other: int = 0


def quotations(words: set[str], root: Path = GCIDE_DIR) -> dict[str, Quotations]:
    """How GCIDE's entries use each of ``words`` (lower-case a-z) that occurs in them as a word
    of its own (accent markup folded: ``F. caf['e]`` is CAFE), whether or not it is a headword:
    ``Langue d'oil``, "the word for "yes" was oil, F. oui", quotes OUI as French. Reads the
    text once (about a second); for the screen's build, not for a lookup.

    Raises:
        GcideUnavailable: the Debian package is not installed.
    """
    from collections import Counter  # here, to keep this addition apart from the module's head

    index, data = root / INDEX, root / DATA
    if not index.exists() or not data.exists():
        raise GcideUnavailable(f"GCIDE is not installed: {index} is missing")
    with gzip.open(data) as fh:
        raw = fh.read()
    heads: dict[tuple[int, int], list[str]] = {}
    for line in index.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and not parts[0].startswith("00-database"):
            heads.setdefault((_b64(parts[1]), _b64(parts[2])), []).append(parts[0])
    out: dict[str, Quotations] = {}
    for (off, length), names in heads.items():
        text = _ACCENT.sub(r"\1", raw[off : off + length].decode("utf-8", errors="replace"))
        quoted: Counter[str] = Counter()
        for m in _QUOTED.finditer(text):
            word = m.group(2).lower()
            if word in words:
                q = out.setdefault(word, Quotations([]))
                q.foreign.append((m.group(1) + ".", tuple(names)))
                quoted[word] += 1
        for word, n in Counter(w for w in _WORD.findall(text.lower()) if w in words).items():
            if n > quoted[word]:
                out.setdefault(word, Quotations([])).other += n - quoted[word]
    return out
