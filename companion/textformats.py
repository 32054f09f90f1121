"""JSON and TOML read safely: whatever the text, a parse error or a value, never a traceback.

The standard library's readers fail in ways their callers do not expect on hostile text:

- ``json.loads`` and ``tomllib.loads`` raise a bare ``ValueError`` for an integer of more than
  4300 digits (CPython's limit on integer string conversion, ``sys.get_int_max_str_digits``);
- ``json.loads`` of arrays nested some thousands deep, and ``tomllib.loads`` of a few hundred,
  raise ``RecursionError``; a value nested a few hundred deep that does parse can still break
  ``repr`` and the recursive checks of its caller later;
- a JSON integer such as ``1`` followed by 400 zeros parses, but is too large for a float
  (``float()`` and ``math.isfinite()`` raise ``OverflowError``).

:func:`loads_json` and :func:`loads_toml` refuse all of these as ordinary parse errors (a
``json.JSONDecodeError`` with a position, a :class:`TomlError`) so a caller's one ``except``
clause covers every bad text. :func:`shown` quotes a value of any size for a message, and
:func:`is_number` is the check for "a finite number of reasonable size".
"""

from __future__ import annotations

import json
import math
import re
import tomllib

from companion.errors import CompanionError

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects/tables accepted (no file of ours needs more than 4)."""
MAX_DIGITS = 4000
"""The longest run of digits accepted in a number (CPython refuses more than 4300 in an int)."""

_DIGIT_RUN = re.compile(rf"\d{{{MAX_DIGITS + 1},}}", re.ASCII)


class TomlError(CompanionError, ValueError):
    """Text that is not TOML the companion reads; the message says where and why (the position
    as tomllib gives it: ``(at line 3, column 7)``)."""


def _too_deep(text: str, quotes: str) -> int | None:
    """The index of the first bracket that opens a level deeper than MAX_DEPTH, outside strings
    (``quotes``: the characters that open a string), else None."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    depth = 0
    quote = None
    escaped = False
    for i, ch in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote or (ch == "\n" and quote == "#"):
                quote = None
            continue
        if ch in quotes:
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return i
        elif ch in "]}":
            depth -= 1
    return None


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def loads_json(text: str, **options):
    """``json.loads(text, **options)``, refusing what would break it or its callers. ``text``
    may be bytes (UTF-8), as for ``json.loads``.

    Raises:
        UnicodeDecodeError: bytes that are not UTF-8 (a ``ValueError``, as from ``json.loads``).
        json.JSONDecodeError: not JSON, or nested deeper than :data:`MAX_DEPTH`, or a number of
            more than :data:`MAX_DIGITS` digits (``exc.msg``, ``exc.lineno`` and ``exc.colno``
            say what and where, as for any JSON error).
    """
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")  # UnicodeDecodeError, a ValueError, as json.loads raises
    if not isinstance(text, str):
        raise json.JSONDecodeError("not text", repr(text), 0)
    deep = _too_deep(text, '"')
    if deep is not None:
        raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} deep", text, deep)
    long_number = _DIGIT_RUN.search(text)
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as exc:  # the digit limit; nesting past the C stack
        where = long_number.start() if long_number else 0
        what = f"a number of more than {MAX_DIGITS} digits" if long_number else str(exc)
        raise json.JSONDecodeError(what, text, where) from None


def loads_toml(text: str) -> dict:
    """``tomllib.loads(text)``, refusing what would break it or its callers.

    Raises:
        TomlError: not TOML (tomllib's message, with line and column), arrays or tables nested
            deeper than :data:`MAX_DEPTH`, or a number of more than :data:`MAX_DIGITS` digits.
    """
    if not isinstance(text, str):
        raise TomlError("not text")
    deep = _too_deep(text, "\"'#")
    if deep is not None:
        line, col = _position(text, deep)
        raise TomlError(f"nested more than {MAX_DEPTH} deep (at line {line}, column {col})")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlError(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        long_number = _DIGIT_RUN.search(text)
        if long_number is None:
            raise TomlError(str(exc)) from None
        line, col = _position(text, long_number.start())
        raise TomlError(
            f"a number of more than {MAX_DIGITS} digits (at line {line}, column {col})"
        ) from None


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters (``'aaaa...' (5000 characters)``), for
    messages that quote a value of any size or depth; never raises."""
    try:
        if isinstance(value, int) and value.bit_length() > 3 * limit:
            return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
        text = repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__} too large to show"
    if len(text) <= limit:
        return text
    size = f" ({len(value)} characters)" if isinstance(value, str) else ""
    return text[: limit - 3] + "..." + size


def is_number(value: object, lo: float = -math.inf, hi: float = math.inf) -> bool:
    """True for an int or float (not a bool) that is finite and from ``lo`` to ``hi``; an int
    too large for a float is False, never an ``OverflowError``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        f = float(value)
    except OverflowError:
        return False
    return math.isfinite(f) and lo <= f <= hi


_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"
"""U+FFFD REPLACEMENT CHARACTER, put where text held a lone surrogate (Unicode 15, section 3.9:
a lone surrogate is ill-formed in every encoding form, so UTF-8 cannot encode it)."""


def valid_text(value):
    """``value`` (JSON data: dicts, lists, text, numbers) with every lone surrogate in its text,
    keys included, replaced by U+FFFD, so the whole can be encoded as UTF-8 (a page, a CSV file,
    SQLite). JSON text may escape one (``"\\ud800"``) and ``json.loads`` keeps it; a valid pair
    decodes to one character and is kept. Returns the same object when nothing changes."""
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {valid_text(k): valid_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [valid_text(v) for v in value]
    return value


def may_hold_surrogates(text: str | bytes) -> bool:
    """Whether JSON ``text`` escapes a surrogate (``\\ud800`` to ``\\udfff``): only then can its
    data hold a lone one (UTF-8 cannot carry one unescaped)."""
    if isinstance(text, bytes | bytearray):
        return _ESCAPED_SURROGATE_BYTES.search(text) is not None
    return _ESCAPED_SURROGATE.search(text) is not None


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPED_SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
"""The first characters that make a spreadsheet read a cell as a formula: OWASP's CSV Injection
list (``=`` ``+`` ``-`` ``@``, tab, carriage return), line feed, and their full-width forms."""


def spreadsheet_safe(cell: object) -> object:
    """A CSV cell that no spreadsheet runs as a formula: text starting with one of
    :data:`FORMULA_STARTS` gets a leading ``'`` (OWASP, "CSV Injection": prepend a single
    quote), so ``=HYPERLINK(...)`` shows as the text it is. Numbers and other values are
    returned as they are (a spread of -3 stays a number)."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell
