"""Profiles: what a game's board and tiles look like to the camera.

A profile holds the grid size, how the letters are inked and what each ink means, whether the game
has blank tiles and premium squares. Two are built in:

- ``iago``: 11x11 grid; light (ivory or cream) tiles with the letter printed in red ink on one face
  and blue on the other, on a board of any colour whose grid is visible (DESIGN.md, "What an Iago
  board looks like to the camera"; rulebook: "110 letter-tiles, printed in red on one side and in
  blue on the other", "a board with an 11x11 matrix").
- ``scrabble``: 15x15 grid; light wooden tiles with dark letters and a small point value; coloured
  premium squares with printed labels count as empty; blank tiles have no letter. Every tile is
  written upper case in board notation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.games.scrabble.tiles import TILE_COUNTS
from companion.vision.errors import VisionError


@dataclass(frozen=True)
class Profile:
    """How one game's board looks to the camera.

    Attributes:
        name: the profile's name (``iago``, ``scrabble``).
        size: cells per side of the square grid.
        coloured_ink: True when the ink colour carries meaning (Iago: blue face written upper
            case, red face lower case); False for dark ink, every tile written upper case.
        blank_tiles: True when the game has tiles without a letter (read as ``?``).
        cell_px: side of one cell in the warped top-down board, pixels.
        premium: the premium squares (row, column), 0-based, that the board prints in colour
            (Scrabble's double and triple letter and word squares); empty for a plain grid. The
            reader checks that the coloured squares it sees sit where these say, so a grid
            found one row or column off is caught (and put right).
        point_values: True when each tile prints its point value beside the letter (Scrabble's
            small digit in the lower-right corner), which a wide letter may run into.
        tile_counts: how many tiles of each letter (``?`` the blanks) one set holds, from the
            rules' tile distribution; None when the rules do not give it (Iago's rulebook gives
            only the total).
        set_tiles: how many tiles one set holds (Iago: "110 letter-tiles"; Scrabble: 100); 0
            when not known.
        rack_tiles: the most tiles one move may lay on the board (Scrabble: the rack's 7); 0
            when the rules give no such bound (Iago's moves also move and turn tiles).
    """

    name: str
    size: int
    coloured_ink: bool
    blank_tiles: bool = False
    cell_px: int = 48
    premium: frozenset[tuple[int, int]] = frozenset()
    point_values: bool = False
    tile_counts: dict[str, int] | None = field(default=None, hash=False)
    set_tiles: int = 0
    rack_tiles: int = 0

    @property
    def board_px(self) -> int:
        """Side of the warped top-down board, with half a cell of margin around the grid, pixels."""
        return (self.size + 1) * self.cell_px


def _scrabble_premium() -> frozenset[tuple[int, int]]:
    """The 61 premium squares of the standard 15x15 Scrabble board (the centre star included),
    from one quarter of the board mirrored both ways."""
    quarter = {
        (0, 0), (0, 3), (0, 7), (1, 1), (1, 5), (2, 2), (2, 6), (3, 0), (3, 3), (3, 7),
        (4, 4), (5, 1), (5, 5), (6, 2), (6, 6), (7, 0), (7, 3), (7, 7),
    }  # fmt: skip
    out = set()
    for r, c in quarter:
        for rr in (r, 14 - r):
            for cc in (c, 14 - c):
                out.add((rr, cc))
    return frozenset(out)


SCRABBLE_PREMIUM = _scrabble_premium()


def premium_kind(r: int, c: int, n: int = 15) -> int:
    """Which premium square (r, c) of the standard 15x15 board is: 0 triple word, 1 double word
    (the centre star too), 2 triple letter, 3 double letter (``synth.PREMIUM_COLOURS``): the
    squares of one kind share a colour."""
    edge = {0, n // 2, n - 1}
    if r in edge and c in edge and (r, c) != (n // 2, n // 2):
        return 0
    if (r == c or r + c == n - 1) and (r in (1, 2, 3, 4, n // 2) or n - 1 - r in (1, 2, 3, 4)):
        return 1
    if r in (1, 5, 9, 13) and c in (1, 5, 9, 13):
        return 2
    return 3


# the English set's tile distribution (Scrabble's rules: 100 tiles, two of them blank)
SCRABBLE_TILES = TILE_COUNTS

PROFILES: dict[str, Profile] = {
    "iago": Profile("iago", 11, coloured_ink=True, set_tiles=110),
    "scrabble": Profile(
        "scrabble",
        15,
        coloured_ink=False,
        blank_tiles=True,
        premium=SCRABBLE_PREMIUM,
        point_values=True,
        tile_counts=SCRABBLE_TILES,
        set_tiles=100,
        rack_tiles=7,
    ),
}


def get_profile(name: str | Profile) -> Profile:
    """The profile called ``name`` (a Profile passes through).

    Raises:
        VisionError: unknown name; the message lists the known profiles.
    """
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise VisionError(f"unknown profile {name!r}: known profiles are {known}") from None


def profile_for_size(size: int) -> Profile:
    """The built-in profile whose grid has ``size`` cells a side (11: iago, 15: scrabble)."""
    for profile in PROFILES.values():
        if profile.size == size:
            return profile
    raise VisionError(f"no profile has a {size}x{size} grid: accepted sizes are 11 and 15")
