"""Ruling on a full-board Iago move: goal under 1 ms (issue #4).

The board is the whole 11x11 grid filled with tiles (22 words of eleven letters, every tile
crossed twice; red leads 66 to 55), and blue's move steals row 6: four letters substituted and
the row turned (which changes four of the column words as well), giving blue the lead.
The history case keeps a :class:`GameHistory` (one step a move, as the daemon and the record
replay do); a plain list of 40 boards, recomputed at each call, is shown for comparison. Timed with a small fake lexicon (a set) and, if installed,
the table's lexicon with the real morphology; then again with a 40-board history of the game.
"""

from __future__ import annotations

import random
import statistics
import time

from companion.games.iago import Board, format_board, parse_board, rule_move
from companion.games.iago.move import GameHistory

GOAL_MS = 1.0


def full_board_move(seed: int = 4) -> tuple[Board, Board, list[Board]]:
    """(before, after, history): a full board, the move that steals row 6, and a history of 40
    boards growing to the full board one row or column at a time."""
    rng = random.Random(seed)
    n = 11
    grid = [rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n * n)]
    for i in range(6 * n, n * n):  # the lower five rows are blue's: red leads 66 to 55
        grid[i] = grid[i].upper()
    before = Board("".join(grid), n)
    after_grid = list(grid)
    row = 5
    for col in range(n):
        after_grid[row * n + col] = grid[row * n + col].upper()
    for col in (1, 4, 7, 9):  # four substitutions: an eleven-letter word allows six
        after_grid[row * n + col] = "Q" if grid[row * n + col] != "q" else "Z"
    after = Board("".join(after_grid), n)
    history = []
    cells = ["."] * (n * n)
    order = list(range(n * n))
    for k in range(40):
        for i in order[k * 3 : k * 3 + 3]:
            cells[i] = grid[i]
        history.append(Board("".join(cells), n))
    return before, after, history


def _time(fn, repeat: int = 300) -> float:
    """The median time of ``fn()`` in milliseconds."""
    fn()  # warm-up (caches, lazy imports)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples)


def main() -> None:
    before, after, history = full_board_move()
    fake = {w.text for b in (before, after) for w in b.words()}
    figures = []

    def fake_rule(hist=()):
        return rule_move(before, after, "blue", lexicon=fake, is_inflection=None, history=hist)

    r = fake_rule()
    assert r.legal, [v.code for v in r.violations]
    figures.append(("fake lexicon, no history", _time(fake_rule)))
    texts = (format_board(before), format_board(after))

    def cold_rule():  # fresh boards: nothing cached, as for one `companion iago check`
        b, a = parse_board(texts[0]), parse_board(texts[1])
        return rule_move(b, a, "blue", lexicon=fake, is_inflection=None)

    figures.append(("fake lexicon, boards parsed each time", _time(cold_rule)))
    game = GameHistory([*history, before])  # kept by the daemon, one step a move
    assert fake_rule(game).legal
    figures.append(("fake lexicon, 40-board GameHistory", _time(lambda: fake_rule(game))))
    figures.append(
        ("fake lexicon, 40 boards as a list (recomputed)", _time(lambda: fake_rule(history), 100))
    )
    try:
        from companion.lexicon import open_lexicon
        from companion.lexicon.morphology import is_inflection

        lexicon = open_lexicon(None)
    except Exception as exc:  # the bench runs without the lexicon too
        print(f"   real lexicon unavailable ({exc}); fake lexicon only")
    else:

        def real_rule():
            return rule_move(before, after, "blue", lexicon=lexicon, is_inflection=is_inflection)

        figures.append((f"lexicon {lexicon.name} + morphology", _time(real_rule)))
    for name, ms in figures:
        verdict = "ok" if ms < GOAL_MS else "OVER GOAL"
        print(
            f"   rule a full-board move, {name}: {ms:.3f} ms median (goal < {GOAL_MS} ms) {verdict}"
        )


if __name__ == "__main__":
    main()
