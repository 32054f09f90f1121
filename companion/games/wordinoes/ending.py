"""The end of a game of Wordinoes: out, an empty bag, and the winner.

Source: Wordinoes rulebook, "Ending the Game": "The first player to play all of his Wordinoes is
the winner" (a challenge of that last tile may still take it back: :mod:`.challenges`). "If there
are no more Wordinoes in the bag, the game ends and the winner is the player with the fewest
Wordinoes. If players are tied on that number, it is a draw". The variations end otherwise
("Variations"): Patience on its target, its hand limit, or a knock on an empty bag; Solo on an
empty bag, won on the most tiles played.
"""

from __future__ import annotations

from companion.games.wordinoes.notices import GameOver, Notice
from companion.games.wordinoes.pieces import Status
from companion.games.wordinoes.variations import Variant


class Ending:
    """The ending part of :class:`~companion.games.wordinoes.game.Game`."""

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
