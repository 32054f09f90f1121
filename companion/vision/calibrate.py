"""Adapting the letter classifier to the user's own tiles (``companion vision calibrate``).

Lay the tiles out as the calibration layout says (``companion vision calibrate --print-layout``
writes it as text and as a picture to print), take one or two photos, and calibrate: every tile of
the layout is read where the layout puts it, and its glyph is kept as a sample of that letter in
``data_dir()/vision/calibration-<profile>.npz``. The reader then knows the user's font alongside the
rendered ones. Any known layout works too, given as a truth file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.vision.errors import VisionError
from companion.vision.glyphs import (
    LETTERS,
    calibration_path,
    cell_margin,
    find_glyph,
    glyph_features,
    load_classifier,
)
from companion.vision.profiles import Profile, get_profile


def default_layout(profile: Profile | str) -> list[str]:
    """The calibration layout: every letter on every other row, top row first; for Iago the
    upper rows show the blue face (upper case) and the lower rows the red face (lower case)."""
    profile = get_profile(profile)
    n = profile.size
    rows = ["." * n] * n
    seq = LETTERS * 4
    k = 0
    for r in range(0, n, 2):
        row = seq[k : k + n]
        k += n
        if profile.coloured_ink and r > n // 2:
            row = row.lower()
        rows[r] = row
    return rows


def layout_picture(grid: list[str], cell_px: int = 60) -> np.ndarray:
    """A picture of a layout to print or show: uint8 (S, S, 3) BGR, one square a cell, blue
    letters for upper case and red for lower case."""
    n = len(grid)
    side = n * cell_px
    img = np.full((side, side, 3), 255, np.uint8)
    for k in range(n + 1):
        cv2.line(img, (0, k * cell_px), (side, k * cell_px), (0, 0, 0), 1)
        cv2.line(img, (k * cell_px, 0), (k * cell_px, side), (0, 0, 0), 1)
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            colour = (40, 40, 200) if ch.islower() else (170, 80, 20)
            (tw, th), _ = cv2.getTextSize(ch.upper(), cv2.FONT_HERSHEY_SIMPLEX, cell_px / 40, 2)
            org = (c * cell_px + (cell_px - tw) // 2, r * cell_px + (cell_px + th) // 2)
            cv2.putText(
                img, ch.upper(), org, cv2.FONT_HERSHEY_SIMPLEX, cell_px / 40, colour, 2, cv2.LINE_AA
            )
    return img


# A photo matches the layout when a letter is seen at this share of the layout's tiles or more
# (a user's own font may hide a few from the glyph finder, never most) ...
MIN_SEEN = 0.8
# ... and at this share or less of the cells the layout leaves empty (a game board in play has
# letters all over, the layout only every other row).
MAX_STRAY = 0.1
# Samples of the same letter must look alike: among the samples whose letter occurs more than once,
# at least this share must have a sample of the same letter as their nearest neighbour. This holds
# for any consistent tile set, whatever its font; wrongly labelled samples (the tiles not where the
# layout says) fail it.
MIN_CONSISTENT = 0.5


class LayoutMismatchError(VisionError):
    """The calibration photo does not show the layout (nothing is saved)."""


@dataclass
class Calibration:
    """What a calibration learnt.

    Attributes:
        samples: glyphs kept (one per tile read).
        missing: layout cells where no letter was seen, as (row, column), 0-based.
        right_before: layout letters the classifier named right before calibrating.
        path: the file the samples are kept in.
        consistent: share (0-1) of the samples with a repeated letter whose nearest other sample
            is the same letter (1.0 when no letter repeats).
        stray: cells the layout leaves empty where a letter was seen, as (row, column), 0-based.
    """

    samples: int
    missing: list[tuple[int, int]]
    right_before: int
    path: Path
    consistent: float = 1.0
    stray: list[tuple[int, int]] = field(default_factory=list)


def self_consistency(feats: np.ndarray, labels: np.ndarray) -> float:
    """Share (0-1) of the samples whose letter occurs more than once whose nearest other sample
    (Euclidean distance between feature rows, float32 (n, d)) has the same label; 1.0 when no
    letter occurs twice."""
    counts = np.bincount(labels, minlength=len(LETTERS))
    rows = np.flatnonzero(counts[labels] > 1)
    if len(rows) == 0:
        return 1.0
    f = np.asarray(feats, np.float64)
    sq = (f**2).sum(1)
    d = sq[rows, None] + sq[None, :] - 2.0 * (f[rows] @ f.T)
    d[np.arange(len(rows)), rows] = np.inf
    nearest = d.argmin(1)
    return float(np.mean(labels[nearest] == labels[rows]))


def reset_calibration(profile: Profile | str) -> Path | None:
    """Remove the calibration samples of ``profile``; returns the file removed, or None if there
    was none. The reader then uses the rendered training glyphs only."""
    path = calibration_path(get_profile(profile).name)
    if not path.exists():
        return None
    path.unlink()
    return path


def calibrate(
    photos: list[np.ndarray],
    profile: Profile | str,
    layout: list[str] | None = None,
    corners: list | None = None,
    replace: bool = True,
) -> Calibration:
    """Learn the user's tiles from photos of a known layout.

    Each photo must match the layout: a letter seen at ``MIN_SEEN`` (80%) of the layout's tiles or
    more, at ``MAX_STRAY`` (10%) or less of the cells it leaves empty, and the samples of each
    letter alike (``MIN_CONSISTENT``, see :func:`self_consistency`). Otherwise nothing is saved.

    Args:
        photos: uint8 (H, W, 3) BGR photos of the layout.
        profile: the game's profile.
        layout: the grid laid out (default :func:`default_layout`).
        corners: the grid's corners in the photos (all taken from one fixed camera), or None to
            find the board.
        replace: drop earlier calibration samples of this profile (else add to them).

    Raises:
        VisionError: the layout does not fit the profile, or no tile of it was seen.
        LayoutMismatchError: a photo does not show the layout (nothing saved).
        BoardNotFoundError: the board cannot be found in a photo.
    """
    from companion.vision import localise
    from companion.vision.reader import check_corners, warp_board

    profile = get_profile(profile)
    layout = layout or default_layout(profile)
    n = profile.size
    if len(layout) != n or any(len(row) != n for row in layout):
        raise VisionError(f"calibration layout must be {n}x{n} for profile {profile.name}")
    c = profile.cell_px
    m = cell_margin(c)
    tiles = sum(ch.isalpha() for row in layout for ch in row)
    empties = n * n - tiles
    if tiles == 0:
        raise VisionError("calibration layout has no tile")
    advice = (
        "lay the tiles out as 'companion vision calibrate --print-layout' shows (or give the "
        "layout you laid out with --truth), check --corners, and photograph the board from above"
    )
    glyphs, labels, missing, stray = [], [], [], []
    for k, image in enumerate(photos, 1):
        if corners is not None:
            pts = check_corners(corners, image.shape)
        else:
            pts, _ = localise.find_board(image, profile)
        warp = warp_board(image, pts, profile)
        lightness = cv2.cvtColor(warp, cv2.COLOR_BGR2Lab)[:, :, 0]
        seen, photo_missing, photo_stray, photo_glyphs, photo_labels = 0, [], [], [], []
        for r, row in enumerate(layout):
            for col, ch in enumerate(row):
                y0, x0 = c // 2 + r * c - m, c // 2 + col * c - m
                glyph = find_glyph(lightness[y0 : y0 + c + 2 * m, x0 : x0 + c + 2 * m], c)
                if not ch.isalpha():
                    if glyph is not None:
                        photo_stray.append((r, col))
                    continue
                if glyph is None:
                    photo_missing.append((r, col))
                    continue
                seen += 1
                photo_glyphs.append(glyph)
                photo_labels.append(LETTERS.index(ch.upper()))
        need = int(np.ceil(MIN_SEEN * tiles))
        allowed = int(MAX_STRAY * empties)
        if seen < need or len(photo_stray) > allowed:
            raise LayoutMismatchError(
                f"calibration photo {k} does not look like the layout: a letter was seen at "
                f"{seen} of its {tiles} tile cells (at least {need} needed) and at "
                f"{len(photo_stray)} of the {empties} cells it leaves empty (at most {allowed}); "
                f"{advice}. Nothing was saved."
            )
        glyphs += photo_glyphs
        labels += photo_labels
        missing += photo_missing
        stray += photo_stray
    feats = glyph_features(glyphs)
    labels_arr = np.array(labels, np.int32)
    consistent = self_consistency(feats, labels_arr)
    if consistent < MIN_CONSISTENT:
        raise LayoutMismatchError(
            f"calibration: the tiles do not match the layout's letters: only {consistent:.0%} "
            f"of the samples look most like another tile of the same letter (at least "
            f"{MIN_CONSISTENT:.0%} needed); {advice}. Nothing was saved."
        )
    path = calibration_path(profile.name)
    before = load_classifier(c, profile.name if not replace else None)
    right_before = sum(
        LETTERS.index(x) == y for x, y in zip(before.classify(feats)[0], labels_arr, strict=True)
    )
    if not replace and path.exists():
        with np.load(path) as old:
            feats = np.vstack([old["feats"], feats])
            labels_arr = np.concatenate([old["labels"], labels_arr])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, feats=feats, labels=labels_arr)
    tmp.replace(path)
    return Calibration(len(glyphs), missing, int(right_before), path, consistent, stray)
