"""What ``companion judge --explain`` tells the arbiter about each word: where the lexicon found it
(which list and rule), or why it is not there, and a short definition when WordNet or GCIDE has
one, so that players can settle an argument as they do with Zyzzyva's word judge, which shows
definitions.

For a SCOWL lexicon the word is looked up in the files the lexicon is built from (``found in``:
``english-words.35``, ``variant_2-words.35``) and, when it is not there, in every other SCOWL file,
so the answer says what SCOWL has instead: the word only at a larger size, only capitalised (a
name: ``english-upper.35`` has ``Tuesday``), only as an abbreviation or contraction, or left out by
a rule (no vowel, the screen's name, abbreviation or foreign word: :mod:`companion.lexicon.screen`).
A word one of the screen's rules added says which (``second source``, ``GCIDE form``).
The definition is WordNet's first sense of the word or of its base form (APICES: APEX), else
GCIDE's first sense.

``companion judge --explain`` reads all of this from the explain index
(:mod:`companion.lexicon.explainindex`, an SQLite file of the data directory built at install by
``companion lexicon explain-index``): a few milliseconds a word. Without a current index (or
with ``index=None``) it is read from SCOWL's files, WordNet and GCIDE themselves, with the same
answer, in seconds and some 350 MB. For the arbiter's call only, never
the table's hot path.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from companion.lexicon import scowl


@dataclass
class WordExplanation:
    """The arbiter's answer for one word.

    ``found`` lists where the lexicon has the word (file names, or the imported list's name);
    ``why`` says which rule kept it or left it out; ``elsewhere`` what other SCOWL files have
    (``english-upper.35: Tuesday``); ``definition`` and ``definition_source`` (``wordnet`` or
    ``gcide``) a short definition, or None.
    """

    word: str
    valid: bool
    found: list[str] = field(default_factory=list)
    why: str = ""
    elsewhere: list[str] = field(default_factory=list)
    definition: str | None = None
    definition_source: str | None = None

    def to_json(self) -> dict:
        """A JSON-ready dict of every field."""
        return {
            "valid": self.valid,
            "found": self.found,
            "why": self.why,
            "elsewhere": self.elsewhere,
            "definition": self.definition,
            "definition_source": self.definition_source,
        }

    def lines(self) -> list[str]:
        """The indented lines printed under ``WORD<TAB>valid`` by ``--explain``."""
        out = []
        if self.found:
            out.append(f"  found in: {', '.join(self.found)}")
        if self.why:
            out.append(f"  rule: {self.why}")
        if self.elsewhere:
            out.append(f"  SCOWL also has: {', '.join(self.elsewhere[:6])}")
        if self.definition:
            out.append(f"  definition ({self.definition_source}): {self.definition}")
        else:
            out.append("  definition: none in WordNet or GCIDE")
        return out


def _entries_in(path: Path, word: str) -> list[str]:
    """The lines of SCOWL file ``path`` that are ``word`` in any case (accents folded)."""
    from companion.lexicon.words import fold

    text = scowl.read_text(path)
    low = text.lower()
    out = []
    for m in re.finditer(rf"(?m)^{re.escape(word)}\.?$", low):
        out.append(text[m.start() : m.end()])
    if not out and not text.isascii():
        out = [line for line in text.splitlines() if fold(line).lower() == word]
    return out


def _is_the_word(entry: str, word: str) -> bool:
    """True when a SCOWL line ``entry`` is ``word`` as a lexicon takes it: in lower case, with
    its accents folded (``café`` is CAFE), not a capitalised name or an abbreviation's dot."""
    from companion.lexicon.words import fold

    return entry == entry.lower() and fold(entry) == word


def scowl_files() -> list[Path]:
    """Every SCOWL file the explanation looks in (``SIZE``-suffixed files of ``SCOWL_DIR``,
    sorted by path): the lexicon's sources, and the others for ``SCOWL also has``. Listed
    again only when the folder changes (its modification time)."""
    try:
        changed = scowl.SCOWL_DIR.stat().st_mtime_ns
    except OSError:
        changed = None
    return list(_scowl_files(scowl.SCOWL_DIR, changed))


@functools.lru_cache(maxsize=4)
def _scowl_files(root: Path, changed: int | None) -> tuple[Path, ...]:
    return tuple(p for p in sorted(root.glob("*-*.*")) if p.suffix[1:].isdigit())


def _scowl_story(word: str, lexicon, entries_in=_entries_in) -> tuple[list[str], str, list[str]]:
    """``found``, ``why`` and ``elsewhere`` for ``word``; ``entries_in(path, word)`` gives the
    lines of a SCOWL file that are the word (:func:`_entries_in`, or the explain index's copy)."""
    from companion.lexicon.screen import screen

    params = scowl.parse_name(lexicon.name)
    sources = [Path(p) for p in lexicon.meta.get("sources", [])]
    found = [p.name for p in sources if any(_is_the_word(e, word) for e in entries_in(p, word))]
    elsewhere = []
    own = set(sources)
    for path in scowl_files():
        if path in own:
            continue
        for entry in entries_in(path, word):
            elsewhere.append(f"{path.name}: {entry}")
    why = ""
    sc = screen()
    rule = scowl.reason_left_out(word) or sc.why(word)
    extra = {p.name for p in params.vouched_files()} if params else set()
    if word in lexicon and found and set(found) <= extra and sc.vouched_for(word):
        lemma = sc.vouched_for(word)
        of = "" if lemma == word else f" (a form of {lemma.upper()})"
        why = (
            "added by the rule second source: SCOWL lists it only at the next size up or as a "
            f"seldom-used variant, and WordNet has it as a lower-case word{of}"
        )
    elif word in lexicon and not found and word in sc.forms:
        why = (
            f"added by the rule GCIDE form: GCIDE names it as a form of {sc.forms[word].upper()}"
            ", and lemminflect spells that form so"
        )
    elif word in lexicon:
        why = "a lower-case word of SCOWL's words files, kept by every rule"
    elif found and rule:
        why = {
            "no vowel": "left out: no vowel, an abbreviation (unit or symbol)",
            "name": "left out by the screen: a name (SCOWL lists it in lower case only at size "
            "95, and capitalised elsewhere or WordNet only capitalised)",
            "abbreviation": "left out by the screen: an abbreviation (SCOWL's abbreviations "
            "files, no dictionary knows it as a word, and SCOWL ranks the abbreviation at least "
            "as common, CMUdict says it letter by letter, or WordNet names a unit of those "
            "initials; or WordNet has it only as initials)",
            "foreign": "left out by the screen: a word of a foreign phrase (GCIDE), not a word "
            "of its own",
            "foreign word": "left out by the screen: a foreign word (no dictionary knows it as "
            "English, GCIDE quotes it only as a word of another language, as in F. oui, and "
            "SCOWL lists no English form of it)",
        }.get(rule, f"left out: {rule}")
    elif any("-words." in e for e in elsewhere):
        size = params.size if params else "?"
        why = f"not in SCOWL's words files up to size {size} in these spellings"
    elif elsewhere:
        why = "SCOWL has it only as a name, capitalised word, abbreviation or contraction"
    else:
        why = "not in SCOWL"
    return found, why, elsewhere


def wordnet_definition(word: str, wn) -> tuple[str, str] | None:
    """WordNet's definition of ``word`` (lower case) as ``(lead, definition)``: the first sense
    that has the word itself as a lemma, else its first sense (of a base form: APICES, APEX);
    ``lead`` is ``"APEX: "`` when the sense's lemma is not the word, else ``""``. None when
    WordNet has no sense of it. ``wn`` is nltk's reader (:func:`companion.lexicon.wordnet.wordnet`).
    """
    senses = wn.synsets(word)
    common = [s for s in senses if any(n.lower() == word for n in s.lemma_names())]
    chosen = (common or senses)[:1]
    if not chosen:
        return None
    s = chosen[0]
    names = {n.lower() for n in s.lemma_names()}
    bases = [b for pos in ("n", "v", "a", "r") for b in wn._morphy(word, pos)]
    base = word if word in names else next((b for b in bases if b in names), None)
    base = base or s.lemma_names()[0].lower()
    lead = "" if base == word else f"{base.replace('_', ' ').upper()}: "
    return lead, s.definition()


def gcide_definition(text: str) -> str:
    """A GCIDE definition as ``--explain`` shows it: its first 200 characters, ``...`` after."""
    return text[:200] + ("..." if len(text) > 200 else "")


def _definition(word: str) -> tuple[str | None, str | None]:
    """The definition and its source read from WordNet and GCIDE themselves (slow: nltk's reader
    takes a few seconds to open, GCIDE some more)."""
    try:
        from companion.lexicon.wordnet import wordnet

        found = wordnet_definition(word, wordnet())
        if found is not None:
            return found[0] + found[1], "wordnet"
    except Exception:  # WordNet missing or unreadable: try GCIDE
        pass
    try:
        from companion.lexicon.gcide import gcide

        for entry in gcide().entries(word):
            text = entry.definition()
            if text:
                return gcide_definition(text), "gcide"
    except Exception:  # GCIDE missing: no definition
        pass
    return None, None


def explain(word: str, lexicon, index=None) -> WordExplanation:
    """Explain the ruling on ``word`` (upper or lower case, letters A-Z) against ``lexicon`` (a
    :class:`companion.lexicon.Lexicon`; an imported list is named as the place it was found).

    ``index``: an open :class:`companion.lexicon.explainindex.ExplainIndex`
    (:func:`companion.lexicon.explainindex.open_index`) to read the SCOWL entries and the
    definition from (a few milliseconds); None to read SCOWL's files, WordNet and GCIDE
    themselves (seconds, some 350 MB). The answer is the same.

    Raises:
        companion.lexicon.explainindex.ExplainIndexError: a query of ``index`` failed (the
            file is damaged); the caller says so and asks again with ``index=None``.
    """
    w = word.lower()
    if index is not None and not index.covers(w):
        index = None  # not letters a-z: the index holds words of a-z only
    valid = w in lexicon
    out = WordExplanation(word.upper(), valid)
    if scowl.parse_name(getattr(lexicon, "name", "")) is not None:
        entries_in = _entries_in if index is None else index.entries_in
        out.found, out.why, out.elsewhere = _scowl_story(w, lexicon, entries_in)
    elif valid:
        out.found, out.why = [f"the imported list {lexicon.name}"], "taken as imported"
    else:
        out.why = f"not in the imported list {getattr(lexicon, 'name', '')}"
    found = _definition(w) if index is None else index.definition(w)
    out.definition, out.definition_source = found
    return out
