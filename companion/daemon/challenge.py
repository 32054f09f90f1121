"""The word judge as the table service sees it: typed words in, a ruling out.

The Iago timer mode calls a :data:`JudgeFn` in ``decide`` and writes its answer into the journal,
so a replay never asks the lexicon again. :func:`lexicon_judge` wraps the lexicon engineer's
``companion.lexicon.open_lexicon`` and ``companion.lexicon.judge.judge``; tests pass
:func:`set_judge` over a plain set of words.

Rulebook, "Challenge": the word is checked in the dictionary; found, the challenge is rejected
(the screen says ACCEPTABLE); not found, it is sustained (NOT ACCEPTABLE). A play of several words
stands or falls as a whole.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from companion.errors import CompanionError

SEPARATORS = re.compile(r"[\s,;/+]+")


class ChallengeInputError(CompanionError, ValueError):
    """Typed words that cannot be judged (none, or not letters A-Z); the message says which."""


class LexiconUnavailable(CompanionError, RuntimeError):
    """The lexicon is still loading, or cannot be opened; the message says which and what to do.

    ``transient``: True when typing the words again shortly may work (the lexicon is still
    loading); False (the default) when the judge cannot rule at all (a missing or damaged word
    list, no lexicon): the clocked modes then leave the verdict to the arbiter
    (:func:`unchecked_event`).
    """

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True)
class Ruling:
    """The judge's answer on a challenged play.

    ``valid``: every word is in the lexicon (the challenge is rejected); ``words``: each word in
    upper case -> found (for the arbiter and the record only); ``lexicon``: the lexicon's name.
    """

    valid: bool
    words: dict[str, bool] = field(default_factory=dict)
    lexicon: str = ""

    def event(self, t: float, words: list[str], lexicon_name: str) -> dict:
        """The journal's ``words`` event of this ruling on the challenged ``words`` at game time
        ``t`` (seconds), as the clocked modes (Iago, Scrabble) write it: the words in upper
        case, ``valid``, ``per_word`` and the lexicon (``lexicon_name``, the table's, when the
        judge names none)."""
        return {
            "t": t,
            "kind": "words",
            "words": [w.upper() for w in words],
            "valid": bool(self.valid),
            "per_word": dict(self.words),
            "lexicon": self.lexicon or lexicon_name,
        }


def unchecked_event(t: float, words: list[str], reason: str) -> dict:
    """The journal's ``words`` event of challenged ``words`` at game time ``t`` (seconds) that no
    lexicon checked (``reason``: why, the judge's message): ``valid`` is None, ``per_word`` and
    ``lexicon`` are empty and ``unchecked`` holds the reason, so the record says the verdict is
    the arbiter's and a replay never asks the lexicon."""
    return {
        "t": t,
        "kind": "words",
        "words": [w.upper() for w in words],
        "valid": None,
        "per_word": {},
        "lexicon": "",
        "unchecked": reason,
    }


NO_LEXICON = "NO LEXICON: ARBITER RULES"  # the verdict's label when no lexicon checked the words
ARBITER_RULES = (
    "{reason}: the arbiter rules. Shown ACCEPTABLE: override makes it NOT ACCEPTABLE, "
    "CHALLENGE (or confirm) settles it"
)
"""What the service says of words no lexicon checked (``reason``: the judge's message)."""


def words_event(judge, words: list[str], t: float, lexicon_name: str) -> dict:
    """The journal's ``words`` event of the challenged ``words`` at game time ``t`` (seconds),
    as the clocked modes (Iago, the crossword game) write it: ``judge``'s ruling
    (:meth:`Ruling.event`), or, when no lexicon can judge (``judge`` None, or a word list missing
    or damaged), the words unchecked for the arbiter to rule (:func:`unchecked_event`).

    Raises:
        ChallengeInputError: the judge refuses the words, or, unchecked, they are not letters
            A-Z.
        LexiconUnavailable: the lexicon is still loading (``transient``): type them again
            shortly.
    """
    try:
        if judge is None:
            raise LexiconUnavailable("no lexicon at this table")
        return judge(words).event(t, words, lexicon_name)
    except LexiconUnavailable as exc:
        if exc.transient:  # still loading: the words are typed again shortly
            raise
        bad = [w for w in words if not (w.isascii() and w.isalpha())]
        if bad:
            raise ChallengeInputError(f"words {bad!r} are not letters A-Z") from None
        return unchecked_event(t, words, str(exc))  # the arbiter rules


JudgeFn = Callable[[list[str]], Ruling]
"""``judge(words) -> Ruling``; raises :class:`ChallengeInputError` for bad words and
:class:`LexiconUnavailable` when it cannot rule now."""


def split_words(text: str) -> list[str]:
    """The words of a typed line: separated by spaces, commas, semicolons, ``/`` or ``+``.

    Raises:
        ChallengeInputError: the line has no words.
    """
    words = [w for w in SEPARATORS.split(text.strip()) if w]
    if not words:
        raise ChallengeInputError("no words typed: type the challenged words, then Enter")
    return words


def set_judge(words: Collection[str], name: str = "test") -> JudgeFn:
    """A judge over a plain collection of words (tests, benchmarks); case-insensitive, A-Z only."""
    known = {w.upper() for w in words}

    def judge(play: list[str]) -> Ruling:
        bad = [w for w in play if not w.isalpha() or not w.isascii()]
        if not play or bad:
            raise ChallengeInputError(f"words {bad!r} are not letters A-Z")
        found = {w.upper(): w.upper() in known for w in play}
        return Ruling(all(found.values()), found, name)

    return judge


class LexiconJudge:
    """The table's lexicon and ``companion.lexicon.judge.judge``, opened in the background.

    Args:
        name: the lexicon's name (None or "": the table's, else the default list).

    The lexicon is opened (and built, the first time) on a background thread started by
    :meth:`start`, so the first challenge does not wait; ``name`` is the opened lexicon's name
    once known.
    """

    def __init__(self, name: str | None = None) -> None:
        self.requested = name or None
        self.name = name or ""
        self._lexicon = None
        self._error: str | None = None
        self._failed: str | None = None  # the last failure, while it is being opened again
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> LexiconJudge:
        """Begin opening the lexicon on a daemon thread; returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._open, name="lexicon", daemon=True)
            self._thread.start()
        return self

    def _try_again(self) -> None:
        """Open the lexicon again after it failed (the list imported or mended since, the card
        read again): a failure is not kept for the rest of the service's life."""
        if self._lexicon is None and self._ready.is_set():
            self._failed, self._error, self._thread = self._error, None, None
            self._ready.clear()
            self.start()

    def _open(self) -> None:
        try:
            from companion.lexicon import open_lexicon

            self._lexicon = open_lexicon(self.requested)
            self.name = getattr(self._lexicon, "name", self.name)
        except Exception as exc:  # noqa: BLE001 - reported on the screen at the challenge
            self._error = f"{type(exc).__name__}: {exc}"
        finally:
            self._ready.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the lexicon is open (or failed); True when done."""
        self.start()
        return self._ready.wait(timeout)

    def __call__(self, words: list[str]) -> Ruling:
        """Rule on ``words``.

        A lexicon that could not be opened is opened again first (waited for as long as one
        still loading is), so a list imported or mended meanwhile judges this challenge; not
        done by then, the last failure stands for this challenge (not "still loading": a list
        that fails slowly would say so at every typing and never reach the arbiter).

        Raises:
            ChallengeInputError: a word is empty or not letters A-Z.
            LexiconUnavailable: the lexicon is still loading or could not be opened.
        """
        self._try_again()
        self.start()
        if not self._ready.wait(0.5):
            if self._failed is not None:  # not done opening again: the last failure stands
                raise LexiconUnavailable(f"the lexicon cannot be opened ({self._failed})")
            raise LexiconUnavailable(
                "the lexicon is still loading: type the words again shortly", transient=True
            )
        if self._lexicon is None:
            raise LexiconUnavailable(f"the lexicon cannot be opened ({self._error})")
        from companion.lexicon.judge import JudgeInputError, judge

        try:
            j = judge(words, self._lexicon)
        except JudgeInputError as exc:
            raise ChallengeInputError(str(exc)) from None
        return Ruling(bool(j.valid), dict(j.words), j.lexicon or self.name)


def lexicon_judge(name: str | None = None) -> LexiconJudge:
    """A :class:`LexiconJudge` for ``name``, already opening in the background."""
    return LexiconJudge(name).start()
