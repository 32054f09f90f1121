"""The second look at SCOWL's words: proper names, abbreviations and foreign words that SCOWL files
as lower-case words, found with two independent dictionaries.

Iago's rulebook (Valid Words): "Not acceptable are proper nouns, foreign words, abbreviations and
words requiring hyphens or apostrophes." SCOWL's ``words`` files are lower case, but not all their
entries are common words: its size-95 file has some 11,000 names in lower case (``tuesday``,
``london``), and every size has a few abbreviations and pieces of foreign phrases (``hoc`` of AD
HOC, ``situ`` of IN SITU). SCOWL alone cannot tell them from words. WordNet 3.0 (Debian
``wordnet-base``: its lemmas keep their capitals, so ``Tuesday`` is a name and ``turkey`` a common
noun beside the name ``Turkey``) and GCIDE (Debian ``dict-gcide``, :mod:`companion.lexicon.gcide`:
part-of-speech labels, forms, foreign phrases) can.

The rules that leave words out, each applied to every entry of SCOWL's ``words`` files (every
size up to 95, every variant level up to 3, both spellings), in this order; the first that
applies gives the reason:

``name``
    SCOWL lists the word in lower case only in its size-95 ("insane") files, it lists it
    capitalised elsewhere (in a ``proper-names`` or ``upper`` file: ``Tuesday``, ``London``) or
    WordNet knows it only capitalised (``Thebes``, ``Alabama``), and no source vouches for it as a
    common word: WordNet has no lower-case lemma of it, itself or through a base form (``turkey``;
    ``birds`` is ``bird``), and, for a word WordNet does not have capitalised, GCIDE has no entry
    of it that is not a noun (a name is a noun). GCIDE capitalises every headword, so its
    adjective entry does not vouch for a word WordNet has only capitalised: the proper
    adjectives SCOWL lists in lower case at 95 (NIGERIAN, ELIZABETHAN, SCOTTISH) are names too.
    Up to size 80 SCOWL's editors file names capitalised and their lower-case entries are common
    words (``brock``, a badger; ``jo``, a sweetheart), which WordNet often capitalises (``Shah``,
    ``Ladyship``), so they are kept. So TURKEY, MARCH and BIRDS stay, and TUESDAY and LONDON,
    lower-case only at 95, go: no name is in any list.
``abbreviation``
    SCOWL's ``abbreviations`` files list it in capitals (``AMU``, ``AMA``), no dictionary knows
    it as a word (neither WordNet, itself or through a base form, nor GCIDE, as a headword or a
    form an entry names, nor lemminflect), CMUdict does not say it as a word (it has no
    pronunciation of it, or only the names of its own letters, SRI as ``EH1 S AA1 R AY1``), and
    something says it is an abbreviation: SCOWL lists the abbreviation at a size no larger than
    the lower-case word (its editors hold the abbreviation at least as common: AMA at 50, ama at
    80), CMUdict says it letter by letter, or it is the initials of a unit of measurement WordNet
    names (``amu``: ``atomic_mass_unit``). The silence of the dictionaries alone is no evidence:
    WordNet 3.0, the 1913 Webster and CMUdict miss many words that SCOWL's editors rank more
    common than the capitalised abbreviation (CERMET, QWERTY, KIF, VAV, AGMA are kept). Or every
    WordNet sense of it has a phrase of which it is the initials (``mph``: ``miles_per_hour``)
    and GCIDE does not know it. Or no dictionary knows it (as above) and its letters say it is
    one: CMUdict says its first letter by that letter's name before a consonant, an initial
    read out as in an initialism (KCAL ``K EY1 K AA0 L``: K-CAL, a kilocalorie), or it ends in
    a Q without its U after an E or a consonant, which no English spelling does: a word cut
    off after its Q (AEQ, COREQ, TRANQ). (A Q after A, I, O or U ends transliterations,
    SUQ, UMIAQ, TALAQ, TZADDIQ: no abbreviations, left to the rules above.)
``foreign``
    No dictionary knows it as a word of its own (as above), and it is a word of a foreign phrase
    that GCIDE enters as such (``ad hoc``, ``in situ``, ``status quo``: a bare etymology, [L.],
    [F.]..., after the headword).
``foreign word``
    No dictionary knows it as a word of its own (as above), and GCIDE has it only as a word of
    a living foreign language: every time its text has the word, it quotes it right after that
    language's label (``F. oui`` in LANGUE D'OIL: "the word for "yes" was oil, F. oui"; French,
    German, Italian, Spanish, Portuguese or Dutch, :data:`gcide.QUOTING_LANGUAGES`), never in
    English text. Two things keep a loanword English has taken since 1913 that the dictionaries
    here miss: SCOWL lists another form of it, or it is a form of an entry SCOWL lists (a
    plural, a past, an -ing form, a French, German or classical plural: CANTINAS, CHALUMEAUX,
    SCHNECKEN; AIGUILLES of AIGUILLE), since SCOWL's editors inflect the words they take as
    English; and a quotation as the ancestor of an English headword spelled like it (the same
    first four letters, or three quarters of the letters in common) does not count, since
    English often takes such a word again in its own form, or spells its word so too
    (GRANDIOSO in GRANDIOSE's etymology, SPIRITUEL in SPIRITUAL's, RUMB in RHUMB's). So OUI,
    FUMIER and TROCKEN go; GRANDIOSO, SPIRITUEL and CANTINA stay. What GCIDE does not quote
    (DANKE, NYET) this rule cannot tell from the English words the dictionaries here miss.

The rules that add words, to the lists of size 70 and more (``scowl.SECOND_SOURCE_FROM``; the
builder, ``store._scowl_words``, applies them):

``second source`` (:attr:`Screen.vouched`)
    An entry of SCOWL's files of the next size up (70: size 80; 80: size 95) or of its
    ``variant_3`` files ("seldom used" spellings: MANOEUVER) up to the list's size, not left out
    by a rule above, that WordNet has as a lower-case lemma (BEIGNET, EASTER the wind), or that
    lemminflect's table of forms or WordNet's exception lists give as a form of a lower-case
    WordNet lemma (LENSED of LENS, RUGAE of RUGA). SCOWL is one source, WordNet the second.
``GCIDE form`` (:attr:`Screen.forms`)
    A past, participle or classical plural that GCIDE's entry names in its header (``imp. & p.
    p. {Corraled} or {Corralled}``), that lemminflect lists among the spellings of that
    inflection of the headword, and that SCOWL does not list at any size: added when the list
    holds the headword.

The screen is built once from the three sources (a few seconds) and kept in
``data_dir()/cache/lexicon-screen-vN.json``, stamped with the sources' sizes and modification
times; every SCOWL lexicon reads it, and its stamp is part of each index's build parameters, so a
change of source or rule rebuilds the indexes. Without GCIDE or WordNet the rules that need them
are skipped, and the screen's ``sources`` says which were read.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from companion.lexicon import scowl
from companion.lexicon.words import fold

SCREEN_VERSION = 7
"""Bump when a rule changes: the screen (and every SCOWL index) is then rebuilt."""

RULES = ("name", "abbreviation", "foreign", "foreign word")
"""The screen's reasons, in the order they are tried."""

KEEP_UP_TO_SIZE = 80
"""SCOWL's lower-case entries at this size or below are its editors' common words (SCOWL 80: "the
strange and unusual words people like to use in word games"): the name rule reads only the words
SCOWL lists in lower case at larger sizes (95, "insane")."""

LETTER_NAMES = {
    "a": "EY", "b": "B IY", "c": "S IY", "d": "D IY", "e": "IY", "f": "EH F", "g": "JH IY",
    "h": "EY CH", "i": "AY", "j": "JH EY", "k": "K EY", "l": "EH L", "m": "EH M", "n": "EH N",
    "o": "OW", "p": "P IY", "q": "K Y UW", "r": "AA R", "s": "EH S", "t": "T IY", "u": "Y UW",
    "v": "V IY", "w": "D AH B AH L Y UW", "x": "EH K S", "y": "W AY", "z": "Z IY",
}  # fmt: skip
"""How CMUdict says each letter's name (stress dropped): an entry said letter by letter is an
initialism (SRI: ``EH1 S AA1 R AY1``)."""

_POS = ("n", "v", "a", "r")


@dataclass
class Screen:
    """What the screen leaves out and what its rules may add (module docstring): ``reasons``
    maps each left-out word (lower case) to its rule (one of :data:`RULES`); ``sources`` names
    what was read; ``stamp`` identifies the sources and rules it was built from; ``vouched`` maps
    each entry of SCOWL's larger sizes and variant_3 files that the rule ``second source`` may
    add to the lower-case WordNet lemma that vouches for it (itself, or its base form);
    ``forms`` maps each form the rule ``GCIDE form`` may add to its headword."""

    reasons: dict[str, str] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    stamp: str = ""
    vouched: dict[str, str] = field(default_factory=dict)
    forms: dict[str, str] = field(default_factory=dict)

    def why(self, word: str) -> str | None:
        """The rule that leaves ``word`` (lower case) out, or None."""
        return self.reasons.get(word)

    def vouched_for(self, word: str) -> str | None:
        """The WordNet lemma that vouches for ``word`` (itself or its base form) when ``word``
        is an entry of SCOWL's size-80 or size-95 or variant_3 files that the rule ``second
        source`` may add (module docstring), else None."""
        return self.vouched.get(word)

    def key(self) -> str:
        """A hash of what the screen leaves out and why, and of what its rules may add."""
        text = json.dumps([self.reasons, self.vouched, self.forms], sort_keys=True).encode()
        return hashlib.sha256(text).hexdigest()[:16]

    def counts(self) -> dict[str, int]:
        """How many words each rule leaves out (over all sizes)."""
        return dict(Counter(self.reasons.values()))


# --- the sources ------------------------------------------------------------------------------


def _scowl_universe(root: Path) -> tuple[dict[str, int], set[str], dict[str, int]]:
    """Every lower-case a-z entry of SCOWL's ``words`` files (all sizes, variants up to 3, both
    spellings) with the smallest size it is listed at (a word only in ``variant_3`` files at
    that size plus 1000); the lower-cased a-z entries of its ``proper-names`` and ``upper``
    files that start with a capital; and those of its ``abbreviations`` files written in
    capitals (``AMU``; a final full stop dropped), with the smallest size each is listed at."""
    params = scowl.ScowlParams(95, "both", 2)
    first: dict[str, int] = {}
    capitalised: set[str] = set()
    abbreviations: dict[str, int] = {}
    for cat in [*params.categories(), scowl.VARIANT_3]:
        for size in scowl.ALL_SIZES:
            for sub in ("words", "proper-names", "upper", "abbreviations"):
                path = root / f"{cat}-{sub}.{size}"
                if not path.exists():
                    continue
                for line in scowl.read_text(path).splitlines():
                    entry = fold(line.strip())
                    if sub == "words":
                        at = size + (1000 if cat == scowl.VARIANT_3 else 0)
                        if scowl.reason_left_out(entry) is None and first.get(entry, 9999) > at:
                            first[entry] = at
                        continue
                    plain = entry.rstrip(".")
                    if not plain.isascii() or not plain.isalpha():
                        continue
                    if sub == "abbreviations":
                        if plain.isupper() and abbreviations.get(plain.lower(), 99) > size:
                            abbreviations[plain.lower()] = size
                    elif plain[0].isupper():
                        capitalised.add(plain.lower())
    return first, capitalised, abbreviations


@functools.cache
def _wordnet_cases(root: Path) -> tuple[set[str], set[str], list[str]]:
    """WordNet's one-word lemma names as its ``data.*`` files write them (wndb(5WN)): those it
    has in lower case, the lower-cased ones it has only capitalised, and its multi-word lemmas
    (lower case, words joined by ``_``)."""
    lower, capital, phrases = set(), set(), []
    for pos in ("noun", "verb", "adj", "adv"):
        with (root / f"data.{pos}").open(encoding="latin-1") as f:
            for raw in f:
                if raw.startswith("  "):
                    continue  # licence header
                fields = raw.split()
                count = int(fields[3], 16)
                for name in fields[4 : 4 + 2 * count : 2]:
                    name = name.split("(")[0]  # adjective markers: (a), (p), (ip)
                    if "_" in name or "-" in name:
                        phrases.append(name.lower().replace("-", "_"))
                    elif name.isalpha() and name.isascii():
                        (lower if name.islower() else capital).add(name.lower())
    return lower, capital - lower, phrases


def _said_as_letters(phones: str, word: str) -> bool:
    """True when a CMUdict pronunciation of ``word`` is the names of its own letters, one after
    another (SRI: ``EH1 S AA1 R AY1``; not EAU's ``OW1``, which is one letter's name)."""
    plain = " ".join(p.rstrip("012") for p in phones.split())
    return plain == " ".join(LETTER_NAMES.get(c, "?") for c in word)


def _initial_said_as_a_letter(phones: str, word: str) -> bool:
    """True when a CMUdict pronunciation of ``word`` starts with its first letter's name and
    the next letter is a consonant, so that letter is read out as an initial (KCAL: ``K EY1 K
    AA0 L``). Only letters whose name is the letter's sound and a vowel (B C D G J K P T V Z):
    a vowel letter's name (EMO, ``IY1 M OW0``) is how English reads that vowel, and a name with
    a vowel before the letter's sound (N, ``EH N``) is how an unfamiliar cluster is said (NGAI)."""
    if len(word) < 3 or word[0] not in "bcdgjkptvz" or word[1] in "aeiouy":
        return False
    name = LETTER_NAMES.get(word[0], "?").split()
    plain = [p.rstrip("012") for p in phones.split()]
    return plain[: len(name)] == name and len(plain) > len(name)


def _cut_after_q(word: str) -> bool:
    """True when ``word`` ends in a Q without its U after an E or a consonant (AEQ, COREQ,
    TRANQ), which no English spelling does: a word cut off after its Q."""
    return len(word) > 2 and word.endswith("q") and word[-2] not in "aiou"


CLASSICAL_PLURALS = (("a", "um"), ("a", "on"), ("ae", "a"), ("i", "us"), ("ices", "ex"),
                     ("ices", "ix"), ("es", "is"), ("ata", "a"), ("ina", "en"))  # fmt: skip
"""Latin and Greek plural endings and the singular endings they come from (ILEA, ILEUM; HERNIAE,
HERNIA; APICES, APEX; STIGMATA, STIGMA; STAMINA, STAMEN)."""


def classical_singulars(word: str) -> list[str]:
    """The singulars ``word`` would be the Latin or Greek plural of (:data:`CLASSICAL_PLURALS`)."""
    return [
        word[: -len(plural)] + singular
        for plural, singular in CLASSICAL_PLURALS
        if word.endswith(plural) and len(word) > len(plural) + 1
    ]


def _spelled_like(word: str, headwords: tuple[str, ...]) -> bool:
    """True when a word of one of an entry's ``headwords`` is spelled like ``word``: the same
    first four letters (or the whole word, if shorter), or three quarters of their letters in
    common (difflib's ratio): a quotation of ``word`` in that entry gives the ancestor of an
    English word spelled like it (GRANDIOSE, [F. grandiose, It. grandioso]; RHUMB, [F. rumb])."""
    from difflib import SequenceMatcher

    from companion.lexicon.gcide import _plain

    for head in headwords:
        for h in map(_plain, head.split()):
            if h[:4] == word[:4] or SequenceMatcher(None, word, h).ratio() >= 0.75:
                return True
    return False


def other_forms(word: str) -> set[str]:
    """The forms SCOWL would list beside ``word`` if it were an English word: plurals, pasts and
    -ing forms (``s``, ``es``, ``ed``, ``d``, ``ing``, a final E dropped or a consonant doubled,
    Y to IES and IED), the French, German and classical plurals (CHALUMEAUX, SCHNECKEN, ILEA),
    and the words ``word`` would be the plural of (AIGUILLE of AIGUILLES)."""
    out = {word + e for e in ("s", "es", "ed", "d", "ing", "x", "n", "en")}
    out |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    if word.endswith("e"):
        out.add(word[:-1] + "ing")
    if word.endswith("y"):
        out |= {word[:-1] + "ies", word[:-1] + "ied"}
    out |= {word[: -len(sg)] + pl for pl, sg in CLASSICAL_PLURALS if word.endswith(sg)}
    for ending in ("s", "es", "x"):
        if word.endswith(ending) and len(word) > len(ending) + 1:
            out.add(word[: -len(ending)])
    out |= set(classical_singulars(word))
    out.discard(word)
    return out


def _initials(phrase: str) -> str | None:
    """The initials of a WordNet phrase of two or more words (``atomic_mass_unit``: ``amu``)."""
    words = [w for w in phrase.replace("-", "_").split("_") if w]
    return "".join(w[0] for w in words) if len(words) > 1 else None


def _initials_of(short: str, phrase: str) -> bool:
    """True when ``short`` is the initials of the WordNet phrase ``phrase`` (``mph``,
    ``miles_per_hour``)."""
    words = [w for w in phrase.split("_") if w]
    return len(words) > 1 and "".join(w[0] for w in words) == short


def _stamp(files: list[Path]) -> str:
    stats = []
    for f in sorted(files):
        st = f.stat()
        stats.append([str(f), st.st_size, st.st_mtime_ns])
    text = json.dumps([SCREEN_VERSION, scowl.BUILD_RULE, KEEP_UP_TO_SIZE, stats])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _source_files(root: Path) -> list[Path]:
    """What the screen is stamped with: the folders of SCOWL, WordNet and GCIDE (a package
    install or upgrade renames files into them, which changes the folder's modification time)
    and WordNet's and GCIDE's data files. A few stats, so that opening a lexicon stays cheap."""
    from companion.lexicon.gcide import DATA, GCIDE_DIR, INDEX
    from companion.lexicon.wordnet import WORDNET_DIR

    files = [root, WORDNET_DIR, GCIDE_DIR, WORDNET_DIR / "data.noun", GCIDE_DIR / INDEX]
    files.append(GCIDE_DIR / DATA)
    return [p for p in files if p.exists()]


# --- building ---------------------------------------------------------------------------------


def build_screen(root: Path | None = None) -> Screen:
    """Apply the rules (module docstring) to every SCOWL ``words`` entry under ``root`` (default
    ``scowl.SCOWL_DIR``), reading WordNet, GCIDE, lemminflect and CMUdict where installed. Takes
    a few seconds (about 25 s of one core on a loaded PC)."""
    from companion.lexicon.gcide import NOUN_LABELS, GcideUnavailable, gcide
    from companion.lexicon.wordnet import WORDNET_DIR, WordNetUnavailable, wordnet

    root = root or scowl.SCOWL_DIR
    first, capitalised, abbreviations = _scowl_universe(root)
    sources = ["scowl"]
    try:
        wn = wordnet()
        wn_lower, wn_capital, wn_phrases = _wordnet_cases(WORDNET_DIR)
        sources.append("wordnet")
    except (WordNetUnavailable, OSError):
        wn, wn_lower, wn_capital, wn_phrases = None, set(), set(), []
    try:
        gc = gcide()
        sources.append("gcide")
    except GcideUnavailable:
        gc = None
    from lemminflect import getAllLemmas

    from companion.lexicon.phonetics import cmudict

    cmu = cmudict()
    sources += ["lemminflect", "cmudict"]
    foreign_words = {w for phrase in (gc.phrases if gc else ()) for w in phrase}
    quoted: dict = {}  # word -> gcide.Quotations
    if gc is not None:
        from companion.lexicon.gcide import quotations

        quoted = quotations(set(first))
    initials: dict[str, list[str]] = {}
    for phrase in wn_phrases:
        words = [w for w in phrase.split("_") if w]
        if len(words) > 1:
            initials.setdefault("".join(w[0] for w in words), []).append(phrase)

    def bases(word: str) -> set[str]:
        out = {b for pos in _POS for b in wn._morphy(word, pos)} if wn is not None else set()
        out |= {b.lower() for forms in getAllLemmas(word).values() for b in forms}
        out.discard(word)
        return out

    @functools.cache
    def wn_common(word: str) -> bool:
        """WordNet has ``word`` as a lower-case lemma, itself or through a base form."""
        return word in wn_lower or any(b in wn_lower for b in bases(word))

    def known(word: str) -> bool:
        """Some dictionary knows ``word`` as a word (WordNet, GCIDE, lemminflect), itself, through
        a base form, or as the Latin or Greek plural of a word it knows (ILEA of ILEUM)."""
        if wn_common(word) or word in wn_capital or getAllLemmas(word):
            return True
        if gc is not None and (gc.knows(word) or any(gc.knows(b) for b in bases(word))):
            return True
        return any(s in wn_lower or (gc and gc.knows(s)) for s in classical_singulars(word))

    def not_a_noun_in_gcide(word: str) -> bool:
        return gc is not None and any(
            label and label not in NOUN_LABELS for label in gc.labels(word)
        )

    def said_as_a_word(word: str) -> bool:
        phones = cmu.phones(word)
        return bool(phones) and not all(_said_as_letters(p, word) for p in phones)

    def said_letter_by_letter(word: str) -> bool:
        return any(_said_as_letters(p, word) for p in cmu.phones(word))

    def initial_said_as_a_letter(word: str) -> bool:
        return any(_initial_said_as_a_letter(p, word) for p in cmu.phones(word))

    units: set[str] = set()
    if wn is not None:
        top = wn.synset("unit_of_measurement.n.01")
        for x in top.closure(lambda y: y.hyponyms() + y.instance_hyponyms()):
            for n in x.lemma_names():
                if _initials(n.lower()):
                    units.add(_initials(n.lower()))

    def abbreviated(word: str, size: int) -> bool:
        """Positive evidence that ``word``, which SCOWL also lists in capitals among its
        abbreviations and no dictionary knows, is that abbreviation and not a word the
        dictionaries miss (CERMET, QWERTY, KIF, VAV): SCOWL lists the abbreviation at a size no
        larger than the lower-case word (its editors hold it at least as common: AMA, ROK);
        CMUdict says it letter by letter; or it is the initials of a unit of measurement
        WordNet names (AMU: atomic mass unit)."""
        return abbreviations[word] <= size or said_letter_by_letter(word) or word in units

    def only_quoted_as_foreign(word: str) -> bool:
        """GCIDE has ``word`` only as a word of a living foreign language, not all of it as the
        ancestor of an English headword spelled alike, and SCOWL lists no other form of it
        (module docstring, ``foreign word``)."""
        q = quoted.get(word)
        if q is None or q.other or not q.foreign:
            return False
        if all(_spelled_like(word, heads) for _, heads in q.foreign):
            return False
        return not any(form in first for form in other_forms(word))

    reasons: dict[str, str] = {}
    for word, at in first.items():
        if word in scowl.VOWELLESS_WORDS:
            continue  # interjections and the like, already vouched for (scowl.py)
        size = at % 1000
        named = size > KEEP_UP_TO_SIZE and (word in capitalised or word in wn_capital)
        if named and not wn_common(word) and (word in wn_capital or not not_a_noun_in_gcide(word)):
            reasons[word] = "name"
            continue
        if (
            word in abbreviations
            and not known(word)
            and not said_as_a_word(word)
            and abbreviated(word, size)
        ):
            reasons[word] = "abbreviation"
            continue
        if wn is not None and word in initials and word in wn_lower and not (gc and gc.knows(word)):
            senses = [x for x in wn.synsets(word) if word in x.lemma_names()]
            if senses and all(
                any(_initials_of(word, n.lower()) for n in x.lemma_names()) for x in senses
            ):
                reasons[word] = "abbreviation"
                continue
        if (initial_said_as_a_letter(word) or _cut_after_q(word)) and not known(word):
            reasons[word] = "abbreviation"
            continue
        if word in foreign_words and not known(word):
            reasons[word] = "foreign"
            continue
        if only_quoted_as_foreign(word) and not known(word):
            reasons[word] = "foreign word"
    vouched: dict[str, str] = {}
    from lemminflect import Lemmatizer

    # lemminflect's own table of forms (what getAllLemmas reads, without its copy of each
    # answer: a tenth of the time over SCOWL's 170,000 larger-size entries)
    lemma_dict = Lemmatizer()._getLemmaDict()
    exceptions: dict[str, list[str]] = {}
    if wn is not None:
        for pos in _POS:
            for form, lemmas in wn._exception_map[pos].items():
                exceptions.setdefault(form, []).extend(lemmas)
    for word, at in first.items():
        if at <= scowl.SECOND_SOURCE_FROM or word in reasons:
            continue  # in the lists it could be added to already, or left out
        lemma = word if word in wn_lower else None
        if lemma is None:
            bases_of = [b for forms in lemma_dict.get(word, {}).values() for b in forms]
            bases_of += exceptions.get(word, ())
            lemma = min((b for b in bases_of if b in wn_lower and b != word), default=None)
        if lemma is not None:
            vouched[word] = lemma
    forms: dict[str, str] = {}
    if gc is not None:
        from lemminflect import getAllInflections

        for base, form in gc.inflection_forms():
            if form in first or form in forms or form in reasons:
                continue  # SCOWL lists it: its own files rule
            spellings = {v.lower() for vs in getAllInflections(base).values() for v in vs}
            if form in spellings:
                forms[form] = base
    return Screen(reasons, sources, _stamp(_source_files(root)), vouched, forms)


def _cache_path(root: Path) -> Path:
    from companion.lexicon.phonetics import cache_dir

    tag = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:8]
    return cache_dir() / f"lexicon-screen-v{SCREEN_VERSION}-{tag}.json"


@functools.cache
def _screen_for(stamp: str, root: Path) -> Screen:
    path = _cache_path(root)
    try:
        data = json.loads(path.read_text())
        if data.get("stamp") == stamp:
            return Screen(data["reasons"], data["sources"], stamp, data["vouched"], data["forms"])
    except (OSError, ValueError, KeyError):
        pass
    found = build_screen(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        data = {"stamp": found.stamp, "sources": found.sources, "reasons": found.reasons}
        data.update(vouched=found.vouched, forms=found.forms)
        tmp.write_text(json.dumps(data, sort_keys=True))
        tmp.replace(path)
    except OSError:
        pass  # a read-only data directory: the screen is rebuilt next time
    return found


def screen(root: Path | None = None) -> Screen:
    """The screen for SCOWL under ``root`` (default ``scowl.SCOWL_DIR``): read from its cache in
    ``data_dir()/cache`` when the sources have not changed, else built (a few seconds) and saved."""
    root = root or scowl.SCOWL_DIR
    return _screen_for(_stamp(_source_files(root)), root)


def stamp(root: Path | None = None) -> str:
    """The stamp of the screen's sources and rules (cheap: a few file stats)."""
    return _stamp(_source_files(root or scowl.SCOWL_DIR))
