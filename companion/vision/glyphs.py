"""Letters and the fonts they are drawn in.

The board reader names a cell's letter with the cell model (:mod:`companion.vision.cellnet`),
taught on wide renders in every installed Debian font with the Latin capitals
(:func:`companion.vision.wide.letter_fonts`); the synthetic photos of the tests and the bench
(:mod:`companion.vision.synth`) draw their letters in :data:`SYNTHETIC_FONT`.
"""

from __future__ import annotations

from pathlib import Path

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# the Debian packages of the fonts the Makefile installs (APT_PACKAGES), for an error's advice
FONT_PACKAGES = (
    "fonts-dejavu-core",
    "fonts-dejavu-extra",
    "fonts-liberation",
    "fonts-freefont-ttf",
    "fonts-urw-base35",
    "fonts-open-sans",
    "fonts-roboto-unhinted",
    "fonts-lato",
    "fonts-croscore",
    "fonts-crosextra-carlito",
    "fonts-league-spartan",
    "fonts-cantarell",
)
SYNTHETIC_FONT = "freefont/FreeSansBold.ttf"
FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))


def font_path(name: str) -> Path | None:
    """The installed file of font ``name`` (``dir/file`` below the Debian font folders), or None."""
    for base in FONT_DIRS:
        path = base / name
        if path.exists():
            return path
    return None
