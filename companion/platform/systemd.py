"""systemd's notification protocol (``sd_notify``): readiness, status and the watchdog.

The service unit (systemd/table-companion.service) is ``Type=notify`` with ``WatchdogSec=``: the
daemon must send ``READY=1`` once its devices are open and then ``WATCHDOG=1`` more often than the
watchdog interval, or systemd restarts it. The protocol is a datagram of ``KEY=VALUE`` lines sent to
the AF_UNIX socket named in ``$NOTIFY_SOCKET`` (a leading ``@`` means the abstract namespace).
Source: sd_notify(3), "Notes" and "Environment"; sd_watchdog_enabled(3).

Outside systemd (no ``$NOTIFY_SOCKET``) every call is a cheap no-op, so the daemon calls them
unconditionally. Typical use in the daemon's loop::

    notifier = Notifier.from_environment()
    ...open devices...
    notifier.ready("table 3: waiting for the first press")
    while running:
        ...one turn of the loop...
        notifier.tick(time.monotonic())   # sends WATCHDOG=1 at most every interval/2 seconds
    notifier.stopping()
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


def _address(value: str) -> str | bytes:
    """The socket address for ``$NOTIFY_SOCKET``: ``@name`` is the abstract name ``\\0name``."""
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    return value


class Notifier:
    """Sends sd_notify messages to systemd; does nothing when not run by systemd.

    Args:
        socket_path: the value of ``$NOTIFY_SOCKET`` (a path, or ``@name``); None disables.
        watchdog_seconds: the watchdog interval (``$WATCHDOG_USEC`` / 1e6), None if disabled.

    Sending never raises: a failure is logged once and the service goes on (the clock must never
    stop because systemd is unreachable).
    """

    def __init__(self, socket_path: str | None, watchdog_seconds: float | None = None):
        self.socket_path = socket_path or None
        self.watchdog_seconds = watchdog_seconds
        self._last_ping: float | None = None
        self._warned = False

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        """A notifier from ``$NOTIFY_SOCKET``, ``$WATCHDOG_USEC`` and ``$WATCHDOG_PID``.

        The watchdog applies only when ``$WATCHDOG_PID`` is unset or is this process's id
        (sd_watchdog_enabled(3)); a bad ``$WATCHDOG_USEC`` disables it with a warning.
        """
        env = os.environ if environ is None else environ
        watchdog = None
        usec = env.get("WATCHDOG_USEC")
        pid = env.get("WATCHDOG_PID")
        if usec and (not pid or pid == str(os.getpid())):
            try:
                watchdog = int(usec) / 1e6
            except ValueError:
                log.warning("WATCHDOG_USEC=%r is not a whole number of microseconds", usec)
            else:
                if watchdog <= 0:
                    watchdog = None
        return cls(env.get("NOTIFY_SOCKET"), watchdog)

    @property
    def enabled(self) -> bool:
        """True when run by systemd with a notification socket."""
        return self.socket_path is not None

    def notify(self, **fields: str | int) -> bool:
        """Send ``KEY=VALUE`` lines (keys upper-cased: ``notify(status="x")`` sends ``STATUS=x``).

        Returns True if the datagram was sent, False when disabled or on an error (logged once).
        """
        if self.socket_path is None:
            return False
        message = "\n".join(f"{k.upper()}={v}" for k, v in fields.items()).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(_address(self.socket_path))
                sock.sendall(message)
        except OSError as exc:
            if not self._warned:
                log.warning("cannot notify systemd at %s: %s", self.socket_path, exc)
                self._warned = True
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """Tell systemd the service is up (``READY=1``), with an optional status line."""
        fields: dict[str, str | int] = {"READY": 1}
        if status:
            fields["STATUS"] = status
        return self.notify(**fields)

    def status(self, text: str) -> bool:
        """Set the one-line status shown by ``systemctl status``."""
        return self.notify(STATUS=text)

    def stopping(self) -> bool:
        """Tell systemd the service is shutting down (``STOPPING=1``)."""
        return self.notify(STOPPING=1)

    def watchdog(self) -> bool:
        """Feed the watchdog now (``WATCHDOG=1``)."""
        return self.notify(WATCHDOG=1)

    def tick(self, now: float) -> bool:
        """Feed the watchdog if half its interval has passed since the last feed.

        Args:
            now: a monotonic time in seconds (``time.monotonic()``), injected for tests.

        Returns True when a ``WATCHDOG=1`` was sent. Call it from every turn of the main loop:
        if the loop hangs, the feeds stop and systemd restarts the service.
        """
        if self.socket_path is None or self.watchdog_seconds is None:
            return False
        if self._last_ping is not None and now - self._last_ping < self.watchdog_seconds / 2:
            return False
        self._last_ping = now
        return self.watchdog()


_default: Notifier | None = None


def notifier() -> Notifier:
    """The process's notifier, made from the environment on first use."""
    global _default
    if _default is None:
        _default = Notifier.from_environment()
    return _default
