"""The device interfaces the table service drives, and the bundle a backend returns.

Every backend (``gpio``: the Pi's own pins and I2C; ``mock``: gpiozero's MockFactory and luma's
dummy device; ``serial``: a Pico timer head, companion/devices/head/) returns a
:class:`DeviceBundle` whose members satisfy these small protocols. The daemon only knows the
protocols, never which backend it drives.

Roles are the pin map's names: buttons ``blue``, ``red``, ``challenge``; LEDs ``blue``, ``red``.
Times are seconds on :func:`time.monotonic` (or the clock injected into the backend).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from companion.errors import CompanionError

BUTTON_ROLES = ("blue", "red", "challenge")
LED_ROLES = ("blue", "red")

PressHandler = Callable[[str, float], None]
"""Called as ``handler(role, t)`` once per accepted press: ``role`` in BUTTON_ROLES, ``t`` the
instant the pin changed, in seconds on the backend's monotonic clock (not when the call is made).
It may be called from any thread (gpiozero's, a serial reader's); it must only enqueue."""


class DeviceError(CompanionError, ValueError):
    """A device backend that cannot be opened or used; names the device and the cause."""


@runtime_checkable
class Buttons(Protocol):
    """The three push buttons. Acts on press (not release), debounced, glitches rejected."""

    def on_press(self, handler: PressHandler | None) -> None:
        """Install the handler called for each accepted press (None removes it)."""

    def close(self) -> None:
        """Release the pins."""


@runtime_checkable
class Lights(Protocol):
    """The LED rings of the two player buttons: lit for the player on move."""

    def set(self, lit: dict[str, bool]) -> None:
        """Light or darken each LED: ``{"blue": True, "red": False}``."""

    def state(self) -> dict[str, bool]:
        """What each LED shows now."""

    def close(self) -> None:
        """Release the pins."""


@runtime_checkable
class Sounder(Protocol):
    """The buzzer: short beeps as each minute runs out, a long one at the end."""

    def beep(self, count: int = 1, on_seconds: float = 0.15, off_seconds: float = 0.1) -> None:
        """Sound ``count`` beeps in the background; returns at once."""

    def close(self) -> None:
        """Release the pin (silent)."""


@runtime_checkable
class Disc(Protocol):
    """The servo that turns the printed disc to the position of the current allowances."""

    @property
    def angle(self) -> float | None:
        """The commanded angle in degrees, or None when the servo is released."""

    def turn_to(self, angle: float) -> None:
        """Turn to ``angle`` degrees (clamped to the calibrated range of the pin map)."""

    def close(self) -> None:
        """Release the pin."""


@runtime_checkable
class Display(Protocol):
    """A luma.core-style display: ``width``/``height`` in pixels, ``mode`` "1" (monochrome).

    luma's own devices (ssd1306, sh1106, dummy) satisfy it directly; ``display(image)`` sends a
    PIL image of exactly ``(width, height)`` pixels. The dummy device keeps it in ``image``.
    """

    width: int
    height: int
    mode: str

    def display(self, image: Any) -> None:
        """Show a PIL image of ``(width, height)`` pixels."""


@dataclass
class DeviceBundle:
    """The devices of one table, as one backend opened them.

    ``camera`` is whatever companion.devices.camera opens (None when ``[camera] kind = "none"`` or
    the module is not there). ``pins`` maps a role (``buttons.blue``, ``servo.pin``...) to the
    backend's pin object, for the simulator and tests (mock backend only; empty otherwise).
    ``backend`` is the pin map's ``[backend] kind``.
    """

    backend: str
    buttons: Buttons
    lights: Lights
    sounder: Sounder
    disc: Disc
    display: Display
    camera: Any = None
    pins: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def close(self) -> None:
        """Close every device; errors while closing are ignored (the box is shutting down)."""
        closers = [getattr(d, "close", None) for d in (self.buttons, self.lights, self.sounder)]
        closers += [getattr(self.disc, "close", None), getattr(self.camera, "close", None)]
        closers.append(getattr(self.display, "cleanup", None))
        for close in closers:
            if close is not None:
                with contextlib.suppress(Exception):  # shutting down: nothing useful to do
                    close()
