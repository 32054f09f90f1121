"""Adapting the cell model to the user's own set (``companion vision calibrate``).

Lay the tiles out as the calibration layout says (``companion vision calibrate --print-layout``
writes it as text and as a picture to print), take one photo or more (one or two are enough),
and calibrate: every cell of the layout is cut as the reader cuts it, the network's last hidden
layer is taken for each (:meth:`companion.vision.cellnet.CellNet.outputs`), and the class layer is
taught again on them, held near the shipped layer (:func:`adapt_head`). The adapted layer is kept
in ``data_dir()/vision/cellnet-calibration-<profile>.npz`` and read with from then on. Any known
layout works too, given as a truth file (a lower-case letter there is a blank tile).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from companion.vision.cellnet import calibration_path, read_head
from companion.vision.errors import VisionError
from companion.vision.glyphs import LETTERS
from companion.vision.profiles import Profile, get_profile


def default_layout(profile: Profile | str) -> list[str]:
    """The calibration layout: the letters A-Z in turn on every other row, top row first, each
    letter no more often than the set holds it (:attr:`Profile.tile_counts`; a letter used up is
    skipped) until the rows or the set run out; for Iago the upper rows show the blue face (upper
    case) and the lower rows the red face (lower case)."""
    profile = get_profile(profile)
    n = profile.size
    left = dict(profile.tile_counts) if profile.tile_counts else None
    seq = []
    while len(seq) < n * ((n + 1) // 2):
        before = len(seq)
        for letter in LETTERS:
            if left is None or left.get(letter, 0) > 0:
                seq.append(letter)
                if left is not None:
                    left[letter] -= 1
        if len(seq) == before:
            break  # the set is used up
    rows = ["." * n] * n
    for k, r in enumerate(range(0, n, 2)):
        row = "".join(seq[k * n : (k + 1) * n]).ljust(n, ".")
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


# (the share of cells the adapted layer must keep pulled to the shipped one: the weight of the
# squared distance between the two layers' weights, per cell taught, in the loss of adapt_head)
HOLD = 0.01
STEPS = 500  # gradient steps of adapt_head
STEP_SIZE = 1.0  # of the step that cannot overshoot (1 / the gradient's Lipschitz bound)


class LayoutMismatchError(VisionError):
    """The calibration photo does not show the layout (nothing is saved)."""


@dataclass
class Calibration:
    """What a calibration learnt.

    Attributes:
        samples: cells taught (every cell of the layout in every photo).
        missing: layout tiles the shipped model read as empty, as (row, column), 0-based.
        right_before: layout cells the shipped model read right.
        path: the file the adapted layer is kept in.
        consistent: share (0-1) of the tiles whose nearest other tile of the layout (in the
            network's last hidden layer) is of the same letter (:func:`self_consistency`).
        stray: cells the layout leaves empty that the shipped model read as tiles (row, column).
        right_after: layout cells the adapted layer reads right.
    """

    samples: int
    missing: list[tuple[int, int]]
    right_before: int
    path: Path
    consistent: float = 1.0
    stray: list[tuple[int, int]] = field(default_factory=list)
    right_after: int = 0


def self_consistency(feats: np.ndarray, labels: np.ndarray) -> float:
    """Share (0-1) of the samples whose label occurs more than once whose nearest other sample
    (Euclidean distance between feature rows, float32 (n, d)) has the same label; 1.0 when no
    label occurs twice. Tiles laid where the layout does not say fail it: one letter's samples
    then look unlike each other."""
    labels = np.asarray(labels)
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    rows = np.flatnonzero(counts[inverse] > 1)
    if len(rows) == 0:
        return 1.0
    f = np.asarray(feats, np.float64)
    sq = (f**2).sum(1)
    d = sq[rows, None] + sq[None, :] - 2.0 * (f[rows] @ f.T)
    d[np.arange(len(rows)), rows] = np.inf
    nearest = d.argmin(1)
    return float(np.mean(labels[nearest] == labels[rows]))


def reset_calibration(profile: Profile | str) -> Path | None:
    """Remove the calibration of ``profile``; returns the file removed, or None if there was
    none. The reader then reads with the shipped model's own class layer.

    Raises:
        VisionError: it cannot be removed (a folder in its place, no permission).
    """
    path = calibration_path(get_profile(profile).name)
    if not path.exists() and not path.is_symlink():
        return None
    try:
        path.unlink()
    except OSError as exc:  # a folder where the file should be, or no permission
        raise VisionError(f"cannot remove the calibration {path}: {exc.strerror}") from None
    return path


def shipped_head(features: np.ndarray, logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network's own class layer, recovered from its inputs (``features`` float32 (N, F))
    and outputs (``logits`` float32 (N, 29)) by least squares: the layer is linear, so N > F
    cells give it exactly (to float32 rounding)."""
    x = np.hstack([features.astype(np.float64), np.ones((len(features), 1))])
    sol, *_ = np.linalg.lstsq(x, logits.astype(np.float64), rcond=None)
    return sol[:-1].T.astype(np.float32), sol[-1].astype(np.float32)


def adapt_head(
    features: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray,
    bias: np.ndarray,
    allowed: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Teach the class layer again on the user's cells: gradient descent (:data:`STEPS` steps,
    each :data:`STEP_SIZE` of the step the gradient's Lipschitz bound allows) on the mean
    cross-entropy of ``labels`` (int (N,), class indices)
    plus :data:`HOLD` times the squared distance from the shipped layer (``weights`` (29, F),
    ``bias`` (29,)), so classes the layout does not show keep what they knew.

    Returns:
        (weights float32 (29, F), bias float32 (29,)).
    """
    from companion.vision.cellnet import softmax

    f = features.astype(np.float64)
    w0 = weights.astype(np.float64)
    w, b = w0.copy(), bias.astype(np.float64).copy()
    onehot = np.eye(len(bias))[labels]
    mask = np.zeros(len(bias)) if allowed is None else np.where(allowed, 0.0, -1e9)
    # the step that cannot overshoot: 1 / the gradient's Lipschitz bound (the softmax's
    # curvature is at most 1/2 along any direction)
    fb = np.hstack([f, np.ones((len(f), 1))])
    lipschitz = 0.5 * np.linalg.norm(fb, 2) ** 2 / len(f) + 2 * HOLD
    step = STEP_SIZE / lipschitz
    for _ in range(STEPS):
        p = softmax(f @ w.T + b + mask)
        g = (p - onehot) / len(f)
        w -= step * (g.T @ f + 2 * HOLD * (w - w0))
        b -= step * g.sum(0)
    return w.astype(np.float32), b.astype(np.float32)


def _layout_classes(layout: list[str]) -> np.ndarray:
    """Class indices (int64 (n*n,)) of a layout's cells, row by row: ``.`` empty, a letter its
    letter (either case: Iago's red face is lower case)."""
    from companion.vision.wide import EMPTY

    out = [EMPTY if ch == "." else 2 + LETTERS.index(ch.upper()) for row in layout for ch in row]
    return np.array(out, np.int64)


def calibrate(
    photos: list[np.ndarray],
    profile: Profile | str,
    layout: list[str] | None = None,
    corners: list | None = None,
    replace: bool = True,
    names: list[str] | None = None,
) -> Calibration:
    """Adapt the cell model to the user's set from photos of a known layout.

    Each photo must match the layout: the shipped model sees a tile at ``MIN_SEEN`` (80%) of the
    layout's tiles or more, and at ``MAX_STRAY`` (10%) or less of the cells it leaves empty.
    Otherwise nothing is saved.

    Args:
        photos: uint8 (H, W, 3) BGR photos of the layout.
        profile: the game's profile.
        layout: the grid laid out (default :func:`default_layout`); for a game with blank
            tiles a lower-case letter is a blank (as in the truth files).
        corners: the grid's corners in the photos (all taken from one fixed camera), or None to
            find the board.
        replace: drop an earlier calibration of this profile (else teach on from it).
        names: what the messages call each photo (its file's path), or None: "photo 1",
            "photo 2"...

    Raises:
        VisionError: the layout does not fit the profile, no tile of it was seen, or the
            calibration cannot be saved (nothing saved).
        LayoutMismatchError: a photo does not show the layout (nothing saved).
        BoardNotFoundError: the board cannot be found in a photo.

    Each error about one photo names it (``names``, else its number).
    """
    from companion.vision import localise
    from companion.vision.cellnet import N_CLASSES, CellNet, cell_crops
    from companion.vision.reader import check_corners, warp_board
    from companion.vision.wide import BLANK, EMPTY

    profile = get_profile(profile)
    layout = layout or default_layout(profile)
    n = profile.size
    if len(layout) != n or any(len(row) != n for row in layout):
        raise VisionError(f"calibration layout must be {n}x{n} for profile {profile.name}")
    classes = _layout_classes(layout)
    if profile.blank_tiles:
        lower = np.array([ch.islower() for row in layout for ch in row])
        classes[lower] = BLANK
    tiles = int((classes != EMPTY).sum())
    empties = n * n - tiles
    if tiles == 0:
        raise VisionError("calibration layout has no tile")
    advice = (
        "lay the tiles out as 'companion vision calibrate --print-layout' shows (or give the "
        "layout you laid out with --truth), check --corners, and photograph the board from above"
    )
    net = CellNet()  # the shipped layer, whatever calibration the reader now uses
    feats, labels, missing, stray, right_before = [], [], [], [], 0
    for k, image in enumerate(photos, 1):
        said = f"calibration photo {names[k - 1] if names and k <= len(names) else k}"
        try:
            if corners is not None:
                pts = check_corners(corners, image.shape)
            else:
                pts, _ = localise.find_board(image, profile)
        except VisionError as err:
            raise type(err)(f"{said}: {err}") from err
        warp = warp_board(image, pts, profile)
        logits, feat = net.outputs(cell_crops(warp, n, profile.cell_px))
        pred = logits[:, :N_CLASSES].argmax(1)
        seen = int(((pred != EMPTY) & (classes != EMPTY)).sum())
        photo_stray = np.flatnonzero((pred != EMPTY) & (classes == EMPTY))
        need = int(np.ceil(MIN_SEEN * tiles))
        allowed = int(MAX_STRAY * empties)
        if seen < need or len(photo_stray) > allowed:
            raise LayoutMismatchError(
                f"{said} does not look like the layout: a tile was seen at "
                f"{seen} of its {tiles} tile cells (at least {need} needed) and at "
                f"{len(photo_stray)} of the {empties} cells it leaves empty (at most {allowed}); "
                f"{advice}. Nothing was saved."
            )
        right_before += int((pred == classes).sum())
        missing += [divmod(int(i), n) for i in np.flatnonzero((pred == EMPTY) & (classes != EMPTY))]
        stray += [divmod(int(i), n) for i in photo_stray]
        feats.append(feat)
        labels.append(classes)
        if k == 1:
            weights, bias = shipped_head(feat, logits[:, :N_CLASSES])
    features = np.vstack(feats)
    labels_all = np.concatenate(labels)
    lettered = labels_all >= 2
    # (each face its own sample: Iago's red and blue faces of a letter look unalike)
    faces = np.tile([ord(ch) for row in layout for ch in row], len(feats))
    consistent = self_consistency(features[lettered], faces[lettered])
    if consistent < MIN_CONSISTENT:
        raise LayoutMismatchError(
            f"calibration: the tiles do not match the layout's letters: only {consistent:.0%} "
            f"of the tiles look most like another tile of the same letter (at least "
            f"{MIN_CONSISTENT:.0%} needed); {advice}. Nothing was saved."
        )
    path = calibration_path(profile.name)
    # (an earlier layer the network cannot use, made for another one, is not taught on)
    old = None if replace else read_head(profile.name, net)[0]
    start = old if old is not None else (weights, bias)
    allowed_classes = np.ones(N_CLASSES, bool)
    allowed_classes[BLANK] = profile.blank_tiles
    head = adapt_head(features, labels_all, *start, allowed=allowed_classes)
    after = (features @ head[0].T + head[1]).argmax(1)
    right_after = int((after == labels_all).sum())
    tmp = path.with_suffix(".tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(tmp, weights=head[0], bias=head[1], model=np.array(net.model_id))
        tmp.replace(path)
    except OSError as exc:  # a folder where the file should be, a full card, no permission
        tmp.unlink(missing_ok=True)
        raise VisionError(f"cannot save the calibration to {path}: {exc.strerror}") from None
    return Calibration(
        len(labels_all), missing, right_before, path, consistent, stray, right_after
    )  # fmt: skip
