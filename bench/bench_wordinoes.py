"""Wordinoes: how long the match judge takes, cold and warm, and a game's bookkeeping.

Goal (issue 8): the judge answers a challenge on the OLED before the vote -- well under a second
once its sources are open (they open once per process, when the first challenge comes).
"""

from __future__ import annotations

import statistics
import time

PAIRS = [
    ("POLICE", "MAN"), ("LAST", "WORD"), ("DOG", "BONE"), ("HIGH", "LOW"), ("OVER", "OVER"),
    ("BAND", "HAND"), ("HANG", "HAND"), ("HAND", "BIND"), ("COUGH", "TOUGH"), ("SUN", "DAUGHTER"),
    ("SON", "DAUGHTER"), ("TABLE", "RIVER"), ("CUP", "SAUCER"), ("FISH", "CHIPS"), ("CAR", "ROAD"),
]  # fmt: skip
GOAL_SECONDS = 1.0


def main() -> None:
    from companion.games.wordinoes.game import Game, TableSettings
    from companion.games.wordinoes.match import MatchJudge
    from companion.lexicon import open_lexicon

    t0 = time.perf_counter()
    judge = MatchJudge(lexicon=open_lexicon())
    judge.match("POLICE", "MAN")
    cold = time.perf_counter() - t0
    print(f"first answer, sources opened (WordNet, CMUdict, definitions): {cold:.2f} s")

    times = []
    for left, right in PAIRS:
        judge2 = MatchJudge(lexicon=judge.lexicon)  # new words: nothing cached but the sources
        t = time.perf_counter()
        judge2.match(left, right)
        times.append(time.perf_counter() - t)
    worst = max(times)
    print(
        f"warm answers over {len(PAIRS)} rulebook pairs: median {statistics.median(times) * 1000:.0f}"
        f" ms, worst {worst * 1000:.0f} ms (goal < {GOAL_SECONDS * 1000:.0f} ms): "
        + ("OK" if worst < GOAL_SECONDS else "MISSED")
    )

    t = time.perf_counter()
    games = 200
    for seed in range(games):
        g = Game(["Ann", "Bob", "Cy"], ["?"] * 100, TableSettings())
        g.start("Ann", ("APPLE", "PIE"))
        for i in range(40):
            if g.status.value != "playing":
                break
            if (i + seed) % 3:
                g.play(g.turn, ("W" + chr(65 + i % 26), "X"), "right")
            else:
                g.knock(g.turn)
    per_game = (time.perf_counter() - t) / games
    print(f"bookkeeping: {per_game * 1000:.2f} ms for a game of 40 actions")


if __name__ == "__main__":
    main()
