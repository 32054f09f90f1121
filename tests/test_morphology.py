"""Morphology for the steal rule: is one word only an inflection of another?

Iago's rulebook (Stealing): "changing LOVE to LOVES or LOVING, while legitimate, does not qualify
as a steal ... Whereas changing LOVE to LOVER does qualify, even though LOVER derives from LOVE,
since there has been a manifest change in meaning."
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.lexicon.judge import JudgeInputError
from companion.lexicon.morphology import is_inflection, readings


@pytest.mark.parametrize(
    ("base", "other"),
    [
        ("LOVE", "LOVES"),  # rulebook: plural / third person
        ("LOVE", "LOVING"),  # rulebook: participle (though LOVING is also an adjective)
        ("LOVE", "LOVED"),  # past tense
        ("LOVER", "LOVERS"),  # plural of the agentive noun
        ("STOP", "STOPPED"),  # doubled consonant
        ("HAPPY", "HAPPIER"),  # comparative, Y to I
        ("FAST", "FASTER"),  # comparative (not an agentive noun)
        ("FAST", "FASTEST"),  # superlative
        ("BIG", "BIGGEST"),
        ("GO", "WENT"),  # irregular past
        ("GO", "GONE"),  # irregular participle
        ("RUN", "RAN"),
        ("GOOSE", "GEESE"),  # irregular plural
        ("MOUSE", "MICE"),
        ("CHILD", "CHILDREN"),
        ("GOOD", "BETTER"),  # irregular comparative
        ("GOOD", "BEST"),
        ("BAD", "WORSE"),
        ("AXIS", "AXES"),
        ("DATUM", "DATA"),
        # Iago's rulebook: "any grammatical form: plurals, participles, adverbial forms": a
        # regular -LY adverb of the adjective (WordNet: it pertains to the adjective)
        ("QUICK", "QUICKLY"),
        ("HAPPY", "HAPPILY"),
        ("GENTLE", "GENTLY"),
        ("QUICKER", "QUICKLY"),  # two forms of one adjective
        # two spellings of one word: a change of form only (issue 47)
        ("GREY", "GRAY"),
        ("GREYS", "GRAY"),
        ("COLOUR", "COLOR"),
        ("REALISE", "REALIZE"),
    ],
)
def test_inflections(base, other):
    assert is_inflection(base, other)


@pytest.mark.parametrize(
    ("base", "other"),
    [
        ("LOVE", "LOVER"),  # rulebook: a manifest change in meaning (agentive noun)
        ("LOVE", "LOVELY"),  # derived adjective
        ("DEAR", "HEAR"),  # rulebook's substitution example
        ("NEW", "NEWS"),  # NEWS is a noun of its own, not a plural of NEW
        ("BUTCH", "BUTCHER"),  # not a comparative, though the spelling fits
        ("TEACH", "TEACHER"),
        ("AXE", "AXIS"),
        ("GOOD", "GOODNESS"),
        # an adverb whose meaning moved on: HARDLY is "scarcely", LATELY "recently", not "in a
        # hard/late manner" (WordNet has no pertainym from them to the adjective)
        ("HARD", "HARDLY"),
        ("LATE", "LATELY"),
        ("NEAR", "NEARLY"),
        # judged by the adverb's main sense (WordNet's first): BARELY "scarcely" and SHORTLY
        # "soon", though a rarer sense of each ("scantily", "curtly") pertains to the adjective
        ("BARE", "BARELY"),
        ("SHORT", "SHORTLY"),
        ("SCARCE", "SCARCELY"),  # "only just", HARDLY's main sense
        # a spelling of the other word in one rare sense only: the main senses differ
        ("CAT", "KAT"),
        ("STORY", "STOREY"),
        ("TIMBER", "TIMBRE"),
        ("LIGHT", "LITE"),
    ],
)
def test_not_inflections(base, other):
    assert not is_inflection(base, other)


def test_two_forms_of_one_lemma_are_inflections_of_each_other():
    # a substitution LOVED -> LOVES changes neither word's lemma: no change of meaning
    assert is_inflection("LOVED", "LOVES")
    assert is_inflection("WENT", "GONE")
    assert is_inflection("BETTER", "BEST")


def test_a_word_is_an_inflection_of_itself_and_case_does_not_matter():
    assert is_inflection("LOVE", "love")
    assert is_inflection("Loved", "LOVES")


def test_wordnet_exception_lists_add_irregulars():
    assert is_inflection("BROTHER", "BRETHREN")
    assert is_inflection("WORK", "WROUGHT")
    assert is_inflection("EERIE", "EERIER")


def test_wordnet_morphy_reads_words_lemminflect_does_not_know():
    # ZORI (a sandal) is in WordNet, not in lemminflect's lexicon
    assert readings("zoris") == {("n", "zori")}
    assert is_inflection("ZORI", "ZORIS")


def test_words_neither_source_knows_follow_regular_suffixes():
    # made-up words: -S, -ES, -ED, -ING with their spelling rules, but never -ER/-EST
    assert is_inflection("ZORB", "ZORBS")
    assert is_inflection("ZORB", "ZORBING")
    assert is_inflection("ZORBED", "ZORBS")
    assert is_inflection("BLIMMY", "BLIMMIES")
    assert is_inflection("FRAB", "FRABBED")
    assert is_inflection("GLOSE", "GLOSING")
    assert not is_inflection("ZORB", "ZORBER")
    assert not is_inflection("ZORB", "ZORBEST")
    assert not is_inflection("ZORB", "KORBS")


@pytest.mark.parametrize("bad", ["", "LO3E", "X-RAY"])
def test_bad_words_raise(bad):
    with pytest.raises(JudgeInputError):
        is_inflection("LOVE", bad)


POOL = ["love", "loves", "loved", "lover", "lovely", "go", "went", "good", "better", "best",
        "fast", "faster", "news", "new", "zorb", "zorbs", "geese", "goose"]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(POOL), st.sampled_from(POOL))
def test_the_relation_is_symmetric(a, b):
    assert is_inflection(a, b) == is_inflection(b, a)


def test_an_adverb_is_a_form_exactly_when_its_main_sense_pertains_to_the_adjective():
    """Consistency over WordNet's -LY adverbs: the reading follows the first sense's pertainym
    pointer, read here through nltk's reader (an independent path to the same data)."""
    from companion.lexicon.morphology import _adverb_pertainyms
    from companion.lexicon.wordnet import wordnet

    wn, table = wordnet(), _adverb_pertainyms()
    adverbs = sorted({n for n in wn.all_lemma_names(pos="r") if n.endswith("ly") and n.isalpha()})
    assert len(adverbs) > 2500
    for adverb in adverbs[::5]:
        main = wn.synsets(adverb, pos="r")[0]
        lemma = next(x for x in main.lemmas() if x.name().lower() == adverb)
        expected = {p.name().lower() for p in lemma.pertainyms() if p.name().isalpha()}
        assert table.get(adverb, frozenset()) == expected, adverb


def test_spelling_variants_are_one_word_said_alike_and_sharing_their_main_senses():
    from companion.lexicon.phonetics import are_homophones
    from companion.lexicon.variants import variants
    from companion.lexicon.wordnet import wordnet

    wn, table = wordnet(), variants()
    assert 100 < len(table) < 2000
    for word, others in sorted(table.items())[::3]:
        for other in others:
            assert word in table[other]  # symmetric
            assert are_homophones(word, other)
            main = next(s for s in wn.synsets(word) if word in s.lemma_names())
            assert other in main.lemma_names(), (word, other)
