"""What a word is, for the lexicon and the judge: folding accents, and the letters a-z only.

Iago's rulebook (Valid Words): "Not acceptable are proper nouns, foreign words, abbreviations and
words requiring hyphens or apostrophes." The tiles carry the letters A-Z only, so a word of the
lexicon is a string of a-z after accents are folded the way word-game lists fold them (café is CAFE).
"""

from __future__ import annotations

import re
import unicodedata

# letters NFKD does not decompose, spelt as English word lists spell them
_LIGATURES = str.maketrans(
    {
        "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O",
        "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH",
        "ı": "i",
    }
)  # fmt: skip

_LOWER_AZ = re.compile(r"[a-z]+")


def fold(text: str) -> str:
    """``text`` with accents and ligatures folded to plain letters; case is kept.

    ``fold("café") == "cafe"``, ``fold("Æsop") == "AEsop"``, ``fold("naïve") == "naive"``.
    Characters that are neither letters with accents nor ligatures are left as they are.
    """
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_LIGATURES))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def is_plain_word(entry: str) -> bool:
    """True when ``entry`` (already folded) is one or more lower-case letters a-z, nothing else.

    This is the rule for every entry of a word list, one- and two-letter ones included: an
    upper-case letter marks a proper name or abbreviation (SCOWL's ``OK``, ``pH``), an apostrophe a
    possessive or contraction, a hyphen or space a compound.
    """
    return _LOWER_AZ.fullmatch(entry) is not None


def why_not_a_word(text: str) -> str | None:
    """Why ``text`` (one word typed or read, any case, accents allowed) cannot be a played word.

    Returns None when it is a word of letters; else a short reason naming the first offending
    character, e.g. ``"'3' is a digit"``, ``"it is empty"``.
    """
    if not text:
        return "it is empty"
    folded = fold(text)
    if not folded:
        return "it holds no letter (only accents or marks that combine with a letter)"
    for ch in folded:
        if "a" <= ch.lower() <= "z" and ch.isascii():
            continue
        if ch.isdigit():
            return f"{ch!r} is a digit"
        if ch.isspace():
            return "it contains a space (one word at a time)"
        if ch in "-\u2010\u2011\u2013":
            return f"{ch!r} is a hyphen"
        if ch in "'\u2019`":
            return f"{ch!r} is an apostrophe"
        return f"{ch!r} is not a letter A-Z"
    return None
