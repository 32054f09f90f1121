"""A finished game's outcome as a tournament counts it: who played which colour, who won, and the
points its spread is made of. Pure functions over the record a table sends (docs/tournament.md,
"The result record"); no I/O.

Readings chosen (documented in docs/tournament.md, "Standings"):

- The players are ``record["players"]`` as ``{"blue": NAME, "red": NAME}``; a list of two names
  (Iota's, Wordinoes' own records) is read as ``[blue, red]``; else the table's ``settings`` or
  ``result`` ``blue``/``red`` fields.
- The winner and loser are colours (``"blue"``/``"red"``); a record that names a player instead
  is mapped to that player's colour. A record with only a loser has the other colour as winner.
  ``draw: true`` (Wordinoes' tie on tiles held) has neither.
- The points of the spread, higher is better, per colour:
  Iago: the allowance in minutes each player holds at the end (``minutes``; a loss on time leaves
  the loser 0 and the winner the whole 2 x the time control, so the spread of a game lost on time
  is the total time, and an abandoned game the director decides counts the minutes as they stood);
  Iota: the scores; Wordinoes: minus the tiles each still holds (the spread is the number of tiles
  the loser was left with beyond the winner's).
- A director's correction (``{"winner": c}``, ``{"loser": c}``, ``{"draw": true}``, ``{"void":
  true}``, ``{"void": false}``, ``{"accept": true|false}``) is applied in the order given; a void
  game counts for no one.
- A result counts only when it matches the set-up its table was given for its round
  (:func:`setup_mismatch`: the round, the players, the game); anything else is held, listed but
  not counted, until the director accepts it (``{"accept": true}``).
"""

from __future__ import annotations

from companion.errors import CompanionError
from companion.names import player_name

COLOURS = ("blue", "red")
POINTS_MAX = 9999  # a colour's points in one game, either sign: above any real game's (Iago's
# 2 x 99 minutes; a crossword game's record score is under 1,000, Iota's a few hundred), so a
# forged 1.7e308 can never make a spread infinite; a value beyond it is no value


class CorrectionError(CompanionError, ValueError):
    """A director's correction that cannot be applied: names the change and what is accepted."""


def other(colour: str) -> str:
    """The opponent's colour."""
    return "red" if colour == "blue" else "blue"


def players(record: dict) -> dict[str, str | None]:
    """``{"blue": NAME|None, "red": NAME|None}`` from a result record (see module docstring)."""
    found = record.get("players")
    if isinstance(found, dict):
        return {c: _name(found.get(c)) for c in COLOURS}
    if isinstance(found, list) and len(found) == 2:
        return {"blue": _name(found[0]), "red": _name(found[1])}
    for key in ("settings", "result"):
        part = record.get(key)
        if isinstance(part, dict) and (part.get("blue") or part.get("red")):
            return {c: _name(part.get(c)) for c in COLOURS}
    return {"blue": None, "red": None}


def _name(value: object) -> str | None:
    return player_name(value) if isinstance(value, str) and value.strip() else None


def _colour(value: object, names: dict[str, str | None]) -> str | None:
    if value in COLOURS:
        return str(value)
    for colour, name in names.items():
        if name is not None and value == name:
            return colour
    return None


def decided(record: dict) -> dict:
    """The outcome the table recorded: ``{"winner": colour|None, "loser": colour|None,
    "draw": bool}`` (a record's top-level fields first, then its ``result``)."""
    names = players(record)
    sources = [record] + ([record["result"]] if isinstance(record.get("result"), dict) else [])
    winner = loser = None
    draw = False
    for part in sources:
        winner = winner or _colour(part.get("winner"), names)
        loser = loser or _colour(part.get("loser"), names)
        draw = draw or part.get("draw") is True
    if winner is None and loser is not None:
        winner = other(loser)
    if loser is None and winner is not None:
        loser = other(winner)
    if winner is not None:
        draw = False
    return {"winner": winner, "loser": loser, "draw": draw}


def check_change(change: object) -> dict:
    """Validate a director's correction; returns it as a plain dict.

    Accepted: ``{"winner": "blue"|"red"}``, ``{"loser": "blue"|"red"}``, ``{"draw": true}``,
    ``{"void": true|false}``, ``{"accept": true|false}`` (a held result counted, or no longer),
    optionally with ``"note"`` text.

    Raises:
        CorrectionError: anything else, naming the change.
    """
    accepted = (
        'accepted: {"winner": "blue"|"red"}, {"loser": "blue"|"red"}, {"draw": true}, '
        '{"void": true|false} or {"accept": true|false}'
    )
    if not isinstance(change, dict):
        raise CorrectionError(f"correction {change!r} is not an object; {accepted}")
    keys = set(change) - {"note"}
    if len(keys) != 1:
        raise CorrectionError(f"correction {change!r} must change one thing; {accepted}")
    (key,) = keys
    value = change[key]
    if (
        (key in ("winner", "loser") and value in COLOURS)
        or (key == "draw" and value is True)
        or (key in ("void", "accept") and isinstance(value, bool))
    ):
        return dict(change)
    raise CorrectionError(f"correction {change!r}: bad {key!r}; {accepted}")


def effective(record: dict, changes: list[dict]) -> dict:
    """The outcome after the director's corrections, in order: ``{"winner", "loser", "draw",
    "void", "accepted"}`` (colours or None, bools; ``accepted``: the director counts it even if
    it matches no set-up)."""
    out = {**decided(record), "void": False, "accepted": False}
    for change in changes:
        if "winner" in change:
            out.update(winner=change["winner"], loser=other(change["winner"]), draw=False)
        elif "loser" in change:
            out.update(loser=change["loser"], winner=other(change["loser"]), draw=False)
        elif change.get("draw") is True:
            out.update(winner=None, loser=None, draw=True)
        elif "void" in change:
            out["void"] = bool(change["void"])
        elif "accept" in change:
            out["accepted"] = bool(change["accept"])
    return out


def setup_players(setup: dict) -> dict[str, str | None]:
    """``{"blue": NAME, "red": NAME}`` of a round's set-up (its ``players``, else its ``blue``
    and ``red``; with colours drawn by lot at the table either may end up blue)."""
    found = setup.get("players")
    if isinstance(found, dict):
        return {c: _name(found.get(c)) for c in COLOURS}
    if isinstance(found, list) and len(found) == 2:
        return {"blue": _name(found[0]), "red": _name(found[1])}
    return {c: _name(setup.get(c)) for c in COLOURS}


def setup_mismatch(setup: dict | None, round_no: int | None, record: dict) -> str | None:
    """Why a result record does not match the set-up its table was given for round
    ``round_no`` (None when it matches): no round, no set-up of that round for the table,
    other players (the same two names, in either colour: colours may be drawn by lot at the
    table), a winner who is also the loser, or another game (the record's ``mode``, when it
    names one, against the set-up's ``game``). Pure; the words go on the standings page after
    "held: not in a set-up"."""
    if round_no is None:
        return "no round: the table had no set-up"
    if setup is None:
        return f"round {round_no} has no set-up for this table"
    want = setup_players(setup)
    got = players(record)
    if sorted(map(str, got.values())) != sorted(map(str, want.values())):
        return (
            f"players {got['blue'] or '?'} v {got['red'] or '?'}; round {round_no}'s set-up "
            f"has {want['blue'] or '?'} v {want['red'] or '?'}"
        )
    said = decided(record)
    if said["winner"] is not None and said["winner"] == said["loser"]:
        return f"winner and loser are both {said['winner']}"
    game = setup.get("game")
    mode = record.get("mode")
    if isinstance(mode, str) and mode and isinstance(game, str) and game and mode != game:
        return f"game {mode}; round {round_no}'s set-up is {game}"
    return _minutes_problem(setup, round_no, record)


def _minutes_problem(setup: dict, round_no: int, record: dict) -> str | None:
    """Why an Iago record's ``minutes`` cannot end a game of ``setup``'s time control (None when
    they can): each player ends holding 0 to 2 x the allowance (the differential timer moves
    minutes from one to the other; a win on time leaves the winner both allowances)."""
    allowance = setup.get("minutes")
    if setup.get("game", "iago") != "iago" or not _points_value(allowance) or allowance <= 0:
        return None
    parts = [record] + ([record["result"]] if isinstance(record.get("result"), dict) else [])
    top = 2 * allowance
    for part in parts:
        got = part.get("minutes")
        if not isinstance(got, dict):
            continue
        for colour, v in got.items():
            if not _points_value(v) or not 0 <= v <= top:
                return (
                    f"minutes {colour} {v!r}; round {round_no}'s time control gives each "
                    f"player 0 to {top:g} at the end ({allowance:g} minutes each)"
                )
    return None


def _points_value(v: object) -> bool:
    """Whether ``v`` is a colour's points a spread may count: a finite number within
    :data:`POINTS_MAX` either way."""
    import math

    return (
        isinstance(v, int | float)
        and not isinstance(v, bool)
        and math.isfinite(v)
        and abs(v) <= POINTS_MAX
    )


def points(record: dict) -> dict[str, float] | None:
    """Each colour's points for the spread (higher is better; see module docstring), or None
    when the record holds none (a value that is not a finite number within :data:`POINTS_MAX`
    is none)."""
    names = players(record)
    parts = [record] + ([record["result"]] if isinstance(record.get("result"), dict) else [])
    for key, sign in (("minutes", 1), ("scores", 1), ("totals", 1), ("held", -1)):
        for part in parts:
            got = part.get(key)
            if not isinstance(got, dict):
                continue
            out: dict[str, float] = {}
            for k, v in got.items():
                colour = _colour(k, names)
                if colour is not None and _points_value(v):
                    out[colour] = sign * float(v)
            if len(out) == 2:
                return out
    return None
