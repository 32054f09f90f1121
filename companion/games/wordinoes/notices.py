"""What happened in a game of Wordinoes, for the screen and the journal: one notice per thing.

Every action of :class:`~companion.games.wordinoes.game.Game` returns the notices it made.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.wordinoes.pieces import Tile


@dataclass(frozen=True)
class Notice:
    """Something that happened, for the screen and the journal."""

    def describe(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Started(Notice):
    """``player`` held the first word alphabetically and laid ``tile`` to start ``chain``."""

    player: str
    tile: Tile
    chain: str

    def describe(self) -> str:
        return f"{self.player} starts with {self.tile}"


@dataclass(frozen=True)
class Played(Notice):
    """``player`` laid ``tile`` (as laid) at ``end``; ``adjoining`` are the two touching words."""

    player: str
    tile: Tile
    end: str
    adjoining: tuple[str, str]
    chain: str

    def describe(self) -> str:
        return f"{self.player} plays {self.tile}: {self.adjoining[0]} + {self.adjoining[1]}"


@dataclass(frozen=True)
class Drew(Notice):
    """``player`` took ``count`` tiles from the bag (``why``: knock, challenge, all-knock)."""

    player: str
    count: int
    why: str

    def describe(self) -> str:
        return f"{self.player} draws {self.count} ({self.why})"


@dataclass(frozen=True)
class Knocked(Notice):
    """``player`` could not play; ``streak`` players have knocked in succession."""

    player: str
    streak: int

    def describe(self) -> str:
        return f"{self.player} knocks"


@dataclass(frozen=True)
class AllKnocked(Notice):
    """Every player knocked in succession: ``player`` (the first to knock) drew ``tiles``."""

    player: str
    tiles: tuple[Tile, Tile]

    def describe(self) -> str:
        return f"all knocked: {self.player} lays {self.tiles[0]} and {self.tiles[1]}"


@dataclass(frozen=True)
class EndsOpened(Notice):
    """The all-knock tiles were laid, one at each end, without the matching rules."""

    player: str
    left: Tile
    right: Tile


@dataclass(frozen=True)
class TurnPassed(Notice):
    """``player`` is now on turn."""

    player: str

    def describe(self) -> str:
        return f"{self.player} to play"


@dataclass(frozen=True)
class ChallengeOpened(Notice):
    """``challenger`` challenged ``player``'s ``tile``; ``adjoining`` are the words in question."""

    challenger: str
    player: str
    tile: Tile
    adjoining: tuple[str, str]

    def describe(self) -> str:
        return f"{self.challenger} challenges {self.adjoining[0]} + {self.adjoining[1]}"


@dataclass(frozen=True)
class Voted(Notice):
    """``player`` voted: ``valid`` True means the tile meets the rules."""

    player: str
    valid: bool


@dataclass(frozen=True)
class ChallengeSettled(Notice):
    """The vote is in: ``removed`` True when the majority found the tile incorrectly played.

    ``drawer`` is who took a tile from the bag (the player when removed, else the challenger).
    """

    removed: bool
    votes_valid: int
    votes_invalid: int
    drawer: str

    def describe(self) -> str:
        verdict = "tile removed" if self.removed else "tile stays"
        return f"{verdict} ({self.votes_valid} for, {self.votes_invalid} against)"


@dataclass(frozen=True)
class GameOver(Notice):
    """The game ended: ``winner`` (None on a draw), ``reason``, and the tiles each holds."""

    winner: str | None
    draw: bool
    reason: str
    held: dict[str, int]

    def describe(self) -> str:
        if self.draw:
            return f"game over: a draw ({self.reason})"
        return f"game over: {self.winner} wins ({self.reason})"
