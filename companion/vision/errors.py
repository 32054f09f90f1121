"""The board reader's errors: bad input (an image, a profile, corners, a truth file) and a camera
that cannot give a frame. Each names the input, what is wrong and what is accepted."""

from __future__ import annotations

from companion.errors import CompanionError


class VisionError(CompanionError, ValueError):
    """Bad input to the board reader (image, profile, corners, truth, notation)."""


class BoardNotFoundError(VisionError):
    """The board (its markers or its grid) could not be found in a photo."""
