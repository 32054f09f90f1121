"""The timer head: a Raspberry Pi Pico over USB serial that carries the table's buttons, LEDs,
buzzer and disc servo (firmware/, protocol in firmware/PROTOCOL.md, docs in docs/head.md).

``[backend] kind = "serial"`` in the pin map makes :func:`companion.devices.backends.open_devices`
call :func:`open_devices` here; the daemon gets the same :class:`~companion.devices.base.DeviceBundle`
as from the GPIO backend and never knows the difference.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from companion.devices.base import DeviceBundle


def bundle_over_port(
    port: Any,
    pinmap,
    clock: Callable[[], float] = time.monotonic,
    display: Any = None,
    start: bool = True,
    reopen: Callable[[], Any] | None = None,
) -> DeviceBundle:
    """The table's devices over an already open head port.

    Args:
        port: a pyserial-like port (``in_waiting``, ``read``, ``write``, ``close``).
        pinmap: the :class:`~companion.devices.pinmap.PinMap` (its ``[servo]`` range is used).
        clock: the host's monotonic clock in seconds.
        display: the OLED (a luma device); None opens the Pi's OLED over I2C.
        start: start the reader thread.
        reopen: opens the port again after a failure (the head unplugged and plugged back).
    """
    from companion.devices.head.backend import (
        HeadButtons,
        HeadConnection,
        HeadDisc,
        HeadLights,
        HeadSounder,
    )

    if display is None:
        display = _open_display(pinmap)
    connection = HeadConnection(port, clock, start=start, reopen=reopen)
    bundle = DeviceBundle(
        "serial",
        HeadButtons(connection),
        HeadLights(connection),
        HeadSounder(connection),
        HeadDisc(connection, pinmap.servo),
        display,
    )
    bundle.extra["head"] = connection
    return bundle


def _open_display(pinmap) -> Any:
    """The Pi's OLED(s), as the GPIO backend opens them: a missing or disconnected OLED never
    stops the table (companion.devices.resilient), a second one mirrors the first."""
    from companion.devices.resilient import MirroredDisplay, resilient_oled

    display = resilient_oled(pinmap.display)
    if getattr(pinmap, "display2", None) is not None:
        display = MirroredDisplay(display, resilient_oled(pinmap.display2, "second display"))
    return display


def open_devices(
    pinmap, clock: Callable[[], float] = time.monotonic, port: str | None = None
) -> DeviceBundle:
    """Open the head named by ``[head] port`` (or ``port``) and the Pi's OLED.

    Raises:
        PinMapError: an invalid ``[head]`` section.
        DeviceError: the port cannot be opened (a missing OLED is reported by the display,
            never fatal).
    """
    from companion.devices.head.backend import open_port
    from companion.devices.head.config import head_map

    path = port or head_map(pinmap).port
    display = _open_display(pinmap)
    return bundle_over_port(open_port(path), pinmap, clock, display, reopen=lambda: open_port(path))
