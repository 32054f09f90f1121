"""The director's forms read and checked: a round to pair, a result to correct.

Every problem of a form is reported at once, each naming the field, what was given and what is
accepted (:class:`FormError`); the page shows them and nothing changes.
"""

from __future__ import annotations

import time

from companion.errors import CompanionError

ROUND_FIELDS = (
    "round",
    "method",
    "players",
    "colours",
    "game",
    "minutes",
    "minute_seconds",
    "lexicon",
    "bye_spread",
    "challenge",
    "challenge_points",
    "overtime_points",
)
METHODS = {"csv": "from a CSV file", "robin": "round robin", "swiss": "Swiss"}
COLOURS = {"lot": "by lot", "balanced": "balanced", "fixed": "as paired"}
GAMES = ("iago", "iota", "wordinoes", "scrabble")
CHALLENGES = {
    "double": "double: a wrong challenge loses the challenger's turn",
    "points": "points: a wrong challenge gives the player challenged points",
}
"""The crossword game's challenge rules (companion.daemon.config ``challenge``)."""
SCRABBLE_POINTS_MAX = 100  # a wrong challenge's or an overtime minute's points: the table's
# own limit ([table] challenge_points, overtime_points: 0 to 100)
CHANGES = {
    "winner-blue": ({"winner": "blue"}, "blue won"),
    "winner-red": ({"winner": "red"}, "red won"),
    "draw": ({"draw": True}, "a draw"),
    "void": ({"void": True}, "void: counts for no one"),
    "unvoid": ({"void": False}, "not void any more"),
    "accept": ({"accept": True}, "accept a held result: count it"),
    "unaccept": ({"accept": False}, "hold it again: not counted"),
}
TEXT_MAX = 200
CSV_MAX_BYTES = 256 * 1024


class FormError(CompanionError, ValueError):
    """A form with bad input: ``problems`` lists each, naming the field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


def _text(form, key: str) -> str:
    value = form.get(key)
    return value.strip() if isinstance(value, str) else ""


def _whole(form, key: str, label: str, lo: int, hi: int, problems: list[str]) -> int | None:
    raw = _text(form, key)
    try:
        value = int(raw)
    except ValueError:
        problems.append(f"{label}: {raw!r} is not a whole number; accepted {lo} to {hi}")
        return None
    if not lo <= value <= hi:
        problems.append(f"{label}: {value} is out of range; accepted {lo} to {hi}")
        return None
    return value


def _number(form, key: str, label: str, lo: float, hi: float, problems: list[str]):
    raw = _text(form, key)
    try:
        value = float(raw)
    except ValueError:
        problems.append(f"{label}: {raw!r} is not a number; accepted {lo:g} to {hi:g}")
        return None
    if not lo <= value <= hi:
        problems.append(f"{label}: {value:g} is out of range; accepted {lo:g} to {hi:g}")
        return None
    return value


def _choice(form, key: str, label: str, choices, problems: list[str]) -> str | None:
    raw = _text(form, key)
    if raw not in choices:
        problems.append(f"{label}: {raw!r}: accepted {', '.join(choices)}")
        return None
    return raw


def known_players(standings: list[dict], setups: dict) -> list[str]:
    """The players the director has seen: the standings' order first, then the current round's
    set-ups' players not yet in them."""
    names = [s["player"] for s in standings]
    for setup in setups.values():
        for colour in ("blue", "red"):
            name = (setup.get("players") or {}).get(colour) or setup.get(colour)
            if name and name not in names:
                names.append(name)
    return names


def round_defaults(current: int | None, players: list[str], last: dict | None = None) -> dict:
    """The round form's values before the director types anything: the next round, and the
    last round's players, game, time control and word list (``last``: one of its set-ups) so
    nothing is silently reset; the usual ones before any round."""
    last = last or {}
    seconds = last.get("minute_seconds", 60)
    return {
        "round": str((current or 0) + 1),
        "method": "swiss" if current else "robin",
        "players": "\n".join(players),
        "colours": str(last.get("colours") or "lot"),
        "game": str(last.get("game") or "iago"),
        "minutes": str(last.get("minutes") or 5),
        "minute_seconds": f"{seconds:g}" if isinstance(seconds, int | float) else "60",
        "lexicon": str(last.get("lexicon") or ""),
        "bye_spread": "",
        # the crossword game's rules: the last round's, else the tables' defaults
        "challenge": str(last.get("challenge") or "double"),
        "challenge_points": str(last.get("challenge_points", 5)),
        "overtime_points": str(last.get("overtime_points", 10)),
    }


def decode_upload(raw: bytes, name: str) -> str:
    """An uploaded CSV file's text (UTF-8, a byte-order mark allowed).

    Raises:
        FormError: a file larger than 256 KiB or not UTF-8 text, naming it."""
    if len(raw) > CSV_MAX_BYTES:
        raise FormError([f"CSV file {name}: {len(raw)} bytes; accepted up to {CSV_MAX_BYTES}"])
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormError(
            [
                f"CSV file {name}: not UTF-8 text (byte {exc.start}); accepted a "
                "CSV file of table,blue,red lines in UTF-8"
            ]
        ) from None


def make_draft(
    store,
    form,
    csv_text: str,
    csv_name: str,
    results: list[dict],
    rounds: dict[int, dict],
    event: str = "",
) -> dict:
    """Pair a round from the ``/round`` form and make its set-ups (nothing is written).

    Returns ``{"round", "setups": {table: set-up}, "byes": [names], "bye_spread": {name:
    spread}, "players": [the round's players in seeding order], "method", "values", "made"}``.

    Raises:
        FormError: every bad field at once; a pairing or round that cannot be made (the
            message of :mod:`companion.tournament.pairing` or ``rounds``)."""
    from companion.tournament import pairing
    from companion.tournament import rounds as rounds_mod

    problems: list[str] = []
    rnd = _whole(form, "round", "Round", 1, 999, problems)
    method = _choice(form, "method", "Pairing", tuple(METHODS), problems)
    colours = _choice(form, "colours", "Colours", tuple(COLOURS), problems)
    game = _choice(form, "game", "Game", GAMES, problems)
    minutes = _whole(form, "minutes", "Minutes (each player's allowance)", 1, 99, problems)
    minute_seconds = _number(form, "minute_seconds", "Seconds in a sand minute", 1, 600, problems)
    lexicon = _text(form, "lexicon")
    bye_spread = None
    if _text(form, "bye_spread"):
        bye_spread = _number(form, "bye_spread", "A bye's spread", -999, 999, problems)
    scrabble = {}
    if game == "scrabble":  # its rules; a field left empty keeps the tables' default
        if _text(form, "challenge"):
            scrabble["challenge"] = _choice(
                form, "challenge", "A wrong challenge", tuple(CHALLENGES), problems
            )
        for key, label in (
            ("challenge_points", "Points of a wrong challenge"),
            ("overtime_points", "Points off per minute of overtime"),
        ):
            if _text(form, key):
                scrabble[key] = _whole(form, key, label, 0, SCRABBLE_POINTS_MAX, problems)
    if lexicon and not all(c.isalnum() or c in "-_" for c in lexicon):
        problems.append(
            f"Word list: {lexicon!r}: accepted a lexicon name of letters, digits, "
            "'-' or '_' (companion lexicon list), or empty for the tables' default"
        )
    players = [p.strip() for p in _text(form, "players").splitlines() if p.strip()]
    if method == "csv" and not csv_text.strip():
        problems.append("CSV file: none was chosen; accepted a file of table,blue,red lines")
    if method in ("robin", "swiss") and len(players) < 2:
        problems.append(f"Players: {len(players)} listed; a round needs at least 2 (one a line)")
    if problems:
        raise FormError(problems)
    try:
        if method == "csv":
            pairings = pairing.from_csv(csv_text, csv_name)
        elif method == "robin":
            pairings = pairing.round_robin(players, rnd)
        else:
            pairings = rounds_mod.swiss_round(store, rnd, players)
        setups = rounds_mod.make_round(
            store,
            rnd,
            pairings,
            minutes=minutes,
            minute_seconds=minute_seconds,
            game=game,
            lexicon=lexicon,
            colours=colours,
            event=event,
            scrabble=scrabble,
        )
    except ValueError as exc:  # PairingError, RoundError
        raise FormError([str(exc)]) from None
    if not setups:
        raise FormError(["The pairings seat no one at a table (byes only)."])
    values = {k: _text(form, k) for k in ROUND_FIELDS}
    return {
        "round": rnd,
        "setups": setups,
        "byes": rounds_mod.byes(pairings),
        "bye_spread": rounds_mod.bye_spreads(pairings, bye_spread, game, minutes),
        "players": rounds_mod.round_players(pairings, players if method != "csv" else []),
        "method": METHODS[method],
        "colours": COLOURS[colours],
        "values": values,
        "made": time.time(),
    }


def correction(form, results: list[dict]) -> dict:
    """A correction from the ``/standings`` form: ``{"table", "game", "change", "reason",
    "who"}``.

    Raises:
        FormError: an unknown result, an unknown change, a missing or too long reason or
            who, every one at once."""
    problems: list[str] = []
    key = _text(form, "result")
    known = {f"{r['table']}:{r['game']}": r for r in results}
    if key not in known:
        shown = key or "(none chosen)"
        problems.append(f"Result: {shown} is not a stored result; choose one from the list")
    change = _text(form, "change")
    if change not in CHANGES:
        problems.append(
            f"Change: {change or '(none chosen)'!s}: accepted "
            + ", ".join(text for _, text in CHANGES.values())
        )
    reason, who = _text(form, "reason"), _text(form, "who")
    for label, value in (("Reason", reason), ("Who", who)):
        if not value:
            problems.append(f"{label}: required (a correction is kept with why and by whom)")
        elif len(value) > TEXT_MAX:
            problems.append(f"{label}: {len(value)} characters; accepted up to {TEXT_MAX}")
    if problems:
        raise FormError(problems)
    res = known[key]
    return {
        "table": res["table"],
        "game": res["game"],
        "change": dict(CHANGES[change][0]),
        "reason": reason,
        "who": who,
    }
