"""The simulator's camera for the table tests: renders of the board as the ``files`` camera's
folder of photos, and a scripted table that reads them."""

import dataclasses

from companion.daemon.sim import ScriptedTable
from companion.devices.pinmap import load_pinmap
from companion.vision.synth import render_photo


def shoot(folder, grids, profile: str, seed: int, **render) -> None:
    """Photos of ``grids`` (rows each) in ``folder``, named in capture order (01, 02, ...),
    nothing else there: render ``i`` is ``render_photo(profile, seed=seed + i, grid=...,
    **render)``."""
    folder.mkdir(exist_ok=True)
    for i, grid in enumerate(grids, 1):
        render_photo(profile, seed=seed + i, grid=grid, **render).save(folder / f"{i:02d}")
    for extra in folder.glob("*.*.*"):
        extra.unlink()  # the truth files: only the photos in the camera's folder


def camera_table(config, judge, journal, folder=None) -> ScriptedTable:
    """A scripted table (mock pins) whose camera is the ``files`` camera over ``folder`` (no
    camera when None)."""
    pinmap = load_pinmap(backend="mock")
    if folder is not None:
        pinmap = dataclasses.replace(pinmap, camera={"kind": "files", "folder": str(folder)})
    return ScriptedTable(config, judge, journal, pinmap=pinmap)
