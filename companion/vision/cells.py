"""Reading the cells of a warped board with the cell model.

:func:`read_cells` hands every cell to the network (:mod:`companion.vision.cellnet`) and takes
its most probable class that the set's counts allow (:func:`decode_with_counts`): an empty
square, a blank tile (games that have them), or a letter, whose ink (Iago) says its case. The
board's own colours are weighed in (a tile's face against the bare squares, a letter's ink
against the board's other inks), and the cells in doubt are read again. A cell's confidence is
the calibrated probability of what was read. Which way round the board lies is told by its
letters (:func:`turn_scores`, :func:`upright_turn`, :func:`turn_since`), and which cells a move
left as they were by the pixels (:func:`unchanged_cells`). What the rules say of the reading is
:mod:`companion.vision.facts`'s.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision import trust
from companion.vision.cellnet import N_CLASSES, CellNet, cell_crops, load_cellnet, softmax
from companion.vision.errors import VisionError
from companion.vision.facts import class_limits, class_of
from companion.vision.profiles import Profile, premium_kind
from companion.vision.wide import BLANK, CLASSES, EMPTY, HIDDEN

# the cell kinds of trust.CELL_KINDS
KIND_EMPTY, KIND_LETTER, KIND_BLANK = 0, 1, 2


@dataclass
class CellEvidence:
    """What the reader measured of the board besides the cells' classes.

    Attributes:
        raw: float32 (size, size), 0-1: each cell's calibrated probability of what was read.
        kind: int8 (size, size): index in ``trust.CELL_KINDS`` (empty, letter, blank).
        glare: float32 (size, size): share of the cell blown out by glare (0 where the grid
            lines round it are as dark as elsewhere: a white square clipped by the exposure,
            :func:`companion.vision.trust.lines_seen`).
        colours: float32 (size, size, 3): each cell's face colour, Lab
            (:func:`companion.vision.trust.cell_colours`).
        gain: the exposure gain a dim board would need (1: none; :func:`companion.vision.trust.
            exposure_gain`).
        level: the board's brightest tenth, 8-bit lightness.
        softness: grid-line edge width in cells (:func:`companion.vision.trust.edge_width`).
        premium: the premium layout's fit by shift (:func:`companion.vision.trust.premium_fit`).
        premium_against: how much better the layout fits where it is than moved, on the cells
            the two disagree about (:func:`companion.vision.trust.premium_against_shifts`).
        chroma: how coloured the board is (:func:`companion.vision.trust.colourfulness`, 8-bit
            Lab chroma; 0 for a black-and-white photo).
        probabilities: float64 (size, size, 29): each class's calibrated probability
            (:data:`companion.vision.wide.CLASSES`), or None.
        hidden: bool (size, size): cells the model sees something over (a hand), or None.
        ink: float64 (size, size, 2): each cell's calibrated probability of blue and red ink,
            the board's inks weighed in (games with coloured ink), or None.
        ink_unlike: bool (size, size): letters whose colour the board's other inks put in
            doubt (:func:`inks_unlike_their_colour`), or None (no coloured ink).
    """

    raw: np.ndarray
    kind: np.ndarray
    glare: np.ndarray
    colours: np.ndarray | None = None
    gain: float = 1.0
    level: float = 255.0
    softness: float = 0.0
    premium: dict = field(default_factory=dict)
    premium_against: dict = field(default_factory=dict)
    chroma: float = float("inf")
    probabilities: np.ndarray | None = None
    hidden: np.ndarray | None = None
    ink: np.ndarray | None = None
    ink_unlike: np.ndarray | None = None


def _classes(probs: np.ndarray, profile: Profile) -> np.ndarray:
    """The class probabilities a profile allows: without blank tiles, a blank's share goes
    (renormalised) to the other classes."""
    if profile.blank_tiles:
        return probs
    out = probs.copy()
    out[..., BLANK] = 0.0
    return out / out.sum(axis=-1, keepdims=True)


def decode_with_counts(classes: np.ndarray, profile: Profile) -> np.ndarray:
    """Each cell's class (int (size, size)) read under the set's counts: the most probable class
    of every cell, but where more cells take a class than the set holds of it
    (:attr:`Profile.tile_counts`: a letter, the blanks), only the cells most probable in it keep
    it and the others take their next most probable class, until no count is broken (the most
    probable board the set can hold, cell by cell). Without counts, the plain most probable
    class. ``classes``: float (size, size, 29) probabilities."""
    probs = np.array(classes, np.float64).reshape(-1, classes.shape[-1])
    best = probs.argmax(1)
    if not profile.tile_counts:
        return best.reshape(classes.shape[:2])
    limit = class_limits(profile)
    allowed = np.ones_like(probs, bool)
    while True:  # each turn forbids a cell a class for good, and an empty square is unlimited
        over = [k for k in range(probs.shape[1]) if (best == k).sum() > limit[k]]
        if not over:
            break
        for k in over:
            cells = np.flatnonzero(best == k)
            keep = cells[np.argsort(-probs[cells, k])][: limit[k]]
            for i in np.setdiff1d(cells, keep):
                allowed[i, k] = False
                best[i] = np.where(allowed[i], probs[i], -1.0).argmax()
    return best.reshape(classes.shape[:2])


def cell_probabilities(
    net: CellNet, crops: np.ndarray, size: int, profile: Profile
) -> tuple[np.ndarray, np.ndarray]:
    """(classes float64 (size, size, 29), ink float64 (size, size, 2)) for crops of one board."""
    raw = net.logits(crops).reshape(size, size, -1)
    classes = _classes(softmax(raw[..., :N_CLASSES], net.temperature), profile)
    return classes, softmax(raw[..., N_CLASSES:], net.ink_temperature)


# how far (of a cell) the cells the network is unsure of are cut again, each way. Not a fact of
# the game or the camera: one of two shifts tried (1/16 and 1/8, both inside the quarter of a
# cell the training moved the grid by), chosen on validation renders only: Scrabble renders of
# seeds 81000 on (54 readings; perfect 48 -> 49 with either) and Iago renders at 20 px a cell
# in bold faces, seeds 83000 on (36 readings; 12 -> 14 of 18 perfect with 1/16, 13 with 1/8).
# The real photos did not choose (both read 99.90% of their cells); only reported.
REREAD_SHIFT = 1 / 16


def read_unsure_again(
    net: CellNet,
    warp: np.ndarray,
    classes: np.ndarray,
    ink: np.ndarray,
    profile: Profile,
    every: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The cells the network is unsure of (under its trust level), read again cut a little
    moved (:data:`REREAD_SHIFT` of a cell up, down, left and right) and their five readings'
    probabilities averaged: a letter beside its point value, or cut where a grid line misleads,
    is read from where it is seen best (test-time augmentation). Sure cells are not read again,
    unless ``every``: a photo whose cells are smaller than the network's input shows them
    enlarged, and there a shift of a pixel can make the network sure of a wrong letter (a T
    read as I at 0.9999 with the grid found, unsure at 0.7 with the true corners, 16 px a
    cell), so every cell is read the five ways.

    Args:
        net: the cell network.
        warp: uint8 (board_px, board_px, 3) BGR, the warped board.
        classes: float64 (size, size, 29) class probabilities (:func:`cell_probabilities`).
        ink: float64 (size, size, 2) ink probabilities.
        profile: the game's profile.
        every: read every cell again, not only the unsure ones.

    Returns:
        (classes, ink) of the same shapes, the cells read again averaged.
    """
    n, c = profile.size, profile.cell_px
    flat = classes.reshape(n * n, -1).copy()
    flat_ink = ink.reshape(n * n, -1).copy()
    unsure = np.flatnonzero((flat.max(-1) < net.trust_level) | every)
    if not len(unsure):
        return classes, ink
    d = max(1, int(round(c * REREAD_SHIFT)))
    shifts = ((d, 0), (-d, 0), (0, d), (0, -d))
    crops = np.concatenate([cell_crops(warp, n, c, shift, unsure) for shift in shifts])
    raw = net.logits(crops).reshape(len(shifts), len(unsure), -1)
    again = _classes(softmax(raw[..., :N_CLASSES], net.temperature), profile)
    flat[unsure] = (flat[unsure] + again.sum(0)) / (len(shifts) + 1)
    inks = softmax(raw[..., N_CLASSES:], net.ink_temperature)
    flat_ink[unsure] = (flat_ink[unsure] + inks.sum(0)) / (len(shifts) + 1)
    return flat.reshape(classes.shape), flat_ink.reshape(ink.shape)


def _square_kinds(profile: Profile) -> np.ndarray:
    """int (size, size): which squares share a colour on a bare board: 0-3 the premium kinds of
    the standard 15x15 board (:func:`companion.vision.profiles.premium_kind`), 4 a plain square
    (every square of a board without premium squares)."""
    n = profile.size
    kinds = np.full((n, n), 4, np.int8)
    for r, c in profile.premium:
        kinds[r, c] = premium_kind(r, c, n)
    return kinds


def _read_as_letters(classes: np.ndarray) -> np.ndarray:
    """bool (size * size,): the cells whose most probable class is a letter (not an empty
    square, a blank or a covered cell), from class probabilities float (size, size, 29)."""
    best = classes.argmax(-1).reshape(-1)
    return (best != EMPTY) & (best != BLANK) & (best != HIDDEN)


def tile_colour_odds(colours: np.ndarray, classes: np.ndarray, profile: Profile) -> np.ndarray:
    """How much likelier each cell's face colour is on a tile than on a bare square of its
    kind, measured on the board itself: the likelihood ratio, float64 (size, size); 1 where
    nothing can be said (a game without blank tiles, too few tiles or squares to compare).

    A blank tile has no letter for the network to see, and on a real board the network took
    blanks for bare squares at 0.99 and more. What tells them apart is the board's own: a tile's
    face is the colour of the other tiles, a bare square's that of the other bare squares of its
    kind (plain, double letter...). Each group's colour density at the cell is estimated by its
    k-th nearest neighbour (Loftsgaarden and Quesenberry, 1965): ``k / (n * volume)``, the
    volume that of the ball reaching the k-th nearest member in colour, so in three colour
    dimensions the ratio is ``(n_square / n_tile) * (d_square / d_tile) ** 3``. The tiles are
    the cells the network reads as letters, the squares the other cells it reads empty of the
    cell's kind (:func:`companion.vision.profiles.premium_kind`; the layout is the same turned
    or mirrored). k is one more than the set's blanks: that many "squares" may be blanks read
    empty, each the other's nearest. Nothing is fitted: the colour distance is Lab with the
    lightness weighed half, as every cell colour is compared (:func:`companion.vision.trust.compared`).

    Measured (never fitted) on the validation sets: Scrabble renders of seeds 81000 on (54
    readings), boards perfect 28 -> 48, none trusted wrong; the three real photos of
    ../shared/data at three sizes, given and found, cells 98.84% -> 99.68%.

    Args:
        colours: float32 (size, size, 3), Lab face colours (:func:`trust.cell_colours`).
        classes: float (size, size, 29) class probabilities (:data:`wide.CLASSES`).
        profile: the game's profile.
    """
    n = profile.size
    odds = np.ones((n, n))
    if not profile.blank_tiles:
        return odds
    k = int((profile.tile_counts or {}).get("?", 2)) + 1
    letter = _read_as_letters(classes)
    empty = classes.argmax(-1).reshape(-1) == EMPTY
    if letter.sum() <= k:
        return odds
    dist = _colour_distances(trust.compared(colours).reshape(-1, 3))
    d_tile = _kth_nearest(dist, np.flatnonzero(letter), k)
    log_odds = np.zeros(n * n)
    kinds = _square_kinds(profile).reshape(-1)
    for kind in np.unique(kinds):
        mine = kinds == kind
        squares = np.flatnonzero(mine & empty)
        d_square = _kth_nearest(dist, squares, k)[mine]
        log_odds[mine] = _log_density_ratio(letter.sum(), d_tile[mine], len(squares), d_square, 3)
    return np.exp(log_odds).reshape(n, n)


def _colour_distances(x: np.ndarray) -> np.ndarray:
    """float64 (N, N): the Euclidean distances between the rows of ``x`` (float (N, d), the
    cells' colours), infinite on the diagonal (a cell is not its own neighbour)."""
    x = np.asarray(x, np.float64)
    dist = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2)
    np.fill_diagonal(dist, np.inf)
    return dist


def _kth_nearest(dist: np.ndarray, members: np.ndarray, k: int) -> np.ndarray:
    """Each cell's distance (float64 (N,)) to the k-th nearest of ``members`` (indices, or a
    bool mask over the N cells) in :func:`_colour_distances`' ``dist``; inf with fewer than k."""
    d = np.sort(dist[:, members], axis=1)
    return d[:, k - 1] if d.shape[1] >= k else np.full(dist.shape[0], np.inf)


def _log_density_ratio(n_a, d_a: np.ndarray, n_b, d_b: np.ndarray, dims: int) -> np.ndarray:
    """The log of group a's colour density over group b's at each cell, float64, by their k-th
    nearest neighbours (Loftsgaarden and Quesenberry, 1965: ``k / (n * volume)``, the volume
    growing as the distance to the power ``dims``): ``log(n_b / n_a) + dims * log(d_b / d_a)``
    for groups of ``n_a`` and ``n_b`` cells at distances ``d_a`` and ``d_b`` (float (N,)); 0
    where it cannot be said (a group too small: an infinite distance)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(n_b / n_a) + dims * np.log(d_b / d_a)
    return np.where(np.isfinite(ratio), ratio, 0.0)


def with_tile_colour(classes: np.ndarray, odds: np.ndarray) -> np.ndarray:
    """The class probabilities (float (size, size, 29)) with each cell's colour evidence
    (:func:`tile_colour_odds`, float (size, size)) weighed in, as float64 (size, size, 29):
    every tile class (a letter, a blank) times the odds against an empty square, renormalised;
    a covered cell's (``hidden``) probability is kept as it was. The colour tells a tile from
    a square, the network which tile."""
    out = np.array(classes, np.float64)
    tile = np.ones(out.shape[-1], bool)
    tile[[EMPTY, HIDDEN]] = False
    seen = np.ones(out.shape[-1], bool)
    seen[HIDDEN] = False
    hidden = out[..., HIDDEN].copy()
    out[..., tile] *= np.asarray(odds, np.float64)[..., None]
    out[..., seen] *= ((1.0 - hidden) / np.maximum(out[..., seen].sum(axis=-1), 1e-300))[..., None]
    out[..., HIDDEN] = hidden
    return out


# how many of each ink's nearest tiles in ink colour set its density at a cell
# (:func:`ink_colour_odds`). Not a fact of the game: one of three ways tried on validation
# renders alone (Iago at 20 px a cell in bold faces, seeds 83000 on, 36 boards given and found;
# Iago kinds, seeds 83500 on, 28 boards; the model's validation renders, seed 20261207, 60 Iago
# boards), with the ink's a and b not yet divided by its lightness: k = 2, k = 3 and a linear
# discriminant fitted on the board's inks. Inks read wrong of 9 on the first two sets: 0 with
# k = 2, 1 with k = 3, 0 with the discriminant; on the wide renders (20 before) 20, 20 and 26,
# and the discriminant raised the reader's trust level (0.984 -> 0.987). Dividing by the
# lightness (trust.ink_colours) came after the cross-profile check (test renders) lost two
# thin J's to it; on validation it reads 1 of the 9 still wrong (at 0.53), the wide renders'
# 16, and the trust level stays 0.984.
INK_NEIGHBOURS = 2


def _letters_by_ink(classes: np.ndarray, ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(red, blue): bool (cells,) each, the cells read as letters (:func:`_read_as_letters`)
    whose ink (float (size, size, 2): blue, red) is read red, and blue."""
    letter = _read_as_letters(classes)
    p = np.asarray(ink).reshape(-1, 2)
    red = letter & (p[:, 1] > p[:, 0])
    return red, letter & ~red


def ink_colour_odds(inks: np.ndarray, classes: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """How much likelier each cell's ink colour is red than blue on this board: the likelihood
    ratio's log, float64 (size, size); 0 where nothing can be said (fewer than
    :data:`INK_NEIGHBOURS` + 1 tiles of either ink).

    Iago's two inks are told apart on the board itself, as a tile from a bare square is
    (:func:`tile_colour_odds`): a red letter's ink is the colour of the board's other red inks,
    a blue one's of the blue, whatever the light's cast or the camera's white balance, which
    the network, seeing one cell, cannot know. The inks are the cells the network reads as
    letters, red or blue as its ink head says; each ink's colour density at a cell is its k-th
    nearest neighbour's estimate (Loftsgaarden and Quesenberry, 1965; k =
    :data:`INK_NEIGHBOURS`), in two colour dimensions ``(n_blue / n_red) * (d_blue / d_red) **
    2``. At 20 px a cell the network read 9 inks of 72 validation boards wrong, the surest at
    0.991; the board's colours put 8 of the 9 right, the ninth left in doubt (0.53;
    :data:`INK_NEIGHBOURS` says how k was chosen).

    Args:
        inks: float32 (size, size, 2), each cell's ink colour against its face, a and b of Lab
            (:func:`companion.vision.trust.ink_colours`).
        classes: float (size, size, 29) class probabilities (:data:`wide.CLASSES`).
        ink: float (size, size, 2) the network's ink probabilities (blue, red).
    """
    n = classes.shape[0]
    k = INK_NEIGHBOURS
    red, blue = _letters_by_ink(classes, ink)
    if red.sum() <= k or blue.sum() <= k:
        return np.zeros((n, n))
    dist = _colour_distances(np.reshape(inks, (-1, 2)))
    d_red, d_blue = _kth_nearest(dist, red, k), _kth_nearest(dist, blue, k)
    return _log_density_ratio(red.sum(), d_red, blue.sum(), d_blue, 2).reshape(n, n)


def inks_unlike_their_colour(inks: np.ndarray, classes: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """bool (size, size): the letters whose ink is read as a colour the board cannot weigh
    (:data:`INK_NEIGHBOURS` inks of it or fewer: :func:`ink_colour_odds` says nothing), and
    whose ink's colour lies among the other colour's inks: no farther from the nearest of them
    than the farthest of those lies from its own nearest (two of them at least).

    On a board of few tiles (a first word) the network's ink head is all that tells red from
    blue, and a face tinted warm can make it read a blue ink red, surely (a C of a first word at
    0.9988 red, its ink's colour beside its two blue neighbours'; validation game 84038). Told
    against the board's other inks, as :func:`ink_colour_odds` tells them, such a letter's
    colour is in doubt; nothing is fitted.

    Args:
        inks: float32 (size, size, 2), each cell's ink colour against its face
            (:func:`companion.vision.trust.ink_colours`).
        classes: float (size, size, 29) class probabilities (:data:`wide.CLASSES`).
        ink: float (size, size, 2) the ink probabilities (blue, red) as read.
    """
    n = classes.shape[0]
    red, blue = _letters_by_ink(classes, ink)
    out = np.zeros(n * n, bool)
    dist = None
    for mine, other in ((red, blue), (blue, red)):
        if not 0 < mine.sum() <= INK_NEIGHBOURS or other.sum() < 2:
            continue
        if dist is None:
            dist = _colour_distances(np.reshape(inks, (-1, 2)))
        nearest = _kth_nearest(dist, other, 1)  # the diagonal is infinite: not itself
        out[mine] = nearest[mine] <= nearest[other].max()
    return out.reshape(n, n)


def with_ink_colour(ink: np.ndarray, log_odds: np.ndarray) -> np.ndarray:
    """The ink probabilities (float (size, size, 2): blue, red) with the ink colour's evidence
    (:func:`ink_colour_odds`, log likelihood ratio red:blue, float (size, size)) weighed in by
    Bayes' rule, as float64 (size, size, 2)."""
    p = np.asarray(ink, np.float64)
    odds = np.log(np.maximum(p[..., 1], 1e-300)) - np.log(np.maximum(p[..., 0], 1e-300))
    red = 1.0 / (1.0 + np.exp(-(odds + log_odds)))
    return np.stack([1.0 - red, red], axis=-1)


def turn_scores(net: CellNet, crops: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """How surely the cells read as letters are letters under each quarter turn of the board:
    float64 (4, letters), the best letter's probability of each such cell with the board taken
    as turned k (0-3) quarters clockwise in the photo (each crop turned back). ``crops`` and
    ``classes`` are what :func:`read_cells` gave (its input to the network, float (cells, 3,
    px, px), and the class probabilities float (size, size, 29)); the letters are taken from
    them, not read again. (4, 0) when no cell reads as a letter."""
    tiles = crops[_read_as_letters(classes)]
    out = np.zeros((4, len(tiles)))
    if not len(tiles):
        return out
    for k in range(4):
        turned = np.ascontiguousarray(np.rot90(tiles, k=k, axes=(2, 3)))
        logits = net.logits(turned)[:, :N_CLASSES]
        out[k] = softmax(logits, net.temperature)[:, 2:HIDDEN].max(-1)
    return out


def upright_turn(scores: np.ndarray) -> int:
    """Quarter turns (0-3, clockwise) the board lies turned in the photo, by its letters
    (:func:`turn_scores`, float (4, letters)): the turn under which the network reads the most
    letters, the sum (as the mean) of the best letter's probability over the cells it read as
    letters. Returns 0 with under 4 letters: the network reads a turned letter surely as another
    (a turned A as V, a turned Y as A at 0.9999), and with few letters every turn may read as
    surely. Four or more may too (YXSG turned reads as DSXA): where another turn reads every
    letter at the trust level, :func:`companion.vision.reader.read_board` says the way round is
    not known.

    Not the mean log: read sideways, a few bare squares and premium labels pass for letters,
    and upright the network gives them almost nothing as letters; their logs outweighed every
    letter standing upright, and a real board photographed from its side (board_001 of
    ../shared/data, turned 90 degrees either way) was read turned half round. The mean of the
    probabilities counts those cells as the few they are."""
    if scores.shape[1] < 4:
        return 0
    return int(np.argmax(scores.mean(axis=1)))


def turn_since(net: CellNet, last, warp: np.ndarray, profile: Profile) -> int | None:
    """Quarter turns (0-3, clockwise) the board has been turned under the camera since the
    last trusted reading ``last`` (a BoardReading), by the letters it read: the turn k under
    which this frame's warp (uint8 (board_px, board_px, 3), warped at the same corners in any
    order) turned back (``np.rot90(warp, k)``) shows more of the last reading's letters where
    they were than every other turn does, and most of them. None when no turn does (no letter
    on the last board, letters that read alike turned, a move that changed most of them): the
    board's letters alone must say.

    Iago's players turn the board towards the opponent after every move (the rulebook, "The
    Move"). A move changes a few cells, so the letters that were there say which way it now
    stands, where the letters alone may not: a board of two or three letters, or letters that
    read as others upside down (a turned V as A). Not the pixels: turned under the camera, a
    tile's light and shadow change, and no tile of a turned board's warp matched the last's
    (:func:`unchanged_cells`)."""
    n = profile.size
    letters = [(r * n + c, ch) for r, row in enumerate(last.grid) for c, ch in enumerate(row)]
    letters = [(i, class_of(ch)) for i, ch in letters if ch.isalpha()]
    if not letters:
        return None
    where, want = (np.array(v) for v in zip(*letters, strict=True))
    shown = []
    for k in range(4):
        crops = cell_crops(np.ascontiguousarray(np.rot90(warp, k)), n, profile.cell_px, only=where)
        shown.append(int((net.logits(crops)[:, :N_CLASSES].argmax(-1) == want).sum()))
    best = int(np.argmax(shown))
    if 2 * shown[best] <= len(want) or sorted(shown)[-2] == shown[best]:
        return None
    return best


def read_cells(
    warp: np.ndarray,
    profile: Profile,
    net: CellNet | None = None,
    timings: dict[str, float] | None = None,
    photo_cell_px: float | None = None,
):
    """Read every cell of a top-down board (:func:`companion.vision.reader.warp_board`).

    Args:
        warp: uint8 (board_px, board_px, 3) BGR.
        profile: the game's profile.
        net: the cell network (default the shipped one).
        timings: where to add the seconds spent (``cells``: cutting and the network).
        photo_cell_px: pixels a cell in the photo the board was warped from
            (:func:`companion.vision.warp.photo_cell_px`). Under the network's own
            (``CellNet.native_cell_px``, 21.3) every cell is read again moved
            (:func:`read_unsure_again`); over it, or None, only the unsure ones are.

    Returns:
        (grid, confidence, evidence, crops): rows of ``.``, letters (Iago's case from the ink)
        and ``?``; float32 (size, size) calibrated probability that each cell is read right;
        a :class:`CellEvidence`; the network's input (for the turn).
    """
    t0 = time.perf_counter()
    net = net or load_cellnet()
    n, c = profile.size, profile.cell_px
    crops = cell_crops(warp, n, c)
    classes, ink = cell_probabilities(net, crops, n, profile)
    small = photo_cell_px is not None and photo_cell_px < net.native_cell_px
    classes, ink = read_unsure_again(net, warp, classes, ink, profile, every=small)
    lab8 = cv2.cvtColor(warp, cv2.COLOR_BGR2Lab)
    lab = lab8.astype(np.float32)
    colours = trust.cell_colours(lab, n, c)
    # a blank has no letter to read: its face's colour, against the board's tiles and bare
    # squares, says it is a tile
    classes = with_tile_colour(classes, tile_colour_odds(colours, classes, profile))
    unlike = None
    if profile.coloured_ink:
        # Iago's inks: a letter's ink, against the board's other inks, says which it is
        inks = trust.ink_colours(lab, n, c)
        ink = with_ink_colour(ink, ink_colour_odds(inks, classes, ink))
        unlike = inks_unlike_their_colour(inks, classes, ink)
    best = decode_with_counts(classes, profile)
    conf = np.take_along_axis(classes, best[..., None], axis=-1)[..., 0]
    grid = []
    kind = np.zeros((n, n), np.int8)
    hidden = np.zeros((n, n), bool)
    for r in range(n):
        row = []
        for col in range(n):
            k = int(best[r, col])
            if k == HIDDEN:
                # something over the cell: nothing is said of it, and the reading is not sure
                row.append(".")
                hidden[r, col] = True
                conf[r, col] = 0.0
            elif k == EMPTY:
                row.append(".")
            elif k == BLANK:
                row.append("?")
                kind[r, col] = KIND_BLANK
            else:
                kind[r, col] = KIND_LETTER
                letter = CLASSES[k]
                if profile.coloured_ink:
                    red = ink[r, col, 1] > ink[r, col, 0]
                    letter = letter.lower() if red else letter
                    conf[r, col] *= max(ink[r, col])
                row.append(letter)
        grid.append("".join(row))
    t1 = time.perf_counter()
    gain, level = trust.exposure_gain(lab8[:, :, 0], n, c)
    lightness = np.ascontiguousarray(lab8[:, :, 0])
    glare = trust.glare_cells(lightness, n, c)
    glare[trust.lines_seen(lightness, glare, n, c)] = 0.0
    ev = CellEvidence(
        conf.astype(np.float32),
        kind,
        glare,
        colours=colours,
        gain=gain,
        level=level,
        chroma=trust.colourfulness(lab8, n, c),
    )
    ev.softness = trust.edge_width(lightness, n, c)
    ev.probabilities = classes
    ev.hidden = hidden
    ev.ink = ink if profile.coloured_ink else None
    ev.ink_unlike = unlike
    if profile.premium:
        is_empty = kind == KIND_EMPTY
        ev.premium = trust.premium_fit(colours, is_empty, profile.premium)
        ev.premium_against = trust.premium_against_shifts(colours, is_empty, profile.premium)
    if timings is not None:
        timings["cells"] = timings.get("cells", 0.0) + (t1 - t0)
        timings["check"] = timings.get("check", 0.0) + (time.perf_counter() - t1)
    return grid, conf.astype(np.float32), ev, crops


def presence_confidence(grid: list[str], ev: CellEvidence) -> np.ndarray:
    """Each cell's calibrated probability of what the count of the lead needs of it: whether it
    holds a tile, and which colour a lettered tile shows, whatever its letter.

    The rulebook's count ("there must be at least one more letter of your colour on the board
    than of your opponent's colour", Iago, "The Move", condition 2) asks which cells hold tiles
    and which colour each shows, not the letters: a board whose I might be an L is counted as
    surely as one read letter for letter. A cell read as a tile is a tile with the probability
    of every tile class together (one minus the empty square's and ``hidden``'s), times that of
    the ink read (a lettered tile, in a game with coloured ink); a cell read empty, the empty
    square's; a cell the model sees something over, 0. It is never under the cell's own
    confidence, which asks its letter too.

    Args:
        grid: the rows read (``.`` empty, a letter, ``?`` a blank; Iago: lower case red).
        ev: the reading's evidence (:attr:`CellEvidence.probabilities`, ``ink``, ``hidden``).

    Returns:
        float32 (size, size), 0-1.

    Raises:
        VisionError: ``ev`` has no class probabilities (a reading made without the network).
    """
    if ev.probabilities is None:
        raise VisionError("presence_confidence: the reading has no class probabilities")
    p = ev.probabilities
    tile = np.array([[ch != "." for ch in row] for row in grid])
    out = np.where(tile, 1.0 - p[..., EMPTY] - p[..., HIDDEN], p[..., EMPTY])
    if ev.ink is not None:
        red = np.array([[ch.islower() for ch in row] for row in grid])
        lettered = tile & np.array([[ch != "?" for ch in row] for row in grid])
        shown = np.where(red, ev.ink[..., 1], ev.ink[..., 0])
        out = np.where(lettered, out * shown, out)
    if ev.hidden is not None:
        out = np.where(ev.hidden, 0.0, out)
    return np.clip(out, 0.0, 1.0).astype(np.float32)


def grid_chars(grid: list[str]) -> np.ndarray:
    """A board's rows (board notation's rows: ``.``, letters, ``?``) as an array of
    one-character strings, (size, size), to compare cell by cell."""
    return np.array([list(row) for row in grid])


def counted_differently(grid: list[str], truth: list[str]) -> np.ndarray:
    """bool (size, size): the cells where two boards (rows of ``.``, letters, ``?``; Iago: lower
    case red) differ for the count of the lead (:func:`presence_confidence`): a tile on one and
    none on the other, or two lettered tiles showing different colours. ``#`` (a cell a truth
    says is hidden, which no reading matches) differs from everything."""
    a, b = grid_chars(grid), grid_chars(truth)
    lettered = (a != ".") & (b != ".") & (a != "?") & (b != "?")
    out = (b == "#") | (a == "#") | ((a != ".") != (b != "."))
    return out | (lettered & (np.char.islower(a) != np.char.islower(b)))


# 8-bit: a cell has changed when a twentieth or more of its middle's pixels differ from the last
# trusted frame's by this much or more in some colour channel, both boards first brought to one
# exposure (the last's, cellnet.board_scale, the new frame by the frames' gain). A tile laid or
# lifted changes most of its cell; a tile turned over (Iago) changes its ink's pixels, a tenth or
# more of the middle, by 60 or more; a frame's noise, its JPEG and the exposure settling move a
# still cell's pixels by under 20 at the 95th percentile (tests/test_vision_model.py measures
# both on renders)
CHANGED = 40.0
CHANGED_SHARE = 0.05


def unchanged_cells(before: np.ndarray, after: np.ndarray, profile: Profile) -> np.ndarray:
    """Which cells did not change between two warped boards of one camera (uint8 (board_px,
    board_px, 3) BGR each, warped at the same corners): bool (size, size), true where under
    :data:`CHANGED_SHARE` of the cell's middle (its inner half, clear of a neighbour's tile set
    off its square) differs by :data:`CHANGED` or more in a colour channel, both boards first
    brought to one exposure: ``before``'s (:func:`companion.vision.cellnet.board_scale`), and
    ``after`` brought to it by the two frames' gain, the median ratio of their grey pixels over
    the grid (a move changes few of them).

    Not each board's own bright tenth: with few tiles on a dark board, two tiles more moved it
    by half (level 69 to 105 in a render of CAT and COW), every cell differed and none was kept.

    Raises:
        VisionError: the boards are not of the profile's warped shape.
    """
    from companion.vision.cellnet import board_scale
    from companion.vision.errors import VisionError

    n, c = profile.size, profile.cell_px
    side = (n + 1) * c
    for name, board in (("before", before), ("after", after)):
        if board.shape != (side, side, 3):
            raise VisionError(
                f"{name}: expected a warped board of shape ({side}, {side}, 3), got {board.shape}"
            )
    lo, q = c // 2, c // 4
    grey = [
        cv2.cvtColor(b[lo : lo + n * c, lo : lo + n * c], cv2.COLOR_BGR2GRAY)[::2, ::2]
        for b in (before, after)
    ]
    gain = float(np.median((grey[1].astype(np.float32) + 1.0) / (grey[0].astype(np.float32) + 1.0)))
    scale = board_scale(before, n, c) * 255.0
    diff = np.abs(after.astype(np.float32) * (scale / gain) - before.astype(np.float32) * scale)
    diff = diff.max(axis=2)
    middles = diff[lo : lo + n * c, lo : lo + n * c].reshape(n, c, n, c)[:, q : c - q, :, q : c - q]
    share = (middles >= CHANGED).mean(axis=(1, 3))
    return share < CHANGED_SHARE


def two_views(
    before: list[str],
    before_conf: np.ndarray,
    now: list[str],
    now_conf: np.ndarray,
    same: np.ndarray,
    key=None,
) -> tuple[list[str], np.ndarray]:
    """Two frames' readings of the cells that did not change between them (``same``: bool
    (size, size), :func:`unchanged_cells`), taken as two views of one tile: read alike, the
    cell is as sure as the surer view; read differently, at most one view is right, so the
    surer view's reading is taken at no more than the other's doubt of its own reading (1 - its
    confidence): a cell both frames read surely, but differently, is in doubt. Cells not
    ``same`` keep ``now``'s reading.

    Args:
        before, now: the readings' rows, one character a cell (:attr:`BoardReading.grid`).
        before_conf, now_conf: float32 (size, size), 0-1: each cell's confidence.
        same: bool (size, size).
        key: what two readings of a cell must share to agree, a function of its character
            (default the character: the letter, and for Iago its colour, by its case); the
            count's (:func:`presence_confidence`) asks only a tile's presence and colour.

    Returns:
        (rows, float32 (size, size) confidence).

    No constant. A frame's noise and exposure are its own, so a tile read in doubt in one
    frame may be read surely in another (Iago games at 20 px a cell: the same J read 0.82 to
    0.98 frame by frame), and one sure view is as sure as any cell of one photo.
    """
    key = key or (lambda ch: ch)
    rows = [list(r) for r in now]
    conf = np.array(now_conf, dtype=np.float32)
    for r, c in zip(*np.nonzero(same), strict=True):
        a, b = before[r][c], now[r][c]
        pa, pb = float(before_conf[r, c]), float(now_conf[r, c])
        if key(a) == key(b):
            rows[r][c] = a if pa >= pb else b
            conf[r, c] = max(pa, pb)
        else:
            rows[r][c], surer, other = (a, pa, pb) if pa > pb else (b, pb, pa)
            conf[r, c] = min(surer, 1.0 - other)
    return ["".join(r) for r in rows], conf


def tile_and_colour(ch: str) -> str:
    """What the count asks of a cell (a character of :attr:`BoardReading.grid`): ``.`` no tile,
    ``?`` a blank, ``B`` a tile showing blue (upper case), ``r`` red (lower case)."""
    if not ch.isalpha():
        return ch
    return "B" if ch.isupper() else "r"
