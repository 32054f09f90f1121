"""The standings as a tournament director ranks them. Pure functions; no I/O.

Sources: TSH (the tournament program of the word-game world championships) and WESPA's rules rank
by wins (a draw half a win) then cumulative spread; a bye is a win with a fixed spread (WESPA:
+50 points; here configurable per round, ``--bye-spread``). The FIDE Swiss rules (Handbook C.04)
pair by the same score, and the FIDE tie-break regulations (C.07, "Buchholz") give the third key.

- **points**: 1 a win, 1/2 a draw, 0 a loss, 1 a bye; a void game counts for no one, nor does
  a result held as not in a set-up (until the director accepts it).
- **spread**: the sum over a player's games of his points minus his opponent's
  (:func:`companion.tournament.outcome.points`: Iago's minutes held at the end, Iota's scores,
  minus Wordinoes' tiles held), plus each bye's spread.
- **buchholz**: the sum of the points of the opponents a player met at a table (a bye adds
  nothing).
- Ranking: points, then spread, then Buchholz (each highest first), then the order the players
  were registered in (their seeding), then name.
- Every registered player has a row (0 of everything before his first game).
- A name in a result that differs from a registered player's only in case, spaces or Unicode
  composition (typed at the table, ``ada``) counts for that player (:func:`player_key`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from companion.names import name_key
from companion.tournament import outcome


def default_bye_spread(game: str, minutes: int | float) -> float:
    """A bye's spread when the director gives none: Iago's ``minutes`` (one player's allowance,
    half of what a win on time is worth); 0 for the games scored otherwise (Iota, Wordinoes)."""
    return float(minutes) if game == "iago" else 0.0


def player_key(name: str) -> str:
    """The key under which two spellings of a name are one player
    (:func:`companion.names.name_key`: NFC, case folded, spaces collapsed: ``" ada  lovelace"``
    and ``"Ada Lovelace"``; ``José`` with a precomposed é and with a combining accent). A result
    the director accepts with names typed at the table counts for the registered players these
    keys match."""
    return name_key(name)


def _whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def standings(
    results: Iterable[dict], byes: Iterable[dict] = (), registered: Sequence[str] = ()
) -> list[dict]:
    """Rank the players (see the module docstring).

    Args:
        results: the store's results (``players``, ``winner``, ``loser``, ``draw``, ``void``,
            ``record``; :meth:`companion.tournament.store.Store.results`).
        byes: ``{"player", "round", "spread"}`` one per bye given.
        registered: every player of the event in seeding order (each gets a row).

    Returns:
        ``[{"rank", "player", "played", "wins", "losses", "draws", "byes", "points", "spread",
        "buchholz"}]`` best first; ``played`` counts the games and the byes (wins + losses +
        draws); numbers that are whole are ints.
    """
    seed: dict[str, int] = {}
    rows: dict[str, dict] = {}
    opponents: dict[str, list[str]] = {}

    def row(name: str) -> dict:
        if name not in seed:
            seed[name] = len(seed)
        return rows.setdefault(
            name,
            {
                "player": name,
                "played": 0,
                "wins": 0,
                "losses": 0,
                "draws": 0,
                "byes": 0,
                "points": 0.0,
                "spread": 0.0,
                "buchholz": 0.0,
            },
        )

    for name in registered:
        row(name)
    spelled = {}  # a name as the players were registered, by its key (same_player)
    for name in registered:
        spelled.setdefault(player_key(name), name)
    for res in results:
        if res.get("void") or res.get("held"):  # held: matches no set-up, not accepted
            continue
        names = {
            colour: spelled.get(player_key(name), name) if isinstance(name, str) else name
            for colour, name in (res.get("players") or {}).items()
        }
        pts = outcome.points(res.get("record") or {}) or {"blue": 0.0, "red": 0.0}
        for colour in outcome.COLOURS:
            name = names.get(colour)
            if name is None:
                continue
            r = row(name)
            r["played"] += 1
            if res.get("winner") == colour:
                r["wins"] += 1
                r["points"] += 1.0
            elif res.get("loser") == colour:
                r["losses"] += 1
            elif res.get("draw"):
                r["draws"] += 1
                r["points"] += 0.5
            else:  # neither won nor lost: no outcome recorded, counted as played only
                r["played"] -= 1
                continue
            r["spread"] += pts[colour] - pts[outcome.other(colour)]
            opp = names.get(outcome.other(colour))
            if opp is not None:
                opponents.setdefault(name, []).append(opp)
    for bye in byes:
        r = row(bye["player"])
        r["played"] += 1
        r["wins"] += 1
        r["byes"] += 1
        r["points"] += 1.0
        r["spread"] += float(bye.get("spread") or 0.0)
    for name, r in rows.items():
        r["buchholz"] = sum(rows[o]["points"] for o in opponents.get(name, ()) if o in rows)
    ranked = sorted(
        rows.values(),
        key=lambda r: (-r["points"], -r["spread"], -r["buchholz"], seed[r["player"]], r["player"]),
    )
    for i, r in enumerate(ranked, 1):
        r["rank"] = i
        for key in ("points", "spread", "buchholz"):
            r[key] = _whole(r[key])
    return ranked
