"""The word judge: rules on a challenged play as a table-side judge does, for the whole play.

Iago's rulebook (Challenge): "check in the dictionary. If the challenge is sustained – the word
cannot be found in the dictionary – ... If the challenge is rejected – the word is found to be
valid – ...". A play of several words stands or falls as a whole; which word failed is told only
to the arbiter (``--explain``), as tournament judges answer "acceptable" or "not acceptable".
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field

from companion.errors import CompanionError
from companion.lexicon.store import Lexicon
from companion.lexicon.words import fold, why_not_a_word


class JudgeInputError(CompanionError, ValueError):
    """A challenged word is empty or has a character that is not a letter A-Z."""


@dataclass(frozen=True)
class Judgement:
    """The ruling on a play.

    Attributes:
        valid: True when every word of the play is in the lexicon (the challenge is rejected);
            False when any is not (the challenge is sustained).
        words: each distinct word of the play in upper case (accents folded), in the order given,
            mapped to whether it is in the lexicon. For the arbiter only.
        lexicon: the name of the lexicon that ruled ("" when it has none).
    """

    valid: bool
    words: dict[str, bool] = field(default_factory=dict)
    lexicon: str = ""


def normalise(word: str) -> str:
    """``word`` as the judge reads it: accents folded, upper case (``"Café"`` -> ``"CAFE"``).

    Raises:
        JudgeInputError: ``word`` is empty or, once folded, has a character other than A-Z
            (a digit, space, hyphen, apostrophe...).
    """
    if not isinstance(word, str):
        raise JudgeInputError(f"word {word!r} is not text: give words of letters A-Z")
    why = why_not_a_word(word.strip())
    if why is not None:
        raise JudgeInputError(f"word {word!r} is not accepted: {why}; a word is letters A-Z only")
    return fold(word.strip()).upper()


def judge(words: Iterable[str], lexicon: Container[str]) -> Judgement:
    """Rule on the play ``words`` against ``lexicon`` (a Lexicon, or any container of words that
    answers ``in`` for upper-case words, e.g. a set in a test).

    Case does not matter; accents are folded; surrounding spaces are ignored. Every word is checked
    for bad input before any is looked up, so a bad play raises rather than half-rules.

    Raises:
        JudgeInputError: no words at all, or a word that is empty or not letters A-Z (the message
            names every such word).
    """
    given = list(words) if not isinstance(words, str) else [words]
    if not given:
        raise JudgeInputError("no words given: a play to judge has at least one word")
    problems, upper = [], []
    for w in given:
        try:
            upper.append(normalise(w))
        except JudgeInputError as exc:
            problems.append(str(exc))
    if problems:
        raise JudgeInputError("; ".join(problems))
    found = {w: _lookup(w, lexicon) for w in dict.fromkeys(upper)}
    return Judgement(all(found.values()), found, getattr(lexicon, "name", ""))


def _lookup(word: str, lexicon: Container[str]) -> bool:
    if word in lexicon:
        return True
    # a Lexicon ignores case; plain containers (a set of words in a test) may hold lower case
    return not isinstance(lexicon, Lexicon) and word.lower() in lexicon
