"""Pairings for a round: from a CSV file, a round robin by Berger tables, or a Swiss.

A pairing is a :class:`Pairing`: two players, the first proposed for blue, and the table they
sit at (None: the next free table, in the order given). A player with no opponent has a bye
(``red`` None): he sits out the round, and the bye counts as a win for him
(companion.tournament.standings).

- :func:`from_csv` reads ``table,blue,red`` rows (a header line is optional; an empty table cell
  takes the next number; an empty ``red`` is a bye).
- :func:`round_robin` is the FIDE Berger table for the round: every player meets every other
  once over n - 1 rounds (n players, a bye added when n is odd); the last player listed holds the
  fixed place and alternates colours round by round.
- :func:`swiss` pairs within score groups (wins, a draw half a win, a bye a win), never a rematch, the bye to
  the lowest-ranked player without one yet, colours balanced (the player who has had blue more
  often gets red; then the one who had blue last; then the higher-ranked gets blue). The pairing
  is a maximum-weight matching (networkx's ``max_weight_matching``, maximum cardinality first)
  whose weights prefer opponents of the same score (any gap of half a point outweighs every
  difference of rank), then of neighbouring rank (1 meets 2, 3 meets 4: "king of the hill", as
  word-game tournaments pair the last rounds).

Pure functions: no I/O beyond :func:`from_csv`'s reading of text, no clock.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from companion.errors import CompanionError
from companion.names import player_name

NAME_MAX = 16


class PairingError(CompanionError, ValueError):
    """Pairings that cannot be made or read; names the input (file and line) and what is
    accepted."""


@dataclass(frozen=True)
class Pairing:
    """One table of a round: ``blue`` and ``red`` players (``red`` None: a bye for ``blue``),
    ``table`` its number (None: the next free one)."""

    blue: str
    red: str | None
    table: int | None = None

    @property
    def bye(self) -> bool:
        """True when ``blue`` has no opponent this round."""
        return self.red is None


@dataclass(frozen=True)
class Game:
    """A past game for the Swiss and for balancing colours: the players by colour and the
    outcome (``winner`` a colour, or None with ``draw``; both None: no result yet)."""

    blue: str
    red: str
    winner: str | None = None
    draw: bool = False


def _check_name(name: str, where: str) -> str:
    name = player_name(name)
    if not name or len(name) > NAME_MAX or not name.isprintable():
        raise PairingError(
            f"{where}: player name {name[:40]!r}: accepted 1 to {NAME_MAX} printable characters"
        )
    return name


def check_round(pairings: Sequence[Pairing], where: str = "pairings") -> list[Pairing]:
    """Check that no player sits twice and no table is used twice.

    Raises:
        PairingError: naming every player and table used twice.
    """
    seen: dict[str, int] = {}
    tables: dict[int, int] = {}
    for p in pairings:
        for name in (p.blue, p.red):
            if name is not None:
                seen[name] = seen.get(name, 0) + 1
        if p.table is not None:
            tables[p.table] = tables.get(p.table, 0) + 1
    twice = sorted(n for n, k in seen.items() if k > 1)
    tables_twice = sorted(t for t, k in tables.items() if k > 1)
    problems = []
    if twice:
        problems.append(f"players paired twice: {', '.join(twice)}")
    if tables_twice:
        problems.append(f"tables used twice: {', '.join(map(str, tables_twice))}")
    if problems:
        raise PairingError(f"{where}: " + "; ".join(problems))
    return list(pairings)


def from_csv(text: str, name: str = "pairings.csv") -> list[Pairing]:
    """Read pairings from CSV text: ``table,blue,red`` a line (see the module docstring).

    Args:
        text: the file's contents.
        name: the file's name, for messages.

    Raises:
        PairingError: listing every bad line with its number (a table that is not 1 to 999, a
            missing or too long name, a player or table twice).
    """
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # a NUL, a field over the csv module's limit (128 KiB)
        raise PairingError(f"{name}: not CSV ({exc}); accepted: table,blue,red a line") from None
    problems: list[str] = []
    out: list[Pairing] = []
    for n, row in enumerate(rows, 1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if n == 1 and cells[0].lower() in ("table", "tables", "no", "number"):
            continue  # header
        where = f"{name}:{n}"
        if len(cells) not in (2, 3):
            problems.append(f"{where}: {len(cells)} columns; accepted: table,blue,red")
            continue
        if len(cells) == 2:
            cells.append("")
        table: int | None = None
        if cells[0]:
            try:
                table = int(cells[0])
                if not 1 <= table <= 999:
                    raise ValueError
            except ValueError:
                problems.append(f"{where}: table {cells[0]!r}: accepted 1 to 999 or empty")
                continue
        try:
            blue = _check_name(cells[1], where)
            red = _check_name(cells[2], where) if cells[2] else None
        except PairingError as exc:
            problems.append(str(exc))
            continue
        out.append(Pairing(blue, red, table))
    if not out and not problems:
        problems.append(f"{name}: no pairings; accepted: table,blue,red a line")
    try:
        check_round(out, name)
    except PairingError as exc:
        problems.append(str(exc))
    if problems:
        raise PairingError("; ".join(problems))
    return out


def _players(players: Iterable[str], where: str) -> list[str]:
    names = [_check_name(p, where) for p in players]
    twice = sorted({p for p in names if names.count(p) > 1})
    if twice:
        raise PairingError(f"{where}: players listed twice: {', '.join(twice)}")
    if len(names) < 2:
        given = f" ({', '.join(repr(n) for n in names)})" if names else ""
        raise PairingError(
            f"{where}: {len(names)} player(s){given}; a round needs at least 2, the names "
            "separated by spaces (--players Ada Bob Cy) or one a line in @FILE"
        )
    return names


def round_robin(players: Sequence[str], round: int) -> list[Pairing]:
    """Round ``round`` (1 to n - 1) of the Berger tables for ``players`` (in seeding order).

    Source: the FIDE Berger tables (FIDE Handbook C.05, Annex 1): in round r the fixed player n
    meets player ``(r - 1) * n/2 mod (n - 1) + 1``, playing the first colour in even rounds;
    the other tables pair ``p + i`` (first colour) with ``p - i``, counted round 1..n-1.
    The first colour is blue. With an odd number of players the added place is a bye.

    Raises:
        PairingError: fewer than 2 players, a name twice, a round out of range.
    """
    names: list[str | None] = list(_players(players, "round robin"))
    if len(names) % 2:
        names.append(None)  # the bye
    n = len(names)
    if not 1 <= round <= n - 1:
        raise PairingError(
            f"round robin of {len(players)} players: round {round}: accepted 1 to {n - 1}"
        )

    def seat(x: int) -> str | None:
        return names[(x - 1) % (n - 1)]

    p = (round - 1) * (n // 2) % (n - 1) + 1
    fixed, other = names[n - 1], seat(p)
    pairs = [(fixed, other) if round % 2 == 0 else (other, fixed)]
    for i in range(1, n // 2):
        pairs.append((seat(p + i), seat(p - i)))
    out = []
    for a, b in pairs:
        if a is None:
            a, b = b, None
        out.append(Pairing(a, b))
    # the byes last, so the tables are numbered without a gap
    return [p for p in out if not p.bye] + [p for p in out if p.bye]


def colour_history(games: Iterable[Game]) -> dict[str, list[str]]:
    """Each player's colours in the order played."""
    out: dict[str, list[str]] = {}
    for g in games:
        out.setdefault(g.blue, []).append("blue")
        out.setdefault(g.red, []).append("red")
    return out


def balance(a: str, b: str, history: dict[str, list[str]]) -> tuple[str, str]:
    """``(blue, red)`` for two players, colours balanced: the one who has had blue more often
    (blues minus reds) gets red; then the one who had blue last gets red; else ``a`` gets blue."""

    def lean(p: str) -> int:
        h = history.get(p, [])
        return h.count("blue") - h.count("red")

    if lean(a) != lean(b):
        return (b, a) if lean(a) > lean(b) else (a, b)
    last_a = history.get(a, [None])[-1] if history.get(a) else None
    last_b = history.get(b, [None])[-1] if history.get(b) else None
    if last_a != last_b:
        if last_a == "blue" or last_b == "red":
            return b, a
        return a, b
    return a, b


def scores(players: Sequence[str], games: Iterable[Game]) -> dict[str, float]:
    """Each player's score: 1 a win, 1/2 a draw."""
    out = {p: 0.0 for p in players}
    for g in games:
        if g.draw:
            for p in (g.blue, g.red):
                out[p] = out.get(p, 0.0) + 0.5
        elif g.winner in ("blue", "red"):
            p = g.blue if g.winner == "blue" else g.red
            out[p] = out.get(p, 0.0) + 1.0
    return out


def swiss(players: Sequence[str], games: Sequence[Game], byes: Iterable[str] = ()) -> list[Pairing]:
    """The next Swiss round (see the module docstring).

    Args:
        players: every player still in the event, in ranking (seeding) order.
        games: every game played so far (with their outcomes; a pairing made whose result is
            not in yet counts as met, with no outcome).
        byes: players who have had a bye already, once per bye (each counts as a win).

    Returns:
        The pairings, highest score group first; the bye (if any) last.

    Raises:
        PairingError: a name twice, fewer than 2 players, or no pairing without a rematch.
    """
    import networkx as nx

    names = _players(players, "swiss")
    byes = list(byes)
    score = scores(names, games)
    for p in byes:  # a bye is a win (TSH, WESPA; FIDE C.04: a pairing-allocated bye)
        if p in score:
            score[p] += 1.0
    rank = {p: i for i, p in enumerate(names)}
    met = {frozenset((g.blue, g.red)) for g in games}
    had_bye = set(byes)
    bye: str | None = None
    if len(names) % 2:
        order = sorted(names, key=lambda p: (score[p], -rank[p]))  # lowest first
        bye = next((p for p in order if p not in had_bye), order[0])
        names = [p for p in names if p != bye]
    graph = nx.Graph()
    graph.add_nodes_from(names)
    # a score gap of half a point costs more than any sum of rank differences can (n*n/2)
    n = len(names)
    spread = 2 * (max(score.values()) - min(score.values())) if score else 0
    big = n * n * (spread * spread + 1) + n
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if frozenset((a, b)) in met:
                continue
            gap = round(2 * abs(score[a] - score[b]))  # in half points
            graph.add_edge(a, b, weight=big - n * n * gap * gap - abs(rank[a] - rank[b]))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(names):
        raise PairingError(
            f"swiss: no pairing of {len(names)} players without a rematch "
            f"({len(matching)} tables found); pair this round from a CSV file"
        )
    hist = colour_history(games)
    pairs = []
    for a, b in matching:
        a, b = (a, b) if rank[a] < rank[b] else (b, a)
        blue, red = balance(a, b, hist)
        pairs.append(Pairing(blue, red))
    pairs.sort(key=lambda p: (-max(score[p.blue], score[p.red]), min(rank[p.blue], rank[p.red])))
    if bye is not None:
        pairs.append(Pairing(bye, None))
    return pairs


def games_from_results(results: Iterable[dict]) -> list[Game]:
    """The games of the store's results (:meth:`companion.tournament.store.Store.results`),
    void and held ones left out, for :func:`swiss` and :func:`balance`."""
    out = []
    for r in results:
        names = r.get("players") or {}
        if r.get("void") or r.get("held") or not names.get("blue") or not names.get("red"):
            continue
        out.append(Game(names["blue"], names["red"], r.get("winner"), bool(r.get("draw"))))
    return out
