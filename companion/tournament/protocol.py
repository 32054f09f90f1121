"""The tournament's MQTT topics and payloads (docs/tournament.md, "Topics and payloads").

Every topic is under the prefix ``companion/EVENT/`` (EVENT: the tournament's short name)::

    tables/N/state    table -> director, retained, QoS 1   the clock's and game's state
    tables/N/events   table -> director, QoS 1             one journal record: game, seq, record
    tables/N/result   table -> director, QoS 1             a finished game's record, until acked
    tables/N/board    table -> director, QoS 1             the board as the camera read it
    tables/N/online   table -> director, retained, QoS 1   {"online": bool, "box": id} (false: Last
                      Will; true again every 5 s, not retained: the heartbeat)
    tables/N/setup    director -> table, retained, QoS 1   the next game's set-up
    tables/N/ack      director -> table, QoS 1             {"game": G} result stored;
                                                           {"game": G, "events": n} events 1..n

:func:`decode` checks a table's message against its topic and raises :class:`ProtocolError`
(naming the topic and the problem) for anything malformed, oversized or on another table's
topic; the director logs and drops it.
"""

from __future__ import annotations

import json
import math
import re

from companion.errors import CompanionError
from companion.names import is_safe_name
from companion.textformats import is_number, loads_json, may_hold_surrogates, shown, valid_text

EVENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
TABLE_MAX = 999
FROM_TABLE = ("state", "events", "result", "board", "online")
TO_TABLE = ("setup", "ack")
MAX_BYTES = {
    "state": 16_384,
    "events": 65_536,
    "board": 4_096,
    "online": 256,
    "result": 1_048_576,
    "setup": 16_384,
    "ack": 1_024,
}
"""The largest payload accepted per kind, in bytes (the broker's own limit is the largest)."""
BROKER_MAX_BYTES = 2 * 1_048_576
INT_RANGE = (-(2**63), 2**63 - 1)
"""The whole numbers a message may hold: SQLite's INTEGER (a signed 64-bit number)."""


class ProtocolError(CompanionError, ValueError):
    """A message that breaks the protocol: names the topic and what is wrong."""


def check_event(event: str) -> str:
    """The tournament's short name, checked.

    Raises:
        ProtocolError: not 1 to 32 letters, digits, ``-`` or ``_`` (starting with a letter or
            digit).
    """
    if not is_safe_name(event) or not EVENT_NAME.fullmatch(event):
        raise ProtocolError(
            f"event name {event!r}: accepted 1 to 32 letters, digits, '-' or '_' "
            "(starting with a letter or digit)"
        )
    return event


def is_event_name(event: object) -> bool:
    """Whether ``event`` passes :func:`check_event` (no exception)."""
    return isinstance(event, str) and is_safe_name(event) and bool(EVENT_NAME.fullmatch(event))


def prefix(event: str) -> str:
    """``companion/EVENT/``."""
    return f"companion/{check_event(event)}/"


def topic(prefix: str, table: int, kind: str) -> str:
    """``PREFIX tables/N/KIND``."""
    return f"{prefix}tables/{int(table)}/{kind}"


def encode(payload: object) -> bytes:
    """Compact UTF-8 JSON."""
    return json.dumps(payload, separators=(",", ":"), allow_nan=False).encode("utf-8")


def parse_topic(prefix: str, name: str) -> tuple[int, str]:
    """``(table, kind)`` of a topic under ``prefix``.

    Raises:
        ProtocolError: not ``PREFIX tables/N/KIND`` with N 1 to 999 and a known kind.
    """
    if not name.startswith(prefix):
        raise ProtocolError(f"topic {name!r}: not under {prefix!r}")
    parts = name[len(prefix) :].split("/")
    if len(parts) != 3 or parts[0] != "tables" or parts[2] not in FROM_TABLE + TO_TABLE:
        raise ProtocolError(
            f"topic {name!r}: accepted {prefix}tables/N/KIND, KIND one of "
            f"{', '.join(FROM_TABLE + TO_TABLE)}"
        )
    number = parts[1]
    if not re.fullmatch("[1-9][0-9]{0,2}", number) or not 1 <= int(number) <= TABLE_MAX:
        raise ProtocolError(f"topic {name!r}: table {parts[1]!r}: accepted 1 to {TABLE_MAX}")
    return int(parts[1]), parts[2]


def table_of(prefix: str, name: str) -> int | None:
    """The table number of a topic ``PREFIX tables/N/...`` (None for any other topic); quick,
    for every message as it arrives (:func:`parse_topic` checks the rest)."""
    head = prefix + "tables/"
    if not name.startswith(head):
        return None
    end = name.find("/", len(head))
    number = name[len(head) : end]
    if end < 0 or not (1 <= len(number) <= 3 and number.isascii() and number.isdigit()):
        return None
    if number[0] == "0":
        return None
    return int(number)


def _finite(value: object) -> bool:
    return is_number(value)  # an int too large for a float is not one


def _game(payload: dict, where: str, required: bool = True) -> str | None:
    game = payload.get("game")
    if game is None and not required:
        return None
    if not isinstance(game, str) or not GAME_ID.fullmatch(game):
        raise ProtocolError(
            f"{where}: game {game!r}: accepted a game id of 1 to 64 letters, digits, '.', ':', "
            "'-' or '_'"
        )
    return game


def decode(kind: str, table: int, raw: bytes, where: str = "message") -> dict:
    """A table's message, checked: its JSON object.

    Args:
        kind: the topic's kind (:data:`FROM_TABLE` or :data:`TO_TABLE`).
        table: the topic's table number.
        raw: the payload.
        where: the topic, for messages.

    Text is made valid on the way in: a lone surrogate (``"\\ud800"``, which UTF-8 cannot
    encode) becomes U+FFFD (:func:`companion.textformats.valid_text`), so nothing
    stored can break a page or a command.

    Raises:
        ProtocolError: oversized (over :data:`MAX_BYTES`), not UTF-8 JSON, not an object,
            a number SQLite cannot hold (a whole number outside :data:`INT_RANGE`, or one too
            large for a float such as ``1e999``), fields missing or of the wrong type, a
            ``table`` field that is not the topic's.
    """
    limit = MAX_BYTES.get(kind, 1024)
    if len(raw) > limit:
        raise ProtocolError(f"{where}: {len(raw)} bytes; accepted at most {limit} for {kind}")
    try:
        payload = loads_json(
            raw.decode("utf-8"),
            parse_constant=_no_constant,
            parse_int=_whole_number,
            parse_float=_finite_number,
        )
    except (UnicodeDecodeError, ValueError) as exc:
        what = getattr(exc, "msg", "")
        if what.startswith("the number"):  # refused by _whole_number or _finite_number
            raise ProtocolError(f"{where}: {what}") from None
        raise ProtocolError(f"{where}: not JSON ({exc})") from None
    if may_hold_surrogates(raw):
        payload = valid_text(payload)
    if not isinstance(payload, dict):
        raise ProtocolError(f"{where}: a JSON {type(payload).__name__}; accepted an object")
    if "table" in payload and payload["table"] != table:
        raise ProtocolError(
            f"{where}: says table {payload['table']!r} on table {table}'s topic; refused"
        )
    if kind == "events":
        _game(payload, where)
        seq = payload.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise ProtocolError(f"{where}: seq {seq!r}: accepted a whole number, 1 or more")
        if not isinstance(payload.get("record"), dict):
            raise ProtocolError(f"{where}: record: accepted a journal record (an object)")
    elif kind == "result":
        _game(payload, where)
        if not isinstance(payload.get("record"), dict):
            raise ProtocolError(f"{where}: record: accepted the saved game (an object)")
        rnd = payload.get("round", payload["record"].get("round"))
        if rnd is not None and (isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1):
            raise ProtocolError(f"{where}: round {rnd!r}: accepted a whole number or null")
    elif kind == "board":
        _game(payload, where, required=False)
        if not isinstance(payload.get("board"), str) or not payload["board"]:
            raise ProtocolError(f"{where}: board: accepted board notation (text)")
        if not isinstance(payload.get("trusted"), bool):
            raise ProtocolError(f"{where}: trusted: accepted true or false")
    elif kind == "online":
        if not isinstance(payload.get("online"), bool):
            raise ProtocolError(f"{where}: online: accepted true or false")
    elif kind == "ack" and "claim" in payload:  # the director: two boxes claim this table
        if not isinstance(payload["claim"], str):
            raise ProtocolError(f"{where}: claim: accepted text")
    elif kind == "ack":
        _game(payload, where)
        if "events" in payload:
            n = payload["events"]
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ProtocolError(f"{where}: events {n!r}: accepted a whole number, 0 or more")
    elif kind == "state":
        t = payload.get("t")
        if t is not None and not _finite(t):
            raise ProtocolError(f"{where}: t {t!r}: accepted seconds (a number)")
    return payload


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _whole_number(text: str) -> int:
    value = int(text)
    if not INT_RANGE[0] <= value <= INT_RANGE[1]:
        number = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} digits)"
        raise ValueError(
            f"the number {number} is out of range; accepted whole numbers from -2^63 to 2^63-1"
        )
    return value


def _finite_number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {shown(text)} is too large; accepted finite numbers")
    return value
