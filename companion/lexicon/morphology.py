"""Inflections, for Iago's steal rule.

Iago's rulebook (Stealing): "To qualify for a steal, the change of meaning must be genuine. (For
example: changing LOVE to LOVES or LOVING, while legitimate, does not qualify as a steal ...
Whereas changing LOVE to LOVER does qualify, even though LOVER derives from LOVE, since there has
been a manifest change in meaning.)"

``is_inflection(a, b)`` answers "are A and B only inflections of one another?": True when the two
words are forms of one lemma in one part of speech (plural, third person, past tense, participles,
comparative, superlative; the lemma itself is one of its forms). The relation is symmetric (LOVED
and LOVES are two forms of LOVE, so a substitution LOVED -> LOVES changes no meaning either) and
reflexive (a word is one of its own forms).

Where the readings come from, in order:

1. lemminflect's lexicon (``getAllLemmas``, no out-of-vocabulary guessing), which lists regular and
   irregular forms (WENT -> GO, GEESE -> GOOSE, BETTER -> GOOD) and keeps agentive nouns apart
   (LOVER is a noun of its own, not a comparative of LOVE);
2. WordNet's exception lists (noun.exc, verb.exc, adj.exc, adv.exc), for irregular forms
   (BRETHREN -> BROTHER, WROUGHT -> WORK, EERIER -> EERIE);
3. only for words lemminflect does not list: WordNet's ``morphy`` through nltk's reader (its
   exception lists and suffix rules, the base having to be a WordNet lemma of that part of
   speech); used for lemminflect's words too it would read BUTCHER as a comparative of BUTCH;
4. a lemma's other spellings (:mod:`companion.lexicon.variants`: GREY and GRAY, COLOUR and
   COLOR) are readings too: the rulebook asks for a change "of form and of meaning", and a second
   spelling of one word changes the form only (GREY -> GRAY, GREYS -> GRAY are no steal).

A word may have several readings; one shared reading is enough (LOVING is a participle of LOVE
even though it is also an adjective; BEARING likewise of BEAR).

Words neither source knows (rare words of the big SCOWL sizes, tournament lists): the two are
inflections of one another when stripping regular suffixes from each (-S, -ES, -IES/-Y, -ED, -D,
-IED/-Y, -ING, -ING/-E, with a doubled final consonant undone) reaches a common stem. -ER and
-EST are not stripped for such words: without knowing the word, a comparative cannot be told from
an agentive noun, and the steal is given the benefit of the doubt.
"""

from __future__ import annotations

import functools

from companion.lexicon.judge import normalise

_UPOS = {"NOUN": "n", "VERB": "v", "AUX": "v", "ADJ": "a", "ADV": "r"}
_WN_POS = ("n", "v", "a", "r")


@functools.cache
def _wordnet():
    from companion.lexicon.wordnet import WordNetUnavailable, wordnet

    try:
        return wordnet()
    except WordNetUnavailable:
        return None  # lemminflect alone still rules; documented in docs/lexicon.md


@functools.cache
def _exceptions() -> dict[str, dict[str, tuple[str, ...]]]:
    """WordNet's morphy exception lists (``noun.exc``, ``verb.exc``, ``adj.exc``, ``adv.exc``:
    "inflected-form base-form..." a line, wndb(5WN)), by part of speech letter.

    Read from the files directly (about 100 kB, a few milliseconds) rather than through nltk's
    reader, which takes seconds to open and is only needed for words lemminflect does not know.
    """
    from companion.lexicon.wordnet import WORDNET_DIR

    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        table: dict[str, tuple[str, ...]] = {}
        try:
            text = (WORDNET_DIR / f"{name}.exc").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        for line in text.splitlines():
            form, *bases = line.split()
            if bases:
                table[form] = tuple(bases)
        out[pos] = table
    return out


@functools.cache
def _adverb_pertainyms() -> dict[str, frozenset[str]]:
    """Each WordNet adverb in -LY whose main sense pertains to an adjective, and the adjectives
    it pertains to (QUICKLY -> QUICK, HAPPILY -> HAPPY).

    The main sense is WordNet's first, its most frequent one in the sense-tagged texts (the first
    synset offset of the lemma's line in ``index.adv``, wndb(5WN)); "pertains to" is the ``\\``
    pointer from that sense of the lemma (or from the whole synset) to an adjective in
    ``data.adv``. An adverb whose main sense departs from the adjective has none, whatever a
    rarer sense says: HARDLY and BARELY ("scarcely"), SHORTLY ("soon"), LATELY ("recently")
    (BARELY's second sense, "scantily", and SHORTLY's third, "curtly", pertain to BARE and SHORT).
    Read from the files directly, each adjective looked up by its byte offset in ``data.adj``
    (a few milliseconds).
    """
    from companion.lexicon.wordnet import WORDNET_DIR

    out: dict[str, set[str]] = {}
    try:
        index = (WORDNET_DIR / "index.adv").read_text(encoding="latin-1")
        adv = open(WORDNET_DIR / "data.adv", "rb")  # noqa: SIM115 - closed below
        adj = open(WORDNET_DIR / "data.adj", "rb")  # noqa: SIM115 - closed below
    except OSError:
        return {}
    with adv, adj:
        for entry in index.splitlines():
            if entry.startswith("  "):
                continue  # licence header
            head = entry.split()
            lemma = head[0].lower()
            if not lemma.endswith("ly") or not lemma.isalpha():
                continue
            # lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
            first = int(head[4 + int(head[3]) + 2])
            adv.seek(first)
            fields = adv.readline().decode("latin-1").split()
            count = int(fields[3], 16)
            names = [n.lower() for n in fields[4 : 4 + 2 * count : 2]]
            i = 4 + 2 * count
            for k in range(int(fields[i])):
                symbol, offset, pos, st = fields[i + 1 + 4 * k : i + 5 + 4 * k]
                if symbol != "\\" or pos not in "as":
                    continue
                source, target = int(st[:2], 16), int(st[2:], 16)
                if source != 0 and names[source - 1] != lemma:
                    continue  # another lemma of the synset pertains to it
                adj.seek(int(offset))
                t = adj.readline().decode("latin-1").split()
                adjectives = [n.split("(")[0].lower() for n in t[4 : 4 + 2 * int(t[3], 16) : 2]]
                targets = adjectives if target == 0 else [adjectives[target - 1]]
                out.setdefault(lemma, set()).update(a for a in targets if a.isalpha())
    return {a: frozenset(t) for a, t in out.items()}


@functools.lru_cache(maxsize=4096)
def readings(word: str) -> frozenset[tuple[str, str]]:
    """The (part of speech, lemma) pairs ``word`` (lower case a-z) can be a form of.

    Parts of speech are WordNet's letters: ``n`` noun, ``v`` verb, ``a`` adjective, ``r`` adverb.
    Empty when neither lemminflect nor WordNet knows the word.
    """
    from lemminflect import getAllLemmas

    out: set[tuple[str, str]] = set()
    for upos, lemmas in getAllLemmas(word).items():
        if upos in _UPOS:
            out.update((_UPOS[upos], lemma.lower()) for lemma in lemmas)
    known = bool(out)
    # Iago's rulebook: "any grammatical form: plurals, participles, adverbial forms, etc.": a
    # regular -LY adverb of an adjective (WordNet: its main sense pertains to it) is a form of
    # that adjective
    out.update(("a", adjective) for adjective in _adverb_pertainyms().get(word, ()))
    for pos, table in _exceptions().items():
        out.update((pos, base) for base in table.get(word, ()))
    if not known:
        wn = _wordnet()
        if wn is not None:
            for pos in _WN_POS:
                out.update((pos, base.lower()) for base in wn._morphy(word, pos))
    # the rulebook asks for a change "of form and of meaning": a second spelling of one word
    # (GREY of GRAY) is a form of it (companion.lexicon.variants)
    out.update((pos, other) for pos, lemma in list(out) for other in _spellings(lemma))
    return frozenset(out)


def _spellings(word: str) -> frozenset[str]:
    from companion.lexicon.variants import spellings

    try:
        return spellings(word)
    except OSError:
        return frozenset()  # WordNet or CMUdict unreadable: no variants known


def _regular_stems(word: str) -> set[str]:
    """``word`` and the stems regular inflection could have made it from (see module docstring)."""
    stems = {word}
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"),
                         ("d", ""), ("ing", ""), ("ing", "e")):  # fmt: skip
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: len(word) - len(suffix)] + repl
            stems.add(stem)
            if suffix in ("ed", "ing") and len(stem) >= 3 and stem[-1] == stem[-2] and not repl:
                stems.add(stem[:-1])  # STOPPED -> STOP
    return stems


def is_inflection(base: str, other: str) -> bool:
    """True when ``other`` is only an inflection of ``base`` (or both of one lemma).

    LOVE/LOVES, LOVE/LOVED, LOVE/LOVING, LOVED/LOVES, GO/WENT, GOOSE/GEESE, GOOD/BETTER and
    FAST/FASTER are, and so are two spellings of one word (GREY/GRAY); LOVE/LOVER, LOVE/LOVELY,
    NEW/NEWS are not. Symmetric; a word is an
    inflection of itself. Case does not matter. See the module docstring for the sources and the
    rule for words they do not know. The first call in a process loads lemminflect (about
    0.5 s); nltk's WordNet reader (2-3 s) is opened only for a word lemminflect does not know.
    Answers are cached.

    Raises:
        JudgeInputError: a word is empty or not letters A-Z.
    """
    a, b = normalise(base).lower(), normalise(other).lower()
    if a == b:
        return True
    ra, rb = readings(a), readings(b)
    if ra and rb:
        return not ra.isdisjoint(rb)
    return not _regular_stems(a).isdisjoint(_regular_stems(b))
