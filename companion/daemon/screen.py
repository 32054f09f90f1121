"""Drawing on the OLED (PIL images, mode "1") and showing a frame in a terminal.

Frames are drawn with PIL on an image of the display's size (128 x 64 pixels by default,
luma.core's convention: mode "1", 255 lit). Fonts are DejaVu (Debian ``fonts-dejavu-core``),
with Pillow's built-in font as a fallback.
"""

from __future__ import annotations

import functools
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
LIT = 255


@functools.lru_cache(maxsize=64)
def font(size: int, bold: bool = True, condensed: bool = False):
    """A TrueType font of ``size`` pixels (DejaVu Sans, bold by default), else Pillow's own."""
    name = "DejaVuSans" + ("Condensed" if condensed else "") + ("-Bold" if bold else "") + ".ttf"
    for folder in FONT_DIRS:
        path = folder / name
        if path.exists():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def text_size(draw: ImageDraw.ImageDraw, text: str, fnt) -> tuple[int, int]:
    """Width and height in pixels of ``text`` drawn in ``fnt``."""
    left, top, right, bottom = draw.textbbox((0, 0), text, font=fnt)
    return right - left, bottom - top


def fit_font(draw, text: str, width: int, height: int, largest: int = 40, bold: bool = True):
    """The largest font (at most ``largest`` px) in which ``text`` fits ``width`` x ``height``."""
    for size in range(largest, 5, -1):
        f = font(size, bold, condensed=size > 12)
        w, h = text_size(draw, text, f)
        if w <= width and h <= height:
            return f
    return font(6, bold, condensed=True)


def centred(draw, box: tuple[int, int, int, int], text: str, fnt, fill: int = LIT) -> None:
    """Draw ``text`` centred in ``box`` = (left, top, right, bottom) pixels."""
    left, top, right, bottom = box
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=fnt)
    x = left + (right - left - (x1 - x0)) // 2 - x0
    y = top + (bottom - top - (y1 - y0)) // 2 - y0
    draw.text((x, y), text, font=fnt, fill=fill)


def fitted(draw, box: tuple[int, int, int, int], text: str, largest: int = 40, bold=True):
    """Draw ``text`` centred in ``box`` in the largest font that fits."""
    left, top, right, bottom = box
    centred(draw, box, text, fit_font(draw, text, right - left, bottom - top, largest, bold))


def inverted(draw, box: tuple[int, int, int, int], text: str, largest: int = 11) -> None:
    """A lit box with ``text`` dark inside: a label that stands out (CHALLENGE, PAUSED)."""
    draw.rectangle(box, fill=LIT)
    left, top, right, bottom = box
    f = fit_font(draw, text, right - left - 2, bottom - top, largest)
    centred(draw, box, text, f, fill=0)


def render(frame, width: int = 128, height: int = 64) -> Image.Image:
    """Draw ``frame(draw, width, height)`` on a new dark mode-"1" image and return it."""
    image = Image.new("1", (width, height), 0)
    frame(ImageDraw.Draw(image), width, height)
    return image


# --- the frame in a terminal -------------------------------------------------------------------

_BRAILLE_BITS = ((0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (1, 0, 0x08), (1, 1, 0x10))
_BRAILLE_BITS += ((1, 2, 0x20), (0, 3, 0x40), (1, 3, 0x80))
_QUADRANTS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"


def text_styles() -> tuple[str, ...]:
    """The terminal renderings: half blocks (1x2 pixels a character), quadrants (2x2), braille
    (2x4), ascii (2x4, for terminals without UTF-8)."""
    return ("half", "quadrant", "braille", "ascii")


def text_shape(style: str, width: int = 128, height: int = 64) -> tuple[int, int]:
    """Columns and rows the frame takes in ``style``."""
    cw, ch = {"half": (1, 2), "quadrant": (2, 2), "braille": (2, 4), "ascii": (2, 4)}[style]
    return -(-width // cw), -(-height // ch)


def to_text(image: Image.Image, style: str = "braille") -> list[str]:
    """The frame as lines of text in ``style`` (see :func:`text_styles`)."""
    img = image.convert("1")
    w, h = img.size
    px = img.load()

    def lit(x: int, y: int) -> bool:
        return 0 <= x < w and 0 <= y < h and px[x, y] != 0

    lines = []
    if style == "half":
        for y in range(0, h, 2):
            row = []
            for x in range(w):
                top, bottom = lit(x, y), lit(x, y + 1)
                row.append("█" if top and bottom else "▀" if top else "▄" if bottom else " ")
            lines.append("".join(row))
    elif style == "quadrant":
        for y in range(0, h, 2):
            row = []
            for x in range(0, w, 2):
                bits = lit(x, y) | lit(x + 1, y) << 1 | lit(x, y + 1) << 2 | lit(x + 1, y + 1) << 3
                row.append(_QUADRANTS[bits])
            lines.append("".join(row))
    elif style == "braille":
        for y in range(0, h, 4):
            row = []
            for x in range(0, w, 2):
                code = sum(bit for dx, dy, bit in _BRAILLE_BITS if lit(x + dx, y + dy))
                row.append(chr(0x2800 + code) if code else " ")
            lines.append("".join(row))
    elif style == "ascii":
        for y in range(0, h, 4):
            row = []
            for x in range(0, w, 2):
                n = sum(lit(x + dx, y + dy) for dx, dy, _ in _BRAILLE_BITS)
                row.append(" .:+#"[min(4, (n + 1) // 2)])
            lines.append("".join(row))
    else:
        raise ValueError(f"style {style!r}: accepted one of {', '.join(text_styles())}")
    return lines
