"""The word judge on the referee's fixed list: 1,000 words by kind (tests/data/referee_words.tsv,
drawn by bench/referee_sample.py), each ruled by a standard dictionary (WordNet and GCIDE).

Iago's rulebook, "Valid Words": "All words found in a standard dictionary are acceptable, in any
grammatical form ... Not acceptable are proper nouns, foreign words, abbreviations and words
requiring hyphens or apostrophes." The default list must agree with the reference on at least 98%
of the words (the goal is 99%: docs/lexicon.md gives the figure), and every disagreement must be
one of those listed below with its reason, so that a new one is seen at once.
"""

from collections import Counter
from pathlib import Path

import pytest

from companion.lexicon import open_lexicon

LIST = Path(__file__).with_name("data") / "referee_words.tsv"

KNOWN_DISAGREEMENTS = {
    # SCOWL has them only at size 80 or 95 (the default list is size 70)
    "easter": "lower-case EASTER (a wind) only in SCOWL's size-80 list",
    "lensed": "size 80", "guidances": "size 80", "sectoring": "size 80",
    "marshall": "size 80", "quaker": "lower case only at size 80",
    "janissary": "lower case only at size 80", "corinthian": "lower case only at size 95",
    "humourous": "size 95 (a rare spelling)",
    # variants SCOWL lists in no variant_1/variant_2 file (MANOEUVER only in variant_3)
    "corraled": "not in SCOWL", "improvize": "not in SCOWL", "manoeuver": "SCOWL variant_3",
    # the reference errs: words WordNet lists only capitalised or as an abbreviation, that
    # SCOWL's editors list in lower case up to size 70 and a dictionary has as common words
    "pow": "an interjection (POW in WordNet)", "anglicism": "a common noun too",
    "abb": "a yarn (ABB)", "titian": "a colour (TITIAN)",
    # WordNet's lower-case MIN is the abbreviation of minute: the box is right
    "min": "an abbreviation",
}  # fmt: skip


def _rows():
    out = []
    for line in LIST.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            word, kind, reference, evidence = line.split("\t")
            out.append((word, kind, reference, evidence))
    return out


def test_the_list_is_1000_words_by_kind():
    rows = _rows()
    assert len(rows) == 1000 and len({r[0] for r in rows}) == 1000
    assert Counter(r[1] for r in rows) == {
        "ordinary": 200, "inflection": 150, "variant": 150, "abbreviation": 150,
        "proper": 150, "foreign": 100, "homograph": 100,
    }  # fmt: skip
    valid = {"ordinary", "inflection", "variant", "homograph"}
    assert all((r[2] == "VALID") == (r[1] in valid) for r in rows)


@pytest.fixture(scope="module")
def default_lexicon():
    return open_lexicon()


def test_the_default_list_agrees_with_the_dictionaries(default_lexicon):
    rows = _rows()
    disagree = {w for w, _, ref, _ in rows if (w in default_lexicon) != (ref == "VALID")}
    assert disagree <= set(KNOWN_DISAGREEMENTS), sorted(disagree - set(KNOWN_DISAGREEMENTS))
    assert 1 - len(disagree) / len(rows) >= 0.98


@pytest.mark.parametrize(
    "word, valid",
    [("APICES", True), ("HERNIAE", True), ("COMBATTING", True), ("TURKEY", True),
     ("MARCH", True), ("TUESDAY", False), ("LONDON", False), ("HOC", False), ("SITU", False),
     ("AMU", False)],
)  # fmt: skip
def test_the_issues_examples(default_lexicon, word, valid):
    assert (word in default_lexicon) is valid
