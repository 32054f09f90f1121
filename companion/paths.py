"""Where the companion keeps its files.

- data directory (lexicon indexes, journals, game records, trained models): ``$COMPANION_DATA_DIR``,
  else systemd's ``$STATE_DIRECTORY``, else ``$XDG_DATA_HOME/companion`` (``~/.local/share/companion``).
- configuration directory (table.toml, a per-box pinmap.toml): ``$COMPANION_CONFIG_DIR``, else
  systemd's ``$CONFIGURATION_DIRECTORY``, else ``$XDG_CONFIG_HOME/companion`` (``~/.config/companion``).

Tests point both at temporary folders through the environment variables. A directory that cannot
be used (a file in the way, no permission) raises :class:`DirectoryError` naming the variable it
came from, the path and the problem.
"""

from __future__ import annotations

import os
from pathlib import Path

from companion.errors import CompanionError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""The source checkout (holds hardware/, firmware/, enclosures/ when run from a clone)."""


class DirectoryError(CompanionError, OSError):
    """The data or configuration directory cannot be used: the message names the variable that
    chose it, the path and the problem (``COMPANION_CONFIG_DIR=/x/f: not a directory``)."""


def _first(*names: str) -> tuple[str, str] | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            # systemd may pass several colon-separated directories: the first is ours
            return name, value.split(":")[0]
    return None


def _directory(names: tuple[str, str], xdg: str, default: Path, create: bool) -> Path:
    found = _first(*names)
    if found is not None:
        path = Path(found[1])
        where = f"{found[0]}={path}"
    elif os.environ.get(xdg):
        path = Path(os.environ[xdg]) / "companion"
        where = f"{path} (from {xdg})"
    else:
        path = default
        where = f"the default {path}"
    fix = f"set {names[0]} to a directory you can write"
    # the path, or the nearest of its parents that exists, must be a directory
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        what = " (it is a file)" if existing == path else f" ({existing} is a file)"
        raise DirectoryError(f"{where}: not a directory{what}; {fix}")
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = exc.strerror or str(exc)
            if isinstance(exc, NotADirectoryError | FileExistsError):
                problem = "a file is in the way of the path"
            raise DirectoryError(f"{where}: cannot create it: {problem}; {fix}") from None
    return path


def data_dir(create: bool = True) -> Path:
    """The data directory (see module docstring); created if missing unless ``create`` is False.

    Raises:
        DirectoryError: it is not a directory, or cannot be created.
    """
    default = Path.home() / ".local" / "share" / "companion"
    return _directory(("COMPANION_DATA_DIR", "STATE_DIRECTORY"), "XDG_DATA_HOME", default, create)


def config_dir(create: bool = True) -> Path:
    """The configuration directory (see module docstring); created if missing unless ``create``
    is False.

    Raises:
        DirectoryError: it is not a directory, or cannot be created.
    """
    default = Path.home() / ".config" / "companion"
    names = ("COMPANION_CONFIG_DIR", "CONFIGURATION_DIRECTORY")
    return _directory(names, "XDG_CONFIG_HOME", default, create)
