"""Replaying a Wordinoes game from a script of actions, one JSON object a line.

The first line sets the game up; each further line is one action (docs/wordinoes.md)::

    {"setup": {"players": ["Ann", "Bob"], "bag": [["POLICE", "MAN"], "LAST/WORD", ...],
               "settings": {"hand_size": 10}}}
    {"start": "Bob", "tile": ["APPLE", "PIE"]}     (only when the bag's tiles are "?", unseen)
    {"play": "Bob", "tile": ["MAN", "HOLE"], "end": "right", "corner": false}
    {"knock": "Ann"}
    {"open": "Ann", "left": ["SUN", "DOG"], "right": ["CAT", "HAT"]}
    {"end_turn": "Ann"}
    {"challenge": "Bob"}
    {"vote": "Ann", "valid": true}

Blank lines and lines starting with ``#`` are skipped. The same objects are the journal's records of
a Wordinoes game in the daemon.
"""

from __future__ import annotations

import json

from companion.errors import CompanionError
from companion.games.wordinoes.game import Game, GameError, Notice, TableSettings
from companion.textformats import loads_json, shown

ACTIONS = ("start", "play", "knock", "open", "end_turn", "challenge", "vote")


class ScriptError(CompanionError, ValueError):
    """A script line that is not JSON, not a known action, or an illegal action (named by line)."""


def setup_game(spec: object, where: str = "setup") -> Game:
    """A new game from a setup object ``{"players": [...], "bag": [...], "settings": {...}}``.

    Raises:
        ScriptError: a missing or bad field, or a game that cannot be set up.
    """
    if not isinstance(spec, dict):
        raise ScriptError(f"{where}: setup must be an object with players, bag and settings")
    unknown = sorted(set(spec) - {"players", "bag", "settings"})
    if unknown:
        raise ScriptError(
            f"{where}: unknown setup key(s) {unknown}; accepted: players, bag, settings"
        )
    players, bag = spec.get("players"), spec.get("bag")
    if not isinstance(players, list) or not isinstance(bag, list):
        raise ScriptError(
            f"{where}: setup needs players (a list of names) and bag (a list of tiles)"
        )
    settings = spec.get("settings") or {}
    if not isinstance(settings, dict):
        raise ScriptError(f"{where}: settings must be an object")
    try:
        return Game(players, bag, TableSettings.from_dict(settings))
    except GameError as exc:
        raise ScriptError(f"{where}: {exc}") from None


def apply_action(game: Game, action: object, where: str = "action") -> list[Notice]:
    """Apply one action object to ``game``; returns the notices.

    Raises:
        ScriptError: an unknown or malformed action, or one the rules forbid (the game is unchanged).
    """
    if not isinstance(action, dict):
        raise ScriptError(f"{where}: an action must be a JSON object")
    kinds = [k for k in ACTIONS if k in action]
    if len(kinds) != 1:
        raise ScriptError(f"{where}: {shown(action)} needs exactly one of {', '.join(ACTIONS)}")
    kind = kinds[0]
    who = action[kind]
    try:
        if kind == "start":
            if "tile" not in action:
                raise ScriptError(f"{where}: start needs tile")
            return game.start(who, action["tile"])
        if kind == "play":
            if "tile" not in action or "end" not in action:
                raise ScriptError(f"{where}: play needs tile and end")
            return game.play(who, action["tile"], action["end"], bool(action.get("corner", False)))
        if kind == "knock":
            return game.knock(who)
        if kind == "open":
            if "left" not in action or "right" not in action:
                raise ScriptError(f"{where}: open needs left and right tiles")
            return game.open_ends(who, action["left"], action["right"])
        if kind == "end_turn":
            return game.end_turn(who)
        if kind == "challenge":
            return game.challenge_last(who)
        if "valid" not in action:
            raise ScriptError(f"{where}: vote needs valid (true or false)")
        return game.vote(who, action["valid"])
    except GameError as exc:
        raise ScriptError(f"{where}: {exc}") from None


def replay_lines(lines: list[str], name: str = "<script>") -> Game:
    """The game after every line of a script (see the module docstring).

    Raises:
        ScriptError: bad JSON (every such line reported at once), no setup line, or an illegal
            action (the first one, by line number).
    """
    records: list[tuple[int, object]] = []
    bad = []
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            records.append((n, loads_json(text)))
        except json.JSONDecodeError as exc:
            bad.append(f"{name}:{n}: not JSON ({exc.msg})")
    if bad:
        raise ScriptError("; ".join(bad))
    if not records or not isinstance(records[0][1], dict) or "setup" not in records[0][1]:
        raise ScriptError(f'{name}: the first line must be a setup object {{"setup": {{...}}}}')
    n, first = records[0]
    game = setup_game(first["setup"], f"{name}:{n}")  # type: ignore[index]
    for n, record in records[1:]:
        apply_action(game, record, f"{name}:{n}")
    return game
