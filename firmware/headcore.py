"""The timer head's behaviour, apart from the Pico's pins: debouncing, the event queue, outputs.

Runs under MicroPython on the Pico (``main.py`` gives it the real pins) and under CPython in the
virtual head (``companion.devices.head.virtual`` gives it simulated ones), so tests exercise the
code that is flashed. Time is passed in; nothing here sleeps. See PROTOCOL.md.

Wire noise never stops the head: a frame the parser chokes on is dropped and the parser hunts
for the next sync byte (``wire_errors`` counts them); mpremote's interrupt (CR, Ctrl-C outside a
frame) is honoured only while the host is silent, so bytes of a corrupted frame never send the
head to the REPL while a host is talking to it (the host's REPL message does, as
``companion head flash`` sends it). A button held down while the head starts (a reset) is taken
as it is, not as a new press.

The hardware object ``hw`` has: ``read_buttons()`` -> a sequence of three bools (True = pressed;
blue, red, challenge), ``set_led(index, on)``, ``set_buzzer(on)``, ``set_servo_us(pulse_us)``
(0 releases the servo), ``write(frame_bytes)``.

The configuration ``cfg`` (``board_config.py``) has ``SAMPLE_MS``, ``DEBOUNCE_SAMPLES``,
``SERVO_MIN_US`` and ``SERVO_MAX_US``.
"""

import headproto as hp

BLINK_MS = 250  # link-lost indication: both LEDs on, then off, this long each
BEEP_MAX_COUNT = 10  # beeps in one BUZZER command, at most (the host sends 1 to 4)
BEEP_MAX_MS = 2000  # a beep, or the silence after it, at most this long (ms)


def ticks_diff_plain(a, b):
    """``a - b`` for a tick counter that does not wrap (tests)."""
    return a - b


class Debouncer:
    """Accepts a new level only after ``samples`` consecutive equal samples that differ from it.

    :meth:`sample` returns None, or the clock_ms of the first sample of the run when the change
    is accepted (the moment the contact changed, to within one sampling period).
    """

    def __init__(self, samples, level=False):
        self.samples = samples
        self.level = level
        self.run = 0
        self.since = 0

    def sample(self, level, clock_ms):
        if level == self.level:
            self.run = 0
            return None
        if self.run == 0:
            self.since = clock_ms
        self.run += 1
        if self.run >= self.samples:
            self.level = level
            self.run = 0
            return self.since
        return None


class Head:
    """The head: samples buttons, queues their events, obeys SERVO/LED/BUZZER, shows link loss.

    Args:
        hw: the hardware (see the module docstring).
        cfg: the board configuration (see the module docstring).
        session: this boot's random non-zero 32-bit session number.
        ticks: the current value of the tick counter (``time.ticks_ms()`` on the Pico).
        ticks_diff: ``ticks_diff(a, b)`` in milliseconds (``time.ticks_diff`` on the Pico, which
            handles the counter's wrap).
        queue_size: button events kept while the host does not acknowledge them.
        clock_ms: the wire clock at power-on (0 on the Pico; tests start near the wrap).

    Call :meth:`step` often (every millisecond or so) with the tick counter and the bytes received
    since the last call. ``clock_ms`` is the head's 32-bit wire clock (wraps at 2**32).
    """

    def __init__(
        self, hw, cfg, session, ticks, ticks_diff=ticks_diff_plain, queue_size=hp.QUEUE, clock_ms=0
    ):
        self.hw = hw
        self.cfg = cfg
        self.ticks_diff = ticks_diff
        self.last_ticks = ticks
        self.clock_ms = clock_ms & 0xFFFFFFFF
        self.link = hp.Link(hw.write, session, self.clock_ms, queue_size, hp.diff32)
        # the buttons as they are at start: one held through a reset is no new press
        levels = hw.read_buttons()
        self.debouncers = [
            Debouncer(cfg.DEBOUNCE_SAMPLES, bool(levels[i])) for i in range(len(hp.BUTTONS))
        ]
        self.next_sample = self.clock_ms
        self.event = 0  # button event counter (u16 on the wire)
        self.dropped = 0
        self.leds = [False] * len(hp.LEDS)  # as commanded by the host
        self.servo_us = 0
        self.beeps = 0
        self.beep_on_ms = 0
        self.beep_off_ms = 0
        self.beep_start = 0
        self.buzzing = False
        self.showing_lost = None  # None before the first step
        self.repl_requested = False
        self.interrupts_seen = 0  # mpremote's interrupts seen (honoured only with the host silent)
        self.wire_errors = 0  # frames the parser or a command choked on: dropped, loop goes on
        self.applied = 0  # commands applied (SERVO, LED, BUZZER)
        hw.set_servo_us(0)
        hw.set_buzzer(False)

    def step(self, ticks, data=b""):
        """Advance to ``ticks``, take the received ``data``, do what is due."""
        elapsed = self.ticks_diff(ticks, self.last_ticks)
        if elapsed > 0:
            self.clock_ms = (self.clock_ms + elapsed) & 0xFFFFFFFF
            self.last_ticks = ticks
        now = self.clock_ms
        link = self.link
        try:
            messages = link.feed(data, now)
        except Exception:  # noqa: BLE001 - wire noise must never stop the head: resynchronise
            self.wire_errors += 1
            link.parser.buf = bytearray()
            messages = []
        for mtype, fields in messages:
            try:
                self._apply(mtype, fields, now)
            except Exception:  # noqa: BLE001 - a command of garbage is dropped
                self.wire_errors += 1
        if link.interrupts != self.interrupts_seen:
            self.interrupts_seen = link.interrupts
            if link.lost(now):  # mpremote, with no host talking; never the bytes of a bad frame
                self.repl_requested = True
        self._sample(now)
        self._buzzer(now)
        self._show_link(now)
        link.dropped = self.dropped
        link.poll(now)

    # --- buttons ----------------------------------------------------------------------------

    def _sample(self, now):
        period = self.cfg.SAMPLE_MS
        late = hp.diff32(now, self.next_sample)
        if late < 0:
            return
        # sample on a fixed grid; after a long stall, start again from now (no burst)
        self.next_sample = (now + period) if late >= period else (self.next_sample + period)
        self.next_sample &= 0xFFFFFFFF
        levels = self.hw.read_buttons()
        for index, deb in enumerate(self.debouncers):
            since = deb.sample(bool(levels[index]), now)
            if since is not None:
                self._record(index, deb.level, since)

    def _record(self, button, pressed, stamp):
        event = self.event
        self.event = (event + 1) & 0xFFFF
        if not self.link.send(hp.T_BUTTON, event, button, 1 if pressed else 0, stamp):
            self.dropped += 1

    # --- commands ---------------------------------------------------------------------------

    def _apply(self, mtype, fields, now):
        if mtype == hp.T_SERVO:
            us = fields[0]
            if us:
                us = max(self.cfg.SERVO_MIN_US, min(self.cfg.SERVO_MAX_US, us))
            self.servo_us = us
            self.hw.set_servo_us(us)
        elif mtype == hp.T_LED:
            index, on = fields
            if index < len(self.leds):
                self.leds[index] = bool(on)
                if not self.showing_lost:
                    self.hw.set_led(index, bool(on))
        elif mtype == hp.T_BUZZER:
            # a CRC-valid frame of garbage must not sound for hours: at most BEEP_MAX_COUNT
            # beeps of at most BEEP_MAX_MS on and off (the host's longest pattern is 1.5 s)
            count, on_ms, off_ms = fields
            self.beeps = min(count, BEEP_MAX_COUNT)
            self.beep_on_ms = min(on_ms, BEEP_MAX_MS)
            self.beep_off_ms = min(off_ms, BEEP_MAX_MS)
            self.beep_start = now
            self._set_buzz(False)
        elif mtype == hp.T_REPL:
            self.repl_requested = True
            return
        else:
            return
        self.applied += 1

    def _set_buzz(self, on):
        if on != self.buzzing:
            self.buzzing = on
            self.hw.set_buzzer(on)

    def _buzzer(self, now):
        if self.beeps <= 0:
            self._set_buzz(False)
            return
        into = hp.diff32(now, self.beep_start)
        cycle = max(self.beep_on_ms + self.beep_off_ms, 1)
        k = into // cycle
        if k >= self.beeps:
            self.beeps = 0
            self._set_buzz(False)
            return
        self._set_buzz(into - k * cycle < self.beep_on_ms)

    # --- link-lost indication ---------------------------------------------------------------

    def _show_link(self, now):
        lost = self.link.lost(now)
        if lost:
            if not self.showing_lost:
                self.beeps = 0
                self._set_buzz(False)
            lit = (now // BLINK_MS) % 2 == 0
            for index in range(len(self.leds)):
                self.hw.set_led(index, lit)
        elif self.showing_lost or self.showing_lost is None:
            for index, on in enumerate(self.leds):
                self.hw.set_led(index, on)
        self.showing_lost = lost
