"""Whether the grid sits where the corners put it: the checks of a reading that need no cell.

A photo can be read at corners that are wrong (the camera or the board moved since they were
set; a grid found one line off); :func:`grid_problems` says so from the grid's lines in the
photo (:mod:`companion.vision.localise`).
"""

from __future__ import annotations

import numpy as np

from companion.vision.profiles import Profile


def grid_problems(
    image: np.ndarray, corners: np.ndarray, profile: Profile, reduced=None, placed: bool = False
) -> list[str]:
    """What is wrong with the grid at ``corners`` in the photo, in words (empty: nothing):

    - its lines do not stand out at the corners' comb (:func:`~companion.vision.localise.
      grid_phase`: clarity under ``GRID_LINES_MIN``), or stand out best ``GRID_MOVED`` of a
      cell or more away from it: the camera or the board moved since the corners were set;
    - a full grid line lies one cell beyond one edge and not beyond the opposite one
      (:func:`~companion.vision.localise.beyond_sides`): the grid is one line off (a frame drawn
      round the grid shows a line beyond every edge and is not taken for one). Not said when
      ``placed``: the premium squares put the grid where it is beyond doubt
      (:data:`BEYOND_PREMIUM`);
    - no grid line crosses an outermost row or column (:func:`~companion.vision.localise.
      edge_bands` under ``EDGE_BAND_MIN``): the grid is one line off the other way, a label band
      and the frame's line taken for its last row and line. A band is judged when its side lies
      in the photo (a band the photo's edge cuts shows no line), though the edge cut another
      side: a grid found in a photo cut along its bottom row had the board's empty border for
      its top row, and was read a row off.
    """
    from companion.vision import localise

    grey, f = reduced if reduced is not None else localise.reduce(image)
    n = profile.size
    pts = np.float32(corners) * f
    problems = []
    dx, dy, clarity = localise.grid_phase(grey, pts, n)
    if clarity < GRID_LINES_MIN:
        problems.append("the grid's lines are not where the corners put them")
    elif max(abs(dx), abs(dy)) >= GRID_MOVED:
        problems.append(
            f"the grid's lines are {max(abs(dx), abs(dy)):.1f} of a cell from where the corners "
            "put them (camera or board moved)"
        )
    top, right, bottom, left = localise.beyond_sides(grey, pts, n)
    beyond = max(top - bottom, bottom - top, left - right, right - left) > GRID_BEYOND_MAX
    if beyond and not placed:
        problems.append("a grid line lies beyond the grid's edge: the grid may be one line off")
    elif any(
        inside and band < localise.EDGE_BAND_MIN
        for band, inside in zip(
            localise.edge_bands(grey, pts, n), localise.sides_inside(pts, grey.shape), strict=True
        )
    ):
        problems.append(
            "no grid line crosses the grid's outer row or column: the grid may be one line off "
            "(a frame or labels round the board)"
        )
    return problems


GRID_MOVED = 0.2  # of a cell: lines found this far from the corners' comb have moved
GRID_LINES_MIN = 1.25  # line response on the grid's lines over that between them
GRID_BEYOND_MAX = 0.6  # a line one cell beyond one edge, this much stronger than beyond the other
# The premium layout fits the grid as found better than moved one row and/or column each way by
# this much or more (:func:`~companion.vision.trust.premium_against_shifts`, its least figure;
# Lab), and the grid was not moved to get there: a line beyond one edge is then not the grid's,
# and does not put the grid in doubt. On the bench's Scrabble renders (seeds 100000-100359 and
# 90000-90399 with 3-6 blanks, corners given and found: 1520 readings), of the 40 readings with
# such a line, every grid one or more lines off had a least figure of 2.7 or less; the grids
# where they belong, 21.7-43.6 (a plain board's frame, a label band's line). Fifteen is five
# times ``trust.PREMIUM_MARGIN``.
BEYOND_PREMIUM = 15.0
