"""Ruling on an Iago move: what changed between two boards, steals, cross-links and violations.

Source: Iago rulebook, "How to Play" ("The Move", the three end-of-move conditions, "Stealing",
"Cross-Link Letters", "Substituted Letters", "Challenge"). docs/iago.md explains each reading of
the rulebook made here; in brief:

- Tiles never move. A cell that was empty and holds a tile was *placed*; a cell whose letter
  changed had its letter *substituted* (the old letter goes to the substituted-letter pool); a
  cell with the same letter showing the other side was *turned*. A tile taken away is not a
  move (``illegal-change``).
- A word of the board after the move is *unchanged* when the same letters lie in the same cells
  before; otherwise its *predecessors* are the words of the board before lying in the same line
  within its span (tiles stay in their cells, so an old word and its successor line up cell by
  cell: no guessing of alignment). No predecessor: a *new* word. Predecessors: a *changed* word.
- A changed word holding a tile of the opponent's colour is a *steal* when every predecessor
  keeps within its substitution allowance (one letter for six letters or less, all but five
  beyond, counted on the predecessor, the word being stolen), the new word is not merely an
  inflection of it (either way), and the new word never had its form before in the game.
- Every tile of a new word and of a stolen word may be turned to the mover's colour (for a new
  word these are the cross-link letters). No other tile may change its side. A substitution is
  allowed only inside a word the move changes.
- A changed word's old tiles of the opponent's colour (less its cross-link letters, which turn
  with the crossing word) turn all (a steal, which must qualify as one) or none: some but not
  all is ``illegal-change`` ("you may change its colour by turning over all of its tiles").
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass, field

from companion.errors import CompanionError
from companion.games.iago.board import (
    ACROSS,
    COLOURS,
    Board,
    Word,
    cell_name,
    colour_of,
    format_board,
)

Cell = tuple[int, int]
IsInflection = Callable[[str, str], bool]

CODES = (
    "invalid-word",
    "disconnected",
    "off-centre",
    "no-lead",
    "too-many-substitutions",
    "reverted",
    "no-meaning-change",
    "illegal-change",
)
"""The violation codes of DESIGN.md, in the order a ruling lists them."""


class MoveInputError(CompanionError, ValueError):
    """Boards or a mover that cannot be ruled on (different sizes, unknown colour)."""


def require_colour(mover: str) -> None:
    """Check that ``mover`` is a player's colour.

    Raises:
        MoveInputError: ``mover`` is not ``blue`` or ``red``.
    """
    if mover not in COLOURS:
        raise MoveInputError(f"mover {mover!r} is not a colour; accepted: 'blue', 'red'")


def require_one_size(sizes: set) -> None:
    """Check that the boards of a move have one size (``sizes``: each board's size, in any
    hashable form: a side in cells, or rows and row lengths).

    Raises:
        MoveInputError: ``sizes`` holds more than one size.
    """
    if len(sizes) != 1:
        raise MoveInputError(
            f"the boards have different sizes {sorted(sizes)}; every board of a game has one size"
        )


def substitution_allowance(length: int) -> int:
    """How many letters may be substituted to steal a word of ``length`` letters.

    Rulebook, "Stealing": "if the word has six letters or less, you may substitute one letter
    (only one); if the word has more than six letters, you may substitute all but five". The
    length is that of the word being stolen. 1 for 2-6 letters, 2 for 7, 3 for 8, 4 for 9...
    """
    return 1 if length <= 6 else length - 5


def other(colour: str) -> str:
    """The opponent's colour."""
    return "red" if colour == "blue" else "blue"


# -- the result --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    """One broken rule: ``code`` (one of :data:`CODES`), a sentence, and what it concerns."""

    code: str
    message: str
    word: str | None = None
    cells: tuple[Cell, ...] = ()
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """``{"code", "message", "word"?, "cells": [[row, column], ...] (1-based), ...}``."""
        out: dict = {"code": self.code, "message": self.message}
        if self.word is not None:
            out["word"] = self.word
        if self.cells:
            out["cells"] = [[r + 1, c + 1] for r, c in self.cells]
        out.update(self.details)
        return out


@dataclass(frozen=True)
class WordFormed:
    """A word the move made: ``kind`` is ``new`` (no predecessor), ``steal``, ``inflection``
    (an opponent's word changed only in grammatical form: not a steal), ``own`` (the mover's own
    word changed) or ``changed`` (an opponent's word changed but not stolen: too many
    substitutions, or changed back to an earlier form).
    ``valid`` is the lexicon's answer (None when no lexicon was given)."""

    word: Word
    kind: str
    valid: bool | None
    predecessors: tuple[Word, ...] = ()

    def to_json(self) -> dict:
        """The word (1-based first cell), its ``kind``, ``valid`` and the ``from`` words."""
        out = self.word.to_json()
        out["kind"] = self.kind
        out["valid"] = self.valid
        if self.predecessors:
            out["from"] = [p.text for p in self.predecessors]
        return out


@dataclass(frozen=True)
class Steal:
    """An opponent's word ``stolen`` changed into ``word`` (rulebook, "Stealing").

    ``substituted`` are the cells of the old word whose letter changed, ``added`` the cells of
    the new word outside the old one; ``allowance`` is the number of substitutions the old word
    allows; ``turned`` is True when every tile of the new word now shows the mover's colour.
    """

    stolen: Word
    word: Word
    substituted: tuple[Cell, ...]
    added: tuple[Cell, ...]
    allowance: int
    turned: bool

    def to_json(self) -> dict:
        """``from``, ``to``, where the new word lies (1-based), counts and ``turned``."""
        return {
            "from": self.stolen.text,
            "to": self.word.text,
            "direction": self.word.direction,
            "row": self.word.row + 1,
            "column": self.word.col + 1,
            "substitutions": len(self.substituted),
            "allowance": self.allowance,
            "added": len(self.added),
            "turned": self.turned,
        }


@dataclass(frozen=True)
class Ruling:
    """The ruling on one move (rulebook, "How to Play": the move and its three conditions).

    ``legal`` is True when no violation was found. ``conditions`` are the three end-of-move
    conditions: ``valid_words`` (condition 1; None without a lexicon), ``lead`` (condition 2),
    ``time`` (condition 3: always None here, the differential timer decides it). ``restore``
    is the board a sustained challenge returns to (the board before the move).
    """

    mover: str
    before: Board
    after: Board
    violations: tuple[Violation, ...]
    counts: dict[str, int]
    words: tuple[WordFormed, ...]
    steals: tuple[Steal, ...]
    placed: tuple[Cell, ...]
    substitutions: tuple[tuple[Cell, str, str], ...]
    turned: tuple[tuple[Cell, str], ...]
    notes: tuple[str, ...]
    valid_words: bool | None

    @property
    def legal(self) -> bool:
        """True when the move breaks no rule."""
        return not self.violations

    @property
    def lead(self) -> bool:
        """Condition (2): the mover shows at least one more tile than the opponent."""
        return self.counts[self.mover] >= self.counts[other(self.mover)] + 1

    @property
    def restore(self) -> Board:
        """The board a sustained challenge returns to (rulebook, "Challenge")."""
        return self.before

    @property
    def substituted_letters(self) -> list[str]:
        """The letters taken off the board, for the pool beside it ("Substituted Letters")."""
        return [old for _, old, _ in self.substitutions]

    @property
    def challengeable(self) -> list[str]:
        """The words the move formed, which the opponent may challenge (rulebook, "Challenge")."""
        return [w.word.text for w in self.words]

    def to_json(self) -> dict:
        """The ruling as ``companion iago check`` prints it (see docs/iago.md)."""
        return {
            "legal": self.legal,
            "mover": self.mover,
            "violations": [v.to_json() for v in self.violations],
            "counts": dict(self.counts),
            "lead": self.lead,
            "words": [w.to_json() for w in self.words],
            "words_formed": [w.word.text for w in self.words],
            "steals": [s.to_json() for s in self.steals],
            "placed": [[r + 1, c + 1] for r, c in self.placed],
            "substitutions": [
                {"row": r + 1, "column": c + 1, "removed": old, "placed": new}
                for (r, c), old, new in self.substitutions
            ],
            "substituted_letters": self.substituted_letters,
            "turned": [
                {"row": r + 1, "column": c + 1, "to": colour} for (r, c), colour in self.turned
            ],
            "conditions": {
                "valid_words": self.valid_words,
                "lead": self.lead,
                "time": None,
                "time_note": "condition (3), the time limit, is decided by the differential timer",
            },
            "notes": list(self.notes),
            "restore": format_board(self.restore),
            "board": format_board(self.after),
        }


# -- the history of a word ---------------------------------------------------------------------


class GameHistory:
    """The boards of a game so far and, for each word of the latest, the forms it had before
    (rulebook, "Stealing": "Once a word has been stolen it may not be changed back to the form
    it had previously").

    A word keeps its history while its letters stay in the same cells; a changed word inherits
    the forms of its predecessors and their own texts. A board with the same letters in the same
    cells as an earlier board (the board restored after a sustained challenge) takes up that
    board's history, so a withdrawn move leaves no trace (a legal move never comes back to an
    earlier state: that would change words back).

    Built once and pushed one board a move, it costs one step a move; :func:`rule_move` accepts
    it as ``history`` (then its latest board is the board before the move).
    """

    def __init__(self, boards: Sequence[Board] = ()) -> None:
        self._snapshots: list[tuple[Board, str, dict[tuple, frozenset[str]]]] = []
        for board in boards:
            self.push(board)

    def push(self, board: Board) -> None:
        """Add the board after the next move (or the restored board after a challenge)."""
        letters = board.letters()
        if not self._snapshots:
            forms = {w.key: frozenset() for w in board._words}
            self._snapshots.append((board, letters, forms))
            return
        prev, prev_letters, forms = self._snapshots[-1]
        if letters != prev_letters:
            for old, old_letters, old_forms in reversed(self._snapshots):
                if old_letters == letters:
                    prev, forms = old, old_forms  # back to an earlier state: moves withdrawn
                    break
        self._snapshots.append((board, letters, _carry_forms(prev, board, forms)))

    def pop(self) -> Board:
        """Take back the latest board (a move withdrawn) and return it.

        Raises:
            IndexError: the history is empty.
        """
        return self._snapshots.pop()[0]

    def __len__(self) -> int:
        return len(self._snapshots)

    @property
    def boards(self) -> list[Board]:
        """The boards, oldest first."""
        return [s[0] for s in self._snapshots]

    @property
    def latest(self) -> Board | None:
        """The latest board, or None when empty."""
        return self._snapshots[-1][0] if self._snapshots else None

    @property
    def forms(self) -> dict[tuple, frozenset[str]]:
        """For each word of the latest board (key :attr:`Word.key`), its earlier forms."""
        return dict(self._snapshots[-1][2]) if self._snapshots else {}


def word_forms(boards: Sequence[Board]) -> dict[tuple, frozenset[str]]:
    """For each word of the last of ``boards`` (the game's boards in order), the forms
    (upper-case texts) it had before; see :class:`GameHistory`. Keys are :attr:`Word.key`."""
    return GameHistory(boards).forms


def _carry_forms(before: Board, after: Board, forms: dict) -> dict[tuple, frozenset[str]]:
    old_words = before._words
    by_key = {w.key: w for w in old_words}
    index = None
    out: dict[tuple, frozenset[str]] = {}
    empty: frozenset[str] = frozenset()
    for w in after._words:
        same = by_key.get(w.key)
        if same is not None and same.text == w.text:
            out[w.key] = forms.get(w.key, empty)
            continue
        if index is None:
            index = before.word_at
        acc: set[str] = set()
        for p in _predecessors(w, index):
            acc |= forms.get(p.key, frozenset())
            acc.add(p.text)
        out[w.key] = frozenset(acc)
    return out


def _predecessors(w: Word, index: dict[tuple[str, Cell], Word]) -> list[Word]:
    """The old words in ``w``'s line lying wholly within its span, first first."""
    out: list[Word] = []
    d = w.direction
    first, last = w.cells[0], w.cells[-1]
    for cell in w.cells:
        p = index.get((d, cell))
        # tiles never move: an old word lies wholly in the span unless a tile was taken off
        new = p is not None and (not out or out[-1] is not p)
        if new and first <= p.cells[0] and p.cells[-1] <= last:
            out.append(p)
    return out


# -- the ruling --------------------------------------------------------------------------------


def _never_inflection(base: str, other: str) -> bool:
    return False


def rule_move(
    before: Board,
    after: Board,
    mover: str,
    *,
    lexicon: Container[str] | None = None,
    is_inflection: IsInflection | None = None,
    history: Sequence[Board] | GameHistory = (),
) -> Ruling:
    """Rule on the move that turned ``before`` into ``after``, made by ``mover``.

    Args:
        before: the board when the move began.
        after: the board when the mover says the move is complete.
        mover: ``"blue"`` or ``"red"``.
        lexicon: the word list; ``word in lexicon`` is asked with the upper-case word (and the
            lower-case one if that fails). None: words are not judged (``valid`` is None).
        is_inflection: ``is_inflection(base, other)`` is True when ``other`` is only an
            inflection of ``base`` (companion.lexicon.morphology.is_inflection); asked both ways,
            and not for a new word the lexicon rejects.
            None: no change counts as an inflection (every qualifying change is a steal).
        history: the game's boards before ``before``, oldest first, or a :class:`GameHistory`
            whose latest board is ``before`` (cheaper: one step a move); they decide which forms
            a word had before (the rule against changing a stolen word back).

    Returns:
        The :class:`Ruling`, listing every violation found.

    Raises:
        MoveInputError: ``mover`` is not a colour, or the boards differ in size.
    """
    require_colour(mover)
    if isinstance(history, GameHistory):
        if history.latest is not None and history.latest.letters() != before.letters():
            history = GameHistory([*history.boards, before])
        past = history.boards
    else:
        past = [*history, before]
    boards = [*past, after]
    require_one_size({b.size for b in boards})
    inflected = is_inflection or _never_inflection
    opp = other(mover)
    n = before.size
    violations: list[Violation] = []
    notes: list[str] = []

    # 1. cell by cell
    placed: list[Cell] = []
    substitutions: list[tuple[Cell, str, str]] = []
    turned: list[tuple[Cell, str]] = []
    for i, (b, a) in enumerate(zip(before.grid, after.grid, strict=True)):
        if b == a:
            continue
        cell = divmod(i, n)
        if b == ".":
            placed.append(cell)
            if colour_of(a) != mover:
                violations.append(
                    Violation(
                        "illegal-change",
                        f"the tile {a.upper()} placed at {cell_name(*cell)} shows {opp}; "
                        f"{mover} enters words with the {mover} side up",
                        cells=(cell,),
                    )
                )
        elif a == ".":
            violations.append(
                Violation(
                    "illegal-change",
                    f"the tile {b.upper()} at {cell_name(*cell)} was taken off the board; "
                    "tiles stay on the board (only substituted letters leave it)",
                    cells=(cell,),
                )
            )
        elif b.upper() != a.upper():
            substitutions.append((cell, b.upper(), a.upper()))
            if colour_of(a) != mover:
                violations.append(
                    Violation(
                        "illegal-change",
                        f"the letter {a.upper()} substituted at {cell_name(*cell)} shows {opp}; "
                        f"{mover} enters letters with the {mover} side up",
                        cells=(cell,),
                    )
                )
        else:
            turned.append((cell, colour_of(a)))

    # 2. words: unchanged, new, changed
    old_words = before.words()
    old_by_key = {w.key: w for w in old_words}
    old_index = before.word_at
    if isinstance(history, GameHistory) and len(history):
        forms = history.forms
    else:
        forms = word_forms(past) if len(past) > 1 else {}
    substituted_cells = {cell for cell, _, _ in substitutions}
    may_turn: set[Cell] = set()  # cells of new words, stolen words and the mover's own words
    turn_dirs: dict[Cell, set[str]] = {}  # cell -> directions of the words letting it turn
    changed_cells: set[Cell] = set()  # cells of old words that the move changed
    formed: list[WordFormed] = []
    steals: list[Steal] = []
    failed: list[tuple[Word, list[Word], list[str]]] = []  # opponents' words changed, not stolen
    for w in after.words():
        same = old_by_key.get(w.key)
        if same is not None and same.text == w.text:
            continue
        preds = _predecessors(w, old_index)
        valid = None if lexicon is None else _in_lexicon(w.text, lexicon)
        if not preds:
            formed.append(WordFormed(w, "new", valid))
            may_turn.update(w.cells)
            continue
        for p in preds:
            changed_cells.update(p.cells)
        reasons: list[str] = []
        for p in preds:
            subs = [c for c in p.cells if c in substituted_cells]
            allow = substitution_allowance(len(p.text))
            if len(subs) > allow:
                reasons.append("too-many-substitutions")
                violations.append(
                    Violation(
                        "too-many-substitutions",
                        f"{p.text} -> {w.text} substitutes {len(subs)} letters of a "
                        f"{len(p.text)}-letter word; {allow} allowed",
                        word=w.text,
                        cells=tuple(subs),
                        details={"from": p.text, "substitutions": len(subs), "allowance": allow},
                    )
                )
        earlier: set[str] = set()
        for p in preds:
            earlier |= forms.get(p.key, frozenset())
        if w.text in earlier:
            reasons.append("reverted")
            violations.append(
                Violation(
                    "reverted",
                    f"{w.text} is a form this word had before in the game; once stolen, a word "
                    "may not be changed back to a form it had",
                    word=w.text,
                    cells=w.cells,
                    details={"from": [p.text for p in preds], "earlier_forms": sorted(earlier)},
                )
            )
        # a string not in the lexicon has no meaning to compare (and is ruled invalid anyway)
        if valid is not False and any(
            inflected(p.text, w.text) or inflected(w.text, p.text) for p in preds
        ):
            reasons.append("no-meaning-change")
        if not any(before.colour(*c) == opp for p in preds for c in p.cells):
            # the mover's own word changed: it stays the mover's, and its cross-link letters
            # (tiles of crossing words met by the added part) turn as for a new word
            formed.append(WordFormed(w, "own", valid, tuple(preds)))
            may_turn.update(w.cells)
            continue
        if not reasons:
            formed.append(WordFormed(w, "steal", valid, tuple(preds)))
            may_turn.update(w.cells)
            turned_all = all(after.colour(*c) == mover for c in w.cells)
            for p in preds:
                if not any(before.colour(*c) == opp for c in p.cells):
                    continue  # the mover's own word joined to the stolen one
                subs = tuple(c for c in p.cells if c in substituted_cells)
                added = tuple(c for c in w.cells if c not in set(p.cells))
                allow = substitution_allowance(len(p.text))
                steals.append(Steal(p, w, subs, added, allow, turned_all))
            continue
        kind = "inflection" if reasons == ["no-meaning-change"] else "changed"
        formed.append(WordFormed(w, kind, valid, tuple(preds)))
        failed.append((w, preds, reasons))

    for f in formed:
        if f.kind in ("new", "own", "steal"):
            for c in f.word.cells:
                turn_dirs.setdefault(c, set()).add(f.word.direction)

    # 3a. a changed word's old tiles turn all (a steal) or none: "turning over ALL of its tiles"
    partial = _partial_turns(formed, failed, before, after, mover, substituted_cells, turn_dirs)
    partial_cells: set[Cell] = set()
    for v in partial:
        violations.append(v)
        partial_cells.update(v.cells)

    # 3. a letter is substituted only within a word the move changes; a tile turns only in a
    # new, own or stolen word (an opponent's word changed without a steal keeps its colours)
    for cell in sorted(substituted_cells - changed_cells):
        violations.append(
            Violation(
                "illegal-change",
                f"the letter at {cell_name(*cell)} was substituted outside any word",
                cells=(cell,),
            )
        )
    blamed: dict[tuple, set[Cell]] = {}  # failed word key -> tiles turned without a steal
    for cell, colour in turned:
        if colour == opp:
            violations.append(
                Violation(
                    "illegal-change",
                    f"the tile at {cell_name(*cell)} was turned from {mover} to {opp}; "
                    "a move turns tiles only to the mover's colour",
                    cells=(cell,),
                )
            )
        elif cell in partial_cells:
            continue  # ruled with its word (3a)
        elif cell not in may_turn and not _blame(cell, failed, blamed):
            violations.append(
                Violation(
                    "illegal-change",
                    f"the tile at {cell_name(*cell)} was turned to {mover} but lies in no new "
                    "or stolen word; only the letters of a stolen word and cross-link letters "
                    "may be turned",
                    cells=(cell,),
                )
            )
    for w, preds, reasons in failed:
        cells = blamed.get(w.key)
        if cells and "no-meaning-change" in reasons:
            src = "/".join(p.text for p in preds)
            violations.append(
                Violation(
                    "no-meaning-change",
                    f"{src} -> {w.text} is only another grammatical form of the word, not a "
                    "genuine change of meaning: not a steal, so only the added or substituted "
                    "letters may show the mover's colour",
                    word=w.text,
                    cells=tuple(sorted(cells)),
                    details={"from": src},
                )
            )

    # 4. tiles that could have been turned but were not
    unturned = sorted(c for c in may_turn - partial_cells if after.colour(*c) == opp)
    if unturned:
        notes.append(
            f"{len(unturned)} tile(s) of new or stolen words still show {opp} ("
            + ", ".join(cell_name(*c) for c in unturned)
            + f"): cross-link letters and stolen words turn to {mover}"
        )

    # 5. condition (1): valid words
    valid_words: bool | None = None
    if lexicon is not None:
        bad = [f for f in formed if not f.valid]
        valid_words = not bad
        for f in bad:
            violations.append(
                Violation(
                    "invalid-word",
                    f"{f.word.text} is not in the lexicon",
                    word=f.word.text,
                    cells=f.word.cells,
                )
            )

    # 6. a move enters words: a lone letter is none
    tiles = list(after.tiles())
    if len(tiles) == 1 and placed:
        (cell,) = tiles
        violations.append(
            Violation(
                "invalid-word",
                f"the letter {after.at(*cell).upper()} alone is not a word; a move enters one "
                "or more words of two letters or more",
                word=after.at(*cell).upper(),
                cells=(cell,),
            )
        )
        valid_words = False if lexicon is not None else valid_words

    # 7. the first word covers the centre; every tile connects
    if not after.is_empty():
        centre = after.centre
        if after.at(*centre) is None:
            violations.append(
                Violation(
                    "off-centre",
                    f"the centre cell ({cell_name(*centre)}) is empty; the first word covers it "
                    "and every later word connects to it",
                    cells=(centre,),
                )
            )
        groups = after.groups()
        if len(groups) > 1:
            main = next((g for g in groups if centre in g), groups[0])
            stray = tuple(sorted(c for g in groups if g is not main for c in g))
            violations.append(
                Violation(
                    "disconnected",
                    f"{len(stray)} tile(s) are not connected to the rest of the board "
                    "vertically or horizontally",
                    cells=stray,
                )
            )

    # 8. condition (2): the lead
    counts = after.counts()
    if counts[mover] < counts[opp] + 1:
        violations.append(
            Violation(
                "no-lead",
                f"{mover} shows {counts[mover]} tile{'' if counts[mover] == 1 else 's'} and "
                f"{opp} {counts[opp]}; the mover needs "
                "at least one more than the opponent",
                details={"counts": dict(counts)},
            )
        )
    if before == after:
        notes.append("the board did not change")

    order = {code: i for i, code in enumerate(CODES)}
    violations.sort(key=lambda v: order[v.code])
    return Ruling(
        mover=mover,
        before=before,
        after=after,
        violations=tuple(violations),
        counts=counts,
        words=tuple(formed),
        steals=tuple(steals),
        placed=tuple(placed),
        substitutions=tuple(substitutions),
        turned=tuple(turned),
        notes=tuple(notes),
        valid_words=valid_words,
    )


def _partial_turns(
    formed: list[WordFormed],
    failed: list[tuple[Word, list[Word], list[str]]],
    before: Board,
    after: Board,
    mover: str,
    substituted: set[Cell],
    turn_dirs: dict[Cell, set[str]],
) -> list[Violation]:
    """``illegal-change`` for each changed opponent's word whose old tiles were turned in part.

    Rulebook, "Stealing": "you may change its colour by turning over all of its tiles"; issue 4:
    "no other tile may change colour". The old tiles of a changed word are the tiles of its
    predecessors that showed the opponent's colour before the move, less substituted cells
    (new letters) and less the cells where a new, own or stolen word of the other direction
    crosses (cross-link letters, which turn because that word crosses there). They are all
    turned (a steal, which must qualify as one) or none; some but not all is illegal.

    A stolen word's cross-link letters with any word of the other direction (an unchanged word
    of the opponent's crossing it included) are not among its old tiles either: rulebook,
    "Cross-Link Letters": "When a new word, or a stolen word, crosses a word of the other colour,
    the link-letter is turned to the new colour". The link letter belongs to both words; turning
    it is allowed, and leaving it unturned only costs the mover a tile (the ruling notes it), as
    docs/iago.md says: red's CAT crossed by red's TAP at the T, stolen by blue as CUT with C and U
    blue and the T left red, is legal.
    """
    opp = other(mover)
    reasons_of = {w.key: reasons for w, _, reasons in failed}
    out: list[Violation] = []
    for f in formed:
        if f.kind in ("new", "own"):
            continue
        w, across = f.word, f.word.direction == ACROSS
        cross = "down" if across else "across"
        olds: list[Cell] = []
        for p in f.predecessors:
            for c in p.cells:
                if c in substituted or c in olds or before.colour(*c) != opp:
                    continue
                if cross in turn_dirs.get(c, ()):
                    continue  # a cross-link letter of a crossing word
                if f.kind == "steal" and (cross, c) in after.word_at:
                    continue  # the stolen word's link letter with a word of the other direction
                olds.append(c)
        done = [c for c in olds if after.colour(*c) == mover]
        left = [c for c in olds if after.colour(*c) != mover]
        if not done or not left:
            continue
        src = "/".join(p.text for p in f.predecessors)
        if f.kind == "steal":
            fix = f"turn the other {len(left)} too (the steal turns the whole word) or none"
        else:
            why = ", ".join(reasons_of.get(w.key, ()))
            fix = f"{src} -> {w.text} is no steal ({why}), so none of them may turn"
        out.append(
            Violation(
                "illegal-change",
                f"{src} -> {w.text}: {len(done)} of the {len(olds)} tiles of {src} that showed "
                f"{opp} were turned to {mover} ({'; '.join(cell_name(*c) for c in done)}), "
                f"{len(left)} not ({'; '.join(cell_name(*c) for c in left)}); a word's tiles "
                f"turn all together (a steal) or not at all: {fix}",
                word=w.text,
                cells=tuple(sorted(olds)),
                details={
                    "from": src,
                    "turned_cells": [[r + 1, c + 1] for r, c in done],
                    "unturned_cells": [[r + 1, c + 1] for r, c in left],
                },
            )
        )
    return out


def _blame(cell: Cell, failed: list, blamed: dict) -> bool:
    """Attribute a disallowed change at ``cell`` to the failed steals whose old words hold it."""
    hit = False
    for w, preds, _ in failed:
        if any(cell in p.cells for p in preds) or cell in w.cells:
            blamed.setdefault(w.key, set()).add(cell)
            hit = True
    return hit


def _in_lexicon(word: str, lexicon: Container[str]) -> bool:
    return word in lexicon or word.lower() in lexicon


__all__ = [
    "ACROSS",
    "CODES",
    "MoveInputError",
    "Ruling",
    "Steal",
    "Violation",
    "GameHistory",
    "WordFormed",
    "rule_move",
    "substitution_allowance",
    "word_forms",
]
