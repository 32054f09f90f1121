"""Where the companion keeps its files.

- data directory (lexicon indexes, journals, game records, trained models): ``$COMPANION_DATA_DIR``,
  else systemd's ``$STATE_DIRECTORY``, else ``$XDG_DATA_HOME/companion`` (``~/.local/share/companion``).
- configuration directory (table.toml, a per-box pinmap.toml): ``$COMPANION_CONFIG_DIR``, else
  systemd's ``$CONFIGURATION_DIRECTORY``, else ``$XDG_CONFIG_HOME/companion`` (``~/.config/companion``).

Tests point both at temporary folders through the environment variables.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""The source checkout (holds hardware/, firmware/, enclosures/ when run from a clone)."""


def _first(*names: str) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            # systemd may pass several colon-separated directories: the first is ours
            return value.split(":")[0]
    return None


def data_dir(create: bool = True) -> Path:
    """The data directory (see module docstring); created if missing unless ``create`` is False."""
    base = _first("COMPANION_DATA_DIR", "STATE_DIRECTORY")
    if base is None:
        xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        base = str(Path(xdg) / "companion")
    path = Path(base)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir(create: bool = True) -> Path:
    """The configuration directory (see module docstring)."""
    base = _first("COMPANION_CONFIG_DIR", "CONFIGURATION_DIRECTORY")
    if base is None:
        xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
        base = str(Path(xdg) / "companion")
    path = Path(base)
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path
