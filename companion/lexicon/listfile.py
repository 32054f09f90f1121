"""Reading a tournament word list's bytes as text, or refusing a file that is not text.

A word list is a text file. ``decode_list(data)`` finds its encoding and returns its lines, or
raises :class:`NotText` saying why the bytes are not a text file, at which line, and what is
accepted. Pure: no I/O.

Encodings, in this order:

- a byte-order mark names the encoding: UTF-32 (``FF FE 00 00``, ``00 00 FE FF``), UTF-16
  (``FF FE``, ``FE FF``) or UTF-8 (``EF BB BF``). A UTF-16/32 mark on bytes that do not decode,
  or on a file with no NUL byte (every line end and letter A-Z of a UTF-16 text holds one, so
  such a file is a UTF-8 or Latin-1 file that starts with stray bytes), is refused naming the
  encoding and how to save the file as UTF-8;
- NUL bytes without a mark: UTF-16 or UTF-32 if the NULs fall in that encoding's pattern (UTF-16
  little-endian: every NUL at an odd offset; UTF-32: the two high bytes of every character zero)
  and the bytes decode; else the file is binary;
- UTF-8;
- else Windows-1252 / ISO-8859-1 (SCOWL-style lists), if it is plausible Latin-1 text: most of
  its bytes above 0x7F are letters (a binary's are not), and no ``FF FE`` / ``FE FF`` pair (a
  UTF-16 byte-order mark: a UTF-16 file joined to this one, which Latin-1 would read as the
  letters "ÿþ", folded to YTH);
- a file in another legacy encoding is refused, naming the line, unless the encoding is given
  (``encoding=``, ``lexicon import --encoding``): one that uses Windows-1252's bytes 0x80-0x9F
  (never letters in ISO-8859-1; MacRoman's ``é`` is Windows-1252's ``Ž``, so ``café`` would be
  imported as CAFZ) or whose bytes above 0x7F read as something other than letters (Shift-JIS's
  ``猫`` is ``”L``). charset-normalizer (a well-kept detector) names the encoding it most likely
  is, shown with the line read both ways.

Whatever the encoding, the text is refused if a line holds a control character (anything of
Unicode category Cc but tab, line feed and carriage return: a binary file's bytes 0x00-0x1F, 0x7F
and 0x80-0x9F), a private-use or unassigned code point (what random bytes decode to as UTF-16 or
UTF-32), or a byte-order mark after the start (files joined together), or if more than half of the
characters outside comments (at least :data:`SHARE_MIN` of them) are not letters: a binary file
whose bytes happen to be printable.
"""

from __future__ import annotations

import codecs
import unicodedata

from companion.errors import CompanionError

ACCEPTED = (
    "accepted: a text file of one word a line in UTF-8 (with or without a byte-order mark), "
    "UTF-16 or UTF-32, or ISO-8859-1 / Windows-1252 (another encoding with --encoding)"
)
"""What a word list may be, said in every refusal."""

HOW_TO_SAVE = (
    "save it as UTF-8 (in an editor: Save As, encoding UTF-8; "
    "or iconv -f {encoding} -t UTF-8 FILE > FILE.utf8)"
)
"""How to turn a file of another encoding into UTF-8, said when a UTF-16/32 file is refused."""

SHARE_MIN = 32
"""The fewest characters outside comments for the share-of-letters rule to apply (a short list of
numbers is text: its lines are rejected one by one, as any list's are)."""

_BOMS = (  # longest first: the UTF-32 LE mark starts with the UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 (little-endian)"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 (big-endian)"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 (little-endian)"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 (big-endian)"),
)
_ALLOWED_CONTROLS = frozenset("\t\n\r")


class NotText(CompanionError, ValueError):
    """The bytes are not a text file; the message says why, at which line, and what is accepted
    (the caller adds the file's name)."""


def _line_of(data: bytes, offset: int) -> int:
    """The line (from 1) of byte ``offset`` in ``data``, counting LF line ends."""
    return data.count(b"\n", 0, offset) + 1


def _nul_pattern(data: bytes) -> tuple[str, str] | None:
    """The UTF-32/16 codec and its name whose NUL pattern ``data`` (holding NULs) fits, or None."""
    n = len(data)
    if n % 4 == 0:
        if not any(data[2::4]) and not any(data[3::4]):
            return "utf-32-le", "UTF-32 (little-endian)"
        if not any(data[0::4]) and not any(data[1::4]):
            return "utf-32-be", "UTF-32 (big-endian)"
    if n % 2 == 0:
        if all(data[0::2]):  # every NUL at an odd offset: the high bytes of U+00xx
            return "utf-16-le", "UTF-16 (little-endian)"
        if all(data[1::2]):
            return "utf-16-be", "UTF-16 (big-endian)"
    return None


def _refuse_wide(name: str, codec: str, why: str) -> NotText:
    encoding = "UTF-32" if codec.startswith("utf-32") else "UTF-16"
    return NotText(f"{why}, so it is not {name} text: {HOW_TO_SAVE.format(encoding=encoding)}")


def _decode(data: bytes) -> tuple[str, str]:
    """``(text, encoding name)`` of ``data``, without its byte-order mark. Raises NotText."""
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            if codec != "utf-8" and b"\0" not in body and body.strip():
                raise _refuse_wide(
                    name,
                    codec,
                    f"it starts with the {name} byte-order mark "
                    f"({' '.join(f'{b:02X}' for b in bom)}) but holds no NUL byte (every line "
                    "end and letter A-Z of such a file holds one)",
                )
            try:
                return body.decode(codec), name
            except UnicodeDecodeError as exc:
                if codec == "utf-8":
                    raise NotText(
                        f"it starts with the UTF-8 byte-order mark but line "
                        f"{_line_of(body, exc.start)} is not UTF-8 (byte 0x{body[exc.start]:02X})"
                    ) from None
                raise _refuse_wide(
                    name,
                    codec,
                    f"it starts with the {name} byte-order mark but its bytes do not decode "
                    f"({exc.reason} at byte {exc.start + len(bom)})",
                ) from None
    if b"\0" in data:
        wide = _nul_pattern(data)
        if wide is not None:
            codec, name = wide
            try:
                return data.decode(codec), name
            except UnicodeDecodeError:
                pass
        at = data.index(b"\0")
        raise NotText(
            f"line {_line_of(data, at)} holds a NUL byte (at byte {at}), and the NULs are not "
            "those of a UTF-16 or UTF-32 text: a binary file"
        )
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError:
        pass
    _refuse_other_legacy(data)
    try:
        return data.decode("cp1252"), "ISO-8859-1"
    except UnicodeDecodeError:  # 0x81 0x8D 0x8F 0x90 0x9D: C1 controls, found by _check
        return data.decode("iso-8859-1"), "ISO-8859-1"


LATIN = ("cp1252", "latin_1", "iso8859_15")
"""charset-normalizer's names of the encodings read here as Windows-1252 / ISO-8859-1."""
LEGACY = ("cp932", "shift_jis", "euc_jp", "gb18030", "big5", "euc_kr", "mac_roman", "cp1251")
LEGACY += ("koi8_r", "mac_cyrillic", "cp1250", "iso8859_2", "cp1253", "cp1254", "cp437", "cp850")
"""The other legacy encodings a word list is named in, most likely first (ties go to the
first): the East Asian multi-byte ones (bytes that decode in one are a strong sign), the Mac's,
then the Cyrillic, Central European and DOS code pages."""


def _refuse_other_legacy(data: bytes) -> None:
    """Raise NotText when ``data`` (not UTF-8, no NUL) is not plain Latin-1 text: it uses
    Windows-1252's bytes 0x80-0x9F (never a letter in ISO-8859-1; MacRoman's ``é`` is
    Windows-1252's ``Ž``), or a line read as Windows-1252 holds a character above 0x7F that is not
    a letter (Shift-JIS's ``猫`` is ``”L``). The message names the encoding charset-normalizer
    finds the most likely (:data:`LEGACY`, cleanest first), the first such line read both ways,
    and how to give the encoding or save the file as UTF-8."""
    number, line = _first_odd_line(data)
    if line is None:
        return
    from charset_normalizer import from_bytes

    others = [m for m in from_bytes(data, cp_isolation=list(LEGACY)) if m.encoding in LEGACY]
    if not others:
        return  # no other encoding reads it either: judged as Latin-1 (a binary file?)
    codec = min(others, key=lambda m: (m.chaos, LEGACY.index(m.encoding))).encoding
    theirs = line.decode(codec, errors="replace").strip()
    if not all(ch.isalpha() or unicodedata.combining(ch) for ch in theirs if ord(ch) > 0x7F):
        return  # nor does it make letters of that line: judged as Latin-1 (a binary file?)
    ours = line.decode("cp1252", errors="replace").strip()
    name = _codec_label(codec)
    raise NotText(
        f"it is not UTF-8, and not plain ISO-8859-1 / Windows-1252 text either: it reads as "
        f"{name} text: line {number} is {theirs!r} in {name} but {ours!r} in Windows-1252. Give "
        f"the encoding it is in (companion lexicon import FILE --encoding {codec}, or "
        "--encoding cp1252 if it is that), or " + HOW_TO_SAVE.format(encoding=codec)
    )


def _first_odd_line(data: bytes) -> tuple[int, bytes | None]:
    """The number and bytes of the first line that Windows-1252 reads with one of its bytes
    0x80-0x9F or a character above 0x7F that is not a letter; ``(0, None)`` when none does."""
    for number, line in enumerate(data.splitlines(), start=1):
        for b, ch in zip(line, line.decode("cp1252", errors="replace"), strict=False):
            if b > 0x7F and (b <= 0x9F or not (ch.isalpha() or unicodedata.combining(ch))):
                return number, line
    return 0, None


def _codec_label(codec: str) -> str:
    """A codec's name as people write it: ``mac_roman`` -> ``MacRoman``, ``cp932`` -> ``CP932``."""
    labels = {"mac_roman": "MacRoman", "shift_jis": "Shift-JIS", "cp932": "Shift-JIS (CP932)"}
    labels |= {"euc_jp": "EUC-JP", "koi8_r": "KOI8-R", "gb18030": "GB18030", "big5": "Big5"}
    return labels.get(codec, codec.upper().replace("_", "-"))


def _decode_as(data: bytes, encoding: str) -> tuple[str, str]:
    """``(text, encoding name)`` of ``data`` read in ``encoding`` (a codec name, as given).
    Raises NotText naming the line of a byte that does not decode, or an unknown encoding."""
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        raise NotText(
            f"encoding {encoding!r} is not one Python knows; accepted: a codec name such as "
            "utf-8, cp1252, mac_roman, shift_jis, cp1251, koi8_r"
        ) from None
    if data.startswith(codecs.BOM_UTF8) and codec == "utf-8":
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode(codec), encoding
    except UnicodeDecodeError as exc:
        raise NotText(
            f"line {_line_of(data, exc.start)} is not {encoding} text "
            f"(byte 0x{data[exc.start]:02X}: {exc.reason})"
        ) from None


def _what(ch: str) -> str:
    return f"U+{ord(ch):04X}" + (f" ({unicodedata.name(ch)})" if unicodedata.name(ch, "") else "")


def _check(lines: list[str], encoding: str) -> None:
    """Raise NotText at the first line that a text file would not hold (see the module's doc)."""
    high = high_letters = 0
    letters = others = 0
    first_other = None
    for number, line in enumerate(lines, start=1):
        for i, ch in enumerate(line):
            cat = unicodedata.category(ch)
            if cat == "Cc" and ch not in _ALLOWED_CONTROLS:
                what = f"byte 0x{ord(ch):02X}" if encoding == "ISO-8859-1" else _what(ch)
                raise NotText(f"line {number} holds the control character {what}: a binary file")
            if cat in ("Co", "Cn", "Cs"):
                raise NotText(
                    f"line {number} holds {_what(ch)}, "
                    f"{'a private-use' if cat == 'Co' else 'an unassigned'} code point once read "
                    f"as {encoding}: not text"
                )
            if ch == "\ufeff" and (number, i) != (1, 0):
                raise NotText(
                    f"line {number} holds a byte-order mark (U+FEFF) after the start of the file: "
                    "files joined together? Save each as UTF-8 and join them again"
                )
            if encoding == "ISO-8859-1" and ord(ch) > 0x7F:
                high += 1
                high_letters += ch.isalpha()
                if line[i : i + 2] in ("ÿþ", "þÿ"):
                    raise NotText(
                        f"line {number} holds the bytes {'FF FE' if ch == 'ÿ' else 'FE FF'}, a "
                        "UTF-16 byte-order mark: not ISO-8859-1 text (a UTF-16 file joined to "
                        "it?); save each part as UTF-8"
                    )
        for ch in line.split("#", 1)[0]:
            if ch.isspace():
                continue
            if ch.isalpha() or unicodedata.combining(ch):
                letters += 1
            else:
                others += 1
                first_other = first_other or number
    if encoding == "ISO-8859-1" and high >= 8 and high_letters * 2 < high:
        raise NotText(
            f"it is not UTF-8, and not ISO-8859-1 text either: {high - high_letters} of its {high} "
            "bytes above 0x7F are not letters (a binary file?)"
        )
    if letters + others >= SHARE_MIN and others * 2 > letters + others:
        raise NotText(
            f"{others} of the {letters + others} characters outside comments are not letters "
            f"(the first at line {first_other}): a binary file, not a word list"
        )


def decode_list(data: bytes, encoding: str | None = None) -> list[str]:
    """The lines of word-list file content ``data`` (without line ends or byte-order mark).

    Args:
        data: the file's bytes, any length.
        encoding: read it in this encoding (a Python codec name) instead of finding it.

    Returns:
        ``str`` lines as ``str.splitlines`` gives them.

    Raises:
        NotText: ``data`` is not a text file in an accepted encoding (the module's doc lists the
            rules); the message says why, names the line, and ends with :data:`ACCEPTED`.
    """
    try:
        text, encoding = _decode(data) if encoding is None else _decode_as(data, encoding)
        _check(text.splitlines(keepends=True), encoding)  # a control character may end a line
    except NotText as exc:
        raise NotText(f"{exc}; {ACCEPTED}") from None
    return text.splitlines()
