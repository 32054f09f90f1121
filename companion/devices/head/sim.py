"""The virtual head in the simulator (``companion sim --head virtual``): the table's buttons,
LEDs, buzzer and disc on the firmware's own code, reached through the serial backend.

Two flavours, matching the simulator's two modes:

- :func:`open_scripted`: for scripts and tests, on a stepped clock. The head, the wire and the
  host's link run in 1 ms steps whenever the clock moves, so a scripted game is deterministic and
  no thread or sleep is involved.
- :func:`open_realtime`: for the interactive simulator. The head runs on a pseudo-terminal in its
  own thread and the backend opens the terminal with pyserial, exactly as it opens
  ``/dev/companion-head`` on a real box.

In both, ``bundle.pins["buttons.blue"]`` and the others take ``drive_low()`` (contact closed) and
``drive_high()`` (open) like gpiozero's mock pins, so the simulator presses buttons the same way
whatever the backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from companion.devices.base import BUTTON_ROLES, DeviceBundle
from companion.devices.head import bundle_over_port
from companion.devices.head.virtual import PtyHead, VirtualTable

STEP_SECONDS = 0.001  # the stepped clock runs the head's loop every millisecond, as the Pico does
POWER_ON_SECONDS = 0.3  # the head is powered this long before the clock reads ``start``
HOLD_SECONDS = 0.04  # a scripted press: the contact stays closed this long, then open this long


def _dummy_display(pinmap):
    from luma.core.device import dummy

    return dummy(width=pinmap.display.width, height=pinmap.display.height, mode="1")


class SteppedClock:
    """A fake monotonic clock (seconds) that runs the virtual table as it moves forward.

    ``clock()`` reads it; ``set(t)`` moves it to ``t`` (never backwards), stepping the head, the
    wire and the host's link every :data:`STEP_SECONDS` on the way.
    """

    def __init__(self, table: VirtualTable) -> None:
        self.table = table
        self.t = table.host_time()

    def __call__(self) -> float:
        return self.t

    def set(self, t: float) -> None:
        """Move to ``t`` exactly (if later), running the table up to it.

        Asked to move to where it already is, it moves on by one floating-point step: a caller
        that waits for a deadline ``d`` by setting ``d + offset`` and reading ``clock() - offset``
        may get just under ``d`` by rounding, and would otherwise ask again forever.
        """
        if t <= self.t:
            self.t = math.nextafter(self.t, math.inf)
            return
        self.t = t
        table = self.table
        while table.host_time() < t - STEP_SECONDS / 2:
            table.step(min(STEP_SECONDS, t - table.host_time()))


class SteppedButtonPin:
    """A head button for scripts: ``drive_low()`` closes the contact and lets the clock run
    :data:`HOLD_SECONDS` (the head debounces and sends the press); ``drive_high()`` opens it and
    lets the clock run as long again."""

    def __init__(self, table: VirtualTable, clock: SteppedClock, role: str) -> None:
        self.table, self.clock, self.role = table, clock, role

    def drive_low(self) -> None:
        self.table.head.set_button(self.role, True)
        self.clock.set(self.clock.t + HOLD_SECONDS)

    def drive_high(self) -> None:
        self.table.head.set_button(self.role, False)
        self.clock.set(self.clock.t + HOLD_SECONDS)

    @property
    def state(self) -> bool:
        """The pin's level: False (low) while the contact is closed."""
        return not self.table.head.hw.levels[BUTTON_ROLES.index(self.role)]


def open_scripted(pinmap, start: float, seed: int = 0) -> tuple[SteppedClock, DeviceBundle]:
    """A virtual head on a stepped clock that reads ``start`` seconds now.

    Returns the clock (give it to the table service) and the device bundle (``pins`` holds the
    buttons; ``extra["virtual_table"]`` the :class:`VirtualTable`, for fault injection).
    """
    table = VirtualTable(seed=seed, host_epoch=start - POWER_ON_SECONDS)
    clock = SteppedClock(table)
    # the link reads the table's own time, which runs on while the clock is being set
    bundle = bundle_over_port(
        table.port, pinmap, table.host_time, _dummy_display(pinmap), start=False
    )
    connection = bundle.extra["head"]
    table.attach(connection.link, connection.step)
    for role in BUTTON_ROLES:
        bundle.pins[f"buttons.{role}"] = SteppedButtonPin(table, clock, role)
    bundle.extra["virtual_table"] = table
    clock.set(start)  # the head was plugged in a moment ago: the link is up at ``start``
    return clock, bundle


class PtyButtonPin:
    """A head button for the interactive simulator: ``drive_low()`` closes the contact of the
    head running on its pseudo-terminal, ``drive_high()`` opens it (real time)."""

    def __init__(self, head: PtyHead, role: str) -> None:
        self.head, self.role = head, role

    def drive_low(self) -> None:
        self.head.press(self.role)

    def drive_high(self) -> None:
        self.head.release(self.role)


def open_realtime(pinmap, clock: Callable[[], float] | None = None) -> DeviceBundle:
    """A virtual head on a pseudo-terminal, opened through pyserial by the serial backend.

    ``extra["virtual_head"]`` is the :class:`PtyHead`; closing the bundle stops it.
    """
    import time

    from companion.devices.head.backend import open_port

    head = PtyHead()
    bundle = bundle_over_port(
        open_port(head.path), pinmap, clock or time.monotonic, _dummy_display(pinmap)
    )
    bundle.extra["head"].closers.append(head.close)
    for role in BUTTON_ROLES:
        bundle.pins[f"buttons.{role}"] = PtyButtonPin(head, role)
    bundle.extra["virtual_head"] = head
    return bundle
