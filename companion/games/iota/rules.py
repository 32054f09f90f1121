"""Iota's rules: lines, wild cards, the legality of a play and its score.

Source: Iota rules, shared/rules/iota-rules-es.txt (the original; iota-rules-en.md summarises it).
The passages each function implements are quoted in its docstring. Decisions where the rules are
silent are marked "Decision" and listed in docs/iota.md.

A play is judged from two grids in one frame: ``before`` (the table at the start of the turn) and
``after`` (the table once the cards are laid). Everything here is pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from companion.errors import CompanionError
from companion.games.iota.cards import (
    ALL_CARDS,
    COLOURS,
    HAND_SIZE,
    NUMBERS,
    PROPERTIES,
    SHAPES,
    WILD_CARDS,
    Card,
)
from companion.games.iota.grid import Cell, Grid

MAX_LINE = 4
"""The longest line: "La longitud máxima permitida de una línea es de 4 cartas"."""
LOT = 4
"""A line of 4 cards is a lot: "A una línea de 4 cartas se le llama 'lot'"."""

# Violation codes (documented in docs/iota.md); each Violation carries one of these.
NO_STARTING_CARD = "no-starting-card"
NO_CARDS_PLAYED = "no-cards-played"
CARD_REMOVED = "card-removed"
CARD_CHANGED = "card-changed"
TOO_MANY_CARDS = "too-many-cards"
NOT_IN_ONE_LINE = "not-in-one-line"
GAP = "gap"
NOT_CONNECTED = "not-connected"
DUPLICATE_CARD = "duplicate-card"
TOO_MANY_WILD_CARDS = "too-many-wild-cards"
LINE_TOO_LONG = "line-too-long"
MIXED = {p: f"mixed-{p}" for p in PROPERTIES}  # mixed-colour, mixed-shape, mixed-number
WILD_CARD_IMPOSSIBLE = "wild-card-impossible"

VIOLATION_CODES = (
    NO_STARTING_CARD,
    NO_CARDS_PLAYED,
    CARD_REMOVED,
    CARD_CHANGED,
    TOO_MANY_CARDS,
    NOT_IN_ONE_LINE,
    GAP,
    NOT_CONNECTED,
    DUPLICATE_CARD,
    TOO_MANY_WILD_CARDS,
    LINE_TOO_LONG,
    *MIXED.values(),
    WILD_CARD_IMPOSSIBLE,
)
"""Every code a :class:`Violation` may carry."""


class IotaPositionError(CompanionError, ValueError):
    """A grid that no game can reach (the table before a play breaks the rules itself)."""


def name_cell(cell: Cell) -> str:
    """The default way to name a cell in messages: rows and columns counted from 0 (the first
    row and column of the grid as written; docs/iota.md, "Cells")."""
    return f"row {cell[0]}, column {cell[1]}"


CellNamer = Callable[[Cell], str]


@dataclass(frozen=True)
class Violation:
    """One broken rule: ``code`` (one of :data:`VIOLATION_CODES`), a sentence for people, and the
    cells concerned."""

    code: str
    message: str
    cells: tuple[Cell, ...] = ()


@dataclass(frozen=True)
class Line:
    """A line: 2 to 4 cards without a gap along a row or a column ("Una línea consiste en 2, 3 o 4
    cartas a lo largo de una fila o columna"). A run longer than 4 is kept as a Line too, so that it
    can be reported (``line-too-long``).

    ``direction`` is ``"row"`` or ``"column"``; ``cells`` and ``cards`` run left to right or top to
    bottom.
    """

    direction: str
    cells: tuple[Cell, ...]
    cards: tuple[Card, ...]

    @property
    def total(self) -> int:
        """The sum of the numbers of its cards (wild cards 0): what the line scores."""
        return sum(card.value for card in self.cards)

    @property
    def is_lot(self) -> bool:
        """True for a line of exactly 4 cards (a lot)."""
        return len(self.cards) == LOT


def mixed_properties(cards: Iterable[Card]) -> list[str]:
    """The properties on which ``cards`` are neither all the same nor all different.

    Wild cards are skipped (they may stand for anything); so this is also the test of a line that
    is still being built: if the known cards are already mixed, no card can mend it.

    Source: "En cada línea, todas las cartas deben o bien ser todas iguales o todas diferentes en
    cada propiedad individual: color, forma y número."

    Returns:
        A list of names among ``"colour"``, ``"shape"``, ``"number"`` (empty: the cards agree).
    """
    real = [card for card in cards if not card.is_wild]
    mixed = []
    for i, prop in enumerate(PROPERTIES):
        values = [card.properties()[i] for card in real]
        distinct = len(set(values))
        if distinct not in (1, len(values)) and values:
            mixed.append(prop)
    return mixed


def is_line_valid(cards: Sequence[Card]) -> bool:
    """True when ``cards`` (no wild card) may lie in one line: 1 to 4 cards, each property all the
    same or all different, and no two cards identical (the deck holds each card once)."""
    return len(cards) <= MAX_LINE and not mixed_properties(cards) and len(set(cards)) == len(cards)


def lines_through(grid: Grid, cells: Iterable[Cell]) -> list[Line]:
    """Every line (run of 2 or more cards, longer runs included) through any of ``cells``, each
    once, rows first then columns, in the order met."""
    seen: set[tuple[Cell, ...]] = set()
    lines = []
    for direction in ("row", "column"):
        for cell in cells:
            run = tuple(grid.run(cell, direction))
            if len(run) >= 2 and run not in seen:
                seen.add(run)
                lines.append(Line(direction, run, tuple(grid.cards[c] for c in run)))
    return lines


def all_lines(grid: Grid) -> list[Line]:
    """Every line (run of 2 or more) on the grid."""
    return lines_through(grid, sorted(grid.cards))


@dataclass(frozen=True)
class WildCardReading:
    """What a wild card on the table can stand for: ``stands_for`` lists every card it may be,
    given its lines and the cards still unplayed (not on the table); one card when the lines
    decide it, none when nothing fits."""

    cell: Cell
    stands_for: tuple[Card, ...]


def read_wild_cards(
    grid: Grid, lines: Sequence[Line] | None = None, pool: Iterable[Card] | None = None
) -> list[WildCardReading]:
    """Decide what each wild card on ``grid`` stands for.

    Source: "Las cartas comodín sustituyen a cualquier otra carta ... El comodín debe representar a
    la misma carta en caso de formar parte de dos líneas." Decision (the deck holds each card
    once): a wild card stands for a card still unplayed, i.e. one not on the table, and two wild
    cards never stand for the same card. Every line through a wild card must then hold (each
    property all same or all different, at most 4 cards) with the wild cards read jointly.

    Args:
        grid: the table.
        lines: the lines to satisfy (default: every line through a wild card). Lines longer than 4
            are ignored here (they are reported on their own).
        pool: the cards a wild card may stand for (default: the 64 cards minus those on the
            table).

    Returns:
        One :class:`WildCardReading` per wild card on ``grid``, in cell order. When more than
        :data:`~companion.games.iota.cards.WILD_CARDS` wild cards lie on the table, the joint search
        is skipped and each is read alone.
    """
    wilds = sorted(cell for cell, card in grid.cards.items() if card.is_wild)
    if not wilds:
        return []
    if lines is None:
        lines = lines_through(grid, wilds)
    lines = [line for line in lines if len(line.cells) <= MAX_LINE]
    on_table = {card for card in grid.cards.values() if not card.is_wild}
    unplayed = [card for card in ALL_CARDS if card not in on_table] if pool is None else list(pool)
    by_wild = {w: [line for line in lines if w in line.cells] for w in wilds}

    def allowed(line: Line, assign: dict[Cell, Card]) -> list[set]:
        """The values each property of one more card may take in ``line`` (known cards: the
        line's real cards and ``assign``; any other wild card left open)."""
        known = [assign.get(cell, card) for cell, card in zip(line.cells, line.cards, strict=True)]
        known = [c for c in known if not c.is_wild]
        sets = []
        for i, values in enumerate(_PROPERTY_VALUES):
            vals = [c.properties()[i] for c in known]
            n = len(vals)
            sets.append({v for v in values if len(set(vals) | {v}) in (1, n + 1)})
        return sets

    def candidates(pool: Iterable[Card], lines: Iterable[Line], assign: dict[Cell, Card]):
        colours, shapes, numbers = (set(v) for v in _PROPERTY_VALUES)
        for line in lines:
            a = allowed(line, assign)
            colours, shapes, numbers = colours & a[0], shapes & a[1], numbers & a[2]
        return [
            x for x in pool if x.colour in colours and x.shape in shapes and x.number in numbers
        ]

    # each wild alone (any other wild card left open): a sound filter
    alone = {w: candidates(unplayed, by_wild[w], {}) for w in wilds}
    if len(wilds) == 1:
        return [WildCardReading(wilds[0], tuple(alone[wilds[0]]))]
    if len(wilds) > WILD_CARDS:
        return [WildCardReading(w, tuple(alone[w])) for w in wilds]
    # two wild cards: they must differ, and lines holding both must hold with both read at once
    first, second = wilds
    shared = [ln for ln in by_wild[first] if second in ln.cells]
    firsts, seconds = [], set()
    for x in alone[first]:
        ys = [y for y in candidates(alone[second], shared, {first: x}) if y != x]
        if ys:
            firsts.append(x)
            seconds.update(ys)
    return [
        WildCardReading(first, tuple(firsts)),
        WildCardReading(second, tuple(sorted(seconds))),
    ]


_PROPERTY_VALUES = (tuple(COLOURS), tuple(SHAPES), NUMBERS)


def _agrees(real: Sequence[Card]) -> bool:
    """True when real cards (no wild card) may share a line: each property all the same or all
    different, and no card twice."""
    n = len(real)
    if n < 2:
        return True
    if len(set(real)) != n:
        return False
    for values in (
        {c.colour for c in real},
        {c.shape for c in real},
        {c.number for c in real},
    ):
        if len(values) != 1 and len(values) != n:
            return False
    return True


def explain_wild_cards(grid: Grid, namer: CellNamer = name_cell) -> list[str]:
    """Sentences saying what each wild card on ``grid`` stands for, and which cards it could have
    been but for being on the table already (where the cards still unplayed decided it)."""
    wilds = [cell for cell, card in grid.cards.items() if card.is_wild]
    if not wilds:
        return []
    lines = lines_through(grid, wilds)
    in_lines = {card for line in lines for card in line.cards if not card.is_wild}
    loose = read_wild_cards(grid, lines, [c for c in ALL_CARDS if c not in in_lines])
    notes = []
    for reading, wide in zip(read_wild_cards(grid, lines), loose, strict=True):
        where = namer(reading.cell)
        cards = [str(c) for c in reading.stands_for]
        if not cards:
            text = f"the wild card at {where} can stand for no card still unplayed"
        elif len(cards) == 1:
            text = f"the wild card at {where} stands for {cards[0]}"
        elif len(cards) <= 8:
            text = f"the wild card at {where} may stand for any of {', '.join(cards)}"
        else:
            text = f"the wild card at {where} may stand for any of {len(cards)} cards"
        taken = sorted(set(wide.stands_for) - set(reading.stands_for))
        if taken:
            text += (
                f" ({', '.join(map(str, taken))} would fit too but "
                f"{'is' if len(taken) == 1 else 'are'} on the table already)"
            )
        notes.append(text)
    return notes


@dataclass(frozen=True)
class PlayResult:
    """The ruling on one play and its score.

    Attributes:
        legal: True when no rule is broken.
        played: the cards laid this turn, by cell.
        lines: the lines created or extended by the play (those through a played card), each
            scored once; a card in two of them counts twice.
        wild_cards: what each wild card on the table can stand for after the play.
        violations: the broken rules (empty when legal).
        last_card: the play was the last of the game (pile empty, the player's last card).
    """

    legal: bool
    played: dict[Cell, Card]
    lines: tuple[Line, ...]
    wild_cards: tuple[WildCardReading, ...] = ()
    violations: tuple[Violation, ...] = ()
    last_card: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def lots(self) -> int:
        """Lots (lines of 4) completed by the play."""
        return sum(1 for line in self.lines if line.is_lot) if self.legal else 0

    @property
    def all_four_cards(self) -> bool:
        """True when the 4 cards of a hand were played ("Duplica de nuevo si has jugado las 4
        cartas")."""
        return self.legal and len(self.played) == HAND_SIZE

    @property
    def lines_total(self) -> int:
        """The sum of the lines' totals, before doubling (also shown for an illegal play)."""
        return sum(line.total for line in self.lines)

    @property
    def doublings(self) -> list[str]:
        """Why the turn's score doubles, one entry per doubling: ``"lot"`` for each lot completed,
        ``"all-four-cards"``, ``"last-card"``."""
        if not self.legal:
            return []
        reasons = ["lot"] * self.lots
        if self.all_four_cards:
            reasons.append("all-four-cards")
        if self.last_card:
            reasons.append("last-card")
        return reasons

    @property
    def multiplier(self) -> int:
        """2 to the number of doublings."""
        return 2 ** len(self.doublings)

    @property
    def score(self) -> int:
        """The turn's score: the lines' totals doubled for each doubling; 0 for an illegal play.

        Source: "se suman los puntos de todas las cartas en cada línea, ya sea creada o extendida
        en el turno. Si una carta forma parte de 2 líneas, se cuenta 2 veces. Duplica tu
        puntuación completa de tu turno por cada 'lot' completado. Duplica de nuevo si has jugado
        las 4 cartas ... [la última carta] Duplica la puntuación para ese turno."
        """
        return self.lines_total * self.multiplier if self.legal else 0


def position_violations(grid: Grid, namer: CellNamer = name_cell) -> list[Violation]:
    """What makes ``grid`` a table no game can reach: a card twice, more than 2 wild cards, a run
    of more than 4 cards, a line with a mixed property, a wild card that nothing fits.
    (Connection is not checked: a diagram may show part of a table.)"""
    violations = _card_count_violations(grid, namer)
    lines = all_lines(grid)
    violations += _line_violations(lines, namer)
    if not violations:
        violations += _wild_violations(read_wild_cards(grid, lines), namer)
    return violations


def check_position(grid: Grid, name: str = "grid", namer: CellNamer = name_cell) -> None:
    """Raise :class:`IotaPositionError` (listing every problem) if ``grid`` breaks the rules."""
    problems = position_violations(grid, namer)
    if problems:
        raise IotaPositionError(
            f"{name} is not a table a game can reach: "
            + "; ".join(v.message for v in problems)
            + ". Accepted: a table where every line follows the rules"
        )


def check_play(
    before: Grid,
    after: Grid,
    last_card: bool = False,
    namer: CellNamer = name_cell,
    check_before: bool = True,
) -> PlayResult:
    """Rule on a play and score it.

    Source (placement): "Añade 1, 2, 3 o 4 cartas en una única línea, conectando a cualquiera
    carta(s) ya en juego"; "Todas las cartas jugadas deben de estar unidas en una única línea y al
    menos una debe de estar unida al resto de la red"; turn 2 of the example: "Las cartas deben
    jugarse en una única línea, no necesitan tocarse" (cards already down may lie between them, but
    the line they lie in has no gap: "Si hay algún hueco, no es una línea"); "La longitud máxima
    permitida de una línea es de 4 cartas"; each property all the same or all different.

    Decision: the first play of a game connects to the card turned up to start it ("Coge la primera
    carta y dale la vuelta ... Será la carta a partir de la cual empiece el juego"), so ``before``
    must hold at least one card; an empty ``before`` gives ``no-starting-card``.

    Args:
        before: the table at the start of the turn.
        after: the table with the play laid, in the same frame as ``before``.
        last_card: the pile is empty and the player lays his last card: the turn doubles.
        namer: how cells are named in messages (default: row and column from 0).
        check_before: check that ``before`` follows the rules (skip only when already checked).

    Returns:
        A :class:`PlayResult` (``legal`` False with every violation found, when illegal).

    Raises:
        IotaPositionError: ``before`` itself breaks the rules (not a table a game can reach).
    """
    if check_before:
        check_position(before, "BEFORE", namer)
    violations: list[Violation] = []
    if not before.cards:
        return _illegal(
            {},
            [
                Violation(
                    NO_STARTING_CARD,
                    "BEFORE holds no card: a game starts from one card turned face up from the "
                    "pile, and every play connects to the cards on the table",
                )
            ],
        )
    for cell, card in before.cards.items():
        now = after.cards.get(cell)
        if now is None:
            violations.append(
                Violation(CARD_REMOVED, f"{card} at {namer(cell)} was taken off the table", (cell,))
            )
        elif now != card:
            violations.append(
                Violation(CARD_CHANGED, f"{card} at {namer(cell)} was replaced by {now}", (cell,))
            )
    played = {cell: card for cell, card in after.cards.items() if cell not in before.cards}
    if not played:
        violations.append(Violation(NO_CARDS_PLAYED, "no card was laid (a pass is not a play)"))
        return _illegal(played, violations)
    cells = sorted(played)
    if len(played) > HAND_SIZE:
        violations.append(
            Violation(
                TOO_MANY_CARDS,
                f"{len(played)} cards were laid; a play is 1, 2, 3 or 4 cards from the hand",
                tuple(cells),
            )
        )
    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    if len(rows) > 1 and len(cols) > 1:
        violations.append(
            Violation(
                NOT_IN_ONE_LINE,
                "the cards laid are not all in one row or one column: "
                + ", ".join(f"{played[c]} at {namer(c)}" for c in cells),
                tuple(cells),
            )
        )
    else:
        first, last = cells[0], cells[-1]
        dr, dc = (0, 1) if len(rows) == 1 else (1, 0)
        steps = max(last[0] - first[0], last[1] - first[1])
        holes = [
            (first[0] + k * dr, first[1] + k * dc)
            for k in range(steps + 1)
            if (first[0] + k * dr, first[1] + k * dc) not in after.cards
        ]
        if holes:
            violations.append(
                Violation(
                    GAP,
                    "the cards laid leave a gap in their line at "
                    + ", ".join(namer(h) for h in holes),
                    tuple(holes),
                )
            )
    if not any(n in before.cards for cell in cells for n in _around(cell)):
        violations.append(
            Violation(
                NOT_CONNECTED,
                "no card laid touches a card already on the table (by a side)",
                tuple(cells),
            )
        )
    count_violations = _card_count_violations(after, namer)
    violations += count_violations
    lines = lines_through(after, cells)
    line_violations = _line_violations(lines, namer)
    violations += line_violations
    readings: list[WildCardReading] = []
    if not count_violations:
        wild_cells = [cell for cell, card in after.cards.items() if card.is_wild]
        wild_lines = lines_through(after, wild_cells)
        readings = read_wild_cards(after, wild_lines)
        if not line_violations and not _line_violations(wild_lines, namer):
            violations += _wild_violations(readings, namer)
    if violations:
        return _illegal(played, violations, tuple(lines), tuple(readings))
    return PlayResult(True, played, tuple(lines), tuple(readings), (), last_card)


def play_cards(
    before: Grid,
    placements: dict[Cell, Card],
    last_card: bool = False,
    namer: CellNamer = name_cell,
    check_before: bool = True,
) -> PlayResult:
    """:func:`check_play` for ``placements`` laid on ``before`` (a placement on an occupied cell
    is reported as ``card-changed``)."""
    after_cards = dict(before.cards)
    after_cards.update(placements)
    after = Grid(after_cards)
    if any(cell in before.cards for cell in placements):
        taken = [cell for cell in placements if cell in before.cards]
        return _illegal(
            {c: placements[c] for c in placements if c not in before.cards},
            [
                Violation(
                    CARD_CHANGED,
                    "a card was laid on a cell already holding one: "
                    + ", ".join(f"{namer(c)} holds {before.cards[c]}" for c in taken),
                    tuple(taken),
                )
            ],
        )
    return check_play(before, after, last_card, namer, check_before)


def _illegal(played, violations, lines=(), readings=()) -> PlayResult:
    return PlayResult(False, dict(played), tuple(lines), tuple(readings), tuple(violations))


def _around(cell: Cell) -> tuple[Cell, ...]:
    r, c = cell
    return ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))


def _card_count_violations(grid: Grid, namer: CellNamer) -> list[Violation]:
    violations = []
    where: dict[Card, list[Cell]] = {}
    for cell, card in sorted(grid.cards.items()):
        where.setdefault(card, []).append(cell)
    for card, cells in where.items():
        if card.is_wild:
            if len(cells) > WILD_CARDS:
                violations.append(
                    Violation(
                        TOO_MANY_WILD_CARDS,
                        f"{len(cells)} wild cards on the table; the deck holds {WILD_CARDS}",
                        tuple(cells),
                    )
                )
        elif len(cells) > 1:
            violations.append(
                Violation(
                    DUPLICATE_CARD,
                    f"{card} lies at {' and '.join(namer(c) for c in cells)}; "
                    "the deck holds each card once",
                    tuple(cells),
                )
            )
    return violations


def _describe(line: Line, namer: CellNamer) -> str:
    cards = " ".join(str(c) for c in line.cards)
    return f"the {line.direction} {cards} from {namer(line.cells[0])}"


def _line_violations(lines: Iterable[Line], namer: CellNamer) -> list[Violation]:
    violations = []
    for line in lines:
        if len(line.cells) > MAX_LINE:
            violations.append(
                Violation(
                    LINE_TOO_LONG,
                    f"{_describe(line, namer)} has {len(line.cells)} cards; "
                    f"a line holds at most {MAX_LINE}",
                    line.cells,
                )
            )
            continue
        for prop in mixed_properties(line.cards):
            violations.append(
                Violation(
                    MIXED[prop],
                    f"in {_describe(line, namer)} the {prop}s are neither all the same nor all "
                    "different",
                    line.cells,
                )
            )
    return violations


def _wild_violations(readings: Iterable[WildCardReading], namer: CellNamer) -> list[Violation]:
    return [
        Violation(
            WILD_CARD_IMPOSSIBLE,
            f"the wild card at {namer(r.cell)} can stand for no card: no card still unplayed "
            "fits every line it lies in (the same card in both)",
            (r.cell,),
        )
        for r in readings
        if not r.stands_for
    ]
