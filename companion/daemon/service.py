"""The table service: device events -> game mode (the clock) -> outputs, with a journal.

One thread (the *clock thread*, :meth:`TableService.run`) owns the game mode. Buttons (from
gpiozero's or a serial reader's thread), typed lines and arbiter commands are put on a queue,
stamped with the monotonic time at which they happened. The clock thread sleeps on that queue
until the next input or the next deadline (the minute running out, the bar's next pixel, a
heartbeat), whichever comes first: it never polls. For each input the mode decides the events,
each is appended to the journal (synced) and only then applied. Outputs go to worker threads
(:mod:`companion.daemon.outputs`): the display renders the frame off the clock path, and the servo,
LEDs and buzzer each have their own, so a slow device delays nothing else.

Game time is ``monotonic - offset``: it starts at 0 with the game and, after a restart, continues
from the last instant the journal proves the service was alive (a heartbeat every
``heartbeat_seconds`` while the clock runs, and one at a clean stop), so the time the service was
down is charged to no one. Deadlines come from the mode (the clock's ``next_deadline()``, computed
from the move's start), so nothing drifts.

Files: ``data_dir()/table/journal.jsonl`` is the game in progress; a finished game's result and
full record go to ``data_dir()/records/`` (``<stamp>-table<N>.json``) and the next game starts clean.
"""

from __future__ import annotations

import collections
import datetime as _dt
import json
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

from companion.daemon.challenge import JudgeFn
from companion.daemon.config import TableConfig, load_table, table_path, validate
from companion.daemon.journal import Journal, JournalError
from companion.daemon.modes import (
    Command,
    Effects,
    GameMode,
    Input,
    Line,
    ModeContext,
    Press,
    ReplayError,
    View,
    mode_class,
    replay,
)
from companion.daemon.outputs import LatestWorker, QueueWorker
from companion.daemon.overlays import Banner
from companion.daemon.screen import render
from companion.devices.base import DeviceBundle
from companion.errors import CompanionError
from companion.paths import data_dir

SWITCH_INTERVAL = 0.001  # seconds (Python's default is 0.005)
CLOCK_NICE = -10  # the clock thread's niceness when the system allows it
FAILURE_BACKOFF = 0.1  # seconds: the least sleep after a step that raised
HEADER = "_game"
ALIVE = "_alive"


@dataclass(frozen=True)
class Published:
    """What the table shows, for the simulator and tests (replaced as a whole; read freely).

    ``t`` game seconds; ``status`` the mode's word; ``prompt`` typed text expected (or None);
    ``lights`` per LED; ``disc_angle`` degrees; ``beeps`` total short beeps; ``long_beeps``;
    ``inputs`` inputs handled so far; ``message`` the service's own notice (restart, errors);
    ``banner`` the camera's banner on the OLED now (``ILLEGAL MOVE? BLUE: disconnected``, the
    colour count) or ""; ``camera`` the camera's problem while it gives no frame, else "".
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


def journal_path() -> Path:
    """data_dir()/table/journal.jsonl: the journal of the game in progress."""
    return data_dir() / "table" / "journal.jsonl"


def records_dir() -> Path:
    """data_dir()/records: the saved results and records of finished games."""
    path = data_dir() / "records"
    path.mkdir(parents=True, exist_ok=True)
    return path


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

    Raises:
        TableConfigError, ModeError, JournalError from the set-up, the mode or the journal.
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
        self._judge = judge
        self._queue: queue.Queue = queue.Queue()
        self._stopping = threading.Event()
        self.published = Published()
        self.step_failures = 0
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
        size = (devices.display.width, devices.display.height)
        self._display = LatestWorker("display", self._show_frame, inline_outputs)
        self._disc = LatestWorker("disc", devices.disc.turn_to, inline_outputs)
        self._lights = LatestWorker("lights", devices.lights.set, inline_outputs)
        self._sounder = QueueWorker("sounder", self._sound, inline_outputs)
        self._size = size
        self._last_angle: float | None = None
        self._last_key: object = None
        self._last_inputs = -1
        self._last_lights: dict | None = None
        self.mode: GameMode
        self.journal: Journal
        self._open_game()
        # the camera, if any, reads the board and gives a challenge its words (docs/vision.md)
        from companion.vision.table import watcher_for

        self.camera_watcher = watcher_for(devices.camera, self.line)
        self.camera_problem: str | None = None  # the camera gives no frame (on the OLED)
        self._banner: tuple[Banner, float | None] | None = None  # and until (game time)
        if self.camera_watcher is not None:
            self.camera_watcher.on_warning = self._camera_warning
            self.camera_watcher.on_count = self._camera_count
            self.camera_watcher.on_camera = self._camera_changed
        elif (getattr(pinmap, "camera", None) or {}).get("kind", "none") != "none":
            self.camera_problem = "camera unavailable: it could not be opened (see the log)"
        devices.buttons.on_press(self._on_press)

    # -- the game's life: new, resumed, finished -----------------------------------------------

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

    def _open_game(self) -> None:
        """Resume the journal's game if it had started, else begin a new one."""
        path = self.journal_file
        try:
            journal = Journal.open(path, fsync=self.fsync)
        except JournalError as exc:
            damaged = path.with_name(f"{path.name}.damaged-{_stamp()}")
            path.replace(damaged)
            self.message = (
                f"journal damaged ({exc}); the file is set aside as {damaged.name} "
                "and a new game starts"
            )
            journal = Journal.open(path, fsync=self.fsync)
        records = journal.records
        header = records[0] if records and records[0].get("kind") == HEADER else None
        events = _game_events(records)
        if header is None or not events:
            journal.close()
            self._start_new_game(fresh_file=True)
            if journal.dropped_torn:
                self.message = "torn last journal record dropped"
            return
        try:
            self.mode = self._mode_from_journal(records, f"{path} header")
            last = _last_time(records)
        except (ValueError, KeyError, TypeError) as exc:  # a journal this code cannot replay
            # The journal is written only by the service: a record it cannot apply means the
            # file was damaged. Replaying around it could give a wrong clock or score, so the
            # whole file is kept aside for inspection and a clean game starts.
            journal.close()
            damaged = path.with_name(f"{path.name}.unreadable-{_stamp()}")
            path.replace(damaged)
            self._start_new_game(fresh_file=True)
            problem = str(exc) if not isinstance(exc, KeyError) else f"missing key {exc}"
            self.message = (
                f"journal could not be replayed ({path.name} {problem}); the file is set aside "
                f"as {damaged.name} and a new game starts"
            )
            return
        self.journal = journal
        self._offset = self.clock() - last
        self._last_g = last
        for ev in self.mode.on_restart(last):
            self.journal.append(ev)
            self.mode.apply(ev)
        self.message = "Restarted: the game resumes where it was, paused"
        if journal.dropped_torn:
            self.message += " (torn last record dropped)"
        if self.mode.finished:
            self._finish()

    def _start_new_game(self, fresh_file: bool) -> None:
        stamp = self._table_file_stamp()  # before reading: a set-up written after is seen next
        table = self._new_table()
        self.mode = mode_class(table.game)(self._context(table))
        if fresh_file and self.journal_file.exists():
            self.journal_file.unlink()
        self.journal = Journal.open(self.journal_file, fsync=self.fsync)
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
        self._crossed = None
        self._next_heartbeat = None

    def _finish(self, abandoned_at: float | None = None) -> None:
        """Save the finished (or abandoned) game's result and full record; empty the journal."""
        records = [r for r in self.journal.records if r.get("kind") != ALIVE]
        header = records[0] if records else {}
        result = self.mode.result()
        if abandoned_at is not None:
            result = {**result, "abandoned": True, "abandoned_at": abandoned_at}
        stamp = _stamp()
        number = header.get("settings", {}).get("number", "")
        path = self._records_dir() / f"{stamp}-table{number}.json"
        payload = {"result": result, "settings": header.get("settings"), "record": records}
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(payload, indent=1), encoding="utf-8")
        tmp.replace(path)
        self.last_record_path = path
        self.records_saved += 1
        self.journal.close()
        self.journal_file.replace(self._records_dir() / f"{stamp}-table{number}.journal.jsonl")
        self.journal = Journal.open(self.journal_file, fsync=self.fsync)  # empty until next game
        self.message = "Game over, record saved. CHALLENGE: a new game"

    # -- inputs (any thread) ------------------------------------------------------------------

    def _on_press(self, role: str, t_mono: float) -> None:
        self._queue.put(("press", role, t_mono))

    def line(self, text: str, t_mono: float | None = None) -> None:
        """A typed line (Enter pressed), e.g. the challenged words."""
        self._queue.put(("line", text, self.clock() if t_mono is None else t_mono))

    def command(self, name: str, t_mono: float | None = None) -> None:
        """An arbiter's command: pause, resume, override, confirm, cancel, new (a new game after
        the end of one), abandon (end the game in progress without a result, its record saved)."""
        self._queue.put(("command", name, self.clock() if t_mono is None else t_mono))

    def count(self, t_mono: float | None = None) -> None:
        """The colour count on request (Iago rulebook, "The Move" (2)): the camera reads the board
        in the background and the OLED shows ``BLUE n  RED m`` and who leads for a few seconds
        (:data:`~companion.daemon.overlays.BANNER_SECONDS`), or that the camera is unavailable.
        The clock is not touched and nothing is journaled (any thread)."""
        t = self.clock() if t_mono is None else t_mono
        if getattr(self.mode, "name", "") != "iago":
            self._queue.put(("camera", ("say", None, "the colour count is Iago's"), t))
        elif self.camera_watcher is None:
            problem = self.camera_problem or "no camera ([camera] kind in the pin map)"
            self._queue.put(("camera", ("count", None, problem), t))
        else:
            self.camera_watcher.request_count()

    def stop(self) -> None:
        """Ask the clock thread to finish (it notes the instant in the journal first)."""
        self._stopping.set()
        self._queue.put(("stop", None, self.clock()))

    # -- the clock thread ---------------------------------------------------------------------

    def game_time(self, t_mono: float | None = None) -> float:
        """Game seconds at monotonic ``t_mono`` (default now)."""
        return (self.clock() if t_mono is None else t_mono) - self._offset

    def next_wake(self) -> float | None:
        """The next game time the clock thread must wake at without an input (or None)."""
        times = [self.mode.next_deadline(), self._next_heartbeat, self.next_setup_check()]
        if self._view is not None:
            times.append(self._view.redraw_at)
        due = [t for t in times if t is not None]
        return min(due) if due else None

    def run(
        self, on_wake: Callable[[], None] | None = None, max_sleep: float | None = None
    ) -> None:
        """The clock thread's loop, until :meth:`stop`. Sleeps until an input or a deadline.

        ``on_wake`` is called after every step (the systemd watchdog feed) and ``max_sleep``
        (seconds) bounds each sleep so that it is called even while nothing happens. The
        interpreter's thread switch interval is shortened to 1 ms so that a display thread busy
        drawing hands over quickly when a deadline wakes the clock, and the clock thread asks the
        kernel for a higher priority (nice :data:`CLOCK_NICE`) where it is allowed (root,
        CAP_SYS_NICE, or systemd's ``Nice=``/``LimitNICE=``); elsewhere it runs as it is.
        """
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        raise_priority(CLOCK_NICE)
        self.step()
        while not self._stopping.is_set():
            wake = self.next_wake()
            timeout = None if wake is None else max(0.0, wake - self.game_time())
            if max_sleep is not None:
                timeout = max_sleep if timeout is None else min(timeout, max_sleep)
            if self.step_failures and timeout is not None:
                timeout = max(timeout, FAILURE_BACKOFF)  # never spin on a step that keeps failing
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                item = None
            try:
                self.step(item)
                self.step_failures = 0
            except Exception as exc:  # noqa: BLE001 - the table must keep running
                self.step_failures += 1
                self.message = f"internal error ({type(exc).__name__}: {exc}); the table runs on"
                self.errors.append(traceback.format_exc())
            if on_wake is not None:
                on_wake()
        self._shutdown()

    def step(self, first: tuple | None = None) -> None:
        """Handle ``first`` (an input already taken from the queue) and every queued input, in
        order, then let time run to now and update the outputs.

        Tests call this directly with a fake clock; :meth:`run` calls it on each wake-up.
        """
        while True:
            if first is not None:
                kind, value, t_mono = first
                first = None
            else:
                try:
                    kind, value, t_mono = self._queue.get_nowait()
                except queue.Empty:
                    break
            if kind == "stop":
                self._stopping.set()
                continue
            if kind == "camera":
                self._camera_news(value, t_mono)
                continue
            self._handle(kind, value, t_mono)
        g = max(self.game_time(), self._last_g)
        deadline = self.mode.next_deadline()
        if deadline is not None and deadline <= g and self._crossed is None:
            self._crossed = deadline
        self._effects(self.mode.advance(g))
        self._last_g = g
        self._heartbeat(g)
        if self.mode.finished and self.journal.records:
            self._finish()
        self._take_new_setup()
        self._publish(g)

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

    def _mode_from_journal(self, records: list[dict], where: str) -> GameMode:
        """A fresh mode of the journal's game (its header ``records[0]``) with every journaled
        event applied. Raises ValueError, KeyError or TypeError on a journal it cannot replay."""
        header = records[0]
        table = validate(header.get("settings", {}), where, check_names=False)
        mode = mode_class(header.get("mode", table.game))(self._context(table))
        replay(mode, records[1:])
        return mode

    def _late_input(self, g: float) -> float:
        """The game time an input stamped at ``g`` counts at.

        An input is handled a little after the pin changed (a queue, a serial frame that came
        late). If a deadline of the mode (a sand minute running out) was processed in between,
        the mode is rebuilt from the journal as it was at ``g``, so that a press made at 59.99 s
        is not charged the minute that ran out at 60 s while it waited: the press counts at the
        instant the pin changed (issue 2). Otherwise nothing depends on the few milliseconds and
        the input counts at the instant already processed (the clock never goes backwards).
        """
        if g >= self._last_g:
            return g
        if self._crossed is None or g >= self._crossed or not self.journal.records:
            return self._last_g
        records = self.journal.records
        events = _game_events(records)
        if events and float(events[-1].get("t", 0.0)) > g:
            return self._last_g
        try:
            mode = self._mode_from_journal(records, "journal header")
            mode.advance(g)
        except (ValueError, KeyError, TypeError):
            return self._last_g
        self.mode = mode
        self._crossed = None
        return g

    def _handle(self, kind: str, value, t_mono: float) -> None:
        g = self._late_input(self.game_time(t_mono))
        self._inputs += 1
        if self.mode.finished or not self.journal.records:
            if (kind == "press" and value == "challenge") or (kind, value) == ("command", "new"):
                self._start_new_game(fresh_file=True)
                self.message = ""
            return
        if kind == "command" and value == "new":
            self.message = "a game is under way: 'new' is for after its end ('abandon' ends it)"
            return
        if kind == "command" and value == "abandon":
            if self.mode.started:
                self._finish(abandoned_at=g)
                self.journal.close()
                self._start_new_game(fresh_file=True)
                self.message = "Game abandoned, its record saved; a new game is ready"
            return
        inp: Input
        if kind == "press":
            inp = Press(value, g)
        elif kind == "line":
            inp = Line(value, g)
        else:
            inp = Command(value, g)
        try:
            events = self.mode.decide(inp)
        except ValueError as exc:
            self.message = str(exc)
            return
        for ev in events:
            self.journal.append(ev)
            self._effects(self.mode.apply(ev))
            if self.camera_watcher is not None:
                self.camera_watcher.observe(ev, self.mode)
        if events:
            self._crossed = None
        self._last_g = max(g, self._last_g) if not events else g
        if events:
            self.message = ""
            self._banner = None  # a banner stays until the next input that does something

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
        """Stop the output workers and close the journal (devices stay open: the caller's)."""
        for worker in (self._display, self._disc, self._lights, self._sounder):
            worker.stop()
        self.journal.close()

    # -- outputs ------------------------------------------------------------------------------

    def _effects(self, eff: Effects) -> None:
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

    def _camera_news(self, value: tuple, t_mono: float) -> None:
        """On the clock thread: news from the camera becomes a banner, the strip or a message.
        Not an input of the game: nothing is journaled and the clock is not touched."""
        from companion.daemon import overlays

        what, data, text = value
        g = max(self.game_time(t_mono), self._last_g)
        until = g + overlays.BANNER_SECONDS
        if what == "warning":
            mover, codes = data
            self._banner = (overlays.warning_banner(mover, codes), until)
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
                else:  # the camera works but the board was not read (a hand over it?)
                    banner = overlays.Banner("NO COUNT", "board not read: try again")
                self.message = f"no count: {text}"
            self._banner = (banner, until)
        elif what == "state":
            self.camera_problem = text
            self.message = text or "the camera is back"
        else:
            self.message = text

    def _sound(self, what) -> None:
        kind, count = what
        if kind == "long":
            self.devices.sounder.beep(1, on_seconds=1.5, off_seconds=0.1)
        else:
            self.devices.sounder.beep(count)

    def _show_frame(self, item) -> None:
        frame, inputs = item
        image = render(frame, *self._size)
        self.devices.display.display(image)
        if self.on_frame is not None:
            self.on_frame(image, inputs)

    def disc_angle(self, disc_minutes: int) -> float:
        """Degrees for the disc at ``disc_minutes`` from its start (pin map calibration: one
        step of ``degrees_per_minute`` per minute, clamped to the servo's range)."""
        servo = self.pinmap.servo
        angle = disc_minutes * servo.degrees_per_minute
        return min(max(angle, servo.min_angle), servo.max_angle)

    def _overlaid(self, view: View, g: float) -> tuple[View, str]:
        """The mode's view with the camera's banner and strip drawn over it, and the banner's
        text ("" when none is up)."""
        from companion.daemon import overlays

        banner = None
        if self._banner is not None:
            banner, until = self._banner
            if until is not None and g >= until:
                self._banner, banner = None, None
        strip = self.camera_problem is not None and view.status in overlays.STRIP_STATUSES
        if banner is None and not strip:
            return view, ""
        redraw = view.redraw_at
        if banner is not None and self._banner is not None and self._banner[1] is not None:
            until = self._banner[1]
            redraw = until if redraw is None else min(redraw, until)
        key = None if view.key is None else (view.key, banner, strip)
        frame = overlays.over(view.frame, banner, strip)
        return replace(view, frame=frame, key=key, redraw_at=redraw), str(banner or "")

    def _publish(self, g: float) -> None:
        view, banner = self._overlaid(self.mode.view(g), g)
        self._view = view
        if view.key is None or view.key != self._last_key or self._inputs != self._last_inputs:
            self._display.submit((view.frame, self._inputs))
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
        self.published = Published(
            t=g,
            status=view.status,
            prompt=view.prompt,
            lights=dict(view.lights),
            disc_angle=self._last_angle if angle is None else angle,
            beeps=self._beeps,
            long_beeps=self._long_beeps,
            inputs=self._inputs,
            message=self.message,
            records_saved=self.records_saved,
            banner=banner,
            camera=self.camera_problem or "",
        )

    # -- for tests and the scripted simulator --------------------------------------------------

    def run_until(self, t_mono: float, set_clock: Callable[[float], None]) -> None:
        """With a fake clock: process every deadline up to ``t_mono`` in order, then the inputs.

        ``set_clock(t)`` moves the fake clock; each wake-up happens exactly at its deadline, as
        :meth:`run` would sleep to it.
        """
        self.step()
        while True:
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


def _last_time(records: list[dict]) -> float:
    """The latest ``t`` (seconds of game time) of the journal's records.

    Raises:
        ReplayError: a record whose ``t`` is not a finite number 0 or more (names its line).
    """
    last = 0.0
    for n, rec in enumerate(records, 1):
        t = rec.get("t", 0.0)
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            raise ReplayError(
                f"line {n}: record seq {rec.get('seq')!r}: time 't' = {t!r}; "
                "accepted: seconds, a finite number 0 or more"
            )
        last = max(last, float(t))
    return last


def _stamp() -> str:
    return _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
