"""Setting up a game of Wordinoes and its turns: the deal, the first word, playing a tile, knocking.

Source: Wordinoes rulebook, "Setup" and "Turns":

- Setup: "Each player takes 10 Wordinoes from the bag" (``hand_size``), in seating order. "The player
  who holds the first word alphabetically starts by playing it face up in the centre of the table":
  the tile holding the alphabetically first word (blank ends are not words; ties go to the tile whose
  other word comes first, then to the earlier seat) starts the chain; play then goes clockwise
  (seating order) from the next player. When the box cannot see the tiles, the players say who
  starts with which tile (:meth:`SetupAndTurns.start`).
- A turn plays one tile at either open end of the chain ("only one Wordino can be played per turn";
  ``tiles_per_turn`` for the "Multiple Play" variation), turned either way round; or knocks: "take
  another Wordino from the bag and their turn ends". When every player has knocked in succession
  the all-knock follows (:mod:`.allknock`).
- Corners: "Wordinoes can be played at right angles to allow the chain to turn a corner". A corner
  changes the layout only: the adjoining words are read in chain order (from the left end to the
  right end), and a placement records ``corner=True``.

:class:`SetupAndTurns` is the first part of :class:`~companion.games.wordinoes.game.Game`; the
other parts (all-knock, challenges, ending) are mixed into the same class.
"""

from __future__ import annotations

from companion.games.wordinoes.challenges import _Challenge, _LastPlay
from companion.games.wordinoes.notices import (
    Drew,
    Knocked,
    Notice,
    Played,
    Started,
    TurnPassed,
)
from companion.games.wordinoes.pieces import (
    ENDS,
    UNKNOWN_TILE,
    Chain,
    GameError,
    Placement,
    Status,
    Tile,
)
from companion.games.wordinoes.variations import TableSettings, Variant
from companion.names import player_name


class SetupAndTurns:
    """The set-up and the turns of :class:`~companion.games.wordinoes.game.Game` (see its
    docstring for the arguments)."""

    def __init__(self, players: list[str], bag: list, settings: TableSettings | None = None):
        self.settings = settings or TableSettings()
        names = [player_name(str(p)) for p in players]
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
            self._all_knocked(out)  # .allknock
        else:
            out.extend(self._pass_turn())
        self.notices.extend(out)
        return out

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
