"""Challenges in Wordinoes: a challenge of the last tile played, the players' vote, its outcome.

Source: Wordinoes rulebook, "Challenges": any other player may challenge the last tile played under
the matching rules, before the next action. "All players ... vote": a majority against removes the
tile (it goes back to its player's hand), the player takes another from the bag and his turn ends;
a majority for or a tie keeps the tile and the challenger takes one from the bag. A tile that took
its player out may still be challenged (:mod:`.ending`).

The box does not judge: :mod:`companion.games.wordinoes.match` shows its evidence before the vote.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.wordinoes.notices import ChallengeOpened, ChallengeSettled, Notice, Voted
from companion.games.wordinoes.pieces import Chain, GameError, Placement, Status


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


class Challenges:
    """The challenge part of :class:`~companion.games.wordinoes.game.Game`."""

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
