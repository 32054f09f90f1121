"""The board reader at the table: what the table service calls.

- :func:`move_words`: the words of a move from the board at its start and the board now (the
  challenged words, shown for confirmation before the ruling). The move itself is worked out by
  the Iago rules (:func:`companion.games.iago.move.rule_move`, its ``challengeable`` words).
- :func:`colour_counts`: the tiles showing each colour (the rulebook's count, on request).
- :class:`BoardCamera`: a camera, a profile and a tracker together; ``read()`` gives a
  :class:`~companion.vision.reader.BoardReading`, and every failure (camera unplugged, board not
  found) is a :class:`~companion.errors.CompanionError` whose message the screen can show, with
  ``problem`` keeping it; nothing here stops the clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import CompanionError
from companion.vision.notation import format_board, parse_board
from companion.vision.profiles import get_profile


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


def colour_counts(board) -> dict[str, int]:
    """Tiles showing each colour: ``{"blue": n, "red": n}`` (upper case blue, lower case red)."""
    rows = _rows(board)
    return {
        "blue": sum(ch.isupper() for row in rows for ch in row),
        "red": sum(ch.islower() for row in rows for ch in row),
    }


@dataclass
class CameraWords:
    """The camera's answer to a challenge: the words, the boards compared, the least sure cell."""

    words: list[str]
    before: str
    now: str
    min_confidence: float


class BoardCamera:
    """A camera over the board, read with a profile; the homography is kept between frames
    (:class:`~companion.vision.localise.BoardTracker`).

    Args:
        camera: anything with ``capture() -> uint8 (H, W, 3) BGR`` (companion.devices.camera).
        profile: ``iago`` (default) or ``scrabble``.
        corners: fixed grid corners in the camera's pixels (from set-up), or None to find them.
    """

    def __init__(self, camera, profile: str = "iago", corners=None):
        from companion.vision.localise import BoardTracker

        self.camera = camera
        self.profile = get_profile(profile)
        self.corners = corners
        self.tracker = BoardTracker(self.profile)
        self.problem: str | None = None

    def read(self):
        """Capture a frame and read it (a BoardReading).

        Raises:
            CompanionError: the camera gives no frame (CameraError) or the board is not found
                (BoardNotFoundError); ``problem`` keeps the message for the screen.
        """
        from companion.vision.reader import read_board

        try:
            frame = self.camera.capture()
            reading = read_board(
                frame,
                self.profile,
                corners=self.corners,
                tracker=None if self.corners is not None else self.tracker,
            )
        except CompanionError as exc:
            self.problem = f"camera: {exc}"
            raise
        self.problem = None
        return reading

    def board_now(self) -> str | None:
        """The board in notation now, or None (and ``problem`` says why) if it cannot be read."""
        try:
            return self.read().notation
        except CompanionError:
            return None

    def challenged_words(self, before, mover: str) -> CameraWords:
        """Read the board now and give the words of ``mover``'s move since ``before`` (the board
        at the start of the move, in notation or rows).

        Raises:
            CompanionError: the camera or the reading failed (see :meth:`read`).
        """
        reading = self.read()
        words = move_words(before, reading.grid, mover)
        return CameraWords(
            words, format_board(_rows(before)), reading.notation, float(reading.confidence.min())
        )

    def counts(self) -> dict[str, int]:
        """Tiles showing each colour now, ``{"blue": n, "red": n}``.

        Raises:
            CompanionError: the camera or the reading failed.
        """
        return self.read().counts()
