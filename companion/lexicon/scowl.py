"""SCOWL, Kevin Atkinson's Spell Checker Oriented Word Lists (Debian package ``scowl``).

Files are ``/usr/share/dict/scowl/<spelling category>-<sub-category>.<size>`` (SCOWL README).
A list of size N is every ``words`` file of the chosen spelling categories up to size N. Only the
``words`` sub-category is read: ``proper-names``, ``upper``, ``abbreviations`` and ``contractions``
are the rulebook's "proper nouns, ... abbreviations and words requiring ... apostrophes". Of the
``words`` files, entries with an upper-case letter or an apostrophe are left out, and so are the
units and symbols SCOWL files as lower-case words: a word of two or more letters with no vowel
(``kb``, ``lx``), letter plurals and a few interjections (``hmm``, ``tsk``) aside.

Spelling categories read (SCOWL README: "the english spelling category should be used as well as
one of american, british, ..."; variant_1 holds "variants which are considered almost equal",
variant_2 "variants which are generally considered good": a standard dictionary lists both, and
they hold most of the classical plurals, strong past forms and variant inflections SCOWL knows,
APICES, HERNIAE, COMBATTING):

- ``american``: english, american, variant_1, variant_2
- ``british``: english, british, british_z (Oxford -ize spellings), british_variant_1,
  british_variant_2
- ``both``: all of the above

``variants`` (default 2) 0 leaves the variant files out, 1 reads variant_1 only. Proper names,
abbreviations and foreign words that SCOWL files as lower-case words are left out by the screen
(:mod:`companion.lexicon.screen`, a second look with WordNet and GCIDE).
Upstream files are ISO-8859-1; Debian ships them as UTF-8 (changelog: "Distribute all scowl files
as utf-8"): each file is read as UTF-8 and, failing that, as ISO-8859-1.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from companion.lexicon.words import fold, is_plain_word

SCOWL_DIR = Path("/usr/share/dict/scowl")
ALL_SIZES = (10, 20, 35, 40, 50, 55, 60, 70, 80, 95)
SIZES = (35, 40, 50, 55, 60, 70, 80, 95)
"""Sizes offered (SCOWL: 35 small, 50 medium, 70 large, 80 huge "words people like to use in word
games", 95 insane)."""
SPELLINGS = ("american", "british", "both")
DEFAULT_SIZE = 70
DEFAULT_SPELLING = "both"
DEFAULT_VARIANTS = 2

_CATEGORIES = {
    "american": (("english", 0), ("american", 0), ("variant_1", 1), ("variant_2", 2)),
    "british": (
        ("english", 0),
        ("british", 0),
        ("british_z", 0),
        ("british_variant_1", 1),
        ("british_variant_2", 2),
    ),
}
_CATEGORIES["both"] = tuple(dict.fromkeys(_CATEGORIES["american"] + _CATEGORIES["british"]))
VARIANT_3 = "variant_3"
"""SCOWL's "variants which are seldom used" (MANOEUVER, ADVERTIZE): never read whole; the rule
``second source`` (:mod:`companion.lexicon.screen`) takes those WordNet vouches for."""


@dataclass(frozen=True)
class ScowlParams:
    """What a SCOWL lexicon is built from: ``size`` (one of SIZES), ``spelling`` (one of
    SPELLINGS), ``variants`` (0, 1 or 2: the variant levels included)."""

    size: int = DEFAULT_SIZE
    spelling: str = DEFAULT_SPELLING
    variants: int = DEFAULT_VARIANTS

    @property
    def name(self) -> str:
        """The lexicon's name: ``scowl-70-both``; ``-v0``/``-v1`` appended off the default."""
        suffix = "" if self.variants == DEFAULT_VARIANTS else f"-v{self.variants}"
        return f"scowl-{self.size}-{self.spelling}{suffix}"

    def categories(self) -> list[str]:
        """The SCOWL spelling categories read, in order."""
        return [c for c, level in _CATEGORIES[self.spelling] if level <= self.variants]

    def files(self, root: Path | None = None) -> list[Path]:
        """The ``words`` files under ``root`` (default SCOWL_DIR) that exist for these parameters,
        in reading order."""
        root = root or SCOWL_DIR
        out = []
        for cat in self.categories():
            for size in ALL_SIZES:
                if size <= self.size:
                    path = root / f"{cat}-words.{size}"
                    if path.exists():
                        out.append(path)
        return out

    def vouched_files(self, root: Path | None = None) -> list[Path]:
        """The ``words`` files outside the list whose entries the rule ``second source`` may add
        (:mod:`companion.lexicon.screen`: those WordNet has as a lower-case lemma, or as an
        inflection of one). Only for a list of size :data:`SECOND_SOURCE_FROM` or more: the
        files of the next size up in the same categories (70: the size-80 files; 80: the size-95
        files); and, with every variant level read (``variants`` 2, spellings ``american`` and
        ``both``), the ``variant_3`` files up to the list's size. In reading order; empty for a
        smaller list."""
        root = root or SCOWL_DIR
        out: list[Path] = []
        if self.size < SECOND_SOURCE_FROM:
            return out
        larger = [s for s in ALL_SIZES if s > self.size]
        if larger:
            for cat in self.categories():
                path = root / f"{cat}-words.{larger[0]}"
                if path.exists():
                    out.append(path)
        if self.variants == 2 and self.spelling != "british":
            for size in ALL_SIZES:
                path = root / f"{VARIANT_3}-words.{size}"
                if size <= self.size and path.exists():
                    out.append(path)
        return out


SECOND_SOURCE_FROM = 70
"""The smallest size whose lists take the words the screen's rules add (the next size's and
variant_3's words WordNet vouches for, the forms GCIDE names): smaller lists are chosen for being
small (a children's table, a quick game) and are read as SCOWL has them."""


def parse_name(name: str) -> ScowlParams | None:
    """The parameters named by ``scowl-SIZE[-SPELLING][-vN]`` (e.g. ``scowl-80``,
    ``scowl-70-british``, ``scowl-95-both-v2``), or None if ``name`` is not of that form or names a
    size, spelling or variant level that is not offered."""
    parts = name.lower().split("-")
    if len(parts) < 2 or parts[0] != "scowl" or not parts[1].isascii() or not parts[1].isdigit():
        return None
    if len(parts[1]) > 3:
        return None
    size, spelling, variants = int(parts[1]), DEFAULT_SPELLING, DEFAULT_VARIANTS
    rest = parts[2:]
    if rest and rest[0] in SPELLINGS:
        spelling = rest.pop(0)
    if rest and len(rest[0]) == 2 and rest[0][0] == "v" and rest[0][1] in "012":
        variants = int(rest.pop(0)[1])
    if rest or size not in SIZES:
        return None
    return ScowlParams(size, spelling, variants)


def read_text(path: Path) -> str:
    """A SCOWL file's text: UTF-8 (Debian) or, failing that, ISO-8859-1 (upstream)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


BUILD_RULE = 4
"""Version of the rule for a ``words`` entry; part of a SCOWL lexicon's build parameters, so a
change of rule rebuilds every index built under the old one. 1: plain a-z words; 2: also no
vowelless abbreviations; 3: also the screen's names, abbreviations and foreign words; 4: also
the words the rules ``second source`` and ``GCIDE form`` add (:mod:`companion.lexicon.screen`)."""

VOWELS = frozenset("aeiouy")

VOWELLESS_WORDS = frozenset(
    {
        # interjections, with the verb forms SCOWL lists (tsk, tsks)
        "brr", "brrr", "grr", "grrr", "hm", "hmm", "mm", "mmm", "pfft", "pht", "phpht", "psst",
        "pssts", "pst", "psts", "sh", "shh", "ssh", "tch", "tsk", "tsks", "tsktsk", "tsktsks", "zzz",
        # Welsh loanwords, w a vowel (a valley; a lyre)
        "cwm", "cwms", "crwth", "crwths",
        # an adjective (to the nth degree) and a verb (to pwn)
        "nth", "pwn", "pwns",
    }
)  # fmt: skip
"""Words of two or more letters without a vowel that are words, not abbreviations: the
interjections, loanwords and the two other such words SCOWL lists in its ``words`` files (sizes up
to 95), and the common interjections word-game lists also take (HM, MM, MMM, GRRR)."""


def is_vowelless_abbreviation(entry: str) -> bool:
    """True when ``entry`` (lower-case a-z) is read as an abbreviation for having no vowel.

    SCOWL files some units and symbols as lower-case words (``kb``, ``mb``, ``lm``, ``ln``, ``lx``,
    ``mf`` at size 70; its abbreviations files carry them only as ``KB``, ``Mb``, ``Ln``...), and
    Iago's rulebook leaves abbreviations out. A word of two or more letters with no vowel (a e i
    o u y) is such an abbreviation, unless it is a letter's plural (``cs``, ``ms``: a letter
    followed by ``s``) or one of VOWELLESS_WORDS (interjections such as ``hmm``, ``tsk``; ``cwm``,
    ``crwth``, ``nth``, ``pwn``).
    """
    if len(entry) < 2 or not VOWELS.isdisjoint(entry):
        return False
    if len(entry) == 2 and entry[1] == "s":
        return False
    return entry not in VOWELLESS_WORDS


def reason_left_out(entry: str) -> str | None:
    """Why a SCOWL ``words`` entry (folded) is left out, or None when it is kept: ``"apostrophe"``,
    ``"upper case"``, ``"other character"`` or ``"no vowel"`` (an abbreviation, see
    ``is_vowelless_abbreviation``)."""
    if is_plain_word(entry):
        return "no vowel" if is_vowelless_abbreviation(entry) else None
    if "'" in entry:
        return "apostrophe"
    if any(c.isupper() for c in entry):
        return "upper case"
    return "other character"


def iter_words(
    files: list[Path],
    tally: Counter | None = None,
    progress: Callable[[int], None] | None = None,
    screen: Callable[[str], str | None] | None = None,
) -> Iterator[str]:
    """Every kept word (lower-case a-z, accents folded) of ``files``, in file order, with repeats.

    ``tally`` (if given) counts ``"read"``, ``"kept"`` and each reason an entry was left out;
    ``progress`` is called with the number of bytes of each file once it is read; ``screen``
    (``Screen.why`` of :mod:`companion.lexicon.screen`) names a second reason to leave a plain
    word out (``"name"``, ``"abbreviation"``, ``"foreign"``, ``"foreign word"``) or None to keep
    it.
    """
    for path in files:
        text = read_text(path)
        for line in text.splitlines():
            entry = line.strip()
            if not entry:
                continue
            entry = fold(entry)
            why = reason_left_out(entry)
            if why is None and screen is not None:
                why = screen(entry)
            if tally is not None:
                tally["read"] += 1
                tally[why or "kept"] += 1
            if why is None:
                yield entry
        if progress is not None:
            progress(len(text))


SUB_CATEGORIES = ("words", "upper", "proper-names", "abbreviations", "contractions")


def short_entries(
    params: ScowlParams, root: Path | None = None, screen: Callable[[str], str | None] | None = None
) -> dict:
    """The one- and two-letter entries of SCOWL for ``params``, every sub-category read.

    Returns ``{"accepted": [...], "left_out": {sub_category: [...]}, "rejected": [...]}``:
    ``accepted`` the one- and two-letter words the lexicon holds (upper case, sorted);
    ``left_out`` the entries of at most two letters (an apostrophe aside: ``A's``, ``I'd``) of each
    sub-category that the lexicon leaves out, as SCOWL spells them (``words`` entries left out by
    ``screen``, as in :func:`iter_words`, under ``"screen"``); ``rejected`` the distinct
    one- and two-letter strings SCOWL has only in a left-out form (upper case, sorted).
    For the documentation and ``companion lexicon info --short``.
    """
    root = root or SCOWL_DIR
    kept: set[str] = set()
    left_out: dict[str, set[str]] = {sub: set() for sub in SUB_CATEGORIES}
    left_out["screen"] = set()
    for cat in params.categories():
        for sub in SUB_CATEGORIES:
            for size in ALL_SIZES:
                path = root / f"{cat}-{sub}.{size}"
                if size > params.size or not path.exists():
                    continue
                for line in read_text(path).splitlines():
                    entry = fold(line.strip())
                    if not entry or sum(c.isalpha() for c in entry) > 2 or len(entry) > 3:
                        continue
                    if sub == "words" and reason_left_out(entry) is None:
                        if screen is not None and screen(entry):
                            left_out["screen"].add(entry)
                        else:
                            kept.add(entry)
                    else:
                        left_out[sub].add(entry)
    rejected = {
        e.lower()
        for entries in left_out.values()
        for e in entries
        if e.isalpha() and e.isascii() and e.lower() not in kept
    }
    return {
        "accepted": sorted(w.upper() for w in kept),
        "left_out": {sub: sorted(v) for sub, v in left_out.items()},
        "rejected": sorted(w.upper() for w in rejected),
    }
