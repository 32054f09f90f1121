"""The tournament network against a real Mosquitto on a free loopback port, the real director and
the real table service with its link: a set-up taken between games, a result stored once and
acked, bad input refused and logged, the ACL, accounts usable at once, TLS and a bridge."""

import json
import logging
import shutil
import socket
import ssl
import time

import pytest

from companion.daemon.modes import iago as iago_mode
from companion.daemon.service import LATE_INPUT_SECONDS
from companion.daemon.sim import START, FakeClock
from companion.tournament import broker as brk
from companion.tournament import protocol
from companion.tournament.director import Director
from companion.tournament.mqtt import BrokerURL, BrokerURLError, check_login, connect
from companion.tournament.pairing import Pairing
from companion.tournament.rounds import make_round
from companion.tournament.sim import SimTable
from companion.tournament.store import Store

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not brk.os.path.exists("/usr/sbin/mosquitto"),
    reason="Mosquitto is not installed (make deps installs it)",
)

EVENT = "spring"
PREFIX = protocol.prefix(EVENT)


def wait_until(check, timeout=10.0, what="condition"):
    """Poll ``check`` until it is true (the network is asynchronous); fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class HallFixture:
    """A director, its own Mosquitto on a free port and its store, for ``event``; tables join
    with their links. ``save_broker``: the director has the broker save at once after a round,
    as ``companion director`` wires it; ``goodbye``: the links say goodbye when the hall
    closes."""

    save_broker = False
    goodbye = True

    def __init__(self, root, event=EVENT):
        self.root = root
        self.event = event
        self.accounts = brk.Accounts(root / "director")
        self.port = brk.free_port()
        self.broker = brk.Broker(self.accounts, event, self.port)
        self.broker.start()
        self.tables: list[SimTable] = []
        self.links = []
        self.director = None
        try:
            self.url = BrokerURL("127.0.0.1", self.port)
            self.creds = self.accounts.ensure()
            self.store = Store(root / "director" / f"{event}.sqlite")
            self.start_director()
        except BaseException:
            self.broker.stop()  # never leave a broker behind
            raise

    def start_director(self):
        self.director = Director(
            self.store, self.event, self.url, self.creds["username"], self.creds["password"]
        )
        if self.save_broker:
            self.director.save_broker = self.broker.save  # as companion director wires it
        self.director.start()

    def account(self, number):
        """Table ``number``'s account, usable at once, with no link running: the test speaks
        for the table (the broker gives an account one client id, so a second client of the
        same account would take the first's session)."""
        creds = self.accounts.add_tables([number], self.event)[number]
        self.broker.reload()
        check_login(self.url, creds["username"], creds["password"])
        return creds

    def join(self, number, creds, root=None, clock=None, **link_options):
        """A simulated table ``number`` (in ``root``, default the hall's) joined with ``creds``,
        its link started: (table, link)."""
        table = SimTable(root or self.root, number, clock=clock or FakeClock())
        table.join(
            f"mqtt://127.0.0.1:{self.port}", self.event, creds["username"], creds["password"]
        )
        link_options.setdefault("poll", 0.01)
        link_options.setdefault("resend_seconds", 0.5)
        link = table.link(**link_options)
        link.start()
        self.tables.append(table)
        self.links.append(link)
        return table, link

    def add(self, number, clock=None, **link_options):
        creds = self.account(number)
        table, link = self.join(number, creds, clock=clock, **link_options)
        return table, link, creds

    def close(self):
        for link in self.links:
            link.stop(goodbye=self.goodbye)
        if self.director is not None:
            self.director.stop()
        self.broker.stop()
        for t in self.tables:
            t.close()
        self.store.close()


@pytest.fixture
def hall(tmp_path):
    h = HallFixture(tmp_path)
    yield h
    h.close()


def play_blue_wins(table: SimTable, at: float = 0.0):
    """Red's press starts blue's move; blue presses at 5 s; red, on move with his one minute,
    presses no more: at 65 s his minute has run out and he has lost on time (rulebook, "The
    Timer": a player loses on time, unable to complete his move before the sand runs out on his
    last minute); its record is saved LATE_INPUT_SECONDS later (a press told late still counts
    until then)."""
    clock = table.clock
    table.service.run_until(START + at, clock.set)
    table.press("red")
    table.service.run_until(START + at + 5, clock.set)
    table.press("blue")
    table.service.run_until(START + at + 65 + LATE_INPUT_SECONDS, clock.set)


def test_a_round_is_taken_between_games_and_its_result_arrives_once(hall):
    table, link, _ = hall.add(1)
    setups = make_round(
        hall.store, 1, [Pairing("Ada", "Bob")], colours="fixed", minutes=1, minute_seconds=60
    )
    hall.director.publish_round(1, setups)
    wait_until(lambda: 'blue = "Ada"' in table.table_toml.read_text(), what="the set-up")
    # the table was ready (no game begun): it takes the set-up at its next look
    table.service.run_until(START + 1, table.clock.set)
    cfg = table.service.mode.context.table
    assert (cfg.round, cfg.number, cfg.blue, cfg.red, cfg.minutes) == (1, 1, "Ada", "Bob", 1)
    # the OLED's ready screen shows the round, the table and both names with their colours
    view = table.service.mode.view(table.service.game_time())
    assert table.devices.display.image is not None
    expected = iago_mode._setup_frame(
        {
            "table": 1,
            "round": 1,
            "names": {"blue": "Ada", "red": "Bob"},
            "setting": "1 min, 60 s minute",
            "notice": "",
            "lexicon": view_lexicon(view, table),
        }
    )
    assert same_frame(table, expected)
    play_blue_wins(table)
    assert table.service.mode.finished or table.records()
    game = wait_until(
        lambda: link.acked_results and next(iter(link.acked_results)), what="the director's ack"
    )
    results = hall.store.results()
    assert [(r["table"], r["game"], r["round"], r["winner"]) for r in results] == [
        (1, game, 1, "blue")
    ]
    assert results[0]["players"] == {"blue": "Ada", "red": "Bob"}
    # every journal record of the game, heartbeats included, stored exactly once
    journal = table.journals()[game]
    wait_until(lambda: link.acked_events.get(game) == journal[-1]["seq"], what="events acked")
    assert hall.store.events(1, game) == journal
    standings = {r["player"]: (r["wins"], r["losses"], r["spread"]) for r in hall.store.standings()}
    # one minute each: blue ends with both (2), red with none (0)
    assert standings == {"Ada": (1, 0, 2), "Bob": (0, 1, -2)}
    # the director's state of the table says finished, with the loser
    state = wait_until(
        lambda: (
            (hall.store.table(1)["state"] or {}).get("status") == "finished"
            and (hall.store.table(1)["state"] or {}).get("round") == 1
            and hall.store.table(1)["state"]
        ),
        what="the finished state",
    )
    assert state["loser"] == "red" and state["round"] == 1, state


def view_lexicon(view, table):
    judge = table.service.mode.context.judge
    return getattr(judge, "name", "") or "default lexicon"


def same_frame(table, frame) -> bool:
    from PIL import Image, ImageChops, ImageDraw

    shown = table.devices.display.image.convert("1")
    image = Image.new("1", shown.size, 0)
    frame(ImageDraw.Draw(image), *shown.size)
    return ImageChops.difference(shown, image).getbbox() is None


def decoded_qr(image) -> str:
    """The text of the QR code on an OLED frame or a PNG, read by OpenCV's detector as a phone's
    camera would read the screen (enlarged, with a dark margin); "" when none is found.

    The ArUco-based detector (``cv2.QRCodeDetectorAruco``): the classic ``QRCodeDetector``
    misses about one valid code in 200 (OpenCV 4.x/5.0; 12 of 3,000 table addresses with
    random ports, which made a test with a free port fail now and then), this one none.
    """
    import cv2
    import numpy as np

    a = np.array(image.convert("L"))
    k = max(1, 256 // min(a.shape))  # an OLED's 64 pixels enlarged 4 times; a PNG as it is
    big = cv2.resize(a, (a.shape[1] * k, a.shape[0] * k), interpolation=cv2.INTER_NEAREST)
    big = cv2.copyMakeBorder(big, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=0)
    return cv2.QRCodeDetectorAruco().detectAndDecode(big)[0]


def test_a_tables_ready_screen_shows_the_qr_code_of_its_page_on_the_directors_pages(hall):
    table, link, _ = hall.add(3)
    hall.director.pages = "http://10.42.0.1:8080"  # what 'director --http' sets
    setups = make_round(hall.store, 2, [Pairing("Ada", "Bob", 3)], colours="fixed")
    hall.director.publish_round(2, setups)
    assert hall.store.round_setups(2)[3]["page"] == "http://10.42.0.1:8080/table/3"
    wait_until(lambda: "page = " in table.table_toml.read_text(), what="the set-up")
    seen = set()
    for second in range(1, 13):  # the ready screen's pages in turns, 3 s each
        table.service.run_until(START + second, table.clock.set)
        seen.add(decoded_qr(table.devices.display.image))
    assert table.service.mode.context.table.page == "http://10.42.0.1:8080/table/3"
    assert seen - {""} == {"http://10.42.0.1:8080/table/3"}
    assert "" in seen  # the names and who presses to start still have their turns


def test_a_game_in_progress_keeps_its_set_up(hall):
    table, link, _ = hall.add(2)
    clock = table.clock
    table.press("red")  # blue's move has begun: a game is under way
    table.service.run_until(START + 2, clock.set)
    setups = make_round(hall.store, 1, [Pairing("Cy", "Di", 2)], colours="fixed")
    hall.director.publish_round(1, setups)
    wait_until(lambda: 'blue = "Cy"' in table.table_toml.read_text(), what="the set-up")
    table.service.run_until(START + 3, clock.set)
    assert table.service.mode.context.table.blue == "Blue2"  # the game goes on as it began
    assert table.service.mode.state(table.service.game_time())["status"] == "running"


def raw_client(port, username, password, client_id):
    client = connect(BrokerURL("127.0.0.1", port), username, password, client_id, timeout=5.0)
    return client


def test_bad_input_is_refused_and_logged_and_loses_nothing_else(hall, caplog):
    caplog.set_level(logging.WARNING, logger="companion.tournament")
    creds = hall.account(3)
    c = raw_client(hall.port, creds["username"], creds["password"], "intruder-3")
    try:
        events = protocol.topic(PREFIX, 3, "events")
        result = protocol.topic(PREFIX, 3, "result")
        bad = [
            (events, b"{not json"),
            (events, json.dumps({"game": "g1", "seq": "one", "record": {}}).encode()),
            (events, json.dumps({"game": "g1", "seq": 1, "record": {"x": "y" * 70_000}}).encode()),
            (result, json.dumps({"game": "g1", "table": 4, "record": {}}).encode()),
            (events, b"[1, 2]"),
        ]
        good = json.dumps({"game": "g1", "seq": 1, "record": {"kind": "press"}}).encode()
        for topic, payload in bad[:3]:
            c.publish(topic, payload, qos=1).wait_for_publish(5)
        c.publish(events, good, qos=1).wait_for_publish(5)
        c.publish(events, good, qos=1).wait_for_publish(5)  # replayed
        for topic, payload in bad[3:]:
            c.publish(topic, payload, qos=1).wait_for_publish(5)
        # on another table's topic: the broker's ACL drops it, the director never sees it
        c.publish(
            protocol.topic(PREFIX, 5, "result"),
            json.dumps({"game": "x", "table": 5, "record": {}}).encode(),
            qos=1,
        ).wait_for_publish(5)
        wait_until(lambda: len(hall.store.rejected()) == len(bad), what="the refusals")
        assert hall.director.drain()
    finally:
        c.disconnect()
        c.loop_stop()
    reasons = [r["reason"] for r in reversed(hall.store.rejected())]
    assert "not JSON" in reasons[0]
    assert "seq 'one'" in reasons[1]
    assert "bytes; accepted at most 65536" in reasons[2]
    assert "says table 4 on table 3's topic" in reasons[3]
    assert "a JSON list" in reasons[4]
    assert all(r in caplog.text for r in reasons)
    assert hall.store.events(3, "g1") == [{"kind": "press"}]  # the good one, once
    assert hall.director.stats.duplicates >= 1  # the replayed copy, dropped
    assert hall.store.table(5) is None and hall.store.results() == []


def test_acl_a_table_reads_only_its_own_setup_and_ack(hall):
    creds3 = hall.account(3)
    hall.account(4)
    setups = make_round(hall.store, 1, [Pairing("Ada", "Bob", 3), Pairing("Cy", "Di", 4)])
    hall.director.publish_round(1, setups)
    got: list[str] = []
    c = raw_client(hall.port, creds3["username"], creds3["password"], "peek-3")
    try:
        c.on_message = lambda client, userdata, msg: got.append(msg.topic)
        c.subscribe(f"{PREFIX}tables/+/setup", qos=1)
        c.subscribe(f"{PREFIX}#", qos=1)
        wait_until(lambda: protocol.topic(PREFIX, 3, "setup") in got, what="its own set-up")
        # the broker hands a client its messages in order: once a marker published after the
        # subscriptions is here, every retained set-up it may read has come
        hall.director.client.publish(
            protocol.topic(PREFIX, 3, "ack"), protocol.encode({"game": "marker"}), qos=1
        )
        wait_until(lambda: protocol.topic(PREFIX, 3, "ack") in got, what="the marker")
        assert protocol.topic(PREFIX, 4, "setup") not in got
        assert all(t.startswith(f"{PREFIX}tables/3/") for t in got)
    finally:
        c.disconnect()
        c.loop_stop()


def test_no_anonymous_clients_and_no_wrong_password(hall):
    with pytest.raises(BrokerURLError, match="did not accept"):
        connect(hall.url, None, None, "anonymous", timeout=3.0)
    with pytest.raises(BrokerURLError, match="did not accept"):
        connect(hall.url, "table1", "guess", "guesser", timeout=3.0)


def test_tables_add_accounts_work_at_once_while_the_director_runs(hall, monkeypatch, capsys):
    from companion.cli import main
    from companion.tournament import director as director_module

    monkeypatch.setattr(director_module, "director_dir", lambda: hall.accounts.directory)
    # the running director's broker: its pid file and the address it publishes
    (hall.accounts.directory / "running.json").write_text(
        json.dumps({"broker": str(hall.url), "event": EVENT})
    )
    assert main(["director", "tables", "add", "7", "9", "--json", "--event", EVENT]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["tables"]) == ["7", "9"]
    for creds in out["tables"].values():
        client = connect(
            hall.url, creds["username"], creds["password"], "new-" + creds["username"], timeout=3.0
        )
        client.disconnect()
        client.loop_stop()
    # only hashes are stored
    passwd = hall.accounts.passwd.read_text()
    assert out["tables"]["7"]["password"] not in passwd and "table7:$7$" in passwd


def test_tls_with_the_halls_ca(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    accounts = brk.Accounts(tmp_path / "director")
    tls = brk.make_hall_ca(tmp_path / "director" / "tls", ["localhost", "127.0.0.1"])
    port, tls_port = brk.free_port(), brk.free_port()
    broker = brk.Broker(accounts, EVENT, port, tls=tls, tls_port=tls_port)
    broker.start()
    try:
        creds = accounts.ensure()
        url = BrokerURL("127.0.0.1", tls_port, tls=True)
        client = connect(url, creds["username"], creds["password"], "tls-1", ca=tls.ca)
        client.disconnect()
        client.loop_stop()
        # a client that does not trust the hall's CA is refused by its own TLS check
        ctx = ssl.create_default_context()
        with (
            socket.create_connection(("127.0.0.1", tls_port), timeout=3) as raw,
            pytest.raises(ssl.SSLCertVerificationError),
        ):
            ctx.wrap_socket(raw, server_hostname="127.0.0.1")
    finally:
        broker.stop()


def test_a_venue_broker_bridged_to_a_central_one(tmp_path):
    """A table publishes to its venue's Mosquitto; the director on the central one stores it and
    its set-up goes back the other way."""
    central = brk.Accounts(tmp_path / "central")
    c_port = brk.free_port()
    c_broker = brk.Broker(central, EVENT, c_port)
    c_broker.start()
    venue = brk.Accounts(tmp_path / "venue")
    v_port = brk.free_port()
    c_creds = central.ensure()
    bridge = central.service("bridge-venue-a", EVENT)  # its own account: its own client id
    c_broker.reload()
    v_broker = brk.Broker(
        venue,
        EVENT,
        v_port,
        extra=brk.bridge_lines(
            "venue-a", f"127.0.0.1:{c_port}", bridge["username"], bridge["password"], EVENT
        ),
    )
    store = Store(tmp_path / "central.sqlite", durable=False)
    director = Director(
        store, EVENT, BrokerURL("127.0.0.1", c_port), c_creds["username"], c_creds["password"]
    )
    try:
        v_broker.start()
        director.start()
        creds = venue.add_tables([6], EVENT)[6]
        v_broker.reload()
        check_login(BrokerURL("127.0.0.1", v_port), creds["username"], creds["password"])
        got = []
        c = raw_client(v_port, creds["username"], creds["password"], "venue-table-6")
        c.on_message = lambda client, userdata, msg: got.append(json.loads(msg.payload))
        c.subscribe(protocol.topic(PREFIX, 6, "ack"), qos=1)
        record = {"players": {"blue": "Ada", "red": "Bob"}, "loser": "red", "events": []}
        wait_until(lambda: "venue-a" in c_broker.log.read_text(), what="the bridge's login")
        c.publish(
            protocol.topic(PREFIX, 6, "result"),
            protocol.encode({"game": "g6", "table": 6, "record": record}),
            qos=1,
        )
        wait_until(lambda: store.results(), what="the result at the central director")
        wait_until(lambda: {"game": "g6"} in got, what="the ack back through the bridge")
        c.disconnect()
        c.loop_stop()
    finally:
        director.stop()
        v_broker.stop()
        c_broker.stop()
        store.close()


def test_a_killed_director_restarts_and_misses_nothing(hall):
    """The director's session is persistent: what tables send while it is down is queued by the
    broker and stored when it is back."""
    table, link, _ = hall.add(8)
    hall.director.stop()
    play_blue_wins(table)
    assert hall.store.results() == []
    hall.director = Director(
        hall.store, EVENT, hall.url, hall.creds["username"], hall.creds["password"]
    )
    hall.director.start()
    game = wait_until(
        lambda: link.acked_results and next(iter(link.acked_results)),
        what="the ack after the restart",
    )
    journal = table.journals()[game]
    wait_until(lambda: hall.store.events(8, game) == journal, what="every event")
    assert len(hall.store.results()) == 1


def test_a_set_up_the_table_cannot_use_is_refused_and_said(hall):
    table, link, _ = hall.add(5)
    before = table.table_toml.read_text()
    setups = make_round(hall.store, 1, [Pairing("Ada", "Bob", 5)], lexicon="no-such-list")
    hall.director.publish_round(1, setups)
    state = wait_until(
        lambda: (s := (hall.store.table(5) or {}).get("state") or {}).get("setup_problem") and s,
        what="the refusal in the table's state",
    )
    assert "set-up refused" in state["setup_problem"]
    assert "no-such-list" in state["setup_problem"] and "no such lexicon" in state["setup_problem"]
    assert table.table_toml.read_text() == before  # the table keeps its set-up
    table.service.run_until(START + 1, table.clock.set)
    assert table.service.mode.context.table.blue == "Blue5"


def test_a_set_up_with_colours_by_lot_is_drawn_at_the_table_once(hall):
    table, link, _ = hall.add(6)
    payload = {
        "round": 3,
        "table": 6,
        "players": ["Eve", "Fay"],
        "colours": "lot",
        "time_control": {"minutes": 2, "minute_seconds": 30},
        "game": "iago",
    }
    hall.director.client.publish(
        protocol.topic(PREFIX, 6, "setup"), protocol.encode(payload), qos=1, retain=True
    ).wait_for_publish(5)
    wait_until(lambda: link.setup_taken, what="the set-up taken")
    from companion.daemon.config import load_table

    cfg = load_table(table.table_toml)
    assert {cfg.blue, cfg.red} == {"Eve", "Fay"} and cfg.drawn_by_lot
    assert (cfg.minutes, cfg.minute_seconds, cfg.number) == (2, 30.0, 6)
    # the same retained set-up again (a reconnect) is the same set-up: no second draw
    stamp = table.table_toml.stat().st_mtime_ns
    link._on_setup(dict(payload))
    assert table.table_toml.stat().st_mtime_ns == stamp


def test_a_journaled_board_reaches_the_directors_store(hall):
    table, link, _ = hall.add(7)
    notation = "11/11/11/11/11/4POT4/11/11/11/11/11"
    table.service.journal.append({"t": 0.0, "kind": "_board", "board": notation, "trusted": True})
    board = wait_until(lambda: (hall.store.table(7) or {}).get("board"), what="the board")
    assert (board["board"], board["trusted"]) == (notation, True)
    assert (hall.store.table(7)["state"] or {}).get("fault") is None


def test_a_broker_port_already_taken_is_said_and_no_other_broker_is_used(tmp_path):
    """Debian's own mosquitto.service (enabled by the package) holds 1883: the director's
    broker must not start 'successfully' beside it and leave the director on a broker with no
    ACL; it says the port is taken and what to do."""
    accounts = brk.Accounts(tmp_path / "director")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        broker = brk.Broker(accounts, EVENT, port)
        with pytest.raises(brk.BrokerError, match=rf"port {port} is already in use") as exc:
            broker.start()
        assert "--broker-port" in str(exc.value) and "systemctl disable --now mosquitto" in str(
            exc.value
        )
        assert not broker.running
    assert brk.port_in_use(port) is False  # free again once its holder has gone


def test_accounts_for_another_event_keep_the_running_events_acl(hall):
    """Preparing another event on the same machine (``tables add 9 --event other``) rewrites the
    one ACL file the running broker reloads: it must keep the running event's topics."""
    from companion.tournament.rounds import RoundError, publish_round

    creds3 = hall.account(3)
    hall.accounts.add_tables([9], "other")  # what `--event other tables add 9` does
    hall.broker.reload()
    check_login(hall.url, "table9", hall.accounts.add_tables([9], "other")[9]["password"])
    hall.broker.reload()
    assert hall.accounts.events() == [EVENT, "other"]
    # the running event's director still stores a table's result and acks it
    table = raw_client(hall.port, creds3["username"], creds3["password"], creds3["username"])
    acks: list = []
    table.on_message = lambda c, u, msg: acks.append(json.loads(msg.payload))
    table.subscribe(protocol.topic(PREFIX, 3, "ack"), qos=1)
    record = {"players": {"blue": "Ada", "red": "Bob"}, "loser": "red", "events": []}
    payload = protocol.encode({"game": "g1", "table": 3, "record": record})
    table.publish(protocol.topic(PREFIX, 3, "result"), payload, qos=1).wait_for_publish(5)
    wait_until(lambda: {"game": "g1"} in acks, what="the ack of g1")
    table.disconnect()
    table.loop_stop()
    # and a round published by the director's commands reaches the broker
    cmd = hall.accounts.service(brk.COMMANDS_USER, EVENT)
    hall.broker.reload()
    check_login(hall.url, cmd["username"], cmd["password"])
    client = raw_client(hall.port, cmd["username"], cmd["password"], cmd["username"])
    try:
        setups = make_round(hall.store, 1, [Pairing("Ada", "Bob", 3)], colours="fixed")
        publish_round(client, hall.store, 1, setups, prefix=PREFIX, timeout=5.0)
        # an ACL without this event (as before the fix): the broker acks and drops the set-up,
        # and the round says so instead of claiming it reached the tables
        data = json.loads(hall.accounts.file.read_text())
        data["events"] = []
        hall.accounts.file.write_text(json.dumps(data))
        fresh = hall.accounts.add_tables([8], "other")[8]  # writes the ACL of "other" only
        assert f"companion/{EVENT}/" not in hall.accounts.acl.read_text()
        hall.broker.reload()
        check_login(hall.url, fresh["username"], fresh["password"])  # reloaded with the ACL
        setups = make_round(hall.store, 2, [Pairing("Ada", "Bob", 3)], colours="fixed")
        with pytest.raises(RoundError, match="did not keep the set-up of table"):
            publish_round(client, hall.store, 2, setups, prefix=PREFIX, timeout=2.0)
    finally:
        client.disconnect()
        client.loop_stop()


def test_an_acl_written_before_the_events_list_keeps_its_event(tmp_path):
    """A data directory from before ``accounts.json`` listed the events: the events its ACL
    file names are kept when another event's accounts are added."""
    accounts = brk.Accounts(tmp_path / "director")
    accounts.add_tables([1], "ev")
    data = json.loads(accounts.file.read_text())
    del data["events"]
    accounts.file.write_text(json.dumps(data))
    accounts.add_tables([9], "other")
    acl = accounts.acl.read_text()
    assert "topic readwrite companion/ev/#" in acl and "topic readwrite companion/other/#" in acl
    assert "topic read companion/ev/tables/9/setup" in acl
    assert accounts.events() == ["ev", "other"]


def test_the_directors_own_round_says_when_the_broker_keeps_no_set_up(hall):
    """The /round form publishes through the director's own client: a set-up the broker
    acknowledged but dropped (its ACL lost the event) is said, not called published."""
    from companion.tournament.director import DirectorError

    hall.account(3)
    hall.director.publish_round(1, make_round(hall.store, 1, [Pairing("Ada", "Bob", 3)]))
    data = json.loads(hall.accounts.file.read_text())
    data["events"] = []
    hall.accounts.file.write_text(json.dumps(data))
    fresh = hall.accounts.add_tables([8], "other")[8]  # the ACL of "other" alone
    hall.broker.reload()
    check_login(hall.url, fresh["username"], fresh["password"])
    setups = make_round(hall.store, 2, [Pairing("Ada", "Bob", 3)])
    hall.director.readback_seconds = 1.0
    with pytest.raises(DirectorError, match=r"did not keep the set-up of table\(s\) 3"):
        hall.director.publish_round(2, setups)
