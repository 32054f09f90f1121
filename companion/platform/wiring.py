"""The wiring of a box, generated from its pin map, so the diagram and the pin map never disagree.

:func:`connections` turns a :class:`~companion.devices.pinmap.PinMap` into the list of wires from
each part's terminal to a physical pin of the 40-pin header; :func:`render_text`,
:func:`render_markdown` and :func:`render_svg` draw that list. ``companion wiring`` prints them;
hardware/wiring.md and hardware/wiring.svg hold the standard build's, checked by the tests.

The header layout (physical pin -> BCM GPIO, 3V3, 5V, GND) comes from gpiozero's board data
(``gpiozero.pi_info``), the same for every 40-pin Raspberry Pi (Raspberry Pi documentation,
"GPIO and the 40-pin header").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from html import escape

from companion.devices.pinmap import I2C_PINS, PinMap

# a Raspberry Pi 4 Model B revision: its J8 header is the 40-pin header of every current board
_REFERENCE_REVISION = "c03111"


@dataclass(frozen=True)
class Pin:
    """One pin of the 40-pin header: ``number`` is physical (1..40), ``name`` is ``GPIO17``,
    ``3V3``, ``5V`` or ``GND``; ``gpio`` the BCM number or None; ``row``/``col`` its place
    (row 1..20 from the SD card end, col 1 odd pins, col 2 even pins)."""

    number: int
    name: str
    gpio: int | None
    row: int
    col: int


@dataclass(frozen=True)
class Wire:
    """A wire from a part's terminal to a header pin (or, ``pin`` None, somewhere else)."""

    part: str
    terminal: str
    pin: Pin | None
    note: str = ""

    @property
    def to(self) -> str:
        """Where the wire goes, as printed: ``pin 11 (GPIO17)`` or the note."""
        if self.pin is None:
            return self.note
        where = f"pin {self.pin.number} ({self.pin.name})"
        return f"{where}, {self.note}" if self.note else where


@cache
def header() -> dict[int, Pin]:
    """The 40-pin header: physical pin number -> :class:`Pin`."""
    from gpiozero import pi_info

    j8 = pi_info(_REFERENCE_REVISION).headers["J8"]
    pins = {}
    for number, info in j8.pins.items():
        name = info.name
        gpio = int(name[4:]) if name.startswith("GPIO") else None
        pins[number] = Pin(number, name, gpio, info.row, info.col)
    return pins


def physical_pin(gpio: int) -> Pin:
    """The header pin of BCM ``gpio``. Raises KeyError for a GPIO not on the header."""
    for pin in header().values():
        if pin.gpio == gpio:
            return pin
    raise KeyError(f"GPIO {gpio} is not on the 40-pin header")


class _Supply:
    """Hands out the power and ground pins nearest a signal pin, each one once while it lasts."""

    def __init__(self):
        self.used: set[int] = set()

    def nearest(self, name: str, near: Pin) -> tuple[Pin, str]:
        """The nearest free ``name`` pin and a note: "" or "shared ..." when all are taken."""
        candidates = [p for p in header().values() if p.name == name]
        free = [p for p in candidates if p.number not in self.used]
        best = min(
            free or candidates,
            key=lambda p: (abs(p.row - near.row) + abs(p.col - near.col), p.number),
        )
        self.used.add(best.number)
        return best, "" if free else f"shared via a {name} bus strip"


def connections(pinmap: PinMap) -> list[Wire]:
    """Every wire of the box described by ``pinmap``, part by part.

    Buttons go between their GPIO and GND (gpiozero's internal pull-up); the LED rings and the
    buzzer are low-side switched by an NPN transistor (base through 1 kOhm from the GPIO, load from
    the 5 V pin); each OLED takes 3V3, GND, SDA and SCL of its bus; the servo takes only its signal
    from the Pi and its power from its own 5 V supply, whose ground is joined to a Pi GND.
    """
    supply = _Supply()
    wires: list[Wire] = []
    for section, display in pinmap.displays().items():
        part = "OLED" if section == "display" else "second OLED"
        if display.interface == "spi":  # SSD1322 (or an SSD1309 wired for SPI): SPI0 + DC, RST
            pins = display.spi_pins()
            for signal, gpio in pins.items():
                bus = "SPI0" if signal in ("MOSI", "SCLK") or signal.startswith("CE") else ""
                wires.append(
                    Wire(
                        part,
                        {"MOSI": "DIN (MOSI)", "SCLK": "CLK"}.get(signal, signal),
                        physical_pin(gpio),
                        bus,
                    )
                )
            wires.append(Wire(part, "VCC", *supply.nearest("3V3", physical_pin(pins["MOSI"]))))
            wires.append(Wire(part, "GND", *supply.nearest("GND", physical_pin(pins["MOSI"]))))
            continue
        sda, scl = (physical_pin(g) for g in I2C_PINS[display.i2c_port])
        wires.append(Wire(part, "SDA", sda, f"I2C bus {display.i2c_port}"))
        wires.append(Wire(part, "SCL", scl, f"I2C bus {display.i2c_port}"))
        wires.append(Wire(part, "VCC", *supply.nearest("3V3", sda)))
        wires.append(Wire(part, "GND", *supply.nearest("GND", sda)))
    for role, gpio in pinmap.buttons.items():
        pin = physical_pin(gpio)
        part = f"{role} button"
        wires.append(Wire(part, "switch", pin))
        wires.append(Wire(part, "switch (other leg)", *supply.nearest("GND", pin)))
    for role, gpio in pinmap.leds.items():
        pin = physical_pin(gpio)
        part = f"{role} LED ring"
        wires.append(Wire(part, "NPN base", pin, "through 1 kOhm"))
        wires.append(Wire(part, "NPN emitter", *supply.nearest("GND", pin)))
        wires.append(Wire(part, "LED +", *supply.nearest("5V", pin)))
        wires.append(Wire(part, "LED -", None, "NPN collector"))
    pin = physical_pin(pinmap.buzzer)
    wires.append(Wire("buzzer", "NPN base", pin, "through 1 kOhm"))
    wires.append(Wire("buzzer", "NPN emitter", *supply.nearest("GND", pin)))
    wires.append(Wire("buzzer", "buzzer +", *supply.nearest("5V", pin)))
    wires.append(Wire("buzzer", "buzzer -", None, "NPN collector"))
    pin = physical_pin(pinmap.servo.pin)
    wires.append(Wire("servo", "signal (orange)", pin))
    gnd, note = supply.nearest("GND", pin)
    wires.append(Wire("servo", "GND (brown)", gnd, note or "and the 5 V supply's -"))
    wires.append(Wire("servo", "V+ (red)", None, "the servo's own 5 V supply +, never the Pi's"))
    kind = pinmap.camera.get("kind", "none")
    if kind == "picamera2":
        wires.append(
            Wire("camera", "ribbon", None, f"CSI connector CAM{pinmap.camera.get('camera_num', 0)}")
        )
    elif kind == "opencv":
        wires.append(Wire("camera", "USB", None, f"a USB port ({pinmap.camera.get('device', 0)})"))
    return wires


def _header_lines(wires: list[Wire]) -> list[str]:
    labels: dict[int, list[str]] = {}
    for w in wires:
        if w.pin is not None:
            labels.setdefault(w.pin.number, []).append(f"{w.part}: {w.terminal}")
    lines = []
    for odd in range(1, 41, 2):
        left, right = header()[odd], header()[odd + 1]
        ltext = "; ".join(labels.get(odd, []))
        rtext = "; ".join(labels.get(odd + 1, []))
        lines.append(
            f"{ltext:>44} {left.name:>6} ({odd:2d}) ({odd + 1:2d}) {right.name:<6} {rtext}".rstrip()
        )
    return lines


def render_text(pinmap: PinMap) -> str:
    """The wiring as plain text: the header with each used pin's part, then the wire list."""
    wires = connections(pinmap)
    out = [f"Wiring for {pinmap.source.name} (GPIO numbers are BCM; (n) is the header pin)", ""]
    out += ["40-pin header, pin 1 at the SD card end, odd pins on the board's inner row:", ""]
    out += _header_lines(wires)
    out += ["", "Wires:"]
    part = None
    for w in wires:
        if w.part != part:
            part = w.part
            out.append(f"  {part}")
        out.append(f"    {w.terminal:<22} -> {w.to}")
    return "\n".join(out) + "\n"


def render_markdown(pinmap: PinMap) -> str:
    """The wire list as a Markdown table, plus the header drawing in a code block."""
    wires = connections(pinmap)
    out = ["| Part | Terminal | Goes to |", "| --- | --- | --- |"]
    out += [f"| {w.part} | {w.terminal} | {w.to} |" for w in wires]
    out += ["", "```", *_header_lines(wires), "```"]
    return "\n".join(out) + "\n"


_COLOURS = {"blue": "#1f5fbf", "red": "#c0392b", "challenge": "#7d3c98", "buzzer": "#b7950b"}


def _colour(part: str) -> str:
    for key, colour in _COLOURS.items():
        if part.startswith(key):
            return colour
    return {"servo": "#d35400", "OLED": "#117a65", "second OLED": "#148f77"}.get(part, "#555555")


def render_svg(pinmap: PinMap) -> str:
    """The header as an SVG drawing: each used pin labelled with its part and wire colour.

    Odd pins are labelled on the left, even pins on the right; pins are 20 pixels apart.
    """
    wires = [w for w in connections(pinmap) if w.pin is not None]
    width, top, step = 1200, 60, 20
    height = top + 20 * step + 80
    cx = {1: width // 2 - 10, 2: width // 2 + 10}
    s = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width // 2}" y="24" text-anchor="middle" font-size="15">'
        f"Table Companion wiring ({escape(pinmap.source.name)})</text>",
        f'<text x="{width // 2}" y="42" text-anchor="middle">'
        "40-pin header seen from above, pin 1 at the top (SD card end)</text>",
        f'<rect x="{cx[1] - 12}" y="{top - 12}" width="44" height="{20 * step + 4}" '
        'fill="#222" rx="3"/>',
    ]
    by_pin: dict[int, list[Wire]] = {}
    for w in wires:
        by_pin.setdefault(w.pin.number, []).append(w)  # type: ignore[union-attr]
    for number, pin in sorted(header().items()):
        x, y = cx[pin.col], top + (pin.row - 1) * step
        fill = {"GND": "#000", "5V": "#e74c3c", "3V3": "#f39c12"}.get(pin.name, "#bbb")
        s.append(f'<circle cx="{x}" cy="{y}" r="6" fill="{fill}" stroke="#888"/>')
        anchor, nx = ("end", x - 20) if pin.col == 1 else ("start", x + 20)
        s.append(
            f'<text x="{nx}" y="{y + 4}" text-anchor="{anchor}" fill="#444">'
            f"{number} {pin.name}</text>"
        )
        if number in by_pin:
            label = "; ".join(
                f"{w.part}: {w.terminal}" + (f", {w.note}" if w.note else "")
                for w in by_pin[number]
            )
            colour = _colour(by_pin[number][0].part)
            lx, sx = (x - 130, x - 80) if pin.col == 1 else (x + 130, x + 80)
            s.append(
                f'<line x1="{sx}" y1="{y}" x2="{lx}" y2="{y}" stroke="{colour}" stroke-width="3"/>'
            )
            anchor = "end" if pin.col == 1 else "start"
            tx = lx - 6 if pin.col == 1 else lx + 6
            s.append(
                f'<text x="{tx}" y="{y + 4}" text-anchor="{anchor}" fill="{colour}" '
                f'data-pin="{number}">{escape(label)}</text>'
            )
    y = top + 20 * step + 20
    off = [w for w in connections(pinmap) if w.pin is None and w.part in ("servo", "camera")]
    for w in off:
        s.append(f'<text x="20" y="{y}">{escape(f"{w.part} {w.terminal}: {w.to}")}</text>')
        y += 16
    s.append("</svg>")
    return "\n".join(s) + "\n"
