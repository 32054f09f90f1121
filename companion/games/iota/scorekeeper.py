"""Keeping score of an Iota game: a pure state machine of turns, scores and the draw pile.

Source: Iota rules (shared/rules/iota-rules-es.txt), "Para establecer el juego" (deal 4 cards to
each player, the rest is the pile, turn its top card up in the middle), "¿Cómo se juega?" (the
youngest starts, then play passes to the left; a turn is a play, after which the hand is refilled
to 4, or a pass exchanging any number of cards with the pile), and "El juego se termina cuando la
pila se acaba y un/a jugador/a juega su última carta. Duplica la puntuación para ese turno. La
puntuación total más alta gana".

The scorekeeper knows the table and how many cards each hand and the pile hold, never which
cards: players type their plays. Coordinates are ``(row, column)`` with the starting card at
``(0, 0)``, rows growing downwards and columns to the right (negative: above or left of it).

Decisions where the rules are silent (docs/iota.md):
- turn order is the order of ``players`` (seat the youngest first, then to the left);
- a pass may exchange 0 to all of the cards in hand; with an empty pile there is nothing to
  exchange with, so only 0;
- the game also ends when, with the pile empty, every player passes in a row (nobody can play:
  the table is blocked); no turn is doubled then. Players may also agree to stop (:meth:`end`);
- the winner is the highest total; equal highest totals share the win (``winners`` lists them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from companion.errors import CompanionError
from companion.games.iota.cards import DECK_SIZE, HAND_SIZE, Card, IotaNotationError, parse_card
from companion.games.iota.grid import Cell, Grid, format_grid
from companion.games.iota.rules import PlayResult, play_cards
from companion.names import name_key, player_name

MIN_PLAYERS = 2
MAX_PLAYERS = 4

ENDINGS = ("last-card", "blocked", "agreed")
"""How a game ends: a player laid his last card with the pile empty; every player passed in a
row with the pile empty; the players agreed to stop."""


class IotaGameError(CompanionError, ValueError):
    """A command the game cannot take now (game over, too many cards, bad set-up...)."""


class IllegalPlay(IotaGameError):
    """A play that breaks the rules; ``result`` holds the violations. The game is unchanged."""

    def __init__(self, result: PlayResult) -> None:
        self.result = result
        super().__init__("illegal play: " + "; ".join(v.message for v in result.violations))


def name_cell(cell: Cell) -> str:
    """A cell as typed at the table: ``row,column`` from the starting card (``0,1``)."""
    return f"{cell[0]},{cell[1]}"


_PLACEMENT = re.compile(r"^(?P<card>[^@\s]+)@(?P<row>[+-]?[0-9]+),(?P<col>[+-]?[0-9]+)$")
MAX_OFFSET = 99
"""The farthest row or column from the starting card a play may name (66 cards reach 65)."""


def parse_placements(text: str) -> dict[Cell, Card]:
    """Parse a typed play: cards with their cells, ``CARD@ROW,COLUMN``, separated by spaces or
    ``;`` (``"GT2@0,1 BT3@0,2"``). Rows and columns count from the starting card at ``0,0``.

    Raises:
        IotaNotationError: a bad item (quoted), no card, or two cards on one cell.
    """
    items = [item for item in re.split(r"[\s;]+", text.strip()) if item]
    if not items:
        raise IotaNotationError(
            "play: no card given; type cards with their cells, e.g. 'GT2@0,1 BT3@0,2' "
            "(row,column from the starting card at 0,0)"
        )
    placements: dict[Cell, Card] = {}
    problems = []
    for item in items:
        m = _PLACEMENT.match(item)
        if not m:
            problems.append(f"{item[:40]!r} is not CARD@ROW,COLUMN")
            continue
        try:
            card = parse_card(m["card"], repr(item))
        except IotaNotationError as exc:
            problems.append(str(exc).split("; accepted")[0])
            continue
        if max(len(m["row"].lstrip("+-")), len(m["col"].lstrip("+-"))) > 2:
            problems.append(
                f"{item[:40]!r}: rows and columns are numbers from -{MAX_OFFSET} to {MAX_OFFSET}"
            )
            continue
        cell = (int(m["row"]), int(m["col"]))
        if cell in placements:
            problems.append(f"two cards on {name_cell(cell)}")
        placements[cell] = card
    if problems:
        raise IotaNotationError(
            "play: "
            + "; ".join(problems)
            + ". Accepted: CARD@ROW,COLUMN items separated by spaces, e.g. 'GT2@0,1 BT3@0,2'; a "
            "card is colour R G B Y + shape T S C X + number 1-4, or * for a wild card"
        )
    return placements


def format_placements(placements: Mapping[Cell, Card]) -> str:
    """The typed form of a play (inverse of :func:`parse_placements`), in cell order."""
    return " ".join(f"{card}@{r},{c}" for (r, c), card in sorted(placements.items()))


def check_players(players: Sequence[str]) -> list[str]:
    """The players' names, stripped and composed (:func:`companion.names.player_name`), if there
    are 2 to 4 different non-empty ones (case and Unicode composition aside).

    Raises:
        IotaGameError: every problem at once, with what is accepted.
    """
    names = [player_name(str(p)) for p in players]
    problems = []
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        count = f"{len(names)} player{'' if len(names) == 1 else 's'} given"
        problems.append(f"{count}; Iota is for 2 to 4")
    if any(not n for n in names):
        problems.append("a player's name is empty")
    if len({name_key(n) for n in names}) != len(names):
        problems.append("two players have the same name")
    if problems:
        raise IotaGameError(
            f"players {', '.join(repr(n) for n in names) or '(none)'}: "
            + "; ".join(problems)
            + "; accepted: 2 to 4 "
            "different names"
        )
    return names


@dataclass(frozen=True)
class Turn:
    """One turn of the record: who, what (a play or a pass), the score and the totals after it.

    ``placements`` is empty for a pass; ``exchanged`` counts the cards exchanged in a pass.
    """

    number: int
    player: str
    placements: tuple[tuple[Cell, Card], ...] = ()
    exchanged: int = 0
    score: int = 0
    doublings: tuple[str, ...] = ()
    lines: tuple[tuple[str, int], ...] = ()  # (cards of the line, its sum)

    @property
    def is_pass(self) -> bool:
        """True for a pass."""
        return not self.placements


@dataclass
class Scorekeeper:
    """The state of an Iota game for 2 to 4 players.

    Args:
        players: the players' names in turn order (the youngest first, then to the left).
        starting_card: the card turned up from the pile to start the table (not a wild card
            would be usual, but the rules allow any; it is laid at ``(0, 0)``).

    Raises:
        IotaGameError: fewer than 2 or more than 4 players, an empty or repeated name.

    The pile starts with 66 - 4 x players - 1 cards. A play of k cards is refilled from the pile
    (as far as it goes); a pass changes nothing in the counts.
    """

    players: Sequence[str]
    starting_card: Card
    grid: Grid = field(init=False)
    scores: dict[str, int] = field(init=False)
    hands: dict[str, int] = field(init=False)
    pile: int = field(init=False)
    turn: int = field(init=False, default=0)  # index into players
    turns: list[Turn] = field(init=False, default_factory=list)
    ending: str | None = field(init=False, default=None)
    passes_in_a_row: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        names = check_players(self.players)
        self.players = tuple(names)
        self.grid = Grid({(0, 0): self.starting_card})
        self.scores = dict.fromkeys(names, 0)
        self.hands = dict.fromkeys(names, HAND_SIZE)
        self.pile = DECK_SIZE - HAND_SIZE * len(names) - 1

    # -- the state -------------------------------------------------------------------------------

    @property
    def current(self) -> str:
        """The player whose turn it is."""
        return self.players[self.turn]

    @property
    def finished(self) -> bool:
        """True once the game is over (see :data:`ENDINGS`)."""
        return self.ending is not None

    @property
    def winners(self) -> list[str]:
        """The players with the highest total once the game is over (several on a tie), else
        an empty list."""
        if not self.finished:
            return []
        best = max(self.scores.values())
        return [p for p in self.players if self.scores[p] == best]

    def would_be_last_card(self, cards: int) -> bool:
        """True when laying ``cards`` cards now ends the game (pile empty, the hand emptied)."""
        return self.pile == 0 and cards == self.hands[self.current]

    # -- the turns -------------------------------------------------------------------------------

    def play(self, placements: Mapping[Cell, Card] | str) -> PlayResult:
        """The current player lays cards: rule on them, score them, refill the hand, pass the turn.

        Args:
            placements: the cards by cell, or their typed form (:func:`parse_placements`).

        Returns:
            The ruling (legal), with the turn's score.

        Raises:
            IotaGameError: the game is over, or more cards than the player holds.
            IllegalPlay: the play breaks the rules (the game is unchanged).
            IotaNotationError: bad typed form.
        """
        self._check_running()
        if isinstance(placements, str):
            placements = parse_placements(placements)
        placements = dict(placements)
        player = self.current
        if len(placements) > self.hands[player]:
            raise IotaGameError(
                f"{player} holds {self.hands[player]} cards and cannot lay {len(placements)}"
            )
        last = self.would_be_last_card(len(placements))
        result = play_cards(self.grid, placements, last_card=last, namer=name_cell)
        if not result.legal:
            raise IllegalPlay(result)
        self.grid = self.grid.with_cards(placements)
        self.scores[player] += result.score
        drawn = min(len(placements), self.pile)
        self.pile -= drawn
        self.hands[player] += drawn - len(placements)
        self.turns.append(
            Turn(
                len(self.turns) + 1,
                player,
                tuple(sorted(placements.items())),
                0,
                result.score,
                tuple(result.doublings),
                tuple((" ".join(map(str, ln.cards)), ln.total) for ln in result.lines),
            )
        )
        self.passes_in_a_row = 0
        if last:
            self.ending = "last-card"
        else:
            self._next()
        return result

    def pass_turn(self, exchange: int = 0) -> Turn:
        """The current player passes, exchanging ``exchange`` cards with the pile.

        Raises:
            IotaGameError: the game is over, or ``exchange`` is not 0 to the cards in hand (0
                only, with an empty pile).
        """
        self._check_running()
        player = self.current
        limit = self.hands[player] if self.pile else 0
        if (
            isinstance(exchange, bool)
            or not isinstance(exchange, int)
            or not 0 <= exchange <= limit
        ):
            raise IotaGameError(
                f"{player} cannot exchange {exchange!r} cards; accepted: 0 to {limit} "
                f"(cards in hand {self.hands[player]}, pile {self.pile})"
            )
        turn = Turn(len(self.turns) + 1, player, (), exchange)
        self.turns.append(turn)
        self.passes_in_a_row += 1
        if self.pile == 0 and self.passes_in_a_row >= len(self.players):
            self.ending = "blocked"
        else:
            self._next()
        return turn

    def end(self) -> None:
        """The players agree to stop the game here (ending ``agreed``).

        Raises:
            IotaGameError: the game is already over.
        """
        self._check_running()
        self.ending = "agreed"

    def _check_running(self) -> None:
        if self.finished:
            raise IotaGameError(f"the game is over ({self.ending}); start a new game")

    def _next(self) -> None:
        self.turn = (self.turn + 1) % len(self.players)

    # -- records ---------------------------------------------------------------------------------

    def snapshot(self) -> dict:
        """The game's state as JSON-ready data."""
        return {
            "players": list(self.players),
            "scores": dict(self.scores),
            "current": None if self.finished else self.current,
            "pile": self.pile,
            "hands": dict(self.hands),
            "turns": len(self.turns),
            "finished": self.finished,
            "ending": self.ending,
            "winners": self.winners,
            "grid": format_grid(self.grid),
            "grid_top_left": self._top_left(),
        }

    def record(self) -> dict:
        """The game's record: the set-up, every turn (typed form, score, doublings, lines), the
        final table, the totals and the winners."""
        return {
            "game": "iota",
            "players": list(self.players),
            "starting_card": str(self.starting_card),
            "turns": [
                {
                    "number": t.number,
                    "player": t.player,
                    **(
                        {"pass": True, "exchanged": t.exchanged}
                        if t.is_pass
                        else {
                            "play": format_placements(dict(t.placements)),
                            "score": t.score,
                            "doublings": list(t.doublings),
                            "lines": [{"cards": c, "sum": s} for c, s in t.lines],
                        }
                    ),
                }
                for t in self.turns
            ],
            **{k: v for k, v in self.snapshot().items() if k not in ("players", "turns")},
        }

    def _top_left(self) -> dict[str, int]:
        frame = self.grid.full_frame()
        assert frame is not None
        return {"row": frame.top, "column": frame.left}
