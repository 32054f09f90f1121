"""Small helpers the areas' command lines share."""

from __future__ import annotations

import sys
from pathlib import Path


def read_text(arg: str, error_cls: type[Exception], what: str = "script") -> tuple[str, str]:
    """The text a command-line argument names: ``-`` for standard input, else a UTF-8 file.

    Args:
        arg: ``-`` or a file's path.
        error_cls: the error to raise (a CompanionError and ValueError of the calling area), made
            from the message alone.
        what: what the file is, for the message (``"script"``, ``"record"``).

    Returns:
        ``(text, name)``: the whole text and the name to use in messages about it (``<stdin>``
        or the path).

    Raises:
        error_cls: the file cannot be read (``cannot read script x.txt: No such file or
            directory``) or is not UTF-8 text.
    """
    if arg == "-":
        return sys.stdin.read(), "<stdin>"
    path = Path(arg)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except OSError as exc:
        raise error_cls(f"cannot read {what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise error_cls(f"{what} {path} is not UTF-8 text") from None


def read_lines(arg: str, error_cls: type[Exception], what: str = "script") -> tuple[list[str], str]:
    """:func:`read_text` split into lines (without their line ends): ``(lines, name)``."""
    text, name = read_text(arg, error_cls, what)
    return text.splitlines(), name
