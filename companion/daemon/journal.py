"""An append-only journal of a game's events: written and synced before each event takes effect.

Format: JSON Lines (one JSON object a line, UTF-8), every record ending with a newline. Each
record carries ``"seq"``: 1, 2, ... in file order, checked on reading, so a record that went
missing or was written twice is found, never replayed into a different game. A record counts
only once its newline is on disk; after a power cut the last line may be torn (no newline, or not
valid JSON): :meth:`Journal.open` drops it (and truncates the file to the last good record), never
the rest.

A bad record *before* the last one (not JSON, not an object, a sequence number out of order)
means the file was damaged otherwise. :func:`read_records` raises :class:`JournalError` naming
the file and line; :meth:`Journal.open` with ``salvage=True`` keeps the good records before it,
sets the rest aside in a file beside the journal (``journal.jsonl.rest-<stamp>``) and says so
in :attr:`Journal.damage`, so a game in progress resumes from its last good record.

Storage that fails (an SD card turned read-only, a full card): :meth:`Journal.append` never
raises for it. The record is kept in memory (``records``) and written, with every record still
waiting, at the next append or :meth:`Journal.retry`; until then :attr:`Journal.failing` names the
problem. A write that failed half-way is cut off before the retry, so the file never holds half a
record in its middle. The file operations go through a :class:`JournalIO` (tests stage a failing
card by replacing it).

Any game can use it: the first record is conventionally the game header
(``{"kind": "_game", "mode": ..., "settings": ...}``), then the mode's events in order. Replaying
means applying the records again, in order, to a fresh game (see
:func:`companion.daemon.modes.replay`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError
from companion.textformats import loads_json


class JournalError(CompanionError, ValueError):
    """A journal that cannot be read or written; names the file, the line and the cause."""


class JournalIO:
    """The journal's file operations: ``os.open`` (append), ``os.write``, ``os.fsync``,
    ``os.ftruncate``, ``os.close``. Each raises ``OSError`` as the system does; a test replaces
    the instance (or one method) to stage a full or read-only card."""

    def open(self, path: Path) -> int:
        """A descriptor of ``path`` opened to append (created if missing)."""
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        return os.open(path, flags, 0o644)

    def write(self, fd: int, data: bytes) -> int:
        """Write ``data``; returns the bytes written (may be fewer)."""
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        """Sync the file to the disk."""
        os.fsync(fd)

    def truncate(self, fd: int, size: int) -> None:
        """Cut the file to ``size`` bytes."""
        os.ftruncate(fd, size)

    def close(self, fd: int) -> None:
        """Close the descriptor."""
        os.close(fd)


@dataclass
class JournalRead:
    """What :func:`read_journal` found: ``records`` (the good prefix), ``good_bytes`` (its length
    in bytes), ``torn`` (a torn last record was left out), ``damage`` (None, or what is wrong with
    the first bad record that is not the last, naming its line) and ``rest`` (the bytes from that
    record to the end of the file)."""

    records: list[dict]
    good_bytes: int
    torn: bool
    damage: str | None = None
    rest: bytes = b""


class Journal:
    """An open journal file. Use :meth:`open`; ``records`` holds what was read plus what was
    appended since (written or still waiting for the storage).

    Args:
        path: the journal file (created with its folder if missing).
        fsync: sync each record to the disk before :meth:`append` returns (default True; tests
            and benchmarks of other things may turn it off).
        io: the file operations (default :class:`JournalIO`).

    Attributes:
        failing: None while every record is on disk, else why the last write failed
            (``"...journal.jsonl: cannot write: No space left on device"``).
        failing_errno: the ``errno`` of that failure (28 ENOSPC, 30 EROFS, 5 EIO...), or None.
        damage: None, or the damage :meth:`open` found and set aside (``salvage=True``).
        set_aside: the file the damaged rest was written to, or None.
        dropped_torn: a torn last record was dropped on opening.
    """

    def __init__(
        self,
        path: Path,
        records: list[dict],
        fsync: bool = True,
        io: JournalIO | None = None,
        good_bytes: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.records = records
        self.fsync = fsync
        self.io = io or JournalIO()
        self.dropped_torn = False
        self.damage: str | None = None
        self.set_aside: Path | None = None
        self.failing: str | None = None
        self.failing_errno: int | None = None
        self.writes_failed = 0
        self._lock = threading.Lock()
        self._written = len(records)  # records[:_written] are on disk
        self._good_bytes = good_bytes if good_bytes is not None else _size(self.path)
        self._dirty = False  # a failed write may have left part of a record: cut it first
        self._unsynced = False  # written with sync=False and not synced since (see sync())
        self._fd: int | None = None
        self._closed = False
        try:
            self._fd = self.io.open(self.path)
        except OSError as exc:  # a read-only card at start: kept in memory, retried
            self._fail(exc)

    @classmethod
    def open(
        cls, path: Path | str, fsync: bool = True, io: JournalIO | None = None, salvage=False
    ) -> Journal:
        """Open (or create) a journal and read its records, dropping a torn last record.

        Args:
            salvage: keep the good records before a damaged one, set the rest aside in a file
                beside the journal and report it in :attr:`damage` (instead of raising).

        Raises:
            JournalError: unreadable file, or (without ``salvage``) a damaged record before the
                last one.
        """
        path = Path(path)
        with contextlib.suppress(OSError):  # a read-only card: reading may still work
            path.parent.mkdir(parents=True, exist_ok=True)
        found = read_journal(path)
        set_aside = None
        if found.damage is not None:
            if not salvage:
                raise JournalError(found.damage)
            set_aside = path.with_name(f"{path.name}.rest-{stamp()}")
            try:
                set_aside.write_bytes(found.rest)
            except OSError:
                set_aside = None
        journal = cls(path, found.records, fsync, io, good_bytes=found.good_bytes)
        journal.dropped_torn = found.torn
        journal.damage = found.damage
        journal.set_aside = set_aside
        if found.torn or found.damage is not None:
            journal._dirty = True
            journal.retry()  # cut the file to its good prefix now (or when the card allows)
        return journal

    @classmethod
    def fresh(
        cls,
        path: Path | str,
        fsync: bool = True,
        io: JournalIO | None = None,
        records: list[dict] | None = None,
    ) -> Journal:
        """A journal that replaces whatever ``path`` holds with ``records`` (default none): the
        file is cut and written at once, or as soon as the storage allows. Never raises for a
        storage failure (see :attr:`failing`)."""
        path = Path(path)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
        journal = cls(path, [], fsync, io, good_bytes=0)
        journal.records = [dict(r) for r in records or ()]
        journal._written = 0
        journal._dirty = True
        journal.retry()
        return journal

    @property
    def pending(self) -> int:
        """Records kept in memory that are not on disk yet."""
        return len(self.records) - self._written

    def append(self, record: dict, sync: bool = True) -> dict:
        """Give ``record`` its ``seq``, write it (and any record still waiting) and sync it;
        returns the record as written.

        Call it *before* the event takes effect. Thread-safe. A storage failure does not raise:
        the record is kept, :attr:`failing` says why, and the write is tried again at the next
        append or :meth:`retry`. ``sync`` False writes the record into the kernel's cache only
        (a crash of the process keeps it, a power cut may not): call :meth:`sync` soon after
        (the clock does, just after a minute's beep, so the disk's sync never delays it).

        Raises:
            JournalError: the record is not JSON-serialisable (nothing kept).
        """
        with self._lock:
            rec = {"seq": len(self.records) + 1, **record}
            try:
                _line(rec)
            except (TypeError, ValueError) as exc:
                raise JournalError(f"{self.path}: record {record!r} is not JSON: {exc}") from None
            self.records.append(rec)
            self._flush(sync)
            return rec

    def sync(self) -> bool:
        """Write what is waiting and sync to the disk what :meth:`append` wrote with ``sync``
        False; True when every record is on disk. Thread-safe; a failure is kept in
        :attr:`failing`, as for :meth:`append`."""
        with self._lock:
            if not self._flush():
                return False
            if self._unsynced and self._fd is not None:
                try:
                    self.io.fsync(self._fd)
                except OSError as exc:
                    self._fail(exc)
                    return False
            self._unsynced = False
            return True

    def retry(self) -> bool:
        """Write what is waiting (and cut a half-written record first); True when every record
        is on disk."""
        with self._lock:
            return self._flush()

    def _fail(self, exc: OSError) -> None:
        self.failing = f"{self.path}: cannot write: {exc.strerror or exc}"
        self.failing_errno = exc.errno
        self.writes_failed += 1

    def _flush(self, sync: bool = True) -> bool:
        if self._closed:
            return self.pending == 0
        if self.pending == 0 and not self._dirty:
            return True
        io = self.io
        try:
            if self._fd is None:
                self._fd = io.open(self.path)
            if self._dirty:
                io.truncate(self._fd, self._good_bytes)
                self._dirty = False
            data = b"".join(_line(r) for r in self.records[self._written :])
            self._dirty = True  # until the whole of it is on disk
            view = memoryview(data)
            while view:
                n = io.write(self._fd, view)
                view = view[n:]
            if (self.fsync and sync) or self.failing is not None:
                io.fsync(self._fd)
                self._unsynced = False
            else:
                self._unsynced = self.fsync
            self._dirty = False
        except OSError as exc:
            self._fail(exc)
            if self._fd is not None:  # open it afresh next time (a card remounted read-write)
                with contextlib.suppress(OSError):
                    io.close(self._fd)
                self._fd = None
            return False
        self._good_bytes += len(data)
        self._written = len(self.records)
        self.failing = None
        self.failing_errno = None
        return True

    def close(self, flush: bool = True) -> None:
        """Write what is waiting if the storage allows (unless ``flush`` is False: a power cut
        in a test), then close the file."""
        with self._lock:
            if self._closed:
                return
            if flush:
                self._flush()
            self._closed = True
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    self.io.close(self._fd)
                self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _line(record: dict) -> bytes:
    return (json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def stamp() -> str:
    """A local time stamp for file names: ``20260101-101500-123456``."""
    return _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")


def read_journal(path: Path | str) -> JournalRead:
    """Read a journal file without changing it, checking each record's sequence number.

    Returns a :class:`JournalRead`: the good records, and what is wrong with the first bad one
    (``damage``; it is not raised).

    Raises:
        JournalError: the file cannot be read.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return JournalRead([], 0, False)
    except OSError as exc:
        raise JournalError(f"{path}: cannot read the journal: {exc.strerror}") from None
    records: list[dict] = []
    pos = 0
    lines = data.split(b"\n")
    for n, raw in enumerate(lines, 1):
        if n == len(lines):  # after the final newline: empty, or a record that never got one
            return JournalRead(records, pos, bool(raw))
        problem = None
        try:
            rec = loads_json(raw)
            if not isinstance(rec, dict):
                raise ValueError("not an object")
        except (UnicodeDecodeError, ValueError) as exc:
            if n == len(lines) - 1 and not lines[-1]:
                return JournalRead(records, pos, True)  # the last line is garbage: torn
            problem = f"damaged journal record ({exc}); only the last record may be torn"
        else:
            seq = rec.get("seq")
            if seq != n:
                what = (
                    "missing" if isinstance(seq, int) and seq > n else "duplicated or out of order"
                )
                problem = (
                    f"record with seq {seq!r} where seq {n} was expected (a record {what}); "
                    "accepted: seq 1, 2, 3... in file order"
                )
        if problem is not None:
            return JournalRead(records, pos, False, f"{path}:{n}: {problem}", data[pos:])
        records.append(rec)
        pos += len(raw) + 1
    return JournalRead(records, pos, False)  # pragma: no cover - the loop always returns


def read_records(path: Path | str) -> tuple[list[dict], int, bool]:
    """Read a journal file without changing it.

    Returns:
        ``(records, good_bytes, torn)``: the records, the byte length of the good prefix, and
        whether a torn last record was found (and left out).

    Raises:
        JournalError: unreadable file, or a damaged record (or a sequence number out of order)
            that is not the last.
    """
    found = read_journal(path)
    if found.damage is not None:
        raise JournalError(found.damage)
    return found.records, found.good_bytes, found.torn
