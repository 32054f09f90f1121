"""The table's configuration: config_dir()/table.toml, section ``[table]``.

Keys (all optional; the defaults are the rulebook's):

    [table]
    number = 7                 # table number, 1 to 999
    blue = "Ada"               # the player with the blue tiles (1 to 16 characters)
    red = "Bob"                # the player with the red tiles
    drawn_by_lot = false       # true when ``companion table setup --lot`` drew the colours
    minutes = 5                # each player's allowance in minutes, 1 to 99 (rulebook: 5)
    minute_seconds = 60.0      # the sand minute in seconds, 1 to 600 (rulebook: 60; the one
                               # range of companion.clock.timer.MIN/MAX_MINUTE_SECONDS)
    lexicon = "scowl-70-both"  # a lexicon (companion lexicon list: SCOWL or imported); absent: the default
    game = "iago"              # the game mode the table service runs: iago, iota, wordinoes or
                               # scrabble (the classic crossword game: minutes is each player's
                               # own time, 25 when table setup --game scrabble is not told)
    challenge = "double"       # scrabble: what a wrong challenge costs: double (the challenger's
                               # turn) or points (challenge_points for the player challenged)
    challenge_points = 5       # scrabble: points of a wrong challenge under "points", 0 to 100
    overtime_points = 10       # scrabble: points off for each minute or part of overtime, 0 to 100
    round = 2                  # a tournament's round (written by companion link); absent or 0: none
    page = "http://10.42.0.1:8080/table/7"  # this table's page on the director's pages (written
                               # by companion link); the ready screen shows it as a QR code

Bad configuration gets one :class:`TableConfigError` listing every bad key with its range. Other
sections of the file (``[wordinoes]``...) belong to other areas and are kept when
:func:`save_table` rewrites ``[table]``.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from companion.clock.timer import MAX_MINUTE_SECONDS, MIN_MINUTE_SECONDS
from companion.errors import CompanionError
from companion.names import ACCEPTED as SAFE_NAME_ACCEPTED
from companion.names import SAFE_NAME, name_key, player_name
from companion.paths import config_dir
from companion.textformats import TomlError, loads_toml, shown

NAME_MAX = 16
LEXICON_NAME = SAFE_NAME
"""A lexicon's name becomes a file name in the data directory: :data:`companion.names.SAFE_NAME`."""
GAME_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}")
PAGE_URL = re.compile(r"https?://[A-Za-z0-9.:\[\]-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~%/-]*)?")
"""A table page's address: http or https, a host (name, IPv4 or [IPv6]) and port, a plain path."""
PAGE_MAX = 120  # characters: a QR code that a 64-pixel-high OLED draws with 2-pixel modules
GAMES = ("iago", "iota", "wordinoes", "scrabble")
"""The games a table can keep: ``[table] game``. Each has its table mode in
:mod:`companion.daemon.modes` (its ``MODES`` registry has exactly these names)."""
KEYS = (
    "number",
    "blue",
    "red",
    "drawn_by_lot",
    "minutes",
    "minute_seconds",
    "lexicon",
    "game",
    "round",
    "page",
    "challenge",
    "challenge_points",
    "overtime_points",
)
SCRABBLE_MINUTES = 25
"""The crossword game's own time per player when the set-up does not say (WESPA and NASPA
tournaments' usual control); ``minutes`` carries it."""
CHALLENGE_RULES = ("double", "points")
SCRABBLE_DEFAULTS = {"challenge": "double", "challenge_points": 5, "overtime_points": 10}


class TableConfigError(CompanionError, ValueError):
    """Table configuration that cannot be used; the message lists every bad key and its range."""


@dataclass(frozen=True)
class TableConfig:
    """A validated table set-up. Times in seconds, allowances in minutes."""

    number: int = 1
    blue: str = "Blue"
    red: str = "Red"
    drawn_by_lot: bool = False
    minutes: int = 5
    minute_seconds: float = 60.0
    lexicon: str = ""  # "" is the lexicon's default list
    game: str = "iago"
    round: int = 0  # a tournament's round (companion link writes it with the set-up); 0: none
    page: str = ""  # this table's page on the director's pages (companion link); "": none
    challenge: str = "double"  # scrabble: double or points
    challenge_points: int = 5  # scrabble: a wrong challenge's points under "points"
    overtime_points: int = 10  # scrabble: points per minute or part of overtime

    def name_of(self, colour: str) -> str:
        """The player's name for ``colour`` ("blue" or "red")."""
        return self.blue if colour == "blue" else self.red

    def to_dict(self) -> dict:
        """The keys as written in ``[table]``."""
        return asdict(self)


def table_path() -> Path:
    """config_dir()/table.toml."""
    return config_dir(create=False) / "table.toml"


def validate(
    values: dict,
    source: str = "table.toml",
    check_names: bool = True,
    options: dict[str, str] | None = None,
) -> TableConfig:
    """Check ``values`` (the ``[table]`` keys) and return a :class:`TableConfig`.

    Args:
        values: the ``[table]`` keys.
        source: where they come from, for the message.
        options: the keys given on the command line, each with the option it was given by
            (``{"game": "--game"}``): a bad one is named as typed (``--game chess``), not as a
            key of ``source`` (which then names only the bad keys of the file).
        check_names: also check that ``game`` is one of :data:`GAMES` and ``lexicon`` a lexicon that can be opened
            (a SCOWL name or an imported list, :func:`companion.lexicon.canonical_name`; stored
            by its full name, ``scowl-80`` -> ``scowl-80-both``). A journal's header is read with
            False: a game in progress survives a list removed since it began.

    Raises:
        TableConfigError: every unknown or bad key at once, each with what is accepted.
    """
    options = options or {}
    errors: list[str] = []  # the file's keys (``source``)
    typed: list[str] = []  # the command line's options

    def bad(key: str, what: str) -> None:
        """Report key ``key`` with ``what`` is wrong and accepted (``": accepted 1 to 99"``)."""
        if key in options:
            typed.append(f"{options[key]} {_typed(values[key])}{what}")
        else:
            errors.append(f"[table] {key} = {_shown(values[key])}{what}")

    out: dict = {}
    for key in values:
        if key not in KEYS:
            errors.append(f"[table] {key}: unknown key; accepted keys: {', '.join(KEYS)}")

    def number(key: str, lo: float, hi: float, whole: bool) -> None:
        if key not in values:
            return
        v = values[key]
        kind_ok = isinstance(v, int) if whole else isinstance(v, int | float)
        if isinstance(v, bool) or not kind_ok or not (lo <= v <= hi):
            what = "a whole number" if whole else "a number"
            bad(key, f": accepted {what} from {lo:g} to {hi:g}")
        else:
            out[key] = v if whole else float(v)

    def text(key: str, pattern: re.Pattern | None, accepted: str) -> None:
        if key not in values:
            return
        v = values[key]
        if key in ("lexicon", "page") and v == "":
            out[key] = ""  # the lexicon's default list; no page
            return
        ok = isinstance(v, str) and v.strip() != ""
        if ok and pattern is not None:
            ok = bool(pattern.fullmatch(v.strip()))
        if ok and pattern is None:  # a player's name: composed (NFC), as everywhere
            ok = len(player_name(v)) <= NAME_MAX and v.isprintable()
        if not ok:
            bad(key, f": accepted {accepted}")
        else:
            out[key] = v.strip() if pattern is not None else player_name(v)

    number("number", 1, 999, True)
    number("minutes", 1, 99, True)
    number("minute_seconds", MIN_MINUTE_SECONDS, MAX_MINUTE_SECONDS, False)
    number("round", 0, 999, True)
    number("challenge_points", 0, 100, True)
    number("overtime_points", 0, 100, True)
    if "challenge" in values:
        if values["challenge"] in CHALLENGE_RULES:
            out["challenge"] = values["challenge"]
        else:
            bad("challenge", f": accepted {' or '.join(CHALLENGE_RULES)}")
    name_rule = f"a name of 1 to {NAME_MAX} printable characters"
    text("blue", None, name_rule)
    text("red", None, name_rule)
    text(
        "lexicon",
        LEXICON_NAME,
        f"a lexicon name (companion lexicon list): {SAFE_NAME_ACCEPTED}",
    )
    text("game", GAME_NAME, f"a game mode: {', '.join(GAMES)}")
    if isinstance(values.get("page"), str) and len(values["page"]) > PAGE_MAX:
        errors.append(
            f"[table] page: {len(values['page'])} characters; accepted at most {PAGE_MAX}"
        )
    else:
        text(
            "page",
            PAGE_URL,
            "an http:// or https:// address such as 'http://10.42.0.1:8080/table/7', or \"\"",
        )
    if check_names:
        _check_names(values, out, bad)
    if "drawn_by_lot" in values:
        if isinstance(values["drawn_by_lot"], bool):
            out["drawn_by_lot"] = values["drawn_by_lot"]
        else:
            errors.append(
                f"[table] drawn_by_lot = {_shown(values['drawn_by_lot'])}: accepted true or false"
            )
    if "blue" in out and "red" in out and name_key(out["blue"]) == name_key(out["red"]):
        given = sorted({options[k] for k in ("blue", "red") if k in options})
        (typed if given else errors).append(
            f"{'/'.join(given) or '[table]'}: blue and red are both {out['blue']!r}"
            + (
                ""
                if out["blue"] == out["red"]
                else f" (red {out['red']!r}: one name, case and spaces aside)"
            )
            + ": accepted two different names"
        )
    if errors or typed:
        raise TableConfigError(
            "; ".join(typed + ([f"{source}: " + "; ".join(errors)] if errors else []))
        )
    return TableConfig(**out)


def _typed(value) -> str:
    """A value as it is typed after its option (``chess``, ``'bad name!'``, ``0.5``, ``60``)."""
    if isinstance(value, str):
        if re.fullmatch(r"[\w-]+", value):
            return value  # a plain word as typed
        return "'" + value.replace("'", "'\"'\"'") + "'"  # quoted as a shell would take it
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _shown(value) -> str:
    """A value as it is written in TOML (``true``, ``'five'``, ``3``), not as Python shows it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return shown(value)  # a TOML literal string when it has no quote
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, int):
        return shown(value)
    return str(value)


def _check_names(values: dict, out: dict, bad) -> None:
    """Report (``bad(key, what)``) a ``game`` that is not a registered mode and a ``lexicon``
    that names no lexicon; put the lexicon's full name in ``out``."""
    game = out.get("game")
    if game is not None and game not in GAMES:
        bad("game", f": no such game mode; accepted: {', '.join(sorted(GAMES))}")
    lexicon = out.get("lexicon")
    if lexicon:
        from companion.lexicon import LexiconError, LexiconNotFound, canonical_name

        try:
            out["lexicon"] = canonical_name(lexicon)
        except LexiconNotFound:
            bad("lexicon", f": {_lexicon_choices()}")
        except LexiconError:
            pass  # a well-formed SCOWL name while SCOWL is not installed: opening says so


def _lexicon_choices() -> str:
    """What a lexicon name may be, with the imported lists there are."""
    from companion.lexicon import scowl, store

    sizes = ", ".join(map(str, scowl.SIZES))
    text = (
        "no such lexicon; accepted: scowl-SIZE[-american|-british|-both] with SIZE one of "
        f"{sizes}, an imported list (companion lexicon list)"
    )
    try:
        imported = [d["name"] for d in store.available() if d["kind"] == "imported"]
    except (OSError, store.LexiconError):
        imported = []
    text += f": {', '.join(imported)}" if imported else " (none imported yet)"
    return text + ', or "" for the default'


REPLACE_HINT = "'companion table setup --replace [OPTIONS]' (keeps nothing of the old file)"


def read_table_values(path: Path | str | None = None) -> dict:
    """The ``[table]`` keys of ``path`` (default :func:`table_path`) as written, unchecked;
    ``{}`` when the file is absent.

    Raises:
        TableConfigError: the file cannot be read or is not TOML, or ``[table]`` is not a table.
    """
    path = Path(path) if path is not None else table_path()
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TableConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise TableConfigError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); fix the file by hand, "
            f"or delete it, or start it afresh with {REPLACE_HINT}"
        ) from None
    return table_values_from_text(text, str(path))


def table_values_from_text(text: str, source: str = "table.toml") -> dict:
    """The ``[table]`` keys of the TOML ``text`` as written, unchecked (``source`` names it in
    messages); ``{}`` when it has no ``[table]``.

    Raises:
        TableConfigError: not TOML (including a number of thousands of digits and arrays nested
            hundreds deep), or ``[table]`` is not a table.
    """
    try:
        raw = loads_toml(text)
    except TomlError as exc:
        raise TableConfigError(
            f"{source}: not valid TOML: {exc}; fix the file by hand, or delete it, or start it "
            f"afresh with {REPLACE_HINT}"
        ) from None
    table = raw.get("table", {})
    if not isinstance(table, dict):
        raise TableConfigError(f"{source}: [table] must be a table of keys")
    return table


def load_table(path: Path | str | None = None) -> TableConfig:
    """Read the table's configuration (default :func:`table_path`); defaults when it is absent.
    The game and the lexicon must exist (see :func:`validate`).

    Raises:
        TableConfigError: unreadable or invalid file (every bad key at once).
    """
    path = Path(path) if path is not None else table_path()
    return validate(read_table_values(path), str(path))


def draw_colours(first: str, second: str, rng: random.Random | None = None) -> tuple[str, str]:
    """Draw colours by lot (rulebook, "How to Play": players choose colours or draw by lot).

    Returns ``(blue, red)``: the two names in drawn order.
    """
    rng = rng or random.SystemRandom()
    return (first, second) if rng.random() < 0.5 else (second, first)


def dump_table(config: TableConfig) -> str:
    """The TOML text of ``config`` under ``[table]``."""
    lines = ["# Table Companion: this table's set-up (companion table setup)", "[table]"]
    for key, value in config.to_dict().items():
        if key in ("lexicon", "round", "page") and not value:
            continue
        if (
            key in SCRABBLE_DEFAULTS
            and value == SCRABBLE_DEFAULTS[key]
            and config.game != "scrabble"
        ):
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str):
            text = json.dumps(value, ensure_ascii=False)
        else:
            text = repr(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


_HEADER = re.compile(r"^\s*\[")  # a table header line: [name] or [[name]]
_TABLE_HEADER = re.compile(r"^\s*\[\s*table\s*\]\s*(#.*)?$")


def merge_table(old: str, config: TableConfig) -> str:
    """``old`` TOML text with its ``[table]`` section replaced by ``config``'s (appended when it
    has none); every other section, and comments outside ``[table]``, kept as written.

    Raises:
        TableConfigError: ``old`` is not TOML, or the other sections would not survive the
            rewrite (a header-like line inside a multi-line string): nothing is written.
    """
    block = dump_table(config).splitlines(keepends=True)[1:]  # without the comment line
    lines = old.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    start = next((i for i, line in enumerate(lines) if _TABLE_HEADER.match(line)), None)
    if start is None:
        if not lines:
            return dump_table(config)
        new = [*lines, "\n", *block]
    else:
        end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
        tail = [line for line in lines[start + 1 : end] if not line.strip()][:1]  # spacing
        new = [*lines[:start], *block, *tail, *lines[end:]]
    text = "".join(new)
    try:
        before = {k: v for k, v in loads_toml(old).items() if k != "table"}
        after = loads_toml(text)
    except TomlError as exc:
        raise TableConfigError(f"table.toml: not valid TOML: {exc}") from None
    if {k: v for k, v in after.items() if k != "table"} != before or validate(
        after.get("table", {}), check_names=False
    ) != config:
        raise TableConfigError(
            "table.toml: its other sections could not be kept while rewriting [table]; "
            "edit the file by hand"
        )
    return text


def save_table(config: TableConfig, path: Path | str | None = None, replace: bool = False) -> Path:
    """Write ``config`` as the file's ``[table]`` atomically (temporary file, then rename),
    keeping the file's other sections (see :func:`merge_table`); returns the path.
    ``replace`` writes ``[table]`` alone, keeping nothing of the old file (even when it is
    not TOML).

    Raises:
        TableConfigError: the file cannot be read, is not TOML or could not be merged.
    """
    path = Path(path) if path is not None else config_dir() / "table.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = "" if replace else path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    except (OSError, UnicodeDecodeError) as exc:
        raise TableConfigError(
            f"{path}: cannot read: {exc}; fix it or delete it, or start it afresh with "
            f"{REPLACE_HINT}"
        ) from None
    text = merge_table(old, config) if old.strip() else dump_table(config)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def updated(
    config: TableConfig | dict,
    *,
    source: str = "table setup",
    options: dict[str, str] | None = None,
    **changes,
) -> TableConfig:
    """``config`` (a set-up, or ``[table]`` keys as read from ``source``) with ``changes`` (None
    values ignored), validated as a whole, the game and lexicon names included. ``options`` names
    the command-line option each change was given by (``{"game": "--game"}``, see
    :func:`validate`): a bad change is named as the user typed it.

    Raises:
        TableConfigError: every bad key at once.
    """
    values = config.to_dict() if isinstance(config, TableConfig) else dict(config)
    given = {k: v for k, v in changes.items() if v is not None}
    values.update(given)
    named = {k: o for k, o in (options or {}).items() if k in given}
    return validate(values, source, options=named)


__all__ = [
    "TableConfig",
    "TableConfigError",
    "draw_colours",
    "dump_table",
    "load_table",
    "merge_table",
    "read_table_values",
    "save_table",
    "table_path",
    "table_values_from_text",
    "updated",
    "validate",
]
