"""Devices on mock pins: presses stamped at the pin change, debounce, LEDs, servo, display."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.devices.backends import DeviceError, open_devices
from companion.devices.base import Buttons, Disc, Display, Lights, Sounder
from companion.devices.debounce import PressFilter
from companion.devices.pinmap import load_pinmap


class Clock:
    def __init__(self, t=100.0):
        self.t = t

    def __call__(self):
        return self.t


@pytest.fixture
def table():
    clock = Clock()
    pinmap = load_pinmap(backend="mock")
    bundle = open_devices(pinmap, clock=clock)
    presses = []
    bundle.buttons.on_press(lambda role, t: presses.append((role, t)))
    yield bundle, clock, presses, pinmap
    bundle.close()


def test_mock_bundle_satisfies_the_interfaces(table):
    bundle, *_ = table
    assert isinstance(bundle.buttons, Buttons)
    assert isinstance(bundle.lights, Lights)
    assert isinstance(bundle.sounder, Sounder)
    assert isinstance(bundle.disc, Disc)
    assert isinstance(bundle.display, Display)
    assert bundle.backend == "mock"
    assert (bundle.display.width, bundle.display.height) == (128, 64)


def test_press_counts_at_the_pin_change_not_on_release(table):
    bundle, clock, presses, _ = table
    pin = bundle.pins["buttons.blue"]
    clock.t = 101.25
    pin.drive_low()
    assert presses == []  # not yet: a spike would look the same for 2 ms
    bundle.extra["pin_factory"].run_due(101.253)  # the contact stayed closed 3 ms
    assert presses == [("blue", 101.25)]  # the press counts at the pin change
    clock.t = 101.5
    pin.drive_high()  # the release is not a press
    assert presses == [("blue", 101.25)]


def test_chatter_within_bounce_is_one_press(table):
    bundle, clock, presses, pinmap = table
    pin = bundle.pins["buttons.red"]
    bounce = pinmap.bounce_seconds
    for dt, low in ((0.0, True), (0.002, False), (0.004, True), (0.3, False), (0.301, True)):
        clock.t = 200 + dt
        pin.drive_low() if low else pin.drive_high()
    # 0.301 is 1 ms after the release at 0.3: chatter of the release
    assert bounce > 0.004 and bounce > 0.001
    assert presses == [("red", 200.0)]


def test_each_role_reports_its_own_pin(table):
    bundle, clock, presses, _ = table
    for role in ("challenge", "red", "blue"):
        clock.t += 1
        bundle.pins[f"buttons.{role}"].drive_low()
        clock.t += 0.01  # a 10 ms tap
        bundle.pins[f"buttons.{role}"].drive_high()
    assert [r for r, _ in presses] == ["challenge", "red", "blue"]


def test_lights_drive_their_pins(table):
    bundle, *_ = table
    bundle.lights.set({"blue": True, "red": False})
    assert bundle.pins["leds.blue"].state == 1 and bundle.pins["leds.red"].state == 0
    assert bundle.lights.state() == {"blue": True, "red": False}


def test_servo_pulse_follows_the_pin_map_calibration(table):
    bundle, _, _, pinmap = table
    s = pinmap.servo
    bundle.disc.turn_to(s.max_angle)
    assert bundle.disc.pulse_seconds == pytest.approx(s.max_pulse_seconds)
    bundle.disc.turn_to((s.min_angle + s.max_angle) / 2)
    mid = (s.min_pulse_seconds + s.max_pulse_seconds) / 2
    assert bundle.disc.pulse_seconds == pytest.approx(mid)
    bundle.disc.turn_to(s.max_angle + 500)  # clamped
    assert bundle.disc.angle == s.max_angle


def test_unknown_backend_is_a_clear_error():
    pinmap = load_pinmap(backend="mock")
    with pytest.raises(DeviceError, match="backend 'smoke' is unknown; accepted"):
        open_devices(pinmap, backend="smoke")


def _feed(f: PressFilter, edges: list[tuple[float, bool]], end: float) -> list[float]:
    """Run the filter over ``edges`` as the buttons do: each edge, then its checks in time
    order with the pin's level at each check."""
    checks = sorted({c for t, _ in edges for c in f.checks_after(t)} | {end})
    pending = sorted(edges)
    level, got = f.down, []
    for now in checks:
        while pending and pending[0][0] <= now:
            t, level = pending.pop(0)
            f.edge(level, t)
        if (press := f.check(now, level)) is not None:
            got.append(press)
    return got


@given(
    gaps=st.lists(st.floats(min_value=0.2, max_value=5.0), min_size=1, max_size=20),
    chatter=st.lists(st.floats(min_value=0.0001, max_value=0.004), max_size=4),
)
def test_clean_presses_count_once_each_despite_chatter(gaps, chatter):
    """Presses 0.2 s or more apart, each with chatter in its first 4 ms, count once each, at
    their first edge."""
    f = PressFilter(bounce_seconds=0.02)
    t, edges, starts = 0.0, [], []
    for gap in gaps:
        t += gap
        starts.append(t)
        edges.append((t, True))
        for c in sorted(chatter):  # bounce: open/closed pairs within 4 ms of the press
            edges += [(t + c, False), (t + c + 0.0001, True)]
        t += 0.025
        edges.append((t, False))
    assert _feed(f, edges, t + 1.0) == starts


def test_glitch_is_dropped_and_the_real_press_still_counts():
    f = PressFilter(bounce_seconds=0.02)
    edges = [(1.0, True), (1.0001, False), (1.005, True), (1.05, False)]  # a spike, then a press
    assert _feed(f, edges, 2.0) == [1.005]


class Later:
    """A scheduler run by hand: what ``schedule(delay, action)`` was asked to do later."""

    def __init__(self):
        self.pending = []

    def __call__(self, delay, action):
        self.pending.append((delay, action))

    def run_all(self):
        pending, self.pending = self.pending, []
        for _, action in pending:
            action()


def _disc_on_mock_pwm(later):
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from companion.devices.gpio import SETTLE_SECONDS, GpioDisc

    servo = load_pinmap(backend="mock").servo
    factory = MockFactory(pin_class=MockPWMPin)
    disc = GpioDisc(servo, pin_factory=factory, schedule=later)
    return disc, factory.pin(servo.pin), servo, SETTLE_SECONDS


def test_servo_pulses_stop_once_the_disc_is_at_rest():
    later = Later()
    disc, pin, servo, settle = _disc_on_mock_pwm(later)
    assert disc.at_rest and pin.frequency is None  # never turned: no pulses
    disc.turn_to(servo.max_angle)
    # driven: 50 Hz pulses of the pin map's widest pulse (20 ms period)
    assert pin.frequency == 50 and pin.state == pytest.approx(servo.max_pulse_seconds / 0.02)
    assert later.pending[0][0] == settle and not disc.at_rest
    later.run_all()
    assert disc.at_rest and pin.frequency is None and pin.state == 0  # no pulses at rest
    assert disc.angle == servo.max_angle  # the disc still knows where it stands
    disc.close()


def test_a_new_turn_keeps_the_pulses_until_it_has_settled():
    later = Later()
    disc, pin, servo, _ = _disc_on_mock_pwm(later)
    disc.turn_to(servo.min_angle)
    first_rest = later.pending.pop()[1]
    disc.turn_to(servo.max_angle)  # the next minute before the first turn's rest came
    first_rest()  # the first turn's rest is void: the servo is still moving
    assert pin.frequency == 50 and not disc.at_rest
    later.run_all()
    assert pin.frequency is None
    disc.close()
    first_rest()  # a rest after closing does nothing
