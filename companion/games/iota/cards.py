"""Iota's cards: 4 colours x 4 shapes x 4 numbers, and 2 wild cards (66 in all).

Source: Iota rules (shared/rules/iota-rules-es.txt): "66 cartas -64 cartas únicas y 2 comodines";
"cada carta tiene 3 propiedades: una forma, un color y un número"; "Las cartas comodín sustituyen a
cualquier otra carta y tienen un valor de 0 puntos".

Notation (DESIGN.md, "Iota grid notation"): a card is three characters, colour ``R`` ``G`` ``B``
``Y``, shape ``T`` (triangle) ``S`` (square) ``C`` (circle) ``X`` (cross), number ``1``-``4``
(``RT1``); ``*`` is a wild card. Lower case is accepted on input; output is upper case.
"""

from __future__ import annotations

from typing import NamedTuple

from companion.errors import CompanionError

COLOURS = "RGBY"
"""Colour letters: red, green, blue, yellow."""
SHAPES = "TSCX"
"""Shape letters: triangle, square, circle, cross."""
NUMBERS = (1, 2, 3, 4)
"""The numbers printed on the cards (each card scores its number)."""
PROPERTIES = ("colour", "shape", "number")
"""The three properties of a card, in notation order."""

COLOUR_NAMES = {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}
SHAPE_NAMES = {"T": "triangle", "S": "square", "C": "circle", "X": "cross"}

DECK_SIZE = 66
"""Cards in the box: 64 unique cards and 2 wild cards."""
WILD_CARDS = 2
"""Wild cards in the box."""
HAND_SIZE = 4
"""Cards in a full hand ("reparte 4 cartas ... a cada jugador")."""


class IotaNotationError(CompanionError, ValueError):
    """A card, hand or grid that is not valid Iota notation. The message names the text, the row
    and column where relevant, and what is accepted."""


class Card(NamedTuple):
    """One Iota card, or a wild card: an immutable ``(colour, shape, number)`` triple.

    A real card has ``colour`` in ``COLOURS``, ``shape`` in ``SHAPES`` and ``number`` in 1..4. The
    wild card (:data:`WILD`) has all three set to ``None``: it stands for any card and is worth 0.
    Build cards with :func:`parse_card` or :data:`ALL_CARDS`; ``str(card)`` gives the notation.
    (A named tuple, so that hashing and comparing cards, done millions of times by the hint
    search, run at C speed.)
    """

    colour: str | None
    shape: str | None
    number: int | None

    @property
    def is_wild(self) -> bool:
        """True for a wild card."""
        return self.colour is None

    @property
    def value(self) -> int:
        """The points the card scores in a line: its number, 0 for a wild card."""
        return 0 if self.number is None else self.number

    def properties(self) -> tuple[str | None, str | None, int | None]:
        """``(colour, shape, number)``, the values compared in a line."""
        return tuple(self)  # type: ignore[return-value]

    def describe(self) -> str:
        """Words for the card: ``"red triangle 1"`` or ``"wild card"``."""
        if self.is_wild:
            return "wild card"
        return f"{COLOUR_NAMES[self.colour]} {SHAPE_NAMES[self.shape]} {self.number}"

    def __str__(self) -> str:
        if self.is_wild:
            return "*"
        return f"{self.colour}{self.shape}{self.number}"


WILD = Card(None, None, None)
"""The wild card ("comodín")."""

ALL_CARDS: tuple[Card, ...] = tuple(
    Card(colour, shape, number) for colour in COLOURS for shape in SHAPES for number in NUMBERS
)
"""The 64 unique cards, in notation order (colour, then shape, then number)."""


def deck() -> list[Card]:
    """The 66 cards of the box: the 64 unique cards and 2 wild cards (a new list each call)."""
    return list(ALL_CARDS) + [WILD] * WILD_CARDS


def parse_card(text: str, where: str = "card") -> Card:
    """Parse one card in notation: ``"RT1"``, ``"gx4"``, or ``"*"`` for a wild card.

    Args:
        text: the card's three characters (surrounding spaces ignored).
        where: how to name the input in the error (``"row 2, column 3"``).

    Raises:
        IotaNotationError: not a card; the message quotes the text and lists what is accepted.
    """
    t = text.strip().upper()
    if t == "*":
        return WILD
    problem = card_problem(t)
    if problem is None:
        return Card(t[0], t[1], int(t[2]))
    raise IotaNotationError(
        f"{where}: {text.strip()!r} is not a card ({problem}); accepted: colour "
        "R G B Y + shape T S C X + number 1-4 (e.g. RT1), or * for a wild card"
    )


def card_problem(text: str) -> str | None:
    """What is wrong with ``text`` as a card (``None`` when it is a card or ``*``)."""
    t = text.strip().upper()
    if t == "*":
        return None
    if len(t) != 3:
        return f"a card has 3 characters, not {len(t)}"
    problems = []
    if t[0] not in COLOURS:
        problems.append(f"colour {t[0]!r} is not one of R G B Y")
    if t[1] not in SHAPES:
        problems.append(f"shape {t[1]!r} is not one of T S C X")
    if t[2] not in "1234":
        problems.append(f"number {t[2]!r} is not 1-4")
    return "; ".join(problems) or None


def parse_hand(text: str) -> list[Card]:
    """Parse a hand: 1 to 4 cards separated by spaces or commas (``"RT1 GS2 *"``).

    Raises:
        IotaNotationError: a bad card (named by its position), no card, more than 4 cards, a card
            given twice, or more than 2 wild cards.
    """
    items = [item for item in text.replace(",", " ").split() if item]
    if not items:
        raise IotaNotationError("hand: no card given; accepted: 1 to 4 cards like 'RT1 GS2 *'")
    if len(items) > HAND_SIZE:
        raise IotaNotationError(
            f"hand: {len(items)} cards given ({text.strip()!r}); a hand holds at most {HAND_SIZE}"
        )
    cards = [parse_card(item, f"hand, card {i}") for i, item in enumerate(items, 1)]
    real = [c for c in cards if not c.is_wild]
    if len(set(real)) != len(real):
        twice = sorted({str(c) for c in real if real.count(c) > 1})
        raise IotaNotationError(
            f"hand: {', '.join(twice)} given twice; the deck holds each card once"
        )
    if len(cards) - len(real) > WILD_CARDS:
        raise IotaNotationError(f"hand: more than {WILD_CARDS} wild cards; the deck holds 2")
    return cards
