"""An append-only journal of a game's events: written and synced before each event takes effect.

Format: JSON Lines (one JSON object a line, UTF-8), every record ending with a newline. A record
counts only once its newline is on disk; after a power cut the last line may be torn (no newline,
or not valid JSON): :meth:`Journal.open` drops it (and truncates the file to the last good record),
never the rest. A bad record *before* the last one means the file was damaged otherwise; it
raises :class:`JournalError` naming the file and line, and the caller decides (the table service
sets the damaged file aside and starts clean).

Any game can use it: the first record is conventionally the game header
(``{"kind": "game", "mode": ..., "settings": ...}``), then the mode's events in order. Each
record gets ``"seq"`` (1, 2, ...) when appended. Replaying means applying the records again, in
order, to a fresh game (see :func:`companion.daemon.modes.replay`).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from companion.errors import CompanionError


class JournalError(CompanionError, ValueError):
    """A journal that cannot be read or written; names the file, the line and the cause."""


class Journal:
    """An open journal file. Use :meth:`open`; ``records`` holds what was read plus what was
    appended since.

    Args:
        path: the journal file (created with its folder if missing).
        fsync: sync each record to the disk before :meth:`append` returns (default True; tests
            and benchmarks of other things may turn it off).
    """

    def __init__(self, path: Path, records: list[dict], fsync: bool = True) -> None:
        self.path = Path(path)
        self.records = records
        self.fsync = fsync
        self.dropped_torn = False
        self._lock = threading.Lock()
        self._file = open(self.path, "ab")  # noqa: SIM115 - kept open for the game's duration

    @classmethod
    def open(cls, path: Path | str, fsync: bool = True) -> Journal:
        """Open (or create) a journal and read its records, dropping a torn last record.

        Raises:
            JournalError: unreadable file, or a damaged record before the last one.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        records, good_bytes, torn = read_records(path)
        if torn:
            with open(path, "r+b") as f:
                f.truncate(good_bytes)
                f.flush()
                os.fsync(f.fileno())
        journal = cls(path, records, fsync)
        journal.dropped_torn = torn
        return journal

    def append(self, record: dict) -> dict:
        """Write ``record`` (with its ``seq``) and sync it; returns the record as written.

        Call it *before* the event takes effect. Thread-safe.

        Raises:
            JournalError: the record is not JSON-serialisable, or the disk write failed.
        """
        with self._lock:
            rec = {"seq": len(self.records) + 1, **record}
            try:
                line = json.dumps(rec, separators=(",", ":"), allow_nan=False) + "\n"
            except (TypeError, ValueError) as exc:
                raise JournalError(f"{self.path}: record {record!r} is not JSON: {exc}") from None
            try:
                self._file.write(line.encode("utf-8"))
                self._file.flush()
                if self.fsync:
                    os.fsync(self._file.fileno())
            except OSError as exc:
                raise JournalError(f"{self.path}: cannot write: {exc.strerror}") from None
            self.records.append(rec)
            return rec

    def close(self) -> None:
        """Close the file (the records stay on disk)."""
        with self._lock:
            if not self._file.closed:
                self._file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def read_records(path: Path | str) -> tuple[list[dict], int, bool]:
    """Read a journal file without changing it.

    Returns:
        ``(records, good_bytes, torn)``: the records, the byte length of the good prefix, and
        whether a torn last record was found (and left out).

    Raises:
        JournalError: unreadable file, or a damaged record that is not the last.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], 0, False
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror}") from None
    records: list[dict] = []
    pos = 0
    lines = data.split(b"\n")
    for n, raw in enumerate(lines, 1):
        last = n == len(lines)
        if last:  # after the final newline: empty, or a record that never got its newline
            return records, pos, bool(raw)
        try:
            rec = json.loads(raw.decode("utf-8"))
            if not isinstance(rec, dict):
                raise ValueError("not an object")
        except (UnicodeDecodeError, ValueError) as exc:
            if n == len(lines) - 1 and not lines[-1]:
                return records, pos, True  # the last line is garbage: torn
            raise JournalError(
                f"{path}:{n}: damaged journal record ({exc}); only the last record may be torn"
            ) from None
        records.append(rec)
        pos += len(raw) + 1
    return records, pos, False
