"""Small helpers the areas' command lines share."""

from __future__ import annotations

import argparse
import difflib
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


def nearest_choice(value: str, choices) -> str | None:
    """The choice of ``choices`` (strings) nearest to the mistyped ``value`` (any case), or None
    when none is near (difflib's ratio 0.6, as for options): ``nearest_choice("jugde", ["judge",
    "iago"]) == "judge"``."""
    names = [str(c) for c in choices]
    by_lower = {n.lower(): n for n in names}
    near = difflib.get_close_matches(value.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[near[0]] if near else None


class CompanionParser(argparse.ArgumentParser):
    """The ``companion`` command's parser, and (inherited by ``add_subparsers``) every
    sub-command's: an unknown option is reported by the sub-command it was given to, with that
    sub-command's usage and the nearest option it has (``unrecognized arguments: --lexicn (did
    you mean --lexicon?)``), exit 2. Plain argparse hands it up to ``companion``, whose usage
    names no option of the sub-command. A mistyped sub-command (at any level) or choice gets the
    nearest one the same way (``invalid choice: 'jugde' (did you mean judge?); choose from ...``).
    """

    def _check_value(self, action, value):
        """argparse's check of a value against ``action.choices`` (sub-commands are choices too),
        with a "did you mean" for a string near one of them."""
        choices = action.choices
        if choices is None or value in choices:
            return
        listed = ", ".join(map(str, choices))
        hint = ""
        if isinstance(value, str) and all(isinstance(c, str) for c in choices):
            near = nearest_choice(value, choices)
            if near is not None:
                hint = f" (did you mean {near}?)"
        raise argparse.ArgumentError(
            action, f"invalid choice: {value!r}{hint}; choose from {listed}"
        )

    def parse_known_args(self, args=None, namespace=None):
        self._given = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._suggestions(extras)}")
        return namespace, extras

    def error(self, message: str):
        """Print the usage and ``message`` (with a "did you mean" for a mistyped option, also when
        argparse stopped first at a missing argument) and exit 2."""
        if "did you mean" not in message:
            unknown = [a for a in getattr(self, "_given", []) if self._unknown_option(a)]
            hint = self._suggestions(unknown)
            if hint:
                message = f"unrecognized arguments: {' '.join(unknown)}{hint}; {message}"
        super().error(message)

    def _options(self) -> list[str]:
        return [o for action in self._actions for o in action.option_strings]

    def _unknown_option(self, arg: str) -> bool:
        if not arg.startswith("--") or arg == "--":
            return False
        name = arg.split("=", 1)[0]
        return not any(o.startswith(name) for o in self._options())

    def _suggestions(self, extras: list[str]) -> str:
        """`` (did you mean --lexicon?)`` for the mistyped options among ``extras``, else ""."""
        hints = {}
        for arg in extras:
            if not arg.startswith("-"):
                continue
            near = difflib.get_close_matches(arg.split("=", 1)[0], self._options(), n=1, cutoff=0.6)
            if near:
                hints[arg] = near[0]
        if len(hints) == 1:
            return f" (did you mean {next(iter(hints.values()))}?)"
        return (
            f" ({'; '.join(f'{a}: did you mean {o}?' for a, o in hints.items())})" if hints else ""
        )


def journal_refusal(text: str, name: str, command: str) -> str | None:
    """Why ``text`` (read from ``name``) is not a game record but a table's journal
    (``...journal.jsonl``: one JSON record a line, a ``_game`` header first), naming the record
    to give ``command`` instead (saved beside a finished game's journal as
    ``<stamp>-table<N>.json``); None when it is not a journal."""
    import json

    from companion.textformats import loads_json

    first = text.lstrip().split("\n", 1)[0]
    try:
        head = loads_json(first)
    except json.JSONDecodeError:
        return None
    if not isinstance(head, dict) or head.get("kind") != "_game" or "\n" not in text.strip():
        return None
    path = Path(name)
    if path.name.endswith(".journal.jsonl"):
        record = path.with_name(path.name.removesuffix(".journal.jsonl") + ".json")
        where = (
            f"give the game's record saved beside it: {command} {record}"
            if record.exists()
            else f"the game's record would be {record}, which is not there"
        )
    else:
        where = (
            "a game in progress has no record yet: the table saves one in the data directory's "
            f"records/ when the game ends ({command} records/<stamp>-table<N>.json)"
        )
    return f"{name} is a table's journal (one event a line), not a game record; {where}"
