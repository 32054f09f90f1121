"""Names that become file names: one validator for all of them (least privilege).

A lexicon name read from a game record, from table.toml or from ``--lexicon`` becomes the file
``data_dir()/lexicons/NAME.json``; a game mode's name the simulator's journal
``data_dir()/sim/GAME-journal.jsonl``; a board profile's name a calibration file. Such a name
comes from files and commands that may not be trusted (a record sent by another table), so
``../../x``, ``/etc/x``, ``a/b`` or a name with a NUL would write or read files outside the data
directory. Every such name goes through :func:`check_name` where it is read, and every path made
from one through :func:`path_in`, which also refuses a result outside its folder.

A safe name is 1 to 64 characters: ASCII letters, digits, ``_`` and ``-``, starting with a
letter or a digit (so never ``.``, ``..``, a hidden file or an option-like ``-x``).

A player's name never becomes a file name, but it is taken in at as many doors (``table setup``,
table.toml, a name typed at the table, a round's pairings, a result a table sends), and every
door cleans it the same way, with :func:`player_name`.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

from companion.errors import CompanionError

NAME_MAX = 64
SAFE_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{NAME_MAX - 1}}}")
"""A name that may become part of a file name (see the module docstring)."""
ACCEPTED = f"1 to {NAME_MAX} characters a-z, A-Z, 0-9, '_' or '-', starting with a letter or digit"


class UnsafeNameError(CompanionError, ValueError):
    """A name that cannot become a file name: it could leave its folder (``..``, ``/``) or holds
    other characters. The message names what the name is for, the name and what is accepted."""


def _quoted(name: object) -> str:
    text = repr(name)
    return text if len(text) <= 70 else text[:67] + "..."


def is_safe_name(name: object) -> bool:
    """True when ``name`` is a str matching :data:`SAFE_NAME`."""
    return isinstance(name, str) and SAFE_NAME.fullmatch(name) is not None


def check_name(name: object, what: str = "name", error: type[Exception] = UnsafeNameError) -> str:
    """``name`` itself if it is a safe name (see the module docstring).

    Args:
        name: the name as read (a record's field, a key of table.toml, an argument).
        what: what it names, for the message (``"lexicon name"``, ``"game mode"``).
        error: the error class to raise (the calling area's, e.g. ``LexiconError``); it is made
            from the message alone.

    Raises:
        error: ``name`` is not a str, is empty, too long, or holds a character other than
            letters, digits, ``_`` and ``-`` (``/``, ``.``, a space, a NUL...), or starts with
            ``_`` or ``-``.
    """
    if is_safe_name(name):
        return name  # type: ignore[return-value]
    if not isinstance(name, str):
        problem = "is not text"
    elif not name:
        problem = "is empty"
    elif len(name) > NAME_MAX:
        problem = f"is {len(name)} characters long"
    elif "/" in name or "\\" in name or ".." in name:
        problem = "could leave its folder"
    else:
        problem = "holds characters that are not accepted"
    raise error(f"{what} {_quoted(name)} {problem}; accepted: {ACCEPTED}")


def path_in(folder: Path | str, name: str, suffix: str = "", what: str = "name") -> Path:
    """``folder / (name + suffix)`` for a safe ``name``, checked to lie directly inside
    ``folder`` (``suffix`` is the caller's own, e.g. ``".words.txt"``).

    Raises:
        UnsafeNameError: ``name`` is not safe, or the path would not lie inside ``folder``.
    """
    check_name(name, what)
    folder = Path(folder)
    path = folder / f"{name}{suffix}"
    if os.path.dirname(os.path.normpath(path)) != os.path.normpath(folder):
        raise UnsafeNameError(f"{what} {_quoted(name)}: {path} is not inside {folder}")
    return path


def player_name(name: str) -> str:
    """A player's name as every part of the box takes it in: spaces at either end stripped and
    the text composed to Unicode NFC, so ``José`` typed with a precomposed é (U+00E9) and with
    ``e`` and a combining acute accent (U+0301) is one name, stored and compared the same."""
    return unicodedata.normalize("NFC", name.strip())


def name_key(name: str) -> str:
    """The key under which two spellings of a player's name are one player, wherever names are
    compared (the director's standings, a table's blue and red, Iota's players): composed to
    NFC (:func:`player_name`), inner spaces collapsed, case folded, and composed again (folding
    a composed letter can leave it decomposed: Greek capital ΐ's fold). ``" ada  lovelace"``
    and ``"Ada Lovelace"`` are one; so are ``Παΐσιος`` and ``ΠΑΐΣΙΟΣ``."""
    return player_name(" ".join(player_name(str(name)).split()).casefold())
