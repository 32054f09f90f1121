"""What the table service draws over a game mode's frame: the camera's messages and the faults.

The board camera (docs/vision.md, "At the table") speaks to the players without touching the
clock: a *banner* for a few seconds (a move read from the board that may break a rule, the colour
count asked for) and a *strip* on the bottom line while the camera is unavailable. The mode's frame
is drawn first and these over it, so no game mode needs to know about the camera.

The service's own faults (docs/daemon.md, "Faults": ``NOT SAVING: storage``, ``TIMER HEAD
DISCONNECTED``, ``SERVO FAILING``...) take the bottom line on every screen while they last
(:func:`draw_strip` with their words), and one-off notices (``JUDGING...``, a press refused, a
damaged journal) are banners.

Everything here is pure: texts from plain data, and frames ``frame(draw, width, height)`` as the
modes draw them (``companion.daemon.screen``; 128 x 64 pixels, mode "1", 255 lit).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.daemon import screen

BANNER_SECONDS = 5.0  # how long a banner stays up, unless an input that makes an event comes first
STRIP_TEXT = "CAMERA UNAVAILABLE"
# the view statuses whose bottom line is only the lexicon's name or a notice: the strip goes there
# (paused, challenge and verdict screens keep their own bottom line)
STRIP_STATUSES = ("ready", "running", "challenge:words")


@dataclass(frozen=True)
class Banner:
    """A message over the middle of the screen: ``title`` in a lit box, ``detail`` under it."""

    title: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.title} {self.detail}".strip()


def warning_banner(mover: str, codes) -> Banner:
    """``ILLEGAL MOVE?`` and ``BLUE: disconnected, no-lead``: the move ``mover`` (``blue`` or
    ``red``) just completed, as the camera read it, breaks the rules named by ``codes`` (the
    violation codes of DESIGN.md, ``companion.games.iago.move.CODES``). A question, not a ruling:
    the players decide (issue 5, "At the table")."""
    return Banner("ILLEGAL MOVE?", f"{mover.upper()}: {', '.join(codes)}")


def lead_text(blue: int, red: int) -> str:
    """Who has the lead (Iago rulebook, "The Move" (2): "at least one more letter of your colour
    on the board than of your opponent's colour"): ``BLUE LEADS BY 3``, or ``NO LEAD (LEVEL)``."""
    if blue == red:
        return "NO LEAD (LEVEL)"
    leader = "BLUE" if blue > red else "RED"
    return f"{leader} LEADS BY {abs(blue - red)}"


def count_banner(counts: dict[str, int]) -> Banner:
    """``BLUE 12  RED 9`` and ``BLUE LEADS BY 3`` from ``{"blue": n, "red": n}`` (tiles showing
    each colour)."""
    blue, red = int(counts["blue"]), int(counts["red"])
    return Banner(f"BLUE {blue}  RED {red}", lead_text(blue, red))


def unavailable_banner(what: str = "no count") -> Banner:
    """``CAMERA UNAVAILABLE`` and what could not be done (``no count``); the clock runs on."""
    return Banner(STRIP_TEXT, f"{what}; the clock runs on")


# why the camera's reading was not sure enough to count, in a player's words: a phrase of the
# reader's problem (companion.vision.trust) and what the banner says of it
NO_COUNT_REASONS = (
    ("no colour", "camera sees no colour"),
    ("too dark", "board too dark to read"),
    ("glare", "glare on the board"),
    ("too soft", "photo out of focus"),
    # a tile laid this move read in the other player's colour (vision.table.laid_text): misread,
    # or laid the wrong way up; the players look
    ("laid this move", "look at new tiles"),
)


def no_count_banner(why: str | None) -> Banner:
    """``NO COUNT`` and why, when the camera works but its reading of the board is not sure
    enough to count (``why``: the reader's problems, ``camera unsure of the board: ...``): the
    photo's own fault when it is one a player can mend (no colour, too dark, glare, out of
    focus), a tile of the move in the other player's colour (the players look at the new
    tiles), else ``board not read: try again`` (a hand over the board, a tile in doubt)."""
    for phrase, detail in NO_COUNT_REASONS:
        if phrase in (why or ""):
            return Banner("NO COUNT", detail)
    return Banner("NO COUNT", "board not read: try again")


BANNER_BOX = (0, 12, 127, 52)  # pixels (left, top, right, bottom): below the names, above the foot
STRIP_TOP = 52  # the strip covers the bottom line, rows 52-63 of a 64-row screen


def draw_banner(draw, width: int, height: int, banner: Banner, turn: int = 0) -> None:
    """Draw ``banner`` over the middle of the frame (between the header and the bottom line): the
    title in a lit box of two lines (``TIMER HEAD`` / ``DISCONNECTED`` on a 128-pixel screen), the
    detail on the line under it, each in turns when it is longer (``turn``:
    :func:`companion.daemon.screen.turn_at`). Every letter is at least screen.MIN_TEXT_PX high."""
    left, top, right, bottom = BANNER_BOX
    right, bottom = width - 1, min(bottom, height - 1)
    draw.rectangle((left, top, right, bottom), fill=0, outline=screen.LIT)
    if banner.detail:
        screen.inverted(draw, (left + 1, top + 1, right - 1, top + 25), banner.title, 16, turn)
        box = (left + 2, top + 26, right - 2, bottom - 1)
        screen.fitted(draw, box, banner.detail, 14, bold=False, turn=turn)
    else:
        screen.inverted(draw, (left + 1, top + 1, right - 1, bottom - 1), banner.title, 18, turn)


def strip_box(width: int, height: int) -> tuple[int, int, int, int]:
    """The bottom line's box in pixels (left, top, right, bottom): rows 52-63 of 64."""
    return (0, height - (64 - STRIP_TOP), width - 1, height - 1)


def draw_strip(draw, width: int, height: int, text: str = STRIP_TEXT, turn: int = 0) -> None:
    """``text`` (default ``CAMERA UNAVAILABLE``) in a lit box on the bottom line, at least
    screen.MIN_TEXT_PX high: in turns on a narrow screen (``turn``)."""
    screen.inverted(draw, strip_box(width, height), text, turn=turn)


def over(frame, banner: Banner | None, strip: bool | str, turn: int = 0):
    """The frame ``frame`` with ``banner`` (if any) and a strip on top: the camera's (``strip``
    True) or a fault's words (``strip`` a text); ``turn`` picks the part of a text too long for
    its line."""

    def drawn(draw, width, height):
        frame(draw, width, height)
        if strip:
            draw_strip(draw, width, height, strip if isinstance(strip, str) else STRIP_TEXT, turn)
        if banner is not None:
            draw_banner(draw, width, height, banner, turn)

    return drawn
