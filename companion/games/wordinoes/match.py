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
- phrase: also :data:`CURATED_PHRASES` (``phrases.txt`` beside this module: common phrases WordNet
  lacks, HAPPY BIRTHDAY; read in order).
- opposite: WordNet antonym pointers between any senses of the two words (also through a synonym in
  the same synset, and, for adjectives, through a "similar to" satellite: WordNet's own indirect
  antonyms), and :data:`CURATED_OPPOSITES` (``opposites.txt`` beside this module) for common pairs
  WordNet 3.0 lacks. No word is its own opposite in any form: KERNED + KERN and KERNS + KERN are
  forms of one word (WordNet's antonym pointer between two senses of the verb KERN is no
  opposite of two words), and so is no association.
- association: WordNet's semantic pointers between any two senses (synonym, hypernym, hyponym,
  meronym, holonym, domain, attribute, entailment, cause, see-also, similar-to, derivation), or a
  WordNet entry that names both (FISH AND CHIPS). Before WordNet, :func:`curated_associations`
  (``associations.txt`` beside this module: common pairs WordNet misses, such as the rulebook's
  DOG + BONE, KNIFE + FORK, SALT + PEPPER; matched on base forms too). "Commonly associated words"
  is a pairing people make: a word that a definition uses in passing (PIANO: "... keys that cause
  hammers ...") or two words used together in other entries' definitions is **only a hint** shown
  to the voters (``hints``, ``needs_vote`` true), never a match on its own. With no evidence at
  all the association is for the players to vote on (``needs_vote``). Function words (OVER,
  THE...) are used in too many definitions to be even a hint.
- rhyme: :mod:`companion.lexicon.phonetics` (CMUdict, every pronunciation; homophones never
  rhyme, an unstressed vowel after the rhyming consonants never blocks one).

Evidence a player can check: WordNet evidence that rests on a less usual form of a word (STAMINA
read as the plural of STAMEN, where lemminflect's usual plural is STAMENS) says so in its evidence,
so that the vote can weigh it. A word with no pronunciation (ROMPS: not in CMUdict, and no CMUdict
word ends like it) or with no entry in WordNet or the lexicon is named in ``notes``.

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

OPPOSITES_FILE = Path(__file__).with_name("opposites.txt")
"""The curated common opposites (see :func:`curated_pairs`)."""

PHRASES_FILE = Path(__file__).with_name("phrases.txt")
"""The curated common two-word phrases (see :func:`curated_pairs`)."""


class CuratedListError(CompanionError, ValueError):
    """A line of a curated list (associations, opposites, phrases) that is not two words of
    letters A-Z."""


@functools.cache
def curated_pairs(path: Path) -> tuple[tuple[str, str], ...]:
    """The pairs of a curated list file, in file order: each two different lower-case words.

    Format (the files' headers say where the pairs come from): one pair a line, two words of
    letters A-Z separated by spaces; ``#`` starts a comment; blank lines are skipped.

    Raises:
        CuratedListError: a line that is not two different words of letters A-Z (names the file
            and line).
        OSError: the file cannot be read.
    """
    pairs = []
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
        pairs.append((words[0].lower(), words[1].lower()))
    return tuple(pairs)


CURATED_OPPOSITES: tuple[tuple[str, str], ...] = curated_pairs(OPPOSITES_FILE)
"""Commonly accepted opposites that WordNet 3.0 has no antonym pointer for (``opposites.txt``:
its header gives the origin). Either order matches."""

CURATED_PHRASES: tuple[tuple[str, str], ...] = curated_pairs(PHRASES_FILE)
"""Common two-word phrases WordNet 3.0 lacks (``phrases.txt``), read in the chain's order."""

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
        notes: list[str] = list(self._unknown_notes(a, b))
        one = self._one_word(a, b)
        if one:
            notes.append(
                f"{a} and {b} are forms of one word ({one.upper()}): a word is not its own "
                "opposite, nor associated with itself"
            )
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
        if not self._one_word(a, b):
            yield from self.opposite(a, b)
        yield from self.rhyme(a, b)
        if a != b and not self._one_word(a, b):
            yield from self.association(a, b)

    def _one_word(self, a: str, b: str) -> str | None:
        """The word that ``a`` and ``b`` (different spellings) are both forms of, or None:
        KERNED + KERN gives ``kern`` (lemminflect's base forms and WordNet's morphy)."""
        if a == b:
            return None
        wn = self._wn()

        def bases(word: str) -> set[str]:
            w = word.lower()
            out = set(self._base_forms(w))
            for pos in ("n", "v", "a", "r"):
                out.update(wn._morphy(w, pos))
            return out

        shared = bases(a) & bases(b)
        return min(shared, key=len) if shared else None

    def _unknown_notes(self, a: str, b: str):
        """What the judge does not know of each word: no pronunciation, no entry."""
        lex = self._lex()
        wn = self._wn()
        for w in dict.fromkeys((a, b)):
            if not phonetics.pronunciations(w, self._cmu):
                yield f"{w}: no pronunciation known (not in CMUdict, and no CMUdict word ends like it)"
            in_lexicon = lex is not None and (w in lex or w.lower() in lex)
            if not in_lexicon and not wn.synsets(w.lower()):
                yield f"{w}: no entry in WordNet or the lexicon"

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
        """LAST + WORD: "LEFT RIGHT" is a multi-word entry of WordNet (inflections allowed), or a
        curated common phrase (HAPPY + BIRTHDAY, in that order)."""
        if (a.lower(), b.lower()) in _CURATED_PHRASES:
            yield Relation(
                "phrase", f'"{a} {b}" is on the curated list of common phrases', "curated"
            )
            return
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
        if (la, lb) in _CURATED_OPPOSITES or (lb, la) in _CURATED_OPPOSITES:
            yield Relation(
                "opposite", f"{a} and {b} are on the curated list of common opposites", "curated"
            )
            return
        wn = self._wn()
        for x, y in ((la, lb), (lb, la)):
            found = _antonym_link(wn, x, y)
            if found:
                evidence, synsets = found
                yield Relation("opposite", evidence + self._rare_readings(synsets), "wordnet")
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
            evidence, synsets = found
            return evidence + self._rare_readings(synsets)
        if la in FUNCTION_WORDS or lb in FUNCTION_WORDS:
            return None
        both = self._co_mentions(la, lb)
        named = [e for e in (self._names_both(i, la, lb) for i in both) if e]
        if named:
            return f"WordNet has the entry {named[0]!r}"
        return None

    def _rare_readings(self, synsets: dict[str, object]) -> str:
        """`` (STAMINA read as ...)`` when evidence rests on a sense that a word reaches only as a
        less usual form of another word; ``synsets`` maps each word to the synset used."""
        out = []
        for word, synset in synsets.items():
            names = {n.lower() for n in synset.lemma_names()}
            if word in names:
                continue
            for base in sorted(names):
                usual = _usual_form(base, word)
                if usual:
                    out.append(
                        f"{word.upper()} read as a less usual form of {base.upper()} (the usual "
                        f"form is {usual.upper()}): a rare or archaic reading"
                    )
                    break
        return f" ({'; '.join(out)})" if out else ""

    def _weak_association(self, a: str, b: str):
        """Hints for the voters, never a match: a definition of one word that uses the other in
        passing, and the two words used together in other entries."""
        la, lb = a.lower(), b.lower()
        if la in FUNCTION_WORDS or lb in FUNCTION_WORDS:
            return
        if self._one_word(a, b):
            return
        wn = self._wn()
        for x, y in ((la, lb), (lb, la)):
            found = _definition_mention(wn, x, y, self._forms)
            if found:
                yield f"{found}: a word inside a definition, not by itself an association"
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


_CURATED_OPPOSITES = frozenset(CURATED_OPPOSITES)
_CURATED_PHRASES = frozenset(CURATED_PHRASES)


@functools.cache
def _usual_form(base: str, word: str) -> str | None:
    """The usual spelling of the inflection of ``base`` that ``word`` is a less usual spelling
    of, or None: lemminflect lists STAMENS first and STAMINA second as STAMEN's plural, so
    ``_usual_form("stamen", "stamina") == "stamens"``."""
    from lemminflect import getAllInflections

    for spellings in getAllInflections(base).values():
        lower = [v.lower() for v in spellings]
        if word in lower[1:] and lower[0] != word:
            return lower[0]
    return None


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
    return frozenset(frozenset(p) for p in curated_pairs(path))


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


def _antonym_link(wn, x: str, y: str) -> tuple[str, dict] | None:
    """Evidence that some sense of ``x`` is an antonym of some sense of ``y``, with the synsets
    used (``{x: synset, y: synset}``), or None."""
    targets = set(wn.synsets(y))
    if not targets:
        return None
    for synset in wn.synsets(x):
        for lemma in synset.lemmas():
            for anti in lemma.antonyms():
                if anti.synset() in targets:
                    return (
                        f"WordNet: {lemma.name().replace('_', ' ')} ({synset.name()}) is the "
                        f"antonym of {anti.name().replace('_', ' ')} ({anti.synset().name()})",
                        {x: synset, y: anti.synset()},
                    )
                for similar in sorted(anti.synset().similar_tos(), key=_name):
                    if similar in targets:
                        return (
                            f"WordNet: {lemma.name()} ({synset.name()}) is the antonym of "
                            f"{anti.name()}, similar to {y} ({similar.name()})",
                            {x: synset, y: similar},
                        )
    return None


def _pointer_link(wn, x: str, y: str) -> tuple[str, dict] | None:
    """Evidence of a WordNet semantic pointer from a sense of ``x`` to a sense of ``y`` (senses
    in which they are common words, not names), with the synsets used (``{x: synset, y:
    synset}``), or None."""
    targets = set(_common_synsets(wn, y))
    if not targets:
        return None
    for synset in _common_synsets(wn, x):
        if synset in targets:
            return (
                f"WordNet: {x} and {y} are synonyms ({synset.name()}: {synset.definition()})",
                {x: synset, y: synset},
            )
        for method, label in _POINTERS:
            # nltk keeps a synset's pointers in a set: read them in name order
            for other in sorted(getattr(synset, method)(), key=_name):
                if other in targets:
                    return (
                        f"WordNet: {synset.name()} --{label}--> {other.name()}",
                        {x: synset, y: other},
                    )
        for lemma in synset.lemmas():
            for other in lemma.derivationally_related_forms() + lemma.pertainyms():
                if other.synset() in targets and other.name().lower() == y:
                    return (
                        f"WordNet: {lemma.name()} ({synset.name()}) is derived from/related to {y}",
                        {x: synset, y: other.synset()},
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


def warm_up(wordnet_data: Path = WORDNET_DATA, cached: bool = True) -> None:
    """Open every source the judge reads (WordNet, its definitions, CMUdict, lemminflect), so the
    first challenge is answered at once: the caches in ``data_dir()/cache`` (milliseconds), built
    first if they are missing or stale (10-15 s on a PC, longer on a Raspberry Pi; ``companion
    wordinoes warm`` does that at install time). The table calls it in a thread, with ``cached``
    False when the caches are not built (the sources themselves are opened, never a build)."""
    judge = MatchJudge(wordnet_data=wordnet_data, cached=cached)
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
