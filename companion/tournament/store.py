"""The director's store: every state, event, result and board the tables send, the rounds' set-ups
and the director's corrections, in one SQLite file (``data_dir()/director/<event>.sqlite``).

SQLite in WAL mode: one writer at a time (a lock in this process, SQLite's own lock and a 10 s
busy timeout across processes), readers never blocked; safe from several threads (one connection
per thread) and from another process reading the same file (the director's web pages, a
``companion director results`` while the director runs). A write is committed (and, with
``durable=True``, the default, synced: ``PRAGMA synchronous=FULL``) before the method returns, so
the director acks a result only once it is on disk.

Times are float seconds since the epoch, as the director received the message. Tables are int
table numbers. JSON columns hold compact JSON text.

Schema (``PRAGMA user_version`` = 2; a store of version 1 gets ``results.held`` on opening)::

    tables(table_no INTEGER PRIMARY KEY,  -- every table heard from, set up or given an account
           state TEXT, state_received REAL,   -- the latest tables/N/state payload and when
           last_seen REAL,                    -- the latest message of any kind from the table
           game TEXT)                         -- the game id of the newest event stored
    events(id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER, game TEXT, seq INTEGER,
           record TEXT, received REAL, UNIQUE(table_no, game, seq))   -- journal records
    results(id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER, game TEXT, round INTEGER,
            record TEXT, received REAL, UNIQUE(table_no, game),       -- one per game
            held TEXT)          -- why it matches no set-up (not counted until accepted), or NULL
    boards(id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER, game TEXT, board TEXT,
           trusted INTEGER, received REAL)                            -- every board read
    rounds(round INTEGER PRIMARY KEY, published REAL)
    setups(round INTEGER, table_no INTEGER, setup TEXT, PRIMARY KEY(round, table_no))
    round_players(round INTEGER, player TEXT, seed INTEGER,  -- each round's players, in order
                  bye_spread REAL, PRIMARY KEY(round, player))  -- a bye's spread (else NULL)
    corrections(id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER, game TEXT,
                change TEXT, reason TEXT, who TEXT, at REAL)          -- never deleted
    rejected(id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT, reason TEXT, size INTEGER,
             received REAL)                                           -- bad messages, logged
    changes(version INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER, what TEXT, at REAL)

``changes`` gets a row for every write (``table_no`` NULL for one that concerns no table), so
:meth:`Store.version` and :meth:`Store.changed_since` let a page poll for what is new, from any
process. A duplicate (an event or result already stored) changes nothing and adds no row.

The outcome of a result (players, winner, loser, spread) is read from its record by
:mod:`companion.tournament.outcome`, with the corrections applied in order.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from companion.errors import CompanionError
from companion.textformats import may_hold_surrogates, valid_text
from companion.tournament import outcome

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables(
    table_no INTEGER PRIMARY KEY, state TEXT, state_received REAL, last_seen REAL, game TEXT);
CREATE TABLE IF NOT EXISTS events(
    id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER NOT NULL, game TEXT NOT NULL,
    seq INTEGER NOT NULL, record TEXT NOT NULL, received REAL NOT NULL,
    UNIQUE(table_no, game, seq));
CREATE TABLE IF NOT EXISTS results(
    id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER NOT NULL, game TEXT NOT NULL,
    round INTEGER, record TEXT NOT NULL, received REAL NOT NULL, held TEXT,
    UNIQUE(table_no, game));
CREATE TABLE IF NOT EXISTS boards(
    id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER NOT NULL, game TEXT,
    board TEXT NOT NULL, trusted INTEGER NOT NULL, received REAL NOT NULL);
CREATE INDEX IF NOT EXISTS boards_table ON boards(table_no, id);
CREATE TABLE IF NOT EXISTS rounds(round INTEGER PRIMARY KEY, published REAL NOT NULL);
CREATE TABLE IF NOT EXISTS setups(
    round INTEGER NOT NULL, table_no INTEGER NOT NULL, setup TEXT NOT NULL,
    PRIMARY KEY(round, table_no));
CREATE TABLE IF NOT EXISTS round_players(
    round INTEGER NOT NULL, player TEXT NOT NULL, seed INTEGER NOT NULL, bye_spread REAL,
    PRIMARY KEY(round, player));
CREATE TABLE IF NOT EXISTS corrections(
    id INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER NOT NULL, game TEXT NOT NULL,
    change TEXT NOT NULL, reason TEXT NOT NULL, who TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS rejected(
    id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, reason TEXT NOT NULL,
    size INTEGER NOT NULL, received REAL NOT NULL);
CREATE TABLE IF NOT EXISTS changes(
    version INTEGER PRIMARY KEY AUTOINCREMENT, table_no INTEGER, what TEXT NOT NULL,
    at REAL NOT NULL);
"""


class StoreError(CompanionError, ValueError):
    """The store cannot be opened or a write is refused: names the file or the input."""


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False, sort_keys=True)


def _loads(text: str | None, where: str = "a row", kind: type | None = None):
    """A JSON column's value, its text made valid (a lone surrogate stored before the director
    cleaned what comes in becomes U+FFFD), so no stored row can break a page or a command.

    Args:
        where: the row and column, for the message (``"results row 3 (table 1, game g1):
            record"``).
        kind: the type the value must have (``dict``), if any.

    Raises:
        StoreError: a damaged row (not JSON, or not of ``kind``: a file edited by hand, a
            disk fault), naming it.
    """
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"the store's {where} is damaged: not JSON ({exc}); restore the store from a "
            "copy, or mend or delete that row with sqlite3"
        ) from None
    if kind is not None and not isinstance(value, kind):
        raise StoreError(
            f"the store's {where} is damaged: a JSON {type(value).__name__}, accepted a "
            f"JSON {'object' if kind is dict else kind.__name__}; restore the store from a "
            "copy, or mend or delete that row with sqlite3"
        )
    return valid_text(value) if may_hold_surrogates(text) else value


class Store:
    """The director's SQLite store (see the module docstring for the schema).

    Args:
        path: the SQLite file (created with its folder if missing).
        durable: sync every commit to the disk (``synchronous=FULL``); False (``NORMAL``) only
            for tests and benchmarks of other things.

    Raises:
        StoreError: the file cannot be opened, is not a SQLite database, or has a newer schema.
    """

    def __init__(self, path: Path | str, durable: bool = True) -> None:
        self.path = Path(path)
        self.durable = durable
        self._local = threading.local()
        self._lock = threading.RLock()
        self._all: list[sqlite3.Connection] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            con = self._con()
            found = con.execute("PRAGMA user_version").fetchone()[0]
            if found > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: store schema {found} is newer than this companion's "
                    f"({SCHEMA_VERSION}); update the companion"
                )
            with self._lock:
                con.executescript(SCHEMA)
                columns = {r[1] for r in con.execute("PRAGMA table_info(results)")}
                if "held" not in columns:  # a store of schema 1
                    con.execute("ALTER TABLE results ADD COLUMN held TEXT")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open the director's store: {exc}") from None

    # -- connections and transactions ------------------------------------------------------

    def _con(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            con = sqlite3.connect(
                self.path, timeout=10.0, isolation_level=None, check_same_thread=False
            )
            con.execute("PRAGMA journal_mode=WAL")
            con.execute(f"PRAGMA synchronous={'FULL' if self.durable else 'NORMAL'}")
            con.execute("PRAGMA busy_timeout=10000")
            self._local.con = con
            self._local.depth = 0
            with self._lock:
                self._all.append(con)
        return con

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: every ``record_*`` call inside it commits together at the end
        (the director batches a burst of messages this way). Nested calls join the outer one."""
        con = self._con()
        with self._lock:
            if self._local.depth:
                self._local.depth += 1
                try:
                    yield con
                finally:
                    self._local.depth -= 1
                return
            con.execute("BEGIN IMMEDIATE")
            self._local.depth = 1
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            else:
                con.execute("COMMIT")
            finally:
                self._local.depth = 0

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[sqlite3.Connection]:
        """A part of a transaction that is undone alone when it raises (SQLite's ``SAVEPOINT``):
        the director stores each message of a batch this way, so one that cannot be stored
        loses no other. Outside a transaction it is one of its own."""
        with self.transaction() as con:
            con.execute("SAVEPOINT one")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK TO one")
                con.execute("RELEASE one")
                raise
            con.execute("RELEASE one")

    def close(self) -> None:
        """Close every connection this store opened (in any thread)."""
        with self._lock:
            for con in self._all:
                with contextlib.suppress(sqlite3.Error):
                    con.close()
            self._all.clear()
            self._local = threading.local()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _changed(self, con: sqlite3.Connection, table: int | None, what: str, at: float) -> None:
        con.execute("INSERT INTO changes(table_no, what, at) VALUES (?, ?, ?)", (table, what, at))

    def _seen(self, con: sqlite3.Connection, table: int, received: float | None) -> None:
        con.execute("INSERT OR IGNORE INTO tables(table_no) VALUES (?)", (table,))
        if received is not None:
            con.execute(
                "UPDATE tables SET last_seen = max(coalesce(last_seen, 0), ?) WHERE table_no = ?",
                (received, table),
            )

    # -- what the tables send ------------------------------------------------------------------

    def add_table(self, table: int, at: float) -> None:
        """Know a table before it is heard from (``companion director tables add``)."""
        with self.transaction() as con:
            cur = con.execute("INSERT OR IGNORE INTO tables(table_no) VALUES (?)", (int(table),))
            if cur.rowcount:
                self._changed(con, int(table), "table", at)

    def record_state(self, table: int, payload: dict, received: float) -> None:
        """Keep ``payload`` (a ``tables/N/state`` message) as table ``table``'s latest state."""
        with self.transaction() as con:
            self._seen(con, table, received)
            con.execute(
                "UPDATE tables SET state = ?, state_received = ? WHERE table_no = ?",
                (_dumps(payload), received, table),
            )
            self._changed(con, table, "state", received)

    def record_presence(self, table: int, presence: dict, at: float, heard: bool = True) -> None:
        """Merge ``presence`` (``online``, and the director's words on it: ``offline``,
        ``claim``; a key with None is removed) into table ``table``'s latest state, leaving the
        state's own time (``state_received``) as it is; ``heard``: the table was heard at
        ``at`` (a heartbeat), else the director decided it (``last_seen`` unchanged)."""
        with self.transaction() as con:
            self._seen(con, table, at if heard else None)
            row = con.execute("SELECT state FROM tables WHERE table_no = ?", (table,)).fetchone()
            try:
                state = _loads(row[0]) if row and row[0] else {}
            except StoreError:
                state = {}  # a damaged state is replaced by the table's next word
            if not isinstance(state, dict):
                state = {}
            for key, value in presence.items():
                if value is None:
                    state.pop(key, None)
                else:
                    state[key] = value
            con.execute("UPDATE tables SET state = ? WHERE table_no = ?", (_dumps(state), table))
            self._changed(con, table, "presence", at)

    def touch(self, table: int, at: float) -> None:
        """Table ``table`` was heard at ``at`` (``last_seen``), and nothing else changed: no
        change is counted (the pages are not drawn again)."""
        with self.transaction() as con:
            self._seen(con, table, at)

    def silent_tables(self, since: float) -> list[tuple[int, float]]:
        """``(table, last_seen)`` of every table heard from whose state says online (or says
        nothing of it) and which has not been heard since ``since`` (seconds since the epoch)."""
        rows = self._con().execute(
            "SELECT table_no, last_seen, state FROM tables "
            "WHERE last_seen IS NOT NULL AND last_seen < ? ORDER BY table_no",
            (since,),
        )
        out = []
        for table, last_seen, state in rows:
            try:
                st = _loads(state) if state else {}
            except StoreError:
                st = {}
            if not isinstance(st, dict) or st.get("online") is not False:
                out.append((table, last_seen))
        return out

    def record_event(self, table: int, game: str, seq: int, record: dict, received: float) -> bool:
        """Store one journal record of ``game`` at ``table``; False when (table, game, seq) is
        already stored (a duplicate, dropped: the first copy is kept)."""
        with self.transaction() as con:
            cur = con.execute(
                "INSERT OR IGNORE INTO events(table_no, game, seq, record, received) "
                "VALUES (?, ?, ?, ?, ?)",
                (table, game, int(seq), _dumps(record), received),
            )
            if not cur.rowcount:
                return False
            self._seen(con, table, received)
            con.execute("UPDATE tables SET game = ? WHERE table_no = ?", (game, table))
            self._changed(con, table, "event", received)
            return True

    def record_result(
        self,
        table: int,
        game: str,
        round: int | None,
        record: dict,
        received: float,
        held: str | None = None,
    ) -> bool:
        """Store the result record of ``game`` at ``table`` (of round ``round``, None when the
        table had no tournament set-up); False when that game's result is already stored.
        ``held``: why it is not counted until the director accepts it (the director gives
        :meth:`hold_reason`), None to count it."""
        with self.transaction() as con:
            cur = con.execute(
                "INSERT OR IGNORE INTO results(table_no, game, round, record, received, held) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (table, game, round, _dumps(record), received, held),
            )
            if not cur.rowcount:
                return False
            self._seen(con, table, received)
            self._changed(con, table, "result", received)
            return True

    def hold_reason(self, table: int, game: str, round: int | None, record: dict) -> str | None:
        """Why a result just received from ``table`` must be held (None: it counts): it does
        not match the set-up the table was given for ``round``
        (:func:`companion.tournament.outcome.setup_mismatch`), or another game of that round at
        that table already counts (a set-up is one game): one stored as counting, or one held
        that the director has accepted since."""
        setup = None
        if round is not None:
            setup = self.round_setups(round).get(table)
        why = outcome.setup_mismatch(setup, round, record)
        if why is not None:
            return why
        # a result that counts: stored counted, or held and then accepted by the director
        others = self._results(
            "WHERE table_no = ? AND round = ? AND game != ?", (table, round, game)
        )
        counted = [r["game"] for r in others if r["held"] is None]
        if counted:
            return f"round {round}'s set-up at this table was played already (game {counted[0]})"
        return None

    def has_result(self, table: int, game: str) -> bool:
        """Whether the result of ``game`` at ``table`` is stored."""
        row = (
            self._con()
            .execute("SELECT 1 FROM results WHERE table_no = ? AND game = ?", (table, game))
            .fetchone()
        )
        return row is not None

    def same_result(self, table: int, game: str, record: dict) -> bool:
        """Whether the result stored of ``game`` at ``table`` is ``record`` (False when none
        is stored, or it holds other contents)."""
        row = (
            self._con()
            .execute("SELECT record FROM results WHERE table_no = ? AND game = ?", (table, game))
            .fetchone()
        )
        return row is not None and row[0] == _dumps(record)

    def held_waiting(self, table: int) -> int:
        """How many of ``table``'s results are held and waiting for the director: neither
        accepted nor void."""
        rows = self._results("WHERE table_no = ? AND held IS NOT NULL", (table,))
        return sum(1 for r in rows if r["held"] is not None and not r["void"])

    def record_board(
        self, table: int, game: str | None, board: str, trusted: bool, received: float
    ) -> None:
        """Store a board as the table's camera read it (board notation) with its trust."""
        with self.transaction() as con:
            self._seen(con, table, received)
            con.execute(
                "INSERT INTO boards(table_no, game, board, trusted, received) VALUES (?,?,?,?,?)",
                (table, game, board, int(bool(trusted)), received),
            )
            self._changed(con, table, "board", received)

    def record_rejected(self, topic: str, reason: str, size: int, received: float) -> None:
        """Log a message the director refused (malformed, oversized, replayed, wrong topic)."""
        with self.transaction() as con:
            con.execute(
                "INSERT INTO rejected(topic, reason, size, received) VALUES (?, ?, ?, ?)",
                (topic, reason, int(size), received),
            )
            self._changed(con, None, "rejected", received)

    def rejected(self, limit: int = 100) -> list[dict]:
        """The latest refused messages, newest first: ``{"topic", "reason", "size",
        "received"}``."""
        rows = self._con().execute(
            "SELECT topic, reason, size, received FROM rejected ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [dict(zip(("topic", "reason", "size", "received"), r, strict=True)) for r in rows]

    # -- rounds --------------------------------------------------------------------------------

    def set_round(
        self,
        round: int,
        setups: dict[int, dict],
        published: float,
        players: list[str] | None = None,
        byes: dict[str, float] | None = None,
    ) -> None:
        """Keep round ``round``'s set-ups (table -> set-up payload), replacing any earlier ones
        of that round; it becomes the current round.

        Args:
            players: the round's players in seeding order (registered for the event); default
                the set-ups' players in table order, then the byes.
            byes: the players with a bye this round and each bye's spread.
        """
        byes = dict(byes or {})
        if players is None:
            players = [
                n
                for _, s in sorted(setups.items())
                for n in (s.get("blue"), s.get("red"))
                if isinstance(n, str)
            ]
        order = list(dict.fromkeys([*players, *byes]))
        with self.transaction() as con:
            con.execute("DELETE FROM setups WHERE round = ?", (round,))
            con.execute("DELETE FROM round_players WHERE round = ?", (round,))
            con.execute(
                "INSERT OR REPLACE INTO rounds(round, published) VALUES (?, ?)", (round, published)
            )
            for table, setup in sorted(setups.items()):
                self._seen(con, int(table), None)
                con.execute(
                    "INSERT INTO setups(round, table_no, setup) VALUES (?, ?, ?)",
                    (round, int(table), _dumps(setup)),
                )
                self._changed(con, int(table), "setup", published)
            con.executemany(
                "INSERT INTO round_players(round, player, seed, bye_spread) VALUES (?, ?, ?, ?)",
                [(round, name, i, byes.get(name)) for i, name in enumerate(order)],
            )
            self._changed(con, None, "round", published)

    def round_players(self, round: int) -> list[str]:
        """Round ``round``'s players in seeding order (empty if it was never published)."""
        rows = self._con().execute(
            "SELECT player FROM round_players WHERE round = ? ORDER BY seed", (round,)
        )
        return [p for (p,) in rows]

    def registered(self) -> list[str]:
        """Every player of the event (in any round's players, or any result), in the order
        first registered."""
        rows = self._con().execute(
            "SELECT player, min(round * 100000 + seed) AS k FROM round_players "
            "GROUP BY player ORDER BY k"
        )
        return [p for p, _ in rows]

    def byes(self) -> list[dict]:
        """Every bye given: ``{"round", "player", "spread"}`` in round order."""
        rows = self._con().execute(
            "SELECT round, player, bye_spread FROM round_players "
            "WHERE bye_spread IS NOT NULL ORDER BY round, seed"
        )
        return [{"round": r, "player": p, "spread": s} for r, p, s in rows]

    def round_setups(self, round: int) -> dict[int, dict]:
        """Round ``round``'s set-ups, table -> set-up (empty if it was never published)."""
        rows = self._con().execute(
            "SELECT table_no, setup FROM setups WHERE round = ? ORDER BY table_no", (round,)
        )
        return {
            t: _loads(s, f"setups row (round {round}, table {t}): setup", dict) for t, s in rows
        }

    def current_round(self) -> int | None:
        """The round published last (None before any)."""
        row = (
            self._con()
            .execute("SELECT round FROM rounds ORDER BY published DESC, round DESC LIMIT 1")
            .fetchone()
        )
        return None if row is None else row[0]

    def rounds(self) -> list[dict]:
        """Every round published: ``{"round", "published", "tables"}`` in round order."""
        rows = self._con().execute(
            "SELECT r.round, r.published, count(s.table_no) FROM rounds r "
            "LEFT JOIN setups s ON s.round = r.round GROUP BY r.round ORDER BY r.round"
        )
        return [{"round": r, "published": p, "tables": n} for r, p, n in rows]

    # -- corrections -------------------------------------------------------------------------

    def add_correction(
        self, table: int, game: str, change: dict, reason: str, who: str, at: float
    ) -> int:
        """Keep a director's correction of a stored result; returns its id.

        Args:
            change: ``{"winner": "blue"}``, ``{"loser": "red"}``, ``{"draw": true}`` or
                ``{"void": true|false}`` (see :func:`companion.tournament.outcome.check_change`).
            reason, who: why, and the director who made it (both required).

        Raises:
            CorrectionError: a bad change.
            StoreError: a table number outside 1 to 999, no result of ``game`` at ``table``
                is stored, or no reason or who.
        """
        from companion.tournament.protocol import TABLE_MAX

        if isinstance(table, bool) or not isinstance(table, int) or not 1 <= table <= TABLE_MAX:
            raise StoreError(f"table {table!r}: accepted a table number, 1 to {TABLE_MAX}")
        change = outcome.check_change(change)
        if not str(reason).strip() or not str(who).strip():
            raise StoreError("a correction needs a reason and who makes it")
        with self.transaction() as con:
            found = con.execute(
                "SELECT 1 FROM results WHERE table_no = ? AND game = ?", (table, game)
            ).fetchone()
            if found is None:
                games = [
                    g
                    for (g,) in con.execute(
                        "SELECT game FROM results WHERE table_no = ? ORDER BY id", (table,)
                    )
                ]
                raise StoreError(
                    f"no result of game {game!r} at table {table} to correct; "
                    f"stored games of table {table}: {games or 'none'}"
                )
            cur = con.execute(
                "INSERT INTO corrections(table_no, game, change, reason, who, at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (table, game, _dumps(change), str(reason).strip(), str(who).strip(), at),
            )
            self._changed(con, table, "correction", at)
            return int(cur.lastrowid)

    def corrections(self) -> list[dict]:
        """Every correction, oldest first: ``{"id", "table", "game", "change", "reason", "who",
        "at"}``."""
        rows = self._con().execute(
            "SELECT id, table_no, game, change, reason, who, at FROM corrections ORDER BY id"
        )
        return [self._correction(r) for r in rows]

    @staticmethod
    def _correction(row) -> dict:
        i, table, game, change, reason, who, at = row
        return {
            "id": i,
            "table": table,
            "game": game,
            "change": _loads(change, f"corrections row {i} (table {table}, game {game}): change"),
            "reason": reason,
            "who": who,
            "at": at,
        }

    # -- reading -------------------------------------------------------------------------------

    def _results(self, where: str = "", args: tuple = ()) -> list[dict]:
        con = self._con()
        fixes: dict[tuple[int, str], list[dict]] = {}
        for row in con.execute(
            "SELECT id, table_no, game, change, reason, who, at FROM corrections ORDER BY id"
        ):
            c = self._correction(row)
            fixes.setdefault((c["table"], c["game"]), []).append(c)
        out = []
        for table, game, rnd, record, received, held in con.execute(
            "SELECT table_no, game, round, record, received, held FROM results "
            f"{where} ORDER BY coalesce(round, 0), table_no, id",
            args,
        ):
            rec = _loads(record, f"results row (table {table}, game {game}): record", dict)
            mine = fixes.get((table, game), [])
            eff = outcome.effective(rec, [c["change"] for c in mine])
            out.append(
                {
                    "table": table,
                    "game": game,
                    "round": rnd,
                    "record": rec,
                    "received": received,
                    "corrections": mine,
                    "players": outcome.players(rec),
                    **eff,
                    "held": None if eff["accepted"] else held,
                }
            )
        return out

    def results(self) -> list[dict]:
        """Every result stored, one per game, in round then table order: ``{"table", "game",
        "round", "record", "received", "corrections", "players", "winner", "loser", "draw",
        "void", "accepted", "held"}``; ``record`` is as the table sent it,
        ``winner``/``loser``/``draw``/``void`` are after the corrections; ``held`` is why a
        result that matches no set-up is not counted (None once the director accepts it, and
        for every result that counts)."""
        return self._results()

    def standings(self) -> list[dict]:
        """The standings over every result that counts (not void, not held), every bye and every
        registered
        player (:func:`companion.tournament.standings.standings`: points, then spread, then
        Buchholz): ``{"rank", "player", "played", "wins", "losses", "draws", "byes", "points",
        "spread", "buchholz"}`` best first."""
        from companion.tournament.standings import standings

        return standings(self._results(), self.byes(), self.registered())

    def tables(self) -> list[dict]:
        """One entry per known table, in table order: ``{"table", "state", "last_seen",
        "setup", "result"}``: the latest state payload (None before any), the latest message's
        time, the current round's set-up for the table (None if not in it) and the result of its
        latest game (as in :meth:`results`, None before any)."""
        return [
            self._table(row)
            for row in self._con().execute(
                "SELECT table_no, state, last_seen FROM tables ORDER BY table_no"
            )
        ]

    def _table(self, row) -> dict:
        table, state, last_seen = row
        con = self._con()
        rnd = self.current_round()
        setup = None
        if rnd is not None:
            got = con.execute(
                "SELECT setup FROM setups WHERE round = ? AND table_no = ?", (rnd, table)
            ).fetchone()
            where = f"setups row (round {rnd}, table {table}): setup"
            setup = None if got is None else _loads(got[0], where, dict)
        latest = con.execute(
            "SELECT id FROM results WHERE table_no = ? ORDER BY id DESC LIMIT 1", (table,)
        ).fetchone()
        result = self._results("WHERE id = ?", (latest[0],))[0] if latest else None
        return {
            "table": table,
            "state": self._state(table, state),
            "last_seen": last_seen,
            "setup": setup,
            "result": result,
        }

    @staticmethod
    def _state(table: int, text: str | None) -> dict | None:
        """A table's stored state; a damaged one (not a JSON object) is shown as a fault of
        the table's instead of failing the page or command that reads it."""
        try:
            return _loads(text, f"tables row {table}: state", dict)
        except StoreError as exc:
            return {"fault": str(exc)}

    def table(self, n: int) -> dict | None:
        """Table ``n`` as in :meth:`tables`, plus ``events`` (the journal records of its current
        game, the game of the newest event stored, in seq order), ``board`` (the latest
        ``{"board", "trusted", "received"}``, None before any) and ``results`` (every result of
        the table, oldest first); None for a table the store does not know."""
        con = self._con()
        row = con.execute(
            "SELECT table_no, state, last_seen FROM tables WHERE table_no = ?", (n,)
        ).fetchone()
        if row is None:
            return None
        out = self._table(row)
        game = con.execute("SELECT game FROM tables WHERE table_no = ?", (n,)).fetchone()[0]
        out["game"] = game
        out["events"] = self.events(n, game)
        board = con.execute(
            "SELECT board, trusted, received FROM boards WHERE table_no = ? "
            "ORDER BY id DESC LIMIT 1",
            (n,),
        ).fetchone()
        out["board"] = (
            None
            if board is None
            else {"board": board[0], "trusted": bool(board[1]), "received": board[2]}
        )
        res = self._results("WHERE table_no = ?", (n,))
        out["results"] = sorted(res, key=lambda r: r["received"])
        return out

    def events(self, table: int, game: str) -> list[dict]:
        """Every journal record stored of ``game`` at ``table``, in seq order."""
        rows = self._con().execute(
            "SELECT seq, record FROM events WHERE table_no = ? AND game = ? ORDER BY seq",
            (table, game),
        )
        where = f"events row (table {table}, game {game}, seq {{}}): record"
        return [_loads(r, where.format(seq)) for seq, r in rows]

    def counts(self) -> dict[str, int]:
        """How many rows each kind holds: ``{"tables", "events", "results", "boards",
        "corrections", "rejected"}`` (for the benchmark and the director's log)."""
        con = self._con()
        return {
            name: con.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
            for name in ("tables", "events", "results", "boards", "corrections", "rejected")
        }

    # -- live updates --------------------------------------------------------------------------

    def version(self) -> int:
        """A counter that grows on every change (0 for an empty store)."""
        row = self._con().execute("SELECT max(version) FROM changes").fetchone()
        return row[0] or 0

    def changed_since(self, version: int) -> tuple[int, list[int]]:
        """``(new version, tables changed after version)``: the table numbers (sorted) of every
        change newer than ``version``; a change of no table (a round, a refused message) moves
        the version only. Works across processes (the file is read afresh)."""
        con = self._con()
        new = self.version()
        rows = con.execute(
            "SELECT DISTINCT table_no FROM changes WHERE version > ? AND version <= ? "
            "AND table_no IS NOT NULL ORDER BY table_no",
            (version, new),
        )
        return new, [t for (t,) in rows]
