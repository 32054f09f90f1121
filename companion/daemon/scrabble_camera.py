"""The board camera at a crossword game's table: after each turn the board is read (the game
reading of :class:`companion.vision.table.BoardCamera`, profile ``scrabble``) and handed to the
mode as the camera's line, ``camera COLOUR NOTATION`` (``camera COLOUR unsure: why`` when the
reading is not trusted); the mode finds the move as the difference from its board
(:meth:`companion.daemon.modes.scrabble.ScrabbleMode`). A reading is never guessed: an untrusted
one asks for the move to be typed. Nothing here touches the clock; the camera's failures are
said, never raised.
"""

from __future__ import annotations

import queue
import threading

from companion.errors import CompanionError


class ScrabbleCameraWatcher:
    """Reads the board after each turn of a crossword game (see the module docstring).

    Args:
        board_camera: a :class:`companion.vision.table.BoardCamera` with the ``scrabble``
            profile.
        submit_line: the table service's ``line(text)``: the reading goes in as an input.

    The service sets ``on_board(notation, trusted)`` (each reading, journaled as the service's
    own record), ``on_camera(problem)`` (the camera stops or starts giving frames) and
    ``on_warning``/``on_count`` (unused here: the colour count is Iago's).
    """

    def __init__(self, board_camera, submit_line) -> None:
        self.board_camera = board_camera
        self.submit_line = submit_line
        self.on_board = None
        self.on_camera = None
        self.on_warning = None
        self.on_count = None
        self.problem: str | None = None
        self.camera_problem: str | None = None
        self._turns = 0
        self._jobs: queue.Queue = queue.Queue()
        threading.Thread(target=self._work, name="scrabble-camera", daemon=True).start()

    def observe(self, event: dict, mode) -> None:
        """After an applied event: when a turn has just ended by a press (the mode's clock
        counts it), queue a reading for the player who pressed."""
        clock = getattr(mode, "clock", None)
        turns = getattr(clock, "moves_completed", 0)
        if event.get("kind") == "press" and turns > self._turns:
            self._jobs.put(str(event.get("role")))
        self._turns = turns

    def request_count(self) -> None:
        """The colour count is Iago's: said so (``on_count(None, why)``)."""
        if self.on_count is not None:
            self.on_count(None, "the colour count is Iago's")

    def wait(self) -> None:
        """Return once the queued readings are done (tests, the simulator's scripts)."""
        self._jobs.join()

    def _work(self) -> None:
        while True:
            colour = self._jobs.get()
            try:
                self._read(colour)
            except CompanionError as exc:
                self.problem = str(exc)
                self.submit_line(f"camera {colour} unsure: {exc}")
            except Exception as exc:  # noqa: BLE001 - the camera must never stop the table
                self.problem = f"camera: {type(exc).__name__}: {exc}"
            finally:
                now = self.board_camera.camera_problem
                if now != self.camera_problem:
                    self.camera_problem = now
                    if self.on_camera is not None:
                        self.on_camera(now)
                self._jobs.task_done()

    def _read(self, colour: str) -> None:
        reading = self.board_camera.read()
        if self.on_board is not None:
            self.on_board(reading.notation, bool(reading.trusted))
        if not reading.trusted:
            why = "; ".join(reading.problems[:2]) or "not sure of every cell"
            self.problem = f"camera unsure of the board: {why}"
            self.submit_line(f"camera {colour} unsure: {why}")
            return
        self.problem = None
        self.submit_line(f"camera {colour} {reading.notation}")


def scrabble_watcher_for(camera, submit_line) -> ScrabbleCameraWatcher | None:
    """A :class:`ScrabbleCameraWatcher` over ``camera`` (None when there is no camera)."""
    if camera is None:
        return None
    from companion.vision.table import BoardCamera

    return ScrabbleCameraWatcher(BoardCamera(camera, "scrabble"), submit_line)
