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


class Variant(StrEnum):
    """The form of the game: the rulebook's own, Patience or Solo."""

    STANDARD = "standard"
    PATIENCE = "patience"
    SOLO = "solo"


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


# --- settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSettings:
    """The table's choice of variations (rulebook, "Variations").

    Args:
        hand_size: tiles each player takes at the start (rulebook: 10; "to say 15" or "to say 5").
            1 to 50.
        face_up: hands are played face up, visible to all ("Face Up or On Edge?"): the public view
            of the game shows every hand.
        tiles_per_turn: the most tiles a turn may play ("Multiple Play Wordinoes"); 1 to 10.
        homonyms: "Allow Homonyms?": a word may stand for a homophone (for the match judge).
        variant: standard, patience (one player) or solo (three or more players).
        hand_limit: Patience: the most tiles the player may hold at any time (rulebook: 10).
        target: Patience: tiles to play to win; None means every tile.

    Raises:
        GameError: a setting out of range (all problems at once).
    """

    hand_size: int = 10
    face_up: bool = False
    tiles_per_turn: int = 1
    homonyms: bool = False
    variant: Variant = Variant.STANDARD
    hand_limit: int = 10
    target: int | None = None

    def __post_init__(self) -> None:
        problems = []
        try:
            object.__setattr__(self, "variant", Variant(self.variant))
        except ValueError:
            problems.append(
                f"variant {self.variant!r} is unknown; accepted: "
                + ", ".join(v.value for v in Variant)
            )
        for name, lo, hi in (
            ("hand_size", 1, 50),
            ("tiles_per_turn", 1, 10),
            ("hand_limit", 1, 50),
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                problems.append(f"{name} {value!r} is out of range; accepted: {lo} to {hi}")
        if self.target is not None and (
            not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 1
        ):
            problems.append(f"target {self.target!r} is not a count; accepted: 1 or more, or null")
        for name in ("face_up", "homonyms"):
            if not isinstance(getattr(self, name), bool):
                problems.append(f"{name} {getattr(self, name)!r} is not true or false")
        if problems:
            raise GameError("bad table settings: " + "; ".join(problems))

    @classmethod
    def from_dict(cls, data: dict) -> TableSettings:
        """Settings from a dict (a table.toml section or a script line); unknown keys are errors.

        Raises:
            GameError: an unknown key or a bad value (all problems at once).
        """
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise GameError(
                f"unknown Wordinoes setting(s) {', '.join(unknown)}; accepted: {', '.join(sorted(known))}"
            )
        return cls(**data)

    def to_json(self) -> dict:
        return {
            "hand_size": self.hand_size,
            "face_up": self.face_up,
            "tiles_per_turn": self.tiles_per_turn,
            "homonyms": self.homonyms,
            "variant": self.variant.value,
            "hand_limit": self.hand_limit,
            "target": self.target,
        }


# --- notices ----------------------------------------------------------------------------------


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


# --- the game ---------------------------------------------------------------------------------


@dataclass
class _LastPlay:
    player: str
    placement: Placement
    end: str
    chain: str


@dataclass
class _Challenge(_LastPlay):
    """The last play, challenged by ``challenger``: the votes so far."""

    challenger: str
    votes: dict[str, bool]
    mid_turn: bool  # the challenged player was still on turn (multiple play)
    went_out: bool


class Game:
    """A game of Wordinoes. See the module docstring for the rules kept.

    Args:
        players: the player names in seating (clockwise) order. Standard: 2 or more; Patience: 1;
            Solo: 3 or more.
        bag: every tile in the order they will be drawn (shuffled by the caller).
        settings: the table's variations.

    Raises:
        GameError: a bad player list, too few tiles to deal and start, or bad settings.
    """

    def __init__(self, players: list[str], bag: list, settings: TableSettings | None = None):
        self.settings = settings or TableSettings()
        names = [str(p).strip() for p in players]
        problems = []
        if any(not n for n in names):
            problems.append("a player name is empty")
        if len(set(n.lower() for n in names)) != len(names):
            problems.append(f"player names {names} are not all different")
        v = self.settings.variant
        need = {Variant.STANDARD: (2, 12), Variant.PATIENCE: (1, 1), Variant.SOLO: (3, 12)}[v]
        if not need[0] <= len(names) <= need[1]:
            problems.append(
                f"{v.value} Wordinoes takes {need[0]} to {need[1]} players, not {len(names)}"
            )
        tiles: list[Tile | None] = []
        for i, t in enumerate(bag):
            if t is None or t == UNKNOWN_TILE:
                tiles.append(None)  # face down: the box learns it when it is played
                continue
            try:
                tiles.append(Tile.parse(t))
            except GameError as exc:
                problems.append(f"bag tile {i + 1}: {exc}")
        deal = self.settings.hand_size * len(names)
        if not problems and len(tiles) <= deal:
            problems.append(
                f"the bag holds {len(tiles)} tiles: dealing {self.settings.hand_size} to each of "
                f"{len(names)} players needs more than {deal}"
            )
        if problems:
            raise GameError("cannot set up Wordinoes: " + "; ".join(problems))
        self.players: list[str] = names
        self.bag: list[Tile | None] = tiles
        self.hands: dict[str, list[Tile | None]] = {p: [] for p in names}
        self.played: dict[str, int] = {p: 0 for p in names}
        self.chains: dict[str, Chain] = {}
        self.status = Status.PLAYING
        self.turn: str | None = None
        self.tiles_this_turn = 0
        self.knockers: list[str] = []  # knocks in succession, first knocker first
        self.drawn: tuple[Tile | None, Tile | None] | None = None  # an all-knock's two tiles
        self.challenge: _Challenge | None = None
        self.last_play: _LastPlay | None = None
        self.winner: str | None = None
        self.draw = False
        self.end_reason: str | None = None
        self.notices: list[Notice] = []
        self._setup()

    # -- set-up --

    def chain_of(self, player: str) -> str:
        """The name of the chain ``player`` plays on: ``"table"``, or his own in Solo/Patience."""
        return player if self.settings.variant != Variant.STANDARD else "table"

    def _setup(self) -> None:
        for p in self.players:
            for _ in range(self.settings.hand_size):
                self.hands[p].append(self.bag.pop(0))
        out: list[Notice] = []
        if any(t is None for h in self.hands.values() for t in h):
            # tiles the box cannot see: the players say who starts with which tile (start())
            self.status = Status.START
            return
        first, tile = self._first_word(self.players)
        if self.settings.variant == Variant.STANDARD:
            out.append(self._start_chain(first, tile, tile))
            self.turn = self._next(first)
        else:
            # Patience and Solo: each player starts a chain of his own with his first word;
            # the holder of the first word of all plays first
            for p in self.players:
                own = self._first_word([p])[1]
                out.append(self._start_chain(p, own, own))
            self.turn = first
        out.append(TurnPassed(self.turn))
        self.notices.extend(out)
        self._check_end(out)

    def _first_word(self, players: list[str]) -> tuple[str, Tile]:
        best = None
        for seat, p in enumerate(players):
            for tile in self.hands[p]:
                if tile is None:
                    continue
                words = tile.words
                if not words:
                    continue
                key = (min(words), max(words), seat)
                if best is None or key < best[0]:
                    best = (key, p, tile)
        if best is None:
            # only blank tiles: the first seat starts with its first tile
            return players[0], self.hands[players[0]][0]
        return best[1], best[2]

    def _start_chain(
        self, player: str, tile: Tile, held: Tile | None, as_laid: bool = False
    ) -> Started:
        """Lay ``tile`` (``held`` in the hand: the same tile, or None for an unseen one) as the
        first of a chain: as laid when the players said so, else with the first word at the left."""
        self.hands[player].remove(held)
        word = min(tile.words) if tile.words else tile.first
        laid = tile if as_laid or tile.first == word else tile.turned()
        name = self.chain_of(player)
        self.chains[name] = Chain([Placement(laid, player, free=True)])
        self.played[player] += 1
        return Started(player, laid, name)

    # -- queries --

    def _next(self, player: str) -> str:
        i = self.players.index(player)
        return self.players[(i + 1) % len(self.players)]

    def _need(self, player: str, action: str, statuses: tuple[Status, ...] = (Status.PLAYING,)):
        p = self._player(player, action)
        if self.status not in statuses:
            raise GameError(f"{action} by {p}: not now, the game is {self._status_words()}")
        return p

    def _on_turn(self, player: str, action: str) -> str:
        """``player`` (as the game spells him) when the game is in play and it is his turn."""
        p = self._need(player, action)
        if p != self.turn:
            raise GameError(f"{action} by {p}: it is {self.turn}'s turn")
        return p

    def _player(self, player: object, action: str) -> str:
        for p in self.players:
            if isinstance(player, str) and p.lower() == player.strip().lower():
                return p
        raise GameError(f"{action}: {player!r} is not a player; players: {', '.join(self.players)}")

    def _status_words(self) -> str:
        if self.status == Status.PLAYING:
            return f"waiting for {self.turn} to play"
        if self.status == Status.START:
            return "waiting for the starting tile"
        if self.status == Status.ALL_KNOCKED:
            return f"waiting for {self.knockers[0]} to lay the two tiles of the all-knock"
        if self.status == Status.CHALLENGE:
            missing = [p for p in self.players if p not in self.challenge.votes]  # type: ignore[union-attr]
            return f"voting on a challenge (waiting for {', '.join(missing)})"
        return "over"

    def _in_hand(self, player: str, tile: Tile, action: str) -> Tile | None:
        """The tile of ``player``'s hand that ``tile`` is: the same known tile, else an unknown."""
        for held in self.hands[player]:
            if held is not None and held.same(tile):
                return held
        if None in self.hands[player]:
            return None
        raise GameError(
            f"{action} by {player}: {tile} is not in {player}'s hand; "
            f"holds {', '.join(map(str, self.hands[player])) or 'nothing'}"
        )

    # -- actions --

    def start(self, player: str, tile) -> list[Notice]:
        """``player`` lays his starting ``tile`` (as laid, left to right) when the box cannot see
        the tiles.

        Rulebook, "Setup": "The player who holds the first word alphabetically starts by playing
        it face up in the centre of the table" (the players check that; the box cannot). In Solo
        and Patience each player starts his own chain; the holder of the first word of all then
        plays first.

        Raises:
            GameError: no start is awaited, the chain already started, or not in his hand.
        """
        p = self._need(player, "start", (Status.START,))
        name = self.chain_of(p)
        if name in self.chains:
            raise GameError(f"start by {p}: the chain {name!r} has its starting tile already")
        laid = Tile.parse(tile)
        held = self._in_hand(p, laid, "start")
        out: list[Notice] = [self._start_chain(p, laid, held, as_laid=True)]
        if self.settings.variant == Variant.STANDARD:
            self.turn = self._next(p)
        elif len(self.chains) == len(self.players):
            firsts = {q: min(c.placements[0].tile.words or ["~"]) for q, c in self.chains.items()}
            self.turn = min(self.players, key=lambda q: (firsts[q], self.players.index(q)))
        else:
            self.notices.extend(out)
            return out
        self.status = Status.PLAYING
        out.append(TurnPassed(self.turn))
        self._check_end(out)
        self.notices.extend(out)
        return out

    def play(self, player: str, tile, end: str, corner: bool = False) -> list[Notice]:
        """``player`` lays ``tile`` at ``end`` (``"left"`` or ``"right"``), turned as given.

        ``tile`` is the tile as laid, read from the chain's left end to its right end: at the right
        end its first word touches the chain's right word; at the left end its second word touches
        the chain's left word. ``corner`` records a right-angle turn of the layout.

        Raises:
            GameError: not this player's turn, not in his hand, a bad end, or the game not in play.
        """
        p = self._on_turn(player, "play")
        if end not in ENDS:
            raise GameError(f"play by {p}: end {end!r} is not an end; accepted: left, right")
        laid = Tile.parse(tile)
        held = self._in_hand(p, laid, "play")
        name = self.chain_of(p)
        chain = self.chains[name]
        placement = Placement(laid, p, corner=bool(corner))
        adjoining = chain.adjoining(laid, end)
        # apply
        self.hands[p].remove(held)
        chain.add(placement, end)
        self.played[p] += 1
        self.knockers = []
        self.tiles_this_turn += 1
        self.last_play = _LastPlay(p, placement, end, name)
        out: list[Notice] = [Played(p, laid, end, adjoining, name)]
        if not self._check_end(out) and self.tiles_this_turn >= self.settings.tiles_per_turn:
            out.extend(self._pass_turn())
        self.notices.extend(out)
        return out

    def end_turn(self, player: str) -> list[Notice]:
        """``player`` ends a turn of several tiles early (Multiple Play), after at least one.

        Raises:
            GameError: not his turn, or no tile played yet this turn (knock instead).
        """
        p = self._on_turn(player, "end turn")
        if self.tiles_this_turn == 0:
            raise GameError(f"end turn by {p}: no tile played this turn; play a tile or knock")
        out = self._pass_turn()
        self.notices.extend(out)
        return out

    def knock(self, player: str) -> list[Notice]:
        """``player`` cannot play: he takes a tile from the bag and his turn ends.

        When every player (of his chain) has knocked in succession, the first to knock draws two
        tiles to lay one at each end (:meth:`open_ends`), or the game ends if the bag holds fewer
        than two.

        Raises:
            GameError: not his turn, a tile already played this turn, or the game not in play.
        """
        p = self._on_turn(player, "knock")
        if self.tiles_this_turn:
            raise GameError(f"knock by {p}: a tile was played this turn; end the turn instead")
        self.last_play = None
        out: list[Notice] = []
        self.knockers.append(p)
        out.append(Knocked(p, len(self.knockers)))
        if self.settings.variant == Variant.PATIENCE and not self.bag:
            self._finish(out, "cannot play and the bag is empty", lost=True)
        elif self._draw(p, 1, "knock", out):
            pass  # the game ended
        elif self.settings.variant == Variant.STANDARD and len(self.knockers) == len(self.players):
            first = self.knockers[0]
            if len(self.bag) < 2:
                self._finish(out, "all players knocked with fewer than two tiles in the bag")
            else:
                # laid by open_ends; if they were the bag's last, the game ends once they are laid
                self.drawn = (self.bag.pop(0), self.bag.pop(0))
                self.status = Status.ALL_KNOCKED
                self._give_turn(first)
                out.append(AllKnocked(first, self.drawn))
        else:
            out.extend(self._pass_turn())
        self.notices.extend(out)
        return out

    def open_ends(self, player: str, left, right) -> list[Notice]:
        """After an all-knock, the first knocker lays the two drawn tiles, one at each end.

        ``left`` and ``right`` are the two drawn tiles as laid (read left to right), in either
        order of drawing and either way round; no matching rules apply. He is then on turn.

        Raises:
            GameError: not the first knocker, not the two drawn tiles, or no all-knock pending.
        """
        p = self._need(player, "lay the all-knock tiles", (Status.ALL_KNOCKED,))
        first = self.knockers[0]
        if p != first:
            raise GameError(f"lay the all-knock tiles by {p}: {first} knocked first and lays them")
        lt, rt = Tile.parse(left), Tile.parse(right)
        remaining = list(self.drawn)  # type: ignore[arg-type]
        for laid in (lt, rt):
            known = [t for t in remaining if t is not None and t.same(laid)]
            if known:
                remaining.remove(known[0])
            elif None in remaining:
                remaining.remove(None)
            else:
                a, b = (str(t) if t else "?" for t in self.drawn)  # type: ignore[union-attr]
                raise GameError(
                    f"lay the all-knock tiles by {p}: the drawn tiles are {a} and {b}, "
                    f"not {lt} and {rt}"
                )
        name = self.chain_of(p)
        chain = self.chains[name]
        chain.add(Placement(lt, p, free=True), "left")
        chain.add(Placement(rt, p, free=True), "right")
        self.played[p] += 2
        self.drawn = None
        self.knockers = []
        self.status = Status.PLAYING
        self._give_turn(p)
        self.last_play = None
        out: list[Notice] = [EndsOpened(p, lt, rt)]
        if not self._check_end(out):
            out.append(TurnPassed(p))
        self.notices.extend(out)
        return out

    def challenge_last(self, challenger: str) -> list[Notice]:
        """``challenger`` challenges the last tile played under the matching rules.

        Allowed before the next action, by any other player, also when that tile took its player
        out. The players then :meth:`vote`.

        Raises:
            GameError: nothing to challenge, a challenge of one's own tile, or a vote under way.
        """
        c = self._player(challenger, "challenge")
        last = self.last_play
        if self.status == Status.CHALLENGE:
            raise GameError(f"challenge by {c}: a challenge is already being voted on")
        if last is None:
            raise GameError(f"challenge by {c}: no tile to challenge since the last action")
        if last.player == c:
            raise GameError(f"challenge by {c}: a player cannot challenge his own tile")
        if self.status == Status.FINISHED and self.end_reason != "out":
            raise GameError(f"challenge by {c}: the game is over")
        chain = self.chains[last.chain]
        pl = chain.placements
        idx = 0 if last.end == "left" else len(pl) - 1
        assert pl[idx] is last.placement
        adj = self._adjoining_in_chain(chain, idx, last.end)
        self.challenge = _Challenge(
            **vars(last),
            challenger=c,
            votes={},
            mid_turn=self.status == Status.PLAYING and self.turn == last.player,
            went_out=self.status == Status.FINISHED,
        )
        if self.status == Status.FINISHED:
            self.status, self.winner, self.end_reason = Status.CHALLENGE, None, None
        self.status = Status.CHALLENGE
        out: list[Notice] = [ChallengeOpened(c, last.player, last.placement.tile, adj)]
        self.notices.extend(out)
        return out

    def _adjoining_in_chain(self, chain: Chain, idx: int, end: str) -> tuple[str, str]:
        pl = chain.placements
        if end == "left":
            return (pl[idx].tile.second, pl[idx + 1].tile.first)
        return (pl[idx - 1].tile.second, pl[idx].tile.first)

    def vote(self, player: str, valid: bool) -> list[Notice]:
        """``player`` votes on the challenge: ``valid`` True if the tile meets the rules.

        When every player has voted the challenge is settled: a majority against removes the tile
        (back to its player's hand), the player draws one and his turn ends; a tie or a majority
        for keeps it and the challenger draws one.

        Raises:
            GameError: no challenge, a second vote, or ``valid`` not a bool.
        """
        p = self._need(player, "vote", (Status.CHALLENGE,))
        ch = self.challenge
        assert ch is not None
        if p in ch.votes:
            raise GameError(f"vote by {p}: {p} has voted already")
        if not isinstance(valid, bool):
            raise GameError(f"vote by {p}: {valid!r} is not a vote; accepted: true (valid), false")
        ch.votes[p] = valid
        out: list[Notice] = [Voted(p, valid)]
        if len(ch.votes) == len(self.players):
            out.extend(self._settle())
        self.notices.extend(out)
        return out

    def _settle(self) -> list[Notice]:
        ch = self.challenge
        assert ch is not None
        yes = sum(ch.votes.values())
        no = len(ch.votes) - yes
        removed = no > yes
        out: list[Notice] = []
        self.challenge = None
        self.last_play = None
        self.status = Status.PLAYING
        if removed:
            chain = self.chains[ch.chain]
            chain.placements.remove(ch.placement)
            self.hands[ch.player].append(ch.placement.tile)
            self.played[ch.player] -= 1
            out.append(ChallengeSettled(True, yes, no, ch.player))
            if ch.went_out or ch.mid_turn:
                # his turn ends; play goes on with the next player
                self._give_turn(ch.player)
                if not self._draw(ch.player, 1, "challenge lost", out):
                    out.extend(self._pass_turn())
                return out
            self._draw(ch.player, 1, "challenge lost", out)
        else:
            out.append(ChallengeSettled(False, yes, no, ch.challenger))
            if ch.went_out:
                self._finish(out, "out", winner=ch.player)
                return out
            self._draw(ch.challenger, 1, "challenge failed", out)
        return out

    # -- bookkeeping --

    def _give_turn(self, player: str) -> None:
        self.turn = player
        self.tiles_this_turn = 0

    def _pass_turn(self) -> list[Notice]:
        self._give_turn(self._next(self.turn))  # type: ignore[arg-type]
        return [TurnPassed(self.turn)]

    def _draw(self, player: str, count: int, why: str, out: list[Notice]) -> bool:
        """Move ``count`` tiles to ``player``'s hand; True when that ended the game."""
        n = min(count, len(self.bag))
        for _ in range(n):
            self.hands[player].append(self.bag.pop(0))
        if n:
            out.append(Drew(player, n, why))
        if (
            self.settings.variant == Variant.PATIENCE
            and len(self.hands[player]) > self.settings.hand_limit
        ):
            self._finish(
                out, f"holds more than {self.settings.hand_limit} tiles", winner=None, lost=True
            )
            return True
        return self._check_bag_empty(out)

    def _check_bag_empty(self, out: list[Notice]) -> bool:
        if self.bag or self.status == Status.FINISHED:
            return self.status == Status.FINISHED
        if self.settings.variant == Variant.PATIENCE:
            return False  # Patience ends on its target, its hand limit, or a knock on an empty bag
        self._finish(out, "the bag is empty")
        return True

    def _check_end(self, out: list[Notice]) -> bool:
        if self.status == Status.FINISHED:
            return True
        v = self.settings.variant
        if v == Variant.PATIENCE:
            p = self.players[0]
            target = self.settings.target
            emptied = not self.bag and not self.hands[p]
            if (target is not None and self.played[p] >= target) or (target is None and emptied):
                self._finish(out, "target reached", winner=p)
                return True
            if emptied:
                self._finish(out, "no tiles left", winner=None, lost=True)
                return True
            return False
        for p in self.players:
            if not self.hands[p]:
                if v == Variant.SOLO:
                    continue  # Solo is won on tiles played when the bag is empty
                self._finish(out, "out", winner=p)
                return True
        return self._check_bag_empty(out)

    def _finish(
        self, out: list[Notice], reason: str, winner: str | None = None, lost: bool = False
    ):
        self.status = Status.FINISHED
        self.turn = None
        held = {p: len(h) for p, h in self.hands.items()}
        lost = lost or (winner is None and self.settings.variant == Variant.PATIENCE)
        if winner is None and not lost:
            if self.settings.variant == Variant.SOLO:
                best = max(self.played.values())
                leaders = [p for p in self.players if self.played[p] == best]
            else:
                fewest = min(held.values())
                leaders = [p for p in self.players if held[p] == fewest]
            winner = leaders[0] if len(leaders) == 1 else None
            self.draw = len(leaders) > 1
        self.winner = winner
        self.end_reason = reason
        out.append(GameOver(winner, self.draw, reason, held))

    # -- views --

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
