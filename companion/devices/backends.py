"""Open a table's devices from the pin map: the backend is chosen by ``[backend] kind``.

- ``gpio``: gpiozero's default pin factory (the Pi's pins) and luma.oled over I2C;
- ``mock``: :class:`~companion.devices.mockpins.ClockedMockFactory` and luma.core's ``dummy``
  device (its ``image`` keeps the last frame): the simulator, tests, any non-Pi machine;
- ``serial``: the Pico timer head; ``companion.devices.head`` provides
  ``open_devices(pinmap, clock) -> DeviceBundle`` (see docs/daemon.md).

Another backend registers itself with :func:`register_backend`. Pi-only libraries are imported
inside the opener that needs them.
"""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Callable

from companion.devices.base import LED_ROLES, DeviceBundle, DeviceError

Opener = Callable[..., DeviceBundle]
_OPENERS: dict[str, Opener | str] = {
    "gpio": "companion.devices.backends:open_gpio",
    "mock": "companion.devices.backends:open_mock",
    "serial": "companion.devices.head:open_devices",
}


def register_backend(kind: str, opener: Opener | str) -> None:
    """Make ``[backend] kind = KIND`` open devices with ``opener(pinmap, clock) -> DeviceBundle``
    (or ``"module:function"``, imported when used)."""
    _OPENERS[kind] = opener


def open_devices(
    pinmap, clock: Callable[[], float] = time.monotonic, backend: str | None = None
) -> DeviceBundle:
    """Open every device of the table.

    Args:
        pinmap: a :class:`~companion.devices.pinmap.PinMap`.
        clock: monotonic seconds, used to stamp presses (a fake clock in tests).
        backend: overrides ``pinmap.backend``.

    Raises:
        DeviceError: unknown backend, or a device that cannot be opened (names which and why).
    """
    kind = backend or pinmap.backend
    opener = _OPENERS.get(kind)
    if opener is None:
        raise DeviceError(f"backend {kind!r} is unknown; accepted: {', '.join(sorted(_OPENERS))}")
    if isinstance(opener, str):
        module, _, name = opener.partition(":")
        try:
            opener = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise DeviceError(f"backend {kind!r} is not available: {exc}") from None
    bundle = opener(pinmap, clock)  # type: ignore[operator]
    if bundle.camera is None:
        bundle.camera = open_camera(pinmap)
    return bundle


def open_camera(pinmap):
    """The camera named by ``[camera] kind`` through companion.devices.camera (the vision
    engineer's module): ``open_camera(camera_config: dict)``. None for ``kind = "none"`` or when
    the module is not installed."""
    config = dict(pinmap.camera or {})
    if config.get("kind", "none") == "none":
        return None
    try:
        module = importlib.import_module("companion.devices.camera")
    except ImportError:
        return None
    opener = getattr(module, "open_camera", None)
    if opener is None:
        return None
    try:
        return opener(config)
    except Exception as exc:  # noqa: BLE001 - a missing camera must not stop the clock
        import logging

        logging.getLogger(__name__).warning(
            "camera %r cannot be opened (%s: %s); the box runs without it",
            config.get("kind"),
            type(exc).__name__,
            exc,
        )
        return None


def _gpio_bundle(pinmap, clock, factory, display, kind: str) -> DeviceBundle:
    from companion.devices.gpio import GpioButtons, GpioDisc, GpioLights, GpioSounder

    buttons = GpioButtons(
        pinmap.buttons,
        pinmap.bounce_seconds,
        pin_factory=factory,
        clock=clock,
        hardware_bounce=False,  # lgpio's debounce would swallow a quick tap: see gpio.py
    )
    lights = GpioLights({r: pinmap.leds[r] for r in LED_ROLES}, pin_factory=factory)
    sounder = GpioSounder(pinmap.buzzer, pin_factory=factory, clock=clock)
    calibration = None
    if kind == "gpio":  # the box's own servo calibration (companion servo calibrate)
        from companion.devices.calibration import load_calibration

        calibration = load_calibration()
    disc = GpioDisc(pinmap.servo, pin_factory=factory, calibration=calibration)
    pins = {}
    if factory is not None and hasattr(factory, "pins"):
        for role, pin in pinmap.gpio_pins().items():
            pins[role] = factory.pin(pin)
    return DeviceBundle(kind, buttons, lights, sounder, disc, display, pins=pins)


def open_mock(pinmap, clock: Callable[[], float] = time.monotonic) -> DeviceBundle:
    """The simulated twins: mock pins on ``clock`` and luma's dummy display (mode "1")."""
    from luma.core.device import dummy

    from companion.devices.mockpins import ClockedMockFactory

    factory = ClockedMockFactory(clock=clock)
    display = dummy(width=pinmap.display.width, height=pinmap.display.height, mode="1")
    bundle = _gpio_bundle(pinmap, clock, factory, display, "mock")
    bundle.extra["pin_factory"] = factory
    return bundle


def probe_pin_factory() -> None:
    """Give gpiozero its default pin factory (lgpio, RPi.GPIO, pigpio, then native, as its
    devices would choose) without printing its ``PinFactoryFallback`` warning for each one that
    is not there; a factory that loads after a fallback is fine and says nothing.

    Raises:
        DeviceError: no pin factory loads (not a Raspberry Pi, or no GPIO library): one message
            naming what was tried and why each failed.
    """
    from gpiozero import Device
    from gpiozero.exc import PinFactoryFallback

    if Device.pin_factory is not None:
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            factory = Device._default_pin_factory()
        except Exception as exc:  # noqa: BLE001 - gpiozero's BadPinFactory or a library's error
            tried = [
                str(w.message).removeprefix("Falling back from ")
                for w in caught
                if w.category is PinFactoryFallback
            ]
            detail = f"; tried {'; '.join(tried)}" if tried else ""
            raise DeviceError(
                f"GPIO pins cannot be opened: no pin library works here, is this a Raspberry "
                f"Pi? ({type(exc).__name__}: {exc}{detail}). Elsewhere use --backend mock or "
                "companion sim"
            ) from None
    for w in caught:  # anything but the fallbacks (e.g. the native factory's caveat) is kept
        if w.category is not PinFactoryFallback:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    Device.pin_factory = factory


def open_gpio(pinmap, clock: Callable[[], float] = time.monotonic) -> DeviceBundle:
    """The Pi's own pins (gpiozero's default factory) and the OLED over I2C (luma.oled).

    A missing or disconnected OLED never stops the box: it is reported (``display.problem``)
    and re-opened when it answers again (companion.devices.resilient). A second OLED
    (``[display2]``) shows the same frames.

    Raises:
        DeviceError: the pins cannot be opened (not a Pi, a pin in use), naming the cause.
    """
    from companion.devices.resilient import MirroredDisplay, resilient_oled

    probe_pin_factory()  # before the OLED: a machine without GPIO gets one clean error
    display = resilient_oled(pinmap.display)
    if pinmap.display2 is not None:
        display = MirroredDisplay(display, resilient_oled(pinmap.display2, "second display"))
    try:
        return _gpio_bundle(pinmap, clock, None, display, "gpio")
    except Exception as exc:  # gpiozero's BadPinFactory, GPIOPinInUse...
        raise DeviceError(f"GPIO pins cannot be opened ({type(exc).__name__}: {exc})") from None
