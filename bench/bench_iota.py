"""Iota: how long a ruling and a hint take on tables from real (simulated) games.

Goals (a player waits at the table, on a Raspberry Pi about 5x slower than a desktop core):
ruling on a play well under 5 ms here; ``companion iota hint`` under 100 ms here for a hand
without wild cards, under 300 ms with both wild cards, on a table of 40 cards.
"""

from __future__ import annotations

import random
import statistics
import time

from companion.games.iota.cards import WILD, deck
from companion.games.iota.hints import legal_plays
from companion.games.iota.rules import play_cards
from companion.games.iota.scorekeeper import Scorekeeper, format_placements


def _game_table(seed: int, cards_down: int) -> tuple[Scorekeeper, list]:
    """Play a greedy game from a shuffled deck until ``cards_down`` cards lie on the table."""
    rnd = random.Random(seed)
    pile = [c for c in deck() if not c.is_wild]
    rnd.shuffle(pile)
    keeper = Scorekeeper(["A", "B"], pile.pop())
    hands = {n: [pile.pop() for _ in range(4)] for n in ("A", "B")}
    while len(keeper.grid) < cards_down and not keeper.finished:
        hand = hands[keeper.current]
        hints = legal_plays(keeper.grid, hand)
        if hints:
            placements = dict(hints[0].placements)
            keeper.play(format_placements(placements))
            for card in placements.values():
                hand.remove(card)
            while len(hand) < 4 and pile:
                hand.append(pile.pop())
        else:
            keeper.pass_turn(0)
    return keeper, pile


def _time(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    """Print the figures against the goals."""
    rows = []
    for seed in range(3):
        keeper, pile = _game_table(seed, 40)
        grid = keeper.grid
        hand = pile[:4]
        hints = legal_plays(grid, hand)
        if hints:
            placements = dict(hints[0].placements)
            rule = _time(lambda g=grid, p=placements: play_cards(g, p), 50)
            rows.append(("ruling", len(grid), statistics.median(rule)))
        for label, h in (
            ("hint, no wild card", hand),
            ("hint, 1 wild card", hand[:3] + [WILD]),
            ("hint, 2 wild cards", hand[:2] + [WILD, WILD]),
        ):
            times = _time(lambda g=grid, h=h: legal_plays(g, h), 3)
            rows.append((label, len(grid), statistics.median(times)))
    print(f"{'what':22} {'cards':>5} {'median ms':>10}")
    for label, n, seconds in rows:
        print(f"{label:22} {n:5d} {seconds * 1000:10.2f}")
    worst = {}
    for label, _, seconds in rows:
        worst[label] = max(worst.get(label, 0.0), seconds)
    goals = {
        "ruling": 0.005,
        "hint, no wild card": 0.1,
        "hint, 1 wild card": 0.3,
        "hint, 2 wild cards": 0.3,
    }
    for label, goal in goals.items():
        got = worst.get(label, 0.0)
        verdict = "ok" if got <= goal else "OVER GOAL"
        print(f"worst {label}: {got * 1000:.1f} ms (goal {goal * 1000:.0f} ms) {verdict}")


if __name__ == "__main__":
    main()
