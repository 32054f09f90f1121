"""The pieces of a game of Wordinoes: tiles, the chain on the table, and where the game is.

Source: Wordinoes rulebook ("Setup": "Each Wordino has two words, one at each end"; a blank end,
the Wordinoes logo, is ``*``). Pure values, no rules: the rules are in :mod:`.turns`,
:mod:`.allknock`, :mod:`.challenges`, :mod:`.ending` and :mod:`.variations`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from companion.errors import CompanionError

BLANK = "*"
ENDS = ("left", "right")
UNKNOWN_TILE = "?"
"""A tile the box cannot see (in the bag or a hand, face down), in a bag list or a snapshot."""


def _pair(tile: Tile | None) -> list[str]:
    return [UNKNOWN_TILE, UNKNOWN_TILE] if tile is None else [tile.first, tile.second]


class GameError(CompanionError, ValueError):
    """An illegal action or bad set-up: the message names the action, the player and the rule."""


class Status(StrEnum):
    """Where the game is."""

    START = "start"  # the box cannot see the tiles: waiting for the starting tile (start())
    PLAYING = "playing"  # a player is on turn
    ALL_KNOCKED = "all-knocked"  # the first knocker must lay the two drawn tiles, one at each end
    CHALLENGE = "challenge"  # the players are voting on a challenged tile
    FINISHED = "finished"


# --- tiles ------------------------------------------------------------------------------------


def _word(word: object, what: str) -> str:
    if not isinstance(word, str) or not word.strip():
        raise GameError(
            f"{what} {word!r} is empty: a tile end is a word of letters A-Z or * (blank)"
        )
    w = word.strip()
    if w == BLANK:
        return BLANK
    if not (w.isascii() and w.isalpha()):
        raise GameError(f"{what} {word!r} is not a word: accepted are letters A-Z, or * (blank)")
    return w.upper()


@dataclass(frozen=True, order=True)
class Tile:
    """A Wordino: two words, one at each end. ``*`` is a blank end (the Wordinoes logo).

    ``Tile("police", "man")`` is ``Tile("POLICE", "MAN")``. A tile is the same tile turned round:
    :meth:`same` compares without orientation.

    Raises:
        GameError: an end that is not letters A-Z or ``*``.
    """

    first: str
    second: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "first", _word(self.first, "tile end"))
        object.__setattr__(self, "second", _word(self.second, "tile end"))

    @classmethod
    def parse(cls, value: object) -> Tile:
        """A tile from ``["POLICE", "MAN"]``, ``("POLICE", "MAN")``, ``"POLICE/MAN"`` or a Tile.

        Raises:
            GameError: anything else.
        """
        if isinstance(value, Tile):
            return value
        if isinstance(value, str) and value.count("/") == 1:
            return cls(*value.split("/"))
        if isinstance(value, list | tuple) and len(value) == 2:
            return cls(value[0], value[1])
        raise GameError(
            f'tile {value!r} is not a tile: accepted are two words, e.g. ["POLICE", "MAN"] '
            'or "POLICE/MAN" (* for a blank end)'
        )

    def turned(self) -> Tile:
        """The same tile turned round."""
        return Tile(self.second, self.first)

    def same(self, other: Tile) -> bool:
        """True when ``other`` is this tile either way round."""
        return other == self or other == self.turned()

    @property
    def words(self) -> list[str]:
        """The ends that are words (blank ends left out)."""
        return [w for w in (self.first, self.second) if w != BLANK]

    def __str__(self) -> str:
        return f"{self.first}/{self.second}"


# --- the chain --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """A tile as laid in the chain, read from the chain's left end to its right end.

    ``player`` laid it; ``free`` is True for the tiles of an all-knock, laid without the matching
    rules (and so never challenged); ``corner`` marks a right-angle turn of the layout.
    """

    tile: Tile
    player: str
    free: bool = False
    corner: bool = False


@dataclass
class Chain:
    """The line of Wordinoes on the table, left end to right end."""

    placements: list[Placement] = field(default_factory=list)

    @property
    def left_word(self) -> str | None:
        """The open word at the left end (None for an empty chain)."""
        return self.placements[0].tile.first if self.placements else None

    @property
    def right_word(self) -> str | None:
        """The open word at the right end (None for an empty chain)."""
        return self.placements[-1].tile.second if self.placements else None

    def adjoining(self, laid: Tile, end: str) -> tuple[str, str]:
        """The two words that would touch if ``laid`` (as laid) went at ``end``: (left, right)."""
        if end == "left":
            return (laid.second, self.left_word or "")
        return (self.right_word or "", laid.first)

    def add(self, placement: Placement, end: str) -> None:
        if end == "left":
            self.placements.insert(0, placement)
        else:
            self.placements.append(placement)

    def to_json(self) -> dict:
        return {
            "tiles": [_pair(p.tile) for p in self.placements],
            "ends": {"left": self.left_word, "right": self.right_word},
            "corners": [i for i, p in enumerate(self.placements) if p.corner],
            "length": len(self.placements),
        }
