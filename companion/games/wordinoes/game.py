"""A game of Wordinoes as a pure state machine: tiles, hands, the bag, the chain, knocks, challenges.

Source: Wordinoes rulebook ("Setup", "Turns", "Challenges", "Ending the Game", "Variations").

The game keeps the books; it does not judge matches. Whether two adjoining words match is for the
players, who challenge and vote (the box shows :mod:`companion.games.wordinoes.match`'s evidence
before the vote). Every action is a method that checks everything first and raises
:class:`GameError` (a ``ValueError``) without changing anything when the action is illegal, so a game
in progress survives any bad command. Each legal action returns the :class:`Notice` objects that
describe what happened, for the screen and the journal.

The bag's order is injected (the caller shuffles, with a seed in tests and the simulator), so the
game is deterministic. Words are upper case; a blank end is ``*``.

The rules are kept in one module per section of the rulebook, each a part of :class:`Game`:
:mod:`.turns` (Setup, Turns), :mod:`.allknock` (all players knock), :mod:`.challenges`,
:mod:`.ending` (Ending the Game) and :mod:`.variations`; the pieces (tiles, the chain) are in
:mod:`.pieces` and what happened in :mod:`.notices`. Every name is importable from here.

Rules as kept here (the rulebook's words in quotes):

- Setup: "Each player takes 10 Wordinoes from the bag" (``hand_size``), in seating order. "The player
  who holds the first word alphabetically starts by playing it face up in the centre of the table":
  the tile holding the alphabetically first word (blank ends are not words; ties go to the tile whose
  other word comes first, then to the earlier seat) starts the chain; play then goes clockwise
  (seating order) from the next player.
- A turn plays one tile at either open end of the chain ("only one Wordino can be played per turn";
  ``tiles_per_turn`` for the "Multiple Play" variation), turned either way round; or knocks: "take
  another Wordino from the bag and their turn ends".
- Corners: "Wordinoes can be played at right angles to allow the chain to turn a corner". A corner
  changes the layout only: the adjoining words are read in chain order (from the left end to the
  right end), and a placement records ``corner=True``.
- All knock: "If all players knock in succession, the first player to have knocked draws two
  Wordinoes from the bag and plays one at each end ... does not have to follow the Wordinoes Matching
  rules. This player then tries to play one of the Wordinoes he holds. (If there are not at least
  two Wordinoes left in the bag when all players have knocked, the game ends.)"
- Challenges: any other player may challenge the last tile played under the matching rules, before
  the next action. "All players ... vote": a majority against removes the tile (it goes back to its
  player's hand), the player takes another from the bag and his turn ends; a majority for or a tie
  keeps the tile and the challenger takes one from the bag.
- Ending: "The first player to play all of his Wordinoes is the winner" (a challenge of that last
  tile may still take it back). "If there are no more Wordinoes in the bag, the game ends and the
  winner is the player with the fewest Wordinoes. If players are tied on that number, it is a draw".
- Variations (:class:`TableSettings`): hand size, face up, several tiles a turn, homonyms allowed (for
  the judge), Patience (one player, a hand limit, a target) and Solo (three or more players, each
  with a chain of his own, most tiles played when the bag is empty wins).
"""

from __future__ import annotations

import copy

from companion.games.wordinoes.allknock import AllKnock
from companion.games.wordinoes.challenges import Challenges, _Challenge, _LastPlay
from companion.games.wordinoes.ending import Ending
from companion.games.wordinoes.notices import (
    AllKnocked,
    ChallengeOpened,
    ChallengeSettled,
    Drew,
    EndsOpened,
    GameOver,
    Knocked,
    Notice,
    Played,
    Started,
    TurnPassed,
    Voted,
)
from companion.games.wordinoes.pieces import (
    BLANK,
    ENDS,
    UNKNOWN_TILE,
    Chain,
    GameError,
    Placement,
    Status,
    Tile,
    _pair,
)
from companion.games.wordinoes.turns import SetupAndTurns
from companion.games.wordinoes.variations import TableSettings, Variant

__all__ = [
    "BLANK",
    "ENDS",
    "UNKNOWN_TILE",
    "AllKnocked",
    "Chain",
    "ChallengeOpened",
    "ChallengeSettled",
    "Drew",
    "EndsOpened",
    "Game",
    "GameError",
    "GameOver",
    "Knocked",
    "Notice",
    "Placement",
    "Played",
    "Started",
    "Status",
    "TableSettings",
    "Tile",
    "TurnPassed",
    "Variant",
    "Voted",
]
_PRIVATE = (_Challenge, _LastPlay)  # kept importable from here, as before the split


class Game(SetupAndTurns, AllKnock, Challenges, Ending):
    """A game of Wordinoes. See the module docstring for the rules kept.

    Args:
        players: the player names in seating (clockwise) order. Standard: 2 or more; Patience: 1;
            Solo: 3 or more.
        bag: every tile in the order they will be drawn (shuffled by the caller).
        settings: the table's variations.

    Raises:
        GameError: a bad player list, too few tiles to deal and start, or bad settings.
    """

    def snapshot(self, viewer: str | None = None) -> dict:
        """The game as JSON-ready data. Hands are shown when the table plays face up, to their
        own player (``viewer``), or to the scorer (``viewer="*"``); otherwise only counted."""
        hands = {}
        for p in self.players:
            shown = self.settings.face_up or viewer in ("*", p)
            hands[p] = {
                "count": len(self.hands[p]),
                **({"tiles": [_pair(t) for t in self.hands[p]]} if shown else {}),
            }
        data = {
            "status": self.status.value,
            "turn": self.turn,
            "players": list(self.players),
            "chains": {n: c.to_json() for n, c in self.chains.items()},
            "hands": hands,
            "bag": len(self.bag),
            "played": dict(self.played),
            "knockers": list(self.knockers),
            "winner": self.winner,
            "draw": self.draw,
            "end_reason": self.end_reason,
            "settings": self.settings.to_json(),
        }
        if self.drawn:
            data["drawn"] = [_pair(t) for t in self.drawn]
        if self.challenge:
            ch = self.challenge
            data["challenge"] = {
                "challenger": ch.challenger,
                "player": ch.player,
                "tile": _pair(ch.placement.tile),
                "votes": dict(ch.votes),
            }
        return data

    def copy(self) -> Game:
        """A deep copy (to try an action without touching this game)."""
        return copy.deepcopy(self)
