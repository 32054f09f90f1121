"""Simulated tables for the tests, the benchmark and ``make tournament``: the real table service
(:class:`companion.daemon.service.TableService`) on mock devices (gpiozero's mock pins, luma's
dummy OLED), each with its own configuration and data folders, and its real
:class:`~companion.tournament.link.Link` (in this process, or ``companion link`` in another).

One :class:`Hall` thread drives many tables: it steps each service when its next deadline comes
(the clock's minutes, the OLED's redraws, heartbeats) and each link as often as its poll, so a
hundred tables need no hundred clock threads. Presses go through the mock pins, exactly as a
button's would.

Folders of table N under ``root``: ``tableN/config/table.toml`` (``[table]`` and
``[tournament]``) and ``tableN/data/`` (``table/journal.jsonl``, ``records/``, ``link/``): the
``COMPANION_CONFIG_DIR`` and ``COMPANION_DATA_DIR`` of that table's ``companion link``.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

WORDS = {"CAT", "CATS", "DOG", "DOGS", "QI", "TEA"}

_PINMAP = None


def _pinmap():
    global _PINMAP
    if _PINMAP is None:
        from companion.devices.pinmap import load_pinmap

        _PINMAP = load_pinmap(backend="mock")
    return _PINMAP


class TableFiles:
    """The files of simulated table ``number`` under ``root`` (see the module docstring), read
    without running anything: for :func:`audit` in another process than the tables'."""

    def __init__(self, root: Path, number: int) -> None:
        self.number = number
        self.home = Path(root) / f"table{number}"
        self.config_dir = self.home / "config"
        self.data_dir = self.home / "data"
        self.table_toml = self.config_dir / "table.toml"
        self.journal_file = self.data_dir / "table" / "journal.jsonl"
        self.records_dir = self.data_dir / "records"
        self.link_dir = self.data_dir / "link"

    def link_env(self) -> dict[str, str]:
        """The environment of this table's ``companion link`` in a process of its own."""
        return {
            "COMPANION_DATA_DIR": str(self.data_dir),
            "COMPANION_CONFIG_DIR": str(self.config_dir),
        }

    def records(self) -> list[dict]:
        """The finished games saved by this table (``records/*.json``), oldest first."""
        out = []
        for path in sorted(self.records_dir.glob("*.json")):
            out.append(json.loads(path.read_text(encoding="utf-8")))
        return out

    def journals(self) -> dict[str, list[dict]]:
        """Every journal of this table by game id: the finished games' archived journals and
        the game in progress."""
        from companion.daemon.journal import read_records
        from companion.tournament.link import game_id

        out: dict[str, list[dict]] = {}
        paths = sorted(self.records_dir.glob("*.journal.jsonl")) + [self.journal_file]
        for path in paths:
            records, _, _ = read_records(path)
            if records:
                out[game_id(records[0])] = records
        return out


class SimTable(TableFiles):
    """Table ``number``: a real table service on mock devices, files under ``root/tableN``.

    Args:
        root: the folder of the simulated hall.
        number: the table number.
        clock: monotonic seconds (a fake clock in tests, ``time.monotonic`` in real time).
        minutes, minute_seconds: the time control until a set-up arrives.
        fsync: sync the journal (keep True where nothing-lost is measured).
        draw: draw the OLED's frames on the dummy display (False: the views are made but not
            drawn, about 5 ms of PIL a frame; for the 200-table benchmark on a small machine).
    """

    def __init__(
        self,
        root: Path,
        number: int,
        clock=time.monotonic,
        minutes: int = 1,
        minute_seconds: float = 60.0,
        fsync: bool = True,
        heartbeat_seconds: float = 1.0,
        draw: bool = True,
    ) -> None:
        from companion.daemon.challenge import set_judge
        from companion.daemon.config import TableConfig, save_table
        from companion.daemon.service import TableService
        from companion.devices.backends import open_devices

        super().__init__(root, number)
        self.journal_file.parent.mkdir(parents=True, exist_ok=True)
        if not self.table_toml.exists():
            save_table(
                TableConfig(
                    number=number,
                    blue=f"Blue{number}",
                    red=f"Red{number}",
                    minutes=minutes,
                    minute_seconds=minute_seconds,
                ),
                self.table_toml,
            )
        self.clock = clock
        self.devices = open_devices(_pinmap(), clock=clock, backend="mock")
        self.service = TableService(
            self.devices,
            _pinmap(),
            judge=set_judge(WORDS, "sim-words"),
            clock=clock,
            journal_file=self.journal_file,
            inline_outputs=True,
            fsync=fsync,
            heartbeat_seconds=heartbeat_seconds,
            setup_poll_seconds=0.2,
            table_file=self.table_toml,
            records_path=self.records_dir,
        )
        if not draw:  # the table's own display worker, made to draw nothing
            from companion.daemon.outputs import LatestWorker

            self.service._display = LatestWorker("display", lambda item: None, True)
        self.service.step()
        self.lock = threading.Lock()

    def join(self, url: str, event: str, username: str, password: str, ca: str | None = None):
        """Write ``[tournament]`` (broker, event, credentials) into the table's table.toml."""
        creds = self.config_dir / "link-credentials.json"
        creds.write_text(json.dumps({"username": username, "password": password}))
        text = self.table_toml.read_text(encoding="utf-8")
        if "[tournament]" not in text:
            lines = [
                "",
                "[tournament]",
                f'broker = "{url}"',
                f'event = "{event}"',
                f"table = {self.number}",
                f'credentials = "{creds}"',
            ]
            if ca:
                lines.append(f'ca = "{ca}"')
            text = text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"
            tmp = self.table_toml.with_suffix(".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(self.table_toml)

    def link(self, **options):
        """This table's :class:`~companion.tournament.link.Link` (not started)."""
        from companion.tournament.link import Link, load_config

        return Link(
            load_config(self.table_toml),
            journal_file=self.journal_file,
            records_dir=self.records_dir,
            table_toml=self.table_toml,
            state_dir=self.link_dir,
            **options,
        )

    def press(self, role: str) -> None:
        """Press and release ``role``'s button (``blue``, ``red``, ``challenge``) through its
        mock pin, and let the service handle it."""
        pin = self.devices.pins[f"buttons.{role}"]
        with self.lock:
            self.devices.extra["pin_factory"].tap(pin)  # a 10 ms tap (the glitch filter: 2 ms)
            self.service.step()

    def due(self) -> bool:
        """True when the service has a deadline (or an input) to handle now."""
        wake = self.service.next_wake()
        return (wake is not None and self.service.game_time() >= wake) or (
            not self.service._queue.empty()
        )

    def step(self) -> None:
        """Let the service handle what is due."""
        with self.lock:
            self.service.step()

    def close(self) -> None:
        """Stop the service's outputs and close its journal."""
        with self.lock:
            self.service.close()


@dataclass
class Script:
    """A scripted Iago game: presses at seconds after the start, alternately by the player not
    on move; after the last press the player on move runs out of time and loses."""

    presses: list[tuple[float, str]]
    start: float = 0.0
    done: int = 0

    @property
    def winner(self) -> str:
        """The colour of the last press: his opponent is left on move and loses on time."""
        return self.presses[-1][1]


def scripted_game(rng: random.Random, moves: int, gap: tuple[float, float]) -> Script:
    """``moves`` presses, ``gap`` seconds apart (uniform), starting with red's press that
    starts blue's move (the rulebook: the player who does not move first starts the clock)."""
    presses = [(0.0, "red")]
    t = 0.0
    role = "blue"
    for _ in range(moves):
        t += rng.uniform(*gap)
        presses.append((t, role))
        role = "red" if role == "blue" else "blue"
    return Script(presses)


@dataclass
class Hall:
    """Drives tables and in-process links from one thread (see the module docstring).

    ``scripts`` maps a table number to its :class:`Script`, started by :meth:`play`.
    """

    tables: list[SimTable]
    links: list = field(default_factory=list)
    poll: float = 0.01
    sweep: float = 0.1
    scripts: dict[int, Script] = field(default_factory=dict)
    press_times: list[tuple[int, int, float]] = field(default_factory=list)
    """``(table, journal records after the press, wall time of the press)`` for latency."""

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []

    def play(self, number: int, script: Script, at: float | None = None) -> None:
        """Start table ``number``'s script now (or at monotonic ``at``)."""
        script.start = time.monotonic() if at is None else at
        script.done = 0
        self.scripts[number] = script

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="hall", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10.0)

    def run(self) -> None:
        by_number = {t.number: t for t in self.tables}
        next_sweep = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            pressed = []
            for number, script in list(self.scripts.items()):
                table = by_number[number]
                while script.done < len(script.presses) and (
                    now >= script.start + script.presses[script.done][0]
                ):
                    table.press(script.presses[script.done][1])
                    pressed.append(number)
                    n = len(table.service.journal.records)
                    self.press_times.append((number, n, time.time()))
                    script.done += 1
                if script.done >= len(script.presses):
                    del self.scripts[number]
            touched = set(pressed)
            for table in self.tables:
                try:
                    if table.due():
                        table.step()
                        touched.add(table.number)
                except Exception as exc:  # noqa: BLE001 - said, and the hall goes on
                    self.errors.append(f"table {table.number}: {exc!r}")
            # a table's link looks at once after its table wrote, and every link a few times a
            # second (acks, resends, set-ups), as ``companion link`` polls on its own
            sweep = now >= next_sweep
            if sweep:
                next_sweep = now + self.sweep
            for link in self.links:
                if sweep or link.table in touched:
                    try:
                        link.step()
                    except Exception as exc:  # noqa: BLE001
                        self.errors.append(f"link {link.table}: {exc!r}")
            self._stop.wait(self.poll)


def audit(store, tables: list[TableFiles]) -> dict:
    """Compare what the tables hold (their journals and saved records, the source of truth) with
    the director's store.

    Returns:
        ``{"games": n, "events": n, "lost": n, "duplicated": n, "different": n,
        "results_lost": n, "results_duplicated": n, "problems": [text, ...]}``: ``lost`` journal
        records not in the store, ``duplicated`` stored events that are no journal's record
        (the store's unique key makes a second copy of one impossible), ``different`` stored with
        other contents; results likewise, one per finished game.
    """
    from companion.tournament.link import game_id

    out = {
        "games": 0,
        "events": 0,
        "lost": 0,
        "duplicated": 0,
        "different": 0,
        "results_lost": 0,
        "results_duplicated": 0,
        "problems": [],
    }
    results = store.results()
    by_key: dict[tuple[int, str], int] = {}
    for r in results:
        by_key[(r["table"], r["game"])] = by_key.get((r["table"], r["game"]), 0) + 1
    expected_results = set()
    con = store._con()
    for table in tables:
        journals = table.journals()
        for game, records in journals.items():
            if len(records) <= 1:
                continue  # a header alone: a game that never began (a set-up replaced it)
            out["games"] += 1
            out["events"] += len(records)
            stored = {
                seq: rec
                for seq, rec in (
                    (json.loads(r)["seq"], json.loads(r))
                    for (r,) in con.execute(
                        "SELECT record FROM events WHERE table_no = ? AND game = ?",
                        (table.number, game),
                    )
                )
            }
            mine = {r["seq"]: r for r in records}
            lost = sorted(set(mine) - set(stored))
            extra = sorted(set(stored) - set(mine))
            diff = [s for s in mine if s in stored and stored[s] != mine[s]]
            out["lost"] += len(lost)
            out["duplicated"] += len(extra)
            out["different"] += len(diff)
            if lost or extra or diff:
                out["problems"].append(
                    f"table {table.number} game {game}: lost {lost[:5]}, extra {extra[:5]}, "
                    f"different {diff[:5]}"
                )
        for saved in table.records():
            gid = game_id(saved["record"][0])
            expected_results.add((table.number, gid))
    for key in expected_results:
        if key not in by_key:
            out["results_lost"] += 1
            out["problems"].append(f"table {key[0]}: result of game {key[1]} not stored")
    out["results_duplicated"] = sum(n - 1 for n in by_key.values()) + len(
        set(by_key) - expected_results
    )
    return out
