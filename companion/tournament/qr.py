"""A QR code of a table's page for its OLED, so a player opens ``/table/N`` on a phone.

The code is made by the ``qrcode`` library (ISO/IEC 18004; error correction level L, the
smallest symbol for the address) and drawn as a 1-bit PIL image in luma.core's convention (mode
"1", 255 lit). An OLED's lit pixels are the light ones, so the code's dark modules are unlit
pixels and its quiet zone is lit: a phone reads it as the usual dark-on-light code. Each module
is a square of whole pixels (never scaled with blur), as large as fits in ``size`` pixels.

Pure: no I/O; the table's screen pastes the image on its ready frame.
"""

from __future__ import annotations

from PIL import Image

from companion.errors import CompanionError

QUIET_MODULES = 2  # the quiet zone, in modules (the standard asks 4; 2 reads well on a screen)


class QRError(CompanionError, ValueError):
    """An address that does not fit the screen as a QR code: names it and the room there is."""


def table_url(base_url: str, table: int) -> str:
    """The address of table ``table``'s page under the director's pages at ``base_url``
    (``http://10.42.0.1:8080`` -> ``http://10.42.0.1:8080/table/7``)."""
    return f"{base_url.rstrip('/')}/table/{int(table)}"


def check_pages_url(text: str, where: str = "--pages-url") -> str:
    """The director's pages' address (``http://10.42.0.1:8080``), checked as every table checks
    the ``page`` of its set-up (:data:`companion.daemon.config.PAGE_URL`, at most
    :data:`companion.daemon.config.PAGE_MAX` characters), with the longest table page,
    ``/table/999``, added: an address a table would refuse would make every table refuse its
    whole set-up. Returns it without a trailing ``/``.

    Raises:
        QRError: names the address, what is wrong and what is accepted.
    """
    from companion.daemon.config import PAGE_MAX, PAGE_URL
    from companion.tournament.protocol import TABLE_MAX

    base = str(text).rstrip("/")
    page = table_url(base, TABLE_MAX)
    accepted = (
        "accepted an http:// or https:// address of a host (name, IPv4 or [IPv6]) with its "
        f"port and a plain path, such as http://10.42.0.1:8080, at most "
        f"{PAGE_MAX - len(page) + len(base)} characters"
    )
    if not PAGE_URL.fullmatch(page):
        raise QRError(f"{where} {text!r}: not a page address the tables take; {accepted}".strip())
    if len(page) > PAGE_MAX:
        raise QRError(f"{where} {text!r}: {len(base)} characters, too long; {accepted}".strip())
    return base


def qr_matrix(text: str) -> list[list[bool]]:
    """The QR code of ``text`` as rows of modules (True: dark), without a quiet zone."""
    import qrcode
    from qrcode.constants import ERROR_CORRECT_L

    code = qrcode.QRCode(error_correction=ERROR_CORRECT_L, border=0, box_size=1)
    code.add_data(text)
    code.make(fit=True)
    return [list(map(bool, row)) for row in code.get_matrix()]


def qr_image(text: str, size: int = 64, quiet: int = QUIET_MODULES) -> Image.Image:
    """The QR code of ``text`` as a square mode-"1" image at most ``size`` pixels a side: lit
    quiet zone of ``quiet`` modules, dark modules unlit, each module k x k pixels with the
    largest whole k that fits.

    Raises:
        QRError: the code has more modules than ``size`` pixels can draw (an address too
            long for the screen), naming both.
    """
    rows = qr_matrix(text)
    n = len(rows) + 2 * quiet
    k = size // n
    if k < 1:
        raise QRError(
            f"the QR code of {text!r} is {n} modules wide with its quiet zone; a screen of "
            f"{size} pixels shows at most {size}: accepted a shorter address"
        )
    image = Image.new("1", (n * k, n * k), 255)
    px = image.load()
    for r, row in enumerate(rows):
        for c, dark in enumerate(row):
            if dark:
                for dy in range(k):
                    for dx in range(k):
                        px[(c + quiet) * k + dx, (r + quiet) * k + dy] = 0
    return image
