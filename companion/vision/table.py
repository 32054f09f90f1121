"""The board reader at the table: what the table service calls.

- :func:`move_words`: the words of a move from the board at its start and the board now (the
  challenged words, shown for confirmation before the ruling). The move itself is worked out by
  the Iago rules (:func:`companion.games.iago.move.rule_move`, its ``challengeable`` words).
- :func:`colour_counts`: the tiles showing each colour (the rulebook's count, on request).
- :class:`BoardCamera`: a camera, a profile and a tracker together; ``read()`` gives a
  :class:`~companion.vision.reader.BoardReading`, and every failure (camera unplugged, board not
  found) is a :class:`~companion.errors.CompanionError` whose message the screen can show, with
  ``problem`` keeping it; nothing here stops the clock.

A reading that is not ``trusted`` (DESIGN.md, "The board reader's trust": too dark, glare, the grid
not where the corners say, a cell the reader is unsure of) is never acted on: it starts no
"ILLEGAL MOVE?" warning (a move is checked only between two trusted boards), gives a challenge no
words (``problem`` says the camera is unsure, and the words are typed as without a camera). The
count asks less: which cells hold tiles and the colour each shows; a reading unsure of those gives
no count (:class:`UnsureReading`, said on the screen as a count that could not be made).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import NamedTuple

from companion.errors import CompanionError
from companion.vision.errors import VisionError
from companion.vision.notation import format_board, parse_board
from companion.vision.profiles import get_profile

_log = logging.getLogger("companion.vision")


def _rows(board) -> list[str]:
    """Rows of ``.`` and letters from a notation string, rows, a BoardReading or an Iago Board."""
    if hasattr(board, "grid") and isinstance(board.grid, list):  # a BoardReading
        return list(board.grid)
    if isinstance(board, list):
        return list(board)
    return parse_board(str(board))


def move_words(before, after, mover: str) -> list[str]:
    """The words the move from ``before`` to ``after`` formed (upper case), as the Iago rules
    see them: the words a challenge is about (rulebook, "Challenge").

    Args:
        before: the board at the start of the move: board notation, rows, a BoardReading or an
            Iago Board.
        after: the board now, in any of the same forms.
        mover: ``blue`` or ``red``, the player whose move it is.

    Raises:
        VisionError: a board that is not board notation.
        MoveInputError: ``mover`` is not a colour, or the boards differ in size.
    """
    from companion.games.iago.board import Board
    from companion.games.iago.move import rule_move

    b0 = Board.from_rows(_rows(before))
    b1 = Board.from_rows(_rows(after))
    return list(rule_move(b0, b1, mover).challengeable)


def laid_in_other_colour(before, after, mover: str) -> list[tuple[int, int]]:
    """The tiles of ``mover``'s move that show the other player's colour: cells (row, column,
    0-based, rows top first) empty in ``before`` that hold a tile in ``after`` of the other
    colour (upper case blue, lower case red).

    The rulebook ("The Move"): a player enters words "with your colour up". A steal and a
    cross-link letter turn tiles already on the board to the mover's colour, and a board
    restored after a challenge only takes tiles off or turns them back: none of them lays a
    tile. So, in a move with no challenge, every tile that was not on the board when it began
    shows the mover's colour, and one that reads otherwise was read wrong (or laid wrong): the
    count of such a reading is not the board's. A challenge's penalty ("Challenge": three of
    the player's letters turned over) may turn a word laid earlier in the same move, so the
    table does not hold a challenged move to it (:class:`ChallengeWatcher`).

    Args:
        before: the board when the move began (notation, rows, a BoardReading or an Iago Board).
        after: the board now, in any of the same forms.
        mover: ``blue`` or ``red``.

    Raises:
        VisionError: a board that is not board notation.
        MoveInputError: ``mover`` is not a colour, or the boards differ in size.
    """
    from companion.games.iago.board import colour_of
    from companion.games.iago.move import other, require_colour, require_one_size

    require_colour(mover)
    rows0, rows1 = _rows(before), _rows(after)
    require_one_size({(len(rows), *sorted({len(row) for row in rows})) for rows in (rows0, rows1)})
    theirs = other(mover)
    return [
        (r, c)
        for r, (row0, row1) in enumerate(zip(rows0, rows1, strict=True))
        for c, (a, b) in enumerate(zip(row0, row1, strict=True))
        if a == "." and b != "." and colour_of(b) == theirs
    ]


def colour_counts(board) -> dict[str, int]:
    """Tiles showing each colour: ``{"blue": n, "red": n}`` (upper case blue, lower case red)."""
    rows = _rows(board)
    return {
        "blue": sum(ch.isupper() for row in rows for ch in row),
        "red": sum(ch.islower() for row in rows for ch in row),
    }


class UnsureReading(VisionError):
    """The board was read, but not surely enough to act on (for the count: its tiles or their
    colours are in doubt, ``count_trusted`` false); the message says why, in words for the
    screen."""


def unsure_why(problems: list[str]) -> str:
    """Why a reading is not trusted, in short: its first two ``problems`` (what the reader
    puts in doubt), or "not sure of every cell"."""
    return "; ".join(problems[:2]) or "not sure of every cell"


def unsure_text(reading, problems: list[str] | None = None) -> str:
    """Why a reading is not trusted, for the screen and the log: ``camera unsure of the board:
    ...`` with the first two of ``problems`` (default the reading's; :func:`unsure_why`)."""
    said = reading.problems if problems is None else problems
    return f"camera unsure of the board: {unsure_why(said)}"


def laid_text(cells: list[tuple[int, int]], mover: str) -> str:
    """What :func:`laid_in_other_colour` found, in words: ``1 tile(s) laid this move show red,
    not blue (a move's tiles are laid with the mover's colour up): row 6 column 5`` (1-based)."""
    from companion.games.iago.move import other

    where = ", ".join(f"row {r + 1} column {c + 1}" for r, c in cells[:3])
    more = f" and {len(cells) - 3} more" if len(cells) > 3 else ""
    return (
        f"{len(cells)} tile(s) laid this move show {other(mover)}, not {mover} (a move's tiles are "
        f"laid with the mover's colour up): {where}{more}"
    )


@dataclass
class CameraWords:
    """The camera's answer to a challenge: the words, the boards compared, the least sure cell,
    and whether the board now was read surely (``trusted``; if not, ``problems`` say why and
    the words must not be used without saying so)."""

    words: list[str]
    before: str
    now: str
    min_confidence: float
    trusted: bool = True
    problems: tuple[str, ...] = ()


@dataclass
class Captured:
    """One frame as the camera gave it, or why it gave none.

    Attributes:
        frame: uint8 (H, W, 3) BGR, or None when the camera gave no frame.
        error: the :class:`~companion.errors.CompanionError` the camera gave instead (a
            :class:`~companion.devices.camera.CameraError` for any driver failure), or None.
        problem: that failure in words for the screen (``camera unavailable: ...``), or None.
        camera_problem: the camera's state when this was taken: the problem while it gives no
            frame, None when it gives frames.
    """

    frame: object = None
    error: CompanionError | None = None
    problem: str | None = None
    camera_problem: str | None = None


class BoardCamera:
    """A camera over the board, read with a profile; the homography is kept between frames
    (:class:`~companion.vision.localise.BoardTracker`).

    ``problem`` is the last failure's text (None after a good reading); ``camera_problem`` is set
    only while the camera itself gives no frame (unplugged, busy), not when the board is hidden.
    A frame can be taken (:meth:`take`) at one time and read later (``read(frame=...)``): the
    board as it was at a press.

    It reads a game, not a photo: the last reading that nothing but cells in doubt held back
    (``last``, :attr:`~companion.vision.reader.BoardReading.doubts_only`) is kept, with the one
    before it (``before_last``), and in the next frame each cell that did not change since (a
    move changes few cells; :func:`companion.vision.cells.unchanged_cells`) is read as a second
    view of its tile (:func:`companion.vision.cells.two_views`), so a move's reading is trusted
    when its changed cells are, and a tile read surely once, and alike since, stays sure.

    Args:
        camera: anything with ``capture() -> uint8 (H, W, 3) BGR`` (companion.devices.camera).
        profile: ``iago`` (default) or ``scrabble``.
        corners: fixed grid corners in the camera's pixels (from set-up), or None to find them.
        net: the cell model (:class:`~companion.vision.cellnet.CellNet`), or None for the
            shipped one.
    """

    def __init__(self, camera, profile: str = "iago", corners=None, net=None):
        from companion.vision.localise import BoardTracker

        self.camera = camera
        self.net = net
        self.profile = get_profile(profile)
        self.corners = corners
        self.tracker = BoardTracker(self.profile)
        self.problem: str | None = None
        self.camera_problem: str | None = None  # set while the camera gives no frame
        # the game read so far: the last reading that nothing but cells in doubt held back
        # (BoardReading.doubts_only), and the one kept before it (read_board's before_last)
        self.last = None
        self.before_last = None
        self._calibration_told: str | None = None  # the unusable calibration last logged

    def take(self) -> Captured:
        """A frame from the camera now, or why there is none, as a :class:`Captured`; never
        raises (any driver failure is the shot's ``error``), and touches nothing of this
        camera's (``problem``, ``camera_problem``), so another thread may read meanwhile
        (:class:`CameraJobs`)."""
        from companion.devices.camera import CameraError

        try:
            return Captured(self.camera.capture())
        except Exception as exc:  # noqa: BLE001 - any driver failure is "no frame"
            text = str(exc) if isinstance(exc, CameraError) else f"{type(exc).__name__}: {exc}"
            error = exc if isinstance(exc, CompanionError) else CameraError(text)
            problem = f"camera unavailable: {text}"
            return Captured(None, error, problem, camera_problem=problem)

    def capture(self):
        """A frame from the camera now: uint8 (H, W, 3) BGR.

        Raises:
            CameraError: the camera gives no frame (``camera_problem`` and ``problem`` say so
                until a frame comes again); a camera raising anything else is a CameraError
                too, and another CompanionError of the camera's passes as it is.
        """
        shot = self.take()
        self.camera_problem = shot.camera_problem
        if shot.error is not None:
            self.problem = shot.problem
            raise shot.error
        return shot.frame

    def read(self, known: list[str] | None = None, frame=None):
        """Read a frame (a BoardReading): ``frame`` (uint8 (H, W, 3) BGR, taken earlier by
        :meth:`take`), or one captured now when None. ``known``, the board the game holds
        before this move (rows, a blank in lower case), weighs the reading with it
        (:func:`companion.vision.facts.with_known_board`), or None.

        Raises:
            CompanionError: the camera gives no frame (see :meth:`capture`) or the board is not
                found (BoardNotFoundError); ``problem`` keeps the message.
        """
        from companion.vision.reader import CALIBRATION_UNUSED, WAY_DISPUTED, read_board

        if frame is None:
            frame = self.capture()
        try:
            reading = read_board(
                frame,
                self.profile,
                corners=self.corners,
                tracker=None if self.corners is not None else self.tracker,
                net=self.net,
                last=self.last,
                known=known,
                before_last=self.before_last,
            )
            if self.corners is not None and reading.turn and reading.trusted:
                # the camera sees the board from its side: the corners set up are kept in the
                # board's own order, so the next frames need not be read twice
                self.corners = reading.corners
            if self.corners is not None and _grid_moved(reading):
                # the camera was bumped after its corners were set: find the board again
                try:
                    again = read_board(frame, self.profile, net=self.net, known=known)
                except CompanionError:
                    again = None
                if again is not None and again.trusted:
                    again.notes.append("the corners set up no longer fit: the board was found")
                    reading = again
        except CompanionError as exc:
            self.problem = f"camera: {exc}"
            raise
        self.problem = None if reading.trusted else unsure_text(reading)
        for note in reading.notes:
            if note.startswith(CALIBRATION_UNUSED) and note != self._calibration_told:
                _log.warning("camera: %s", note)  # the set's calibration made, not read with
                self._calibration_told = note
        if reading.doubts_only:
            # trusted, or held back by cells in doubt alone: the next frame reads its cells
            # that did not change as a second view of them (a cell in doubt here may be sure
            # there, and read alike it is)
            self.before_last, self.last = self.last, reading
        elif WAY_DISPUTED in reading.problems:
            # the last reading was read the wrong way round, or this board's letters are: the
            # next frame is read afresh rather than held to a reading that may be wrong
            self.last = self.before_last = None
        return reading

    def board_now(self) -> str | None:
        """The board in notation now, or None (and ``problem`` says why) if it cannot be read
        or is not read surely (not ``trusted``)."""
        try:
            reading = self.read()
        except CompanionError:
            return None
        return reading.notation if reading.trusted else None

    def challenged_words(self, before, mover: str, frame=None) -> CameraWords:
        """Read the board now (or in ``frame``, captured at the challenge) and give the words of
        ``mover``'s move since ``before`` (the board at the start of the move, in notation or
        rows).

        Raises:
            CompanionError: the camera or the reading failed (see :meth:`read`).
        """
        reading = self.read(frame=frame)
        words = move_words(before, reading.grid, mover)
        return CameraWords(
            words,
            format_board(_rows(before)),
            reading.notation,
            float(reading.confidence.min()),
            reading.trusted,
            tuple(reading.problems),
        )

    def counts(self, frame=None, before=None, mover: str | None = None) -> dict[str, int]:
        """Tiles showing each colour now (or in ``frame``, captured at the request), ``{"blue":
        n, "red": n}``.

        The count asks only which cells hold tiles and the colour each shows: a board read
        surely but for a letter or two (an I that might be an L) is counted
        (:attr:`~companion.vision.reader.BoardReading.count_trusted`). Given the board when
        ``mover``'s move began (``before``, read trusted), a tile laid since that reads in the
        other player's colour withholds the count (:func:`laid_in_other_colour`).

        Raises:
            CompanionError: the camera or the reading failed.
            UnsureReading: the board's tiles or their colours were not read surely.
            MoveInputError: ``mover`` is not a colour, or ``before`` is of another size.
        """
        reading = self.read(frame=frame)
        if not reading.count_trusted:
            # what withholds the count, not the board (a letter in doubt does not)
            self.problem = unsure_text(reading, reading.count_problems)
            raise UnsureReading(self.problem)
        if before is not None and mover is not None:
            odd = laid_in_other_colour(before, reading, mover)
            if odd:  # the reading is sure: the board or its reading breaks the rule
                self.problem = laid_text(odd, mover)
                raise UnsureReading(self.problem)
        return reading.counts()


# frames held by CameraJobs, captured and not yet read (the one being read among them): a memory
# bound, not a fitted figure; at the camera's default 2304x1296 a frame is 9 MB (27 MB in all),
# at 12 MP 36 MB, on a Pi Zero 2 W of 512 MB. A move takes a player seconds and a reading about
# one on a Pi: the reader is rarely more than one frame behind.
FRAMES_WAITING = 3


class CameraJobs:
    """The camera's work at the table, each job with the frame captured when it was asked for.

    A reading takes long (on a Pi, a second or more) and the game goes on meanwhile: read by
    one thread from the camera as it is when the reader gets to it, a move's board would show
    the next player's tiles already laid when readings queue up. So one thread only captures
    (a frame, at once, in the order the jobs come) and another reads the frames in that order:
    each job is done on the board as it was at the press. At most :data:`FRAMES_WAITING`
    frames are held, captured and not yet read: further behind than that, the next frame is
    captured only when one has been read (as a single thread would), so a reader far behind
    never fills the memory.

    Args:
        board_camera: a :class:`BoardCamera`.
        handle: called on the reading thread as ``handle(job, shot)``, ``shot`` the
            :class:`Captured` frame of ``job`` (or the camera's failure, and its state, when
            it was taken), or None for a job queued with no frame (:meth:`put`). What it
            raises is logged (the watchers catch their own faults).
        name: the threads' names (``NAME-capture``, ``NAME``).
        on_state: called on the reading thread, before a job is handled, with the camera's
            state when that job's frame was taken (its problem, or None when it gave a frame)
            whenever it differs from the job before's: the camera stopped or started giving
            frames, told job by job in order (a job with no frame tells nothing). None: not
            told.
    """

    def __init__(self, board_camera: BoardCamera, handle, name: str, on_state=None) -> None:
        import queue
        import threading

        self.board_camera = board_camera
        self.handle = handle
        self.on_state = on_state
        self.camera_problem: str | None = None  # the state last told
        self._captures: queue.Queue = queue.Queue()
        self._reads: queue.Queue = queue.Queue()
        self._room = threading.BoundedSemaphore(FRAMES_WAITING)  # frames not yet read
        for target, label in ((self._capture, f"{name}-capture"), (self._read, name)):
            threading.Thread(target=target, name=label, daemon=True).start()

    def put(self, job, frame: bool = True) -> None:
        """Queue ``job``: a frame is captured for it at once (not on the caller's thread), one
        frame a job, in the order the jobs come. ``frame`` False: the job needs no frame (it
        only keeps its place in the order); none is captured or held for it and it is handled
        with ``shot`` None."""
        self._captures.put((job, frame))

    def wait(self) -> None:
        """Return once every job queued so far is captured and handled."""
        self._captures.join()
        self._reads.join()

    def _capture(self) -> None:
        while True:
            job, frame = self._captures.get()
            if not frame:  # in order behind the frames before it, holding none
                self._reads.put((job, None))
                self._captures.task_done()
                continue
            if not self._room.acquire(blocking=False):
                _log.warning(
                    "camera: %d frames wait to be read; job %r's is taken once one is read",
                    FRAMES_WAITING,
                    job,
                )
                self._room.acquire()
            self._reads.put((job, self.board_camera.take()))  # take() never raises
            self._captures.task_done()

    def _read(self) -> None:
        while True:
            job, shot = self._reads.get()
            held = shot is not None  # a frame held (a job with none holds no room, tells nothing)
            try:
                if held:  # before the job's own news (a count), which the state would hide
                    self._tell_state(shot.camera_problem)
                self.handle(job, shot)
            except Exception:  # noqa: BLE001 - the handlers say their faults; this is a bug's
                _log.exception("camera job %r failed", job)
            finally:
                del shot
                if held:
                    self._room.release()
                self._reads.task_done()

    def _tell_state(self, now: str | None) -> None:
        """``on_state(now)`` when the camera's state at this job differs from the last told."""
        if now == self.camera_problem:
            return
        self.camera_problem = now
        if self.on_state is not None:
            self.on_state(now)


class MoveNumbers:
    """The moves of a game as the table's camera numbers them (the ``move`` of its ``_board``
    records): each change of the timer's mover begins a move, numbered from 1. It is a
    ``start`` when the player on move pressed (or the first press started the game), a board
    being read for it; else a ``given back`` (a challenge's ruling gave the move back, no press
    and no board). Followed live by :class:`ChallengeWatcher` and again from the journal by
    ``companion.daemon.table_record``, so the two number alike.

    Attributes:
        mover: the player on move (``blue``/``red``), None before the first press.
        number: the moves begun so far.
        starts: each player's last move begun by a press (its number).
    """

    def __init__(self) -> None:
        self.mover: str | None = None
        self.number = 0
        self.starts: dict[str, int] = {}

    def after(self, event: dict, mover) -> str | None:
        """Follow ``event`` (a journal record, applied), ``mover`` the timer's mover after it
        (a colour or its enum): ``start`` or ``given back`` when a move begins, else None."""
        mover = getattr(mover, "value", mover)
        if mover is None or mover == self.mover:
            return None
        ended = event.get("kind") == "press" and event.get("role") == self.mover
        kind = "start" if ended or self.mover is None else "given back"
        self.number += 1
        if kind == "start":
            self.starts[str(mover)] = self.number
        else:  # no board is read for a move given back
            self.starts.pop(str(mover), None)
        self.mover = str(mover)
        return kind


class _Job(NamedTuple):
    """A :class:`ChallengeWatcher` job: ``kind`` (``start``, ``given back``, ``challenge``,
    ``count``), the player it is about, the game it was asked in, the number of the move in
    progress then; a ``start``'s ``check`` (the move that ended is checked for ILLEGAL MOVE?:
    not one in which a challenge was settled), a ``challenge``'s ``at`` (when its sand stopped,
    the challenge's own mark) and ``mover`` (the player on move then)."""

    kind: str
    colour: str
    game: str | None
    move: int
    check: bool = True
    at: float | None = None
    mover: str | None = None


class ChallengeWatcher:
    """Takes the challenged words from the camera for the Iago timer at the table.

    The table service calls :meth:`observe` after each event it applies (cheap: it only queues
    work). When a move begins (a press that changes the mover) the board is read in the
    background and kept as the board at the start of that player's move; when a challenge is
    waiting for its words, the board is read again and the words of the challenged player's move
    (:func:`move_words`) are submitted as a typed line would be (``submit_line(text)``), so the
    judge rules on them and the screen shows them with the verdict before the arbiter confirms.
    A reading that is not ``trusted`` is kept as no board: it neither starts a move's board nor
    ends one (so it raises no warning) and gives a challenge no words.
    A camera or reading failure submits nothing (the words can still be typed) and keeps the
    message in ``problem``. Each board read when a move begins (the board after the move
    before) is passed to ``on_board(notation, trusted, (player, move))`` (the move numbered in
    the game from 1), trusted or not, for the game's record and the director's pages. When a
    move ends, it is checked by the Iago rules (without the lexicon): a broken rule is kept in
    ``warning`` (``warning_mover``, ``warning_codes``) and passed to ``on_warning`` if the table
    sets one. :meth:`request_count` reads the board and
    passes the colour count to ``on_count`` (withheld when a tile laid since the mover's move
    began shows the other colour, :func:`laid_in_other_colour`, unless a challenge was made in
    that move: a sustained one's penalty may turn the move's own first word over). A move
    given back to its player by a challenge's ruling (the mover changes with no press) has no
    start board: the board then still holds the tiles to be taken off, so no move is checked
    against it and its count is not held to the rule. A new game
    (``game_id``, set by the service before each :meth:`observe`) starts with no start board
    and no mover from the last. After a restart the service drives :meth:`follow` through the
    journal's replay, so the move in progress keeps the board read when it began (its
    ``_board`` record names the player and the move) and is checked at its press as if the
    power had not gone. Whenever the camera stops or starts giving frames,
    ``on_camera`` is called with the problem's text or None. The camera's work runs on two
    background threads (:class:`CameraJobs`: one captures, one reads), never on the clock's;
    the callbacks are called on the reading one.

    Args:
        board_camera: a :class:`BoardCamera`.
        submit_line: called with the words separated by spaces (the service's ``line``).
    """

    def __init__(self, board_camera: BoardCamera, submit_line):
        self.board_camera = board_camera
        self.submit_line = submit_line
        self.problem: str | None = None
        self.warning: str | None = None
        self.warning_mover: str | None = None
        self.warning_codes: tuple[str, ...] = ()
        self.on_warning = None  # called with the warning's text (any thread) if set
        self.on_count = None  # called with ({"blue": n, "red": n} or None, problem or None)
        self.on_camera = None  # called with the camera's problem, or None when it is back
        # called with (words, the challenge's mark) instead of submit_line when set: the service
        # takes them only while that challenge waits for its words
        self.submit_words = None
        # called with (why, the challenge's mark) when the camera gives a challenge no words
        # (no frame, no board at the move's start, a reading in doubt): the words are typed
        self.on_no_words = None
        self.on_board = None  # called with (notation, trusted, (player, move number)) for each
        # board read when a move begins
        self.start_boards: dict[str, str] = {}
        self.game_id: str | None = None  # the game in progress (the service sets it)
        self._game: str | None = None  # the game of the jobs queued (observe's thread)
        self._game_read: str | None = None  # the game of the jobs read (the reading thread)
        self._moves = MoveNumbers()  # the mover and the moves of the game queued (observe's)
        self._move_challenged = False  # a challenge was made in the mover's move
        self._challenge_seen: float | None = None
        self._jobs = CameraJobs(board_camera, self._work, "board-camera", self._camera_state)

    def observe(self, event: dict, mode) -> None:
        """Look at an applied event and the mode's state after it (the Iago timer's ``timer``,
        ``phase`` and ``challenge_rec``); queue a board reading when a move begins or a
        challenge waits for its words."""
        for job, frame in self._track(event, mode):
            self._jobs.put(job, frame=frame)

    def follow(self, event: dict, mode) -> None:
        """Follow a journaled event as :meth:`observe` does, reading nothing: the restart's
        replay of the game in progress (the service calls it after each record it replays, the
        mode's state after it, then :meth:`resume_board` for each ``_board`` record). A move's
        start board is forgotten when it begins; :meth:`resume_board` gives it back."""
        for job, _frame in self._track(event, mode):
            if job.kind in ("start", "given back"):
                self.start_boards.pop(job.colour, None)
        self._game_read = self._game  # the jobs to come are this game's: nothing to clear
        self._challenge_seen = None  # a challenge still waiting for its words is read again

    def resume_board(self, player, move, board, trusted) -> None:
        """A ``_board`` record met in the restart's replay (:meth:`follow`): the board read when
        ``player``'s move number ``move`` began (``board`` notation, ``trusted`` bool). Kept as
        that player's start board when it is the last move the player began by a press (the
        move in progress's, and the other player's last, which a challenge of that completed
        move needs) and was trusted; any other (an older move, a record of before this field,
        a board in doubt or damaged) is not (the status line then says the move in progress
        goes unchecked)."""
        if (
            trusted is not True
            or not isinstance(board, str)
            or move != self._moves.starts.get(player)
        ):
            return
        try:
            parse_board(board, self.board_camera.profile.size)
        except VisionError:
            return  # a damaged record: no start board (the status line says the move is unchecked)
        self.start_boards[player] = board

    @property
    def move_in_progress_unchecked(self) -> bool:
        """True when a move is in progress and the board when it began is not known (after a
        restart: its ``_board`` record was not written, or the move was given back), so its
        press checks nothing for ILLEGAL MOVE?."""
        mover = self._moves.mover
        return mover is not None and mover not in self.start_boards

    def _track(self, event: dict, mode) -> list[tuple[_Job, bool]]:
        """The jobs ``event`` asks for, as (job, frame wanted); the watcher's idea of the mover,
        the moves (:class:`MoveNumbers`) and the challenge follows."""
        jobs: list[tuple[_Job, bool]] = []
        if self.game_id != self._game:  # a new game: nothing of the last one's moves holds
            self._game, self._moves, self._challenge_seen = self.game_id, MoveNumbers(), None
        timer = getattr(mode, "timer", None)
        moves = self._moves
        kind = moves.after(event, getattr(timer, "mover", None))
        if kind is not None:
            # a move ends when its player presses (the first press starts the game); the move
            # given back to its player by a challenge's ruling has begun already: the board
            # then is no move's start (its tiles are still to be taken off), so it is not kept
            # and no move is checked against it. Queued before the mover is said (a count asked
            # for in between is still the last mover's, read against that move's start board);
            # a move given back needs no frame. A move in which a challenge was settled is not
            # checked: its penalty turned three tiles over (rulebook, "Challenge"), which no
            # move may do
            job = _Job(kind, moves.mover, self._game, moves.number, check=not self._move_challenged)
            jobs.append((job, kind == "start"))
            self._move_challenged = False
        rec = getattr(mode, "challenge_rec", None)
        waiting = getattr(mode, "phase", None) == "words" and rec is not None
        if waiting and rec.started_at != self._challenge_seen and rec.challenged:
            self._challenge_seen, self._move_challenged = rec.started_at, True
            challenged = str(rec.challenged)
            job = _Job(
                "challenge",
                challenged,
                self._game,
                moves.number,
                at=rec.started_at,
                mover=moves.mover,
            )
            # a completed move's words are between two boards read already: no frame
            jobs.append((job, challenged == moves.mover))
        return jobs

    def request_count(self) -> None:
        """Ask for the colour count (rulebook, "The Move" (2): a count on request): the board is
        read in the background and ``on_count(counts, None)`` or ``on_count(None, problem)`` is
        called. The clock is not touched."""
        # the mover when the count is asked for: the board when that move began says which
        # tiles it laid (the jobs are read in order, so that board is the one kept by then);
        # none after a challenge in the move (a penalty may have turned its own tiles over)
        mover = "" if self._move_challenged else (self._moves.mover or "")
        self._jobs.put(_Job("count", mover, self._game, self._moves.number))

    def wait(self) -> None:
        """Return once the queued readings are done (tests, the simulator's scripts)."""
        self._jobs.wait()

    def _check_finished_move(self, colour: str, board: str) -> None:
        """The move that just ended (the other player's, from his start board to ``board``),
        checked by the Iago rules; a broken rule is kept in ``warning`` (rule codes) and passed
        to ``on_warning`` for the screen and buzzer (the players decide)."""
        finished = "red" if colour == "blue" else "blue"
        before = self.start_boards.get(finished)
        if before is None:
            return
        ruling = check_move(before, board, finished)
        if ruling.legal:
            self.warning = None
            return
        codes = list(dict.fromkeys(v.code for v in ruling.violations))  # the rules' order
        self.warning_mover, self.warning_codes = finished, tuple(codes)
        self.warning = f"{finished}'s move may break a rule: {', '.join(codes)}"
        if self.on_warning is not None:
            self.on_warning(self.warning)

    def _work(self, job: _Job, shot: Captured | None) -> None:
        """One job on the reading thread (:class:`CameraJobs`): ``job`` a :class:`_Job`,
        ``shot`` the board when it was asked for (or the camera's failure then), None for a job
        queued with no frame (a move given back, a completed move's challenge)."""
        if job.game != self._game_read:  # a new game: no start board or warning of the last
            self._game_read = job.game
            self.start_boards.clear()
            self.warning, self.warning_mover, self.warning_codes = None, None, ()
        try:
            self._do(job, shot)
        except CompanionError as exc:
            self._failed(job, str(exc))
        except Exception as exc:  # noqa: BLE001 - the camera must never stop the table
            _log.exception("camera: the %s reading failed", job.kind)
            self._failed(job, f"camera: {type(exc).__name__}: {exc}")

    def _failed(self, job: _Job, problem: str) -> None:
        """A job that failed (no frame, or a fault of the reader's) is said (``problem``) and
        answered: the count with no counts, the challenge with no words, the move's start with
        no board, so nothing waits unsaid on the camera. An answer that fails in turn is logged:
        the reading thread goes on."""
        self.problem = problem
        try:
            if job.kind == "count" and self.on_count is not None:
                self.on_count(None, problem)
            elif job.kind == "challenge":
                self._no_words(problem, job)
            elif job.kind == "start":
                self.start_boards.pop(job.colour, None)
        except Exception:  # noqa: BLE001 - said in the log; the camera must never stop the table
            _log.exception("camera: the %s reading's failure could not be told", job.kind)

    def _camera_state(self, now: str | None) -> None:
        """Tell ``on_camera`` the camera stopped or started giving frames (``now``: its
        problem, or None), as :class:`CameraJobs` finds it job by job."""
        if self.on_camera is not None:
            self.on_camera(now)

    def _do(self, job: _Job, shot: Captured | None) -> None:
        kind, colour = job.kind, job.colour
        if kind == "given back":  # queued with no frame: the board now is no move's start
            self.start_boards.pop(colour, None)
            return
        if kind == "challenge" and shot is None:  # the challenged move is over
            self._completed_move_words(job)
            return
        if shot.error is not None:
            # no frame: said as the camera said it when the job was asked for
            self._failed(job, shot.problem)
            return
        frame = shot.frame
        if kind == "count":
            try:
                before = self.start_boards.get(colour) if colour else None
                counts = self.board_camera.counts(frame=frame, before=before, mover=colour or None)
            except CompanionError as exc:
                problem = self.board_camera.problem or f"camera: {exc}"
                if self.on_count is not None:
                    self.on_count(None, problem)
                return
            if self.on_count is not None:
                self.on_count(counts, None)
            return
        if kind == "start":
            try:
                reading = self.board_camera.read(frame=frame)
            except CompanionError:
                reading = None
            if reading is not None and self.on_board is not None:
                self.on_board(reading.notation, bool(reading.trusted), (colour, job.move))
            board = reading.notation if reading is not None and reading.trusted else None
            if board is None:
                self.problem = self.board_camera.problem
                self.start_boards.pop(colour, None)
                return
            self.start_boards[colour] = board
            if job.check:
                self._check_finished_move(colour, board)
            else:  # a challenge's penalty turned tiles over in the move: no warning of it
                self.warning = None
            return
        before = self.start_boards.get(colour)
        if before is None:
            self._no_words(f"camera: no board seen at the start of {colour}'s move", job)
            return
        try:
            answer = self.board_camera.challenged_words(before, colour, frame=frame)
        except CompanionError as exc:  # no board found in the frame
            self._no_words(self.board_camera.problem or f"camera: {exc}", job)
            return
        if not answer.trusted:
            # never a word from a board the reader is unsure of: the words are typed
            self._no_words(f"camera unsure of the board ({unsure_why(answer.problems)})", job)
            return
        self._submit(answer.words, job)

    def _completed_move_words(self, job: _Job) -> None:
        """A challenge of ``job.colour``'s completed move (the other player on move): its words
        are those between the board when it began and the board at the press that ended it (the
        mover's start board), not the board now, which may hold the mover's own tiles."""
        before = self.start_boards.get(job.colour)
        after = self.start_boards.get(job.mover or "")
        if before is None or after is None:
            when = "began" if before is None else "ended"
            self._no_words(f"camera unsure of the board when {job.colour}'s move {when}", job)
            return
        self._submit(move_words(before, after, job.colour), job)

    def _no_words(self, why: str, job: _Job) -> None:
        """The challenge marked ``job.at`` gets no words from the camera: ``why`` (ending "; type
        the words") is kept in ``problem`` and passed to ``on_no_words`` for the screen, so the
        players do not wait on the camera."""
        self.problem = why if why.endswith("type the words") else f"{why}; type the words"
        if self.on_no_words is not None:
            self.on_no_words(self.problem, job.at)

    def _submit(self, words: list[str], job: _Job) -> None:
        """Give the challenge marked ``job.at`` its ``words``, as a typed line: through
        ``submit_words(text, at)`` when the service set it (it takes them only while that
        challenge still waits for its words), else ``submit_line(text)``."""
        if not words:
            self._no_words("camera: no new word on the board", job)
            return
        self.problem = None
        if self.submit_words is not None:
            self.submit_words(" ".join(words), job.at)
        else:
            self.submit_line(" ".join(words))


def _grid_moved(reading) -> bool:
    """True when a reading's problems say the grid is not where its corners put it."""
    return any("corners" in p or "one line off" in p or "premium" in p for p in reading.problems)


def check_move(before, after, mover: str):
    """The Iago rules' ruling (``companion.games.iago.move.Ruling``) on the move from ``before``
    to ``after`` by ``mover``, without a lexicon: connection, the centre, the lead,
    substitutions and steals are checked; words are the challenge's business."""
    from companion.games.iago.board import Board
    from companion.games.iago.move import rule_move

    return rule_move(Board.from_rows(_rows(before)), Board.from_rows(_rows(after)), mover)


def watcher_for(camera, submit_line, profile: str = "iago") -> ChallengeWatcher | None:
    """A :class:`ChallengeWatcher` over ``camera`` (None when there is no camera)."""
    if camera is None:
        return None
    return ChallengeWatcher(BoardCamera(camera, profile), submit_line)
