"""The timer head's firmware: MicroPython on a Raspberry Pi Pico (RP2040).

Flashed with ``companion head flash`` (or ``make firmware``) together with headproto.py,
headcore.py and board_config.py (generated from hardware/pinmap.toml). It runs at power-on and
talks to the Pi over the USB serial port (PROTOCOL.md). Only the pins are here; the behaviour is
headcore.py, shared with the virtual head the tests use.

Safe mode: hold the challenge button while plugging the head in and the firmware does not start
(the Pico stays at the REPL). mpremote's interrupt (CR, Ctrl-C between frames) and the REPL
message also leave the firmware for the REPL, so new files can be copied.
"""

import os
import select
import sys
import time

import board_config as cfg
import machine
import micropython
from headcore import Head


class PicoHardware:
    """The Pico's pins as headcore's hardware object (buttons pulled up, pressed = low)."""

    def __init__(self):
        pin = machine.Pin
        self.buttons = [pin(p, pin.IN, pin.PULL_UP) for p in cfg.BUTTON_PINS]
        self.leds = [pin(p, pin.OUT, value=0) for p in cfg.LED_PINS]
        self.buzzer = pin(cfg.BUZZER_PIN, pin.OUT, value=0)
        self.servo = machine.PWM(pin(cfg.SERVO_PIN))
        self.servo.freq(50)  # hobby servo frame: 20 ms
        self.servo.duty_u16(0)
        self.out = sys.stdout.buffer

    def read_buttons(self):
        return [b.value() == 0 for b in self.buttons]

    def set_led(self, index, on):
        self.leds[index].value(1 if on else 0)

    def set_buzzer(self, on):
        self.buzzer.value(1 if on else 0)

    def set_servo_us(self, pulse_us):
        if pulse_us:
            self.servo.duty_ns(pulse_us * 1000)
        else:
            self.servo.duty_u16(0)

    def write(self, data):
        self.out.write(data)

    def release(self):
        self.servo.duty_u16(0)
        self.buzzer.value(0)
        for led in self.leds:
            led.value(0)


def session_number():
    """A random non-zero 32-bit number (the RP2040's ring oscillator, via os.urandom)."""
    value = int.from_bytes(os.urandom(4), "big")
    return value or 1


def run():
    """The main loop; returns when the host asks for the REPL."""
    hw = PicoHardware()
    stdin = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    head = Head(hw, cfg, session_number(), time.ticks_ms(), time.ticks_diff)
    micropython.kbd_intr(-1)  # 0x03 is an ordinary byte inside frames
    try:
        while not head.repl_requested:
            data = b""
            if poller.poll(1):  # wait at most 1 ms for a byte: paces the loop
                chunk = bytearray()
                while len(chunk) < 64 and poller.poll(0):
                    byte = stdin.read(1)
                    if not byte:
                        break
                    chunk.extend(byte)
                data = bytes(chunk)
            try:
                head.step(time.ticks_ms(), data)
            except Exception:  # noqa: BLE001 - never leave the loop on what the wire brings
                head.wire_errors += 1
    finally:
        micropython.kbd_intr(3)
        hw.release()


def main():
    safe = machine.Pin(cfg.BUTTON_PINS[2], machine.Pin.IN, machine.Pin.PULL_UP)
    if safe.value() == 0:
        return  # safe mode: stay at the REPL
    try:
        run()
    except KeyboardInterrupt:
        return
    except Exception as exc:  # a bug must not leave the table without its head: restart
        sys.print_exception(exc)
        time.sleep_ms(1000)
        machine.reset()


main()
