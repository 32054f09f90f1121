"""The board camera at a crossword game's table: after each turn the board is read (the game
reading of :class:`companion.vision.table.BoardCamera`, profile ``scrabble``) and handed to the
mode as the camera's line, ``camera COLOUR NOTATION`` (``camera COLOUR unsure: why`` when the
reading is not trusted); the mode finds the move as the difference from its board
(:meth:`companion.daemon.modes.scrabble.ScrabbleMode`). A reading is never guessed: an untrusted
one asks for the move to be typed. Each turn's frame, read or not, is kept as the move's photo
for the arbiter (:mod:`companion.daemon.photos`). Nothing here touches the clock; the camera's
failures, and a photo not kept, are said, never raised.
"""

from __future__ import annotations

from companion.daemon.photos import PhotoError
from companion.errors import CompanionError
from companion.vision.notation import format_board
from companion.vision.table import CameraJobs, unsure_text, unsure_why


class ScrabbleCameraWatcher:
    """Reads the board after each turn of a crossword game (see the module docstring).

    Args:
        board_camera: a :class:`companion.vision.table.BoardCamera` with the ``scrabble``
            profile.
        submit_line: the table service's ``line(text)``: the reading goes in as an input.

    The service sets ``on_board(notation, trusted)`` (each reading, journaled as the service's
    own record), ``on_camera(problem)`` (the camera stops or starts giving frames),
    ``on_warning``/``on_count`` (unused here: the colour count is Iago's), and for the moves'
    photos ``photos`` (a :class:`companion.daemon.photos.MovePhotos`, None: none kept),
    ``game_id`` (the game in progress, set before each :meth:`observe`) and ``on_photo(turn,
    colour, name, error)`` (``name`` the photo kept, or ``error`` a
    :class:`~companion.daemon.photos.PhotoError`).
    """

    def __init__(self, board_camera, submit_line) -> None:
        self.board_camera = board_camera
        self.submit_line = submit_line
        self.on_board = None
        self.on_camera = None
        self.on_warning = None
        self.on_count = None
        self.on_photo = None
        self.photos = None
        self.game_id: str | None = None
        self.problem: str | None = None
        self._turns = 0
        self._jobs = CameraJobs(board_camera, self._work, "scrabble-camera", self._camera_state)

    def observe(self, event: dict, mode) -> None:
        """After an applied event: when a turn has just ended by a press (the mode's clock
        counts it), queue a reading for the player who pressed, with the board the game's
        record holds before the move (the reading is weighed with it: its tiles stay, and a
        move lays at most a rack's worth, in one line) when the record is that board: every
        earlier turn's board on it (the mode's ``turns``: recorded, or seen to lay no tile).
        A turn whose reading has not come yet (the opponent's quick press) leaves the record a
        move behind; weighed with it, that turn's tiles would pass for this move's, and squares
        off their line for squares no move took, so such a turn is read as a photo alone."""
        clock = getattr(mode, "clock", None)
        turns = getattr(clock, "moves_completed", 0)
        if event.get("kind") == "press" and turns > self._turns:
            record = getattr(mode, "record", None)
            earlier = getattr(mode, "turns", [])[:-1]
            current = record is not None and all(e.get("board") for e in earlier)
            known = list(record.board) if current else None
            self._jobs.put((str(event.get("role")), turns, self.game_id, known))
        self._turns = turns

    def request_count(self) -> None:
        """The colour count is Iago's: said so (``on_count(None, why)``)."""
        if self.on_count is not None:
            self.on_count(None, "the colour count is Iago's")

    def wait(self) -> None:
        """Return once the queued readings are done (tests, the simulator's scripts)."""
        self._jobs.wait()

    def _work(self, job, shot) -> None:
        """One turn's reading on the reading thread (:class:`~companion.vision.table.
        CameraJobs`): ``job`` is (colour, turn, game, known), ``shot`` the board captured at
        the press (:class:`~companion.vision.table.Captured`), or the camera's failure then."""
        colour, turn, game, known = job
        try:
            if shot.error is not None:
                raise shot.error
            self._read(colour, known, shot.frame)
        except CompanionError as exc:
            self.problem = str(exc)
            self.submit_line(f"camera {colour} unsure: {exc}")
        except Exception as exc:  # noqa: BLE001 - the camera must never stop the table
            self.problem = f"camera: {type(exc).__name__}: {exc}"
        finally:
            self._keep_photo(colour, turn, game, shot.frame)

    def _camera_state(self, now: str | None) -> None:
        """Tell ``on_camera`` the camera stopped or started giving frames (``now``: its
        problem at the press, or None), as :class:`~companion.vision.table.CameraJobs` finds it
        job by job."""
        if self.on_camera is not None:
            self.on_camera(now)

    def _keep_photo(self, colour: str, turn: int, game: str | None, frame) -> None:
        """``frame``, captured at the press (read or not; None: none), kept as the photo of
        ``turn``; what happened is handed to ``on_photo``. Never raises: the game never stops
        for a photo."""
        if frame is None or self.photos is None or not game:
            return
        name, error = None, None
        try:
            name = self.photos.keep(game, turn, frame)
        except PhotoError as exc:
            error = exc
        except Exception as exc:  # noqa: BLE001 - a photo never stops the table
            error = PhotoError(f"{type(exc).__name__}: {exc}", "PHOTO NOT KEPT")
        if self.on_photo is not None:
            self.on_photo(turn, colour, name, error)

    def _read(self, colour: str, known: list[str] | None = None, frame=None) -> None:
        reading = self.board_camera.read(known=known, frame=frame)
        # the rows with their blanks (``?``): the reader's notation leaves a blank out, and a
        # move with a new blank must be asked for, never recorded without it
        seen = format_board(reading.grid)
        if self.on_board is not None:
            self.on_board(seen, bool(reading.trusted))
        if not reading.trusted:
            self.problem = unsure_text(reading)
            self.submit_line(f"camera {colour} unsure: {unsure_why(reading.problems)}")
            return
        self.problem = None
        self.submit_line(f"camera {colour} {seen}")


def scrabble_watcher_for(camera, submit_line) -> ScrabbleCameraWatcher | None:
    """A :class:`ScrabbleCameraWatcher` over ``camera`` (None when there is no camera)."""
    if camera is None:
        return None
    from companion.vision.table import BoardCamera

    return ScrabbleCameraWatcher(BoardCamera(camera, "scrabble"), submit_line)
