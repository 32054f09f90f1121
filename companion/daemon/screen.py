"""Drawing on the OLED (PIL images, mode "1") and showing a frame in a terminal.

Frames are drawn with PIL on an image of the display's size (128 x 64 pixels by default; 256 x 64
for an SSD1322; luma.core's convention: mode "1", 255 lit). Fonts are DejaVu Sans (Debian
``fonts-dejavu-core``); a text with characters DejaVu lacks (Chinese, Japanese, Korean names) is
drawn in WenQuanYi Micro Hei (``fonts-wqy-microhei``, 5 MB) or another CJK font found
(:data:`FALLBACK_FONTS`), chosen per text from the fonts' character maps (fontTools), so no name
comes out as empty boxes. Pillow's built-in font is the last resort.

Readable across a table (issue 16): nothing a player must read is smaller than
:data:`MIN_TEXT_PX` pixels, the height of a capital letter (on the 0.96" SSD1306, 10 px is about
2.2 mm; on a 2.42" SSD1309 about 4.7 mm). :func:`fit_font` never goes below that size. A text that
does not fit its box at that size is wrapped onto the box's lines and, when that is not enough,
shown *in turns*: one part after the other, each for :data:`TURN_SECONDS`, chosen by a turn number
the caller computes from the game time it was given (:func:`turn_at`): no sleeps, no clock reads.
"""

from __future__ import annotations

import functools
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
# fonts for the characters DejaVu lacks, best first: (path, index in a .ttc collection)
FALLBACK_FONTS = (
    (Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"), 0),
    (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"), 0),
    (Path("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"), 0),
)
LIT = 255
MIN_TEXT_PX = 10  # the height of a capital letter, pixels: the least a player must read
TURN_SECONDS = 3.0  # a text shown in turns: each part stays up this long (seconds)


@functools.lru_cache(maxsize=8)
def _dejavu_path(bold: bool, condensed: bool) -> Path | None:
    name = "DejaVuSans" + ("Condensed" if condensed else "") + ("-Bold" if bold else "") + ".ttf"
    for folder in FONT_DIRS:
        if (folder / name).exists():
            return folder / name
    return None


@functools.lru_cache(maxsize=8)
def _charmap(path: Path, index: int = 0) -> frozenset[int]:
    """The code points the font at ``path`` draws (its best cmap, read by fontTools)."""
    from fontTools.ttLib import TTFont

    with TTFont(str(path), fontNumber=index, lazy=True) as ttf:
        return frozenset(ttf.getBestCmap() or {})


def _drawable(text: str, path: Path, index: int = 0) -> bool:
    chars = _charmap(path, index)
    return all(ord(ch) in chars or ch.isspace() for ch in text)


def undrawable(text: str) -> str:
    """The characters of ``text`` that no installed OLED font draws ("" when all are drawn):
    ``table setup`` warns about such a name (it would show as empty boxes)."""
    fonts = [(p, 0) for p in (_dejavu_path(True, True),) if p is not None]
    fonts += [(p, i) for p, i in FALLBACK_FONTS if p.exists()]
    if not fonts:
        return ""  # Pillow's own font only: nothing to tell
    maps = [_charmap(p, i) for p, i in fonts]
    missing = [ch for ch in text if not ch.isspace() and all(ord(ch) not in m for m in maps)]
    return "".join(dict.fromkeys(missing))


def _font_file(bold: bool, condensed: bool, text: str) -> tuple[Path, int] | None:
    """The font file (and index in a collection) that draws ``text``: DejaVu, else a fallback."""
    path = _dejavu_path(bold, condensed)
    if path is not None and text and not _drawable(text, path):
        for fallback, index in FALLBACK_FONTS:
            if fallback.exists() and _drawable(text, fallback, index):
                return fallback, index
    return None if path is None else (path, 0)


@functools.lru_cache(maxsize=256)
def _truetype(path: Path, index: int, size: int):
    return ImageFont.truetype(str(path), size, index=index)


def font(size: int, bold: bool = True, condensed: bool = False, text: str = ""):
    """A TrueType font of ``size`` pixels: DejaVu Sans (bold by default), or, when ``text`` has
    characters DejaVu lacks, the first of :data:`FALLBACK_FONTS` that has them all; else
    Pillow's own."""
    found = _font_file(bold, condensed, text)
    if found is None:
        return ImageFont.load_default(size)
    return _truetype(found[0], found[1], size)


def text_size(draw: ImageDraw.ImageDraw, text: str, fnt) -> tuple[int, int]:
    """Width and height in pixels of ``text`` drawn in ``fnt``."""
    left, top, right, bottom = draw.textbbox((0, 0), text, font=fnt)
    return right - left, bottom - top


@functools.lru_cache(maxsize=8192)
def _measure(text: str, size: int, bold: bool, line: str = "") -> tuple[int, int]:
    """Width and height in pixels of ``line`` (default ``text``) in the face :func:`_face` picks
    for ``text`` at ``size``, as a mode-"1" frame draws it (cached: frames redraw the same texts)."""
    left, top, right, bottom = _face(size, bold, text).getbbox(line or text, mode="1")
    return right - left, bottom - top


def cap_height(fnt) -> int:
    """The height in pixels of a capital letter (``H``) in ``fnt``."""
    left, top, right, bottom = fnt.getbbox("H")
    return bottom - top


def min_size(bold: bool = True, text: str = "") -> int:
    """The smallest font size (pixels) whose capital letters are :data:`MIN_TEXT_PX` high, in
    the font that draws ``text`` (DejaVu Sans Bold Condensed: 13; WenQuanYi Micro Hei: 14)."""
    return _min_size(_font_file(bold, True, text))


@functools.lru_cache(maxsize=8)
def _min_size(found: tuple[Path, int] | None) -> int:
    for size in range(MIN_TEXT_PX, 4 * MIN_TEXT_PX):
        fnt = ImageFont.load_default(size) if found is None else _truetype(*found, size)
        if cap_height(fnt) >= MIN_TEXT_PX:
            return size
    return 4 * MIN_TEXT_PX


def _face(size: int, bold: bool, text: str):
    # condensed from 13 px down keeps more letters on a line; the largest sizes are not condensed
    return font(size, bold, condensed=size <= 24, text=text)


def fits(draw, text: str, width: int, height: int, bold: bool = True) -> bool:
    """True when ``text`` fits ``width`` x ``height`` pixels at the least readable size."""
    w, h = _measure(text, min_size(bold, text), bold)
    return w <= width and h <= height


def fit_font(draw, text: str, width: int, height: int, largest: int = 40, bold: bool = True):
    """The largest font (at most ``largest`` px, at least :func:`min_size`) in which ``text`` fits
    ``width`` x ``height`` pixels; the least readable one when none does (the caller then shows
    the text in parts: :func:`parts`)."""
    smallest = min_size(bold, text)
    for size in range(max(largest, smallest), smallest, -1):
        w, h = _measure(text, size, bold)
        if w <= width and h <= height:
            return _face(size, bold, text)
    return _face(smallest, bold, text)


def parts(draw, text: str, width: int, bold: bool = True) -> list[str]:
    """``text`` cut at spaces into as few lines as fit ``width`` pixels each at the least readable
    size, the lines as even as can be (``CHALLENGE:`` / ``resume clock``, not ``CHALLENGE:
    resume`` / ``clock``); a word wider than a line is cut where it must be."""
    size = min_size(bold, text)

    def w(s: str) -> int:
        return _measure(text, size, bold, s)[0]

    words: list[str] = []
    for word in text.split():
        while w(word) > width and len(word) > 1:  # a long word: as many letters as fit
            cut = max([1] + [n for n in range(1, len(word) + 1) if w(word[:n]) <= width])
            words.append(word[:cut])
            word = word[cut:]
        words.append(word)
    if not words:
        return [""]

    @functools.cache
    def best(start: int, lines: int) -> tuple[int, tuple[str, ...]] | None:
        """The widest line and the lines of words[start:] on at most ``lines`` lines."""
        if start == len(words):
            return (0, ())
        if lines == 0:
            return None
        found = None
        for end in range(start + 1, len(words) + 1):
            line = " ".join(words[start:end])
            if w(line) > width and end > start + 1:
                break
            rest = best(end, lines - 1)
            if rest is not None:
                option = (max(w(line), rest[0]), (line, *rest[1]))
                if found is None or option[0] < found[0]:
                    found = option
        return found

    for count in range(1, len(words) + 1):
        found = best(0, count)
        if found is not None:
            return list(found[1])
    return words


def first_fitting(draw, texts, width: int, bold: bool = True) -> str:
    """The first of ``texts`` (longest wording first) that fits one line of ``width`` pixels at
    the least readable size, else the last: ``BLUE: RESTORE BOARD`` on a wide screen,
    ``RESTORE BOARD`` on a narrow one."""
    texts = list(texts)
    for text in texts:
        if _measure(text, min_size(bold, text), bold)[0] <= width:
            return text
    return texts[-1]


def turn_at(t: float, since: float = 0.0, seconds: float = TURN_SECONDS) -> int:
    """The turn (0, 1, 2...) at game time ``t`` (seconds) of texts shown in turns since ``since``."""
    return max(0, int((t - since) // seconds))


def next_turn_at(t: float, since: float = 0.0, seconds: float = TURN_SECONDS) -> float:
    """The game time (seconds) at which the next turn begins: when to draw again."""
    return since + (turn_at(t, since, seconds) + 1) * seconds


def centred(draw, box: tuple[int, int, int, int], text: str, fnt, fill: int = LIT) -> None:
    """Draw ``text`` centred in ``box`` = (left, top, right, bottom) pixels."""
    left, top, right, bottom = box
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=fnt)
    x = left + (right - left - (x1 - x0)) // 2 - x0
    y = top + (bottom - top - (y1 - y0)) // 2 - y0
    draw.text((x, y), text, font=fnt, fill=fill)


def _lines_per_box(draw, text: str, height: int, bold: bool) -> int:
    h = _measure(text, min_size(bold, text), bold, "Hg")[1]
    return max(1, (height + 1) // (h + 1))


def shown(draw, box, text: str, turn: int = 0, bold: bool = True) -> list[str]:
    """The lines of ``text`` that ``box`` shows at ``turn``: the whole text when it fits one line
    at the least readable size, else its :func:`parts` wrapped onto as many lines as the box holds,
    a boxful a turn."""
    left, top, right, bottom = box
    width, height = right - left, bottom - top
    if fits(draw, text, width, height, bold):
        return [text]
    lines = parts(draw, text, width, bold)
    per = _lines_per_box(draw, text, height, bold)
    pages = [lines[i : i + per] for i in range(0, len(lines), per)]
    return pages[turn % len(pages)]


def turns_needed(draw, box, text: str, bold: bool = True) -> int:
    """How many turns ``text`` takes in ``box`` (1 when it is shown whole)."""
    left, top, right, bottom = box
    if fits(draw, text, right - left, bottom - top, bold):
        return 1
    lines = parts(draw, text, right - left, bold)
    per = _lines_per_box(draw, text, bottom - top, bold)
    return -(-len(lines) // per)


def fitted(draw, box, text: str, largest: int = 40, bold=True, turn: int = 0, fill=LIT) -> None:
    """Draw ``text`` centred in ``box`` in the largest font that fits (never below
    :data:`MIN_TEXT_PX` capitals); a text too long for the box is wrapped and shown in turns
    (``turn``: see :func:`turn_at`)."""
    left, top, right, bottom = box
    lines = shown(draw, box, text, turn, bold)
    if len(lines) == 1:
        centred(
            draw,
            box,
            lines[0],
            fit_font(draw, lines[0], right - left, bottom - top, largest, bold),
            fill,
        )
        return
    step = (bottom - top) / len(lines)
    for i, line in enumerate(lines):
        row = (left, round(top + i * step), right, round(top + (i + 1) * step))
        centred(draw, row, line, _face(min_size(bold, text), bold, text), fill)


def inverted(draw, box: tuple[int, int, int, int], text: str, largest: int = 13, turn: int = 0):
    """A lit box with ``text`` dark inside: a label that stands out (CHALLENGE, PAUSED)."""
    draw.rectangle(box, fill=LIT)
    left, top, right, bottom = box
    fitted(draw, (left + 1, top, right - 1, bottom + 1), text, largest, True, turn, fill=0)


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


def qr_page(draw, width: int, height: int, address: str, title: str) -> None:
    """A page with the QR code of ``address`` (a table's page on the director's pages) at the
    left, as large as the screen's height allows in whole pixels a module, and ``title`` with
    "SCAN ME" beside it, at least 10 px high. An address too long for the screen as a
    code is shown as text instead (``companion.daemon.config.PAGE_MAX`` keeps it short).

    The code is drawn by :func:`companion.tournament.qr.qr_image` (the ``qrcode`` library):
    dark modules unlit on a lit quiet zone, so a phone reads it as a dark-on-light code."""
    from companion.tournament.qr import QRError, qr_image

    try:
        code = qr_image(address, size=min(height, width // 2))
    except QRError:
        fitted(draw, (0, 0, width - 1, height - 1), address, largest=14)
        return
    top = (height - code.height) // 2
    draw.bitmap((0, top), code, fill=LIT)
    left = code.width + 4
    fitted(draw, (left, 0, width - 1, height // 2 - 1), title, largest=16)
    fitted(draw, (left, height // 2, width - 1, height - 1), "SCAN ME", largest=14)


def with_qr_page(frame, address: str, title: str, turn: int):
    """``frame``, or at every third turn the page of :func:`qr_page` when ``address`` (a
    tournament table's page) is set: the ready screens of Iota and Wordinoes show it in turn."""
    if not address or turn % 3 != 2:
        return frame

    def page(draw, width, height, *args, **kwargs):
        qr_page(draw, width, height, address, title)

    return page
