"""The Wordinoes match judge against the rulebook ("Wordinoes Matching", "Allow Homonyms?")."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.games.wordinoes.match import (
    CURATED_OPPOSITES,
    CuratedListError,
    MatchInputError,
    MatchJudge,
    check_word,
    curated_associations,
)

# a small stand-in for the table's lexicon: only ``in`` is used
LEXICON = {"policeman", "sunflower", "handbag", "lastword"}


@pytest.fixture(scope="module")
def judge():
    return MatchJudge(lexicon=LEXICON)


@pytest.fixture(scope="module")
def homonym_judge():
    return MatchJudge(lexicon=LEXICON, homonyms=True)


def kinds(result):
    return {r.kind for r in result.relations}


# --- every example of the rulebook ---------------------------------------------------------------


def test_police_man_make_a_new_word(judge):
    r = judge.match("POLICE", "MAN")
    assert r.match and "compound" in kinds(r)
    assert any("POLICEMAN" in x.evidence for x in r.relations if x.kind == "compound")


def test_compound_found_in_wordnet_without_the_lexicon():
    r = MatchJudge(lexicon=set()).match("POLICE", "MAN")
    assert "compound" in kinds(r)


def test_last_word_is_a_common_phrase(judge):
    r = judge.match("LAST", "WORD")
    assert r.match and "phrase" in kinds(r)


@pytest.mark.parametrize("left,right", [("DOG", "BONE"), ("BONE", "DOG")])
def test_dog_bone_are_commonly_associated(judge, left, right):
    # "are commonly associated words, e.g. DOG + BONE": either way round (only compounds and
    # phrases are read in chain order)
    r = judge.match(left, right)
    assert r.match and not r.needs_vote
    assert kinds(r) == {"association"}
    assert [x.source for x in r.relations] == ["curated"]
    assert "curated list of common associations" in r.relations[0].evidence


def test_high_low_are_opposites(judge):
    r = judge.match("HIGH", "LOW")
    assert r.match and "opposite" in kinds(r)


def test_over_over_are_identical_and_not_a_rhyme(judge):
    r = judge.match("OVER", "OVER")
    assert r.match and "identical" in kinds(r)
    assert "rhyme" not in kinds(r) and "opposite" not in kinds(r)


def test_band_hand_rhyme(judge):
    r = judge.match("BAND", "HAND")
    assert r.match and "rhyme" in kinds(r)


@pytest.mark.parametrize("left,right", [("HANG", "HAND"), ("HAND", "BIND"), ("COUGH", "TOUGH")])
def test_rulebook_unacceptable_combinations(judge, left, right):
    r = judge.match(left, right)
    assert "rhyme" not in kinds(r)
    assert not r.match and r.needs_vote


def test_blank_end_matches_any_word(judge):
    for left, right in (("*", "COUGH"), ("TOUGH", "*"), ("*", "*"), ("_", "HAND")):
        r = judge.match(left, right)
        assert r.match and r.blank and not r.needs_vote


def test_sun_daughter_is_not_a_match_though_son_daughter_is(judge):
    # "SON + DAUGHTER would be a valid word match ... but SUN + DAUGHTER would not"
    assert judge.match("SON", "DAUGHTER").match
    r = judge.match("SUN", "DAUGHTER")
    assert not r.match


def test_homonyms_variation_lets_sun_stand_for_son(homonym_judge):
    r = homonym_judge.match("SUN", "DAUGHTER")
    assert r.match
    assert all(x.via == "SUN as SON" for x in r.relations)


def test_homophones_are_named_but_do_not_match_in_normal_play(judge):
    r = judge.match("SUN", "SON")
    assert "rhyme" not in kinds(r) and "identical" not in kinds(r)
    assert any("sound alike" in n for n in r.notes)


# --- beyond the examples -----------------------------------------------------------------------


def test_compounds_and_phrases_are_read_left_to_right(judge):
    assert "compound" not in kinds(judge.match("MAN", "POLICE"))
    assert "phrase" not in kinds(judge.match("WORD", "LAST"))


def test_opposites_over_all_senses_and_through_synonyms(judge):
    # BIG is a lemma of large.a.01, whose LARGE is the antonym of SMALL
    assert "opposite" in kinds(judge.match("BIG", "SMALL"))
    assert "opposite" in kinds(judge.match("SON", "DAUGHTER"))


def test_curated_opposites_fill_wordnet_gaps(judge):
    r = judge.match("HAPPY", "SAD")
    assert [x.source for x in r.relations if x.kind == "opposite"] == ["curated"]
    assert ("happy", "sad") in CURATED_OPPOSITES


def test_a_word_inside_a_definition_is_only_a_hint_for_the_vote(judge):
    # WordNet defines QUIVER as "case for holding arrows" (the pair is not on the curated list):
    # a word a definition uses is not by itself a pairing people make
    assert frozenset({"quiver", "arrow"}) not in curated_associations()
    r = judge.match("QUIVER", "ARROW")
    assert r.relations == () and not r.match and r.needs_vote
    assert any("case for holding arrows" in h for h in r.hints)


def test_a_word_used_in_passing_in_a_definition_is_never_a_match(judge):
    # PIANO: "a keyboard instrument ... keys that cause hammers to strike tuned strings"
    r = judge.match("PIANO", "CAUSE")
    assert not r.match and r.needs_vote and r.relations == ()
    assert any("keys that cause hammers" in h for h in r.hints)


@pytest.mark.parametrize("left,right", [("KERNED", "KERN"), ("KERNS", "KERN"), ("KERN", "KERNED")])
def test_no_word_is_its_own_opposite_in_any_form(judge, left, right):
    r = judge.match(left, right)
    assert "opposite" not in kinds(r) and "association" not in kinds(r)
    assert any("forms of one word (KERN)" in n for n in r.notes)


@pytest.mark.parametrize("left,right", [("WHIT", "WIT"), ("WIT", "WHIT"), ("SUN", "SON")])
def test_homophones_are_never_a_rhyme_whatever_other_pronunciations_they_have(judge, left, right):
    r = judge.match(left, right)
    assert "rhyme" not in kinds(r)
    assert any("sound alike" in n for n in r.notes)
    assert r.needs_vote or r.relations  # never "needs_vote false" on the sound alone


@pytest.mark.parametrize(
    "left,right", [("FRUSTRATED", "INFLATED"), ("INFLATED", "FRUSTRATED"), ("SEATED", "TREATED")]
)
def test_an_unstressed_vowel_after_the_rhyme_does_not_block_it(judge, left, right):
    r = judge.match(left, right)
    assert "rhyme" in kinds(r) and r.match and not r.needs_vote


def test_a_word_without_a_pronunciation_or_entry_is_said_to_be_unknown(judge):
    r = judge.match("ROMPS", "CHAIR")
    assert "ROMPS: no pronunciation known" in r.notes[0]
    r = judge.match("XQZV", "DOG")
    assert "XQZV: no entry in WordNet or the lexicon" in r.notes


def test_evidence_from_a_less_usual_form_says_so(judge):
    # STAMINA is also the Latin plural of STAMEN; its usual plural is STAMENS
    r = judge.match("STAMINA", "FLOWER")
    assert r.match
    assert "STAMINA read as a less usual form of STAMEN" in r.relations[0].evidence
    assert "STAMENS" in r.relations[0].evidence
    # STAMINA as itself (endurance) needs no such note
    r = judge.match("STAMINA", "ENDURANCE")
    assert r.match and "less usual" not in r.relations[0].evidence


def test_curated_phrases_and_opposites_come_from_their_data_files(judge):
    r = judge.match("HAPPY", "BIRTHDAY")
    assert [(x.kind, x.source) for x in r.relations] == [("phrase", "curated")]
    assert "phrase" not in kinds(judge.match("BIRTHDAY", "HAPPY"))  # a phrase is read in order
    r = judge.match("ANGEL", "DEVIL")
    assert ("opposite", "curated") in {(x.kind, x.source) for x in r.relations}


def test_the_curated_phrases_and_opposites_fill_only_wordnet_gaps():
    from companion.games.wordinoes.match import CURATED_PHRASES, _antonym_link
    from companion.lexicon.wordnet import wordnet

    wn = wordnet()
    for a, b in CURATED_PHRASES:
        assert not wn.synsets(f"{a}_{b}"), (a, b)
    for a, b in CURATED_OPPOSITES:
        assert not _antonym_link(wn, a, b) and not _antonym_link(wn, b, a), (a, b)


@pytest.mark.parametrize(
    "left,right",
    [("KNIFE", "FORK"), ("SALT", "PEPPER"), ("LOCK", "KEY"), ("NEEDLE", "THREAD"),
     ("BREAD", "BUTTER"), ("SOCK", "SHOE"), ("UMBRELLA", "RAIN"), ("HONEY", "BEE")],
)  # fmt: skip
def test_curated_common_associations_match(judge, left, right):
    r = judge.match(left, right)
    assert r.match and not r.needs_vote
    assert ("association", "curated") in {(x.kind, x.source) for x in r.relations}


def test_curated_associations_match_on_base_forms(judge):
    # plurals are the same words: DOGS + BONES, KNIVES + FORKS, MICE + CHEESE
    for left, right, bases in (
        ("DOGS", "BONES", "DOG + BONE"),
        ("KNIVES", "FORKS", "KNIFE + FORK"),
        ("CHEESE", "MICE", "CHEESE + MOUSE"),
    ):
        r = judge.match(left, right)
        assert r.match and [x.source for x in r.relations] == ["curated"], (left, right)
        assert bases in r.relations[0].evidence


def test_curated_associations_do_not_match_through_homophones(judge, homonym_judge):
    # SUN + MOON is on the list; SON sounds like SUN but is another word ("Allow Homonyms?")
    assert frozenset({"sun", "moon"}) in curated_associations()
    assert not judge.match("SON", "MOON").match
    r = homonym_judge.match("SON", "MOON")
    assert r.match
    assert ("association", "curated", "SON as SUN") in {
        (x.kind, x.source, x.via) for x in r.relations
    }


def test_the_curated_list_is_well_formed_and_keeps_the_rulebook_non_matches_out():
    from companion.lexicon.wordnet import wordnet

    pairs = curated_associations()
    assert len(pairs) >= 200
    assert all(len(p) == 2 for p in pairs)
    rejected = [("hang", "hand"), ("hand", "bind"), ("cough", "tough"), ("sun", "daughter")]
    assert not any(frozenset(p) in pairs for p in rejected)
    unknown = sorted(w for p in pairs for w in p if not wordnet().synsets(w))
    assert unknown == []


def test_a_broken_curated_list_names_the_file_and_line(tmp_path):
    path = tmp_path / "associations.txt"
    path.write_text("# comment\nDOG BONE\nSALT AND PEPPER\n", encoding="utf-8")
    with pytest.raises(CuratedListError, match=r"associations.txt, line 3: 'SALT AND PEPPER'"):
        curated_associations(path)


def test_association_from_an_entry_naming_both(judge):
    r = judge.match("FISH", "CHIPS")
    assert any("FISH AND CHIPS" in x.evidence for x in r.relations)


def test_unrelated_words_go_to_the_vote(judge):
    r = judge.match("TABLE", "RIVER")
    assert not r.match and r.needs_vote and r.relations == ()


@pytest.mark.parametrize("bad", ["", "  ", "HA ND", "DOG1", "CAFÉ1", "a-b", "Ω"])
def test_bad_input_names_the_word_and_what_is_accepted(bad):
    with pytest.raises(MatchInputError, match="accepted are"):
        check_word(bad)


@pytest.mark.parametrize("typed,read", [("CAFÉ", "CAFE"), ("naïve", "NAIVE"), ("Æon", "AEON")])
def test_accents_are_folded_as_the_lexicon_folds_them(typed, read):
    # companion judge CAFÉ reads CAFE (companion.lexicon.words.fold): the match judge does too
    assert check_word(typed) == read


WORDS = ["HIGH", "LOW", "BAND", "HAND", "SON", "DAUGHTER", "CUP", "SAUCER", "OVER", "HANG"]
WORDS += ["DOG", "BONE", "KNIFE", "FORK"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(WORDS), st.sampled_from(WORDS))
def test_relations_other_than_compound_and_phrase_do_not_depend_on_order(a, b):
    j = MatchJudge(lexicon=LEXICON)
    unordered = {"identical", "opposite", "rhyme", "association"}
    assert kinds(j.match(a, b)) & unordered == kinds(j.match(b, a)) & unordered


# --- the command line --------------------------------------------------------------------------


@pytest.fixture
def small_lexicon(monkeypatch):
    import companion.lexicon

    monkeypatch.setattr(companion.lexicon, "open_lexicon", lambda name=None: LEXICON)


def run_cli(capsys, *argv):
    code = main(["wordinoes", "match", *argv])
    out = capsys.readouterr()
    return code, out


def test_cli_prints_the_contract_json_and_exits_0_on_a_match(capsys, small_lexicon):
    code, out = run_cli(capsys, "police", "man")
    data = json.loads(out.out)
    assert code == 0
    assert data["match"] is True and data["needs_vote"] is False
    assert data["relations"][0]["kind"] == "compound" and data["relations"][0]["evidence"]


def test_cli_answers_the_rulebook_association_example(capsys, small_lexicon):
    code, out = run_cli(capsys, "DOG", "BONE")
    data = json.loads(out.out)
    assert code == 0 and data["match"] is True and data["needs_vote"] is False
    assert [r["kind"] for r in data["relations"]] == ["association"]


def test_cli_exits_1_when_no_match_is_found(capsys, small_lexicon):
    code, out = run_cli(capsys, "HANG", "HAND")
    data = json.loads(out.out)
    assert code == 1 and data["match"] is False and data["needs_vote"] is True


def test_cli_exits_2_on_bad_input(capsys, small_lexicon):
    code, out = run_cli(capsys, "HAND", "B1ND")
    assert code == 2 and "RIGHT 'B1ND'" in out.err and out.out == ""


def test_cli_folds_accents_instead_of_refusing_them(capsys, small_lexicon):
    code, out = run_cli(capsys, "CAFÉ", "LATTE")
    assert code in (0, 1) and json.loads(out.out)["left"] == "CAFE"


def test_cli_homonyms_flag(capsys, small_lexicon):
    code, out = run_cli(capsys, "SUN", "DAUGHTER", "--homonyms")
    assert code == 0 and json.loads(out.out)["homonyms"] is True


def test_without_a_lexicon_compounds_come_from_wordnet_and_the_answer_says_so(monkeypatch):
    import companion.lexicon
    from companion.lexicon import LexiconError

    def broken(name=None):
        raise LexiconError("SCOWL is not installed")

    monkeypatch.setattr(companion.lexicon, "open_lexicon", broken)
    r = MatchJudge().match("POLICE", "MAN")
    assert "compound" in kinds(r)
    assert any("SCOWL is not installed" in n for n in r.notes)


# --- names are not evidence --------------------------------------------------------------------


def test_a_persons_name_is_not_evidence_of_an_association(judge):
    # WordNet's entry naming both SUN and MOON is SUN MYUNG MOON, a person: not a common phrase
    evidence = judge._wordnet_association("SUN", "MOON") or ""
    assert "MYUNG" not in evidence.upper()
    both = judge._co_mentions("sun", "moon")
    assert both and not any(judge._names_both(i, "sun", "moon") for i in both)


def test_a_place_name_is_not_a_phrase(judge):
    # NEW_YORK is a WordNet lemma, but only as names (New York City, State): no phrase
    assert "phrase" not in kinds(judge.match("NEW", "YORK"))
    assert "phrase" in kinds(judge.match("ICE", "CREAM"))


def test_homonyms_stand_only_for_common_words(homonym_judge):
    # BARE sounds like BEAR and like the surname BEHR (CMUdict has both): only BEAR is a word
    r = homonym_judge.match("BARE", "BEAR")
    text = json.dumps(r.to_json())
    assert "BEHR" not in text and "BAER" not in text
    assert "BEAR" in homonym_judge._common_homophones("BARE")
    assert "SON" in homonym_judge._common_homophones("SUN")


# --- the cache answers as the sources do -------------------------------------------------------

AGREE = [
    ("POLICE", "MAN"), ("MAN", "POLICE"), ("LAST", "WORD"), ("DOG", "BONE"), ("HIGH", "LOW"),
    ("OVER", "OVER"), ("BAND", "HAND"), ("HANG", "HAND"), ("HAND", "BIND"), ("COUGH", "TOUGH"),
    ("SON", "DAUGHTER"), ("SUN", "DAUGHTER"), ("SUN", "SON"), ("SUN", "MOON"), ("BARE", "BEAR"),
    ("QUIVER", "ARROW"), ("SCABBARD", "SWORD"), ("FISH", "CHIPS"), ("CAR", "ROAD"),
    ("BIG", "SMALL"), ("MICE", "CHEESE"), ("TABLE", "RIVER"), ("NIGHT", "DAY"), ("ICE", "CREAM"),
    ("SKY", "BLUE"), ("RUNNING", "RAN"), ("GOOD", "BETTER"), ("HOUSES", "MICE"),
    ("SPLAND", "GRAKE"), ("XQZZT", "ZZZE"), ("READ", "RED"), ("LIGHT", "DARK"), ("*", "DOG"),
]  # fmt: skip


@pytest.mark.parametrize("homonyms", [False, True])
def test_cached_and_uncached_judges_give_the_same_answers(homonyms):
    cached = MatchJudge(lexicon=LEXICON, homonyms=homonyms)
    direct = MatchJudge(lexicon=LEXICON, homonyms=homonyms, cached=False)
    assert cached._judge_cache() and not direct._judge_cache()
    for left, right in AGREE:
        assert cached.match(left, right).to_json() == direct.match(left, right).to_json(), (
            left,
            right,
        )


def test_the_cache_reads_wordnet_as_nltk_does():
    from companion.games.wordinoes.judgecache import SYNSET_POINTERS, judge_cache
    from companion.lexicon.wordnet import wordnet

    wn, cw = wordnet(), judge_cache().wordnet
    for word in ("dogs", "mice", "geese", "better", "running", "sun", "moon", "bank", "xqzzt"):
        assert [s.name() for s in cw.synsets(word)] == [s.name() for s in wn.synsets(word)]
        for s in wn.synsets(word):
            c = cw.synset(s.name())
            assert (c.definition(), c.lemma_names()) == (s.definition(), s.lemma_names())
            for method in SYNSET_POINTERS:
                got = [x.name() for x in getattr(c, method)()]
                assert got == sorted(x.name() for x in getattr(s, method)()), (s, method)
            for a, b in zip(s.lemmas(), c.lemmas(), strict=True):
                assert [x.name() for x in a.antonyms()] == [x.name() for x in b.antonyms()]


def test_without_a_usable_cache_the_judge_reads_the_sources(monkeypatch):
    import companion.games.wordinoes.judgecache as judgecache

    def unwritable(root=None):
        raise OSError("read-only file system")

    monkeypatch.setattr(judgecache, "judge_cache", unwritable)
    j = MatchJudge(lexicon=LEXICON)
    assert not j._judge_cache()
    assert "rhyme" in kinds(j.match("BAND", "HAND"))


def test_wordnet_is_read_rightly_from_several_threads_at_once():
    # nltk's reader seeks one shared file per part of speech: without a lock, threads reading
    # synsets at once get each other's lines (a synset "not found", or a WordNetError)
    import threading
    import warnings

    from companion.lexicon.wordnet import wordnet

    wn = wordnet()
    wanted = [(s.pos(), s.offset(), s.name()) for s in list(wn.all_synsets("n"))[:3000]]
    for cache in wn._synset_offset_cache.values():
        cache.clear()  # every read goes to the data file
    wrong, failures = [], []

    def read(part: int) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # nltk warns for a synset it cannot find
                for pos, offset, name in wanted[part::4]:
                    synset = wn.synset_from_pos_and_offset(pos, offset)
                    if synset is None or synset.name() != name:
                        wrong.append((offset, synset))
        except Exception as exc:  # noqa: BLE001 - every failure is the test's finding
            failures.append(repr(exc))

    threads = [threading.Thread(target=read, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures and not wrong
