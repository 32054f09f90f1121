"""One table service per journal: an exclusive lock on a file beside the journal.

Two table services (or two ``companion sim``) writing one journal would interleave their records
and decide a game nobody played. The first takes ``flock(LOCK_EX | LOCK_NB)`` on
``<journal>.lock`` in the data directory and writes who it is into the file (pid, command line,
since when); the second cannot take the lock and refuses to start, naming the holder. The kernel
releases the lock when the holder's process dies (even by ``kill -9``), so a stale file never
blocks a restart. Within one process the newest :class:`TableLock` of a journal takes the lock
over from an older one (a test, or the simulator, starting a service again without stopping the
one before). Source: flock(2).
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import sys
from pathlib import Path

from companion.errors import CompanionError
from companion.textformats import loads_json

_HELD: dict[str, TableLock] = {}  # journal lock path -> the object holding it in this process


class TableLockedError(CompanionError, RuntimeError):
    """Another table service holds the journal; the message names it (pid, command, since)."""


class TableLock:
    """The lock of one journal, held from :meth:`acquire` until :meth:`release` (or the end of
    the process).

    Args:
        journal_file: the journal the lock protects; the lock file is ``<journal>.lock``.
    """

    def __init__(self, journal_file: Path) -> None:
        self.path = Path(journal_file).with_name(Path(journal_file).name + ".lock")
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> TableLock:
        """Take the lock; returns self.

        Raises:
            TableLockedError: another process (or another service in this one) holds it.
        """
        if self._fd is not None:
            return self
        older = _HELD.get(str(self.path.resolve()))
        if older is not None and older._fd is not None:  # this process holds it already
            self._fd, older._fd = older._fd, None
            _HELD[str(self.path.resolve())] = self
            return self
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError:
            # a read-only card: nobody can write the journal, so nobody can spoil it either;
            # the service starts and says NOT SAVING (the lock is not needed to read)
            return self
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _describe(fd)
            os.close(fd)
            raise TableLockedError(
                f"the journal {self.path.with_suffix('')} is in use by another table service "
                f"({holder}); stop it first, or give this one another data directory "
                "(COMPANION_DATA_DIR)"
            ) from None
        holder = {
            "pid": os.getpid(),
            "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "",
            "since": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        }
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(holder) + "\n").encode("utf-8"), 0)
        except OSError:
            pass  # the lock holds even if its note cannot be written
        self._fd = fd
        _HELD[str(self.path.resolve())] = self
        return self

    def release(self) -> None:
        """Let the lock go (the file stays, empty of meaning once unlocked)."""
        fd, self._fd = self._fd, None
        if _HELD.get(str(self.path.resolve())) is self:
            del _HELD[str(self.path.resolve())]
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


def _describe(fd: int) -> str:
    """The holder as its lock file names it: ``pid 1234, companion daemon, since ...``."""
    try:
        data = os.pread(fd, 4096, 0).decode("utf-8", "replace")
        holder = loads_json(data)
        return (
            f"pid {holder.get('pid')}, command {holder.get('command')!r}, "
            f"since {holder.get('since')}"
        )
    except (OSError, ValueError, AttributeError):
        return "a process whose note cannot be read"
