"""An OLED that survives a loose wire: I2C errors are caught, the clock goes on, and the display
is re-opened when it answers again.

On the Pi the OLED is a luma.oled device over I2C. A loose jumper makes every write raise
``OSError`` (errno 121, "Remote I/O error"; 5, "Input/output error"), and a module that was
missing at start-up makes luma raise ``DeviceNotFoundError``. :class:`ResilientDisplay` wraps an
opener (a function that opens the device) and presents the same luma-style interface as the
daemon's :class:`~companion.devices.base.Display` protocol (``width``, ``height``, ``mode``,
``display(image)``), so the daemon never sees the error: a frame that cannot be sent is kept, and
every ``retry_seconds`` the device is opened again (a fresh luma device re-sends the SSD1306 /
SH1106 initialisation sequence, needed after the module lost power) and the latest frame shown.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def _is_device_error(exc: BaseException) -> bool:
    """True for the errors a missing or disconnected I2C device raises."""
    if isinstance(exc, OSError):
        return True
    try:
        from luma.core.error import Error as LumaError
    except ImportError:  # pragma: no cover - luma is a dependency
        return False
    return isinstance(exc, LumaError)


class ResilientDisplay:
    """A display that never raises on I/O errors and re-opens its device when it answers again.

    Args:
        opener: opens and returns the real device (``luma.oled.device.ssd1306(...)``); it may
            raise ``OSError`` or luma's errors when the module does not answer.
        width, height: the size in pixels (the pin map's); ``mode``: PIL mode, "1" for the OLEDs.
        name: for the log and :attr:`problem` ("display at I2C bus 1 address 0x3c").
        retry_seconds: the least time between two attempts to re-open, in seconds.
        clock: monotonic seconds (injected in tests).

    Attributes:
        image: the last frame asked for (shown or not), as luma's dummy device keeps it.
        problem: None while the device works, else a one-line description of why it does not.
    """

    def __init__(
        self,
        opener: Callable[[], Any],
        width: int,
        height: int,
        mode: str = "1",
        name: str = "display",
        retry_seconds: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._opener = opener
        self.width = width
        self.height = height
        self.size = (width, height)
        self.mode = mode
        self.name = name
        self.retry_seconds = retry_seconds
        self._clock = clock
        self.device: Any = None
        self.image: Any = None
        self.problem: str | None = None
        self._next_try = float("-inf")
        self.reopened = 0  # how many times the device came back after a failure
        self._open()

    @property
    def ok(self) -> bool:
        """True while the device answers."""
        return self.device is not None

    def _fail(self, exc: BaseException, doing: str) -> None:
        first = self.problem is None
        self.problem = f"{self.name}: {doing} failed ({type(exc).__name__}: {exc})"
        self.device = None
        self._next_try = self._clock() + self.retry_seconds
        if first:  # log the first failure; the retries stay quiet until it answers again
            log.warning(
                "%s; the game goes on, retrying every %gs", self.problem, self.retry_seconds
            )

    def _open(self) -> bool:
        try:
            self.device = self._opener()
        except Exception as exc:  # noqa: BLE001 - filtered just below
            if not _is_device_error(exc):
                raise
            self._fail(exc, "opening")
            return False
        if self.problem is not None:
            log.warning("%s answers again", self.name)
            self.reopened += 1
        self.problem = None
        return True

    def display(self, image: Any) -> None:
        """Show ``image`` (a PIL image of ``(width, height)`` pixels); never raises an I/O error.

        While the device is lost, the frame is kept and shown as soon as a re-open succeeds.
        """
        self.image = image
        if self.device is None and (self._clock() < self._next_try or not self._open()):
            return
        try:
            self.device.display(image)
        except Exception as exc:  # noqa: BLE001 - filtered just below
            if not _is_device_error(exc):
                raise
            self._fail(exc, "drawing")

    def poll(self) -> None:
        """Try to bring a lost device back now (if due) and show the kept frame."""
        if self.device is None and self.image is not None:
            self.display(self.image)
        elif self.device is None and self._clock() >= self._next_try:
            self._open()

    def cleanup(self) -> None:
        """Clear and release the device (luma's ``cleanup``), ignoring I/O errors."""
        device, self.device = self.device, None
        if device is not None and hasattr(device, "cleanup"):
            try:
                device.cleanup()
            except Exception as exc:  # noqa: BLE001
                if not _is_device_error(exc):
                    raise


def open_oled(display_map) -> Callable[[], Any]:
    """An opener for the pin map's OLED: luma.oled ``ssd1306``, ``sh1106``, ``ssd1309`` or
    ``ssd1322``, over I2C or (``interface = "spi"``) SPI0.

    Args:
        display_map: a :class:`~companion.devices.pinmap.DisplayMap` (driver, bus, address, size).

    Returns a function that opens the device each time it is called (luma's ``i2c`` serial
    interface on ``/dev/i2c-<port>`` at the 7-bit address); it raises luma's
    ``DeviceNotFoundError`` / ``DevicePermissionError`` or ``OSError`` when the module does not
    answer. Over SPI it is luma's ``spi`` interface on ``/dev/spidev0.<spi_device>`` with the
    data/command and reset GPIOs of the pin map. The SSD1322 is a 4-bit greyscale controller: it is
    opened in mode "1" (lit pixels at full brightness). Sources: luma.oled documentation,
    "Hardware" (I2C, SPI) and its device classes; SSD1306, SH1106, SSD1309, SSD1322 datasheets.
    """

    def opener():
        from luma.core.interface.serial import i2c, spi
        from luma.oled import device as oled

        d = display_map
        if getattr(d, "interface", "i2c") == "spi":
            serial = spi(port=0, device=d.spi_device, gpio_DC=d.dc, gpio_RST=d.reset)
        else:
            serial = i2c(port=d.i2c_port, address=d.address)
        extra = {"mode": "1"} if d.driver == "ssd1322" else {}
        return getattr(oled, d.driver)(serial, width=d.width, height=d.height, **extra)

    return opener


def resilient_oled(display_map, name: str = "display", **kwargs) -> ResilientDisplay:
    """The pin map's OLED wrapped in :class:`ResilientDisplay` (a missing module is reported in
    its ``problem`` and retried, never raised)."""
    d = display_map
    if getattr(d, "interface", "i2c") == "spi":
        label = f"{name} ({d.driver} on SPI0 CE{d.spi_device})"
    else:
        label = f"{name} ({d.driver} at I2C bus {d.i2c_port} address {d.address:#04x})"
    return ResilientDisplay(open_oled(d), d.width, d.height, "1", label, **kwargs)


class MirroredDisplay:
    """Several displays showing the same frames: the OLED and the optional second one facing
    the other player (mounted turned half round in the lid, so the same image reads upright for
    that player). Width, height and mode are the first display's; ``problem`` joins theirs."""

    def __init__(self, first, *others) -> None:
        self.displays = (first, *others)
        self.width, self.height, self.mode = first.width, first.height, first.mode
        self.size = (self.width, self.height)
        self.image = None

    @property
    def problem(self) -> str | None:
        """The displays' problems joined, or None when all answer."""
        found = [d.problem for d in self.displays if getattr(d, "problem", None)]
        return "; ".join(found) if found else None

    def display(self, image) -> None:
        """Show ``image`` on every display (each never raises an I/O error)."""
        self.image = image
        for d in self.displays:
            if (d.width, d.height) == image.size:
                d.display(image)
            else:
                d.display(image.resize((d.width, d.height)))

    def cleanup(self) -> None:
        """Clear and release every display."""
        for d in self.displays:
            cleanup = getattr(d, "cleanup", None)
            if cleanup is not None:
                cleanup()
