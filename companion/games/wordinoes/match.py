"""The Wordinoes match judge: do two adjoining words match, and on what evidence?

Source: Wordinoes rulebook, "Wordinoes Matching". A Wordino can be played next to another if the
two adjoining words

- make a new word, hyphenated or not (POLICE + MAN = POLICEMAN)          -> ``compound``
- make a commonly used phrase (LAST + WORD = LAST WORD)                   -> ``phrase``
- are commonly associated words (DOG + BONE)                              -> ``association``
- are commonly accepted opposites (HIGH + LOW)                            -> ``opposite``
- are identical (OVER + OVER)                                             -> ``identical``
- rhyme (BAND + HAND; not HANG + HAND, HAND + BIND, COUGH + TOUGH)        -> ``rhyme``

"Blanks" (written ``*`` here) match any word. Homonyms (SUN for SON) do not match unless the table
plays the "Allow Homonyms?" variation (``homonyms=True``).

Compounds and phrases are read in the order of the chain, LEFT then RIGHT (POLICE + MAN, not
MAN + POLICE); the other relations do not depend on the order.

Where the evidence comes from (all offline):

- compound: the table's lexicon (``companion.lexicon.open_lexicon()``), else WordNet's lemmas; a
  hyphenated WordNet lemma (HIGH-LOW) counts too.
- phrase: WordNet's multi-word lemmas (LAST_WORD, ICE_CREAM, HOT_DOG), inflections allowed.
- opposite: WordNet antonym pointers between any senses of the two words (also through a synonym in
  the same synset, and, for adjectives, through a "similar to" satellite: WordNet's own indirect
  antonyms), and :data:`CURATED_OPPOSITES` for common pairs WordNet 3.0 lacks.
- association: WordNet's semantic pointers between any two senses (synonym, hypernym, hyponym,
  meronym, holonym, domain, attribute, entailment, cause, see-also, similar-to, derivation); a
  definition of one word that names the other; a WordNet entry that names both (FISH AND CHIPS);
  or the two words used together in at least two other WordNet definitions or examples. A single
  such use is only a hint. Before WordNet, :func:`curated_associations` (``associations.txt``
  beside this module: common pairs WordNet misses, such as the rulebook's DOG + BONE, KNIFE + FORK,
  SALT + PEPPER; matched on base forms too). With no evidence at all the association is for the
  players to vote on (``needs_vote``). Function words (OVER, THE...) are used in too many
  definitions to be evidence that way.
- rhyme: :mod:`companion.lexicon.phonetics` (CMUdict, every pronunciation).

Names are not evidence: a capitalised WordNet lemma (SUN_MYUNG_MOON, NEW_YORK, Sunday) is neither
a compound, a phrase, nor a sense through which two words are associated, and entries whose every
lemma is capitalised are left out of the definitions index; under "Allow Homonyms?" a word stands
only for homophones that are common words (in the lexicon, or a lower-case WordNet lemma).

Words are folded as the lexicon folds them (CAFÉ is CAFE) before they are judged. The sources are
read from a compact cache built on first use (:mod:`companion.games.wordinoes.judgecache`,
:func:`companion.lexicon.phonetics.cmudict`): a one-off call answers in a fraction of a second
instead of seconds, with the same answers.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import CompanionError
from companion.games.wordinoes.sources import (
    WORDNET_DATA,
    Glosses,
    is_common_name,
)
from companion.games.wordinoes.sources import (
    base_forms as _base_forms,
)
from companion.games.wordinoes.sources import (
    forms as _forms,
)
from companion.games.wordinoes.sources import (
    read_glosses as _read_glosses,
)
from companion.lexicon import phonetics
from companion.lexicon.words import fold
from companion.textformats import shown as shown_value

BLANK = "*"
"""How a blank end (the Wordinoes logo) is written."""
BLANK_SPELLINGS = ("*", "_")
"""What is read as a blank end on input."""

KINDS = ("identical", "compound", "phrase", "opposite", "rhyme", "association")
"""The relation kinds, in the order they are reported."""

CURATED_OPPOSITES: tuple[tuple[str, str], ...] = (
    ("in", "out"),
    ("happy", "sad"),
    ("before", "after"),
    ("summer", "winter"),
    ("over", "under"),
    ("life", "death"),
    ("land", "sea"),
    ("fire", "water"),
    ("hello", "goodbye"),
    ("smile", "frown"),
    ("ebb", "flow"),
    ("sunrise", "sunset"),
    ("dawn", "dusk"),
    ("morning", "evening"),
    ("yesterday", "tomorrow"),
    ("ceiling", "floor"),
    ("arrive", "depart"),
    ("cheap", "expensive"),
    ("asleep", "awake"),
    ("above", "below"),
)
"""Commonly accepted opposites that WordNet 3.0 has no antonym pointer for (checked one by one
against its antonym, synonym-of-antonym and similar-to links). Each is the first antonym a general
English dictionary gives for the word; pairs are listed once, either order matches."""

# Function words: used in so many definitions that a shared definition says nothing.
FUNCTION_WORDS = frozenset(
    """a about above across after against all along also although am among an and any are as at
    be been before being below between both but by can could did do does down during each either
    for from had has have he her here him his how i if in into is it its just may me might more
    most must my no nor not of off on once one only or other our out over own same she should so
    some such than that the their them then there these they this those through to too under
    until up upon very was we were what when where which while who whom whose why will with would
    yet you your""".split()  # noqa: SIM905
)


ASSOCIATIONS_FILE = Path(__file__).with_name("associations.txt")
"""The curated common associations (see :func:`curated_associations`)."""

MIN_CO_MENTIONS = 2
"""Co-mentions needed for an association: one shared sentence may be chance."""

MIN_CO_MENTION_RATIO = 8.0
"""Co-mentions over chance needed for an association: 8 is 3 bits of pointwise mutual information,
the threshold Church and Hanks (1990, "Word association norms, mutual information, and
lexicography") found to pick out interesting associations. DOG + BONE share two WordNet examples,
1.8 times chance: a hint for the voters, not evidence."""

_POINTERS = (
    ("hypernyms", "hypernym"),
    ("instance_hypernyms", "instance of"),
    ("hyponyms", "hyponym"),
    ("instance_hyponyms", "instance"),
    ("member_holonyms", "member of"),
    ("part_holonyms", "part of"),
    ("substance_holonyms", "substance of"),
    ("member_meronyms", "has member"),
    ("part_meronyms", "has part"),
    ("substance_meronyms", "has substance"),
    ("topic_domains", "topic"),
    ("region_domains", "region"),
    ("usage_domains", "usage"),
    ("in_topic_domains", "topic of"),
    ("in_region_domains", "region of"),
    ("in_usage_domains", "usage of"),
    ("attributes", "attribute"),
    ("entailments", "entails"),
    ("causes", "causes"),
    ("also_sees", "see also"),
    ("similar_tos", "similar to"),
    ("verb_groups", "verb group"),
)


class MatchInputError(CompanionError, ValueError):
    """A tile word that is not letters A-Z (or ``*`` for a blank end)."""


def check_word(word: object, what: str = "word") -> str:
    """``word`` in upper case if it is letters A-Z, or :data:`BLANK` for a blank (``*`` or ``_``).

    Accents and ligatures are folded first, as the lexicon folds them
    (:func:`companion.lexicon.words.fold`): CAFÉ is CAFE, ÆON is AEON.

    Raises:
        MatchInputError: empty, not a string, or a character other than A-Z after folding.
    """
    if not isinstance(word, str) or not word.strip():
        raise MatchInputError(
            f"{what} {shown_value(word)} is empty: accepted are letters A-Z or * (blank)"
        )
    w = fold(word.strip())
    if w in BLANK_SPELLINGS:
        return BLANK
    if not w:
        raise MatchInputError(
            f"{what} {shown_value(word)} holds no letter (only accents): accepted are one word of "
            "letters A-Z, or * (blank)"
        )
    if not (w.isascii() and w.isalpha()):
        bad = next(c for c in w if not (c.isascii() and c.isalpha()))
        raise MatchInputError(
            f"{what} {shown_value(word)} has {bad!r}: accepted are one word of letters A-Z (accents "
            "are folded: É is E), or * (blank)"
        )
    return w.upper()


@dataclass(frozen=True)
class Relation:
    """One reason two words match.

    ``kind`` is one of :data:`KINDS`; ``evidence`` a sentence a player can check; ``source``
    where it was found (``lexicon:<name>``, ``wordnet``, ``cmudict``, ``curated``, ``rulebook``);
    ``via`` names the homophone used under the homonyms variation (``"SUN as SON"``), else None.
    """

    kind: str
    evidence: str
    source: str
    via: str | None = None

    def to_json(self) -> dict:
        """A JSON-ready dict: ``kind``, ``evidence``, ``source`` and ``via`` when set."""
        out = {"kind": self.kind, "evidence": self.evidence, "source": self.source}
        if self.via:
            out["via"] = self.via
        return out


@dataclass(frozen=True)
class MatchResult:
    """The judge's answer for LEFT + RIGHT (left word on the left in the chain).

    ``match`` is True when a blank is involved or any relation was found. ``needs_vote`` is True
    when nothing was found: whether the words are "commonly associated" is then for the players.
    ``hints`` are weak signs of an association (one shared use in WordNet), shown to the voters.
    """

    left: str
    right: str
    match: bool
    relations: tuple[Relation, ...]
    needs_vote: bool
    blank: bool = False
    hints: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    homonyms: bool = False

    @property
    def kinds(self) -> list[str]:
        """The kinds of relation found, in :data:`KINDS` order, each once."""
        found = {r.kind for r in self.relations}
        return [k for k in KINDS if k in found]

    def to_json(self) -> dict:
        """The contract's JSON: ``match``, ``relations``, ``needs_vote`` and the details."""
        return {
            "left": self.left,
            "right": self.right,
            "match": self.match,
            "relations": [r.to_json() for r in self.relations],
            "needs_vote": self.needs_vote,
            "blank": self.blank,
            "homonyms": self.homonyms,
            "hints": list(self.hints),
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """One short line for a small screen: ``MATCH: rhyme`` / ``NO MATCH FOUND: vote``."""
        if self.blank:
            return "MATCH: blank"
        if self.match:
            return "MATCH: " + ", ".join(self.kinds)
        return "NO MATCH FOUND: vote"


# --- the judge ---------------------------------------------------------------------------------


@dataclass
class MatchJudge:
    """Judges LEFT + RIGHT. Holds the word sources, opened lazily and kept for the next call.

    Args:
        lexicon: any container of lower- or upper-case words supporting ``in`` (the table's
            :class:`companion.lexicon.Lexicon`); None opens the table's lexicon when the lexicon
            package offers ``open_lexicon``, else compounds come from WordNet alone.
        homonyms: the "Allow Homonyms?" variation: a word may stand for a homophone (SUN for SON).
        wordnet: a callable returning nltk's WordNet reader (default
            :func:`companion.lexicon.wordnet.wordnet`).
        wordnet_data: the folder of WordNet's ``data.*`` files, for co-occurrence.
        cached: answer from the compact cache of WordNet, lemminflect and CMUdict in
            ``data_dir()/cache`` (:mod:`companion.games.wordinoes.judgecache`, built on first
            use) when ``wordnet`` and ``wordnet_data`` are the defaults; False reads the sources
            themselves (the same answers, seconds to open). A cache that can neither be read nor
            built falls back to the sources.
    """

    lexicon: Container[str] | None = None
    homonyms: bool = False
    wordnet: Callable | None = None
    wordnet_data: Path = WORDNET_DATA
    cached: bool = True
    _glosses: object | None = field(default=None, init=False, repr=False)
    _cache: object | None = field(default=None, init=False, repr=False)
    _lexicon_name: str | None = field(default=None, init=False, repr=False)
    _lexicon_problem: str | None = field(default=None, init=False, repr=False)

    # -- sources --

    def _judge_cache(self):
        if self._cache is None:
            self._cache = False
            if self.cached and self.wordnet is None and self.wordnet_data == WORDNET_DATA:
                from companion.games.wordinoes.judgecache import judge_cache

                try:
                    self._cache = judge_cache()
                except (OSError, sqlite3.Error, CompanionError):
                    self._cache = False  # read the sources themselves
        return self._cache

    @property
    def _cmu(self) -> phonetics.CmuDict:
        return phonetics.cmudict() if self.cached else phonetics.CmuDict()

    def _forms(self, word: str) -> frozenset[str]:
        cache = self._judge_cache()
        return cache.forms(word) if cache else _forms(word)

    def _base_forms(self, word: str) -> tuple[str, ...]:
        cache = self._judge_cache()
        return cache.base_forms(word) if cache else _base_forms(word)

    def _wn(self):
        cache = self._judge_cache()
        if cache:
            return cache.wordnet
        if self.wordnet is None:
            from companion.lexicon.wordnet import wordnet

            self.wordnet = wordnet
        return self.wordnet()

    def _lex(self) -> Container[str] | None:
        if self.lexicon is None:
            try:
                from companion.lexicon import open_lexicon  # type: ignore[attr-defined]
            except ImportError:
                self._lexicon_name = None
                return None
            try:
                self.lexicon = open_lexicon()
            except CompanionError as exc:
                # compounds from WordNet alone; the answer says why
                self._lexicon_problem = f"the lexicon could not be opened ({exc}): WordNet only"
                self.lexicon = frozenset()
        if self._lexicon_name is None:
            self._lexicon_name = str(getattr(self.lexicon, "name", "table"))
        return self.lexicon

    def _gloss_index(self) -> Glosses:
        if self._glosses is None:
            cache = self._judge_cache()
            self._glosses = cache.glosses if cache else _read_glosses(self.wordnet_data)
        return self._glosses

    # -- the public call --

    def match(self, left: str, right: str) -> MatchResult:
        """Judge ``left`` + ``right`` (``left`` is the left word of the two adjoining ends).

        Raises:
            MatchInputError: a word that is not letters A-Z or ``*``.
        """
        a, b = check_word(left, "left word"), check_word(right, "right word")
        if BLANK in (a, b):
            return MatchResult(
                a, b, True, (), False, blank=True, notes=("a blank end matches any word",),
                homonyms=self.homonyms,
            )  # fmt: skip
        relations = list(self._relations(a, b))
        notes: list[str] = []
        sounds = self._homophones(a, b)
        if sounds and not self.homonyms:
            notes.append(
                f"{a} and {b} sound alike ({', '.join(sounds)}): homonyms do not match "
                "unless the table allows them"
            )
        if self.homonyms:
            seen = {(r.kind, r.evidence) for r in relations}
            for a2, b2 in self._homophone_pairs(a, b):
                via = " and ".join(f"{x} as {y}" for x, y in ((a, a2), (b, b2)) if x != y)
                for r in self._relations(a2, b2):
                    if (r.kind, r.evidence) not in seen:
                        seen.add((r.kind, r.evidence))
                        relations.append(Relation(r.kind, r.evidence, r.source, via))
        if self._lexicon_problem:
            notes.append(self._lexicon_problem)
        relations.sort(key=lambda r: KINDS.index(r.kind))
        hints: tuple[str, ...] = ()
        if not relations:
            hints = tuple(self._weak_association(a, b))
        return MatchResult(
            a, b, bool(relations), tuple(relations), not relations, hints=hints,
            notes=tuple(notes), homonyms=self.homonyms,
        )  # fmt: skip

    def _relations(self, a: str, b: str):
        yield from self.identical(a, b)
        yield from self.compound(a, b)
        yield from self.phrase(a, b)
        yield from self.opposite(a, b)
        yield from self.rhyme(a, b)
        if a != b:
            yield from self.association(a, b)

    def _homophones(self, a: str, b: str) -> list[str]:
        if a != b and phonetics.are_homophones(a, b, self._cmu):
            return [f"{a} sounds like {b}"]
        return []

    def _homophone_pairs(self, a: str, b: str):
        alts_a = [a] + self._common_homophones(a)
        alts_b = [b] + self._common_homophones(b)
        for a2 in alts_a:
            for b2 in alts_b:
                if (a2, b2) != (a, b):
                    yield a2, b2

    def _common_homophones(self, word: str) -> list[str]:
        """CMUdict's other spellings of ``word`` that are common words: in the lexicon, or a
        WordNet lemma that is not capitalised (BARE gives BEAR, not the name BEHR)."""
        lex, wn = self._lex(), self._wn()
        out = []
        for h in phonetics.homophones(word, self._cmu):
            in_lexicon = lex is not None and (h in lex or h.upper() in lex)
            if in_lexicon or any(is_common_name(x.name()) for x in wn.lemmas(h)):
                out.append(h.upper())
        return out

    # -- the six relations; each yields Relation objects --

    def identical(self, a: str, b: str):
        """OVER + OVER: the same word (case ignored)."""
        if a == b:
            yield Relation("identical", f"{a} and {b} are the same word", "rulebook")

    def compound(self, a: str, b: str):
        """POLICE + MAN: LEFT+RIGHT is a word of the lexicon or WordNet, with or without a hyphen."""
        joined = (a + b).lower()
        lex = self._lex()
        if lex is not None and (joined in lex or joined.upper() in lex):
            yield Relation(
                "compound",
                f"{joined.upper()} is a word of the lexicon {self._lexicon_name}",
                f"lexicon:{self._lexicon_name}",
            )
            return
        wn = self._wn()
        for form, shown in ((joined, joined.upper()), (f"{a}-{b}".lower(), f"{a}-{b}")):
            lemma = _lemma_of(wn, form)
            if lemma:
                extra = "" if lemma == form else f" ({lemma.upper()})"
                yield Relation("compound", f"{shown}{extra} is a word of WordNet", "wordnet")
                return

    def phrase(self, a: str, b: str):
        """LAST + WORD: "LEFT RIGHT" is a multi-word entry of WordNet (inflections allowed)."""
        form = f"{a}_{b}".lower()
        wn = self._wn()
        lemma = _lemma_of(wn, form)
        if lemma:
            synset = next(
                s
                for s in wn.synsets(lemma)
                if any(x.name().lower() == lemma and is_common_name(x.name()) for x in s.lemmas())
            )
            yield Relation(
                "phrase",
                f'"{lemma.replace("_", " ").upper()}" is a WordNet entry: {synset.definition()}',
                "wordnet",
            )

    def opposite(self, a: str, b: str):
        """HIGH + LOW: antonyms in WordNet over all senses, or a curated common pair."""
        if a == b:
            return
        la, lb = a.lower(), b.lower()
        if (la, lb) in _CURATED or (lb, la) in _CURATED:
            yield Relation("opposite", f"{a} and {b} are common opposites", "curated")
            return
        wn = self._wn()
        for x, y in ((la, lb), (lb, la)):
            found = _antonym_link(wn, x, y)
            if found:
                yield Relation("opposite", found, "wordnet")
                return

    def rhyme(self, a: str, b: str):
        """BAND + HAND: the last stressed vowel and what follows sound the same."""
        r = phonetics.rhyme(a, b, self._cmu)
        if r is not None:
            yield Relation("rhyme", r.describe(), _rhyme_source(r))

    def association(self, a: str, b: str):
        """DOG + BONE: the pair (or its base forms: DOGS + BONES) is on the curated list of common
        associations, else WordNet evidence that the two words are commonly associated."""
        found = _curated_association(a, b, self._base_forms)
        if found:
            yield Relation("association", found, "curated")
            return
        found = self._wordnet_association(a, b)
        if found:
            yield Relation("association", found, "wordnet")

    def _wordnet_association(self, a: str, b: str) -> str | None:
        wn = self._wn()
        la, lb = a.lower(), b.lower()
        found = _pointer_link(wn, la, lb) or _pointer_link(wn, lb, la)
        if found:
            return found
        if la in FUNCTION_WORDS or lb in FUNCTION_WORDS:
            return None
        found = _definition_mention(wn, la, lb, self._forms)
        found = found or _definition_mention(wn, lb, la, self._forms)
        if found:
            return found
        both = self._co_mentions(la, lb)
        named = [e for e in (self._names_both(i, la, lb) for i in both) if e]
        if named:
            return f"WordNet has the entry {named[0]!r}"
        ratio = self._co_mention_ratio(la, lb, len(both))
        if len(both) >= MIN_CO_MENTIONS and ratio >= MIN_CO_MENTION_RATIO:
            uses = "; ".join(self._quote(i) for i in both[:2])
            return (
                f"{a} and {b} are used together in {len(both)} WordNet entries "
                f"({ratio:.0f} times chance): {uses}"
            )
        return None

    def _weak_association(self, a: str, b: str):
        la, lb = a.lower(), b.lower()
        if la in FUNCTION_WORDS or lb in FUNCTION_WORDS:
            return
        both = self._co_mentions(la, lb)
        if both:
            times = "once" if len(both) == 1 else f"{len(both)} times"
            yield (
                f"{a} and {b} are used together {times} in WordNet "
                f"({self._co_mention_ratio(la, lb, len(both)):.1f} times chance): "
                + "; ".join(self._quote(i) for i in both[:2])
            )

    def _co_mentions(self, la: str, lb: str) -> list[int]:
        return sorted(self._lines_with(la) & self._lines_with(lb))

    def _lines_with(self, word: str) -> frozenset[int]:
        return self._gloss_index().lines_with(word)

    def _co_mention_ratio(self, la: str, lb: str, observed: int) -> float:
        """Observed co-mentions over those expected by chance (``df_a * df_b / entries``)."""
        entries = self._gloss_index().entries
        expected = len(self._lines_with(la)) * len(self._lines_with(lb)) / entries
        return observed / expected if expected else 0.0

    def _names_both(self, i: int, la: str, lb: str) -> str | None:
        # a lemma of three words or more naming both: FISH AND CHIPS, PEPPER-AND-SALT
        # (two-word lemmas are compounds and phrases, which are read in order)
        lemmas = self._gloss_index().lemmas_of(i)
        # the two joined directly or by one small word: BREAD AND BUTTER, not LINE AT A TIME
        for words in lemmas:
            near = la in words and lb in words and abs(words.index(la) - words.index(lb)) <= 2
            if near and len(words) >= 3:
                return " ".join(words).upper()
        return None

    def _quote(self, i: int) -> str:
        gloss = self._gloss_index().gloss(i)
        name = self._gloss_index().name(i).replace("_", " ")
        return f"{name}: {gloss[:90]}" + ("..." if len(gloss) > 90 else "")


_CURATED = frozenset(CURATED_OPPOSITES)


class CuratedListError(CompanionError, ValueError):
    """A line of the curated associations file that is not two words of letters A-Z."""


@functools.cache
def curated_associations(path: Path = ASSOCIATIONS_FILE) -> frozenset[frozenset[str]]:
    """The curated common associations (``associations.txt``): each an order-free pair of two
    different lower-case words (``frozenset({"dog", "bone"})``).

    Source: written by hand in the spirit of free-association norms (the file's header says how),
    for pairs WordNet misses, the rulebook's own DOG + BONE first. One pair a line; ``#`` comments.

    Raises:
        CuratedListError: a line that is not two different words of letters A-Z (names the file
            and line).
        OSError: the file cannot be read.
    """
    pairs = set()
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        words = raw.partition("#")[0].split()
        if not words:
            continue
        ok = all(w.isascii() and w.isalpha() for w in words)
        if len(words) != 2 or not ok or words[0].lower() == words[1].lower():
            raise CuratedListError(
                f"{path}, line {number}: {raw.strip()!r} is not a pair: accepted is two different "
                "words of letters A-Z separated by spaces"
            )
        pairs.add(frozenset(w.lower() for w in words))
    return frozenset(pairs)


def _curated_association(a: str, b: str, base_forms=None) -> str | None:
    """Evidence that ``a`` + ``b`` (or their base forms) are a curated common association;
    ``base_forms`` is :func:`_base_forms` or the cache's copy of it."""
    base_forms = base_forms or _base_forms
    pairs = curated_associations()
    for x in base_forms(a.lower()):
        for y in base_forms(b.lower()):
            if x != y and frozenset((x, y)) in pairs:
                forms = "" if (x, y) == (a.lower(), b.lower()) else f" ({x.upper()} + {y.upper()})"
                return f"{a} and {b}{forms} are on the curated list of common associations"
    return None


def _rhyme_source(r: phonetics.Rhyme) -> str:
    return "cmudict" if r.left.source == r.right.source == "cmudict" else "cmudict+analogy"


def _lemma_of(wn, form: str) -> str | None:
    """The common WordNet lemma name ``form`` is (or is an inflection of), or None."""
    if wn.lemmas(form):
        # nltk applies morphy: check the base forms it found
        for pos in ("n", "v", "a", "r"):
            for base in wn._morphy(form, pos):
                if any(is_common_name(x.name()) for x in wn.lemmas(base, pos)):
                    return base
    return None


def _common_synsets(wn, word: str) -> list:
    """The senses of ``word`` in which it is a common word: those where a lemma naming it (or a
    base form of it) is not capitalised. MOON keeps moon.n.01 (``Moon``, ``moon``), not moon.n.05
    (``Moon``, ``Sun_Myung_Moon``)."""
    bases = {f for pos in ("n", "v", "a", "r") for f in wn._morphy(word, pos)}
    return [
        s
        for s in wn.synsets(word)
        if any(x.name().lower() in bases and is_common_name(x.name()) for x in s.lemmas())
    ]


def _name(synset) -> str:
    return synset.name()


def _antonym_link(wn, x: str, y: str) -> str | None:
    """Evidence that some sense of ``x`` is an antonym of some sense of ``y``, or None."""
    targets = set(wn.synsets(y))
    if not targets:
        return None
    for synset in wn.synsets(x):
        for lemma in synset.lemmas():
            for anti in lemma.antonyms():
                if anti.synset() in targets:
                    return (
                        f"WordNet: {lemma.name().replace('_', ' ')} ({synset.name()}) is the "
                        f"antonym of {anti.name().replace('_', ' ')} ({anti.synset().name()})"
                    )
                for similar in sorted(anti.synset().similar_tos(), key=_name):
                    if similar in targets:
                        return (
                            f"WordNet: {lemma.name()} ({synset.name()}) is the antonym of "
                            f"{anti.name()}, similar to {y} ({similar.name()})"
                        )
    return None


def _pointer_link(wn, x: str, y: str) -> str | None:
    """Evidence of a WordNet semantic pointer from a sense of ``x`` to a sense of ``y`` (senses
    in which they are common words, not names)."""
    targets = set(_common_synsets(wn, y))
    if not targets:
        return None
    for synset in _common_synsets(wn, x):
        if synset in targets:
            return f"WordNet: {x} and {y} are synonyms ({synset.name()}: {synset.definition()})"
        for method, label in _POINTERS:
            # nltk keeps a synset's pointers in a set: read them in name order
            for other in sorted(getattr(synset, method)(), key=_name):
                if other in targets:
                    return f"WordNet: {synset.name()} --{label}--> {other.name()}"
        for lemma in synset.lemmas():
            for other in lemma.derivationally_related_forms() + lemma.pertainyms():
                if other.synset() in targets and other.name().lower() == y:
                    return (
                        f"WordNet: {lemma.name()} ({synset.name()}) is derived from/related to {y}"
                    )
    return None


def _definition_mention(wn, x: str, y: str, forms_of=None) -> str | None:
    """Evidence that a definition of a sense of ``x`` names ``y`` (SAUCER: "...holding a cup");
    ``forms_of`` is :func:`_forms` or the cache's copy of it."""
    forms = (forms_of or _forms)(y)
    for synset in wn.synsets(x):
        if x not in {n.lower() for n in synset.lemma_names() if is_common_name(n)}:
            continue  # a sense reached only through a different lemma, or a name
        words = set(re.findall(r"[a-z]+", synset.definition().lower()))
        if words & forms:
            return f'WordNet defines {x} ({synset.name()}) as "{synset.definition()}"'
    return None


def warm_up(wordnet_data: Path = WORDNET_DATA) -> None:
    """Open every source the judge reads (WordNet, its definitions, CMUdict, lemminflect), so the
    first challenge is answered at once: the caches in ``data_dir()/cache`` (milliseconds), built
    first if they are missing or stale (10-15 s on a PC, longer on a Raspberry Pi). The table calls
    it in a thread."""
    judge = MatchJudge(wordnet_data=wordnet_data)
    judge._wn().synsets("dog")
    judge._gloss_index().lines_with("dog")
    phonetics.homophones("sun", judge._cmu)
    judge._base_forms("dogs")
    curated_associations()


@functools.cache
def default_judge(homonyms: bool = False) -> MatchJudge:
    """A process-wide judge over the table's lexicon and WordNet (sources opened once)."""
    return MatchJudge(homonyms=homonyms)


def match(left: str, right: str, homonyms: bool = False) -> MatchResult:
    """Judge ``left`` + ``right`` with :func:`default_judge` (see :class:`MatchJudge`).

    Raises:
        MatchInputError: a word that is not letters A-Z or ``*``.
    """
    return default_judge(homonyms).match(left, right)
