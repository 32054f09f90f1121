"""The gpiozero devices behind the interfaces of :mod:`companion.devices.base`.

The same classes serve the Pi (gpiozero's default pin factory: lgpio on a Pi 5, RPi.GPIO or
lgpio elsewhere) and the simulator and tests (:class:`~companion.devices.mockpins.ClockedMockFactory`):
only the ``pin_factory`` differs, as gpiozero intends. Wiring is the pin map's
(hardware/pinmap.toml): buttons between the GPIO and ground (internal pull-up, pressed reads low),
LEDs and the buzzer active-high, the servo on a PWM-capable pin.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from companion.devices.base import PressHandler
from companion.devices.debounce import PressFilter

MAX_EDGE_AGE = 1.0  # seconds: an edge stamp further back than this is not trusted


class GpioButtons:
    """The three push buttons (gpiozero ``DigitalInputDevice``, pulled up: a ``Button`` without
    its hold thread), acting on press with a glitch filter and debounce that match real contacts
    (:mod:`companion.devices.debounce`).

    Args:
        pins: role -> BCM pin (``{"blue": 17, "red": 27, "challenge": 22}``).
        bounce_seconds: the debounce interval (pin map ``[buttons] bounce_seconds``).
        pin_factory: gpiozero pin factory (None: gpiozero's default, the real pins).
        clock: monotonic seconds; the press time is ``clock()`` minus the edge's age measured on
            the factory's ticks, so it is the instant the pin changed.
        hardware_bounce: also pass ``bounce_seconds`` to gpiozero (lgpio's kernel debounce).
            Off by default: lgpio reports a level only once it has been stable that long, so a
            quick tap (8-25 ms) would be lost; the software filter always runs.
        timer: runs the filter's checks (``call_at(t, fn)``, :mod:`companion.devices.timers`);
            default the factory's ``timer`` if it has one (the mock factory on a fake clock),
            else a :class:`~companion.devices.timers.ThreadTimer` on ``clock``.

    Raises:
        gpiozero's errors (GPIOPinInUse, BadPinFactory...) when a pin cannot be opened.
    """

    def __init__(
        self,
        pins: dict[str, int],
        bounce_seconds: float = 0.02,
        pin_factory=None,
        clock: Callable[[], float] = time.monotonic,
        hardware_bounce: bool = False,
        timer=None,
    ) -> None:
        # a DigitalInputDevice is gpiozero's Button without its hold thread (the box has no
        # long press): each Button starts a thread that wakes 10 times a second for ever
        from gpiozero import DigitalInputDevice

        from companion.devices.timers import ThreadTimer

        self._clock = clock
        self._handler: PressHandler | None = None
        self._lock = threading.Lock()
        self.timer = timer or getattr(pin_factory, "timer", None) or ThreadTimer(clock, "buttons")
        self.devices = {}
        self._filters: dict[str, PressFilter] = {}
        for role, pin in pins.items():
            button = DigitalInputDevice(
                pin,
                pull_up=True,
                bounce_time=bounce_seconds if hardware_bounce and bounce_seconds else None,
                pin_factory=pin_factory,
            )
            # a button held now (the box restarting with a finger on it) is down, not a press
            self._filters[role] = PressFilter(bounce_seconds, down=bool(button.is_active))
            button.when_activated = self._callback(role, True)
            button.when_deactivated = self._callback(role, False)
            self.devices[role] = button

    def _callback(self, role: str, pressed: bool) -> Callable[[], None]:
        def changed() -> None:
            button = self.devices[role]
            factory = button.pin_factory
            age = factory.ticks_diff(factory.ticks(), button._last_changed)
            t = self._clock() - min(max(age, 0.0), MAX_EDGE_AGE)
            flt = self._filters[role]
            with self._lock:
                flt.edge(pressed, t)
            for when in flt.checks_after(t):
                self.timer.call_at(when, self._checker(role))

        return changed

    def _checker(self, role: str) -> Callable[[float], None]:
        def check(now: float) -> None:
            button = self.devices.get(role)
            if button is None or button.closed:
                return
            with self._lock:
                accepted = self._filters[role].check(now, bool(button.is_active))
                handler = self._handler
            if accepted is not None and handler is not None:
                handler(role, accepted)

        return check

    def on_press(self, handler: PressHandler | None) -> None:
        """Install the handler called as ``handler(role, t)`` for each accepted press."""
        with self._lock:
            self._handler = handler

    def close(self) -> None:
        """Release the pins."""
        for button in self.devices.values():
            button.close()


class GpioLights:
    """The LED rings (gpiozero ``LED``), active-high. ``pins``: role -> BCM pin."""

    def __init__(self, pins: dict[str, int], pin_factory=None) -> None:
        from gpiozero import LED

        self.devices = {role: LED(pin, pin_factory=pin_factory) for role, pin in pins.items()}

    def set(self, lit: dict[str, bool]) -> None:
        """Light or darken each LED named in ``lit``."""
        for role, on in lit.items():
            led = self.devices.get(role)
            if led is not None:
                led.value = bool(on)

    def state(self) -> dict[str, bool]:
        """What each LED shows now."""
        return {role: bool(led.value) for role, led in self.devices.items()}

    def close(self) -> None:
        """Darken and release the pins."""
        for led in self.devices.values():
            led.close()


class GpioSounder:
    """The active piezo buzzer (gpiozero ``Buzzer``) on ``pin`` (BCM).

    ``beeps`` counts the beeps asked for since start and ``last_beep`` is ``(count, clock())`` of
    the last request, for the simulator's status line.
    """

    def __init__(self, pin: int, pin_factory=None, clock: Callable[[], float] = time.monotonic):
        from gpiozero import Buzzer

        self.device = Buzzer(pin, pin_factory=pin_factory)
        self._clock = clock
        self.beeps = 0
        self.last_beep: tuple[int, float] | None = None

    def beep(self, count: int = 1, on_seconds: float = 0.15, off_seconds: float = 0.1) -> None:
        """Sound ``count`` beeps of ``on_seconds`` separated by ``off_seconds``, in the background."""
        if count <= 0:
            return
        self.beeps += count
        self.last_beep = (count, self._clock())
        self.device.beep(on_time=on_seconds, off_time=off_seconds, n=count, background=True)

    @property
    def is_sounding(self) -> bool:
        """True while the buzzer pin is driven."""
        return bool(self.device.value)

    def close(self) -> None:
        """Silence and release the pin."""
        self.device.close()


SETTLE_SECONDS = 0.6
"""Seconds the servo is driven after each turn before its pulses stop: an SG90 sweeps 60 degrees
in 0.1 s at 4.8 V (its datasheet), so its whole 180-degree travel in 0.3 s; twice that covers a
slow servo and a heavy disc."""


def _start_timer(delay: float, action: Callable[[], None]) -> None:
    timer = threading.Timer(delay, action)
    timer.daemon = True
    timer.start()


class GpioDisc:
    """The disc servo (gpiozero ``AngularServo``), calibrated from the pin map's ``[servo]``.

    The pulses stop once the disc has reached its angle (``settle_seconds`` after each turn):
    gpiozero's lgpio pin factory makes the servo's 50 Hz pulses in software on every pin, and
    their jitter makes a hobby servo hum and twitch while it holds. Unpowered, the servo's gears
    hold the light printed disc where it is; the next turn drives it again. The same on a Pi 4, a
    Pi 5 and a Zero 2 W (docs/pi.md).

    Args:
        servo: a :class:`~companion.devices.pinmap.ServoMap` (pin, pulse widths in seconds, the
            angles in degrees at those pulses).
        pin_factory: a PWM-capable factory (MockPWMPin in the simulator).
        calibration: a :class:`~companion.devices.calibration.ServoCalibration` (the pulse
            widths `companion servo calibrate` saved), or None for the pin map's linear pulses.
        settle_seconds: how long each turn is driven before the pulses stop, in seconds (None:
            pulses never stop).
        schedule: ``schedule(delay_seconds, action)`` runs ``action`` later (default: a
            :class:`threading.Timer`); tests pass one they run by hand.
    """

    def __init__(
        self,
        servo,
        pin_factory=None,
        calibration=None,
        settle_seconds: float | None = SETTLE_SECONDS,
        schedule: Callable[[float, Callable[[], None]], None] = _start_timer,
    ) -> None:
        from gpiozero import AngularServo

        self.servo = servo
        self.calibration = calibration
        self.settle_seconds = settle_seconds
        self._schedule = schedule
        self._turns = 0  # a rest scheduled by an earlier turn is void
        self._lock = threading.Lock()
        self.min_angle = servo.min_angle
        self.max_angle = servo.max_angle
        self.device = AngularServo(
            servo.pin,
            initial_angle=None,
            min_angle=servo.min_angle,
            max_angle=servo.max_angle,
            min_pulse_width=servo.min_pulse_seconds,
            max_pulse_width=servo.max_pulse_seconds,
            pin_factory=pin_factory,
        )
        self._angle: float | None = None

    @property
    def angle(self) -> float | None:
        """The commanded angle in degrees (None before the first turn)."""
        return self._angle

    def turn_to(self, angle: float) -> None:
        """Turn to ``angle`` degrees, clamped to [min_angle, max_angle]; the pulses stop
        ``settle_seconds`` later."""
        angle = min(max(float(angle), self.min_angle), self.max_angle)
        with self._lock:
            if self.calibration is None:
                self.device.angle = angle
            else:
                from companion.devices.calibration import servo_value

                pulse = self.calibration.pulse_for_angle(angle)
                self.device.value = servo_value(self.servo, pulse)
            self._angle = angle
            self._turns += 1
            turn = self._turns
        if self.settle_seconds is not None:
            self._schedule(self.settle_seconds, lambda: self._rest(turn))

    def _rest(self, turn: int) -> None:
        with self._lock:
            if turn == self._turns and not self.device.closed:
                self.device.detach()  # no more pulses: the pin is left low

    @property
    def at_rest(self) -> bool:
        """True when no pulses are sent (the disc has settled, or was never turned)."""
        return self.device.value is None

    @property
    def pulse_seconds(self) -> float | None:
        """The pulse width now driven, in seconds (None when released)."""
        return self.device.pulse_width

    def close(self) -> None:
        """Release the servo."""
        with self._lock:
            self._turns += 1
            self.device.close()
