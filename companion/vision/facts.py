"""What the rules say of a board read: the step after :mod:`companion.vision.cells` reads it.

The facts of a board that need no fitting (:func:`board_facts`): no more of a letter than the
set holds, no more tiles than the set has, every tile in a word of two letters or more, the
tiles in one connected group. In a game with blank tiles a reading that breaks them is read
again cell by cell (:func:`mend_by_facts`); a bare square in doubt only of a cover, with bare
squares all round, holds no tile (:func:`bare_by_facts`). With a game's record
(:func:`with_known_board`) the board before the move is weighed in: its tiles lie where they
lay, a move lays few tiles in one line (:func:`move_squares`), and the classes it has used up
are spent (:func:`spent_classes`).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.cellnet import N_CLASSES
from companion.vision.errors import VisionError
from companion.vision.profiles import Profile
from companion.vision.wide import BLANK, CLASSES, EMPTY, HIDDEN


def class_limits(profile: Profile) -> np.ndarray:
    """How many cells may take each class (int64 (29,)): the set's count of a letter or of the
    blanks (:attr:`Profile.tile_counts`), unlimited for the rest (an empty square, a letter
    the rules give no count of, a covered cell)."""
    limit = np.full(N_CLASSES, np.iinfo(np.int64).max)
    for ch, held in (profile.tile_counts or {}).items():
        limit[class_of(ch)] = held
    return limit


def _beside(cells: np.ndarray) -> np.ndarray:
    """bool (n, n): the cells with one of ``cells`` (bool (n, n)) beside them, across or down.

    Plain array shifts: ``cv2.filter2D`` of a uint8 image by a uint8 kernel gave wrong sums in
    the arm64 root of ``make pi-check`` (OpenCV 4.11 under qemu), and board facts with them."""
    c = np.asarray(cells, bool)
    near = np.zeros_like(c)
    near[1:, :] |= c[:-1, :]
    near[:-1, :] |= c[1:, :]
    near[:, 1:] |= c[:, :-1]
    near[:, :-1] |= c[:, 1:]
    return near


def _words_through(tiles: np.ndarray) -> np.ndarray:
    """bool (n, n): tiles with a tile beside them across or down (in a word of 2 or more)."""
    return tiles & _beside(tiles)


def _groups(tiles: np.ndarray) -> tuple[int, np.ndarray]:
    """The groups of ``tiles`` (bool (n, n)) joined across or down: (how many, int32 (n, n)
    labels, 0 off the tiles and 1 to the count on them)."""
    count, labels = cv2.connectedComponents(np.asarray(tiles, np.uint8), connectivity=4)
    return count - 1, labels


def _joining_cells(tiles: np.ndarray, labels: np.ndarray | None = None) -> np.ndarray:
    """bool (n, n): the empty cells between two groups of ``tiles`` (bool (n, n)) that one
    tile there would join (tiles of two groups beside it, across or down); ``labels`` the
    groups (:func:`_groups`) if already labelled."""
    group = np.pad(_groups(tiles)[1] if labels is None else labels, 1)
    near = np.stack([group[2:, 1:-1], group[:-2, 1:-1], group[1:-1, 2:], group[1:-1, :-2]])
    labelled = np.where(near > 0, near, np.iinfo(np.int32).max)
    first = labelled.min(axis=0)
    other = np.where((near > 0) & (near != first), near, 0).max(axis=0)
    return ~tiles & (other > 0)


def _faults(tiles: np.ndarray) -> int:
    """How far a board's tiles (bool (n, n)) are from a game's: tiles in no word of two letters
    or more, plus the groups of tiles beyond the first (0 for a position of a game)."""
    if not tiles.any():
        return 0
    alone = int((tiles & ~_words_through(tiles)).sum())
    return alone + _groups(tiles)[0] - 1


def class_of(ch: str) -> int:
    """The class index (:data:`companion.vision.wide.CLASSES`) of one written cell."""
    if ch == ".":
        return EMPTY
    if ch == "?":
        return BLANK
    return CLASSES.index(ch.upper())


def mend_by_facts(
    grid: list[str], confidence: np.ndarray, probabilities: np.ndarray | None, profile: Profile
) -> tuple[list[str], np.ndarray, int]:
    """Read again, under the rules of a game with blank tiles, the few cells that break them.

    A blank tile shows no letter, and on a board whose squares are the colour of its tiles the
    network may take it for a bare square (or a bare square for it). In such a game every tile
    lies in a word of two letters or more and the tiles form one group (Scrabble's rules: the
    first word covers the centre, each next one joins those laid), so a reading that breaks
    this has missed a tile or seen one too many. One cell at a time, the change that mends the
    most for the least probability is made: an empty cell taking its most probable tile (the
    set's counts allowing), or a tile read on a bare square emptied, until the board is a
    game's or no one change brings it nearer. A board whose groups lie too far apart for one
    tile to join is left as read (:func:`board_facts` says so).

    A cell changed keeps the network's probability of what it is now read as (under what it
    was first read as), so a board mended is never trusted: the rules choose among the
    readings the camera left in doubt, and a player looks.

    Args:
        grid: the reading, rows of ``.``, letters and ``?``.
        confidence: float32 (size, size), each cell's calibrated probability.
        probabilities: float (size, size, 29): each class's calibrated probability
            (:attr:`companion.vision.cells.CellEvidence.probabilities`); None (or a game
            without blank tiles, or a cell read as covered) leaves the reading as it is.
        profile: the game's profile.

    Returns:
        (grid, confidence, cells changed).
    """
    if not profile.blank_tiles or probabilities is None:
        return grid, confidence, 0
    cls = np.array([[class_of(ch) for ch in row] for row in grid])
    if (cls == HIDDEN).any():
        return grid, confidence, 0
    p = np.asarray(probabilities, np.float64)
    logp = np.log(np.maximum(p, 1e-12))
    limit = class_limits(profile)
    limit[HIDDEN] = 0
    conf = confidence.astype(np.float32).copy()
    changed = np.zeros(cls.shape, bool)
    while True:
        tiles = cls != EMPTY
        now = _faults(tiles)
        if not now:
            break
        # the cells one change of which can mend: a lone tile (emptied), an empty cell beside
        # a lone tile or between two groups (filled)
        lone = tiles & ~_words_through(tiles)
        beside_lone = _beside(lone) & ~tiles
        cand = lone | beside_lone | _joining_cells(tiles)
        cand = set(zip(*np.nonzero(cand & ~changed), strict=True))
        held = np.bincount(cls.ravel(), minlength=p.shape[-1])
        options = []  # (cost, better by, cell, new class)
        for r, c in sorted(cand):
            if tiles[r, c]:
                new = EMPTY
            else:
                allowed = np.where(held < limit, p[r, c], -1.0)
                allowed[EMPTY] = -1.0
                new = int(allowed.argmax())
                if allowed[new] <= 0.0:
                    continue
            after = tiles.copy()
            after[r, c] = new != EMPTY
            better = now - _faults(after)
            if better > 0:
                options.append((logp[r, c, cls[r, c]] - logp[r, c, new], better, (r, c), new))
        if not options:
            break
        most = max(o[1] for o in options)
        _, _, (r, c), new = min(o for o in options if o[1] == most)
        conf[r, c] = p[r, c, new]
        cls[r, c] = new
        changed[r, c] = True
    if not changed.any():
        return grid, confidence, 0
    rows = [list(row) for row in grid]
    for r, c in zip(*np.nonzero(changed), strict=True):
        k = int(cls[r, c])
        rows[r][c] = "." if k == EMPTY else "?" if k == BLANK else CLASSES[k]
    return ["".join(row) for row in rows], conf, int(changed.sum())


def bare_by_facts(
    grid: list[str],
    confidence: np.ndarray,
    probabilities: np.ndarray | None,
    level: float,
    covered: np.ndarray,
) -> tuple[np.ndarray, int]:
    """Cells read bare, in doubt of nothing but a cover, which the rules say hold no tile.

    The network gives a bare square some probability of ``hidden`` (a hand or a thing over
    it): on a dark board in a noisy frame, a bare square looks like a sleeve of its colour.
    Whether covered or not, no tile lies on a square whose four neighbours are surely bare in a
    game's position: it would stand alone, and every tile lies in a word of two letters or more
    joined to the others (Iago's rulebook, "The Move": "all subsequent words must be
    connected", and rule (1); Scrabble's rules). So such a cell's confidence is its bare and
    covered probabilities together, when they reach ``level``: its tile classes hold no more
    than ``1 - level``, as little as a sure cell's. A cell whose tiles hold more keeps its own,
    so a lone tile laid in view (an illegal move the table warns of) is read as it shows. What
    this cannot see: a lone tile laid under a hand that looks bare (mid-move), read bare.

    The level was chosen on the network's confidences (``learn.reader_trust_level``); a cell
    raised here rests on the rule as well as on them.

    Args:
        grid: the reading, rows of ``.``, letters and ``?``.
        confidence: float32 (size, size), each cell's calibrated probability.
        probabilities: float (size, size, 29): each class's calibrated probability
            (:attr:`companion.vision.cells.CellEvidence.probabilities`); None leaves the
            confidence as it is.
        level: the reading's trust level (``CellNet.reader_trust_level``): a neighbour is surely
            bare when read ``.`` at it or over it; a cell is taken for bare when its bare and
            covered probabilities together reach it.
        covered: bool (size, size): cells not to be judged (read as covered, or off the photo);
            they are not surely bare either.

    Returns:
        (confidence float32 (size, size), a new array; how many cells it raised).
    """
    conf = np.asarray(confidence, np.float32).copy()
    if probabilities is None:
        return conf, 0
    p = np.asarray(probabilities, np.float64)
    read_bare = np.array([[ch == "." for ch in row] for row in grid]) & ~np.asarray(covered, bool)
    sure = read_bare & (conf >= level)
    # no neighbour that is not surely bare (off the board counts as bare: an edge square has
    # fewer neighbours)
    neighbours_bare = ~_beside(~sure)
    no_tile = p[..., EMPTY] + p[..., HIDDEN]
    raise_ = read_bare & ~sure & neighbours_bare & (no_tile >= level)
    conf[raise_] = no_tile[raise_]
    return conf, int(raise_.sum())


def _known_rows(known, profile: Profile) -> list[str]:
    """``known`` checked: ``profile.size`` rows, each a string of ``profile.size`` cells of
    ``.`` and letters A-Z (either case).

    Raises:
        VisionError: names the first row or cell that is not, and what is accepted.
    """
    n = profile.size
    if isinstance(known, str) or not isinstance(known, (list, tuple)) or len(known) != n:
        got = f"{len(known)} rows" if isinstance(known, (list, tuple)) else type(known).__name__
        raise VisionError(f"known board: expected {n} rows of {n} cells, got {got}")
    for r, row in enumerate(known, 1):
        if not isinstance(row, str) or len(row) != n:
            what = f"{len(row)} cells" if isinstance(row, str) else type(row).__name__
            raise VisionError(f"known board row {r}: expected {n} cells, got {what}")
        for c, ch in enumerate(row, 1):
            if ch != "." and not ("A" <= ch.upper() <= "Z" and ch.isascii()):
                raise VisionError(
                    f"known board row {r} column {c}: {ch!r} is not a cell (accepted: . and "
                    "letters A-Z, a blank's letter in lower case)"
                )
    return list(known)


def move_squares(new: np.ndarray, tiles: np.ndarray) -> np.ndarray | None:
    """The squares where a tile of the move that the network missed could lie, given the tiles
    the move laid that were read: bool (n, n), or None when they lie in no one line.

    Scrabble's rules: the tiles a move lays lie in one row or one column, in one run with no
    gap but the board's own tiles. So, when the new tiles read lie in one line with no gap
    between them, a missed tile of the move lies just past an end of the run of tiles (of the
    board or of the move) through them along that line: a tile further on would leave a gap,
    unless the square between was missed too (then that square is one of these). A move of one
    tile read could run across or down: both lines are taken. New tiles with a gap between
    them break the rule themselves (a tile there missed, or one of them no tile of the move),
    and draw no line.

    Args:
        new: bool (n, n), the tiles read where the game's record holds none.
        tiles: bool (n, n), every tile read or held (``new`` among them).

    Returns:
        bool (n, n) with the squares read empty that the move could have taken, or None when
        no tile is new (any square beside a tile could then hold a missed move), or the new
        tiles lie in no one row or column, or with a gap between them (one of them is not a
        tile of the move, or a tile between was missed).
    """
    rows, cols = np.nonzero(new)
    if not len(rows):
        return None
    n = new.shape[0]
    ways = []
    if len(set(rows)) == 1:
        ways.append((0, 1))  # along the row
    if len(set(cols)) == 1:
        ways.append((1, 0))  # down the column
    first, last = (rows.min(), cols.min()), (rows.max(), cols.max())
    if not ways or not tiles[first[0] : last[0] + 1, first[1] : last[1] + 1].all():
        return None  # no one line, or a gap: a tile there missed, or one of them no tile
    out = np.zeros_like(new, dtype=bool)
    for dr, dc in ways:
        (r0, c0), (r1, c1) = first, last
        while min(r0 - dr, c0 - dc) >= 0 and tiles[r0 - dr, c0 - dc]:
            r0, c0 = r0 - dr, c0 - dc
        while max(r1 + dr, c1 + dc) < n and tiles[r1 + dr, c1 + dc]:
            r1, c1 = r1 + dr, c1 + dc
        # the run through the new tiles and the square past each of its ends
        out[max(r0 - dr, 0) : r1 + dr + 1, max(c0 - dc, 0) : c1 + dc + 1] = True
    return out & ~tiles


def with_known_board(
    grid: list[str],
    conf: np.ndarray,
    known: list[str],
    profile: Profile,
    probabilities: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str]]:
    """Each cell's confidence given the board the game holds before this move, and what in the
    reading the game cannot hold.

    At the table the box keeps the game's record, so the board before the move is known: a
    tile laid stays where it is (a tile read as the one the game holds there is that tile,
    confidence 1), and one move lays at most ``profile.rack_tiles`` tiles (Scrabble's rules:
    the rack's 7). Every tile a move lays lies in a word, beside another tile of the board or of
    the move, and the first move covers the centre square: a square the move could have taken
    is one beside a tile of the reading or of the record, or the centre. When the tiles read
    where the record holds none lie in one row or column with no gap between them, the move's
    tiles lie in that line too (Scrabble's rules; :func:`move_squares`): then only the square
    past each end of the run of tiles through them could hold a tile the network missed. A
    square the move could have taken keeps the
    network's confidence alone. Any other square read empty could hold a new tile only if the
    move's tiles that join it to the board were all missed too, or a tile read as new is not
    one (its own confidence says so), and is weighed with the rules' bound: the prior that it
    took a tile is at most ``pi = rack_tiles / empty squares``, so read empty with probability
    ``p`` it is empty with probability ``p (1 - pi) / (p (1 - pi) + (1 - p) pi)`` (Bayes). A
    tile newly read keeps the network's confidence too. Given ``probabilities``, every cell off
    the record is first weighed with the set's counts: a letter or the blank the record has
    laid as often as the set holds it cannot lie there (:func:`spent_classes`), so its share of
    the cell's probability goes to the rest (a square whose doubt was a blank, with both blanks
    on the board, is sure).

    Args:
        grid: the rows read (``.`` empty, a letter, ``?`` a blank; Iago: lower case red).
        conf: float32 (size, size), the confidence of each cell read.
        known: the game's board before the move, rows of ``.`` and letters (Scrabble: a blank
            the letter declared, in lower case; Iago: lower case the red face). It must be the
            whole record up to the move: a record a move behind would let that move's tiles
            pass for this one's (the watcher reads such a turn without it).
        profile: the game's profile (its ``rack_tiles``: 0 leaves the empty squares as read).
        probabilities: float (size, size, 29), each class's probability as the reading took
            it (:attr:`companion.vision.cells.CellEvidence.probabilities`), or None: the
            set's counts not weighed.

    Returns:
        (confidence float32 (size, size), problems): a tile of the game read as something else
        (taken off, moved, or misread) is a problem, in words, and its cell's confidence 0;
        so are more tiles read off the record than one move lays (then no square is weighed
        with the bound).

    Raises:
        VisionError: ``known`` is not a board of the profile's size, or holds something other
            than ``.`` and letters (the row and column named).
    """
    n = profile.size
    known = _known_rows(known, profile)
    out = np.array(conf, np.float32)
    problems, differ = [], []
    held = np.array([[ch != "." for ch in row] for row in known])
    tiles = held | np.array([[ch != "." for ch in row] for row in grid])
    line = move_squares(tiles & ~held, tiles)
    beside = _beside(tiles) if line is None else line
    beside[n // 2, n // 2] = True  # the first move's square
    empty_left = int((~held).sum())
    pi = min(profile.rack_tiles / empty_left, 1.0) if empty_left else 1.0
    laid = int((tiles & ~held).sum())
    bound = profile.rack_tiles and laid <= profile.rack_tiles
    if profile.rack_tiles and not bound:
        # more than a move lays: the board given is not the one before this move (or tiles
        # are misread), so the rules' bound on the squares read empty does not hold either
        problems.append(
            f"{laid} tiles read where the board before held none; one move lays at most "
            f"{profile.rack_tiles}: the board before given is not the one before this move, "
            "or tiles are misread"
        )
    out = _without_spent(out, grid, held, known, profile, probabilities)
    for r in range(n):
        for c in range(n):
            have = known[r][c]
            want = have if profile.coloured_ink else "?" if have.islower() else have
            got = grid[r][c]
            if held[r, c]:
                if got == want:
                    out[r, c] = 1.0
                else:
                    out[r, c] = 0.0
                    differ.append(f"row {r + 1} column {c + 1} ({want} read as {got})")
            elif got == "." and bound and not beside[r, c]:
                p = float(out[r, c])
                out[r, c] = p * (1 - pi) / max(p * (1 - pi) + (1 - p) * pi, 1e-12)
    if differ:
        shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
        problems.append(f"{len(differ)} tile(s) of the game not seen where they lie: {shown}")
    return out, problems


def spent_classes(known: list[str], profile: Profile) -> np.ndarray:
    """bool (29,): the classes (:data:`companion.vision.wide.CLASSES`) the set has no tile of
    left once the game's record has laid ``known`` (rows; a blank as its letter in lower case):
    a letter or the blank laid as often as the set holds it (:attr:`Profile.tile_counts`, the
    rules' distribution; Scrabble: one each of J, K, Q, X and Z, two blanks). No class is
    spent in a game whose record does not say which tile is a blank (Iago's lower case is a
    face) or whose profile has no counts."""
    if profile.coloured_ink:
        return np.zeros(N_CLASSES, bool)
    laid = [class_of("?" if ch.islower() else ch) for row in known for ch in row if ch != "."]
    return np.bincount(np.array(laid, np.int64), minlength=N_CLASSES) >= class_limits(profile)


def _without_spent(out, grid, held, known, profile, probabilities) -> np.ndarray:
    """Each cell off the record weighed with the set's counts: a class the record has used up
    (:func:`spent_classes`) cannot lie there, so the class read, if not spent, has probability
    ``p / (1 - s)``, ``s`` the spent classes' share (Bayes, the set's counts as the prior's
    zeros). Only where the class read is the network's own first: a cell that looked most like
    a spent class (a third blank) is something the network did not see well, and keeps its
    doubt rather than handing it to the runner-up."""
    spent = spent_classes(known, profile)
    if probabilities is None or not spent.any():
        return out
    share = probabilities[..., spent].sum(axis=-1)
    read = np.array([[class_of(ch) for ch in row] for row in grid])
    lifted = out / np.maximum(1.0 - share, 1e-12)
    keep = held | spent[read] | (out <= 0) | (read != probabilities.argmax(axis=-1))
    return np.where(keep, out, np.minimum(lifted, 1.0)).astype(np.float32)


def board_facts(grid: list[str], profile: Profile) -> list[str]:
    """What the board's rules say cannot be, in words (empty when every fact holds):

    - more of a letter (or of blanks) than the set holds (:attr:`Profile.tile_counts`, the
      rules' tile distribution; Scrabble: 2 blanks, one each of J, K, Q, X, Z, ...), or more
      tiles than the set has;
    - in a game with blank tiles (a blank, having no letter, is the tile most easily missed):
      a tile in no word of two letters or more (every tile lies in a word), and an empty cell
      between two groups of tiles that one tile there would join (every word is joined to the
      others: Scrabble's rules; Iago's rulebook, "all subsequent words must be connected").
      In Iago such a board read surely is an illegal move, which the table warns of.
    """
    problems = []
    letters = [ch.upper() for row in grid for ch in row if ch != "."]
    counts = profile.tile_counts or {}
    over = []
    for letter in sorted(set(letters)):
        have = letters.count(letter)
        held = counts.get(letter)
        if held is not None and have > held:
            name = "blanks" if letter == "?" else f"{letter}s"
            over.append(f"{have} {name} (the set holds {held})")
    if over:
        problems.append("more tiles of a kind than the set holds: " + ", ".join(over))
    if profile.set_tiles and len(letters) > profile.set_tiles:
        problems.append(f"{len(letters)} tiles read: the set holds {profile.set_tiles}")
    if not profile.blank_tiles:
        # (a game without blanks: a tile is not missed for want of a letter, so a lone tile or
        # a word laid apart, read surely, is the move itself, an illegal one the table's rule
        # check warns of: companion.vision.table.check_move)
        return problems
    tiles = np.array([[ch != "." for ch in row] for row in grid])
    alone = int((tiles & ~_words_through(tiles)).sum())
    if alone:
        problems.append(
            f"{alone} tile(s) stand alone (every tile lies in a word): a tile beside them was "
            "not seen, or a bare square was read as a tile"
        )
    # a cell read empty between two groups, which one tile there would join: that tile was
    # missed, or one group is a bare square read as tiles (groups far apart are no game's, a
    # test board's, and say nothing of a cell)
    count, labels = _groups(tiles)
    if count > 1:
        joins = int(_joining_cells(tiles, labels).sum())
        if joins:
            problems.append(
                f"the tiles lie in {count} groups, and {joins} empty cell(s) between them "
                "would join them (every word is joined to the others): a tile there was not seen"
            )
    return problems
