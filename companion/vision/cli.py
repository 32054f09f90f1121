"""``companion vision``: read a board from a photo, measure the reader, render synthetic photos,
train and calibrate the cell model, print the corner markers."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from companion.textformats import shown
from companion.vision.errors import VisionError

PROFILE_NAMES = ("iago", "scrabble")

# argparse takes a value that starts with '-' for an option unless it looks like one negative
# number, so ``--corners -5,-5,...`` failed with "expected one argument". The parsers that take
# --corners also take a comma-separated list of numbers that starts with '-' as a value. (The
# pattern is argparse's own attribute, in every Python 3; ``--corners=-5,-5,...`` always works.)
NUMBERS_VALUE = re.compile(r"^-\d+$|^-\d*\.\d+$|^-[\d.]+(?:[,;]\s*-?[\d.]+)+$")


def _accept_negative_lists(parser: argparse.ArgumentParser) -> None:
    if hasattr(parser, "_negative_number_matcher"):
        parser._negative_number_matcher = NUMBERS_VALUE


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``vision`` and its sub-commands to the ``companion`` parser."""
    vision = sub.add_parser("vision", help="read the board from a photo")
    vsub = vision.add_subparsers(dest="vision_command", metavar="ACTION")
    vsub.required = True

    p = vsub.add_parser(
        "read",
        help="read a photo of the board and print it in board notation",
        description=(
            "Read the board in a photo and print it in board notation (Iago: upper case blue, "
            "lower case red; Scrabble: upper case). Board notation has no blank tile: a blank "
            "is left out of it and named on standard error. --json adds the rows (? for a "
            "blank), each cell's confidence, the colour counts and the time of each stage."
        ),
    )
    p.add_argument("image", help="the photo (JPEG, PNG...)")
    p.add_argument("--profile", choices=PROFILE_NAMES, default="iago", help="default iago")
    p.add_argument(
        "--corners",
        help="X,Y,X,Y,X,Y,X,Y: the grid's outer corners in pixels (top-left, top-right, "
        "bottom-right, bottom-left) instead of finding them, or a NAME.corners.json file of "
        "them; may be negative (off the photo): then write --corners=-5,0,... so the first "
        "number is not taken for an option",
    )
    p.add_argument(
        "--known",
        help="the board the game held before this move, as the table's record has it: board "
        "notation (rows joined by /) or a file of it (Scrabble: a blank as its letter in lower "
        "case). Its tiles read where they lie are sure, one read otherwise is said, and only "
        "the squares the move could have taken keep their doubt",
    )
    p.add_argument("--json", action="store_true", help="print JSON with per-cell confidence")
    _accept_negative_lists(p)
    p.set_defaults(func=_read)

    p = vsub.add_parser(
        "eval",
        help="measure the reader on a folder of photos with truth",
        description=(
            "Read every NAME.jpg/.png of DIR that has a NAME.truth.txt and score it: cells, tile "
            "or empty, letters, colours, whole boards, confusion pairs and time per image by "
            "stage; with the corners of NAME.corners.json (given) and found by the reader."
        ),
    )
    p.add_argument("folder", help="the folder of photos")
    p.add_argument("--profile", choices=PROFILE_NAMES, help="default: from the truth's size")
    p.add_argument(
        "--corners",
        choices=("given", "found", "both"),
        default="both",
        help="use the corners files, find the board, or both (default)",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_eval)

    p = vsub.add_parser(
        "render",
        help="render synthetic photos of random boards with their truth",
        description=(
            "Write COUNT synthetic photos (NAME.jpg, NAME.truth.txt, NAME.corners.json, "
            "NAME.kind.txt) of random boards, photographed with perspective, light gradient, "
            "shadow, a hand at the edge, white balance, blur, noise and JPEG; --kind adds one "
            "thing that goes wrong with real photos."
        ),
    )
    p.add_argument("folder", help="where to write them (created)")
    p.add_argument("--profile", choices=PROFILE_NAMES, default="iago")
    p.add_argument("--count", type=int, default=20, help="how many photos (default 20)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--size", default="1600x1200", help="WIDTHxHEIGHT in pixels (default 1600x1200)")
    p.add_argument("--markers", action="store_true", help="ArUco markers at the grid's corners")
    p.add_argument("--no-hand", action="store_true", help="no hand at the board's edge")
    p.add_argument(
        "--kind",
        default="plain",
        help="what the photos show: plain (default), labels, cut, glare, dark, blur, bold, pale, "
        "bumped, or 'all' (the kinds in turn); eval reports each kind apart",
    )
    p.set_defaults(func=_render)

    p = vsub.add_parser(
        "train",
        help="build the cell model from wide renders (needs the train extra: PyTorch)",
        description=(
            "Without --output: print the cell model the reader uses as one JSON object: its "
            "recipe, its file and each profile's calibration to your set (or null). --output "
            "FILE.onnx renders the training, validation and test sets, trains the network, "
            "calibrates it and writes FILE.onnx with its recipe FILE.json (make vision-model "
            "writes the shipped one). Needs PyTorch: pip install -e '.[train]'."
        ),
    )
    p.add_argument("--output", help="build the model and write it to this .onnx file")
    p.add_argument(
        "--boards", type=int, default=None, help="training renders (default the recipe's)"
    )
    p.add_argument(
        "--epochs", type=int, default=None, help="training epochs (default the recipe's)"
    )
    p.set_defaults(func=_train)

    p = vsub.add_parser(
        "calibrate",
        help="adapt the cell model to your tiles from photos of a known layout",
        description=(
            "Lay out the tiles as --print-layout shows, photograph them (one photo or more; one "
            "or two are enough), then run calibrate with the photos. --truth gives another "
            "known layout. A photo that does not show the layout is refused and nothing is "
            "saved. --reset removes the calibration (and takes no other option)."
        ),
    )
    p.add_argument(
        "images", nargs="*", help="photos of the layout (one or more; one or two are enough)"
    )
    p.add_argument("--profile", choices=PROFILE_NAMES, default="iago")
    p.add_argument(
        "--truth", help="the layout laid out (a truth file, or board notation), if not ours"
    )
    p.add_argument("--corners", help="X,Y,... the grid's corners in the photos")
    _accept_negative_lists(p)
    p.add_argument("--add", action="store_true", help="teach on from the earlier calibration")
    p.add_argument(
        "--reset",
        action="store_true",
        help="remove this profile's calibration (the reader goes back to the shipped model)",
    )
    p.add_argument(
        "--print-layout",
        metavar="PNG",
        help="print the layout to lay out and write it as a picture to PNG ('-': text only); "
        "takes no photos",
    )
    p.set_defaults(func=_calibrate)

    p = vsub.add_parser(
        "markers",
        help="write the four ArUco corner markers as a picture to print",
        description=(
            "Write markers 0-3 (DICT_4X4_50) to print; stick 0 at the grid's top-left, 1 top-right, "
            "2 bottom-right, 3 bottom-left, outside the grid, the corner of each black square "
            "that points at the grid touching the grid's outer corner."
        ),
    )
    p.add_argument("output", help="PNG file to write")
    p.add_argument("--pixels", type=int, default=300, help="side of one marker (default 300)")
    p.set_defaults(func=_markers)


MAX_PIXELS = 100_000
"""The farthest a corner may lie from the photo's origin, in pixels (photos are a few thousand)."""
_PIXELS = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", re.ASCII)


BOARD_FILE_MAX = 64 * 1024
"""The largest board file read, in bytes: a 50 x 50 board written a cell a character with its
line ends is 2,550 bytes; anything far larger is no board, and is not read whole."""


def board_argument(option: str, text: str, size: int, blank: bool = True) -> list[str]:
    """The board an option gives (``--truth``, ``--known``): a file of it (a truth file's lines
    of ``.`` and letters, or board notation) or board notation itself (rows joined by ``/``).
    A byte-order mark at the start (Windows Notepad saves one) is not part of the board.

    Args:
        option: the option's name, for the messages.
        text: what was given.
        size: the rows and cells a row the board must have.
        blank: whether ``?`` (a blank with no letter) is a cell; with False a blank on the
            board is written as its letter in lower case.

    Returns:
        ``size`` rows of ``size`` cells, top first, each ``.``, a letter (or ``?``).

    Raises:
        VisionError: one line naming the option and what it was given: a folder, a file over
            :data:`BOARD_FILE_MAX` bytes or not text, a file's name (:func:`_names_a_file`)
            with no such file, or neither a file nor a board of ``size`` x ``size`` cells (the
            first row or cell that is not, and why), and what is accepted.
    """
    path = Path(text)
    said = f"{option} {shown(text)}"
    if not text.strip():
        raise VisionError(f"{said}: empty; give a board file, or the board in board notation")
    if _is(path.is_dir):
        raise VisionError(f"{said}: a folder, not a board file")
    if _is(path.is_file):
        try:
            size_bytes = path.stat().st_size
            if size_bytes > BOARD_FILE_MAX:
                raise VisionError(f"{said}: a file of {size_bytes} bytes is no board")
            body = path.read_text(encoding="utf-8")  # (a byte-order mark: _board_rows)
        except (OSError, UnicodeDecodeError) as exc:
            raise VisionError(f"{said}: not a board file ({exc})") from None
        return _board_rows(f"{said}: the file is not a board", body, size, blank)
    try:
        return _board_rows(f"{said}: no such file, nor a board", text, size, blank)
    except VisionError:
        if not _names_a_file(text, size):
            raise
    folder = path.parent  # (a file's name shown whole, up to a long path's length)
    where = "" if _is(folder.is_dir) else f" (there is no folder {shown(str(folder), 240)})"
    raise VisionError(
        f"{option} {shown(text, 240)}: no such file{where}; give a board file, or the board "
        "itself in board notation (rows joined by '/')"
    ) from None


_FILE_END = re.compile(r"[^./\\]\.[A-Za-z][A-Za-z0-9]{0,4}$")
"""A file's extension at the end of a text (``x.txt``, ``before.json``); a board's row of
``.`` and letters (``....CAT``) has a ``.`` before its letters."""


def _names_a_file(text: str, size: int) -> bool:
    """Whether ``text``, neither a file nor a board, was meant as a file's name rather than a
    board: it starts as a path does (``/``, ``~``, ``./``, ``../``), holds ``\\``, ``:``,
    ``_`` or ``-`` (which no board holds), or ends in an extension (``.txt``); but never a text
    of rows joined by ``/`` that does not start as a path, a board mistyped (``A.CAT`` ends
    like a file's name: both say "no such file, nor a board" then)."""
    t = text.strip()
    if len(t.split("/")) == size or (t.count("/") >= 2 and not t.startswith(("/", "~", "."))):
        return False
    return (
        t.startswith(("/", "~", "./", "../"))
        or any(ch in t for ch in "\\:_-")
        or _FILE_END.search(t) is not None
    )


def _is(test) -> bool:
    """``path.is_file`` or ``path.is_dir`` asked of a text that may be no path at all: a name
    longer than the system takes (``OSError``) or with a NUL in it (``ValueError``) is none."""
    try:
        return test()
    except (OSError, ValueError):
        return False


def _board_rows(said: str, body: str, size: int, blank: bool) -> list[str]:
    """The rows written in ``body`` (:func:`companion.games.iago.board.parse_rows`; a leading
    byte-order mark left out), or one line: ``said``, the first thing wrong, and what a board
    of ``size`` accepts."""
    from companion.games.iago.board import BoardNotationError, parse_rows

    accepted = (
        f"accepted: {size} rows of {size} cells, top row first, joined by '/' or one a line; a "
        "cell is a letter (Iago: lower case a red tile; Scrabble: lower case a blank's letter"
        + (", '?' a blank)" if blank else ")")
        + " or '.', an empty cell; a number is that many empty cells, in a row that writes "
        "no '.'"
    )
    body = body.removeprefix("\ufeff")  # the byte-order mark Windows Notepad writes first
    try:
        return parse_rows(body, size, blank="?" if blank else None)
    except BoardNotationError as err:
        first = err.problems[0] if err.problems else None
        if first is None:
            what = "empty" if not str(body).strip() else "not rows of cells"
        elif first.row is None:
            what = f"{first.cells} row" + ("s" if first.cells != 1 else "")
        elif first.cells is not None:
            what = f"row {first.row} has {first.cells} cells"
        else:  # the parser's own words: what the cell is, and why it is none
            what = first.why or f"{first}: not a cell"
        raise VisionError(f"{said} ({what}); {accepted}") from None


def parse_corners(text: str) -> list[float]:
    """Eight numbers from ``X,Y,X,Y,X,Y,X,Y``, or from a corners file (``NAME.corners.json``:
    ``[[x, y], ...]`` top-left, top-right, bottom-right, bottom-left, as the real photos' and
    ``vision render``'s).

    Raises:
        VisionError: not eight numbers; a folder; a corners file missing, not JSON, or not
            four pairs.
    """
    if text.strip() and _is(Path(text.strip()).is_dir):
        raise VisionError(
            f"--corners {shown(text)}: a folder, not a corners file; give a NAME.corners.json "
            "file or 8 numbers X,Y,X,Y,X,Y,X,Y"
        )
    if text.strip().lower().endswith(".json"):
        return _corners_file(text.strip())
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    values = [float(p) for p in parts if _PIXELS.fullmatch(p)]
    if len(values) != 8 or len(parts) != 8 or not all(abs(v) <= MAX_PIXELS for v in values):
        raise VisionError(
            f"--corners {shown(text)}: expected 8 numbers X,Y,X,Y,X,Y,X,Y (top-left, top-right, "
            f"bottom-right, bottom-left, pixels from -{MAX_PIXELS} to {MAX_PIXELS}, written "
            "with the digits 0-9, e.g. 120.5) or a NAME.corners.json file"
        )
    return values


def _corners_file(path: str) -> list[float]:
    """The eight numbers of a corners file (:func:`parse_corners`)."""
    from companion.textformats import loads_json

    p = Path(path)
    if not p.is_file():
        raise VisionError(f"--corners {shown(path)}: no such corners file")
    try:
        data = loads_json(p.read_text(encoding="utf-8-sig"))  # (a byte-order mark left out)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise VisionError(f"--corners {shown(path)}: not a JSON corners file ({exc})") from None
    flat = (
        [v for pair in data for v in (pair if isinstance(pair, list) else [pair])]
        if isinstance(data, list)
        else []
    )
    if len(flat) != 8 or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and abs(v) <= MAX_PIXELS
        for v in flat
    ):
        raise VisionError(
            f"--corners {shown(path)}: expected [[x, y], [x, y], [x, y], [x, y]] (top-left, "
            f"top-right, bottom-right, bottom-left, pixels from -{MAX_PIXELS} to {MAX_PIXELS})"
        )
    return [float(v) for v in flat]


def load_image(path: str):
    """The photo at ``path`` as uint8 (H, W, 3) BGR.

    Raises:
        VisionError: missing, a directory, truncated or corrupt, or not an image OpenCV can
            decode (:func:`companion.devices.camera.read_image_file`).
    """
    from companion.devices.camera import read_image_file

    if not str(path).strip():
        raise VisionError("image: no file named (an empty name); give a photo's file name")
    image, problem = read_image_file(Path(path))  # (a folder, a device, none: each said)
    if problem:
        raise VisionError(f"image {path}: {problem}")
    return image


WRITE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def _check_image_path(path: str, what: str) -> Path:
    """``path`` as a picture may be written to it (before anything is done).

    Raises:
        VisionError: ``path`` is a directory, its extension is not an image format OpenCV
            writes, or its folder does not exist.
    """
    p = Path(path)
    accepted = ", ".join(WRITE_SUFFIXES)
    if p.is_dir():
        raise VisionError(f"{what} {path}: is a directory; give a file name ending in {accepted}")
    if p.suffix.lower() not in WRITE_SUFFIXES:
        raise VisionError(
            f"{what} {path}: cannot write a picture as {p.suffix or 'a file without extension'}; "
            f"accepted extensions: {accepted}"
        )
    if not p.parent.is_dir():
        raise VisionError(f"{what} {path}: folder {p.parent} does not exist")
    return p


def _write_image(path: str, image, what: str) -> None:
    """Write a picture to ``path`` (the extension chooses the format).

    Raises:
        VisionError: ``path`` is refused by :func:`_check_image_path`, or the write failed.
    """
    import cv2

    p = _check_image_path(path, what)
    try:
        ok = cv2.imwrite(str(p), image)
    except cv2.error as exc:
        raise VisionError(f"{what} {path}: cannot write it ({exc.err})") from None
    if not ok:
        raise VisionError(f"{what} {path}: cannot write it (permissions? disk full?)")


def _read(args: argparse.Namespace) -> int:
    from companion.vision.profiles import get_profile
    from companion.vision.reader import CALIBRATION_UNUSED, read_board

    corners = parse_corners(args.corners) if args.corners is not None else None
    known = None
    if args.known is not None:
        known = board_argument("--known", args.known, get_profile(args.profile).size, False)
    image = load_image(args.image)
    try:
        reading = read_board(image, args.profile, corners=corners, known=known)
    except VisionError as err:
        # (the photo's name with what is wrong with it: no grid found, corners off the photo)
        raise type(err)(f"image {args.image}: {err}") from err
    if not reading.trusted:
        other = other_board(image, reading.profile, corners)
        if other is not None:
            mine, theirs = reading.profile.size, other.size
            raise VisionError(
                f"image {args.image}: the board in the photo has {theirs} x {theirs} cells, not "
                f"the {mine} x {mine} of the {reading.profile.name} profile; accepted here: a "
                f"board of {mine} x {mine} cells. Read it with --profile {other.name}"
            )
    calibration = _calibration_used(reading.profile.name)
    if calibration is not None:
        print(f"companion vision read: {_calibration_note(reading.profile.name)}", file=sys.stderr)
    for note in reading.notes:
        if note.startswith(CALIBRATION_UNUSED):  # one made that cannot be used: said
            print(f"companion vision read: {note}", file=sys.stderr)
    if args.json:
        out = reading.to_json()
        out["calibration"] = str(calibration) if calibration is not None else None
        print(json.dumps(out))
    else:
        print(reading.notation)
        if reading.blanks:
            # board notation cannot write a blank: say where they are, or they are lost
            where = ", ".join(f"row {r + 1} column {c + 1}" for r, c in reading.blanks)
            print(
                f"companion vision read: {len(reading.blanks)} blank tile(s), left out of the "
                f"notation: {where}",
                file=sys.stderr,
            )
        if not reading.trusted:
            # the notation alone looks like any other reading: say it is not to be relied on
            why = "; ".join(reading.problems) or "no reason given"
            print(
                f"companion vision read: not trusted ({reading.profile.name} board): {why}",
                file=sys.stderr,
            )
            if reading.profile.coloured_ink and reading.count_trusted:
                # the count asks only the tiles and their colours, which are read surely
                n = reading.counts()
                print(
                    f"companion vision read: the tiles and their colours are sure: blue "
                    f"{n['blue']}, red {n['red']}",
                    file=sys.stderr,
                )
    return 0


def _calibration_used(profile_name: str) -> Path | None:
    """The file of the calibration to the user's set the reader reads ``profile_name`` with
    (``companion vision calibrate``), or None: none made, or one that cannot be used
    (:func:`companion.vision.cellnet.load_cellnet` reads without it, and the reading's notes
    say why)."""
    from companion.vision import cellnet

    return cellnet.load_cellnet(profile=profile_name).calibration


def _calibration_note(profile_name: str) -> str:
    """One line: the reader reads ``profile_name`` with the calibration to the user's set (its
    file, when it was made, and how to forget it); called when :func:`_calibration_used`."""
    import datetime

    from companion.vision import cellnet

    path = cellnet.calibration_path(profile_name)
    try:
        made = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    except OSError:
        made = "at an unknown time"
    return (
        f"read with the calibration to your set ({path}, made {made}; 'companion vision "
        f"calibrate{_profile_option(profile_name)} --reset' forgets it)"
    )


def _profile_option(profile_name: str) -> str:
    """`` --profile NAME`` for a command line, or nothing for the default profile (iago)."""
    return "" if profile_name == "iago" else f" --profile {profile_name}"


OTHER_GRID_CLARITY = 3.0
"""How clearly another profile's grid lines must stand out (line response over that between
lines, :func:`companion.vision.localise.grid_phase`) for the photo to be said to show that
board instead. Measured on synthetic photos (``synth.render_photo``, its nine kinds, seeds
90000 on, six a kind), the 15 x 15 grid found with no fault: on 51 of the 54 Scrabble boards
(one with a fault, two not found) 6.7 to 19.3; on the 54 Iago boards it was found without a
fault once, at 1.4 (53 times with a fault: a line beyond its edge, none crossing its outer
row). Three stands between the two. With the corners given (the grid's own), the same seeds:
Scrabble boards 4.6 to 19.2 at 15 x 15, Iago boards 1.1 to 1.4; the same line stands between.
The other way (2026-12-07, the same seeds), the 11 x 11 grid: corners given, Iago boards 3.4 to
20.0, Scrabble boards 1.1 to 2.2; found, an 11 x 11 part of a Scrabble board shows no fault in 19
of 54, at 5.6 to 14.3, so there the Scrabble grid's own fault decides (see :func:`other_board`).
Reported only, seeds 91000 on: the 11 x 11 said of 53 / 48 of 54 Iago boards (given / found) and
of none of 54 Scrabble boards; the real Scrabble photos (corners given 1.3 to 1.4) never."""


def other_board(image, profile, corners=None):
    """The profile of another board that the photo shows instead of ``profile``'s (a Scrabble
    board's 15 x 15 grid read as Iago's 11 x 11, or the other way round), or None. Asked only of
    a reading that is not trusted.

    Args:
        image: uint8 (H, W, 3) BGR photo.
        profile: the profile it was read with.
        corners: the grid's corners the user gave (4 x, y pairs, pixels, in any nesting), or
            None. Given, that grid's lines must stand out at the other profile's pitch at least
            :data:`OTHER_GRID_CLARITY`; else that profile must find its board, whose grid
            shows no fault (:func:`companion.vision.checks.grid_problems`) and whose lines
            stand out as much. A smaller board is found inside any larger grid, so a smaller
            profile's board found is said only when ``profile``'s own grid, found, shows a fault
            (an Iago board read as Scrabble's: its 15-line comb runs past the 11 x 11 grid).
    """
    import numpy as np

    from companion.vision import localise
    from companion.vision.checks import grid_problems
    from companion.vision.profiles import PROFILES

    reduced = localise.reduce(image)
    grey, f = reduced
    own_fault = None  # whether profile's own grid, found, shows a fault (asked once, if needed)
    for other in PROFILES.values():
        if other.size == profile.size:
            continue
        if corners is not None:
            pts = np.float32(corners).reshape(4, 2)
        else:
            if other.size < profile.size:
                if own_fault is None:
                    try:
                        own, _ = localise.find_board(image, profile, reduced=reduced)
                        own_fault = bool(grid_problems(image, own, profile, reduced))
                    except VisionError:
                        own_fault = True
                if not own_fault:
                    continue
            try:
                pts, _ = localise.find_board(image, other, reduced=reduced)
            except VisionError:
                continue
            if grid_problems(image, pts, other, reduced):
                continue
        if localise.grid_phase(grey, pts * f, other.size)[2] >= OTHER_GRID_CLARITY:
            return other
    return None


def _eval(args: argparse.Namespace) -> int:
    from companion.vision.evaluate import evaluate, photos_without_truth

    modes = ("given", "found") if args.corners == "both" else (args.corners,)
    reports = evaluate(args.folder, args.profile, modes)
    if args.json:
        print(json.dumps([r.to_json() for r in reports]))
    else:
        for r in reports:
            print(r.text())
    skipped = photos_without_truth(args.folder)
    if skipped:
        # said on stderr: the figures above (or the JSON) are of the others only
        names = ", ".join(p.name for p in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
        print(
            f"not scored: {len(skipped)} photo(s) without a truth file (NAME.truth.txt): {names}",
            file=sys.stderr,
        )
    return 0


MAX_RENDER_SIDE = 6000  # pixels: the largest side `vision render --size` takes


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        w = h = 0
    # a 12 MP phone photo is 4000x3000; a render takes about 8 s at 3200x2400, and at
    # 10000x10000 ran past 15 minutes at 6 GB
    if not (64 <= w <= MAX_RENDER_SIDE and 64 <= h <= MAX_RENDER_SIDE):
        raise VisionError(
            f"--size {text!r}: expected WIDTHxHEIGHT in pixels, 64 to {MAX_RENDER_SIDE} each"
        )
    return w, h


SEED_MAX = 2**32 - 1


def _make_folder(out: Path) -> None:
    """Create the output folder ``out`` (and its parents) if needed.

    Raises:
        VisionError: ``out`` or one of its parents is a file, or it cannot be created.
    """
    for part in (out, *out.parents):
        if part.exists() and not part.is_dir():
            what = "is a file" if part == out else f"cannot be made: {part} is a file"
            raise VisionError(f"render folder {out}: {what}; give a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VisionError(f"render folder {out}: cannot create it ({exc.strerror})") from None


def _render(args: argparse.Namespace) -> int:
    from companion.vision.synth import KINDS, render_photo

    if args.count < 1:
        raise VisionError(f"--count {args.count}: expected at least 1")
    if not 0 <= args.seed <= SEED_MAX - args.count + 1:
        raise VisionError(
            f"--seed {args.seed} with --count {args.count}: seeds run from --seed to "
            f"--seed + count - 1 and must lie in 0..{SEED_MAX} (2**32 - 1)"
        )
    size = _parse_size(args.size)
    if args.kind != "all" and args.kind not in KINDS:
        raise VisionError(f"--kind {args.kind!r}: accepted are {', '.join(KINDS)} and all")
    out = Path(args.folder)
    _make_folder(out)
    for k in range(args.count):
        seed = args.seed + k
        kind = KINDS[k % len(KINDS)] if args.kind == "all" else args.kind
        photo = render_photo(
            args.profile,
            seed=seed,
            size=size,
            markers=args.markers,
            hand=not args.no_hand,
            kind=kind,
        )
        name = (
            f"{args.profile}_{seed:04d}" if kind == "plain" else f"{args.profile}_{kind}_{seed:04d}"
        )
        path = photo.save(out / name, quality=92)
        print(path)
    return 0


def _train(args: argparse.Namespace) -> int:
    if not args.output:
        _print_model()
        return 0
    output = Path(args.output)
    if output.suffix.lower() != ".onnx":
        raise VisionError(f"--output {args.output}: the cell model is written as an .onnx file")
    if not output.parent.is_dir():
        raise VisionError(f"--output {args.output}: folder {output.parent} does not exist")
    for name in ("boards", "epochs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise VisionError(f"--{name} {value}: give a whole number of 1 or more")
    try:
        import torch  # noqa: F401
    except ImportError:
        raise VisionError(
            "vision train needs PyTorch, which the box itself does not need: "
            ".venv/bin/pip install -e '.[train]' (make vision-model installs it)"
        ) from None
    from companion.vision import learn

    kwargs = {k: getattr(args, k) for k in ("boards", "epochs") if getattr(args, k) is not None}
    learn.train(output=output, **kwargs)
    return 0


def _print_model() -> None:
    """Print the cell model the reader uses as one JSON object: its recipe, with ``file`` (the
    model's path) and ``calibration`` (each profile's calibration to the user's set read with,
    a path, or null); each calibration in use is said on standard error too."""
    from companion.textformats import loads_json
    from companion.vision import cellnet

    out: dict = {}
    recipe = cellnet.SHIPPED_RECIPE
    try:
        data = loads_json(recipe.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = None
        print(f"companion vision train: no recipe file {recipe}", file=sys.stderr)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise VisionError(f"cell model recipe {recipe}: cannot be read ({exc})") from None
    if isinstance(data, dict):
        out.update(data)
    elif data is not None:
        out["recipe"] = data
    out["file"] = str(cellnet.SHIPPED_MODEL)
    out["calibration"] = {}
    for name in PROFILE_NAMES:
        used = _calibration_used(name)
        out["calibration"][name] = str(used) if used is not None else None
        if used is not None:
            note = _calibration_note(name).replace("read with", f"{name} boards are read with", 1)
            print(f"companion vision train: {note}", file=sys.stderr)
    print(json.dumps(out, indent=2))


def _given(args: argparse.Namespace, *options: str) -> list[str]:
    """Which of ``options`` (``photos``, ``--print-layout``, ``--add``, ``--truth``,
    ``--corners``) the calibrate command line gives, in that order, as a message names them."""
    said = {
        "photos": (f"photos ({', '.join(args.images)})", bool(args.images)),
        "--print-layout": ("--print-layout", args.print_layout is not None),
        "--add": ("--add", args.add),
        "--truth": ("--truth", args.truth is not None),
        "--corners": ("--corners", args.corners is not None),
    }
    return [said[o][0] for o in options if said[o][1]]


def _calibrate(args: argparse.Namespace) -> int:
    from companion.vision.calibrate import (
        calibrate,
        default_layout,
        layout_picture,
        reset_calibration,
    )
    from companion.vision.cellnet import load_cellnet, read_head
    from companion.vision.notation import format_board
    from companion.vision.profiles import get_profile

    profile = get_profile(args.profile)
    if args.reset:
        given = _given(args, "photos", "--print-layout", "--add", "--truth", "--corners")
        if given:
            raise VisionError(
                f"calibrate --reset takes no {', '.join(given)}: it only removes the "
                f"{profile.name} calibration (reset first, then calibrate)"
            )
        removed = reset_calibration(profile)
        if removed is None:
            print(f"calibrate: no calibration for {profile.name} to remove")
        else:
            print(f"calibrate: removed the {profile.name} calibration {removed}")
        return 0
    if args.print_layout is not None:
        given = _given(args, "photos", "--add", "--corners")
        if given:
            raise VisionError(
                f"calibrate --print-layout takes no {', '.join(given)}: print the layout first "
                "(--print-layout, with --truth for a layout of your own), lay the tiles out as "
                "it shows and photograph them, then calibrate with the photos"
            )
    if args.print_layout is not None and args.print_layout != "-":
        _check_image_path(args.print_layout, "--print-layout")
    if args.truth:
        layout = board_argument("--truth", args.truth, profile.size)
    else:
        layout = default_layout(profile)
    if args.print_layout is None and not args.images:
        raise VisionError(
            "calibrate: give one or more photos of the layout (one or two are enough), or "
            "--print-layout to see the layout"
        )
    if args.print_layout is not None:
        if args.print_layout != "-":
            _write_image(args.print_layout, layout_picture(layout), "--print-layout")
        print("\n".join(layout))
        print(format_board(layout))
        return 0
    corners = parse_corners(args.corners) if args.corners is not None else None
    photos = [load_image(p) for p in args.images]
    if args.add:
        earlier, why = read_head(profile.name, load_cellnet())
        if earlier is None:
            print(
                f"calibrate --add: no earlier {profile.name} calibration to add to "
                f"({why or 'none was made'}); calibrating from the shipped model",
                file=sys.stderr,
            )
    result = calibrate(
        photos, profile, layout, corners, replace=not args.add, names=list(args.images)
    )
    print(
        json.dumps(
            {
                "samples": result.samples,
                "missing": [list(c) for c in result.missing],
                "right_before": result.right_before,
                "right_after": result.right_after,
                "consistent": round(result.consistent, 3),
                "file": str(result.path),
            }
        )
    )
    if result.missing:
        print(
            f"calibrate: before calibrating, no tile was seen at {len(result.missing)} layout "
            "cells",
            file=sys.stderr,
        )
    if result.right_before < 0.5 * result.samples:
        print(
            f"calibrate: before calibrating, the reader named only {result.right_before} of "
            f"{result.samples} cells as the layout says; expected if your tiles' letters are in "
            "an unusual font, otherwise check that the tiles are in the layout's order "
            f"('companion vision calibrate{_profile_option(profile.name)} --reset' undoes this "
            "calibration)",
            file=sys.stderr,
        )
    return 0


def _markers(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from companion.vision.localise import ARUCO_DICT, MARKER_IDS

    if not 40 <= args.pixels <= 4000:
        raise VisionError(f"--pixels {args.pixels}: expected 40 to 4000")
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    px, gap = args.pixels, args.pixels // 3
    sheet = np.full((2 * px + 3 * gap, 2 * px + 3 * gap), 255, np.uint8)
    for k, (r, c) in enumerate(((0, 0), (0, 1), (1, 1), (1, 0))):
        marker = cv2.aruco.generateImageMarker(dictionary, MARKER_IDS[k], px, borderBits=1)
        y, x = gap + r * (px + gap), gap + c * (px + gap)
        sheet[y : y + px, x : x + px] = marker
        cv2.putText(sheet, str(k), (x, y - 8), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 2)
    _write_image(args.output, sheet, "markers")
    print(args.output)
    return 0
