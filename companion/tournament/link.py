"""``companion link``: the table's side of the tournament network, a process of its own beside
the table service (which has no network: its unit keeps ``PrivateNetwork=yes``).

The journal and the saved records are the single source of truth. The link reads them, never
the service's memory:

- ``data_dir()/table/journal.jsonl`` (the game in progress): every record is published on
  ``tables/N/events`` (``{"game", "seq", "record"}``) as soon as it is on disk, and the game is
  replayed on a copy of the table's mode to publish ``tables/N/state`` (retained);
- ``data_dir()/records/*.json`` (finished games): each is published on ``tables/N/result``
  until the director's ``tables/N/ack`` names that game, and its archived journal
  (``*.journal.jsonl``) is resent from the first record the director has not acked.

What the director has acked is kept in ``data_dir()/link/acked.json`` (written atomically), so a
link killed and started again resends only what is missing; the director drops duplicates
anyway. A game's id is the header's ``game_id`` (the service writes one) or, for older journals,
a hash of the header record.

A set-up received on ``tables/N/setup`` is checked (the table's own number, names, time control,
a game and lexicon this table has) and written into ``table.toml``'s ``[table]`` atomically
(companion.daemon.config.save_table); the table service takes it when its next game starts.
A set-up it cannot use is refused, logged, and said in the state (``setup_problem``).

Configuration: ``table.toml`` ``[tournament]``::

    [tournament]
    broker = "mqtt://10.42.0.1:1883"   # or mqtts://HOST:8883 with ca
    event = "spring"
    table = 7                          # default: [table] number
    credentials = "/etc/companion/link.json"   # {"username": ..., "password": ...}
    ca = "/etc/companion/hall-ca.pem"  # for mqtts
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from companion.errors import CompanionError
from companion.paths import config_dir, data_dir
from companion.textformats import TomlError, loads_json, loads_toml
from companion.tournament import protocol
from companion.tournament.mqtt import BrokerURL, make_client, parse_url

BEAT_SECONDS = 5.0
"""The heartbeat: ``online`` every this many seconds (companion.tournament.director)."""
CLAIM_SECONDS = 30.0
"""The director's "two boxes claim table N" stays on the screen this long after it was last
said (it says it at each change of box while the two fight)."""
STATUS_FILE = "link-status.json"

log = logging.getLogger("companion.tournament")

KEYS = ("broker", "event", "table", "credentials", "ca")


class LinkConfigError(CompanionError, ValueError):
    """``[tournament]`` that cannot be used: lists every bad key with what is accepted."""


@dataclass(frozen=True)
class LinkConfig:
    """A validated ``[tournament]`` section (see the module docstring)."""

    url: BrokerURL
    event: str
    table: int
    username: str | None
    password: str | None
    ca: Path | None = None


def load_credentials(path: Path) -> tuple[str, str]:
    """``(username, password)`` from a JSON file ``{"username", "password"}`` (as
    ``companion director tables add --json`` prints for one table).

    Raises:
        LinkConfigError: unreadable, not JSON, or without both keys.
    """
    try:
        data = loads_json(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise LinkConfigError(f"[tournament] credentials = {str(path)!r}: {exc.strerror}") from None
    except ValueError as exc:
        raise LinkConfigError(
            f"[tournament] credentials = {str(path)!r}: not JSON: {exc}"
        ) from None
    if isinstance(data, dict) and "tables" in data and len(data["tables"]) == 1:
        data = next(iter(data["tables"].values()))  # the whole --json answer for one table
    if not isinstance(data, dict) or not data.get("username") or not data.get("password"):
        raise LinkConfigError(
            f'[tournament] credentials = {str(path)!r}: accepted {{"username": ..., '
            '"password": ...}} (companion director tables add N --json)'
        )
    return str(data["username"]), str(data["password"])


def load_config(path: Path | None = None) -> LinkConfig:
    """Read ``[tournament]`` (and ``[table] number``) from table.toml.

    Raises:
        LinkConfigError: no section, or every bad key at once.
    """
    path = Path(path) if path is not None else config_dir(create=False) / "table.toml"
    try:
        raw = loads_toml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LinkConfigError(
            f"{path}: no such file; the link needs [tournament] broker, event and credentials"
        ) from None
    except (OSError, UnicodeDecodeError, TomlError) as exc:
        raise LinkConfigError(f"{path}: cannot read: {exc}") from None
    section = raw.get("tournament")
    if not isinstance(section, dict):
        raise LinkConfigError(
            f"{path}: no [tournament] section; accepted keys: {', '.join(KEYS)} "
            "(docs/tournament.md)"
        )
    problems = []
    unknown = sorted(set(section) - set(KEYS))
    if unknown:
        problems.append(f"unknown keys {unknown}; accepted: {', '.join(KEYS)}")
    url = event = None
    try:
        url = parse_url(section.get("broker", ""), "[tournament] broker =")
    except CompanionError as exc:
        problems.append(str(exc))
    try:
        event = protocol.check_event(section.get("event", ""))
    except CompanionError as exc:
        problems.append(f"[tournament] {exc}")
    table = section.get("table", (raw.get("table") or {}).get("number"))
    if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= 999:
        problems.append(f"[tournament] table = {table!r}: accepted 1 to 999 (or [table] number)")
    username = password = None
    if "credentials" in section:
        try:
            username, password = load_credentials(Path(section["credentials"]))
        except LinkConfigError as exc:
            problems.append(str(exc))
    else:
        problems.append("[tournament] credentials: missing; accepted a JSON file's path")
    account = re.fullmatch(r"table(\d+)", username or "")
    if account and isinstance(table, int) and int(account.group(1)) != table:
        # the hall's broker lets an account use its own table's topics only (broker.table_user):
        # the link would connect and every message of this table be refused, unsaid
        problems.append(
            f"[tournament] credentials = {section['credentials']!r}: the account {username} is "
            f"table {int(account.group(1))}'s, and this is table {table}; accepted: the account "
            f"of table {table} (companion director tables add {table})"
        )
    ca = Path(section["ca"]) if section.get("ca") else None
    if url is not None and url.tls and (ca is None or not ca.exists()):
        problems.append(f"[tournament] ca = {section.get('ca')!r}: mqtts needs the hall's CA file")
    if problems:
        raise LinkConfigError(f"{path}: " + "; ".join(problems))
    return LinkConfig(url, event, table, username, password, ca)


def game_id(header: dict) -> str:
    """A game's id: the header's ``game_id``, else a hash of the header record."""
    gid = header.get("game_id")
    if isinstance(gid, str) and protocol.GAME_ID.match(gid):
        return gid
    text = json.dumps(header, sort_keys=True, separators=(",", ":"))
    return "h" + hashlib.sha256(text.encode()).hexdigest()[:20]


def tournament_record(saved: dict) -> dict:
    """The result record sent to the director, from a saved game (``records/*.json``:
    ``{"result", "settings", "record"}``): ``mode`` (iago, iota, wordinoes, scrabble),
    ``players`` (by colour), ``winner``, ``loser``, ``draw``, ``how``, the points (``minutes``,
    ``scores`` or ``held``), ``round``, ``result`` and ``settings`` as saved, and ``events``
    (the journal without heartbeats)."""
    result = saved.get("result") or {}
    settings = saved.get("settings") or {}
    events = saved.get("record") or []
    header = events[0] if events and isinstance(events[0], dict) else {}
    players = {"blue": settings.get("blue"), "red": settings.get("red")}
    names = {v: k for k, v in players.items() if v}
    winner = result.get("winner")
    if winner is None and isinstance(result.get("winners"), list) and len(result["winners"]) == 1:
        winner = result["winners"][0]
    winner = names.get(winner, winner)
    loser = result.get("loser")
    loser = names.get(loser, loser)
    winners = result.get("winners")
    tied = (
        isinstance(winners, list)
        and len(winners) == 2
        and {names.get(w) for w in winners}
        == {
            "blue",
            "red",
        }
    )
    seated = result.get("players")
    two = not isinstance(seated, list) or len(seated) == 2
    if loser is None and winner in ("blue", "red") and two:
        loser = "red" if winner == "blue" else "blue"  # two players: the other lost
    rec = {
        "mode": header.get("mode") or result.get("game") or settings.get("game"),
        "table": settings.get("number"),
        "round": settings.get("round") or None,
        "players": players,
        "winner": winner if winner in ("blue", "red") else None,
        "loser": loser if loser in ("blue", "red") else None,
        "draw": bool(result.get("draw")) or tied,  # Iota: both players top scorers
        "how": result.get("how"),
        "abandoned": bool(result.get("abandoned")),
        "result": result,
        "settings": settings,
        "events": events,
    }
    for key in ("minutes", "scores", "held"):
        if isinstance(result.get(key), dict):
            rec[key] = result[key]
    return rec


class _JournalTail:
    """Reads the journal file's complete lines as they are appended (a torn last line waits).

    The file stays open between looks, so when the service archives a finished game's journal
    (a rename) and starts a new file, the rest of the old one is still read before the new."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = None
        self.inode = None
        self.head = b""  # the file's first line, once read
        self.buffer = b""
        self.records: list[dict] = []

    def _rewritten(self) -> bool:
        """Whether the file was cut and written anew in place since the last look: its first
        line (a game's header, which names the game) is no longer the one read. A new game's
        header may be as long as the old one, so the size alone does not tell, nor the
        modification time (the kernel's is coarse: a few milliseconds). One small read."""
        if not self.head:
            return False
        try:
            return os.pread(self.file.fileno(), len(self.head), 0) != self.head
        except OSError:
            return True

    def _read(self) -> list[dict]:
        data = self.buffer + self.file.read()
        if not self.head and b"\n" in data:
            self.head = data[: data.index(b"\n") + 1]
        end = data.rfind(b"\n")
        if end < 0:
            self.buffer = data
            return []
        self.buffer = data[end + 1 :]
        new = []
        for raw in data[: end + 1].split(b"\n")[:-1]:
            try:
                rec = loads_json(raw)
            except ValueError:
                continue  # damaged: the service sets the file aside
            if isinstance(rec, dict):
                new.append(rec)
        self.records.extend(new)
        return new

    def poll(self) -> tuple[list[dict], bool, list[dict]]:
        """``(rest of the old file, reset, new records)``: reset when the file was replaced or
        truncated (a new game's journal); then ``new`` is from the new file."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        if self.file is not None:
            if st is not None and st.st_ino == self.inode and not self._rewritten():
                done = self.file.tell()
                if st.st_size == done:
                    return [], False, []  # nothing new: one stat, no read
                if st.st_size > done:
                    return self._read(), False, []
            old = self._read() if st is None or st.st_ino != self.inode else []
            # the rest of the old file when it was renamed; a file cut and written anew in
            # place (the service's fresh journal for a new set-up) has no rest to read
        else:
            old = []
            if st is None:
                return [], False, []
        reset = self.file is not None
        if self.file is not None:
            self.file.close()
        self.file, self.inode, self.buffer, self.records = None, None, b"", []
        self.head = b""
        if st is None:
            return old, reset, []
        try:
            self.file = open(self.path, "rb")  # noqa: SIM115 - kept open between looks
        except FileNotFoundError:
            return old, reset, []
        self.inode = os.fstat(self.file.fileno()).st_ino
        return old, reset, self._read()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


class _Replica:
    """A copy of the table's mode, rebuilt from the journal, for the state messages."""

    def __init__(self, header: dict) -> None:
        from companion.daemon.config import validate
        from companion.daemon.modes import ModeContext, mode_class

        self.header = header
        self.table = validate(header.get("settings", {}), "journal header", check_names=False)
        self.mode = mode_class(header.get("mode", self.table.game))(
            ModeContext(table=self.table, lexicon_name=self.table.lexicon)
        )
        self.t = 0.0
        self.seq = int(header.get("seq", 1))
        self.problem = ""

    def apply(self, rec: dict) -> None:
        t = rec.get("t")
        if isinstance(t, int | float) and not isinstance(t, bool):
            self.t = max(self.t, float(t))
        if isinstance(rec.get("seq"), int):
            self.seq = max(self.seq, rec["seq"])
        if str(rec.get("kind", "")).startswith("_") or rec.get("kind") == "board" or self.problem:
            return  # the service's own records; a board read is no clock event
        try:
            self.mode.apply(rec)
        except (KeyError, TypeError, ValueError) as exc:
            self.problem = f"journal record {rec.get('seq')} could not be read: {exc}"

    def state(self) -> dict:
        try:
            self.mode.advance(self.t)
            out = self.mode.state(self.t)
        except (KeyError, TypeError, ValueError) as exc:
            out = {"status": "fault"}
            self.problem = self.problem or str(exc)
        return out


class Link:
    """One table's link (see the module docstring).

    Args:
        config: the ``[tournament]`` section.
        journal_file: the table's journal (default ``data_dir()/table/journal.jsonl``).
        records_dir: the saved games (default ``data_dir()/records``).
        table_toml: where set-ups are written (default ``config_dir()/table.toml``).
        state_dir: where the acks are kept (default ``data_dir()/link``).
        poll: seconds between looks at the journal.
        resend_seconds: how long to wait for an ack before sending again.
        clock: seconds since the epoch (``sent`` in the state).
    """

    def __init__(
        self,
        config: LinkConfig,
        journal_file: Path | None = None,
        records_dir: Path | None = None,
        table_toml: Path | None = None,
        state_dir: Path | None = None,
        poll: float = 0.05,
        resend_seconds: float = 5.0,
        clock=time.time,
        client_id: str | None = None,
        box: str | None = None,
        beat_seconds: float = BEAT_SECONDS,
        follow_sim: bool = False,
    ) -> None:
        self.config = config
        self.prefix = protocol.prefix(config.event)
        self.table = config.table
        self.journal_file = Path(journal_file or data_dir() / "table" / "journal.jsonl")
        self.records_dir = Path(records_dir or data_dir() / "records")
        self.table_toml = Path(table_toml or config_dir() / "table.toml")
        self.state_dir = Path(state_dir or data_dir() / "link")
        self.poll = poll
        self.resend_seconds = resend_seconds
        self.clock = clock
        self.box = box or f"{socket.gethostname()[:40]}-{uuid.uuid4().hex[:6]}"
        self.beat_seconds = beat_seconds
        self._next_beat = 0.0
        self.claim = ""  # the director's "two boxes claim table N", while it lasts
        self._claim_until = 0.0
        self.connected = threading.Event()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._tail = _JournalTail(self.journal_file)
        # companion sim's own journals (data_dir()/sim/GAME-journal.jsonl), followed when newer
        self._journals = [self.journal_file]
        if follow_sim:
            from companion.daemon.modes import MODES
            from companion.daemon.sim import sim_journal

            self._journals += [sim_journal(False, game) for game in MODES]
        self._next_follow = 0.0
        self._replica: _Replica | None = None
        self._game: str | None = None
        self._last_state: dict | None = None
        self._final: dict | None = None  # the state of the last game, once it is archived
        self._board: dict | None = None  # the last board read journaled, for tables/N/board
        self._board_sent: dict | None = None
        self._sent_events: dict[str, int] = {}  # game -> highest seq published
        self._saved: dict[str, Path] = {}  # finished game -> its record file
        self._records_seen: set[str] = set()
        self._records_stamp: int | None = None
        self._next_resend = 0.0
        self._next_scan = 0.0
        self._archive: dict[str, list[dict]] = {}  # finished game -> its journal, while unacked
        self._complete: set[str] = set()  # finished games the director has wholly
        self._last_send: dict[str, float] = {}
        self._backoff: dict[str, float] = {}  # key -> seconds to wait for an ack before resending
        self._progress: dict[str, int] = {}  # key -> acked seq when last looked at
        self._resend_all = False
        self.setup_problem = ""
        self.published = 0
        self.acked_results: set[str] = set()
        self.acked_events: dict[str, int] = {}
        self.setup_taken = ""
        self._load_acks()
        self.client = make_client(
            client_id or f"companion-table-{config.event}-{config.table}",
            config.username,
            config.password,
            config.url,
            config.ca,
            will=(self._topic("online"), protocol.encode({"online": False, "box": self.box})),
        )
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self._thread: threading.Thread | None = None

    def _topic(self, kind: str) -> str:
        return protocol.topic(self.prefix, self.table, kind)

    # -- acks kept on disk ---------------------------------------------------------------------

    @property
    def acks_file(self) -> Path:
        return self.state_dir / "acked.json"

    def _load_acks(self) -> None:
        try:
            data = loads_json(self.acks_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        self.acked_results = set(data.get("results", []))
        self.acked_events = {str(k): int(v) for k, v in data.get("events", {}).items()}
        self.setup_taken = str(data.get("setup", ""))

    def _save_acks(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        data = {
            "results": sorted(self.acked_results),
            "events": self.acked_events,
            "setup": self.setup_taken,
        }
        tmp = self.acks_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(self.acks_file)

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, thread: bool = True) -> None:
        """Connect in the background (paho reconnects by itself) and start the loop thread
        (``thread=False``: the caller calls :meth:`step`, as the simulated hall does)."""
        self.client.connect_async(self.config.url.host, self.config.url.port, keepalive=5)
        self.client.loop_start()
        if thread:
            self._thread = threading.Thread(target=self.run, name=f"link-{self.table}", daemon=True)
            self._thread.start()

    def stop(self, goodbye: bool = True) -> None:
        """Stop the loop and disconnect (cleanly: the broker does not publish the Last Will;
        ``goodbye`` publishes ``online: false`` first and waits up to 1 s for it)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5.0)
        if goodbye and self.connected.is_set():
            info = self.client.publish(
                self._topic("online"),
                protocol.encode({"online": False, "box": self.box}),
                qos=1,
                retain=True,
            )
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(1.0)
        self.client.disconnect()
        self.client.loop_stop()
        self._tail.close()

    def run(self) -> None:
        """The loop: look at the journal and the records every ``poll`` seconds."""
        while not self._stop.is_set():
            try:
                self.step()
            except Exception:  # noqa: BLE001 - the link keeps going; it is said in the log
                log.exception("link %d: step failed", self.table)
            self._wake.wait(self.poll)
            self._wake.clear()

    # -- paho callbacks ------------------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            log.warning("link %d: the broker refused the login: %s", self.table, reason_code)
            return
        client.subscribe([(self._topic("setup"), 1), (self._topic("ack"), 1)])
        client.publish(
            self._topic("online"),
            protocol.encode({"online": True, "box": self.box}),
            qos=1,
            retain=True,
        )
        self._next_beat = time.monotonic() + self.beat_seconds
        self.connected.set()
        self._last_state = None  # the state again: a broker that lost it has it back
        with self._lock:
            self._resend_all = True
        self._wake.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self.connected.clear()

    def _on_message(self, client, userdata, msg) -> None:
        try:
            table, kind = protocol.parse_topic(self.prefix, msg.topic)
            payload = protocol.decode(kind, table, bytes(msg.payload), msg.topic)
            if table != self.table:
                raise protocol.ProtocolError(f"{msg.topic}: not this table's topic")
        except protocol.ProtocolError as exc:
            log.warning("link %d: refused: %s", self.table, exc)
            return
        if kind == "ack":
            self._on_ack(payload)
        elif kind == "setup":
            self._on_setup(payload)

    def _on_ack(self, payload: dict) -> None:
        if "claim" in payload:  # the director: two boxes take this table's session in turn
            self._claim_until = time.monotonic() + CLAIM_SECONDS
            if payload["claim"] != self.claim:
                self._set_claim(payload["claim"])
            return
        game = payload["game"]
        with self._lock:
            if "events" in payload:
                if payload["events"] > self.acked_events.get(game, 0):
                    self.acked_events[game] = payload["events"]
                    self._save_acks()
            elif game not in self.acked_results:
                self.acked_results.add(game)
                self._save_acks()

    @property
    def status_file(self) -> Path:
        """``link-status.json`` beside table.toml: what the link asks the table's screen to say
        (``{"claim": "two boxes claim table 6"}``; the table service shows it as a fault)."""
        return self.table_toml.with_name(STATUS_FILE)

    def _set_claim(self, words: str) -> None:
        """Say (``words``) or end ("") the director's "two boxes claim table N" on this box's
        screen (:attr:`status_file`) and in the log."""
        self.claim = words
        if words:
            log.warning(
                "link %d: %s (box %s); give one box another number", self.table, words, self.box
            )
        else:
            log.info("link %d: one box for the table again", self.table)
        try:
            tmp = self.status_file.with_suffix(".tmp")
            tmp.write_text(json.dumps({"claim": words} if words else {}), encoding="utf-8")
            tmp.replace(self.status_file)
        except OSError as exc:
            log.warning("link %d: cannot write %s: %s", self.table, self.status_file, exc)

    def _on_setup(self, payload: dict) -> None:
        from companion.daemon.config import TableConfigError, save_table, validate

        setup_id = str(payload.get("setup_id") or "")
        if not setup_id:  # a set-up from elsewhere: its content names it
            text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
            setup_id = "s" + hashlib.sha256(text.encode()).hexdigest()[:16]
        if setup_id == self.setup_taken:
            return
        values = {
            k: payload[k]
            for k in (
                "blue",
                "red",
                "drawn_by_lot",
                "minutes",
                "minute_seconds",
                "lexicon",
                "game",
                "round",
                "page",
                "challenge",
                "challenge_points",
                "overtime_points",
            )
            if k in payload
        }
        players = payload.get("players")
        if isinstance(players, dict):
            values.setdefault("blue", players.get("blue"))
            values.setdefault("red", players.get("red"))
        elif isinstance(players, list) and len(players) == 2:
            values.setdefault("blue", players[0])
            values.setdefault("red", players[1])
        control = payload.get("time_control")
        if isinstance(control, dict):
            for key in ("minutes", "minute_seconds"):
                if key in control:
                    values.setdefault(key, control[key])
        lot = payload.get("colours") == "lot" or payload.get("lot") is True
        if lot and payload.get("drawn_by_lot") is not True and {"blue", "red"} <= set(values):
            # colours by lot, not drawn by the director: the table draws them, once
            from companion.daemon.config import draw_colours

            if all(isinstance(values[c], str) for c in ("blue", "red")):
                values["blue"], values["red"] = draw_colours(values["blue"], values["red"])
                values["drawn_by_lot"] = True
        values["number"] = self.table
        problem = ""
        if payload.get("table", self.table) != self.table:
            problem = (
                f"the set-up is for table {payload.get('table')!r}, this is table {self.table}"
            )
        else:
            try:
                config = validate(values, f"the set-up for round {payload.get('round')}")
                save_table(config, self.table_toml)
            except TableConfigError as exc:
                problem = str(exc)
        with self._lock:
            if problem:
                self.setup_problem = f"set-up refused: {problem}"
                log.warning("link %d: %s", self.table, self.setup_problem)
            else:
                self.setup_problem = ""
                self.setup_taken = setup_id
                self._save_acks()
                log.info("link %d: set-up %s written to %s", self.table, setup_id, self.table_toml)
            self._last_state = None  # publish the state again, with or without the problem
        self._wake.set()

    # -- one look at the files -----------------------------------------------------------------

    def _follow(self) -> None:
        """With ``follow_sim``: follow the journal written last of the table service's and
        ``companion sim``'s (a simulated table is live on the hall like a real one)."""
        newest, stamp = self.journal_file, -1
        for path in self._journals:
            try:
                mtime = path.stat().st_mtime_ns
            except OSError:
                continue
            if mtime > stamp:
                newest, stamp = path, mtime
        if newest == self.journal_file or stamp < 0:
            return
        log.info("link %d: following %s (written last)", self.table, newest)
        self._tail.close()
        self.journal_file = newest
        self._tail = _JournalTail(newest)
        self._replica = None
        self._game = None
        self._last_state = None

    def step(self) -> None:
        """Publish what is new in the journal and the records, and resend what is unacked."""
        if len(self._journals) > 1 and time.monotonic() >= self._next_follow:
            self._next_follow = time.monotonic() + 1.0
            self._follow()
        old, reset, new = self._tail.poll()
        for rec in old:
            self._record(rec)
        if reset:  # the game's journal was archived (finished) or set aside
            self._scan_records()
            if self._replica is not None:
                self._final = self._finished_state()
            self._replica = None
            self._game = None
        for rec in new:
            self._record(rec)
        now = time.monotonic()
        if now >= self._next_scan:  # a game is saved as its journal is archived (a reset)
            self._scan_records()
            self._next_scan = now + 1.0
        with self._lock:
            resend_all, self._resend_all = self._resend_all, False
        if not self.connected.is_set():
            return
        if now >= self._next_beat:  # the heartbeat: the director marks a silent table OFFLINE
            self._next_beat = now + self.beat_seconds
            self.client.publish(
                self._topic("online"),
                protocol.encode({"online": True, "box": self.box, "beat": True}),
                qos=1,
            )
        if self.claim and now >= self._claim_until:
            self._set_claim("")
        # what is unacked is looked at a few times a second (and at once after a reconnect)
        if resend_all or reset or now >= self._next_resend:
            self._resend(now, resend_all)
            self._next_resend = now + min(0.25, self.resend_seconds / 4)
        self._publish_board(resend_all)
        if old or new or reset or self._last_state is None:
            self._publish_state()

    def _record(self, rec: dict) -> None:
        if rec.get("kind") == "_game" and rec.get("seq") == 1:
            try:
                self._replica = _Replica(rec)
            except CompanionError as exc:
                self._replica = None
                self.setup_problem = f"journal header: {exc}"
            self._game = game_id(rec)
            self._final = None
        elif self._replica is not None:
            self._replica.apply(rec)
        if (
            self._game is not None
            and rec.get("kind") in ("board", "_board")
            and isinstance(rec.get("board"), str)
        ):
            # a board the camera read, journaled: also on tables/N/board for the pages, sent
            # once connected (see :meth:`_publish_board`)
            self._board = {
                "game": self._game,
                "board": rec["board"],
                "trusted": rec.get("trusted") is True,
            }
        if self._game is not None and self.connected.is_set():
            self._publish_event(self._game, rec)

    def _publish_board(self, again: bool) -> None:
        """The last board read on ``tables/N/board`` when it is new since the last sent (or
        ``again``, after a reconnect): a board read while the broker was away is not lost."""
        if self._board is None or (self._board == self._board_sent and not again):
            return
        self.client.publish(self._topic("board"), protocol.encode(self._board), qos=1)
        self._board_sent = self._board

    def _finished_state(self) -> dict:
        """The last game's state once archived: the replica's, with the saved result's outcome
        (a loss on time is no journal record: the saved result has it)."""
        state = self._state()
        path = self._saved.get(self._game or "")
        if path is None:
            return state
        try:
            result = loads_json(path.read_text(encoding="utf-8")).get("result") or {}
        except (OSError, ValueError):
            return state
        state["status"] = "finished"
        state["sand_left"] = None
        for key in ("loser", "winner", "minutes", "scores", "how", "abandoned", "moves_completed"):
            if key in result:
                state[key] = result[key]
        return state

    def _publish_event(self, game: str, rec: dict) -> None:
        seq = rec.get("seq")
        if not isinstance(seq, int) or seq <= self.acked_events.get(game, 0):
            return
        self.client.publish(
            self._topic("events"), protocol.encode({"game": game, "seq": seq, "record": rec}), qos=1
        )
        self._sent_events[game] = max(self._sent_events.get(game, 0), seq)
        self._last_send[game] = time.monotonic()
        self.published += 1

    def _state(self) -> dict:
        out: dict = {"table": self.table, "game": self._game, "online": True}
        if self._replica is not None:
            table = self._replica.table
            out.update(self._replica.state())
            out["mode"] = self._replica.mode.name
            out["players"] = {"blue": table.blue, "red": table.red}
            out["round"] = getattr(table, "round", 0) or None
            out["t"] = self._replica.t
            out["seq"] = self._replica.seq
            if self._replica.problem:
                out["fault"] = self._replica.problem
        elif self._final is not None:
            out.update({k: v for k, v in self._final.items() if k not in ("setup_problem",)})
        else:
            out["status"] = "ready"
        if self.setup_problem:
            out["setup_problem"] = self.setup_problem
        return out

    def _publish_state(self) -> None:
        state = self._state()
        if state == self._last_state:
            return
        self._last_state = state
        self.client.publish(
            self._topic("state"),
            protocol.encode({**state, "sent": self.clock()}),
            qos=1,
            retain=True,
        )

    def _scan_records(self) -> None:
        try:
            stamp = os.stat(self.records_dir).st_mtime_ns
        except FileNotFoundError:
            return
        if stamp == self._records_stamp:
            return  # nothing added or renamed since the last look
        try:
            names = os.listdir(self.records_dir)
        except FileNotFoundError:
            return
        complete = True
        for name in names:
            if not name.endswith(".json") or name in self._records_seen:
                continue
            path = self.records_dir / name
            try:
                saved = loads_json(path.read_text(encoding="utf-8"))
                header = (saved.get("record") or [{}])[0]
            except (OSError, ValueError, AttributeError, IndexError):
                complete = False  # being written: look again
                continue
            self._records_seen.add(name)
            number = (saved.get("settings") or {}).get("number")
            if number not in (None, self.table):
                continue  # a game played before this box was table N
            self._saved[game_id(header)] = path
        if complete:
            self._records_stamp = stamp

    def _due(self, key: str, now: float, progress: int) -> bool:
        """Whether ``key`` (a game's events, or ``result:GAME``) is due to be sent again: no ack
        progress for its wait since it was last sent. The wait doubles at each resend (up to a
        minute) and starts again when an ack comes, so a director that is slow to catch up is
        not buried under copies."""
        wait = self._backoff.get(key, self.resend_seconds)
        if progress > self._progress.get(key, -1):
            self._progress[key] = progress
            self._backoff[key] = wait = self.resend_seconds
            return key not in self._last_send
        if now - self._last_send.get(key, -1e9) < wait:
            return False
        self._backoff[key] = min(2 * wait, 60.0)
        return True

    def _resend(self, now: float, resend_all: bool) -> None:
        with self._lock:
            pending = [g for g in self._saved if g not in self.acked_results]
            acked_events = dict(self.acked_events)
        for game in pending:
            if resend_all or self._due("result:" + game, now, 0):
                self._send_result(game)
        # events the director has not acked: of finished games (their archived journal) and of
        # the game in progress
        for game in [*(g for g in self._saved if g not in self._complete), self._game]:
            if game is None:
                continue
            records = self._tail.records if game == self._game else self._archived(game)
            top = records[-1].get("seq", 0) if records else 0
            done = acked_events.get(game, 0)
            if done >= top:
                if game != self._game and game in self.acked_results:
                    self._complete.add(game)
                    self._archive.pop(game, None)
                continue
            sent = self._sent_events.get(game, 0)
            if resend_all or self._due(game, now, done):
                start = done  # again, all the director has not acked
            elif sent < top:
                start = sent  # read while the broker was away: not sent yet
            else:
                continue
            for rec in records:
                if rec.get("seq", 0) > start:
                    self._publish_event(game, rec)

    def _archived(self, game: str) -> list[dict]:
        """The finished game's whole journal (heartbeats included), read once."""
        if game in self._archive:
            return self._archive[game]
        path = self._saved.get(game)
        if path is None:
            return []
        journal = path.with_name(path.name[: -len(".json")] + ".journal.jsonl")
        from companion.daemon.journal import JournalError, read_records

        try:
            records, _, _ = read_records(journal)
        except JournalError:
            records = []
        if records:
            self._archive[game] = records
            return records
        # the service saves the record first, then moves the journal beside it: until then,
        # the record's own copy of the journal (without the heartbeats), not kept
        try:
            return loads_json(path.read_text(encoding="utf-8")).get("record") or []
        except (OSError, ValueError):
            return []

    def _send_result(self, game: str) -> None:
        path = self._saved[game]
        try:
            saved = loads_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("link %d: cannot read %s: %s", self.table, path, exc)
            return
        record = tournament_record(saved)
        payload = {
            "game": game,
            "table": self.table,
            "round": record.get("round"),
            "record": record,
        }
        self.client.publish(self._topic("result"), protocol.encode(payload), qos=1)
        self._last_send["result:" + game] = time.monotonic()
        self.published += 1
