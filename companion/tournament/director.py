"""The director service: subscribes to every table's messages, stores each once, acks.

Messages arrive on paho's network thread and are queued with the time they arrived; one worker
thread takes every message waiting (up to ``batch`` at a time), checks each
(:func:`companion.tournament.protocol.decode`), writes them all in one store transaction and,
once that is committed (synced), publishes the acks:

- a result: ``tables/N/ack`` ``{"game": G}`` (also for a result already stored: the table's
  copy of the ack was lost), and the result's own journal records are stored too (any that the
  live ``events`` messages did not bring). A result that does not match the set-up its table
  was given for its round (round, players, game), or a second one of the same set-up, is
  stored held (:meth:`companion.tournament.store.Store.hold_reason`): listed, not counted
  until the director accepts it;
- events: ``tables/N/ack`` ``{"game": G, "events": n}``, n the highest seq such that every record
  1..n of that game is stored, so the link resends only what is missing.

A message that breaks the protocol (not JSON, too big, a number SQLite cannot hold, a field of
the wrong type, a ``table`` that is not the topic's), or that the store cannot take, is refused:
logged (the ``companion.tournament`` logger, and the store's ``rejected`` table) and dropped;
each message of a batch is stored in a savepoint of its own, so nothing else is lost. A duplicate (same table, game, seq) is
counted and dropped by the store; a result sent again under its game id with other contents keeps
the first copy (acked) and the other is refused into ``rejected`` and the log, so it is seen.
"""

from __future__ import annotations

import collections
import logging
import queue
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import CompanionError
from companion.paths import data_dir
from companion.tournament import protocol
from companion.tournament.mqtt import BrokerURL, make_client
from companion.tournament.store import Store

log = logging.getLogger("companion.tournament")


class OneLine(logging.Filter):
    """Keeps each log record of the tournament on one line: a line break or any other control
    or line-separator character in the message (a player's name, a game id, a box's name, as a
    table sent it) is written as its escape (``\\n``), so a table cannot forge a line of the
    director's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        import unicodedata

        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - logging says a bad record itself
            return True
        if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text):
            record.msg = "".join(
                c.encode("unicode_escape").decode("ascii")
                if unicodedata.category(c) in ("Cc", "Zl", "Zp")
                else c
                for c in text
            )
            record.args = ()
        return True


log.addFilter(OneLine())

BEAT_SECONDS = 5.0
"""A link says ``online`` this often (``tables/N/online``, not retained), also when idle."""
OFFLINE_AFTER = 3 * BEAT_SECONDS
"""A table not heard from for this many seconds (three heartbeats missed) is OFFLINE: its link,
its network or the broker went without a Last Will (a broker killed with the table's link)."""
BEAT_SHOWN = 10.0
"""A heartbeat that changes nothing else is written as a change (the hall's tile drawn again,
"heard N s ago" brought up to date) at most this often; between, only ``last_seen`` moves."""
HELD_MAX = 10
"""Held results (not accepted, not void) one table may have waiting for the director: a hall
sees one or two a table in an event (a game played before its set-up arrived, names typed at
the table). Beyond it a new result of that table is refused (not stored, not acked: its link
sends it again, and it is stored once the director has accepted or voided the ones waiting),
so one table can fill the disk with at most HELD_MAX x 1 MiB (protocol.MAX_BYTES) of them."""
CLAIM_WINDOW = 30.0
"""Seconds in which a table's box changing twice (A, B, A: two boxes taking the session from
each other) is said as "two boxes claim table N"; the claim is over after as long in peace."""


class DirectorError(CompanionError, RuntimeError):
    """The director cannot reach its broker or publish: names the broker and the problem."""


def director_dir() -> Path:
    """data_dir()/director: the store, the accounts, the broker's files."""
    return data_dir() / "director"


def store_path(event: str, directory: Path | None = None) -> Path:
    """The event's store: ``director_dir()/EVENT.sqlite``."""
    return (directory or director_dir()) / f"{protocol.check_event(event)}.sqlite"


@dataclass
class Stats:
    """What the director has handled since it started (counts of messages)."""

    received: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected: int = 0
    acks: int = 0
    by_kind: dict = field(default_factory=dict)


TABLE_RATE = 100.0
"""The messages a second each table's account may send to the director, on average."""
TABLE_BURST = 2000
"""The most messages a table's account may send at once (a link resending a long game's journal
after an outage sends it all at once)."""


class RateLimit:
    """A token bucket per table account: each table may send ``burst`` messages at once and
    ``rate`` a second after that; the rest are dropped before they reach the store's queue
    (the ACL lets a table account publish only on its own ``tables/N/``, so N is the account).
    A link resends whatever is not acked, so a table that was only slow loses nothing.

    Args:
        rate: messages a second.
        burst: the bucket's size, in messages.
        monotonic: a clock in seconds (tests inject theirs).
    """

    def __init__(self, rate: float, burst: int, monotonic=time.monotonic) -> None:
        if not rate > 0 or burst < 1:
            raise ValueError(f"rate {rate!r}, burst {burst!r}: accepted rate > 0, burst >= 1")
        self.rate = float(rate)
        self.burst = int(burst)
        self.monotonic = monotonic
        self._lock = threading.Lock()
        self._buckets: dict[int, tuple[float, float]] = {}  # table -> (tokens, at)
        self._dropped: dict[int, int] = {}
        self._said: dict[int, float] = {}

    def take(self, table: int) -> bool:
        """One message of ``table``: True if it may pass, else False (counted as dropped)."""
        now = self.monotonic()
        with self._lock:
            tokens, at = self._buckets.get(table, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.rate)
            if tokens >= 1.0:
                self._buckets[table] = (tokens - 1.0, now)
                return True
            self._buckets[table] = (tokens, now)
            self._dropped[table] = self._dropped.get(table, 0) + 1
            return False

    def say(self, table: int) -> bool:
        """Whether the drops of ``table`` are due to be said (at most once a second)."""
        now = self.monotonic()
        with self._lock:
            if now - self._said.get(table, -1e18) < 1.0:
                return False
            self._said[table] = now
            return True

    def pending(self) -> bool:
        """Whether drops are counted that :meth:`dropped` has not handed out yet."""
        with self._lock:
            return bool(self._dropped)

    def dropped(self) -> dict[int, int]:
        """The messages dropped per table since the last call."""
        with self._lock:
            out, self._dropped = self._dropped, {}
        return out


class Director:
    """The director's MQTT side over a :class:`Store`.

    Args:
        store: the event's store.
        event: the tournament's short name (topics under ``companion/EVENT/``).
        url: the broker.
        username, password: the director's account.
        ca: the hall's CA certificate for ``mqtts``.
        batch: the most messages written in one transaction.
        clock: seconds since the epoch (the ``received`` times).
    """

    readback_seconds = 10.0
    """How long :meth:`publish_round` waits to read a round's set-ups back from the broker (as
    long as it waits for the broker to take them; a test of a refused round sets less)."""

    def __init__(
        self,
        store: Store,
        event: str,
        url: BrokerURL,
        username: str | None,
        password: str | None,
        ca: Path | None = None,
        batch: int = 500,
        clock=time.time,
        rate: float = TABLE_RATE,
        burst: int = TABLE_BURST,
        monotonic=time.monotonic,
    ) -> None:
        self.store = store
        self.event = event
        self.prefix = protocol.prefix(event)
        self.url = url
        self.batch = batch
        self.clock = clock
        self.stats = Stats()
        self.pages = ""  # the director's pages as phones reach them (set with --http): QR codes
        self.save_broker = None  # the director's own broker: Broker.save (after each round)
        self.connected = threading.Event()
        self._queue: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._worker = threading.Thread(target=self._work, name="director-store", daemon=True)
        self._watcher = threading.Thread(target=self._watch, name="director-presence", daemon=True)
        self._claims: dict[int, collections.deque] = {}  # table -> (time, box) at each change
        self._conflicts: dict[int, tuple[float, str]] = {}  # table -> (claimed until, words)
        self.limit = RateLimit(rate, burst, monotonic)
        self._presence_shown: dict[int, tuple] = {}  # table -> the presence last written
        self._presence_drawn: dict[int, float] = {}  # table -> when it was last written
        self.client = make_client(f"companion-director-{event}", username, password, url, ca)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> None:
        """Connect (in the background; paho reconnects by itself) and start storing.

        Raises:
            DirectorError: not connected and subscribed within ``timeout`` seconds.
        """
        self._worker.start()
        self._watcher.start()
        self.client.connect_async(self.url.host, self.url.port, keepalive=10)
        self.client.loop_start()
        if not self.connected.wait(timeout):
            self.stop()
            raise DirectorError(
                f"the director could not log in to the broker at {self.url} within {timeout:g} s "
                f"({self._last_problem or 'no answer'})"
            )

    _last_problem = ""
    _stopping = False

    def stop(self) -> None:
        """Store what is queued (and say what was dropped over a table's rate), disconnect,
        stop the threads."""
        if self.limit.pending():
            self._queue.put((None, b"", self.clock()))
        self.drain(5.0)
        self._stopping = True
        self._stop.set()
        self._queue.put(None)
        self.client.disconnect()
        self.client.loop_stop()
        if self._worker.is_alive():
            self._worker.join(5.0)

    def drain(self, timeout: float = 5.0) -> bool:
        """Wait until every message received so far is stored (True) or ``timeout`` s pass."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._queue.unfinished_tasks == 0:
                return True
            time.sleep(0.005)
        return False

    # -- paho callbacks (network thread) ----------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self._last_problem = str(reason_code)
            log.warning("director: the broker %s refused the login: %s", self.url, reason_code)
            return
        client.subscribe([(f"{self.prefix}tables/+/{kind}", 1) for kind in protocol.FROM_TABLE])
        log.info("director: connected to %s (session present: %s)", self.url, flags.session_present)
        try:
            n = self.republish_round()
        except Exception:  # noqa: BLE001 - said; the next reconnect tries again
            log.exception("director: the current round's set-ups could not be published again")
        else:
            if n:
                log.info("director: the current round's %d set-ups published again", n)
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self.connected.clear()
        if self._stopping:
            log.info("director: disconnected from %s", self.url)
        else:
            log.info("director: disconnected from %s (%s); reconnecting", self.url, reason_code)

    def _on_message(self, client, userdata, msg) -> None:
        table = protocol.table_of(self.prefix, msg.topic)
        if table is not None and not self.limit.take(table):
            if self.limit.say(table):  # at most once a second per table: into `rejected`
                self._queue.put((None, b"", self.clock()))
            return
        self._queue.put((msg.topic, bytes(msg.payload), self.clock()))

    # -- the store worker ----------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                self._queue.task_done()
                return
            items = [item]
            while len(items) < self.batch:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._queue.put(None)
                    self._queue.task_done()
                    break
                items.append(nxt)
            try:
                self._handle(items)
            except sqlite3.OperationalError as exc:  # the disk full, the file locked: said
                log.error(
                    "director: could not store %d messages: the store %s: %s; they stay "
                    "unacked (the tables send them again once it can)",
                    len(items),
                    self.store.path,
                    exc,
                )
            except Exception:  # noqa: BLE001 - a store failure must not stop the director
                log.exception(
                    "director: could not store %d messages; they stay unacked "
                    "(the tables send them again)",
                    len(items),
                )
            finally:
                for _ in items:
                    self._queue.task_done()

    def _handle(self, items: list[tuple[str, bytes, float]]) -> None:
        """Store a batch in one transaction, each message in a savepoint of its own: a message
        that breaks the protocol, or that the store cannot take, is refused into ``rejected``
        and the rest are stored. A failure of the store itself (the disk, a lock) fails the
        batch: nothing is acked, and the tables send it again."""
        store = self.store
        results: list[tuple[int, str]] = []
        games: set[tuple[int, str]] = set()
        with store.transaction():
            for topic, raw, received in items:
                if topic is None:  # a table over its rate: say how many were dropped
                    self._say_dropped(received)
                    continue
                self.stats.received += 1
                try:
                    table, kind = protocol.parse_topic(self.prefix, topic)
                    payload = protocol.decode(kind, table, raw, topic)
                    with store.savepoint():
                        done = self._store_one(table, kind, payload, received)
                except protocol.ProtocolError as exc:
                    self._refuse(topic, str(exc), raw, received)
                    continue
                except (ValueError, TypeError, OverflowError, sqlite3.IntegrityError) as exc:
                    self._refuse(topic, f"{topic}: could not be stored ({exc})", raw, received)
                    continue
                self.stats.by_kind[kind] = self.stats.by_kind.get(kind, 0) + 1
                if done is not None:
                    games.add(done)
                    if kind == "result":
                        results.append(done)
        # committed: now the acks
        for table, game in results:
            self._ack(table, {"game": game})
        for table, game in sorted(games):
            n = self.contiguous(table, game)
            if n:
                self._ack(table, {"game": game, "events": n})

    def _say_dropped(self, received: float) -> None:
        for table, n in self.limit.dropped().items():
            self.stats.rejected += n
            why = (
                f"table {table} is over its rate ({self.limit.rate:g} messages a second, "
                f"bursts of {self.limit.burst}): {n} messages dropped"
            )
            log.warning("director: refused: %s", why)
            self.store.record_rejected(protocol.topic(self.prefix, table, "*"), why, 0, received)

    def _refuse(self, topic: str, reason: str, raw: bytes, received: float) -> None:
        self.stats.rejected += 1
        log.warning("director: refused: %s", reason)
        self.store.record_rejected(topic, reason, len(raw), received)

    def _store_one(
        self, table: int, kind: str, payload: dict, received: float
    ) -> tuple[int, str] | None:
        """Store one checked message; returns ``(table, game)`` for an event or a result (to
        ack), else None."""
        store = self.store
        if kind == "events":
            new = store.record_event(
                table, payload["game"], payload["seq"], payload["record"], received
            )
            self._count(new)
            return table, payload["game"]
        if kind == "result":
            record = payload["record"]
            rnd = payload.get("round", record.get("round"))
            held = store.hold_reason(table, payload["game"], rnd, record)
            if held and not store.has_result(table, payload["game"]):
                waiting = store.held_waiting(table)
                if waiting >= HELD_MAX:
                    raise protocol.ProtocolError(
                        f"table {table}'s result {payload['game']} refused: the table has "
                        f"{waiting} held results waiting for the director (at most {HELD_MAX}; "
                        f"this one is held too: {held}); accept or void them "
                        "(director results, correct) and the table's next resend is stored"
                    )
            new = store.record_result(table, payload["game"], rnd, record, received, held=held)
            self._count(new)
            if not new and not store.same_result(table, payload["game"], record):
                # the first copy stands (acked below, so the table stops sending); the other
                # is said, never dropped without a word
                self._refuse(
                    protocol.topic(self.prefix, table, "result"),
                    f"table {table}'s result {payload['game']} sent again with other contents; "
                    "the first copy is kept (director results); correct it if this one is "
                    "right",
                    protocol.encode(payload),
                    received,
                )
            if new and held:
                log.warning(
                    "director: table %d's result %s held: not in a set-up (%s); it counts once "
                    "the director accepts it",
                    table,
                    payload["game"],
                    held,
                )
            self._events_of_result(table, payload["game"], record, received)
            return table, payload["game"]
        if kind == "state":
            conflict = self._conflicts.get(table)
            if conflict is not None:  # said until the claim is over
                payload = {**payload, "claim": conflict[1]}
            store.record_state(table, payload, received)
            self.stats.stored += 1
        elif kind == "board":
            store.record_board(
                table, payload.get("game"), payload["board"], payload["trusted"], received
            )
            self.stats.stored += 1
        elif kind == "online":
            self._online(table, payload, received)
        return None

    def _count(self, new: bool) -> None:
        if new:
            self.stats.stored += 1
        else:
            self.stats.duplicates += 1

    def _events_of_result(self, table: int, game: str, record: dict, received: float) -> None:
        for ev in record.get("events") or ():
            seq = ev.get("seq") if isinstance(ev, dict) else None
            if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1:
                self.store.record_event(table, game, seq, ev, received)

    def _online(self, table: int, payload: dict, received: float) -> None:
        online = payload["online"]
        box = payload.get("box")
        box = box[:64] if isinstance(box, str) and box.isprintable() else None
        presence: dict = {"online": online, "offline": None}
        if not online:
            presence["offline"] = "the table's link went (its goodbye or its Last Will)"
        elif box is not None:
            presence["box"] = box
            claim = self._claim(table, box, received)
            if claim is not None:
                presence["claim"] = claim
        shown = self._presence_shown.get(table)
        if (
            payload.get("beat") is True
            and shown == (presence, True)
            and self._quiet(table, received)
        ):
            # a heartbeat that changes nothing the hall shows: the table is heard (last_seen),
            # and its tile is drawn again only every BEAT_SHOWN seconds ("heard N s ago")
            self.store.touch(table, received)
            return
        self._presence_shown[table] = (presence, True)
        self._presence_drawn[table] = received
        self.store.record_presence(table, presence, received)

    def _quiet(self, table: int, at: float) -> bool:
        return at - self._presence_drawn.get(table, 0.0) < BEAT_SHOWN

    def _claim(self, table: int, box: str, at: float) -> str | None:
        """Note that ``box`` speaks for ``table``; the words "two boxes claim table N" while
        two boxes take it from each other (module constants), else None."""
        claims = self._claims.setdefault(table, collections.deque(maxlen=16))
        if not claims or claims[-1][1] != box:
            claims.append((at, box))
        recent = [(t, b) for t, b in claims if t >= at - CLAIM_WINDOW]
        boxes = sorted({b for _, b in recent})
        if len(recent) < 3 or len(boxes) < 2:
            found = self._conflicts.get(table)
            return None if found is None else found[1]
        words = f"two boxes claim table {table}"
        if table not in self._conflicts:
            log.warning(
                "director: %s (%s take its connection from each other); give one of them "
                "another table number",
                words,
                " and ".join(boxes),
            )
        self._conflicts[table] = (at + CLAIM_WINDOW, words)
        # the boxes hear it too (whichever is connected), and say it on their screens
        self._ack(table, {"claim": words, "boxes": boxes})
        return words

    # -- presence ------------------------------------------------------------------------------

    def _watch(self) -> None:
        while not self._stop.wait(1.0):
            try:
                self.check_presence(self.clock())
            except Exception:  # noqa: BLE001 - the store was busy: the next second tries again
                log.exception("director: the tables' presence could not be checked")

    def check_presence(self, now: float) -> list[int]:
        """Mark OFFLINE every table not heard from for :data:`OFFLINE_AFTER` seconds (said in
        the log and on the hall), and end the claims of two boxes that are over. Returns the
        tables marked OFFLINE now."""
        marked = []
        for table, last in self.store.silent_tables(now - OFFLINE_AFTER):
            quiet = now - last
            log.warning(
                "director: table %d not heard from for %.0f s (%d heartbeats missed): OFFLINE",
                table,
                quiet,
                int(quiet // BEAT_SECONDS),
            )
            self.store.record_presence(
                table,
                {"online": False, "offline": f"not heard from for {quiet:.0f} s"},
                now,
                heard=False,
            )
            self._presence_shown.pop(table, None)  # its next word is written, and shown
            marked.append(table)
        for table, (until, _) in list(self._conflicts.items()):
            if until < now:
                del self._conflicts[table]
                log.info("director: one box for table %d again", table)
                self.store.record_presence(table, {"claim": None}, now, heard=False)
        return marked

    def contiguous(self, table: int, game: str) -> int:
        """The highest seq n such that every journal record 1..n of ``game`` is stored."""
        con = self.store._con()
        count, top = con.execute(
            "SELECT count(*), max(seq) FROM events WHERE table_no = ? AND game = ?", (table, game)
        ).fetchone()
        if not count:
            return 0
        if count == top:
            return top
        n = 0
        for (seq,) in con.execute(
            "SELECT seq FROM events WHERE table_no = ? AND game = ? ORDER BY seq", (table, game)
        ):
            if seq != n + 1:
                break
            n = seq
        return n

    def _ack(self, table: int, payload: dict) -> None:
        self.client.publish(
            protocol.topic(self.prefix, table, "ack"), protocol.encode(payload), qos=1
        )
        self.stats.acks += 1

    # -- publishing set-ups --------------------------------------------------------------------

    def publish_setup(self, table: int, setup: dict, timeout: float = 10.0) -> None:
        """Publish table ``table``'s set-up (retained, QoS 1) and wait for the broker to take it.

        Raises:
            DirectorError: not taken within ``timeout`` seconds.
        """
        info = self.client.publish(
            protocol.topic(self.prefix, table, "setup"),
            protocol.encode(setup),
            qos=1,
            retain=True,
        )
        try:
            info.wait_for_publish(timeout)
        except (RuntimeError, ValueError) as exc:
            raise DirectorError(f"table {table}'s set-up was not published: {exc}") from None
        if not info.is_published():
            raise DirectorError(
                f"the broker at {self.url} did not take table {table}'s set-up within "
                f"{timeout:g} s; publish the round again"
            )

    def republish_round(self) -> int:
        """Publish the current round's set-ups again (retained, QoS 1; not waited for), as on
        every (re)connection: a broker that lost them (killed before it saved them, or started
        afresh) has them back, and a table that connects gets its round. A table takes a set-up
        once (its ``setup_id``), so a copy changes nothing at a table that has it. Returns how
        many were published."""
        from companion.tournament.store import StoreError

        rnd = self.store.current_round()
        if rnd is None:
            return 0
        try:
            setups = self.store.round_setups(rnd)
        except StoreError as exc:  # said; the director goes on storing what the tables send
            log.error("director: round %d's set-ups not published again: %s", rnd, exc)
            return 0
        for table, setup in setups.items():
            if self.pages and "page" not in setup:  # a round stored while no pages were served
                from companion.tournament.rounds import with_page

                setup = with_page(setup, table, self.pages)
            self.client.publish(
                protocol.topic(self.prefix, table, "setup"),
                protocol.encode(setup),
                qos=1,
                retain=True,
            )
        return len(setups)

    def publish_round(
        self,
        round: int,
        setups: dict[int, dict],
        players: list[str] | None = None,
        byes: dict[str, float] | None = None,
    ) -> None:
        """Keep and publish a round (:func:`companion.tournament.rounds.publish_round`), then
        read the set-ups back from the broker.

        Raises:
            DirectorError: the broker did not take a set-up, or acknowledged one it does not
                keep (its ACL refuses this account the event's topics): the round is stored,
                not published.
        """
        from companion.tournament.rounds import not_kept, not_kept_words, publish_round

        publish_round(self, self.store, round, setups, pages=self.pages, players=players, byes=byes)
        missing = not_kept(self.client, self.prefix, setups, timeout=self.readback_seconds)
        if missing:
            raise DirectorError(not_kept_words(round, self.prefix, missing))
        if self.save_broker is not None:  # the broker has them: now on its disk too
            self.save_broker()
