"""``companion sim``: the table on simulated hardware, in a terminal or from a script.

Interactive (a terminal): keys press the buttons through gpiozero's mock pins, exactly as the
Pi's buttons do, and the screen shows the OLED frame as it is drawn, the disc's angle, the LEDs
and the buzzer. Keys: ``b`` blue's button, ``r`` red's, ``c`` the challenge button, ``p`` the
arbiter's pause/resume, ``o`` override the verdict shown, Enter confirm a verdict, ``n`` the
colour count from the camera (Iago), ``q`` quit.
When the screen asks for typed text (the challenged words), keys type it; Enter sends the line
(an empty line confirms), Esc clears it; F1, F2, F3 press the buttons, F4 pauses and F9 abandons
the game meanwhile (shown on the key line); F10 quits. Each game has its own journal
(data_dir()/sim/GAME-journal.jsonl): ``--game iota`` resumes the Iota game in progress, never
another game's, and the screen says whether the game is new or resumed.

Scripted (``--script FILE``, or standard input when it is not a terminal): one action a line,
``TIME ACTION [ARGS]``, TIME in seconds from the start on a simulated clock (never backwards):

    0 press red           # press blue / red / challenge (the mock pin goes low, then high)
    12.5 press blue
    20 type QI ZA         # a typed line (the challenged words)
    21 pause              # pause, resume, override, confirm, cancel, new, abandon (asks:
                          # abandon again, or confirm, does it)
    22 count              # the colour count from the camera (Iago; the clock is not touched)
    30 state              # print the state as one JSON line
    31 frame              # print the OLED frame as text
    40 kill               # the power goes: the service dies without a word
    95 restart            # it starts again on the same journal (the down time is not charged)

The real table service runs on mock pins; the final state is printed at the end.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import sys
import textwrap
import time
from dataclasses import asdict
from pathlib import Path

from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig, load_table
from companion.daemon.screen import text_shape, to_text
from companion.daemon.service import TableService
from companion.devices.pinmap import load_pinmap
from companion.errors import CompanionError
from companion.names import is_safe_name, path_in
from companion.paths import data_dir
from companion.textformats import loads_json, shown

ACTIONS = ("press", "type", "state", "frame", "kill", "restart", "sleep")
ACTIONS += ("pause", "resume", "override", "confirm", "cancel", "new", "abandon", "count")
PRESS_SECONDS = 0.08  # how long a simulated press holds the pin low
TAP_SECONDS = 0.01  # a scripted press: the contact closed this long (glitch filter: 2 ms)
MAX_SCRIPT_SECONDS = 10_000_000.0  # the latest time a script may name (about 115 days)
_TIME = re.compile(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", re.ASCII)  # seconds, ASCII digits only
START = 1000.0  # the fake monotonic clock's reading at script time 0


class SimScriptError(CompanionError, ValueError):
    """A script line that is not an action; the message names every bad line."""


def sim_journal(scripted: bool, game: str = "iago") -> Path:
    """The simulator's own journal (never the table service's), in data_dir()/sim/: one per game
    for the terminal (``iota-journal.jsonl``: each game resumes its own game in progress), and
    ``script-journal.jsonl`` for scripts."""
    if scripted:
        return data_dir() / "sim" / "script-journal.jsonl"
    return path_in(data_dir() / "sim", game, "-journal.jsonl", "game mode")


def sim_records_dir() -> Path:
    """data_dir()/sim/records: where the games of scripted runs (``companion sim --script``) are
    saved, apart from the real games of data_dir()/records."""
    return data_dir() / "sim" / "records"


def adopt_old_journal() -> Path | None:
    """Give the single journal of earlier versions (data_dir()/sim/journal.jsonl) to its game:
    renamed to that game's journal unless it has one already. Returns the new path, or None."""
    old = data_dir() / "sim" / "journal.jsonl"
    if not old.exists():
        return None
    try:  # only its header matters here (earlier versions did not check sequence numbers)
        with open(old, encoding="utf-8") as f:
            header = loads_json(f.readline())
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    ok = isinstance(header, dict) and header.get("kind") == "_game"
    game = header.get("mode") if ok else None
    if not is_safe_name(game):
        return None
    target = sim_journal(False, game)
    if target.exists():
        return None
    old.replace(target)
    return target


CLOCK_SETTINGS = {"iago": ("minutes", "minute_seconds"), "scrabble": ("minutes",)}
"""The set-up's keys each game's clock uses (Iota and Wordinoes have no clock)."""


def _clock_text(table: TableConfig, keys: tuple[str, ...]) -> str:
    """``5 min, 60 s minute`` (Iago) or ``25 min`` (the crossword game)."""
    parts = [f"{table.minutes} min"]
    if "minute_seconds" in keys:
        parts.append(f"{table.minute_seconds:g} s minute")
    return ", ".join(parts)


def game_notice(service: TableService, game: str, asked: TableConfig | None = None) -> str:
    """What the simulator says about the game it opened: a new one, or the one in progress of
    that game resumed from its journal; then it keeps its own time control, and where
    ``asked`` (the set-up with the options given) has another, it says so rather than ignore
    the options unsaid (a newcomer's ``--minutes 1`` resumed a 5-minute game)."""
    events = [r for r in service.journal.records if not str(r.get("kind", "")).startswith("_")]
    where = service.journal_file
    if events and not service.mode.finished:
        text = (
            f"{game}: your {game} game in progress was resumed (journal {where}); "
            "A (F9 while typing) abandons it for a new game"
        )
        kept = service.mode.context.table
        clock = CLOCK_SETTINGS.get(service.mode.name, ())  # what the game's clock uses
        if asked is not None and any(getattr(asked, k) != getattr(kept, k) for k in clock):
            text += (
                f"; it keeps its own time ({_clock_text(kept, clock)}): "
                f"{_clock_text(asked, clock)} is for the next game"
            )
        return text
    return f"{game}: a new game (journal {where})"


def notice_now(service: TableService, notice: str, game_id: str | None) -> str:
    """``notice`` (:func:`game_notice`, said of the game ``game_id``) while that game is still
    the service's, else "": once it is abandoned, or a new one follows its end, "your game in
    progress was resumed" would speak of a game that is no longer on the table."""
    return notice if service._game_id() == game_id else ""


def parse_sim_script(lines: list[str], name: str = "script") -> list[tuple[float, str, list[str]]]:
    """Parse a script into ``(time, action, args)``; every bad line reported at once.

    Raises:
        SimScriptError: ``name:LINE: problem`` for each bad line.
    """
    out, errors, last = [], [], 0.0
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}:{n}"
        try:
            parts = shlex.split(line)
        except ValueError as exc:
            errors.append(f"{where}: {exc} (quotes must be closed)")
            continue
        if not parts:
            continue
        t = float(parts[0]) if _TIME.fullmatch(parts[0]) else None
        if t is None or t > MAX_SCRIPT_SECONDS:
            errors.append(
                f"{where}: {shown(parts[0], 40)} is not a time; accepted: seconds, a finite "
                f"number 0 or more (at most {MAX_SCRIPT_SECONDS:.0f}) in the digits 0-9 with an "
                "optional '.', e.g. 12.5"
            )
            continue
        if len(parts) < 2 or parts[1] not in ACTIONS:
            got = shown(parts[1], 40) if len(parts) > 1 else "nothing"
            errors.append(f"{where}: action {got}; accepted: {', '.join(ACTIONS)}")
            continue
        action, args = parts[1], parts[2:]
        if action == "press" and (len(args) != 1 or args[0] not in ("blue", "red", "challenge")):
            errors.append(
                f"{where}: press {shown(' '.join(args), 40)}; accepted: blue, red, challenge"
            )
            continue
        if action == "type" and not args:
            errors.append(f"{where}: type needs the text to type")
            continue
        if t < last:
            errors.append(f"{where}: time {t} goes backwards (last {last}); times must increase")
            continue
        last = t
        out.append((t, action, args))
    if errors:
        raise SimScriptError("\n".join(errors))
    return out


class FrameSaver:
    """Saves every OLED frame the service shows as a PNG (``companion sim --frames DIR``).

    Files are ``DIR/NNNNN-T.png``: the frame's number from 1 and the time in seconds when it was
    shown (``00007-12.500s.png``): the script's time with ``--script``, else the game's. Mode "1"
    at the display's size, or enlarged ``scale`` times with the pixels kept square (nearest
    neighbour) for documentation.

    Raises:
        SimScriptError: ``DIR`` cannot be made or ``scale`` is not 1 to 8.
    """

    def __init__(self, folder, scale: int = 1) -> None:
        if not 1 <= int(scale) <= 8:
            raise SimScriptError(f"--frames-scale {scale}: accepted a whole number from 1 to 8")
        self.folder = Path(folder)
        self.scale = int(scale)
        self.count = 0
        self.time = None  # a function giving the game time (the service's), set when it starts
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SimScriptError(
                f"--frames {folder}: cannot make the folder ({exc.strerror})"
            ) from None

    def __call__(self, image, inputs=None) -> None:
        """Save ``image`` (called by the service's display worker for every frame shown)."""
        from PIL import Image

        self.count += 1
        t = self.time() if self.time is not None else 0.0
        if self.scale > 1:
            size = (image.width * self.scale, image.height * self.scale)
            image = image.resize(size, Image.Resampling.NEAREST)
        image.save(self.folder / f"{self.count:05d}-{t:.3f}s.png")


class FakeClock:
    """A monotonic clock that only moves when told (seconds)."""

    def __init__(self, t: float = START) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def set(self, t: float) -> None:
        """Move to ``t`` (never backwards)."""
        self.t = max(self.t, t)


class ScriptService(TableService):
    """The table service as a script drives it on the fake clock (:class:`ScriptedTable`).

    Between the script's actions it wakes at every instant the game's state can change by
    itself (the clock's deadlines, heartbeats, a banner's end, a retry), each exactly, but not at
    the turns of the picture alone (a text too long for its line shown in turns of 3 s, the sand
    bar's next pixel): the picture is a function of the game time, drawn as it is at the next
    wake. A gap with no clock running (a finished game, a paused one, the ready screen) then
    costs a few steps whatever its length, where each 3 s of it cost a frame drawn.

    ``every_picture`` wakes at every turn too, as the service on the Pi does: with
    ``--frames`` (every frame shown is saved) and with the virtual timer head (its link's news
    arrive between wakes, and the wake that takes them decides when their words go up).
    """

    every_picture = False

    def next_wake(self, pictures: bool | None = None) -> float | None:
        """The next game time to wake at without an input (see the class), or None."""
        return super().next_wake(self.every_picture if pictures is None else pictures)


class ScriptedTable:
    """The real table service on mock pins and a fake clock, driven action by action.

    Args:
        table: the set-up of a new game.
        judge: the word judge (default: the table's lexicon).
        journal_file: default data_dir()/sim/script-journal.jsonl, emptied first unless
            ``resume``.
        service_options: more arguments of the :class:`TableService` (tests stage faults
            with ``journal_io``; ``inline_outputs=False`` drives the devices from their own
            threads, as the real service does).
    """

    def __init__(
        self,
        table: TableConfig,
        judge=None,
        journal_file: Path | None = None,
        resume: bool = False,
        pinmap=None,
        head: str | None = None,
        frames: FrameSaver | None = None,
        **service_options,
    ) -> None:
        from companion.devices.backends import open_devices

        # more TableService arguments (journal_io...); a scripted game's records are kept apart
        # from the table's real games (data_dir()/records), in data_dir()/sim/records
        self.service_options = {"records_path": sim_records_dir(), **service_options}
        self.clock = FakeClock()
        self.table = table
        self.judge = judge
        self.frames = frames
        if isinstance(pinmap, str | Path):
            pinmap = load_pinmap(pinmap, backend="mock")
        self.pinmap = pinmap or load_pinmap(backend="mock")
        self.journal_file = journal_file or sim_journal(scripted=True)
        if not resume and self.journal_file.exists():
            self.journal_file.unlink()
        if head == "virtual":  # the timer head's firmware code over its serial link
            from companion.devices.head.sim import open_scripted

            self.clock, self.devices = open_scripted(self.pinmap, START)  # type: ignore[assignment]
        else:
            self.devices = open_devices(self.pinmap, clock=self.clock, backend="mock")
        self.head = head
        self.service: TableService | None = None
        self.start_service()

    def start_service(self) -> None:
        """Start (or restart) the service on the journal."""
        options = {"inline_outputs": True, "fsync": False, **self.service_options}
        self.service = ScriptService(
            self.devices,
            self.pinmap,
            table=self.table,
            judge=self.judge,
            clock=self.clock,
            journal_file=self.journal_file,
            on_frame=self.frames,
            **options,
        )
        self.service.every_picture = self.frames is not None or self.head == "virtual"
        if self.frames is not None:  # named by the script's time (a restart shifts game time)
            self.frames.time = lambda: self.clock() - START
        self.service.step()

    def at(self, t: float) -> None:
        """Let the simulated time run to script time ``t`` (every deadline on its instant)."""
        if self.service is None:
            self.clock.set(START + t)
            return
        self.service.run_until(START + t, self.clock.set)

    def press(self, role: str) -> None:
        """Press and release ``role``'s button through its mock pin: the contact stays closed
        :data:`TAP_SECONDS` as far as the buttons' filter can tell (the script's clock does not
        move; the filter's checks are run as if it had)."""
        pin = self.devices.pins[f"buttons.{role}"]
        factory = self.devices.extra.get("pin_factory")
        if factory is not None:
            factory.tap(pin, TAP_SECONDS)
        else:  # the virtual head's pins hold themselves
            pin.drive_low()
            pin.drive_high()

    def settle(self) -> None:
        """Handle what is queued; with a camera, wait for its readings first (their answers,
        a typed line of words, a warning, a count, go on the queue), and for the judge ruling on
        its worker, so a script's result never depends on how fast those threads are."""
        svc = self.service
        if svc is None:
            return

        def step() -> None:
            svc.step()
            while svc.judging and svc.wait_decided(600):
                svc.step()

        step()
        if svc.camera_watcher is not None:
            svc.camera_watcher.wait()
            step()
            svc.camera_watcher.wait()  # the words' line may have queued another reading
            step()

    def kill(self) -> None:
        """The service dies at once: no last record, its devices' state as it was."""
        if self.service is not None:
            self.service.journal.close(flush=False)  # what waits in memory dies with it
            self.service.lock.release()  # the kernel lets a dead process's lock go
            self.devices.buttons.on_press(None)
            self.service = None

    def state(self) -> dict:
        """The mode's state and what the table shows, as JSON-ready data."""
        if self.service is None:
            return {"t": self.clock() - START, "service": "down"}
        svc = self.service
        g = svc.game_time()
        pub = asdict(svc.published)
        return {"t": round(self.clock() - START, 6), **svc.mode.state(g), "table": pub}

    def run(self, actions, out=None) -> dict:
        """Perform the script's actions; prints what ``state``/``frame`` ask for (to ``out``,
        default standard output)."""
        out = out if out is not None else sys.stdout
        printed = None  # the state the last action printed, if nothing happened since
        for t, action, args in actions:
            self.at(t)
            printed = None
            if action in ("sleep",):
                continue
            if action == "press":
                if self.service is not None:
                    self.press(args[0])
            elif action == "type":
                if self.service is not None:
                    self.service.line(" ".join(args))
            elif action == "state":
                printed = self.state()
                print(json.dumps(printed, ensure_ascii=False), file=out)
                continue
            elif action == "frame":
                image = self.devices.display.image
                if image is not None:
                    print("\n".join(to_text(image, "ascii")), file=out)
                continue
            elif action == "kill":
                self.kill()
                continue
            elif action == "count":
                if self.service is not None:
                    self.service.count()
            elif action == "restart":
                if self.service is None:
                    self.start_service()
                continue
            elif self.service is not None:
                self.service.command(action)
            if self.service is not None:
                self.settle()
        final = self.state()
        if final != printed:  # a script ending on "state" has printed it already: once
            print(json.dumps(final, ensure_ascii=False), file=out)
        return final


def run_script(
    lines: list[str], name: str, table: TableConfig, judge=None, head=None, frames=None, pinmap=None
) -> int:
    """Run a simulator script; returns the exit code. ``head="virtual"``: through the timer head;
    ``frames`` a :class:`FrameSaver` (``--frames DIR``); ``pinmap`` a pin map file's path."""
    actions = parse_sim_script(lines, name)
    if judge is None:  # the script's clock does not wait: the lexicon is open before it starts
        from companion.daemon.challenge import lexicon_judge

        judge = lexicon_judge(table.lexicon or None)
        judge.wait(600)
    ScriptedTable(table, judge, head=head, frames=frames, pinmap=pinmap).run(actions)
    return 0


# --- the interactive simulator ------------------------------------------------------------------


def pick_style(cols: int, rows: int, utf8: bool, width: int = 128, height: int = 64) -> str:
    """The most detailed rendering of the frame that fits ``cols`` x ``rows`` (leaving 9 rows
    for the status lines)."""
    if not utf8:
        return "ascii"
    for style in ("half", "quadrant", "braille"):
        c, r = text_shape(style, width, height)
        if c + 2 <= cols and r + 11 <= rows:
            return style
    return "braille"


def run_interactive(
    table: TableConfig, style: str | None = None, judge=None, head=None, frames=None, pinmap=None
) -> int:
    """The terminal simulator (curses). Returns the exit code. ``frames``: a :class:`FrameSaver`
    (``--frames DIR``); ``pinmap``: a pin map file's path (its display's size)."""
    import curses
    import locale
    import threading

    from companion.devices.backends import open_devices

    with contextlib.suppress(locale.Error):  # a LANG naming a locale not installed
        locale.setlocale(locale.LC_ALL, "")
    utf8 = "utf" in (locale.getpreferredencoding(False) or "").lower()
    pinmap = load_pinmap(pinmap, backend="mock") if pinmap else load_pinmap(backend="mock")
    if judge is None:
        from companion.daemon.challenge import lexicon_judge

        print("Opening the lexicon...", file=sys.stderr, flush=True)
        judge = lexicon_judge(table.lexicon or None)
        judge.wait(120)
    if head == "virtual":  # the timer head's firmware code on a pseudo-terminal, via pyserial
        from companion.devices.head.sim import open_realtime

        devices = open_realtime(pinmap)
    else:
        devices = open_devices(pinmap, backend="mock")
    adopt_old_journal()
    service = TableService(
        devices,
        pinmap,
        table=table,
        judge=judge,
        journal_file=sim_journal(False, table.game),
        on_frame=frames,
    )
    if frames is not None:
        frames.time = service.game_time
    notice = game_notice(service, table.game, table)
    noticed = service._game_id()  # the game the notice speaks of
    thread = threading.Thread(target=service.run, name="clock", daemon=True)
    thread.start()
    releases: list[tuple[float, object]] = []
    buffer: list[str] = []

    def press(role: str) -> None:
        pin = devices.pins[f"buttons.{role}"]
        pin.drive_low()
        releases.append((time.monotonic() + PRESS_SECONDS, pin))

    def ui(stdscr) -> None:
        curses.curs_set(0)
        stdscr.timeout(50)  # the screen's refresh; the clock itself sleeps on its deadlines
        while True:
            now = time.monotonic()
            for item in [r for r in releases if r[0] <= now]:
                item[1].drive_high()
                releases.remove(item)
            pub = service.published
            draw(stdscr, pub)
            try:
                key = stdscr.get_wch()
            except curses.error:
                continue
            if key == curses.KEY_F10:
                return
            if handle_always(key, pub):
                continue
            if pub.prompt is not None:
                if key in ("\n", "\r", curses.KEY_ENTER):
                    if buffer:
                        service.line("".join(buffer))
                        buffer.clear()
                    else:
                        service.command("confirm")
                elif key in ("\x1b",):
                    buffer.clear()
                elif key in (curses.KEY_BACKSPACE, "\x7f", "\b"):
                    if buffer:
                        buffer.pop()
                elif isinstance(key, str) and key.isprintable() and len(buffer) < 60:
                    buffer.append(key)
                continue
            if key in ("q", "Q"):
                return
            if key in ("b", "B"):
                press("blue")
            elif key in ("r", "R"):
                press("red")
            elif key in ("c", "C"):
                press("challenge")
            elif key in ("p", "P", " "):
                pause_or_resume(pub)
            elif key in ("o", "O"):
                service.command("override")
            elif key in ("x", "X"):
                service.command("cancel")
            elif key in ("n", "N"):
                service.count()
            elif key == "A":
                service.command("abandon")
            elif key in ("\n", "\r", curses.KEY_ENTER):
                service.command("confirm")

    def pause_or_resume(pub) -> None:
        service.command("resume" if pub.status.startswith("paused") else "pause")

    def handle_always(key, pub) -> bool:
        """Function keys work while typing too: F1 blue, F2 red, F3 challenge, F4 pause, F9
        abandon."""
        roles = {curses.KEY_F1: "blue", curses.KEY_F2: "red", curses.KEY_F3: "challenge"}
        if key in roles:
            press(roles[key])
            return True
        if key == curses.KEY_F4:
            pause_or_resume(pub)
            return True
        if key == curses.KEY_F9:
            service.command("abandon")
            return True
        return False

    def draw(stdscr, pub) -> None:
        nonlocal notice
        rows, cols = stdscr.getmaxyx()
        size = (pinmap.display.width, pinmap.display.height)
        kind = style or pick_style(cols, rows, utf8, *size)
        stdscr.erase()

        def put(y: int, x: int, text: str, attr: int = 0) -> None:
            if 0 <= y < rows and x < cols:
                with contextlib.suppress(curses.error):
                    stdscr.addstr(y, x, text[: max(0, cols - x - 1)], attr)

        small = too_small(cols, rows, kind, *size)
        if small:
            for y, text in enumerate(textwrap.wrap(small, max(10, cols - 1))):
                put(y, 0, text, curses.A_BOLD)
            stdscr.refresh()
            return
        image = devices.display.image
        lines = to_text(image, kind) if image is not None else []
        width = len(lines[0]) if lines else 0
        put(0, 0, "+" + "-" * width + "+")
        for i, line in enumerate(lines):
            put(1 + i, 0, "|" + line + "|")
        y = len(lines) + 2
        put(y - 1, 0, "+" + "-" * width + "+")
        sounding = getattr(devices.sounder, "is_sounding", False)
        notice = notice_now(service, notice, noticed)
        lines = status_lines(pub, "".join(buffer), sounding, cols, notice, table.game)
        for text, bold in lines:
            put(y, 0, text, curses.A_BOLD if bold else 0)
            y += 1
        stdscr.refresh()

    try:
        curses.wrapper(ui)
    finally:
        service.stop()
        thread.join(2.0)
        devices.close()
    return 0


def plural(count: int, word: str) -> str:
    """``1 beep``, ``2 beeps``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def key_help(typing: bool, game: str = "iago", finished: bool = False) -> list[str]:
    """The key lines under the frame, for ``game`` (its mode's name). While the screen asks
    for typed text every letter types, so the function keys are shown: they press the buttons,
    pause and quit meanwhile. A finished game shows what starts the next one; only Iago's
    running screen shows Iago's own keys (override a verdict, count the colours)."""
    if typing:
        return [
            "Enter send (empty: confirm)  Esc clear  Backspace delete",
            "F1 blue  F2 red  F3 challenge  F4 pause/resume  F9 abandon  F10 quit",
        ]
    if finished:
        return ["c (the challenge button) a new game  q quit"]
    if game != "iago":
        return ["b blue  r red  c challenge  Enter confirm  A abandon (asks; record kept)  q quit"]
    return [
        "b blue  r red  c challenge  p pause/resume  o override  Enter confirm  q quit",
        "x call off a challenge  n count the colours (camera)  A abandon (asks; record kept)",
    ]


def status_lines(
    pub, typed: str, sounding: bool, cols: int, notice: str = "", game: str = "iago"
) -> list[tuple]:
    """The lines under the frame, each wrapped to ``cols`` - 1 columns: ``(text, bold)`` pairs.

    Args:
        pub: the service's :class:`~companion.daemon.service.Published`.
        typed: the line being typed.
        sounding: the buzzer sounds now.
        cols: the terminal's width in columns.
        notice: what the simulator says about the game (new or resumed).
        game: the game mode's name (its keys are shown).
    """
    lit = {k: ("(*)" if v else "( )") for k, v in pub.lights.items()}
    angle = "-" if pub.disc_angle is None else f"{pub.disc_angle:+.0f} deg"
    buzz = "BEEP!" if sounding else "quiet"
    items = [
        (
            f"LED blue {lit.get('blue', '( )')}  LED red {lit.get('red', '( )')}  "
            f"disc {angle}  buzzer {buzz} ({plural(pub.beeps, 'beep')})  [{pub.status}]",
            False,
        )
    ]
    if pub.prompt is not None:
        items += [(pub.prompt + ":", True), ("> " + typed + "_", False)]
    finished = pub.status == "finished"
    items += [(text, False) for text in key_help(pub.prompt is not None, game, finished)]
    camera = getattr(pub, "camera", "")  # the camera's problem while it gives no frame
    if camera and camera != pub.message:
        items.append((camera, True))
    items += [(text, False) for text in (pub.message, notice) if text]
    width = max(10, cols - 1)
    out = []
    for text, bold in items:
        out += [(part, bold) for part in textwrap.wrap(text, width) or [""]]
    return out


def too_small(cols: int, rows: int, style: str, width: int = 128, height: int = 64) -> str:
    """A message when the terminal cannot show the frame (``width`` x ``height`` pixels) in
    ``style`` and the key lines, else ``""``."""
    c, r = text_shape(style, width, height)
    need_cols, need_rows = c + 2, r + 2 + 6
    if cols >= need_cols and rows >= need_rows:
        return ""
    return (
        f"Terminal too small: {cols}x{rows}; the simulator needs at least {need_cols}x"
        f"{need_rows} (columns x rows). Enlarge the window; F10 quits."
    )


def load_sim_table(minutes: int | None, minute_seconds: float | None, game: str | None):
    """The table's set-up with the simulator's overrides applied (validated).

    Raises:
        TableConfigError: table.toml is bad, or an override is (named as typed: ``--game chess``).
    """
    from companion.daemon.config import SCRABBLE_MINUTES, updated

    table = load_table()
    if minutes is None and game == "scrabble" and table.game != "scrabble":
        minutes = SCRABBLE_MINUTES  # the crossword game's own time, unless told
    return updated(
        table,
        options=SIM_OPTIONS,
        minutes=minutes,
        minute_seconds=minute_seconds,
        game=game,
    )


SIM_OPTIONS = {"minutes": "--minutes", "minute_seconds": "--minute-seconds", "game": "--game"}
"""The ``[table]`` keys ``companion sim`` takes as options, by option."""


def words_judge(path: str):
    """A judge over a word list file (one word a line, UTF-8), for scripts and tests.

    Raises:
        SimScriptError: the file cannot be read or is not UTF-8 text.
    """
    from companion.cliutil import read_text

    text, _ = read_text(path, SimScriptError, "word list")
    return set_judge(text.split(), Path(path).stem)
