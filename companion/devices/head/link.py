"""The host's end of the timer head's link (firmware/PROTOCOL.md) over any serial-like port.

:class:`HostLink` runs the firmware's own protocol code (``headproto.Link``) on a port with
pyserial's shape (``in_waiting``, ``read(n)``, ``write(data)``): a real ``serial.Serial``, the
virtual head's port, or a pseudo-terminal. It turns BUTTON messages into :class:`ButtonChange`
events stamped on the host's monotonic clock, and sends SERVO, LED and BUZZER commands in order.
It keeps the commanded output state and sends it again when the head restarts.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.devices.base import DeviceError
from companion.devices.head.timesync import HeadClock
from companion.devices.head.wire import proto


class HeadVersionError(DeviceError):
    """The head's firmware speaks another protocol version than the host."""


@dataclass(frozen=True)
class ButtonChange:
    """A debounced change of one of the head's buttons.

    ``role``: ``blue``, ``red`` or ``challenge``; ``pressed``: True for a press, False for a
    release; ``t``: the moment of the change in seconds on the host's clock (mapped from the head's
    stamp); ``received``: when the host read it (seconds, same clock); ``clock_ms``: the head's
    stamp (32-bit milliseconds); ``event``: the head's event counter (16 bits) and
    ``head_session`` the head's session, which together name the event uniquely.
    """

    role: str
    pressed: bool
    t: float
    received: float
    clock_ms: int
    event: int
    head_session: int


class HostLink:
    """The host side of the link, one instance per opened port. Thread-safe (one lock).

    Args:
        port: a pyserial-like object (``in_waiting``, ``read(n)``, ``write(data)``).
        clock: the host's monotonic clock in seconds (``time.monotonic``; tests inject one).
        session: this host's session number (random if None).
        queue_size: commands that may wait while the head is away; when full, the queue is
            replaced by the commanded state (the head ends up showing the same thing).

    Call :meth:`step` often (a reader thread does it in the serial backend): it reads what the
    port has, delivers button changes and sends what is due.
    """

    def __init__(
        self,
        port: Any,
        clock: Callable[[], float] = time.monotonic,
        session: int | None = None,
        queue_size: int = 1024,
    ) -> None:
        self.port = port
        self.clock = clock
        self.lock = threading.RLock()
        if session is None:
            session = secrets.randbits(32) or 1
        self.link = proto.Link(self._write, session, self._ms(), queue_size)
        self.head_clock = HeadClock()
        self.head_session = 0
        self.head_starts = 0  # hellos from a new head session (power-on, reset)
        self.servo_us: int | None = None
        self.leds: list[bool | None] = [None] * len(proto.LEDS)
        self.last_heartbeat: tuple[int, ...] | None = None
        self.write_errors = 0

    def _ms(self) -> int:
        return int(self.clock() * 1000.0)

    def _write(self, frame: bytes) -> None:
        try:
            self.port.write(frame)
        except Exception:  # noqa: BLE001 - an unplugged head: the frame is lost like on a bad
            self.write_errors += 1  # line; sequenced ones are sent again once it is back

    # --- state ------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """True while the link is up and the head has been heard within LINK_TIMEOUT_MS."""
        with self.lock:
            return not self.link.lost(self._ms())

    @property
    def version_error(self) -> str | None:
        """A sentence when the head speaks another protocol version, else None."""
        version = self.link.peer_version
        if version is None or version == self.link.version:
            return None
        return (
            f"the timer head's firmware speaks protocol version {version}, this companion "
            f"speaks {self.link.version}: flash the firmware with `companion head flash`"
        )

    def stats(self) -> dict[str, Any]:
        """Counters of the link, for the status command and tests."""
        link = self.link
        return {
            "connected": self.connected,
            "head_session": self.head_session,
            "head_starts": self.head_starts,
            "frames_sent": link.frames_sent,
            "retransmitted": link.retransmitted,
            "duplicates": link.duplicates,
            "bad_frames": link.bad_frames,
            "pending": link.pending(),
            "offset_seconds": self.head_clock.offset,
            "heartbeat": self.last_heartbeat,
        }

    # --- commands ---------------------------------------------------------------------------

    def _send(self, mtype: int, *fields: int) -> None:
        if not self.link.send(mtype, *fields):
            # the head has been away a long time: what it must show is the current state
            self.link.queue.clear()
            self._send_state()
            self.link.send(mtype, *fields)

    def _send_state(self) -> None:
        if self.servo_us is not None:
            self.link.send(proto.T_SERVO, self.servo_us)
        for index, on in enumerate(self.leds):
            if on is not None:
                self.link.send(proto.T_LED, index, 1 if on else 0)

    def servo(self, pulse_us: int) -> None:
        """Command the servo pulse width in microseconds (0 releases the servo)."""
        if not 0 <= pulse_us <= 0xFFFF:
            raise DeviceError(f"servo pulse {pulse_us} us: accepted 0 to 65535 microseconds")
        with self.lock:
            self.servo_us = int(pulse_us)
            self._send(proto.T_SERVO, int(pulse_us))
            self.link.poll(self._ms())

    def led(self, index: int, on: bool) -> None:
        """Light (True) or darken LED ``index`` (0 blue, 1 red)."""
        if index not in range(len(proto.LEDS)):
            raise DeviceError(f"LED index {index}: accepted 0 (blue) or 1 (red)")
        with self.lock:
            self.leds[index] = bool(on)
            self._send(proto.T_LED, index, 1 if on else 0)
            self.link.poll(self._ms())

    def buzz(self, count: int, on_ms: int, off_ms: int) -> None:
        """Sound ``count`` beeps of ``on_ms`` ms separated by ``off_ms`` ms (0 silences)."""
        if not (0 <= count <= 255 and 0 <= on_ms <= 0xFFFF and 0 <= off_ms <= 0xFFFF):
            raise DeviceError(
                f"buzzer pattern {count} x {on_ms}/{off_ms} ms: accepted 0-255 beeps of 0-65535 ms"
            )
        with self.lock:
            self._send(proto.T_BUZZER, count, on_ms, off_ms)
            self.link.poll(self._ms())

    def request_repl(self) -> None:
        """Ask the firmware to leave for the MicroPython REPL (before flashing)."""
        with self.lock:
            self.link.send_now(proto.T_REPL, proto.REPL_MAGIC)

    # --- the loop ---------------------------------------------------------------------------

    def step(self, data: bytes | None = None) -> list[ButtonChange]:
        """Read the port (or take ``data``), deliver button changes, send what is due."""
        with self.lock:
            if data is None:
                waiting = self.port.in_waiting
                data = self.port.read(waiting) if waiting else b""
            now = self.clock()
            ms = int(now * 1000.0)
            changes: list[ButtonChange] = []
            for mtype, fields in self.link.feed(data, ms):
                if mtype == proto.T_BUTTON:
                    event, button, pressed, clock_ms = fields
                    if button >= len(proto.BUTTONS):
                        continue
                    changes.append(
                        ButtonChange(
                            role=proto.BUTTONS[button],
                            pressed=bool(pressed),
                            t=self.head_clock.to_host(clock_ms),
                            received=now,
                            clock_ms=clock_ms,
                            event=event,
                            head_session=self.head_session,
                        )
                    )
                elif mtype == proto.T_HEARTBEAT:
                    self.head_clock.observe(fields[0], now)
                    self.last_heartbeat = fields
                elif mtype == proto.T_HELLO:
                    # a new head session: power-on or reset. Its clock began again, and it
                    # shows nothing of what the game shows until told again.
                    self.head_clock.reset()
                    self.head_clock.observe(fields[4], now)
                    self.head_session = fields[1]
                    self.head_starts += 1
                    self._send_state()
            self.link.poll(ms)
            return changes
