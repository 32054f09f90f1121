"""The table service: device events -> game mode (the clock) -> outputs, with a journal.

One thread (the *clock thread*, :meth:`TableService.run`) owns the game mode. Buttons (from
gpiozero's or a serial reader's thread), typed lines and arbiter commands are put on a queue,
stamped with the monotonic time at which they happened. The clock thread sleeps on that queue
until the next input or the next deadline (the minute running out, the bar's next pixel, a
heartbeat, a retry of a failing part), whichever comes first: it never polls. For each input the
mode decides the events, each is appended to the journal (synced) and only then applied. Outputs
go to worker threads (:mod:`companion.daemon.outputs`): the display renders the frame off the
clock path, and the servo, LEDs and buzzer each have their own, so a slow device delays nothing
else. An input whose decision may take long (a challenge's judge, which may open a lexicon or
build a cache) is decided on a worker thread while the OLED says ``JUDGING...``; the clock thread
goes on meanwhile and takes the inputs that follow in order once the ruling is in.

Game time is ``monotonic - offset``: it starts at 0 with the game and, after a restart, continues
from the last instant the journal proves the service was alive (a heartbeat every
``heartbeat_seconds`` while the clock runs, one at each minute that runs out, written before its
beep, and one at a clean stop), so the time the service was down is charged to no one and a minute
that ran out never comes back.

Faults are said, never swallowed (docs/daemon.md, "Faults"): storage that fails (the game goes
on in memory, the journal is written again as soon as the card allows), the timer head going
silent (the clock pauses at the last instant it was heard), a press stamped in the future or far
in the past, a servo, buzzer, LED or OLED failing. Each is on the OLED's bottom line while it
lasts (:data:`FAULT_WORDS`), in the service's log and in :meth:`TableService.health` (systemd's
status line).

Files: ``data_dir()/table/journal.jsonl`` is the game in progress (``journal.jsonl.lock`` names
the service holding it); a finished game's result and full record go to ``data_dir()/records/``
(``<stamp>-table<N>.json``) and the next game starts clean.
"""

from __future__ import annotations

import collections
import contextlib
import datetime as _dt
import json
import logging
import math
import os
import queue
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from companion.daemon import screen
from companion.daemon.challenge import JudgeFn
from companion.daemon.config import TableConfig, load_table, table_path, validate
from companion.daemon.journal import Journal, JournalError, JournalIO
from companion.daemon.modes import (
    Command,
    Effects,
    GameMode,
    Input,
    Line,
    ModeContext,
    NothingToDo,
    Press,
    ReplayError,
    View,
    mode_class,
    replay,
)
from companion.daemon.outputs import LatestWorker, QueueWorker
from companion.daemon.overlays import Banner
from companion.daemon.screen import render
from companion.daemon.tablelock import TableLock
from companion.devices.base import DeviceBundle
from companion.errors import CompanionError
from companion.paths import data_dir

log = logging.getLogger("companion.daemon")

SWITCH_INTERVAL = 0.001  # seconds (Python's default is 0.005)
CLOCK_NICE = -10  # the clock thread's niceness when the system allows it
FAILURE_BACKOFF = 0.1  # seconds: the least sleep after a step that raised
HEADER = "_game"
ALIVE = "_alive"
# a board the camera read when a move began: {"board": NOTATION, "trusted": bool}, and (Iago,
# since 2026-12-07) "player" and "move" (its number in the game, from 1), for the restart
BOARD = "_board"
RETRY_SECONDS = 1.0  # a failing journal, display, servo or LEDs is tried again this often
STORAGE_BEEP_SECONDS = 30.0  # while storage fails, its beep pattern sounds again this often
STORAGE_BEEPS = (3, 0.06, 0.06)  # the pattern: 3 quick beeps (count, on, off seconds)
PRESS_FUTURE_SECONDS = 0.05  # a press stamped later than now by more than this is said
PRESS_MAX_AGE = 2.5  # seconds: a press stamped further back than this when it arrives is refused
# seconds: how far back of the journal's latest record an input may be journaled. An input counts
# at the instant it was made (a press at its stamp, the clock paused at the instant the timer head
# was last heard), after heartbeats or a camera's board were journaled meanwhile: a press is
# refused past PRESS_MAX_AGE, and the head's silence, told LINK_TIMEOUT_MS (2 s) after its last
# frame, is counted back no further than this (firmware/headproto.py). The replay takes such a
# record (never one earlier than the game event before it) and sets aside any further back.
LATE_INPUT_SECONDS = PRESS_MAX_AGE
FAULT_PAGE_SECONDS = 2.5  # several faults take the bottom line in turn
FAULT_WORDS = {
    "storage": "NOT SAVING: storage",
    "head": "TIMER HEAD DISCONNECTED",
    "disc": "SERVO FAILING",
    "sounder": "BUZZER FAILING",
    "lights": "LEDS FAILING",
    "display": "DISPLAY FAILING",
    "display_slow": "DISPLAY SLOW",
    "disc_slow": "SERVO SLOW",
    "lights_slow": "LEDS SLOW",
    "claim": "TWO BOXES CLAIM THIS TABLE",
    "photos": "PHOTO NOT KEPT",
}
"""The words each fault puts on the OLED's bottom line (and systemd's status line); a move's
photo not kept says why (``PHOTO NOT KEPT: CARD FULL``, :mod:`companion.daemon.photos`)."""
PHOTO = "_photo"  # a move's photo kept: {"turn": n, "player": colour, "photo": NAME}
ABANDON_QUESTION = (
    "Abandon the game in progress? Its record is kept, with no result. Abandon again (A, or F9 "
    "while typing, in the simulator; /abandon at the console) or Enter to abandon it; any other "
    "press or command plays on"
)
"""What the service asks at ``abandon`` while a game is under way (Iota's ``end`` asks too)."""
COMMAND_WORDS = {"cancel": "call off", "confirm": "confirm", "override": "override"}
"""The arbiter's commands as a player says them, for the service's messages."""
NOT_SAVING_TEXT = (
    "NOT SAVING: the storage does not take the journal; the game goes on in memory and is "
    "written as soon as the card works again"
)
"""What the service says (its message: the simulator's and the log's) from the first failed
write until a write succeeds, whatever else it says meanwhile."""
LINK_STATUS_FILE = "link-status.json"
"""Beside table.toml: what ``companion link`` asks the screen to say (``{"claim": words}``: the
director sees two boxes set up as this table; companion.tournament.link)."""
PART_NAMES = {
    "disc": "servo",
    "sounder": "buzzer",
    "lights": "LEDs",
    "display": "OLED",
    "photos": "moves' photos",
}
SLOW_SECONDS = 1.0
"""An output whose write has taken this long (seconds) is said: DISPLAY SLOW (a frame of the
128 x 64 OLED is about 25 ms over I2C at 400 kHz; the sand bar moves every half second)."""


@dataclass(frozen=True)
class Published:
    """What the table shows, for the simulator and tests (replaced as a whole; read freely).

    ``t`` game seconds; ``status`` the mode's word; ``prompt`` typed text expected (or None);
    ``lights`` per LED; ``disc_angle`` degrees; ``beeps`` total short beeps; ``long_beeps``;
    ``inputs`` inputs handled so far; ``message`` the service's own notice (restart, errors);
    ``banner`` the banner on the OLED now (``ILLEGAL MOVE? BLUE: disconnected``, the colour
    count, ``JUDGING...``) or ""; ``camera`` the camera's problem while it gives no frame, else
    ""; ``faults`` the words of each fault now on the OLED's bottom line (``NOT SAVING:
    storage``...); ``judging`` a decision is being made on the worker.
    """

    t: float = 0.0
    status: str = ""
    prompt: str | None = None
    lights: dict[str, bool] = field(default_factory=dict)
    disc_angle: float | None = None
    beeps: int = 0
    long_beeps: int = 0
    inputs: int = 0
    message: str = ""
    records_saved: int = 0
    banner: str = ""
    camera: str = ""
    faults: tuple[str, ...] = ()
    judging: bool = False


def journal_path() -> Path:
    """data_dir()/table/journal.jsonl: the journal of the game in progress."""
    return data_dir() / "table" / "journal.jsonl"


def records_dir() -> Path:
    """data_dir()/records: the saved results and records of finished games."""
    path = data_dir() / "records"
    path.mkdir(parents=True, exist_ok=True)
    return path


class DisplayProblem(RuntimeError):
    """The OLED did not take the frame (its wrapper reports a problem instead of raising)."""


class TableService:
    """Runs one table: a game mode on a device bundle, journaled.

    Args:
        devices: the opened :class:`~companion.devices.base.DeviceBundle`.
        pinmap: the pin map (for the servo's calibration), a
            :class:`~companion.devices.pinmap.PinMap`.
        table: the table's set-up for a *new* game (default: config_dir()/table.toml); a game
            resumed from its journal keeps the set-up written in the journal's header.
        judge: the word judge for challenges (default: the table's lexicon, opened in the
            background).
        clock: monotonic seconds (a fake clock in tests); the same clock must stamp the presses.
        journal_file: default :func:`journal_path`.
        inline_outputs: drive the devices in the clock thread (deterministic tests) instead of
            worker threads.
        heartbeat_seconds: how often the journal notes that the clock is alive while it runs
            (bounds what a power cut can lose; a clean stop loses nothing).
        fsync: sync each journal record (keep True except in benchmarks of other things).
        on_frame: called as ``on_frame(image, inputs)`` on the display worker each time a frame
            is ready (``inputs``: how many inputs it reflects), for the simulator and benchmarks.
        setup_poll_seconds: while no game is under way, look at table.toml this often (seconds)
            for a new set-up written by ``companion link``; None looks only when woken anyway.
        table_file: the set-up of new games (default config_dir()/table.toml).
        records_path: where finished games are saved (default :func:`records_dir`).
        journal_io: the journal's file operations (tests stage a failing card with it).
        lock: take the journal's lock (:mod:`companion.daemon.tablelock`).
        device_clock: monotonic seconds that time the devices' writes (default ``clock``; a
            test that moves the game's fake clock while real output threads work gives them a
            clock of their own).

    Raises:
        TableConfigError, ModeError, JournalError from the set-up, the mode or the journal;
        TableLockedError when another service holds the journal.
    """

    def __init__(
        self,
        devices: DeviceBundle,
        pinmap,
        table: TableConfig | None = None,
        judge: JudgeFn | None = None,
        clock: Callable[[], float] = time.monotonic,
        journal_file: Path | None = None,
        inline_outputs: bool = False,
        heartbeat_seconds: float = 1.0,
        fsync: bool = True,
        on_frame: Callable | None = None,
        setup_poll_seconds: float | None = None,
        table_file: Path | None = None,
        records_path: Path | None = None,
        journal_io: JournalIO | None = None,
        lock: bool = True,
        device_clock: Callable[[], float] | None = None,
        photo_io=None,
        photo_clock: Callable[[], float] = time.time,
    ) -> None:
        self.devices = devices
        self.pinmap = pinmap
        self._table_arg = table
        self.clock = clock
        self.journal_file = Path(journal_file) if journal_file else journal_path()
        self.heartbeat_seconds = heartbeat_seconds
        self.setup_poll_seconds = setup_poll_seconds
        self.table_file = Path(table_file) if table_file is not None else None
        self.records_path = Path(records_path) if records_path is not None else None
        self._setup_stamp: tuple | None = None
        self.fsync = fsync
        self.on_frame = on_frame
        self.journal_io = journal_io
        self._judge = judge
        self._queue: queue.Queue = queue.Queue()
        self._stopping = threading.Event()
        self.lock = TableLock(self.journal_file)
        if lock:
            self.lock.acquire()
        self.published = Published()
        self.step_failures = 0
        self.steps = 0  # steps completed without an error: the clock's proof of progress
        self.errors: collections.deque[str] = collections.deque(maxlen=20)
        self.message = ""
        self.records_saved = 0
        self._beeps = 0
        self._long_beeps = 0
        self._inputs = 0
        self._offset = 0.0
        self._last_g = 0.0
        # the earliest mode deadline processed since the last journaled event (see _late_input)
        self._crossed: float | None = None
        self._next_heartbeat: float | None = None
        self._view: View | None = None
        self.last_record_path: Path | None = None
        # faults: key (FAULT_WORDS) -> what the log says; device news from the workers' threads
        self.faults: dict[str, str] = {}
        self._fault_lock = threading.Lock()
        self._device_news: dict[str, str | None] = {}
        self._retry_at: float | None = None  # game time of the next retry of a failing part
        self._storage_beep_at: float | None = None
        self._record_unsaved = False  # a finished game whose record could not be written yet
        self._paused_by_head = False
        self._abandon_asked = False  # 'abandon' was asked: the next input answers
        # a decision made on the worker (JUDGING...): the input, and the inputs held behind it
        self._deciding: Input | None = None
        self._held: collections.deque = collections.deque()
        self._decider: threading.Thread | None = None
        self._decided = threading.Event()
        self._decided.set()
        size = (devices.display.width, devices.display.height)
        news = self._on_device_problem
        self.device_clock = device_clock or clock
        timed = {"clock": self.device_clock, "slow_seconds": SLOW_SECONDS}
        timed["on_slow"] = self._on_device_slow
        self._display = LatestWorker("display", self._show_frame, inline_outputs, news, **timed)
        self._disc = LatestWorker("disc", devices.disc.turn_to, inline_outputs, news, **timed)
        self._lights = LatestWorker("lights", devices.lights.set, inline_outputs, news, **timed)
        self._slow_check_at: float | None = None  # game time to look at a write in hand
        self._sounder = QueueWorker("sounder", self._sound, inline_outputs, news)
        self._size = size
        self._last_angle: float | None = None
        self._last_key: object = None
        self._last_inputs = -1
        self._last_lights: dict | None = None
        self._last_frame: tuple | None = None
        self.mode: GameMode
        self.journal: Journal
        self._banner: tuple[Banner, float | None] | None = None  # and until (game time)
        # a banner that stays (until None) while a timed one is shown over it: back after it
        self._under: tuple[Banner, None] | None = None
        self._resumed = False  # a game in progress resumed from the journal
        self._finish_at: float | None = None  # game time a finished game's record is saved at
        try:
            self._open_game()
        except BaseException:
            self.lock.release()
            raise
        self._note_storage(self._last_g)
        # the camera, if any, reads the board and gives a challenge its words (docs/vision.md)
        from companion.vision.table import watcher_for

        if getattr(self.mode, "name", "") == "scrabble":  # the crossword game reads each turn
            from companion.daemon.scrabble_camera import scrabble_watcher_for as watcher_for
        self.camera_watcher = watcher_for(devices.camera, self.line)
        self.camera_problem: str | None = None  # the camera gives no frame (on the OLED)
        self._photo_words = FAULT_WORDS["photos"]
        if self.camera_watcher is not None:
            self.camera_watcher.on_warning = self._camera_warning
            self.camera_watcher.on_count = self._camera_count
            self.camera_watcher.on_camera = self._camera_changed
            self.camera_watcher.on_board = self._camera_board
            if hasattr(self.camera_watcher, "submit_words"):  # taken while their challenge waits
                self.camera_watcher.submit_words = self._camera_words
                self.camera_watcher.on_no_words = self._camera_no_words
            if hasattr(self.camera_watcher, "photos"):  # each move's photo kept (photos.py)
                self.camera_watcher.photos = self._move_photos(photo_io, photo_clock)
                self.camera_watcher.on_photo = self._camera_photo
            if (
                self._resumed
                and not self.mode.finished
                and hasattr(self.camera_watcher, "follow")
                and self._camera_follows_journal()
            ):
                # the board when the move in progress began is not in the journal: said, not
                # passed over (docs/daemon.md, "The camera at the table")
                self.message += (
                    "; the camera checks the moves that begin from now on (not the one in "
                    "progress: its board before it was not seen)"
                )
        elif (getattr(pinmap, "camera", None) or {}).get("kind", "none") != "none":
            self.camera_problem = "camera unavailable: it could not be opened (see the log)"
        devices.buttons.on_press(self._on_press)
        on_link = getattr(devices.buttons, "on_link", None)
        if on_link is not None:  # the timer head: its link going silent pauses the clock
            on_link(self._on_link)

    # -- the game's life: new, resumed, finished -----------------------------------------------

    def _move_photos(self, io, now: Callable[[], float]):
        """The store of the moves' photos beside the records, kept ``[camera] photo_days``
        and leaving ``photo_min_free_mb`` of the card free (:mod:`companion.daemon.photos`)."""
        from companion.daemon.photos import KEEP_DAYS, MIN_FREE_MB, MovePhotos

        camera = getattr(self.pinmap, "camera", None) or {}
        folder = self.records_path or data_dir(create=False) / "records"  # made when written
        return MovePhotos(
            folder,
            keep_days=camera.get("photo_days", KEEP_DAYS),
            min_free_mb=camera.get("photo_min_free_mb", MIN_FREE_MB),
            io=io,
            now=now,
        )

    def _game_id(self) -> str | None:
        """The game in progress's id (the journal header's ``game_id``), or None."""
        records = self.journal.records
        if records and records[0].get("kind") == HEADER:
            return records[0].get("game_id")
        return None

    def _context(self, table: TableConfig) -> ModeContext:
        judge = self._judge
        if judge is None:
            from companion.daemon.challenge import lexicon_judge

            judge = self._judge = lexicon_judge(table.lexicon or None)
        name = getattr(judge, "name", "") or table.lexicon
        return ModeContext(table=table, judge=judge, lexicon_name=name)

    def _new_table(self) -> TableConfig:
        return self._table_arg if self._table_arg is not None else load_table(self.table_file)

    def _records_dir(self) -> Path:
        if self.records_path is None:
            return records_dir()
        self.records_path.mkdir(parents=True, exist_ok=True)
        return self.records_path

    def _open_journal(self) -> Journal:
        return Journal.open(self.journal_file, fsync=self.fsync, io=self.journal_io, salvage=True)

    def _fresh_journal(self, records: list[dict] | None = None) -> Journal:
        return Journal.fresh(self.journal_file, self.fsync, self.journal_io, records)

    def _open_game(self) -> None:
        """Resume the journal's game if it had started, else begin a new one.

        A damaged record (bad JSON, a sequence number out of order, an event the mode cannot
        apply) does not abandon the game: it resumes from the last good record, the rest is set
        aside in ``journal.jsonl.rest-<stamp>`` and the OLED says so (the arbiter corrects the
        rest by hand).
        """
        path = self.journal_file
        try:
            journal = self._open_journal()
        except JournalError as exc:  # the file cannot be read at all
            damaged = path.with_name(f"{path.name}.damaged-{_stamp()}")
            try:
                path.replace(damaged)
                where = f"the file is set aside as {damaged.name}"
            except OSError:
                where = "the file is left as it is"
            self._start_new_game()
            self.message = f"journal damaged ({exc}); {where} and a new game starts"
            return
        records = journal.records
        aside = [journal.set_aside] if journal.set_aside else []
        problem = journal.damage
        header = records[0] if records and records[0].get("kind") == HEADER else None
        mode = None
        if header is not None and _game_events(records):
            mode, good, replay_problem = self._replay_prefix(records)
            if replay_problem is not None:
                problem = replay_problem if problem is None else f"{replay_problem}; {problem}"
                rest = path.with_name(f"{path.name}.rest-{_stamp()}")
                try:
                    rest.write_text(
                        "".join(
                            json.dumps(r, separators=(",", ":")) + "\n" for r in records[good:]
                        ),
                        encoding="utf-8",
                    )
                    aside.insert(0, rest)
                except OSError:
                    pass
                journal.close(flush=False)
                journal = self._fresh_journal(records[:good])
                records = journal.records
        if mode is None or not _game_events(records):
            journal.close(flush=False)
            self._start_new_game()
            if problem is not None:
                names = ", ".join(p.name for p in aside) or "nowhere (the card is read-only)"
                self.message = (
                    f"journal damaged ({problem}); no game to resume: the rest is set aside in "
                    f"{names} and a new game starts"
                )
                self._show_banner(Banner("JOURNAL DAMAGED", "new game: rest set aside"), None)
            elif journal.dropped_torn:
                self.message = "torn last journal record dropped"
            return
        self.mode = mode
        self.journal = journal
        self._resumed = True
        last = _last_time(records)
        good = len(records)
        self._offset = self.clock() - last
        self._last_g = last
        for ev in self.mode.on_restart(last):
            self.journal.append(ev)
            self.mode.apply(ev)
        self.message = "Restarted: the game resumes where it was, paused"
        if journal.dropped_torn:
            self.message += " (torn last record dropped)"
        if problem is not None:
            names = ", ".join(p.name for p in aside) or "nowhere (the card is read-only)"
            self.message = (
                f"journal damaged ({problem}): the game resumes from its last good record "
                f"(seq {good}), paused; the rest is set aside in {names}"
            )
            self._show_banner(Banner("JOURNAL DAMAGED", f"resumed at record {good}"), None)
            log.warning("%s", self.message)
        if self.mode.finished:
            self._finish()

    def _camera_follows_journal(self) -> bool:
        """After a restart, the camera watcher follows the resumed game's journal (the mode
        replayed record by record, :meth:`ChallengeWatcher.follow`, and its ``_board`` records,
        :meth:`ChallengeWatcher.resume_board`), so the move in progress keeps the board read
        when it began. True when a move is in progress whose board then is not known."""
        watcher = self.camera_watcher
        watcher.game_id = self._game_id()

        def follow(rec: dict, mode: GameMode) -> None:
            kind = rec.get("kind")
            if kind == BOARD:
                watcher.resume_board(
                    rec.get("player"), rec.get("move"), rec.get("board"), rec.get("trusted")
                )
            elif isinstance(kind, str) and not kind.startswith("_"):
                watcher.follow(rec, mode)

        self._replay_prefix(self.journal.records, follow)
        if getattr(self.mode, "phase", None) == "words":
            # a challenge waits for its words (the power went before they came): read at once,
            # not at the next input (paused, the words are still taken)
            watcher.observe({"kind": "restart"}, self.mode)
        return watcher.move_in_progress_unchecked

    def _replay_prefix(
        self, records: list[dict], follow: Callable[[dict, GameMode], None] | None = None
    ) -> tuple[GameMode | None, int, str | None]:
        """The mode rebuilt from the longest prefix of ``records`` that replays, how many
        records that is, and what is wrong with the first that does not (None if all do).
        ``(None, 0, problem)`` when even the header cannot be used. ``follow(record, mode)``,
        if given, is called after each record replayed, the mode's state after it."""
        header = records[0]
        where = f"{self.journal_file} header"
        try:
            table = validate(header.get("settings", {}), where, check_names=False)
            mode = mode_class(header.get("mode", table.game))(self._context(table))
        except (ValueError, KeyError, TypeError) as exc:
            return None, 0, f"line 1: {exc}"
        backwards = _time_goes_back(records)
        limit = len(records) if backwards is None else max(1, backwards[0])
        for n, rec in enumerate(records[1:limit], 2):
            try:
                _last_time([rec], n)
                replay(mode, [rec], first_line=n)
                if follow is not None:
                    follow(rec, mode)
            except (ValueError, KeyError, TypeError) as exc:
                problem = str(exc) if not isinstance(exc, KeyError) else f"missing key {exc}"
                # the failed record may have half-changed the mode: rebuild it from the prefix
                return self._mode_from_journal(records[: n - 1], where), n - 1, problem
        if backwards is not None:
            return mode, limit, backwards[1]
        return mode, len(records), None

    def _start_new_game(self, fresh_file: bool = True) -> None:
        stamp = self._table_file_stamp()  # before reading: a set-up written after is seen next
        table = self._new_table()
        self.mode = mode_class(table.game)(self._context(table))
        self.journal = self._fresh_journal()
        self.journal.append(
            {
                "t": 0.0,
                "kind": HEADER,
                "mode": self.mode.name,
                "settings": self.mode.settings(),
                "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                "game_id": uuid.uuid4().hex,  # names the game to the tournament's director
            }
        )
        self._setup_stamp = stamp
        self._offset = self.clock()
        self._last_g = 0.0
        if self._banner is not None and self._banner[1] is not None:
            # a banner timed on the last game's clock (NO CAMERA, THE GAME IS OVER) would stay
            # on the new game's screen until its clock came that far
            self._end_banner()
        self._crossed = None
        self._next_heartbeat = None
        self._paused_by_head = False

    def _finish_when_due(self, g: float) -> None:
        """Save a finished game's record at game time ``g``, or once it is due. A game lost on
        time (a deadline crossed) is saved LATE_INPUT_SECONDS after its flag fell: a press made
        before that instant and told later (the glitch filter's few milliseconds, the timer
        head's link) still counts at its instant and the game goes on (:meth:`_late_input`);
        the screen says LOST ON TIME meanwhile. A new game asked for saves it at once."""
        if not self.mode.finished:
            self._finish_at = None
            return
        if not self.journal.records or self._record_unsaved:
            return
        if self._finish_at is None:
            self._finish_at = g + LATE_INPUT_SECONDS if self._crossed is not None else g
        if g >= self._finish_at:
            self._finish_at = None
            self._finish()

    def _finish(self, abandoned_at: float | None = None) -> bool:
        """Save the finished (or abandoned) game's result and full record; empty the journal.

        Returns False when the storage does not take the record: the game stays in memory (and
        on the screen), NOT SAVING is said, and the save is tried again (see :meth:`_retry`).
        """
        if not self.journal.retry():  # every event must be on disk before the record is cut
            self._record_unsaved = True
            return False
        records = [r for r in self.journal.records if r.get("kind") != ALIVE]
        header = records[0] if records else {}
        result = self.mode.result()
        if abandoned_at is not None:
            result = {**result, "abandoned": True, "abandoned_at": abandoned_at}
        stamp = _stamp()
        number = header.get("settings", {}).get("number", "")
        payload = {"result": result, "settings": header.get("settings"), "record": records}
        photos = [r["photo"] for r in records if r.get("kind") == PHOTO]
        if photos:  # where the arbiter finds each move's photo (beside this record)
            payload["photos"] = photos
        try:
            path = self._records_dir() / f"{stamp}-table{number}.json"
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(payload, indent=1), encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            self._record_unsaved = True
            self._set_fault("storage", f"the game's record cannot be saved: {exc.strerror}")
            return False
        self._record_unsaved = False
        self.last_record_path = path
        self.records_saved += 1
        self.journal.close()
        with contextlib.suppress(OSError):  # the record holds every event anyway
            self.journal_file.replace(self._records_dir() / f"{stamp}-table{number}.journal.jsonl")
        self.journal = self._fresh_journal()  # empty until the next game
        self.message = "Game over, record saved. CHALLENGE: a new game"
        return True

    # -- inputs (any thread) ------------------------------------------------------------------

    def _on_press(self, role: str, t_mono: float) -> None:
        """A press from the buttons' thread, stamped ``t_mono``. Its stamp is checked here,
        when it arrives: later than now (a head clock offset gone wrong) it counts now and the
        OLED says so; further back than :data:`PRESS_MAX_AGE` (a frame of garbage that passed
        the CRC, a stamp from a clock that jumped) it is refused, said, and charges nothing."""
        now = self.clock()
        t = float(t_mono)
        if not math.isfinite(t) or t < now - PRESS_MAX_AGE:
            self._queue.put(("refused", (role, t), now))
        elif t > now + PRESS_FUTURE_SECONDS:
            self._queue.put(("future", (role, t), now))
        else:
            self._queue.put(("press", role, min(t, now)))

    def _on_link(self, connected: bool, last_heard: float | None) -> None:
        """The timer head's link went silent (``connected`` False; ``last_heard`` the host's
        monotonic time of its last frame) or came back (any thread)."""
        self._queue.put(("link", connected, self.clock() if last_heard is None else last_heard))

    def _on_device_problem(self, name: str, problem: str | None) -> None:
        """An output worker's device started failing (``problem``) or works again (None)."""
        with self._fault_lock:
            self._device_news[name] = problem
        self._queue.put(("wake", None, self.clock()))

    def _on_device_slow(self, name: str, slow: str | None) -> None:
        """An output worker's device became slow (``slow``: what its write took) or quick again
        (None) (any thread)."""
        with self._fault_lock:
            self._device_news[f"{name}_slow"] = slow
        self._queue.put(("wake", None, self.clock()))

    def line(self, text: str, t_mono: float | None = None) -> None:
        """A typed line (Enter pressed), e.g. the challenged words."""
        self._queue.put(("line", text, self.clock() if t_mono is None else t_mono))

    def command(self, name: str, t_mono: float | None = None) -> None:
        """An arbiter's command: pause, resume, override, confirm, cancel, new (a new game after
        the end of one), abandon (end the game in progress without a result, its record saved:
        asked first, :data:`ABANDON_QUESTION`; a second ``abandon`` or ``confirm`` does it, any
        other input plays on and is taken as usual)."""
        self._queue.put(("command", name, self.clock() if t_mono is None else t_mono))

    def count(self, t_mono: float | None = None) -> None:
        """The colour count on request (Iago rulebook, "The Move" (2)): the camera reads the board
        in the background and the OLED shows ``BLUE n  RED m`` and who leads for a few seconds
        (:data:`~companion.daemon.overlays.BANNER_SECONDS`), or that the camera is unavailable.
        The clock is not touched and nothing is journaled (any thread)."""
        self._queue.put(("count", None, self.clock() if t_mono is None else t_mono))

    def _count_asked(self, t_mono: float) -> None:
        """On the clock thread: the count asked for (:meth:`count`). It answers ABANDON GAME? as
        any other input does: the game goes on."""
        if self._abandon_asked:
            self._abandon_asked = False
            self._clear_banner()
            self.message = "not abandoned: the game goes on"
        if getattr(self.mode, "name", "") != "iago":
            self._camera_news(("say", None, "the colour count is Iago's"), t_mono)
        elif self.camera_watcher is None:
            problem = self.camera_problem or "no camera ([camera] kind in the pin map)"
            self._camera_news(("count", None, problem), t_mono)
        else:
            self.camera_watcher.request_count()

    def stop(self) -> None:
        """Ask the clock thread to finish (it notes the instant in the journal first)."""
        self._stopping.set()
        self._queue.put(("stop", None, self.clock()))

    # -- health (systemd's status line) --------------------------------------------------------

    def health(self) -> str:
        """One line for systemd's status (``systemctl status``) and the log: ``ok`` or the faults,
        each in the OLED's words with the cause (``NOT SAVING: storage (journal.jsonl: cannot
        write: No space left on device; 3 records kept in memory)``)."""
        if not self.faults:
            return "ok"
        return "; ".join(f"{self._fault_words(k)} ({v})" for k, v in self.faults.items())

    @property
    def storage_errno(self) -> int | None:
        """The errno of the failing storage (28 no space, 30 read-only...), or None."""
        return self.journal.failing_errno if "storage" in self.faults else None

    # -- the clock thread ---------------------------------------------------------------------

    def game_time(self, t_mono: float | None = None) -> float:
        """Game seconds at monotonic ``t_mono`` (default now)."""
        return (self.clock() if t_mono is None else t_mono) - self._offset

    def next_wake(self, pictures: bool = True) -> float | None:
        """The next game time the clock thread must wake at without an input (or None).

        ``pictures`` False leaves out the wakes that change the picture only (a text too long
        for its line shown in turns, the sand bar's next pixel: the picture is a function of the
        game time), as a script's runner may: not while a fault is up (several take the bottom
        line in turns, and a failing card beeps again) or a banner that ends by itself is."""
        times = [self.mode.next_deadline(), self._next_heartbeat, self._retry_at, self._finish_at]
        times.append(self._slow_check_at)
        times.append(self.next_setup_check())
        picture_only = not self.faults and (self._banner is None or self._banner[1] is None)
        if self._view is not None and (pictures or not picture_only):
            times.append(self._view.redraw_at)
        due = [t for t in times if t is not None]
        return min(due) if due else None

    @property
    def judging(self) -> bool:
        """True while an input is being decided on the worker (JUDGING... on the OLED)."""
        return self._deciding is not None

    def wait_decided(self, timeout: float | None = None) -> bool:
        """Wait (real time) for the decision being made on the worker, if any; True when none
        is pending. Its events are applied at the next :meth:`step`."""
        return self._decided.wait(timeout)

    def run(
        self, on_wake: Callable[[], None] | None = None, max_sleep: float | None = None
    ) -> None:
        """The clock thread's loop, until :meth:`stop`. Sleeps until an input or a deadline.

        ``on_wake`` is called after every step that completed (the systemd watchdog feed: a
        step that keeps failing feeds nothing, so systemd restarts a clock that makes no
        progress) and ``max_sleep`` (seconds) bounds each sleep so that it is called even while
        nothing happens. The interpreter's thread switch interval is shortened to 1 ms so that a
        display thread busy drawing hands over quickly when a deadline wakes the clock, and the
        clock thread asks the kernel for a higher priority (nice :data:`CLOCK_NICE`) where it is
        allowed (root, CAP_SYS_NICE, or systemd's ``Nice=``/``LimitNICE=``); elsewhere it runs
        as it is.
        """
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        raise_priority(CLOCK_NICE)
        first = True
        while not self._stopping.is_set():
            item = None if first else self._wait_for_input(max_sleep)
            first = False
            try:
                self.step(item)
                self.step_failures = 0
            except Exception as exc:  # noqa: BLE001 - the table must keep running
                self.step_failures += 1
                self.message = f"internal error ({type(exc).__name__}: {exc}); the table runs on"
                self.errors.append(traceback.format_exc())
                log.error("%s", self.errors[-1])
                continue  # no proof of progress: the watchdog is not fed
            if on_wake is not None:
                on_wake()
        self._shutdown()

    def _wait_for_input(self, max_sleep: float | None = None) -> tuple | None:
        """Sleep until the next input (returned) or the next wake-up (None), at most
        ``max_sleep`` seconds."""
        wake = self.next_wake()
        timeout = None if wake is None else max(0.0, wake - self.game_time())
        if max_sleep is not None:
            timeout = max_sleep if timeout is None else min(timeout, max_sleep)
        if self.step_failures and timeout is not None:
            timeout = max(timeout, FAILURE_BACKOFF)  # never spin on a step that keeps failing
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def step(self, first: tuple | None = None) -> None:
        """Handle ``first`` (an input already taken from the queue) and every queued input, in
        order, then let time run to now and update the outputs.

        Tests call this directly with a fake clock; :meth:`run` calls it on each wake-up.
        """
        while True:
            if first is not None:
                item, first = first, None
            else:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            self._take(item)
        g = max(self.game_time(), self._last_g)
        deadline = self.mode.next_deadline()
        expired = deadline is not None and deadline <= g
        if expired:
            if self._crossed is None:
                self._crossed = deadline
            # a minute runs out: the journal proves the instant before the beep (written into
            # the kernel's cache, so a crash of the service after it never gives the minute
            # back) and is synced to the disk just after the beep is asked for, so the disk's
            # sync (milliseconds on a card) never delays the beep (docs/daemon.md)
            self.journal.append({"t": g, "kind": ALIVE, "expired": deadline}, sync=False)
        self._effects(self.mode.advance(g))
        if expired:
            self.journal.sync()
        self._last_g = g
        self._heartbeat(g)
        self._retry(g)
        self._finish_when_due(g)
        self._take_new_setup()
        self._note_link()
        self._note_storage(g)
        self._publish(g)
        self.steps += 1

    # -- a new set-up (companion link writes table.toml), taken only between games -----------

    def _table_file_stamp(self) -> tuple | None:
        """table.toml's (mtime, size), or None when the set-up is not read from it."""
        if self._table_arg is not None:
            return None
        try:
            st = (self.table_file or table_path()).stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def _take_new_setup(self) -> None:
        """A game not begun (only its header journaled) takes a changed table.toml at once, so
        the ready screen shows the new round, table and players; a game in progress keeps the
        set-up its journal's header holds, and the next game reads the file anew."""
        if self._table_arg is not None or self.mode.finished:
            return
        if len(self.journal.records) != 1:
            return  # no game yet, or one begun (its header and more)
        stamp = self._table_file_stamp()
        if stamp == self._setup_stamp:
            return
        try:
            load_table(self.table_file)
        except CompanionError as exc:
            self._setup_stamp = stamp
            self.message = f"new set-up refused: {exc}"
            return
        self._start_new_game(fresh_file=True)
        self.message = "New set-up taken"

    def next_setup_check(self) -> float | None:
        """Game time of the next look at table.toml while no game is under way (None: none)."""
        if self.setup_poll_seconds is None or self._table_arg is not None:
            return None
        if self.mode.finished or len(self.journal.records) != 1:
            return None
        return self._last_g + self.setup_poll_seconds

    def _take(self, item: tuple) -> None:
        """One queued item, on the clock thread."""
        kind, value, t_mono = item
        if kind == "stop":
            self._stopping.set()
        elif kind == "wake":
            pass
        elif kind == "camera":
            self._camera_news(value, t_mono)
        elif kind == "count":
            self._count_asked(t_mono)
        elif kind == "decided":
            self._apply_decision(*value)
        elif kind == "link":
            self._link_news(value, t_mono)
        elif kind == "refused":
            role, stamp = value
            age = t_mono - stamp
            self._say_press(
                role,
                "PRESS REFUSED",
                f"{role.upper()}: press again",
                f"a {role} press stamped {age:.1f} s in the past was refused (a frame of "
                f"garbage, or a clock gone wrong; at most {PRESS_MAX_AGE:g} s is accepted): "
                "it charges nothing; press again",
                t_mono,
            )
        elif kind == "future":
            role, stamp = value
            self._input("press", role, t_mono)
            self._say_press(
                role,
                "PRESS TIME WRONG",
                f"{role.upper()}: counted now",
                f"a {role} press stamped {stamp - t_mono:.2f} s in the future (the timer "
                "head's clock is off) counted at the instant it arrived",
                t_mono,
            )
        else:
            self._input(kind, value, t_mono)

    def _say_press(self, role: str, title: str, detail: str, text: str, t_mono: float) -> None:
        self._brief_banner(Banner(title, detail), max(self.game_time(t_mono), self._last_g))
        self.message = text
        log.warning("%s", text)

    def _input(self, kind: str, value, t_mono: float) -> None:
        """A press, a line or a command: handled now, or held while a decision is made."""
        if self._deciding is not None:
            self._held.append((kind, value, t_mono))
            return
        self._handle(kind, value, t_mono)

    def _mode_from_journal(self, records: list[dict], where: str) -> GameMode:
        """A fresh mode of the journal's game (its header ``records[0]``) with every journaled
        event applied. Raises ValueError, KeyError or TypeError on a journal it cannot replay."""
        header = records[0]
        table = validate(header.get("settings", {}), where, check_names=False)
        mode = mode_class(header.get("mode", table.game))(self._context(table))
        replay(mode, records[1:])
        return mode

    def _late_input(self, g: float, rewind: bool = False) -> float:
        """The game time an input stamped at ``g`` counts at.

        An input is handled a little after the pin changed (a queue, a serial frame that came
        late). If a deadline of the mode (a sand minute running out) was processed in between,
        the mode is rebuilt from the journal as it was at ``g``, so that a press made at 59.99 s
        is not charged the minute that ran out at 60 s while it waited: the press counts at the
        instant the pin changed (issue 2). Otherwise nothing depends on the few milliseconds and
        the input counts at the instant already processed (the clock never goes backwards).
        ``rewind``: rebuild even when no deadline was crossed (the timer head went silent at
        ``g``, seconds ago: the pause counts from then).
        """
        if g >= self._last_g:
            return g
        crossed = self._crossed is not None and g < self._crossed
        if not (crossed or rewind) or not self.journal.records:
            return self._last_g
        records = self.journal.records
        events = _game_events(records)
        if events and float(events[-1].get("t", 0.0)) > g:
            return self._last_g
        # never further back than the replay takes (LATE_INPUT_SECONDS): a restart would set
        # the input aside as a damaged record
        g = max(g, _last_time(records) - LATE_INPUT_SECONDS)
        try:
            mode = self._mode_from_journal(records, "journal header")
            mode.advance(g)
        except (ValueError, KeyError, TypeError):
            return self._last_g
        self.mode = mode
        self._crossed = None
        return g

    def _handle(self, kind: str, value, t_mono: float, cause: str = "") -> None:
        g = self._late_input(self.game_time(t_mono), rewind=bool(cause))
        self._inputs += 1
        if self._abandon_asked and not cause:  # this input answers 'abandon the game?'
            self._abandon_asked = False
            self._clear_banner()
            if self.mode.finished:
                pass  # the game ended meanwhile: nothing to abandon
            elif kind == "command" and value in ("abandon", "confirm"):
                self._abandon(g)
                return
            else:  # the game goes on, and the input is taken as usual
                self._take_input(kind, value, g, cause)
                if not self.message:
                    self.message = "not abandoned: the game goes on"
                return
        self._take_input(kind, value, g, cause)

    def _take_input(self, kind: str, value, g: float, cause: str = "") -> None:
        """A press, a line or a command at game time ``g``, on the game (see :meth:`_handle`)."""
        if self.mode.finished or not self.journal.records:
            if (kind == "press" and value == "challenge") or (kind, value) == ("command", "new"):
                if self.mode.finished and self.journal.records and not self._record_unsaved:
                    self._finish_at = None
                    self._finish()  # its record, still kept for a late press, saved now
                if self._record_unsaved:
                    self.message = (
                        "the finished game's record is not saved yet (NOT SAVING: storage): "
                        "a new game waits until the card takes it"
                    )
                    return
                self._clear_banner()  # the last game's (JOURNAL DAMAGED of its records)
                self._start_new_game()
                self.message = ""
            elif kind in ("command", "line") and self.mode.finished:
                # the arbiter's command or a typed line after the end: said, not dropped unsaid
                what = (
                    f"nothing to {COMMAND_WORDS.get(value, value)}"
                    if kind == "command"
                    else "the line is not taken"
                )
                if self._record_unsaved:  # a new game waits for the card (NOT SAVING)
                    then = (
                        "; its record is not saved yet (NOT SAVING: storage): a new game waits "
                        "until the card takes it"
                    )
                    detail = "record not saved yet"
                else:
                    then, detail = " (CHALLENGE or /new starts a new game)", "CHALLENGE: a new game"
                self.message = f"the game is over: {what}{then}"
                self._brief_banner(Banner("THE GAME IS OVER", detail), g)
            return
        if kind == "command" and value == "new":
            self.message = "a game is under way: 'new' is for after its end ('abandon' ends it)"
            return
        if kind == "command" and value == "abandon":
            if self.mode.started:  # asked first, as Iota's 'end' is
                self._abandon_asked = True
                self.message = ABANDON_QUESTION
                self._show_banner(Banner("ABANDON GAME?", "again or Enter: yes"), None)
            else:
                self.message = "no game under way: nothing to abandon"
            return
        inp: Input
        if kind == "press":
            inp = Press(value, g)
        elif kind == "line":
            inp = Line(value, g)
        else:
            inp = Command(value, g)
        slow = getattr(self.mode, "slow", None)
        if slow is not None and slow(inp):
            self._decide_on_worker(inp)
            return
        try:
            events = self.mode.decide(inp)
        except NothingToDo as exc:  # said for a few seconds on the OLED; the clock untouched
            self.message = str(exc)
            self._brief_banner(Banner(exc.title, exc.detail), g)
            return
        except ValueError as exc:
            self.message = str(exc)
            return
        self._journal_and_apply(events, g, cause)

    def _brief_banner(self, banner: Banner, g: float) -> None:
        """Show ``banner`` for a few seconds from game time ``g`` (overlays.BANNER_SECONDS)
        (:meth:`_show_banner`)."""
        from companion.daemon import overlays

        self._show_banner(banner, g + overlays.BANNER_SECONDS)

    def _show_banner(self, banner: Banner, until: float | None) -> None:
        """Show ``banner`` until game time ``until`` (seconds), or until an input does something
        (``until`` None). A timed banner shown while one that stays is up (JOURNAL DAMAGED at a
        restart, ABANDON GAME?, JUDGING...) is shown over it: that one comes back when the
        timed one ends, so neither goes unsaid (a press refused over JOURNAL DAMAGED)."""
        if until is None:
            self._under = None
        elif self._banner is not None and self._banner[1] is None:
            self._under = self._banner  # type: ignore[assignment]
        self._banner = (banner, until)

    def _clear_banner(self) -> None:
        """Take down the banner and any under it (an input did something)."""
        self._banner = self._under = None

    def _end_banner(self) -> None:
        """The banner shown ends (its time is up, its question answered): the one that stays
        under it, if any, comes back."""
        self._banner, self._under = self._under, None

    def _drop_banner(self, title: str) -> None:
        """Take down the banner titled ``title`` (its question answered, its work done), shown
        or under a timed one; what is over it stays."""
        if self._under is not None and self._under[0].title == title:
            self._under = None
        if self._banner is not None and self._banner[0].title == title:
            self._end_banner()

    def _abandon(self, g: float) -> None:
        """End the game in progress at game time ``g`` without a result (asked and confirmed):
        its record is saved and a new game is ready, or nothing changes while the card refuses
        the record."""
        if self._finish(abandoned_at=g):
            self.journal.close()
            self._start_new_game()
            self.message = "Game abandoned, its record saved; a new game is ready"
        else:
            self.message = "the record cannot be saved (NOT SAVING: storage); not abandoned"

    def _journal_and_apply(self, events: list[dict], g: float, cause: str = "") -> None:
        if events:
            self.message = ""  # what the events say replaces what was said before
        for ev in events:
            if cause:
                ev = {**ev, "cause": cause}
            self.journal.append(ev)
            self._effects(self.mode.apply(ev))
            if self.camera_watcher is not None:
                self.camera_watcher.game_id = self._game_id()
                self.camera_watcher.observe(ev, self.mode)
        if events:
            self._crossed = None
        self._last_g = max(g, self._last_g) if not events else g
        if events and not cause:
            # a banner stays until the next input that does something; the head's silence
            # (``cause``) is no one's input: ABANDON GAME? stays asked, and shown
            self._clear_banner()
        if self.mode.running():
            self._paused_by_head = False  # resumed since: the head's pause is over

    # -- long work off the clock thread (the judge) --------------------------------------------

    def _decide_on_worker(self, inp: Input) -> None:
        """Decide ``inp`` on a worker thread (the judge may open a lexicon or build a cache):
        the OLED says JUDGING... at once, the clock thread goes on, and the inputs that come
        meanwhile wait their turn behind it."""
        text = inp.text if isinstance(inp, Line) else ""
        self._deciding = inp
        self._show_banner(Banner("JUDGING...", text[:24]), None)
        self._decided.clear()
        mode = self.mode

        def work() -> None:
            try:
                outcome: tuple = (inp, mode, mode.decide(inp), None)
            except Exception as exc:  # noqa: BLE001 - handed to the clock thread
                outcome = (inp, mode, None, exc)
            self._queue.put(("decided", outcome, self.clock()))
            self._decided.set()

        self._decider = threading.Thread(target=work, name="judging", daemon=True)
        self._decider.start()

    def _apply_decision(self, inp: Input, mode: GameMode, events, exc) -> None:
        """On the clock thread: the worker's decision on ``inp`` is journaled and applied, then
        the inputs held behind it are taken in order."""
        self._deciding = None
        self._drop_banner("JUDGING...")
        if mode is not self.mode:
            pass  # the game changed meanwhile (cannot happen: inputs were held); dropped
        elif exc is not None:
            if isinstance(exc, ValueError):
                self.message = str(exc)
            else:
                self.message = f"the judge failed ({type(exc).__name__}: {exc})"
                self.errors.append("".join(traceback.format_exception(exc)))
        else:
            self._journal_and_apply(list(events), max(inp.t, self._last_g))
        while self._held and self._deciding is None:
            self._handle(*self._held.popleft())

    # -- faults ---------------------------------------------------------------------------------

    def _fault_words(self, key: str) -> str:
        """The OLED's words for fault ``key`` (:data:`FAULT_WORDS`; a photo not kept says why)."""
        return self._photo_words if key == "photos" else FAULT_WORDS[key]

    def _set_fault(self, key: str, detail: str | None) -> None:
        """Start (``detail``), update or end (None) fault ``key``; logged when it starts and ends."""
        had = key in self.faults
        if detail is None:
            if had:
                del self.faults[key]
                log.warning("%s: %s is over", self._fault_words(key), _part(key))
            return
        self.faults[key] = detail
        if not had:
            log.warning("%s: %s", self._fault_words(key), detail)
            if self._retry_at is None:
                self._retry_at = self._last_g + RETRY_SECONDS

    def _note_link(self) -> None:
        """The link's word for the screen (:data:`LINK_STATUS_FILE`): the director's "two
        boxes claim table N" is the ``claim`` fault while it lasts."""
        if self._table_arg is not None:
            return
        path = (self.table_file or table_path()).with_name(LINK_STATUS_FILE)
        try:
            st = path.stat()
        except OSError:
            stamp = None
        else:
            stamp = (st.st_mtime_ns, st.st_size)
        if stamp == getattr(self, "_link_stamp", None):
            return
        self._link_stamp = stamp
        claim = None
        if stamp is not None:
            try:
                found = json.loads(path.read_text(encoding="utf-8")).get("claim")
            except (OSError, ValueError, AttributeError):
                found = None
            claim = found if isinstance(found, str) and found else None
        self._set_fault("claim", claim)

    def _note_storage(self, g: float) -> None:
        """The journal's state becomes the storage fault: NOT SAVING on the OLED with a beep
        pattern while records wait in memory, and the end of it once they are on disk."""
        journal = self.journal
        if journal.failing is not None or journal.pending or self._record_unsaved:
            kept = journal.pending
            detail = journal.failing or "the game's record cannot be saved"
            detail += f"; {kept} record{'s' if kept != 1 else ''} kept in memory"
            if "storage" not in self.faults:
                self.message = NOT_SAVING_TEXT
                self._storage_beep_at = g
            self._set_fault("storage", detail)
            if self._storage_beep_at is not None and g >= self._storage_beep_at:
                count, on, off = STORAGE_BEEPS
                self._sounder.submit(("pattern", (count, on, off)))
                self._storage_beep_at = g + STORAGE_BEEP_SECONDS
        elif "storage" in self.faults:
            self._set_fault("storage", None)
            self._storage_beep_at = None
            self.message = "storage works again: every record is written"

    def _retry(self, g: float) -> None:
        """Every :data:`RETRY_SECONDS` while something fails: write the journal's backlog (and a
        finished game's record), and send the failing outputs their current value again (the
        frame shown when the OLED comes back is the current one, even on a still screen)."""
        self._sync_device_faults()
        if not self.faults:
            self._retry_at = None
            return
        if self._retry_at is None:
            self._retry_at = g + RETRY_SECONDS
        if g < self._retry_at:
            return
        self._retry_at = g + RETRY_SECONDS
        if "storage" in self.faults:
            self.journal.retry()
            if self._record_unsaved and self.mode.finished:
                self._finish()
        if "display" in self.faults and self._last_frame is not None:
            self._display.submit(self._last_frame)
        if "disc" in self.faults and self._last_angle is not None:
            self._disc.submit(self._last_angle)
        if "lights" in self.faults and self._last_lights is not None:
            self._lights.submit(dict(self._last_lights))

    def _sync_device_faults(self) -> None:
        """Take the output workers' news (their threads) into the faults, and say a write that
        has been in hand :data:`SLOW_SECONDS` or more (a write that blocks)."""
        with self._fault_lock:
            news, self._device_news = self._device_news, {}
        for name, problem in news.items():
            if name.endswith("_slow"):
                self._slow_news(name, problem)
            elif problem is None:
                self._set_fault(name, None)
                self.message = f"the {_part(name)} works again"
            else:
                self._set_fault(name, f"the {_part(name)} fails: {problem}")
                self.message = f"the {_part(name)} fails ({problem}); the clock is not affected"
        self._look_at_writes_in_hand()

    def _slow_news(self, key: str, slow: str | None) -> None:
        part = _part(key.removesuffix("_slow"))
        if slow is None:
            if key in self.faults:
                self._set_fault(key, None)
                self.message = f"the {part} is quick again"
            return
        self._set_fault(key, f"the {part} is slow: {slow}")
        self.message = f"the {part} is slow ({slow}); the clock is not affected"

    def _look_at_writes_in_hand(self) -> None:
        """A write in hand for :data:`SLOW_SECONDS` or more is said at once (one that never
        returns too); otherwise look again when the one in hand would have taken that long."""
        now = self.device_clock()
        g = self.game_time()
        check = None
        for worker in (self._display, self._disc, self._lights):
            since = worker.busy_since
            key = f"{worker.name}_slow"
            if key in self.faults or worker.slow_seconds is None:
                continue
            if since is None:
                if not worker.idle:  # a value handed over, its write about to begin
                    at = g + worker.slow_seconds
                    check = at if check is None else min(check, at)
                continue
            if now - since >= worker.slow_seconds:
                self._slow_news(key, f"one write has taken {now - since:.1f} s so far")
            else:
                at = g + (since + worker.slow_seconds - now)
                check = at if check is None else min(check, at)
        self._slow_check_at = check

    def _link_news(self, connected: bool, t_mono: float) -> None:
        """The timer head's link: silent, the clock pauses at the instant it was last heard
        (nobody can end a move without the buttons); back, the clock stays paused until a
        press (CHALLENGE) or the arbiter resumes it."""
        if connected:
            if "head" in self.faults:
                self._set_fault("head", None)
                self.message = (
                    "the timer head is back: CHALLENGE (or the arbiter) resumes the clock"
                    if self._paused_by_head and not self.mode.running()
                    else "the timer head is back"
                )
            return
        if "head" in self.faults:
            return
        self._set_fault("head", "the timer head's link is silent: no button can be pressed")
        self.message = "TIMER HEAD DISCONNECTED: check the head's cable"
        if self.mode.running() and not self.mode.finished:
            self._handle("command", "pause", t_mono, cause="timer head silent")
            self._paused_by_head = True
            self.message = (
                "TIMER HEAD DISCONNECTED: the clock is paused at the instant it was last heard; "
                "check the head's cable"
            )

    def _heartbeat(self, g: float) -> None:
        if not self.mode.running():
            self._next_heartbeat = None
            return
        if self._next_heartbeat is None:
            self._next_heartbeat = g + self.heartbeat_seconds
        elif g >= self._next_heartbeat:
            self.journal.append({"t": g, "kind": ALIVE})
            self._next_heartbeat = g + self.heartbeat_seconds

    def _shutdown(self) -> None:
        g = max(self.game_time(), self._last_g)
        self._effects(self.mode.advance(g))
        if self.mode.started and not self.mode.finished and self.journal.records:
            self.journal.append({"t": g, "kind": ALIVE})
        self.close()

    def close(self) -> None:
        """Stop the output workers, close the journal and let its lock go (devices stay open:
        the caller's)."""
        for worker in (self._display, self._disc, self._lights, self._sounder):
            worker.stop()
        self.journal.close()
        self.lock.release()

    # -- outputs ------------------------------------------------------------------------------

    def _effects(self, eff: Effects) -> None:
        if eff.finished and self._abandon_asked:
            # the game ended (on time) while ABANDON GAME? was asked: nothing to abandon
            self._abandon_asked = False
            self._drop_banner("ABANDON GAME?")
        if eff.say:
            self.message = eff.say
        if eff.beeps:
            self._beeps += eff.beeps
            self._sounder.submit(("short", eff.beeps))
        if eff.long_beep:
            self._long_beeps += 1
            self._sounder.submit(("long", 1))

    # -- the camera's news (callbacks on the camera's thread; shown by the clock thread) ------

    def _camera_warning(self, text: str) -> None:
        """The camera read a move that breaks a rule: beep twice and show ILLEGAL MOVE? with the
        rule codes on the OLED; only a warning, the clock goes on and the players decide."""
        watcher = self.camera_watcher
        mover = getattr(watcher, "warning_mover", None) or "?"
        codes = tuple(getattr(watcher, "warning_codes", ()))
        self._queue.put(("camera", ("warning", (mover, codes), text), self.clock()))

    def _camera_count(self, counts: dict | None, problem: str | None) -> None:
        self._queue.put(("camera", ("count", counts, problem), self.clock()))

    def _camera_changed(self, problem: str | None) -> None:
        self._queue.put(("camera", ("state", None, problem), self.clock()))

    def _camera_words(self, text: str, at: float | None) -> None:
        """The camera's words for the challenge whose sand stopped at ``at`` (any thread)."""
        self._queue.put(("camera", ("words", (text, at), ""), self.clock()))

    def _camera_no_words(self, why: str, at: float | None) -> None:
        """The camera gives the challenge whose sand stopped at ``at`` no words (any thread)."""
        self._queue.put(("camera", ("no words", at, why), self.clock()))

    def _camera_board(self, notation: str, trusted: bool, move: tuple | None = None) -> None:
        self._queue.put(("camera", ("board", (notation, trusted, move), ""), self.clock()))

    def _camera_photo(self, turn: int, colour: str, name: str | None, error) -> None:
        self._queue.put(("camera", ("photo", (turn, colour, name, error), ""), self.clock()))

    def _photo_news(self, data: tuple, g: float) -> None:
        """A move's photo kept (journaled as the service's own record, :data:`PHOTO`, so the
        game's record names it) or not kept: PHOTO NOT KEPT and why on the OLED's bottom line
        until a photo is kept again; the game goes on, the clock untouched."""
        turn, colour, name, error = data
        if name is not None:
            if self.journal.records and not self.mode.finished:
                self.journal.append(
                    {"t": g, "kind": PHOTO, "turn": turn, "player": colour, "photo": name}
                )
            if "photos" in self.faults:
                self._set_fault("photos", None)
                self.message = f"the photo of move {turn} is kept: the photos are kept again"
            return
        self._photo_words = error.words
        self._set_fault("photos", f"the photo of move {turn} was not kept: {error}")
        self.message = (
            f"the photo of move {turn} was not kept ({error}); the game goes on, only the "
            "arbiter's photo is missing"
        )

    def _camera_news(self, value: tuple, t_mono: float) -> None:
        """On the clock thread: news from the camera becomes a banner, the strip or a message.
        Not an input of the game: nothing is journaled and the clock is not touched."""
        from companion.daemon import overlays

        what, data, text = value
        g = max(self.game_time(t_mono), self._last_g)
        until = g + overlays.BANNER_SECONDS
        if what == "photo":
            self._photo_news(data, g)
            return
        if what == "words":
            # the words read for a challenge: taken as typed while that challenge still waits
            # for its words; a reading that lagged past its settling is said, not judged again
            words, at = data
            rec = getattr(self.mode, "challenge_rec", None)
            if (
                getattr(self.mode, "phase", None) == "words"
                and getattr(rec, "started_at", None) == at
            ):
                self._input("line", words, t_mono)
            else:
                self.message = (
                    f"the camera's words {words} came after their challenge was settled: not used"
                )
            return
        if what == "no words":
            # the camera cannot give a challenge its words: said while that challenge waits for
            # them (typed meanwhile, or settled, there is nothing to say)
            rec = getattr(self.mode, "challenge_rec", None)
            if (
                getattr(self.mode, "phase", None) == "words"
                and getattr(rec, "started_at", None) == data
            ):
                self._show_banner(Banner("WORDS NOT READ", "type the words"), until)
                self.message = text
            return
        if what == "board":
            # the board after a move, as read: journaled as the service's own record (BOARD,
            # skipped by the replay), so the game's record and the director's pages have it
            notation, trusted, move = data
            if self.mode.started and not self.mode.finished and self.journal.records:
                rec = {"t": g, "kind": BOARD, "board": notation, "trusted": trusted}
                if move is not None:  # whose move began on it, and which (a restart's replay)
                    rec["player"], rec["move"] = move
                self.journal.append(rec)
            return
        if what == "warning":
            mover, codes = data
            self._show_banner(overlays.warning_banner(mover, codes), until)
            self.message = text
            self._beeps += 2
            self._sounder.submit(("short", 2))
        elif what == "count":
            if data is not None:
                banner = overlays.count_banner(data)
                self.message = (
                    f"count from the camera: blue {data['blue']}, red {data['red']} "
                    f"({overlays.lead_text(data['blue'], data['red']).lower()})"
                )
            else:
                camera_down = bool(self.camera_problem) or "unavailable" in (text or "")
                if camera_down:
                    banner = overlays.unavailable_banner("no count")
                elif self.camera_watcher is None:
                    banner = overlays.Banner("NO CAMERA", "no count: count by hand")
                else:  # the camera works but the board was not read surely (a hand over it?)
                    banner = overlays.no_count_banner(text)
                self.message = f"no count: {text}"
            self._show_banner(banner, until)
        elif what == "state":
            self.camera_problem = text
            self.message = text or "the camera is back"
        else:
            self.message = text

    def _sound(self, what) -> None:
        kind, count = what
        if kind == "long":
            self.devices.sounder.beep(1, on_seconds=1.5, off_seconds=0.1)
        elif kind == "pattern":
            n, on, off = count
            self.devices.sounder.beep(n, on_seconds=on, off_seconds=off)
        else:
            self.devices.sounder.beep(count)

    def _show_frame(self, item) -> None:
        frame, inputs = item
        image = render(frame, *self._size)
        display = self.devices.display
        display.display(image)
        if self.on_frame is not None:
            self.on_frame(image, inputs)
        problem = getattr(display, "problem", None)  # a wrapper that never raises says so
        if problem:
            raise DisplayProblem(problem)

    def disc_angle(self, disc_minutes: int) -> float:
        """Degrees for the disc at ``disc_minutes`` from its start (pin map calibration: one
        step of ``degrees_per_minute`` per minute, clamped to the servo's range)."""
        servo = self.pinmap.servo
        angle = disc_minutes * servo.degrees_per_minute
        return min(max(angle, servo.min_angle), servo.max_angle)

    def _overlaid(self, view: View, g: float) -> tuple[View, str, tuple[str, ...]]:
        """The mode's view with the banner and the bottom strip (a fault's words, else the
        camera's) drawn over it, the banner's text ("" when none is up) and the faults' words."""
        from companion.daemon import overlays

        banner = None
        if self._banner is not None:
            banner, until = self._banner
            if until is not None and g >= until:
                self._end_banner()
                banner = None if self._banner is None else self._banner[0]
        words = tuple(self._fault_words(k) for k in self.faults if k != "display")
        redraw = view.redraw_at
        strip: bool | str = self.camera_problem is not None and view.status in (
            overlays.STRIP_STATUSES
        )
        if words:
            page = int(g // FAULT_PAGE_SECONDS)
            strip = words[page % len(words)]
            if len(words) > 1:
                turn = (page + 1) * FAULT_PAGE_SECONDS
                redraw = turn if redraw is None else min(redraw, turn)
        if banner is None and not strip:
            self._overlay_shown = None
            return view, "", words
        if banner is not None and self._banner is not None and self._banner[1] is not None:
            until = self._banner[1]
            redraw = until if redraw is None else min(redraw, until)
        # a banner or strip longer than its lines is shown in turns, from when it went up
        if (banner, strip) != getattr(self, "_overlay_shown", None):
            self._overlay_shown, self._overlay_since = (banner, strip), g
        turn = screen.turn_at(g, self._overlay_since)
        next_turn = screen.next_turn_at(g, self._overlay_since)
        redraw = next_turn if redraw is None else min(redraw, next_turn)
        key = None if view.key is None else (view.key, banner, strip, turn)
        frame = overlays.over(view.frame, banner, strip, turn)
        return replace(view, frame=frame, key=key, redraw_at=redraw), str(banner or ""), words

    def _publish(self, g: float) -> None:
        self._sync_device_faults()
        view, banner, words = self._overlaid(self.mode.view(g), g)
        self._view = view
        if view.key is None or view.key != self._last_key or self._inputs != self._last_inputs:
            self._last_frame = (view.frame, self._inputs)
            self._display.submit(self._last_frame)
            if self._slow_check_at is None and not self._display.inline:
                self._slow_check_at = g + SLOW_SECONDS  # the write begins about now
        self._last_key, self._last_inputs = view.key, self._inputs
        angle = None
        if view.disc_minutes is not None:
            angle = self.disc_angle(view.disc_minutes)
            if angle != self._last_angle:
                self._disc.submit(angle)
                self._last_angle = angle
        if view.lights != self._last_lights:
            self._lights.submit(dict(view.lights))
            self._last_lights = dict(view.lights)
        message = self.message
        if "storage" in self.faults and "NOT SAVING" not in message:
            # said until a write succeeds: a press's own message never replaces it
            message = f"{NOT_SAVING_TEXT}; {message}" if message else NOT_SAVING_TEXT
        self.published = Published(
            t=g,
            status=view.status,
            prompt=view.prompt,
            lights=dict(view.lights),
            disc_angle=self._last_angle if angle is None else angle,
            beeps=self._beeps,
            long_beeps=self._long_beeps,
            inputs=self._inputs,
            message=message,
            records_saved=self.records_saved,
            banner=banner,
            camera=self.camera_problem or "",
            faults=words,
            judging=self._deciding is not None,
        )

    # -- for tests and the scripted simulator --------------------------------------------------

    def run_until(
        self, t_mono: float, set_clock: Callable[[float], None], settle: bool = True
    ) -> None:
        """With a fake clock: process every deadline up to ``t_mono`` in order, then the inputs.

        ``set_clock(t)`` moves the fake clock; each wake-up happens exactly at its deadline, as
        :meth:`run` would sleep to it. ``settle``: a decision on the worker (the judge) is
        waited for (real time) and applied, as if it took no time on the fake clock.
        """
        self.step()
        while True:
            if settle and self._deciding is not None and self.wait_decided(120):
                self.step()
                continue
            wake = self.next_wake()
            if wake is None or wake + self._offset > t_mono:
                break
            # the first clock reading whose game time reaches the deadline (floats may round
            # wake + offset - offset to just below wake, and the loop would never get past it)
            t = wake + self._offset
            while t - self._offset < wake:
                t = math.nextafter(t, math.inf)
            set_clock(max(t, self.clock()))
            self.step()
        set_clock(max(t_mono, self.clock()))
        self.step()
        while settle and self._deciding is not None and self.wait_decided(120):
            self.step()


def _part(key: str) -> str:
    """The part a fault names: servo, buzzer, LEDs, OLED, storage, timer head."""
    key = key.removesuffix("_slow")
    return PART_NAMES.get(key, {"storage": "storage", "head": "timer head"}.get(key, key))


def _game_events(records: list[dict]) -> list[dict]:
    """The journal's game events: every record after the header but the service's own
    (heartbeats and the like, whose ``kind`` starts with ``_``)."""
    return [r for r in records[1:] if not str(r.get("kind", "")).startswith("_")]


def raise_priority(nice: int) -> bool:
    """Give the calling thread niceness ``nice`` (Linux: per thread); False when not allowed."""
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) > nice:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        return True
    except (OSError, AttributeError):
        return False


def _last_time(records: list[dict], first_line: int = 1) -> float:
    """The latest ``t`` (seconds of game time) of the journal's records (``records[0]`` is on
    line ``first_line``).

    Raises:
        ReplayError: a record whose ``t`` is not a finite number 0 or more (names its line).
    """
    last = 0.0
    for n, rec in enumerate(records, first_line):
        t = rec.get("t", 0.0)
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            raise ReplayError(
                f"line {n}: record seq {rec.get('seq')!r}: time 't' = {t!r}; "
                "accepted: seconds, a finite number 0 or more"
            )
        last = max(last, float(t))
    return last


_NEVER_BACK = (
    f"the journal's time never goes backwards (an input counted late, {LATE_INPUT_SECONDS:g} s at "
    "most, after the service's own records)"
)


def _time_goes_back(records: list[dict]) -> tuple[int, str] | None:
    """Where the journal's time goes backwards (the service writes game time, which never does):
    None when it never does, else the index of the first record to set aside and what is wrong,
    naming its line (``records[0]`` is line 1).

    A record may be earlier than the records before it only as an input counted at the instant
    it was made is (:meth:`TableService._late_input`): by :data:`LATE_INPUT_SECONDS` at most,
    and never earlier than a game event before it (the service's own records, heartbeats and
    boards read, may have been journaled meanwhile). The damaged record is the one that
    disagrees with its neighbours: a record whose time is later than the record after it while
    that one agrees with everything before (a time that jumped ahead: ``1, 2, 8.1, 3.0`` sets
    aside from 8.1 on), else the record that goes back (``1, 2, 3, 0.5`` sets aside from 0.5
    on). Times that are not numbers are left to the replay's own checks (:func:`_last_time`).
    """
    latest = before = 0.0  # the latest time so far, and the latest before the record holding it
    latest_at = 0
    event = 0.0  # the latest time of a game event so far
    for i, rec in enumerate(records):
        t = rec.get("t")
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
            continue  # no time, or not a number: the replay says so (_last_time)
        if t < latest and (t < event or latest - t > LATE_INPUT_SECONDS):
            ahead = records[latest_at]
            if latest_at == i - 1 and t >= before:
                return latest_at, (
                    f"line {latest_at + 1}: record {_shown_record(ahead)}: time {latest:g} s is "
                    f"later than the record after it ({t:g} s, line {i + 1}); {_NEVER_BACK}"
                )
            return i, (
                f"line {i + 1}: record {_shown_record(rec)}: time {t:g} s is earlier than "
                f"{latest:g} s (line {latest_at + 1}); {_NEVER_BACK}"
            )
        if i and not str(rec.get("kind", "")).startswith("_"):
            event = max(event, float(t))
        if t > latest:
            before, latest, latest_at = latest, float(t), i
    return None


def _shown_record(record: dict) -> str:
    """A journal record as its line shows it (JSON), cut to 120 characters."""
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def _stamp() -> str:
    return _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
