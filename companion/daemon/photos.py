"""Each move's photo kept with the game's record for the arbiter (as ScrabScrap keeps them),
pruned by age and whenever the card runs low, so the box never fills the card.

The photos live beside the saved records (``data_dir()/records/photos/``, the simulator's in
``data_dir()/sim/records/photos/``), one folder a game named by the game's id (the journal
header's ``game_id``, which the saved record carries too), one JPEG a turn named by the turn's
number: ``photos/<game_id>/move-003.jpg`` is the board after the third turn ended (the press
that ended it). A photo older than ``keep_days`` days is removed; so is the oldest photo, game
after game (the game in progress last), while the card's free space is under ``min_free_mb``;
a photo that would leave less than that is not kept. Keeping a photo never stops the game: a
failure is raised as :class:`PhotoError` with words for the OLED (``PHOTO NOT KEPT: CARD
FULL``) and the caller says it.

Wall-clock time (a photo's age in days outlives a restart) is injected: ``now`` and the file
operations (:class:`PhotoIO`) are the store's arguments; tests stage a full, read-only or
locked card by giving it a :class:`PhotoIO` that fails.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from companion.errors import CompanionError

KEEP_DAYS = 30
"""Days a move's photo is kept when the pin map's ``[camera] photo_days`` does not say."""
MIN_FREE_MB = 256
"""Megabytes of the card always left free (``[camera] photo_min_free_mb``): below it the oldest
photos go, and a photo that would take the card under it is not kept (the journal and the
records need the space more)."""
JPEG_QUALITY = 85
FOLDER = "photos"
_CAUSES = {
    errno.ENOSPC: "CARD FULL",
    errno.EDQUOT: "CARD FULL",
    errno.EROFS: "CARD READ-ONLY",
    errno.EACCES: "NO PERMISSION",
    errno.EPERM: "NO PERMISSION",
}


class PhotoError(CompanionError):
    """A move's photo that was not kept. ``words`` is what the OLED says (``PHOTO NOT KEPT:
    CARD FULL``); the message gives the cause (the system's words) for the log."""

    def __init__(self, message: str, words: str) -> None:
        super().__init__(message)
        self.words = words


def photo_name(game_id: str, turn: int) -> str:
    """The photo's path under the records folder: ``photos/<game_id>/move-003.jpg`` for the
    board after turn 3 (turns counted from 1, as the clock counts turns ended).

    Raises:
        ValueError: a game id that is not a plain name, or a turn below 1.
    """
    gid = str(game_id)
    if not gid or "/" in gid or gid.startswith(".") or "\\" in gid:
        raise ValueError(f"game id {game_id!r}: accepted a plain name (the journal's game_id)")
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise ValueError(f"turn {turn!r}: accepted a whole number from 1")
    return f"{FOLDER}/{gid}/move-{turn:03d}.jpg"


class PhotoIO:
    """The photo store's file operations on the real card (a test's subclass fails on demand)."""

    def write(self, path: Path, data: bytes) -> None:
        """Write ``data`` to ``path`` whole or not at all (a temporary file, then renamed).

        Raises:
            OSError: the card refuses (full, read-only, no permission).
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise

    def remove(self, path: Path) -> None:
        """Remove a photo (an empty game folder too).

        Raises:
            OSError: the card refuses.
        """
        path.unlink()
        with contextlib.suppress(OSError):  # other photos of the game are still there
            path.parent.rmdir()

    def free_bytes(self, folder: Path) -> int:
        """Bytes free on the card that holds ``folder`` (its nearest existing parent)."""
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        return shutil.disk_usage(folder).free

    def photos(self, folder: Path) -> list[tuple[Path, float]]:
        """Every photo kept under ``folder`` with its time (seconds since the epoch, the file's
        modification time)."""
        found = []
        for path in folder.glob("*/move-*.jpg"):
            try:
                found.append((path, path.stat().st_mtime))
            except OSError:
                continue  # removed meanwhile
        return found


class MovePhotos:
    """The store of the moves' photos (see the module docstring).

    Args:
        records: the folder of the saved records; the photos go in its ``photos/``.
        keep_days: days a photo is kept (more than 0).
        min_free_mb: megabytes of the card always left free (0 or more).
        io: the file operations (default :class:`PhotoIO`).
        now: seconds since the epoch (default ``time.time``).

    Raises:
        ValueError: ``keep_days`` or ``min_free_mb`` out of range.
    """

    def __init__(
        self,
        records: Path,
        keep_days: float = KEEP_DAYS,
        min_free_mb: float = MIN_FREE_MB,
        io: PhotoIO | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        if isinstance(keep_days, bool) or not keep_days > 0:
            raise ValueError(f"keep_days {keep_days!r}: accepted a number of days above 0")
        if isinstance(min_free_mb, bool) or not min_free_mb >= 0:
            raise ValueError(f"min_free_mb {min_free_mb!r}: accepted megabytes, 0 or more")
        self.records = Path(records)
        self.folder = self.records / FOLDER
        self.keep_days = float(keep_days)
        self.min_free = int(min_free_mb * 1024 * 1024)
        self.io = io or PhotoIO()
        self.now = now

    def keep(self, game_id: str, turn: int, frame) -> str:
        """Keep ``frame`` (uint8 BGR, H x W x 3) as the photo of ``turn`` of ``game_id``, after
        pruning; returns its name under the records folder (:func:`photo_name`).

        Raises:
            PhotoError: not kept: the frame cannot be encoded, the card is too full even once
                the older photos are gone, or the card refuses the write (full, read-only, no
                permission).
        """
        import cv2

        name = photo_name(game_id, turn)
        ok, encoded = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise PhotoError("the frame could not be encoded as JPEG", "PHOTO NOT KEPT")
        data = encoded.tobytes()
        try:
            self.prune(keep_game=str(game_id), need=len(data))
            free = self.io.free_bytes(self.records)
            if free - len(data) < self.min_free:
                raise PhotoError(
                    f"the card has {free // (1024 * 1024)} MB free, and {self.min_free // (1024 * 1024)} "
                    "MB are kept free for the journal and the records",
                    "PHOTO NOT KEPT: CARD FULL",
                )
            self.io.write(self.records / name, data)
        except OSError as exc:
            cause = _CAUSES.get(exc.errno or 0, "CARD ERROR")
            raise PhotoError(
                f"{exc.strerror or exc} ({getattr(exc, 'filename', None) or name})",
                f"PHOTO NOT KEPT: {cause}",
            ) from None
        return name

    def prune(self, keep_game: str | None = None, need: int = 0) -> list[Path]:
        """Remove the photos older than ``keep_days``, then the oldest (the game ``keep_game``
        last) while the card has less than ``min_free_mb`` plus ``need`` bytes free; returns
        the photos removed.

        Raises:
            OSError: the card refuses to list or remove (said by :meth:`keep`'s caller).
        """
        if not self.folder.exists():
            return []
        photos = self.io.photos(self.folder)
        cutoff = self.now() - self.keep_days * 86400.0
        removed = []
        for path, stamp in photos:
            if stamp < cutoff:
                self.io.remove(path)
                removed.append(path)
        left = sorted(
            (p for p in photos if p[0] not in removed),
            key=lambda p: (p[0].parent.name == keep_game, p[1], p[0].name),
        )
        for path, _ in left:
            if self.io.free_bytes(self.records) - need >= self.min_free:
                break
            self.io.remove(path)
            removed.append(path)
        return removed
