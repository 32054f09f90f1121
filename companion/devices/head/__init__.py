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

from companion.devices.base import DeviceBundle, DeviceError


def bundle_over_port(
    port: Any,
    pinmap,
    clock: Callable[[], float] = time.monotonic,
    display: Any = None,
    start: bool = True,
) -> DeviceBundle:
    """The table's devices over an already open head port.

    Args:
        port: a pyserial-like port (``in_waiting``, ``read``, ``write``, ``close``).
        pinmap: the :class:`~companion.devices.pinmap.PinMap` (its ``[servo]`` range is used).
        clock: the host's monotonic clock in seconds.
        display: the OLED (a luma device); None opens the Pi's OLED over I2C.
        start: start the reader thread.

    Raises:
        DeviceError: the display cannot be opened.
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
    connection = HeadConnection(port, clock, start=start)
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
    try:
        from luma.core.interface.serial import i2c
        from luma.oled import device as oled

        d = pinmap.display
        return getattr(oled, d.driver)(
            i2c(port=d.i2c_port, address=d.address), width=d.width, height=d.height
        )
    except Exception as exc:  # luma raises DeviceNotFoundError, OSError, ImportError...
        raise DeviceError(
            f"display {pinmap.display.driver} at I2C port {pinmap.display.i2c_port} address "
            f"{pinmap.display.address:#x} cannot be opened: {exc}"
        ) from None


def open_devices(
    pinmap, clock: Callable[[], float] = time.monotonic, port: str | None = None
) -> DeviceBundle:
    """Open the head named by ``[head] port`` (or ``port``) and the Pi's OLED.

    Raises:
        PinMapError: an invalid ``[head]`` section.
        DeviceError: the port or the display cannot be opened.
    """
    from companion.devices.head.backend import open_port
    from companion.devices.head.config import head_map

    head = head_map(pinmap)
    display = _open_display(pinmap)
    return bundle_over_port(open_port(port or head.port), pinmap, clock, display)
