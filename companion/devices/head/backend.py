"""The ``serial`` device backend: the table's buttons, LEDs, buzzer and disc on a Pico timer head.

The same interfaces as the GPIO devices (:mod:`companion.devices.base`): the daemon does not know
which backend it drives. A :class:`HeadConnection` owns the port and a reader thread that runs
the link (:class:`~companion.devices.head.link.HostLink`); the four device objects are thin
views on it. Press times are the head's own stamps mapped to the host's clock, so a press counts
at the moment it was made even when its frame arrives late.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.devices.base import BUTTON_ROLES, LED_ROLES, DeviceError, PressHandler
from companion.devices.head.link import ButtonChange, HostLink
from companion.devices.head.wire import proto

READ_TIMEOUT = 0.005  # seconds a read waits for a byte: the link's timers run at least this often
REOPEN_SECONDS = 0.5  # while the head is unplugged, how often its port is tried again


def open_port(path: str) -> Any:
    """Open the head's serial port with pyserial (``/dev/companion-head``, a pty, a URL).

    Raises:
        DeviceError: the port cannot be opened (names it, the cause, and the udev rule).
    """
    import serial

    try:
        return serial.serial_for_url(path, baudrate=115200, timeout=READ_TIMEOUT)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise DeviceError(
            f"timer head port {path!r} cannot be opened ({exc}); is the head plugged in, and "
            "is firmware/99-companion-head.rules installed in /etc/udev/rules.d/?"
        ) from None


class HeadConnection:
    """The open link to one head, with its reader thread.

    Args:
        port: a pyserial-like port; its ``read`` must return within about ``READ_TIMEOUT``.
        clock: the host's monotonic clock in seconds.
        start: start the reader thread (tests may call :meth:`step` themselves instead).
        reopen: opens the port again (``open_port(path)``). When the port fails (the head was
            unplugged), the reader thread closes it and calls ``reopen`` every
            ``REOPEN_SECONDS`` until it succeeds; meanwhile commands wait in the link's queue
            and ``error`` says what happened. None: the thread stops at the first failure.

    ``changes`` keeps the last button changes (presses and releases) for diagnostics.
    """

    def __init__(
        self,
        port: Any,
        clock: Callable[[], float] = time.monotonic,
        start: bool = True,
        reopen: Callable[[], Any] | None = None,
    ) -> None:
        self.port = port
        self._reopen = reopen
        self.reopened = 0
        self.link = HostLink(port, clock)
        self._handler: PressHandler | None = None
        self._handler_lock = threading.Lock()
        self.changes: list[ButtonChange] = []
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._link_handler: Callable[[bool, float | None], None] | None = None
        self.link_up: bool | None = None  # as last reported to the link handler
        self.users = 0  # device objects still open on this connection
        self.closers: list[Callable[[], None]] = []  # also run at close (a virtual head)
        if start:
            self._thread = threading.Thread(target=self._run, name="timer-head", daemon=True)
            self._thread.start()

    def on_press(self, handler: PressHandler | None) -> None:
        """Install the press handler (see :class:`companion.devices.base.Buttons`)."""
        with self._handler_lock:
            self._handler = handler

    def on_link(self, handler: Callable[[bool, float | None], None] | None) -> None:
        """Install the handler called as ``handler(connected, last_heard)`` each time the head
        goes silent (False: no valid frame for LINK_TIMEOUT_MS, or its port failed) or is heard
        again (True), and once at once with the present state.
        ``last_heard``: the host's monotonic time (seconds) of the last valid frame from the
        head, None if it was never heard. Called from the reader thread."""
        with self._handler_lock:
            self._link_handler = handler
            self.link_up = None
        self._note_link()

    def last_heard(self) -> float | None:
        """The host's monotonic time (seconds) of the head's last valid frame, or None."""
        with self.link.lock:
            if self.link.head_session == 0:
                return None
            return self.link.link.last_rx / 1000.0

    def heard(self) -> bool:
        """True when the head has said hello and sent a valid frame within LINK_TIMEOUT_MS (a
        reset of the head, which says hello again at once, is not silence)."""
        link = self.link
        with link.lock:
            if link.head_session == 0:
                return False
            return link._ms() - link.link.last_rx <= proto.LINK_TIMEOUT_MS

    def _note_link(self, lost: bool = False) -> None:
        """Tell the link handler when the head went silent or came back (``lost``: the port
        failed, the head is unplugged)."""
        up = False if lost else self.heard()
        with self._handler_lock:
            handler = self._link_handler
            if handler is None or up == self.link_up:
                return
            self.link_up = up
        handler(up, self.last_heard())

    def step(self, data: bytes | None = None) -> list[ButtonChange]:
        """Run the link once (read, deliver, send); calls the press handler for each press and
        the link handler when the link goes silent or comes back."""
        changes = self.link.step(data)
        self._note_link()
        if changes:
            self.changes = (self.changes + changes)[-256:]
            with self._handler_lock:
                handler = self._handler
            if handler is not None:
                for change in changes:
                    if change.pressed:
                        handler(change.role, change.t)
        return changes

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                waiting = self.port.in_waiting
                data = self.port.read(max(1, waiting))
            except Exception as exc:  # noqa: BLE001 - pyserial's SerialException, OSError...
                self.error = f"timer head port: {exc}"
                self._note_link(lost=True)  # unplugged: said now, not after the link timeout
                if self._reopen is None or not self._wait_and_reopen():
                    return
                continue
            self.step(data)

    def _wait_and_reopen(self) -> bool:
        """The head is gone: close the port, open it again when it comes back. False if the
        connection is being closed meanwhile."""
        with contextlib.suppress(Exception):
            self.port.close()
        while not self._stop.wait(REOPEN_SECONDS):
            try:
                port = self._reopen()  # type: ignore[misc]
            except DeviceError:
                continue
            with self.link.lock:
                self.port = port
                self.link.port = port
            self.reopened += 1
            self.error = None
            return True
        return False

    def attach(self) -> HeadConnection:
        """A device object starts using the connection."""
        self.users += 1
        return self

    def release(self) -> None:
        """A device object is closed; the last one closes the connection."""
        self.users -= 1
        if self.users <= 0:
            self.close()

    def flush(self, timeout: float = 0.3) -> bool:
        """Wait up to ``timeout`` seconds (real time) for the head to acknowledge every command;
        True if it did."""
        if self._thread is None or not self._thread.is_alive():
            return not self.link.link.pending()  # stepped by its owner: nothing to wait for
        deadline = time.monotonic() + timeout
        while self.link.link.pending() and time.monotonic() < deadline:
            time.sleep(0.005)
        return not self.link.link.pending()

    def close(self) -> None:
        """Send what is pending (briefly), stop the reader thread and close the port."""
        if self._stop.is_set():
            return
        if self.link.connected:
            self.flush()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
        close = getattr(self.port, "close", None)
        if close is not None:
            close()
        for closer in self.closers:
            closer()


class HeadButtons:
    """The three buttons on the head (:class:`companion.devices.base.Buttons`): acts on press,
    debounced on the head (``[head] sample_ms`` x ``debounce_samples``)."""

    roles = BUTTON_ROLES

    def __init__(self, connection: HeadConnection) -> None:
        self.connection = connection.attach()

    def on_press(self, handler: PressHandler | None) -> None:
        """Install the handler called as ``handler(role, t)`` for each press."""
        self.connection.on_press(handler)

    def on_link(self, handler: Callable[[bool, float | None], None] | None) -> None:
        """Install the handler told when the buttons' path (the head's link) is lost or back:
        ``handler(connected, last_heard)`` (see :meth:`HeadConnection.on_link`)."""
        self.connection.on_link(handler)

    def close(self) -> None:
        """Stop delivering presses."""
        self.connection.on_press(None)
        self.connection.on_link(None)
        self.connection.release()


class HeadLights:
    """The LED rings on the head (:class:`companion.devices.base.Lights`)."""

    def __init__(self, connection: HeadConnection) -> None:
        self.connection = connection.attach()

    def set(self, lit: dict[str, bool]) -> None:
        """Light or darken each LED named in ``lit`` (``{"blue": True, "red": False}``).

        Raises:
            DeviceError: a role other than blue or red.
        """
        for role, on in lit.items():
            if role not in LED_ROLES:
                raise DeviceError(f"LED {role!r} is not on the head; accepted: blue, red")
            self.connection.link.led(proto.LEDS.index(role), bool(on))

    def state(self) -> dict[str, bool]:
        """What each LED was last told to show (the head shows it once it has the command)."""
        leds = self.connection.link.leds
        return {role: bool(leds[i]) for i, role in enumerate(proto.LEDS)}

    def close(self) -> None:
        """Darken both LEDs."""
        self.set(dict.fromkeys(LED_ROLES, False))
        self.connection.release()


class HeadSounder:
    """The buzzer on the head (:class:`companion.devices.base.Sounder`); the head times the
    beeps itself, so link latency does not stretch them."""

    def __init__(self, connection: HeadConnection) -> None:
        self.connection = connection.attach()

    def beep(self, count: int = 1, on_seconds: float = 0.15, off_seconds: float = 0.1) -> None:
        """Sound ``count`` beeps of ``on_seconds`` separated by ``off_seconds``; returns at once.

        Raises:
            DeviceError: a count over 255 or a duration over 65.535 s.
        """
        self.connection.link.buzz(int(count), round(on_seconds * 1000), round(off_seconds * 1000))

    def close(self) -> None:
        """Silence the buzzer."""
        self.connection.link.buzz(0, 0, 0)
        self.connection.release()


class HeadDisc:
    """The disc servo on the head (:class:`companion.devices.base.Disc`): the angle becomes a
    pulse width linearly between the pin map's ``[servo]`` (min_angle, min_pulse_seconds) and
    (max_angle, max_pulse_seconds), as the GPIO disc does."""

    def __init__(self, connection: HeadConnection, servo) -> None:
        self.connection = connection.attach()
        self.servo = servo
        self._angle: float | None = None

    @property
    def angle(self) -> float | None:
        """The commanded angle in degrees, or None before the first turn / after release."""
        return self._angle

    def pulse_us(self, angle: float) -> int:
        """The pulse width in microseconds for ``angle`` degrees (clamped to the travel)."""
        s = self.servo
        angle = min(max(float(angle), s.min_angle), s.max_angle)
        frac = (angle - s.min_angle) / (s.max_angle - s.min_angle)
        return round(
            (s.min_pulse_seconds + frac * (s.max_pulse_seconds - s.min_pulse_seconds)) * 1e6
        )

    def turn_to(self, angle: float) -> None:
        """Turn to ``angle`` degrees, clamped to [min_angle, max_angle].

        Raises:
            DeviceError: ``angle`` is not a finite number.
        """
        if not math.isfinite(angle):
            raise DeviceError(f"disc angle {angle!r}: accepted a finite number of degrees")
        s = self.servo
        self._angle = min(max(float(angle), s.min_angle), s.max_angle)
        self.connection.link.servo(self.pulse_us(self._angle))

    def close(self) -> None:
        """Release the servo (no more pulses)."""
        self._angle = None
        self.connection.link.servo(0)
        self.connection.release()
