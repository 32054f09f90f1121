"""The all-knock of Wordinoes: every player knocked in succession.

Source: Wordinoes rulebook, "Turns": "If all players knock in succession, the first player to have
knocked draws two Wordinoes from the bag and plays one at each end ... does not have to follow the
Wordinoes Matching rules. This player then tries to play one of the Wordinoes he holds. (If there
are not at least two Wordinoes left in the bag when all players have knocked, the game ends.)"

The two tiles are laid as placements with ``free=True``: never challenged.
"""

from __future__ import annotations

from companion.games.wordinoes.notices import AllKnocked, EndsOpened, Notice, TurnPassed
from companion.games.wordinoes.pieces import GameError, Placement, Status, Tile


class AllKnock:
    """The all-knock part of :class:`~companion.games.wordinoes.game.Game`."""

    def _all_knocked(self, out: list[Notice]) -> None:
        """Every player knocked in succession (the last knock just made): the first knocker draws
        two tiles to lay (:meth:`open_ends`), or the game ends with fewer than two in the bag."""
        first = self.knockers[0]
        if len(self.bag) < 2:
            self._finish(out, "all players knocked with fewer than two tiles in the bag")
        else:
            # laid by open_ends; if they were the bag's last, the game ends once they are laid
            self.drawn = (self.bag.pop(0), self.bag.pop(0))
            self.status = Status.ALL_KNOCKED
            self._give_turn(first)
            out.append(AllKnocked(first, self.drawn))

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
