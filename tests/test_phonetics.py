"""Rhymes and homophones against the Wordinoes rulebook ("Wordinoes Matching").

"The last stressed vowel and the consonants that follow must sound the same, so the following
combinations would not be acceptable: HANG + HAND, HAND + BIND or COUGH + TOUGH."
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.lexicon import phonetics
from companion.lexicon.phonetics import PhoneticsInputError, rhyme, rhyming_part


def test_rulebook_band_and_hand_rhyme():
    r = rhyme("BAND", "HAND")
    assert r is not None
    # B AE1 N D / HH AE1 N D: the stressed AE and the N D after it
    assert r.rhyming_part == "AE N D"


@pytest.mark.parametrize(
    "left,right",
    [
        ("HANG", "HAND"),  # same vowel, different consonants after it (NG vs N D)
        ("HAND", "BIND"),  # same consonants, different stressed vowel (AE vs AY)
        ("COUGH", "TOUGH"),  # same spelling ending, different sound (AO/AA F vs AH F)
    ],
)
def test_rulebook_non_rhymes(left, right):
    assert rhyme(left, right) is None


def test_homophones_are_not_a_rhyme():
    # SUN and SON are one sound, S AH1 N: two spellings, not a rhyme
    assert phonetics.are_homophones("SUN", "SON")
    assert rhyme("SUN", "SON") is None


def test_a_word_does_not_rhyme_with_itself():
    assert rhyme("OVER", "OVER") is None


def test_every_pronunciation_is_considered():
    # READ is R IY1 D and R EH1 D; it rhymes with BEAD (B IY1 D) and with BED (B EH1 D)
    assert rhyme("READ", "BEAD") is not None
    assert rhyme("READ", "BED") is not None


def test_secondary_stress_counts_as_stress():
    # BOBCAT is B AA1 B K AE2 T: its last stressed vowel is AE2, so it rhymes with CAT
    assert rhyming_part("B AA1 B K AE2 T") == "AE T"
    assert rhyme("BOBCAT", "CAT") is not None


def test_a_secondary_stress_on_a_trochees_last_syllable_does_not_break_a_rhyme():
    # CMUdict: WILLOW W IH1 L OW2, PILLOW P IH1 L OW0: from the last primary-stressed vowel both
    # end in IH L OW (issue 47)
    assert rhyming_part("W IH1 L OW2") == rhyming_part("P IH1 L OW0") == "IH L OW"
    # a secondary stress one word has and the other lacks: the part from the primary stress too
    assert phonetics.primary_part("F R AH1 S T R EY2 T AH0 D") == "AH S T R EY T @ D"
    assert phonetics.primary_part("P IH1 L OW0") == ""  # no second part: the same one
    for left, right in (("PILLOW", "WILLOW"), ("WILLOW", "BILLOW"), ("MEADOW", "SHADOW")):
        r = rhyme(left, right)
        assert (r is not None) is (left != "MEADOW"), (left, right)
    assert rhyme("PILLOW", "WILLOW").rhyming_part == "IH L OW"


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["P", "L", "T", "S"]), max_size=2), st.sampled_from("02"))
def test_the_part_from_the_primary_stress_holds_every_later_phone(tail, stress):
    phones = " ".join(["B", "AA1", *tail, "OW" + stress, *tail])
    parts = [rhyming_part(phones), phonetics.primary_part(phones)]
    assert ["AA", *tail, "OW", *tail] in [p.split() for p in parts]
    if not tail:  # OW ends the word: a trochee's weak last syllable is never a rhyme of its own
        assert "OW" not in parts


def test_rhyming_part_without_stress_starts_at_the_last_vowel():
    assert rhyming_part("DH AH0") == "AH"


def test_rhyming_part_needs_a_vowel():
    with pytest.raises(PhoneticsInputError):
        rhyming_part("K T")


def test_words_outside_cmudict_are_pronounced_by_analogy():
    # SPLAND is not in CMUdict; its ending -LAND is pronounced L AE1 N D in LAND, HAND...
    prons = phonetics.pronunciations("SPLAND")
    assert prons and all(p.source == "analogy" for p in prons)
    assert rhyme("SPLAND", "HAND") is not None
    assert rhyme("SPLAND", "BIND") is None


def test_no_analogy_without_a_shared_vowel():
    assert phonetics.pronunciations("XQZZT") == []
    assert rhyme("XQZZT", "HAND") is None
    # a final E after a consonant is silent: ZZZE has no sounded vowel to rhyme on
    assert phonetics.pronunciations("ZZZE") == []


def test_analogy_with_a_silent_e():
    # GRAKE is not in CMUdict; -AKE as in BRAKE, DRAKE (B R EY1 K): it rhymes with LAKE
    assert rhyme("GRAKE", "LAKE") is not None
    assert rhyme("GRAKE", "LACK") is None


def test_homophones_lists_other_spellings():
    assert "son" in phonetics.homophones("sun")
    assert "sun" not in phonetics.homophones("sun")


@pytest.mark.parametrize("bad", ["", "HA ND", "HAND1", "CAFÉ", None])
def test_bad_words_are_refused_with_a_clear_error(bad):
    with pytest.raises(PhoneticsInputError, match="accepted are the letters A-Z"):
        rhyme(bad, "HAND")


WORDS = [
    "BAND",
    "HAND",
    "HANG",
    "BIND",
    "COUGH",
    "TOUGH",
    "SUN",
    "SON",
    "CAT",
    "HAT",
    "READ",
    "RED",
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(WORDS), st.sampled_from(WORDS))
def test_rhyme_is_symmetric_and_never_between_homophones(a, b):
    assert (rhyme(a, b) is None) == (rhyme(b, a) is None)
    if phonetics.are_homophones(a, b) or a == b:
        assert rhyme(a, b) is None


# --- the cache answers as CMUdict does ---------------------------------------------------------

CACHE_WORDS = WORDS + ["SPLAND", "GRAKE", "ZZZE", "XQZZT", "BOBCAT", "BEAR", "BARE", "LATTE"]


def test_the_cached_cmudict_gives_the_same_answers():
    cached, direct = phonetics.cmudict(), phonetics.CmuDict()
    assert isinstance(cached, phonetics.CachedCmuDict)
    for a in CACHE_WORDS:
        assert phonetics.pronunciations(a, cached) == phonetics.pronunciations(a, direct), a
        assert phonetics.homophones(a, cached) == phonetics.homophones(a, direct), a
        for b in CACHE_WORDS:
            assert phonetics.rhyme(a, b, cached) == phonetics.rhyme(a, b, direct), (a, b)


def test_a_cache_is_built_once_and_rebuilt_when_its_sources_change(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("one")
    built = []

    def build(con):
        built.append(source.read_text())
        con.execute("CREATE TABLE t (v TEXT)")
        con.execute("INSERT INTO t VALUES (?)", (source.read_text(),))

    def value():
        stamp = phonetics.file_stamp([source], 1)
        con = phonetics.open_cache_db(tmp_path / "c.sqlite", stamp, build)
        return con.execute("SELECT v FROM t").fetchone()[0]

    assert value() == "one" and value() == "one"
    assert built == ["one"]
    source.write_text("three")  # another size: another stamp
    assert value() == "three" and built == ["one", "three"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.sqlite", "source.txt"]


def test_an_unstressed_reduced_vowel_is_one_sound_in_the_rhyming_part():
    from companion.lexicon.phonetics import rhyming_part

    # FRUSTRATED ends T AH0 D, INFLATED T IH0 D: the rulebook's stressed vowel and consonants agree
    assert rhyming_part("F R AH1 S T R EY2 T AH0 D") == rhyming_part("IH2 N F L EY1 T IH0 D")
    assert rhyming_part("F R AH1 S T R EY2 T AH0 D") == "EY T @ D"
    # the stressed vowel itself is never merged
    assert rhyming_part("K AO1 F") != rhyming_part("T AH1 F")


def test_words_sharing_a_pronunciation_never_rhyme():
    from companion.lexicon.phonetics import are_homophones, rhyme

    # CMUdict: WHIT is W IH1 T and HH W IH1 T, WIT is W IH1 T
    assert are_homophones("whit", "wit")
    assert rhyme("whit", "wit") is None and rhyme("wit", "whit") is None
    assert rhyme("frustrated", "inflated") is not None


def test_a_cache_build_killed_outright_leaves_nothing_behind_the_next_one(tmp_path):
    """A build stopped by SIGKILL or a power cut leaves ``NAME.PID.tmp`` and its journal; the
    next build removes those of processes no longer running, and keeps a live one's."""
    import subprocess
    import sys

    from companion.lexicon.phonetics import open_cache_db

    path = tmp_path / "cache.sqlite"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = [tmp_path / f"cache.sqlite.{dead}.tmp", tmp_path / f"cache.sqlite.{dead}.tmp-journal"]
    live = tmp_path / "cache.sqlite.1.tmp"  # pid 1 is running (another user's or ours)
    for part in [*stale, live]:
        part.write_bytes(b"half a cache")

    def build(con):
        con.execute("CREATE TABLE t (x)")

    con = open_cache_db(path, "v1", build)
    con.close()
    assert path.exists()
    assert not any(p.exists() for p in stale)
    assert live.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.sqlite", "cache.sqlite.1.tmp"]
