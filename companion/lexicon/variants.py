"""Spelling variants: one word written two ways (GRAY and GREY), for Iago's steal rule.

Iago's rulebook (Stealing): "To steal an opponent's word you must be able to change both its form
and its meaning ... the change of meaning must be genuine." A second spelling of the same word
changes the form only: GREY -> GRAY is no steal, whatever letter was substituted.

Two spellings are one word when WordNet 3.0 gives both as lemmas of each one's main sense (its
first, most frequent one) and CMUdict says them alike: GRAY and GREY, COLOR and COLOUR, FAVOR and
FAVOUR, REALISE and REALIZE, DEFENCE and DEFENSE. One sense shared is not enough: KAT is a
spelling of CAT only in the sense of KHAT, STOREY of STORY only in the floor's, TIMBRE of TIMBER
only in the tone's, LITE of LIGHT only in the low-calorie one, and each pair's main senses differ.
(GCIDE's "Written also" notes were tried and left out: they name archaic spellings that are other
words today, BIRTH for BERTH, KEY for QUAY.)

The table (a few seconds to build from WordNet and CMUdict) is kept in
``data_dir()/cache/spelling-variants-vN.json``, stamped with the sources' sizes and modification
times and :data:`VERSION`, and rebuilt when they change; without WordNet the table is empty.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from pathlib import Path

VERSION = 1
"""Bump when the rule changes: the table is then rebuilt."""


def _said_alike(cmu, a: str, b: str) -> bool:
    from companion.lexicon.phonetics import _plain

    sounds = {_plain(p) for p in cmu.phones(a)}
    return bool(sounds) and any(_plain(p) in sounds for p in cmu.phones(b))


def _wordnet_pairs(cmu) -> set[tuple[str, str]]:
    """Pairs of one-word lower-case WordNet lemmas, each a lemma of the other's main sense, that
    CMUdict says alike (module docstring). Synsets are read from WordNet's ``data.*`` files
    (wndb(5WN)); nltk's reader orders the few candidates' senses."""
    from companion.lexicon.wordnet import WORDNET_DIR, WordNetUnavailable, wordnet

    candidates: set[tuple[str, str]] = set()
    for pos in ("noun", "verb", "adj", "adv"):
        try:
            fh = open(WORDNET_DIR / f"data.{pos}", encoding="latin-1")  # noqa: SIM115
        except OSError:
            return set()
        with fh:
            for raw in fh:
                if raw.startswith("  "):
                    continue  # licence header
                fields = raw.split()
                names = [n.split("(")[0] for n in fields[4 : 4 + 2 * int(fields[3], 16) : 2]]
                names = [n for n in names if n.isalpha() and n.isascii() and n.islower()]
                for i, a in enumerate(names):
                    for b in names[i + 1 :]:
                        if a != b and _said_alike(cmu, a, b):
                            candidates.add((min(a, b), max(a, b)))
    if not candidates:
        return set()
    try:
        wn = wordnet()
    except WordNetUnavailable:
        return set()

    @functools.cache
    def main(word: str):
        return next((s for s in wn.synsets(word) if word in s.lemma_names()), None)

    return {
        (a, b)
        for a, b in candidates
        if main(a) is not None
        and main(b) is not None
        and b in main(a).lemma_names()
        and a in main(b).lemma_names()
    }


def build_variants() -> dict[str, list[str]]:
    """Every word's other spellings (lower case, sorted), both ways round, from WordNet with
    CMUdict (module docstring). A few seconds."""
    from companion.lexicon.phonetics import cmudict

    table: dict[str, set[str]] = {}
    for a, b in _wordnet_pairs(cmudict()):
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {w: sorted(v) for w, v in sorted(table.items())}


def _sources() -> list[Path]:
    from companion.lexicon.phonetics import _cmudict_files
    from companion.lexicon.wordnet import WORDNET_DIR

    files = [WORDNET_DIR / "data.noun", WORDNET_DIR]
    with contextlib.suppress(FileNotFoundError):
        files += _cmudict_files()
    return [f for f in files if f.exists()]


@functools.cache
def variants() -> dict[str, frozenset[str]]:
    """The table of spelling variants (word -> its other spellings, lower case), read from its
    cache in ``data_dir()/cache`` or built (a few seconds) and saved there."""
    from companion.lexicon.phonetics import cache_dir, file_stamp

    stamp = file_stamp(_sources(), VERSION)
    path = cache_dir() / f"spelling-variants-v{VERSION}.json"
    try:
        data = json.loads(path.read_text())
        if data.get("stamp") == stamp:
            return {w: frozenset(v) for w, v in data["variants"].items()}
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    table = build_variants()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"stamp": stamp, "variants": table}))
        tmp.replace(path)
    except OSError:
        pass  # a read-only data directory: built again next time
    return {w: frozenset(v) for w, v in table.items()}


def spellings(word: str) -> frozenset[str]:
    """The other spellings of ``word`` (lower case a-z) as one word: ``spellings("grey")`` holds
    ``"gray"``; empty when it has none."""
    return variants().get(word, frozenset())
