"""The Wordinoes judge's word sources, read from the packages themselves: WordNet's data files
(Debian ``wordnet-base``) as one searchable text of definitions, and lemminflect's inflections.

Both :mod:`companion.games.wordinoes.match` (the judge) and
:mod:`companion.games.wordinoes.judgecache` (its cache, built from these readers so that cached and
uncached answers agree) use them; neither imports the other's internals.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

WORDNET_DATA = Path("/usr/share/wordnet")
"""Where Debian's ``wordnet-base`` puts WordNet 3.0's data files."""


def is_common_name(lemma_name: str) -> bool:
    """True when a WordNet lemma name is a common word or phrase (``last_word``, ``sun``), False
    for a capitalised one: a proper noun (``Sun_Myung_Moon``, ``New_York``, ``Sunday``) or a name
    in a phrase (``Christmas_tree``). Names are not evidence of a match."""
    return not lemma_name[:1].isupper()


@functools.cache
def forms(word: str) -> frozenset[str]:
    """``word`` and its inflections (lemminflect), for finding it in running text."""
    from lemminflect import getAllInflections, getAllLemmas

    found = {word}
    bases = {word} | {b for lemmas in getAllLemmas(word).values() for b in lemmas}
    for base in bases:
        found.add(base)
        for inflected in getAllInflections(base).values():
            found.update(inflected)
    return frozenset(f.lower() for f in found if f.isalpha())


@functools.cache
def base_forms(word: str) -> tuple[str, ...]:
    """``word`` (lower case), then the nouns and verbs it is an inflection of (lemminflect):
    DOGS -> dogs, dog; MICE -> mice, mouse. Adjectives are left out (BETTER is not GOOD here)."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word)
    bases = [word]
    for pos in ("NOUN", "VERB"):
        bases += [b.lower() for b in lemmas.get(pos, ()) if b.isalpha() and b.lower() not in bases]
    return tuple(bases)


# --- WordNet's definitions and examples, for co-occurrence--------------------------------------


@dataclass
class Glosses:
    """Every WordNet synset as one lower-case line: its lemma names, then its gloss.

    ``proper`` are the proper-noun entries (every lemma name capitalised: SUN MYUNG MOON, NEW
    YORK): they are not evidence, so :meth:`lines_with` leaves them out and :attr:`entries` does
    not count them. ``lemmas`` holds each entry's common multi-word lemmas only.
    """

    text: str
    starts: list[int]
    names: list[str]
    lemmas: list[tuple[tuple[str, ...], ...]]
    proper: frozenset[int] = frozenset()
    _cache: dict[str, frozenset[int]] = field(default_factory=dict)

    def lines_with(self, word: str) -> frozenset[int]:
        """The entries whose lemmas, definition or examples use ``word`` or an inflection of it."""
        hits = self._cache.get(word)
        if hits is None:
            text, found = self.text, set()
            for form in forms(word):
                i = text.find(form)
                while i != -1:
                    j = i + len(form)
                    if (i == 0 or not text[i - 1].isalnum()) and (
                        j >= len(text) or not text[j].isalnum()
                    ):
                        found.add(bisect.bisect_right(self.starts, i) - 1)
                    i = text.find(form, j)
            hits = self._cache[word] = frozenset(found) - self.proper
        return hits

    def line(self, i: int) -> str:
        """Entry ``i`` as one lower-case line: its lemma names, `` | ``, its gloss."""
        end = self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[i] : end]

    def gloss(self, i: int) -> str:
        """Entry ``i``'s gloss (definition and examples), lower case."""
        return self.line(i).partition(" | ")[2]

    @property
    def entries(self) -> int:
        """How many entries (synsets) there are, proper-noun entries left out."""
        return len(self.starts) - len(self.proper)

    def name(self, i: int) -> str:
        """Entry ``i``'s first lemma name, lower case."""
        return self.names[i]

    def lemmas_of(self, i: int) -> tuple[tuple[str, ...], ...]:
        """Entry ``i``'s lemmas of two words or more, each split into its words."""
        return self.lemmas[i]


def gloss_entries(root: Path = WORDNET_DATA):
    """WordNet's synsets one at a time, in the order of :class:`Glosses`' entries: ``(line, name,
    lemmas, proper)`` as :meth:`Glosses.line`, :meth:`Glosses.name`, :meth:`Glosses.lemmas_of`
    give them and whether the entry is a proper noun's. Read as it goes (for the judge's cache,
    whose build must fit a Zero 2 W's memory)."""
    for pos in ("noun", "verb", "adj", "adv"):
        path = root / f"data.{pos}"
        with path.open(encoding="latin-1") as f:
            for raw in f:
                if raw.startswith("  "):
                    continue  # licence header
                head, _, gloss = raw.partition("|")
                fields = head.split()
                count = int(fields[3], 16)
                lemmas = [re.sub(r"\(.*\)$", "", n) for n in fields[4 : 4 + 2 * count : 2]]
                proper = not any(map(is_common_name, lemmas))
                multi = (n.lower() for n in lemmas if ("_" in n or "-" in n) and is_common_name(n))
                words = tuple(tuple(re.split(r"[_-]", n)) for n in multi)
                joined = " ".join(n.replace("_", " ").replace("-", " ") for n in lemmas)
                yield f"{joined} | {gloss.strip()}".lower(), lemmas[0].lower(), words, proper


@functools.cache
def read_glosses(root: Path = WORDNET_DATA) -> Glosses:
    """Every WordNet synset as one :class:`Glosses` (read once a process)."""
    lines: list[str] = []
    names: list[str] = []
    lemma_words: list[tuple[tuple[str, ...], ...]] = []
    proper: set[int] = set()
    for line, name, words, is_proper in gloss_entries(root):
        if is_proper:
            proper.add(len(names))
        names.append(name)
        lemma_words.append(words)
        lines.append(line)
    starts, pos_ = [], 0
    for line in lines:
        starts.append(pos_)
        pos_ += len(line) + 1
    return Glosses("\n".join(lines), starts, names, lemma_words, frozenset(proper))
