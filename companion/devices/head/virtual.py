"""The virtual timer head: the firmware's own code (headcore, headproto) on simulated pins.

For tests and ``companion sim --head virtual``. Three ways to connect it:

- :class:`VirtualTable`: head, wire and :class:`~companion.devices.head.link.HostLink` stepped
  together on an injected clock, deterministic, with fault injection on the wire (corrupted,
  dropped, duplicated and delayed frames, a reset of the head, a restart of the host). No thread,
  no sleep: tests run 10,000 events in a few seconds.
- :class:`PtyHead`: the head served on a pseudo-terminal in a thread, in real time. The host opens
  the terminal's path with pyserial exactly as it opens ``/dev/companion-head``.
- :class:`FaultyWire` on its own, for any byte stream.
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

from companion.devices.head.link import ButtonChange, HostLink
from companion.devices.head.wire import core, proto

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms() wraps here on the RP2040

DEFAULT_BOARD = SimpleNamespace(
    SAMPLE_MS=5, DEBOUNCE_SAMPLES=4, SERVO_MIN_US=500, SERVO_MAX_US=2500
)
"""The board configuration of the standard head (hardware/pinmap.toml ``[head]``, ``[servo]``)."""


def ticks_diff(a: int, b: int) -> int:
    """MicroPython's ``time.ticks_diff`` for a counter of period :data:`TICKS_PERIOD`."""
    half = TICKS_PERIOD // 2
    return ((a - b + half) % TICKS_PERIOD) - half


class SimHardware:
    """The head's pins, simulated: tests set ``levels`` (True = pressed; blue, red, challenge)
    and read the outputs (``leds``, ``buzzer``, ``servo_us``) and their history ``changes``:
    ``(clock_ms, what, value)`` with ``what`` in ``led0``, ``led1``, ``buzzer``, ``servo``."""

    def __init__(self, write: Callable[[bytes], None]) -> None:
        self.write = write
        self.levels = [False] * len(proto.BUTTONS)
        self.leds = [False] * len(proto.LEDS)
        self.buzzer = False
        self.servo_us = 0
        self.clock_ms = 0
        self.changes: list[tuple[int, str, object]] = []

    def read_buttons(self) -> list[bool]:
        return list(self.levels)

    def set_led(self, index: int, on: bool) -> None:
        if self.leds[index] != on:
            self.leds[index] = on
            self.changes.append((self.clock_ms, f"led{index}", on))

    def set_buzzer(self, on: bool) -> None:
        if self.buzzer != on:
            self.buzzer = on
            self.changes.append((self.clock_ms, "buzzer", on))

    def set_servo_us(self, pulse_us: int) -> None:
        if self.servo_us != pulse_us:
            self.servo_us = pulse_us
            self.changes.append((self.clock_ms, "servo", pulse_us))


class _RecordingHead(core.Head):
    """The firmware's Head, keeping the list of commands it applied, in order."""

    def __init__(self, *args, **kwargs) -> None:
        self.commands: list[tuple[int, tuple]] = []
        super().__init__(*args, **kwargs)

    def _apply(self, mtype, fields, now):
        if mtype in (proto.T_SERVO, proto.T_LED, proto.T_BUZZER):
            self.commands.append((mtype, tuple(fields)))
        super()._apply(mtype, fields, now)


class VirtualHead:
    """A head running the firmware's code on :class:`SimHardware`.

    Args:
        write: where the head's frames go (whole frames, one call each).
        board: the board configuration (``SAMPLE_MS``, ``DEBOUNCE_SAMPLES``, servo limits).
        clock_ms: the head's wire clock at power-on (tests start it near the 2**32 wrap).
        ticks0: the tick counter at power-on (tests start it near the 2**30 wrap).
        rng: source of session numbers (deterministic in tests).
    """

    def __init__(
        self,
        write: Callable[[bytes], None],
        board=DEFAULT_BOARD,
        clock_ms: int = 0,
        ticks0: int = 0,
        rng: random.Random | None = None,
    ) -> None:
        self.board = board
        self.hw = SimHardware(write)
        self.rng = rng
        self.ticks0 = ticks0
        self.resets = 0
        self.head: _RecordingHead
        self._boot(0.0, clock_ms)

    def _session(self) -> int:
        value = self.rng.getrandbits(32) if self.rng is not None else secrets.randbits(32)
        return value or 1

    def _ticks(self, t: float) -> int:
        return (self.ticks0 + int(round(t * 1000.0))) % TICKS_PERIOD

    def _boot(self, t: float, clock_ms: int) -> None:
        self.head = _RecordingHead(
            self.hw, self.board, self._session(), self._ticks(t), ticks_diff, clock_ms=clock_ms
        )

    def reset(self, t: float) -> None:
        """A reset of the head at time ``t`` (seconds): power cycle, RAM (and queue) lost."""
        self.resets += 1
        self.hw.leds = [False] * len(proto.LEDS)
        self.hw.servo_us = 0
        self._boot(t, 0)

    def step(self, t: float, data: bytes = b"") -> None:
        """Run the firmware's loop once at time ``t`` (seconds) with the bytes received."""
        self.hw.clock_ms = self.head.clock_ms
        self.head.step(self._ticks(t), data)

    def set_button(self, role: str, pressed: bool) -> None:
        """Close (True) or open the contact of button ``role`` (blue, red, challenge)."""
        self.hw.levels[proto.BUTTONS.index(role)] = pressed

    @property
    def commands(self) -> list[tuple[int, tuple]]:
        """The SERVO, LED and BUZZER commands applied since the last reset, in order."""
        return self.head.commands


@dataclass
class Faults:
    """Fault rates of one direction of the wire, each a probability per frame.

    ``corrupt``: one random bit flipped; ``drop``: the frame vanishes; ``duplicate``: it arrives
    twice; ``delay``: the line stalls for a random time in ``delay_seconds`` before it (and,
    a serial line being first-in first-out, before everything after it).
    """

    corrupt: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    delay_seconds: tuple[float, float] = (0.05, 0.5)


class FaultyWire:
    """One direction of a serial line, carrying whole frames with faults, first-in first-out.

    Args:
        faults: the fault rates.
        latency: seconds from write to the earliest read.
        rng: the random source (deterministic in tests).
    """

    def __init__(
        self, faults: Faults | None = None, latency: float = 0.0, rng: random.Random | None = None
    ) -> None:
        self.faults = faults or Faults()
        self.latency = latency
        self.rng = rng or random.Random()
        self.pending: deque[tuple[float, bytes]] = deque()
        self.last_release = 0.0
        self.counts = {"frames": 0, "corrupted": 0, "dropped": 0, "duplicated": 0, "delayed": 0}

    def write(self, frame: bytes, t: float) -> None:
        """Send ``frame`` at time ``t`` (seconds)."""
        f, rng, counts = self.faults, self.rng, self.counts
        counts["frames"] += 1
        r = rng.random()
        if r < f.drop:
            counts["dropped"] += 1
            return
        if r < f.drop + f.corrupt:
            counts["corrupted"] += 1
            data = bytearray(frame)
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            frame = bytes(data)
        release = max(t + self.latency, self.last_release)
        if rng.random() < f.delay:
            counts["delayed"] += 1
            release += rng.uniform(*f.delay_seconds)
        self.pending.append((release, frame))
        if rng.random() < f.duplicate:
            counts["duplicated"] += 1
            self.pending.append((release, frame))
        self.last_release = release

    def read(self, t: float) -> bytes:
        """Everything that has arrived by time ``t``."""
        out = bytearray()
        pending = self.pending
        while pending and pending[0][0] <= t:
            out += pending.popleft()[1]
        return bytes(out)


class _WirePort:
    """The host's pyserial-like view of a :class:`VirtualTable`'s wires."""

    def __init__(self, table: VirtualTable) -> None:
        self.table = table
        self._inbox = b""

    @property
    def in_waiting(self) -> int:
        self._inbox += self.table.to_host.read(self.table.t)
        return len(self._inbox)

    def read(self, n: int) -> bytes:
        data, self._inbox = self._inbox[:n], self._inbox[n:]
        return data

    def write(self, data: bytes) -> int:
        self.table.to_head.write(bytes(data), self.table.t)
        return len(data)


class VirtualTable:
    """A head, its two wires and the host's link, on one injected clock.

    Args:
        to_host, to_head: the faults of each direction (none by default).
        seed: seeds every random choice (faults, sessions), so a run can be replayed.
        host_epoch: host clock at t = 0, seconds (the host's clock and the head's differ).
        head_clock_ms, head_ticks0: the head's counters at power-on (to test wrap-around).
        latency: seconds each frame spends on the wire.
        board: the head's board configuration.

    ``t`` is the simulated time in seconds; ``host_time()`` the host's clock.
    """

    def __init__(
        self,
        to_host: Faults | None = None,
        to_head: Faults | None = None,
        seed: int = 0,
        host_epoch: float = 1000.0,
        head_clock_ms: int = 0,
        head_ticks0: int = 0,
        latency: float = 0.0005,
        board=DEFAULT_BOARD,
    ) -> None:
        self.rng = random.Random(seed)
        self.t = 0.0
        self.host_epoch = host_epoch
        self.to_host = FaultyWire(to_host, latency, random.Random(self.rng.random()))
        self.to_head = FaultyWire(to_head, latency, random.Random(self.rng.random()))
        self.head = VirtualHead(
            lambda frame: self.to_host.write(frame, self.t),
            board,
            head_clock_ms,
            head_ticks0,
            random.Random(self.rng.random()),
        )
        self.port = _WirePort(self)
        self.host: HostLink | None = self._new_host()
        self._host_step: Callable[[], list[ButtonChange]] | None = None
        self.changes: list[ButtonChange] = []

    def _new_host(self) -> HostLink:
        return HostLink(self.port, self.host_time, session=self.rng.getrandbits(32) or 1)

    def host_time(self) -> float:
        """The host's monotonic clock, seconds."""
        return self.host_epoch + self.t

    def step(self, dt: float = 0.001) -> list[ButtonChange]:
        """Advance by ``dt`` seconds: the head runs, then the host; returns the host's changes."""
        self.t += dt
        self.head.step(self.t, self.to_head.read(self.t))
        if self.host is None:
            self.to_host.read(self.t)  # nobody has the port open: the bytes are lost
            return []
        changes = self._host_step() if self._host_step is not None else self.host.step()
        self.changes.extend(changes)
        return changes

    def attach(self, link: HostLink, step: Callable[[], list[ButtonChange]]) -> None:
        """Use ``link`` (opened on :attr:`port`) as the host, run by ``step`` (e.g. the serial
        backend's :meth:`~companion.devices.head.backend.HeadConnection.step`)."""
        self.host = link
        self._host_step = step

    def run(self, seconds: float, dt: float = 0.001) -> list[ButtonChange]:
        """Step for ``seconds``; returns the changes the host received meanwhile."""
        out: list[ButtonChange] = []
        end = self.t + seconds - dt / 2
        while self.t < end:
            out.extend(self.step(dt))
        return out

    def reset_head(self) -> None:
        """Reset the head now (its unacknowledged events are lost with its RAM)."""
        self.head.reset(self.t)

    def stop_host(self) -> None:
        """The host process dies now: it neither reads nor writes until :meth:`restart_host`."""
        self.host = None
        self._host_step = None

    def restart_host(self) -> None:
        """(Re)start the host process now: a new session on the same port, nothing remembered."""
        self.port = _WirePort(self)
        self.host = self._new_host()
        self._host_step = None


class PtyHead:
    """A virtual head served on a pseudo-terminal, in real time, in a daemon thread.

    ``path`` is the terminal the host opens (``serial.Serial(path)``), like the udev name of a
    real head. ``press(role)`` / ``release(role)`` move a button; the head samples it as the
    firmware does.

    Args:
        board: the board configuration.
        period: seconds between two runs of the firmware's loop (the Pico's loop is about 1 ms).
        faults: faults injected into the frames the head sends (none by default).
        seed: seeds the faults.
    """

    def __init__(
        self,
        board=DEFAULT_BOARD,
        period: float = 0.001,
        faults: Faults | None = None,
        seed: int | None = None,
    ) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.period = period
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self.wire = FaultyWire(faults, 0.0, random.Random(seed))
        self.head = VirtualHead(self._write, board, ticks0=0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="virtual-head", daemon=True)
        self._thread.start()

    def _now(self) -> float:
        return time.monotonic() - self._t0

    def _write(self, frame: bytes) -> None:
        self.wire.write(frame, self._now())

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            # the thread that selects on the terminal closes it, so no select ever sees a closed
            # (or reused) file descriptor
            for fd in (self.master, self.slave):
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _loop(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], self.period)
            data = b""
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:  # the host closed the terminal: wait for it
                    self._stop.wait(self.period)
            with self._lock:
                self.head.step(self._now(), data)
            out = self.wire.read(self._now())
            if out:
                # a closed terminal loses the bytes, as a real line would
                with contextlib.suppress(OSError):
                    os.write(self.master, out)

    def set_button(self, role: str, pressed: bool) -> None:
        """Close (True) or open the contact of button ``role``."""
        with self._lock:
            self.head.set_button(role, pressed)

    def press(self, role: str) -> None:
        """Close the contact of button ``role``."""
        self.set_button(role, True)

    def release(self, role: str) -> None:
        """Open the contact of button ``role``."""
        self.set_button(role, False)

    def close(self) -> None:
        """Stop the head and close the terminal."""
        self._stop.set()
        self._thread.join()
