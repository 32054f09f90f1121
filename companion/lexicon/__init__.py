"""Word lists compiled to a compact index, the word judge, morphology and phonetics.

``open_lexicon(name=None) -> Lexicon`` opens the table's lexicon (or the one named); a Lexicon
answers ``"love" in lex`` (any case) and ``len(lex)``; ``Lexicon.name`` is shown on the screen.
The judge is ``companion.lexicon.judge.judge``, morphology ``companion.lexicon.morphology``.
"""

from companion.lexicon.store import (
    DEFAULT_NAME,
    Lexicon,
    LexiconError,
    LexiconNotFound,
    canonical_name,
    open_lexicon,
)

__all__ = [
    "DEFAULT_NAME",
    "Lexicon",
    "LexiconError",
    "LexiconNotFound",
    "canonical_name",
    "open_lexicon",
]
