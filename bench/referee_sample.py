"""Draw the referee's fixed list: 1,000 words by kind, each with the ruling of a standard dictionary.

The list is data (``tests/data/referee_words.tsv``), drawn once with this script and kept, so that
the test over it (``tests/test_referee_words.py``) and the benchmark (``bench/bench_referee.py``)
rule on the same words every time. Run it again only to draw a new list (``python -m
bench.referee_sample``), and review the disagreements it brings: a ruling a standard dictionary
contradicts is corrected by hand in the list, its evidence followed by ``; reviewed: `` and the
dictionary and sense that decide it; drawing again keeps those reviews.

The reference is the two dictionaries, not SCOWL: WordNet 3.0 (Debian ``wordnet-base``) and GCIDE
(Debian ``dict-gcide``, the 1913 Webster and its supplements). The rulebook (Iago, Valid Words):
"All words found in a standard dictionary are acceptable, in any grammatical form ... Not
acceptable are proper nouns, foreign words, abbreviations and words requiring hyphens or
apostrophes." Kinds and how each is drawn (one-word lemmas of letters a-z only):

- ``ordinary`` (200, VALID): a lower-case WordNet lemma that people use (a sense tagged at least
  three times in WordNet's sense-tagged texts, ``cntlist.rev``) and that GCIDE enters too.
- ``inflection`` (150, VALID): a plural, third person, past, participle, comparative or
  superlative of such a lemma, as lemminflect spells it (its first spelling).
- ``variant`` (150, VALID): a form that GCIDE's entry of a WordNet lemma names in its header as
  a classical plural (``pl. ... L. {Apices}``) or a past or participle (``imp. & p. p.``), that
  lemminflect lists as a spelling of that inflection but not as its first (usual) one: classical
  plurals (APICES, HERNIAE, ROSTRA), strong and variant pasts (SPILT, CLEAVED, KIDNAPED); or a spelling that WordNet lists as another lemma of the
  same sense beside the first, the two spellings of one word by a British/American or old/new
  correspondence (THEATRE beside THEATER, ANAEMIA beside ANEMIA).
- ``abbreviation`` (150, INVALID): a lemma of at most five letters (any case: NATO is played as
  NATO) that WordNet gives as another name of a sense whose other lemma it is the initials of
  (``mph``: ``miles_per_hour``) or abbreviates (its letters in order, not a clipping: ``km``:
  ``kilometer``), that WordNet has in no other sense in lower case, that is no form of a lower-case
  lemma (AIDES, DOS), and that GCIDE does not enter as a word.
- ``proper`` (150, INVALID): a lemma WordNet has only capitalised (TUESDAY, LONDON, CHAUCER) and
  that is not a form of a lower-case lemma (PSALMS is PSALM's plural).
- ``foreign`` (100, INVALID): a word of a foreign phrase that GCIDE enters as such (AD HOC, IN
  SITU), which neither dictionary knows as a word of its own.
- ``homograph`` (100, VALID): a lemma of three letters or more, with a vowel, that WordNet has both
  capitalised and in lower case, the common word used (TURKEY, MARCH), and that is not itself
  an abbreviation by the test above (MIN, for minute).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "referee_words.tsv"
SEED = 13
COUNTS = {
    "ordinary": 200,
    "inflection": 150,
    "variant": 150,
    "abbreviation": 150,
    "proper": 150,
    "foreign": 100,
    "homograph": 100,
}
EXPECTED = {"ordinary": "VALID", "inflection": "VALID", "variant": "VALID", "homograph": "VALID"}


_FORM_AFTER_LABEL = re.compile(
    r"(?:(?:pl\.|plural)[^{\]]{0,20}(?:L\.|Gr\.|It\.|Heb\.)\s*|(?:imp\.|p\. p\.)[^{\]]{0,20})"
    r"\{([A-Za-z\[\]]+)\}"
)
"""A form GCIDE names in an entry's header as a classical plural (``pl. E. {Apexes}; L.
{Apices}``) or as a past or participle (``imp. & p. p. {Combated}``)."""


def _plain(word: str) -> bool:
    return re.fullmatch("[a-z]+", word) is not None


def draw() -> list[tuple[str, str, str, str]]:
    """The list: (word, kind, reference ruling, the reference's evidence), sorted by kind."""
    from lemminflect import getAllInflections

    from companion.lexicon.gcide import gcide
    from companion.lexicon.screen import _initials_of, _wordnet_cases
    from companion.lexicon.wordnet import WORDNET_DIR, wordnet

    wn, gc = wordnet(), gcide()
    rng = random.Random(SEED)
    lower, capital, _ = _wordnet_cases(WORDNET_DIR)
    counts: dict[str, int] = {}
    for line in (WORDNET_DIR / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _, n = line.split()
        lemma = key.split("%")[0]
        counts[lemma] = counts.get(lemma, 0) + int(n)
    common = sorted(w for w in lower if _plain(w) and counts.get(w, 0) >= 3 and gc.knows(w))
    rows: list[tuple[str, str, str, str]] = []
    used: set[str] = set()

    def take(kind: str, pool: list[tuple[str, str]]) -> None:
        pool = [(w, why) for w, why in dict(pool).items() if w not in used]
        for w, why in rng.sample(pool, min(COUNTS[kind], len(pool))):
            used.add(w)
            rows.append((w, kind, EXPECTED.get(kind, "INVALID"), why))

    take("ordinary", [(w, "WordNet and GCIDE enter it") for w in common])
    inflections, variants, spellings = [], [], []
    for base in common:
        for tag, forms in getAllInflections(base).items():
            first = forms[0].lower()
            if _plain(first) and first != base:
                inflections.append((first, f"{tag} of {base} (lemminflect)"))
    for base in sorted(w for w in lower if _plain(w) and gc.knows(w)):
        firsts = {f[0].lower() for f in getAllInflections(base).values()}
        for entry in gc.entries(base):
            header = entry.text.split("\n\n", 1)[0][:500]
            for form in re.findall(_FORM_AFTER_LABEL, header):
                f = re.sub(r"\[([a-z]+)\]", r"\1", form).lower()
                if _plain(f) and f != base and f not in firsts and f[:2] == base[:2]:
                    if _regular(f) or not _listed_form(f, base):
                        continue
                    variants.append((f, f"GCIDE's entry {entry.headword} names the form {form}"))
    common_set = set(common)
    for synset in wn.all_synsets():
        names = [n for n in synset.lemma_names() if _plain(n)]
        if names and names[0] in common_set:
            for other in names[1:]:
                if _close_spelling(names[0], other):
                    spellings.append(
                        (other, f"WordNet: {other} beside {names[0]} ({synset.name()})")
                    )
    take("inflection", inflections)
    variants = sorted(dict((w, why) for w, why in variants if w not in used).items())
    spellings = sorted(dict((w, why) for w, why in spellings if w not in used).items())
    variants = rng.sample(variants, min(90, len(variants)))
    spellings = rng.sample(spellings, COUNTS["variant"] - len(variants))
    take("variant", variants + spellings)
    abbreviations = []
    for synset in wn.all_synsets():
        names = synset.lemma_names()
        for name in names:
            short = name.lower()
            if not (_plain(short) and len(short) <= 5) or gc.knows(short) or short in lower:
                continue
            if _inflection_of_a_word(short, lower):
                continue  # AIDES, DOS, AIDS: also forms of common words
            for other in names:
                o = other.lower()
                ok = _initials_of(short, o)
                if not ok and "_" not in o and len(o) > len(short) + 1 and o[0] == short[0]:
                    it = iter(o)
                    ok = not o.startswith(short) and all(c in it for c in short)
                if ok:
                    abbreviations.append((short, f"WordNet: {name} for {other} ({synset.name()})"))
                    break
    take("abbreviation", abbreviations)
    abbreviated = {w for w, _ in abbreviations}
    proper = sorted(
        w for w in capital if _plain(w) and len(w) >= 3 and not _inflection_of_a_word(w, lower)
    )
    take("proper", [(w, "WordNet has it only capitalised") for w in proper])
    foreign = []
    for phrase in gc.phrases:
        for w in phrase:
            unknown = w not in lower and w not in capital and not gc.knows(w)
            if _plain(w) and unknown and not wn.synsets(w):
                foreign.append((w, f"a word of GCIDE's foreign phrase {' '.join(phrase).upper()}"))
    take("foreign", foreign)
    capitals = {c.lower() for c in _capitals(wn)}
    homographs = sorted(
        w
        for w in lower
        if w in capitals
        and _plain(w)
        and counts.get(w, 0) >= 1
        and len(w) >= 3
        and not set(w).isdisjoint("aeiouy")
        and w not in abbreviated
    )
    take("homograph", [(w, "WordNet has it capitalised and in lower case") for w in homographs])
    return rows


SPELLING_PAIRS = (("our", "or"), ("re", "er"), ("ise", "ize"), ("isation", "ization"),
                  ("yse", "yze"), ("ae", "e"), ("oe", "e"), ("ll", "l"), ("ogue", "og"),
                  ("ence", "ense"), ("eable", "able"))  # fmt: skip
"""The British and American (or older and newer) spellings of one word: COLOUR/COLOR,
THEATRE/THEATER, REALISE/REALIZE, ANAEMIA/ANEMIA, TRAVELLED/TRAVELED, CATALOGUE/CATALOG."""


def _regular(form: str) -> bool:
    """True when lemminflect gives ``form`` as the first (usual) spelling of an inflection of one
    of its lemmas: a regular inflection, not a variant."""
    from lemminflect import getAllInflections, getAllLemmas

    for lemmas in getAllLemmas(form).values():
        for lemma in lemmas:
            if any(v and v[0].lower() == form for v in getAllInflections(lemma).values()):
                return True
    return False


def _inflection_of_a_word(word: str, lower: set[str]) -> bool:
    """True when ``word`` is also a form of a lower-case WordNet lemma (lemminflect, WordNet's
    morphy): AIDES of AIDE, PSALMS of PSALM; such a word is no abbreviation or name only."""
    from lemminflect import getAllLemmas

    from companion.lexicon.wordnet import wordnet

    bases = {b.lower() for v in getAllLemmas(word).values() for b in v}
    bases |= {b for pos in "nvar" for b in wordnet()._morphy(word, pos)}
    return any(b != word and b in lower for b in bases)


def _listed_form(form: str, base: str) -> bool:
    """True when lemminflect lists ``form`` among the spellings of an inflection of ``base``
    (SPILT beside SPILLED for SPILL): a variant a modern morphology knows, not a typo or an
    obsolete form of the 1913 text."""
    from lemminflect import getAllInflections

    return any(form in [v.lower() for v in vs] for vs in getAllInflections(base).values())


def _close_spelling(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are two spellings of one word by :data:`SPELLING_PAIRS`."""
    if a == b:
        return False
    for x, y in SPELLING_PAIRS:
        for p, q in ((x, y), (y, x)):
            i = a.find(p)
            while i != -1:
                if a[:i] + q + a[i + len(p) :] == b:
                    return True
                i = a.find(p, i + 1)
    return False


def _capitals(wn) -> set[str]:
    out = set()
    for synset in wn.all_synsets():
        for name in synset.lemma_names():
            if name[:1].isupper() and name.isalpha():
                out.add(name)
    return out


def _reviewed() -> dict[str, tuple[str, str]]:
    """The rulings of the list on disk that were reviewed by hand (``; reviewed: `` in the
    evidence, with the dictionary and sense that decide it): kept when the list is drawn again."""
    out = {}
    if OUT.exists():
        for line in OUT.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) == 4 and "; reviewed: " in parts[3]:
                out[parts[0]] = (parts[2], parts[3].split("; reviewed: ", 1)[1])
    return out


def main() -> None:
    reviewed = _reviewed()
    rows = [
        (w, kind, reviewed[w][0], f"{why}; reviewed: {reviewed[w][1]}") if w in reviewed else
        (w, kind, ref, why)
        for w, kind, ref, why in draw()
    ]  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as fh:
        fh.write(
            "# word\tkind\treference\tevidence (drawn by bench/referee_sample.py; see there)\n"
        )
        for row in rows:
            fh.write("\t".join(row) + "\n")
    print(f"{len(rows)} words written to {OUT}")


if __name__ == "__main__":
    main()
