"""Every legal play of a hand on a table, best score first (``companion iota hint``).

The search lays 1 to 4 cards of the hand in every window of a row or column that could become a
line (at most 4 cards, no gap, touching the table), and prunes a card as soon as the line across
it or the cards of the window so far break a rule. Each complete candidate is then judged by
:func:`companion.games.iota.rules.check_play`, so a hint is never a play the referee would refuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.games.iota.cards import WILD_CARDS, Card
from companion.games.iota.grid import DIRECTIONS, Cell, Grid
from companion.games.iota.rules import (
    MAX_LINE,
    PlayResult,
    check_position,
    lines_through,
    mixed_properties,
    read_wild_cards,
)


@dataclass(frozen=True)
class Hint:
    """A legal play: ``placements`` (cell, card) in line order, and its ruling and score."""

    placements: tuple[tuple[Cell, Card], ...]
    result: PlayResult

    @property
    def score(self) -> int:
        """The play's score (see :attr:`PlayResult.score`)."""
        return self.result.score


def legal_plays(grid: Grid, hand: Sequence[Card], last_card: bool = False) -> list[Hint]:
    """Every legal play of cards from ``hand`` on ``grid``, best score first.

    Args:
        grid: the table (it must hold the starting card; an empty table has no legal play).
        hand: 1 to 4 cards (wild cards allowed).
        last_card: score as the last turn of the game (doubled) when the play empties the hand.

    Returns:
        :class:`Hint` objects, sorted by score (high first), then more cards first, then by
        position. Two plays laying the same cards on the same cells count once.

    Raises:
        IotaPositionError: ``grid`` itself breaks the rules.
    """
    check_position(grid, "GRID")
    # a card already on the table cannot be in a hand (the deck holds each card once), nor more
    # wild cards than the box holds
    on_table = set(grid.cards.values())
    wilds_left = WILD_CARDS - sum(1 for card in grid.cards.values() if card.is_wild)
    real = [card for card in hand if not card.is_wild and card not in on_table]
    hand = real + [card for card in hand if card.is_wild][: max(0, wilds_left)]
    if not grid.cards or not hand:
        return []
    table_wilds = wilds_left < WILD_CARDS
    bounds = grid.bounds()
    assert bounds is not None
    seen: set[frozenset[tuple[Cell, Card]]] = set()
    hints: list[Hint] = []
    for direction, (dr, dc) in DIRECTIONS.items():
        across = (1, 0) if direction == "row" else (0, 1)
        if direction == "row":
            lanes = range(bounds.top - 1, bounds.bottom + 2)
            along = range(bounds.left - MAX_LINE, bounds.right + 2)
        else:
            lanes = range(bounds.left - 1, bounds.right + 2)
            along = range(bounds.top - MAX_LINE, bounds.bottom + 2)
        for lane in lanes:
            for start in along:
                for length in range(1, MAX_LINE + 1):
                    window = [_cell(direction, lane, start + k) for k in range(length)]
                    if not _is_window(grid, window, dr, dc, len(hand)):
                        continue
                    for placements in _fillings(grid, window, hand, across):
                        key = frozenset(placements)
                        if key in seen:
                            continue
                        seen.add(key)
                        last = last_card and len(placements) == len(hand)
                        result = _judge(grid, placements, table_wilds, last)
                        if result is not None:
                            hints.append(Hint(tuple(placements), result))
    hints.sort(key=lambda h: (-h.score, -len(h.placements), [c for c, _ in h.placements]))
    return hints


def _judge(
    grid: Grid, placements: list[tuple[Cell, Card]], table_wilds: bool, last: bool
) -> PlayResult | None:
    """The ruling on a candidate that passed the quick checks, or None when illegal.

    The window and the quick checks already ensure one line without a gap, touching the table,
    at most 4 cards a line, no mixed property among real cards and no card twice; what is left is
    the reading of wild cards, needed only when one lies on the table or in the play.
    """
    after = grid.with_cards(placements)
    lines = lines_through(after, [cell for cell, _ in placements])
    readings: list = []
    if table_wilds or any(card.is_wild for _, card in placements):
        wild_cells = [cell for cell, card in after.cards.items() if card.is_wild]
        readings = read_wild_cards(after, lines_through(after, wild_cells))
        if any(not r.stands_for for r in readings):
            return None
    return PlayResult(True, dict(placements), tuple(lines), tuple(readings), (), last)


def _cell(direction: str, lane: int, pos: int) -> Cell:
    return (lane, pos) if direction == "row" else (pos, lane)


def _is_window(grid: Grid, window: list[Cell], dr: int, dc: int, hand_size: int) -> bool:
    """A window is the whole line the play will lie in: its ends are not followed by a card, it
    has 1..hand_size empty cells, and one of them touches the table."""
    (r0, c0), (r1, c1) = window[0], window[-1]
    if (r0 - dr, c0 - dc) in grid.cards or (r1 + dr, c1 + dc) in grid.cards:
        return False
    empty = [cell for cell in window if cell not in grid.cards]
    if not 1 <= len(empty) <= hand_size:
        return False
    return any(grid.neighbours(cell) for cell in empty)


def _fillings(grid: Grid, window: list[Cell], hand: Sequence[Card], across: tuple[int, int]):
    """Yield the placements of distinct hand cards on the window's empty cells that pass the quick
    checks (line across each card; the window's cards so far)."""
    empty = [cell for cell in window if cell not in grid.cards]
    fixed = [grid.cards[cell] for cell in window if cell in grid.cards]
    across_cards = {cell: _across(grid, cell, across) for cell in empty}
    if any(len(cards) + 1 > MAX_LINE for cards in across_cards.values()):
        return
    placed: list[tuple[Cell, Card]] = []
    used: list[int] = []

    def fits(cell: Cell, card: Card) -> bool:
        line = [*across_cards[cell], card]
        if len(line) > 1 and (mixed_properties(line) or _twins(line)):
            return False
        so_far = [*fixed, *(c for _, c in placed), card]
        return not mixed_properties(so_far) and not _twins(so_far)

    def extend(i: int):
        if i == len(empty):
            yield list(placed)
            return
        tried: set[Card] = set()
        for k, card in enumerate(hand):
            if k in used or card in tried:
                continue
            tried.add(card)
            if fits(empty[i], card):
                placed.append((empty[i], card))
                used.append(k)
                yield from extend(i + 1)
                placed.pop()
                used.pop()

    yield from extend(0)


def _across(grid: Grid, cell: Cell, step: tuple[int, int]) -> list[Card]:
    """The cards of the run across ``cell`` (not counting it), in the perpendicular direction."""
    cards = []
    for sign in (-1, 1):
        r, c = cell[0] + sign * step[0], cell[1] + sign * step[1]
        while (r, c) in grid.cards:
            cards.append(grid.cards[(r, c)])
            r, c = r + sign * step[0], c + sign * step[1]
    return cards


def _twins(cards: Sequence[Card]) -> bool:
    real = [c for c in cards if not c.is_wild]
    return len(set(real)) != len(real)
