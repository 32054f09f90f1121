"""WordNet 3.0 from Debian's ``wordnet-base`` (``/usr/share/wordnet``), read with nltk's reader.

nltk's ``WordNetCorpusReader`` needs a ``lexnames`` file that the Debian package lacks; it is the
fixed list of WordNet's 45 lexicographer files (wndb(5WN), lexnames(5WN)). We write it, with copies
of the package's data files (nltk refuses links), into a folder of the data directory, once, and open the reader there.
No download ever happens.
"""

from __future__ import annotations

import functools
import shutil
import threading
import warnings
from pathlib import Path

from companion.errors import CompanionError
from companion.paths import data_dir

WORDNET_DIR = Path("/usr/share/wordnet")

# lexnames(5WN): number, name, syntactic category (1 noun, 2 verb, 3 adj, 4 adv)
LEXNAMES = [
    ("adj.all", 3), ("adj.pert", 3), ("adv.all", 4), ("noun.Tops", 1), ("noun.act", 1),
    ("noun.animal", 1), ("noun.artifact", 1), ("noun.attribute", 1), ("noun.body", 1),
    ("noun.cognition", 1), ("noun.communication", 1), ("noun.event", 1), ("noun.feeling", 1),
    ("noun.food", 1), ("noun.group", 1), ("noun.location", 1), ("noun.motive", 1),
    ("noun.object", 1), ("noun.person", 1), ("noun.phenomenon", 1), ("noun.plant", 1),
    ("noun.possession", 1), ("noun.process", 1), ("noun.quantity", 1), ("noun.relation", 1),
    ("noun.shape", 1), ("noun.state", 1), ("noun.substance", 1), ("noun.time", 1),
    ("verb.body", 2), ("verb.change", 2), ("verb.cognition", 2), ("verb.communication", 2),
    ("verb.competition", 2), ("verb.consumption", 2), ("verb.contact", 2), ("verb.creation", 2),
    ("verb.emotion", 2), ("verb.motion", 2), ("verb.perception", 2), ("verb.possession", 2),
    ("verb.social", 2), ("verb.stative", 2), ("verb.weather", 2), ("adj.ppl", 3),
]  # fmt: skip


class WordNetUnavailable(CompanionError, FileNotFoundError):
    """WordNet's files are missing: install the Debian package ``wordnet-base`` (``make deps``)."""


def prepare_root(source: Path = WORDNET_DIR, target: Path | None = None) -> Path:
    """Make a folder nltk's reader accepts: copies of ``source``'s files plus a ``lexnames`` file.

    Returns the folder (``<data dir>/wordnet`` by default).

    Raises:
        WordNetUnavailable: ``source`` has no ``data.noun``.
    """
    if not (source / "data.noun").exists():
        raise WordNetUnavailable(
            f"WordNet is not installed: {source}/data.noun is missing; "
            "install the Debian package wordnet-base (make deps does)"
        )
    target = target or data_dir() / "wordnet"
    target.mkdir(parents=True, exist_ok=True)
    for f in source.iterdir():
        link = target / f.name
        if not link.exists():
            # a copy: nltk refuses symbolic and hard links out of its root
            tmp = link.with_name(link.name + ".tmp")
            shutil.copyfile(f, tmp)
            tmp.replace(link)
    lexnames = target / "lexnames"
    if not lexnames.exists():
        tmp = lexnames.with_suffix(".tmp")
        tmp.write_text("".join(f"{i:02d}\t{n}\t{c}\n" for i, (n, c) in enumerate(LEXNAMES)))
        tmp.replace(lexnames)
    return target


@functools.cache
def wordnet():
    """nltk's ``WordNetCorpusReader`` over Debian's WordNet 3.0 (opened once per process; its
    synsets may be read from several threads at once: the data files are read under a lock).

    Raises:
        WordNetUnavailable: the Debian package is missing.
    """
    return _open_reader(compact=False)


def compact_wordnet():
    """A reader of its own (not :func:`wordnet`'s) whose lemma index is kept one string a lemma
    (:class:`_CompactLemmaIndex`): the same answers, about 35 MB less than nltk's 60 MB of
    dicts and lists, a little slower to look up. For one-off builds that read every word
    (``companion lexicon explain-index``), so they fit a Zero 2 W.

    Raises:
        WordNetUnavailable: the Debian package is missing.
    """
    return _open_reader(compact=True)


class _LemmaEntry(dict):
    """A lemma's ``{pos: [offsets]}`` read out of a :class:`_CompactLemmaIndex`; a part of speech
    set on it (as nltk's loader does) is written back."""

    def __init__(self, owner: _CompactLemmaIndex, lemma: str, items):
        super().__init__(items)
        self._owner = owner
        self._lemma = lemma

    def __setitem__(self, pos, offsets) -> None:
        super().__setitem__(pos, offsets)
        self._owner.rows[self._lemma] = ";".join(
            f"{p}:{' '.join(map(str, offs))}" for p, offs in self.items()
        )


class _CompactLemmaIndex:
    """nltk's ``_lemma_pos_offset_map`` (lemma -> {pos: [synset offsets]}, a ``defaultdict(dict)``)
    kept as one string a lemma (``"n:2084071 10114209;v:1207609"``). nltk's reader only fills
    it (``index[lemma][pos] = offsets``), asks ``lemma in index`` and reads ``index[lemma]``,
    which here is decoded on each read; a lemma not in it reads as an empty entry, not stored."""

    def __init__(self):
        self.rows: dict[str, str] = {}

    def __contains__(self, lemma) -> bool:
        return lemma in self.rows

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, lemma) -> _LemmaEntry:
        row = self.rows.get(lemma)
        items = []
        if row:
            for part in row.split(";"):
                pos, _, offsets = part.partition(":")
                items.append((pos, [int(o) for o in offsets.split()]))
        return _LemmaEntry(self, lemma, items)

    def items(self):
        """``(lemma, {pos: [offsets]})`` for every lemma, in the order they were added."""
        return ((lemma, self[lemma]) for lemma in self.rows)


def _open_reader(compact: bool):
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class _DebianWordNet(WordNetCorpusReader):
        # nltk's reader keeps one open file per part of speech and reads a synset by seeking it
        # and reading a line: two threads at once read each other's lines (a synset "not found",
        # or a WordNetError from a line cut in two). Every read of a data file takes this lock.
        _files_lock = threading.RLock()

        def map_wn(self, version="wordnet"):
            # nltk maps to its own downloaded "wordnet" corpus here; this *is* WordNet 3.0
            return None

        def synset_from_pos_and_offset(self, pos, offset):
            with self._files_lock:
                return super().synset_from_pos_and_offset(pos, offset)

        def _scan_satellites(self):
            with self._files_lock:
                return super()._scan_satellites()

        def get_version(self):
            with self._files_lock:
                return super().get_version()

        def _load_lemma_pos_offset_map(self):
            if compact:
                self._lemma_pos_offset_map = _CompactLemmaIndex()
            return super()._load_lemma_pos_offset_map()

    root = prepare_root()
    # nltk reads only below the roots in nltk.data.path: allow ours and the package's own
    for allowed in (str(root), str(WORDNET_DIR)):
        if allowed not in nltk.data.path:
            nltk.data.path.append(allowed)
    with warnings.catch_warnings():
        # "multilingual functions are not available": we use English WordNet only
        warnings.simplefilter("ignore", UserWarning)
        return _DebianWordNet(str(root), None)
