"""Finding the board's grid in a photo: its four outer corners, hence the homography.

Two ways, both on a reduced copy of the photo (long side ``FIND_PX`` pixels):

- **ArUco markers** (the recommended set-up; OpenCV's aruco module, dictionary DICT_4X4_50):
  print markers 0, 1, 2, 3 (``companion vision markers``) and stick them at the grid's top-left,
  top-right, bottom-right and bottom-left corners, outside the grid, each with the corner of its
  black square that points at the grid touching the grid's outer corner.
- **The grid itself** (no markers): candidate outlines of the board (contours of edges, simplified
  to quadrilaterals) are each rectified, and the grid's N+1 evenly spaced lines are searched
  across and down the rectified board (a comb of lines whose start and spacing fit the line
  response best). The grid's line crossings are then measured one by one and the homography is
  fitted to them robustly (RANSAC, ``cv2.findHomography``), so a tile, a hand or a label that
  hides a crossing does not pull the grid askew.

:class:`BoardTracker` keeps the corners for a fixed camera, re-checks them on each frame against the
grid seen there, and finds the board again when it (or the camera) has moved.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from companion.vision.errors import BoardNotFoundError
from companion.vision.profiles import Profile, get_profile

FIND_PX = 1024  # long side of the reduced photo the grid is found on, pixels
MARKER_PX = 720  # long side of the reduced photo the markers are found on, pixels
ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
# the corner of each marker's black square that touches the grid: aruco gives a marker's corners
# as its own top-left, top-right, bottom-right, bottom-left
_INNER_CORNER = (2, 3, 0, 1)

NET_THRESHOLDS = (1.0, 0.6)  # shares of Otsu's threshold for the grid lines' net
OUTSIDE_PENALTY = 0.5  # weight of a line found one pitch beyond the comb's ends
_CELL = 16  # pixels a cell in the rectified board used to find and check the grid
EDGE_BAND_MIN = 0.3  # edge_bands under this: no grid line crosses an outer row or column
# the longest of a board outline's opposite sides over the shortest: a board photographed at a
# slant, its far edge 0.55 of its near one (1.5, before, lost real board 1 seen at 0.66)
OPPOSITE_SIDES = 1.8
SAME_GRID = 0.25  # of a cell: combs whose corners are all this near are one grid, refined once


def reduce(image: np.ndarray, long_side: int = FIND_PX) -> tuple[np.ndarray, float]:
    """A grey copy of ``image`` whose long side is at most ``long_side`` pixels, and the factor
    (reduced pixels per photo pixel, <= 1).

    Halved by ``cv2.pyrDown`` while twice the size or more, then smoothed with a Gaussian of
    sigma ``(1/factor - 1) / 2`` pixels (the usual anti-aliasing width) and resampled bilinearly:
    OpenCV's area resampling gives much the same copy at a non-integer factor but takes ten times
    as long (9 ms for a 2 MP photo, against under 2).
    """
    h, w = image.shape[:2]
    f = min(1.0, long_side / max(h, w))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    if f < 1.0:
        # at least a pixel a side: a 30000x5 strip's short side would round to 0 (cv2.resize fails)
        size = (max(1, round(w * f)), max(1, round(h * f)))
        while min(grey.shape[0], grey.shape[1]) >= 2 * min(size[1], size[0]) + 2:
            grey = cv2.pyrDown(grey)
        rest = size[0] / grey.shape[1]
        if rest < 1.0:
            sigma = (1.0 / rest - 1.0) / 2.0
            if sigma > 0.1:
                grey = cv2.GaussianBlur(grey, (0, 0), sigma)
            grey = cv2.resize(grey, size, interpolation=cv2.INTER_LINEAR)
    return grey, f


# ----------------------------------------------------------------------------- markers

# how far a marker candidate's outline may stray from a quadrilateral, of its perimeter: on 90
# rendered photos with markers (every kind, both profiles, 900x700 to 2000x1500) 0.02 finds 304
# markers where OpenCV's default 0.03 finds 305 (all four on 58 photos either way), in 25% less
# time, and 40% less on a dark board with light lines and no markers
MARKER_POLYGON_ACCURACY = 0.02
# adaptive threshold windows (pixels of the MARKER_PX copy): one window of 13 finds markers of
# 40 pixels and more (about a cell of a 15x15 grid that fills the photo) as well as OpenCV's
# default range does, in a third of the time; the range is tried when only some markers are seen
_QUICK_WINDOWS = (13, 13, 10)
_FULL_WINDOWS = (7, 27, 10)
_DETECTORS: dict[tuple[int, int, int], object] = {}


def _detector(windows: tuple[int, int, int] = _QUICK_WINDOWS):
    """OpenCV's ArUco detector (DICT_4X4_50, sub-pixel corners) thresholding with ``windows``
    (smallest, largest, step: odd pixel sizes of the adaptive threshold's window)."""
    if windows not in _DETECTORS:
        params = cv2.aruco.DetectorParameters()
        (
            params.adaptiveThreshWinSizeMin,
            params.adaptiveThreshWinSizeMax,
            params.adaptiveThreshWinSizeStep,
        ) = windows
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        # candidates' outlines must be cleaner quadrilaterals than OpenCV's default (0.03): a
        # dark board with light lines makes each of its cells a candidate, and fewer pass
        params.polygonalApproxAccuracyRate = MARKER_POLYGON_ACCURACY
        dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
        _DETECTORS[windows] = cv2.aruco.ArucoDetector(dictionary, params)
    return _DETECTORS[windows]


def _marker_corners(grey: np.ndarray, windows: tuple[int, int, int]) -> dict[int, np.ndarray]:
    """The grid corner each of our markers seen in ``grey`` gives: {0-3: float32 (2,)}."""
    corners, ids, _ = _detector(windows).detectMarkers(grey)
    found = {}
    for quad, marker_id in zip(corners, () if ids is None else ids.ravel(), strict=True):
        if int(marker_id) in MARKER_IDS:
            k = MARKER_IDS.index(int(marker_id))
            found[k] = quad.reshape(4, 2)[_INNER_CORNER[k]]
    return found


def find_markers(grey: np.ndarray) -> tuple[np.ndarray, int] | None:
    """The grid's corners (float32 (4, 2), pixels of ``grey``) from the corner markers and how
    many markers were seen (4, or 3 with the fourth corner completed as a parallelogram), or
    None when fewer are seen.

    One threshold window is tried first; when it shows some of the markers but not all four,
    OpenCV's wider range of windows is tried too and the one that sees more is kept.
    """
    found = _marker_corners(grey, _QUICK_WINDOWS)
    if 0 < len(found) < 4:
        more = _marker_corners(grey, _FULL_WINDOWS)
        if len(more) > len(found):
            found = more
    if len(found) == 3:
        # one marker hidden (a hand, out of the frame): the fourth corner completes the
        # parallelogram; the caller fits the grid's crossings to correct the perspective
        (missing,) = set(range(4)) - set(found)
        opposite = (missing + 2) % 4
        found[missing] = found[(missing + 1) % 4] + found[(missing + 3) % 4] - found[opposite]
        return (np.float32([found[k] for k in range(4)]), 3) if _convex(found) else None
    if len(found) < 4:
        return None
    return np.float32([found[k] for k in range(4)]), 4


def _convex(points: dict) -> bool:
    pts = np.float32([points[k] for k in range(4)])
    signs = []
    for i in range(4):
        u, v = pts[(i + 1) % 4] - pts[i], pts[(i + 2) % 4] - pts[(i + 1) % 4]
        signs.append(u[0] * v[1] - u[1] * v[0] > 0)
    return all(signs) or not any(signs)


# ----------------------------------------------------------------------------- the grid


def _line_responses(rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ridge responses of a rectified grey board: (across, down) float32 images, high on thin
    horizontal and vertical lines, light or dark."""
    g = cv2.GaussianBlur(rect.astype(np.float32), (0, 0), 1.0)
    horiz = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=5))
    vert = np.abs(cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=5))
    return horiz, vert


@functools.lru_cache(maxsize=16)
def _comb_places(length: int, n: int, pitch_lo: float, pitch_hi: float):
    """Where every comb that :func:`_comb` scores puts its lines, for a profile of ``length``
    pixels: (pitches float64 (P,), starts float64 (S,), valid bool (P, S), lines int (P, S, n+1),
    midpoints int (P, S, n), before int (P, S), after int (P, S), before_in bool (P, S),
    after_in bool (P, S)), pixel indices into the profile; or None when no pitch fits.

    The same for every outline tried (a rectified board is always the same size), so kept."""
    pitches = np.arange(pitch_lo, pitch_hi, 0.25)
    pitches = pitches[length - n * pitches - 1 > 0]
    if len(pitches) == 0:
        return None
    starts = np.arange(0, int(np.ceil(length - n * pitches[0] - 1)), 1.0)
    valid = starts[None, :] < (length - n * pitches[:, None] - 1)  # (pitches, starts)
    k = np.arange(n + 1)
    last = length - 1
    # (pitches, starts, lines): where each comb's lines and the midpoints between them fall
    pos = starts[None, :, None] + k[None, None, :] * pitches[:, None, None]
    mid = starts[None, :, None] + (k[None, None, :-1] + 0.5) * pitches[:, None, None]
    # a line one pitch beyond either end means the grid goes on: the comb is one off
    lo_pos = starts[None, :] - pitches[:, None]
    hi_pos = starts[None, :] + (n + 1) * pitches[:, None]
    places = (
        pitches,
        starts,
        valid,
        np.minimum(pos.round().astype(int), last),
        np.minimum(mid.round().astype(int), last),
        np.clip(lo_pos.round().astype(int), 0, last),
        np.clip(hi_pos.round().astype(int), 0, last),
        lo_pos >= 0,
        hi_pos < length,
    )
    for a in places:
        a.flags.writeable = False
    return places


def _comb(
    profile: np.ndarray, n: int, pitch_lo: float, pitch_hi: float
) -> tuple[float, float, float]:
    """The n+1 evenly spaced lines that best fit a 1-D line response: (start, pitch, score).

    Every pitch from ``pitch_lo`` to ``pitch_hi`` (pixels, in steps of a quarter pixel) and every
    whole-pixel start that keeps the comb inside the profile are scored at once: the mean
    response on the lines less that midway between them, less ``OUTSIDE_PENALTY`` times a line
    one pitch beyond either end. Ties go to the smaller pitch, then the smaller start; score
    ``-inf`` when no comb fits.
    """
    places = _comb_places(len(profile), n, float(pitch_lo), float(pitch_hi))
    if places is None:
        return 0.0, 0.0, -np.inf
    pitches, starts, valid, pos, mid, lo_pos, hi_pos, lo_in, hi_in = places
    p = np.maximum(profile, np.maximum(np.roll(profile, 1), np.roll(profile, -1)))
    p = p / (np.median(p) + 1e-6)
    mids = p[mid].mean(2)
    score = p[pos].mean(2) - mids
    if OUTSIDE_PENALTY:
        before = p[lo_pos] * lo_in
        after = p[hi_pos] * hi_in
        score -= OUTSIDE_PENALTY * np.maximum(0.0, np.maximum(before, after) - mids)
    score = np.where(valid, score, -np.inf)
    i, j = np.unravel_index(int(np.argmax(score)), score.shape)
    return float(starts[j]), float(pitches[i]), float(score[i, j])


def _net_quads(binary: np.ndarray, area: int) -> list[np.ndarray]:
    """Quadrilaterals around the largest connected net of a binary line image."""
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    boxes = [cv2.boundingRect(c) for c in contours]
    big = int(np.argmax([w * h for _, _, w, h in boxes]))
    if boxes[big][2] * boxes[big][3] < 0.08 * area:
        return []
    hull = cv2.convexHull(contours[big])
    out = []
    quad = _quad_from_long_edges(hull)
    if quad is not None:
        out.append(quad)
    quad = _simplified_quad(hull)
    if quad is not None:
        out.append(quad)
    return out


def _simplified_quad(hull: np.ndarray) -> np.ndarray | None:
    """The convex hull simplified to four corners (float32 (4, 2), ordered), trying tolerances
    of 1% to 6% of its perimeter; None when no tolerance gives four."""
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.04, 0.06):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return order_corners(approx.reshape(4, 2).astype(np.float32))
    return None


def _quad_candidates(grey: np.ndarray) -> list[np.ndarray]:
    """Quadrilaterals (float32 (4, 2), ordered) that may be the board's or the grid's outline,
    largest first."""
    h, w = grey.shape
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    quads = []
    edges = cv2.Canny(blur, 30, 90)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    for mode in (cv2.RETR_EXTERNAL, cv2.RETR_LIST):
        contours, _ = cv2.findContours(edges, mode, cv2.CHAIN_APPROX_SIMPLE)
        contours = sorted(contours, key=cv2.contourArea, reverse=True)[:6]
        for c in contours:
            if cv2.contourArea(c) < 0.08 * h * w:
                break
            quad = _simplified_quad(cv2.convexHull(c))
            if quad is not None:
                quads.append(quad)
    # the grid's lines form one connected net, light or dark: its outline is the grid's
    k = max(5, (max(h, w) // 90) | 1)
    kernel = np.ones((k, k), np.uint8)
    for op in (cv2.MORPH_TOPHAT, cv2.MORPH_BLACKHAT):
        ridge = cv2.morphologyEx(blur, op, kernel)
        otsu, _ = cv2.threshold(ridge, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
        # lines in the dim part of a lit board are fainter: a lower threshold too, gaps closed
        for share in NET_THRESHOLDS:
            _, binary = cv2.threshold(ridge, share * otsu, 255, cv2.THRESH_BINARY)
            if share < 1.0:
                binary = cv2.dilate(binary, np.ones((3, 3), np.uint8))
            quads[:0] = _net_quads(binary, h * w)
    out: list[np.ndarray] = []
    for q in quads:
        if all(np.abs(q - o).max() > 4 for o in out):
            out.append(q)
    return out


def _quad_from_long_edges(hull: np.ndarray) -> np.ndarray | None:
    """The quadrilateral made by the four longest edges of a convex outline (a grid whose outline
    has small bumps: a tile over its edge), their neighbours intersected; or None."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.005 * peri, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    edges = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    lengths = [float(np.linalg.norm(b - a)) for a, b in edges]
    longest = sorted(sorted(range(len(edges)), key=lambda i: -lengths[i])[:4])
    corners = []
    for k in range(4):
        (a1, b1), (a2, b2) = edges[longest[k - 1]], edges[longest[k]]
        d1, d2 = b1 - a1, b2 - a2
        den = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(den) < 1e-9:
            return None
        t = ((a2[0] - a1[0]) * d2[1] - (a2[1] - a1[1]) * d2[0]) / den
        corners.append(a1 + t * d1)
    return order_corners(np.float32(corners))


def _plausible(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """A quadrilateral that a square board photographed could make: convex, every angle 45-135
    degrees, opposite sides within ``OPPOSITE_SIDES`` times each other (a phone held at a slant
    sees the board's far edge shorter), neighbours within twice, and at least 8% of the photo."""
    pts = np.float32(quad)
    h, w = shape[:2]
    if cv2.contourArea(pts) < 0.08 * h * w:
        return False
    for i in range(4):
        a, b, c = pts[i - 1], pts[i], pts[(i + 1) % 4]
        u, v = a - b, c - b
        cos = float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9))
        if abs(cos) > 0.71:
            return False
    sides = [float(np.linalg.norm(pts[(i + 1) % 4] - pts[i])) + 1e-9 for i in range(4)]
    # a square board: opposite sides alike but for the slant, no side twice its neighbour
    if (
        max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1])
        > OPPOSITE_SIDES
    ):
        return False
    if max(sides[i] / sides[(i + 1) % 4] for i in range(4)) > 2.0:
        return False
    return _convex({k: pts[k] for k in range(4)})


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Four points ordered top-left, top-right, bottom-right, bottom-left (float32 (4, 2))."""
    pts = np.asarray(pts, np.float32).reshape(4, 2)
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise from about -180 degrees (the left) in image axes
    k = int(np.argmin(pts.sum(1)))  # top-left: smallest x + y
    return np.roll(pts, -k, axis=0)


def _rectify(grey: np.ndarray, quad: np.ndarray, side: int, margin: float = 0.0):
    """Warp the inside of ``quad`` to a square of ``side`` pixels (plus ``margin`` pixels all
    round); returns (image, homography from photo to square)."""
    lo, hi = margin, margin + side
    dst = np.float32([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])
    hom = cv2.getPerspectiveTransform(np.float32(quad), dst)
    size = int(round(side + 2 * margin))
    return cv2.warpPerspective(grey, hom, (size, size), flags=cv2.INTER_LINEAR), hom


def _grid_in_quad(grey: np.ndarray, quad: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """Where the n x n grid lies inside an outline: (corners in ``grey`` pixels, fit score)."""
    side = n * _CELL * 1.4
    rect, hom = _rectify(grey, quad, int(side))
    horiz, vert = _line_responses(rect)
    inner = slice(int(0.05 * side), int(0.95 * side))
    rows = horiz[:, inner].mean(1)
    cols = vert[inner, :].mean(0)
    lo, hi = side / n * 0.55, side / n * 1.0 + 0.01
    y0, py, sy = _comb(rows, n, lo, hi)
    x0, px, sx = _comb(cols, n, lo, hi)
    if not np.isfinite(sx + sy) or max(px, py) > 1.25 * min(px, py):
        return quad, -np.inf
    g = np.float32([[x0, y0], [x0 + n * px, y0], [x0 + n * px, y0 + n * py], [x0, y0 + n * py]])
    back = cv2.perspectiveTransform(g.reshape(1, 4, 2), np.linalg.inv(hom))[0]
    return back.astype(np.float32), min(sx, sy)


def refine_grid(
    grey: np.ndarray, corners: np.ndarray, n: int, rounds: int = 2
) -> tuple[np.ndarray, float]:
    """Measure the grid's line crossings near where ``corners`` put them and fit the homography
    to them with RANSAC. Returns (refined corners, share of crossings that fit, 0-1)."""
    q = 24
    share = 0.0
    grid_pts = np.float32([[j, i] for i in range(n + 1) for j in range(n + 1)])
    r = q // 3
    lines = q + np.arange(n + 1) * q
    offsets = np.arange(-r, r + 1)
    for _ in range(rounds):
        rect, hom = _rectify(grey, corners, n * q, margin=q)
        horiz, vert = _line_responses(rect)
        # vertical lines: column sums over a band of half a cell above and below each crossing
        vc = np.vstack([np.zeros((1, vert.shape[1]), np.float32), np.cumsum(vert, 0)])
        vband = vc[lines + q // 2] - vc[lines - q // 2]  # (n+1 rows, width)
        hc = np.hstack([np.zeros((horiz.shape[0], 1), np.float32), np.cumsum(horiz, 1)])
        hband = (hc[:, lines + q // 2] - hc[:, lines - q // 2]).T  # (n+1 columns, height)
        idx = lines[:, None] + offsets[None, :]  # (n+1, 2r+1)
        vs = vband[:, idx]  # (row i, column j, offset)
        hs = hband[:, idx].transpose(1, 0, 2)  # (row i, column j, offset)
        dx = np.argmax(vs, axis=2) - r
        dy = np.argmax(hs, axis=2) - r
        # a crossing counts when both its lines stand out of their surroundings
        ok = (vs.max(2) >= 1.6 * np.median(vs, 2)) & (hs.max(2) >= 1.6 * np.median(hs, 2))
        ii, jj = np.nonzero(ok)
        found_grid = grid_pts[ii * (n + 1) + jj]
        found_img = np.stack([lines[jj] + dx[ii, jj], lines[ii] + dy[ii, jj]], axis=1)
        if len(found_img) < max(8, (n + 1) ** 2 // 6):
            return corners, share
        inv = np.linalg.inv(hom)
        img_pts = cv2.perspectiveTransform(np.float32(found_img).reshape(1, -1, 2), inv)[0]
        cell_px = float(np.linalg.norm(corners[1] - corners[0])) / n
        hom_fit, inliers = cv2.findHomography(
            np.float32(found_grid), img_pts, cv2.RANSAC, max(1.0, 0.12 * cell_px)
        )
        if hom_fit is None:
            return corners, share
        share = float(inliers.sum()) / (n + 1) ** 2
        g = np.float32([[0, 0], [n, 0], [n, n], [0, n]]).reshape(1, 4, 2)
        corners = cv2.perspectiveTransform(g, hom_fit)[0].astype(np.float32)
    return corners, share


def grid_score(grey: np.ndarray, corners: np.ndarray, n: int) -> float:
    """How well a grid of n x n cells at ``corners`` matches the lines seen in ``grey``: the
    line response on the expected lines over that midway between them (about 1 for no grid)."""
    rect, _ = _rectify(grey, corners, n * _CELL, margin=_CELL / 2)
    horiz, vert = _line_responses(rect)
    off = _CELL // 2
    lines = off + np.arange(n + 1) * _CELL
    mids = off + (np.arange(n) + 0.5).astype(np.float32) * _CELL
    mids = mids.round().astype(int)
    rows, cols = horiz.mean(1), vert.mean(0)
    on = rows[lines].mean() + cols[lines].mean()
    between = rows[mids].mean() + cols[mids].mean()
    return float(on / (between + 1e-6))


def find_grid(grey: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """The grid's corners found without markers (pixels of ``grey``) and the share of its line
    crossings that fit them.

    Raises:
        BoardNotFoundError: no outline that holds an n x n grid.
    """
    h, w = grey.shape
    candidates = _quad_candidates(grey)
    # the whole photo is a candidate too (a board that fills the frame)
    candidates.append(np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]))
    combs = []
    for quad in candidates:
        if not _plausible(quad, grey.shape):
            continue
        corners, score = _grid_in_quad(grey, quad, n)
        if score >= 0.3:
            combs.append((score, corners))
    best, best_score = None, -np.inf
    tried: list[np.ndarray] = []
    for score, corners in sorted(combs, key=lambda item: -item[0])[:3]:
        comb_score = score
        cell = float(np.linalg.norm(corners[1] - corners[0])) / n
        if any(np.abs(corners - t).max() < SAME_GRID * cell for t in tried):
            continue  # the same grid as a better comb's (the board's outline and the net's)
        tried.append(corners)
        refined, _ = refine_grid(grey, corners, n, rounds=1)
        # a part of a grid (or a grid one line off) has a full grid line beyond an edge; the
        # whole grid has the board's frame there
        if grid_beyond(grey, refined, n) > 0.9:
            score *= 0.1
        # one line off the other way: the frame's line taken for the last, a label band inside
        # (a grid the photo's edge cuts has no lines in its cut band either: not judged so)
        if (
            corners_inside(refined, grey.shape)
            and min(edge_bands(grey, refined, n)) < EDGE_BAND_MIN
        ):
            score *= 0.1
        if score > best_score:
            best, best_score = refined, score
        if best_score == comb_score:
            break  # not marked down: no comb after it (none scores more) can beat it
    if best is None:
        raise BoardNotFoundError(
            f"no {n}x{n} grid found in the photo: frame the whole board with its grid visible, "
            "or stick the four corner markers, or give --corners"
        )
    return refine_grid(grey, best, n, rounds=1)


def corners_inside(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether the four corners (float32 (4, 2), pixels) lie inside a photo (or its reduced
    copy) of ``shape``: a grid whose corners leave it is cut by the photo's edge."""
    return all(sides_inside(corners, shape))


def sides_inside(corners: np.ndarray, shape: tuple[int, ...]) -> tuple[bool, bool, bool, bool]:
    """For each side of the grid at ``corners`` (float32 (4, 2), pixels, top-left first: top,
    right, bottom, left), whether both its corners lie inside a photo (or its reduced copy) of
    ``shape``: the band of cells along that side is in the photo, whatever the photo's edge cuts
    elsewhere."""
    h, w = shape[:2]
    pts = np.asarray(corners, np.float32).reshape(4, 2)
    inside = ((pts >= 0) & (pts <= np.float32([w - 1, h - 1]))).all(axis=1)
    return tuple(bool(inside[k] and inside[(k + 1) % 4]) for k in range(4))


def grid_beyond(grey: np.ndarray, corners: np.ndarray, n: int) -> float:
    """How much grid there is one cell beyond the edges of a grid at ``corners``: the strongest
    of the four lines there over the mean of the grid's own lines, both less the level between
    lines (0: nothing beyond; 1: a line as strong as the grid's own); the largest of
    :func:`beyond_sides`."""
    return max(beyond_sides(grey, corners, n))


def find_board(
    image: np.ndarray, profile: Profile | str, reduced: tuple[np.ndarray, float] | None = None
) -> tuple[np.ndarray, str]:
    """The grid's outer corners in a photo (float32 (4, 2), photo pixels, top-left first) and how
    they were found (``markers`` or ``grid``).

    Args:
        image: uint8 (H, W, 3) BGR photo.
        profile: gives the grid size.
        reduced: :func:`reduce` of the photo, if already made.

    Raises:
        BoardNotFoundError: neither the four markers nor the grid could be found.
    """
    profile = get_profile(profile)
    grey, f = reduced if reduced is not None else reduce(image)
    # the markers' copy is made from the grid's (one conversion and reduction of the photo)
    small, g = reduce(grey, MARKER_PX)
    g *= f
    markers = find_markers(small)
    if markers is not None and markers[1] == 4:
        return (markers[0] / g).astype(np.float32), "markers"
    if markers is not None:
        corners, _ = refine_grid(grey, markers[0] * (f / g), profile.size)
        return (corners / f).astype(np.float32), "markers"
    corners, _ = find_grid(grey, profile.size)
    return (corners / f).astype(np.float32), "grid"


class BoardTracker:
    """Keeps the grid's corners for a fixed camera.

    Each frame, the kept corners are re-checked against the grid lines seen at them
    (:func:`grid_score`); when the score falls below ``keep`` times the score the board had when it
    was found, the board or the camera has moved and the board is found again.
    """

    def __init__(self, profile: Profile | str, keep: float = 0.7):
        self.profile = get_profile(profile)
        self.keep = keep
        self.corners: np.ndarray | None = None
        self.how = ""  # how the kept corners were found: markers or grid
        self._score = 0.0
        self.finds = 0

    def reset(self) -> None:
        """Forget the board: the next frame finds it afresh."""
        self.corners = None

    def locate(self, image: np.ndarray) -> tuple[np.ndarray, str]:
        """The corners for this frame and ``tracked`` (kept), ``markers`` or ``grid`` (found).

        Raises:
            BoardNotFoundError: the board moved and cannot be found again.
        """
        grey, f = reduce(image)
        n = self.profile.size
        if self.corners is not None:
            score = grid_score(grey, self.corners * f, n)
            if score >= self.keep * self._score:
                return self.corners, "tracked"
        corners, how = find_board(image, self.profile)
        self.corners, self.how = corners, how
        self._score = grid_score(grey, corners * f, n)
        self.finds += 1
        return corners, how


def grid_phase(grey: np.ndarray, corners: np.ndarray, n: int) -> tuple[float, float, float]:
    """Where the grid's lines really are, against where ``corners`` put them: the offset (in
    cells, -0.5 to 0.5, across and down) at which an evenly spaced comb of lines fits the line
    response best, and how clearly the lines stand out at that offset (response on the lines over
    that midway between them). An offset near 0 means the grid sits where the corners say."""
    c = _CELL
    rect, _ = _rectify(grey, corners, n * c, margin=c)
    horiz, vert = _line_responses(rect)
    span = slice(c, c + n * c)
    rows, cols = horiz[:, span].mean(1), vert[span, :].mean(0)
    best = []
    clarity = []
    # every offset's comb at once: (offsets, lines) and the midpoints between its lines
    at = c + np.arange(-c // 2, c // 2)[:, None] + np.arange(n + 1)[None, :] * c
    mid = at[:, :-1] + c // 2
    for profile in (cols, rows):
        scores = profile[at].mean(axis=1) / (profile[mid].mean(axis=1) + 1e-6)
        k = int(np.argmax(scores))
        best.append((k - c // 2) / c)
        clarity.append(float(scores[k]))
    return best[0], best[1], min(clarity)


def beyond_sides(grey: np.ndarray, corners: np.ndarray, n: int) -> tuple[float, ...]:
    """How strong a full line one cell beyond each edge of the grid at ``corners`` is (top, right,
    bottom, left), over the grid's own lines, both less the level between lines (0: nothing; 1: a
    line as strong as the grid's own). A grid one line off shows one on one side only; a frame
    drawn one cell out shows one on every side."""
    c = _CELL
    rect, _ = _rectify(grey, corners, n * c, margin=2 * c)
    horiz, vert = _line_responses(rect)
    span = slice(2 * c, 2 * c + n * c + 1)
    rows, cols = horiz[:, span].mean(1), vert[span, :].mean(0)

    def peak(profile: np.ndarray, at: int) -> float:
        return float(profile[max(at - 2, 0) : at + 3].max())

    lines = 2 * c + np.arange(n + 1) * c
    own = 0.5 * (np.mean([peak(rows, y) for y in lines]) + np.mean([peak(cols, x) for x in lines]))
    mids = lines[:-1] + c // 2
    floor = 0.5 * (np.median(rows[mids]) + np.median(cols[mids]))
    far = 2 * c + (n + 1) * c
    outside = [peak(rows, c), peak(cols, far), peak(rows, far), peak(cols, c)]
    return tuple(float(max(0.0, (v - floor) / max(own - floor, 1e-6))) for v in outside)


def edge_bands(grey: np.ndarray, corners: np.ndarray, n: int) -> tuple[float, ...]:
    """How clearly the grid's lines cross each outermost row and column of cells of the grid at
    ``corners`` (top, right, bottom, left): the line response on the lines inside that band of
    cells, above the level between lines there, over the same inside the inner cells (about 1
    for a true grid; tiles and soft photos bring it to 0.7; 0 or less where no line crosses).

    A grid found one line off with a frame or labels round the board (a label band as wide as a
    cell, then the frame's line) has, as its outer row and column, that band: the frame's line
    is taken for the grid's last line, and no grid line crosses the band.
    """
    c = _CELL
    rect, _ = _rectify(grey, corners, n * c, margin=c)
    horiz, vert = _line_responses(rect)
    at = c + np.arange(n + 1) * c
    mids = at[:-1] + c // 2

    near = at[:, None] + np.arange(-2, 3)[None, :]  # the rows within 2 pixels of each line

    def crossing(img: np.ndarray) -> float:
        """img: (along the lines, across them); the lines' response over the level between."""
        on = np.median(img[near].max(axis=1).mean(axis=1))
        between = np.median(img[mids].mean(axis=1))
        return float(on - between)

    first, last = slice(at[0] + 2, at[1] - 2), slice(at[-2] + 2, at[-1] - 2)
    inner = slice(at[1] + 2, at[-2] - 2)
    across = max(crossing(vert[inner, :].T), 1e-6)  # the inner cells' own figure, each way
    down = max(crossing(horiz[:, inner]), 1e-6)
    top = crossing(vert[first, :].T) / across
    right = crossing(horiz[:, last]) / down
    bottom = crossing(vert[last, :].T) / across
    left = crossing(horiz[:, first]) / down
    return top, right, bottom, left
