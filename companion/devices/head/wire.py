"""The firmware's own protocol code, loaded on the host: ``firmware/headproto.py`` and
``firmware/headcore.py`` are the single implementation of framing, CRC, messages, the link and
the head's behaviour (PROTOCOL.md), shared with the Pico.

They are loaded by path under their own names (``headproto``, ``headcore``), exactly as the Pico
imports them, so ``headcore``'s ``import headproto`` finds the same module.

Raises:
    ImportError: the firmware folder is missing (the package was installed without its source
        checkout; the companion is meant to run from a clone, see README).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from companion.paths import PROJECT_ROOT

FIRMWARE_DIR = PROJECT_ROOT / "firmware"
FIRMWARE_FILES = ("headproto.py", "headcore.py", "main.py")
"""The firmware's files copied to the Pico, besides the generated board_config.py."""


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    path = FIRMWARE_DIR / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not path.exists():
        raise ImportError(f"the timer head's firmware file {path} is missing", name=name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


proto = _load("headproto")
core = _load("headcore")
