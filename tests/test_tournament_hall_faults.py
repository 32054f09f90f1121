"""Alive through the hall's faults (issue 46, items 10-12), replayed on the real director, its real
Mosquitto and the real table service with its link: a broker killed with ``kill -9`` just after a
round is published, a table whose link died with the broker, two boxes set up as one table.
Each fault is said on the hall (the tile's words), in the director's log, and (two boxes) on the
box's own screen."""

import json
import logging
import time

import pytest

from companion.daemon.sim import START
from companion.tournament import broker as brk
from companion.tournament import protocol
from companion.tournament.director import OFFLINE_AFTER
from companion.tournament.mqtt import connect
from companion.tournament.pairing import Pairing
from companion.tournament.rounds import make_round
from companion.tournament.web import views
from tests.test_tournament_network import (
    HallFixture,
    pytestmark,  # noqa: F401 - the same skip: no Mosquitto
    wait_until,
)

EVENT = "hallfaults"
PREFIX = protocol.prefix(EVENT)


class Hall(HallFixture):
    """The hall of :class:`tests.test_tournament_network.HallFixture` for this event, its
    director wired to save the broker after a round as ``companion director`` does; the links
    die without a goodbye (as a box's does when its power goes)."""

    save_broker = True
    goodbye = False

    def __init__(self, root):
        super().__init__(root, EVENT)

    def tile(self, number):
        """Table ``number``'s tile on the hall (an empty one before it is heard from)."""
        row = next((r for r in self.store.tables() if r["table"] == number), None)
        return views.tile(row or {"table": number})


@pytest.fixture
def hall(tmp_path):
    h = Hall(tmp_path)
    yield h
    h.close()


def retained_setup(hall, creds, number, timeout=10.0) -> dict:
    """What a table that connects now gets on its ``setup`` topic."""
    got: list[dict] = []
    c = connect(hall.url, creds["username"], creds["password"], f"late-{number}", timeout=5)
    try:
        c.on_message = lambda client, userdata, msg: got.append(json.loads(msg.payload))
        c.subscribe(protocol.topic(PREFIX, number, "setup"), qos=1)
        return wait_until(lambda: got and got[-1], timeout, "the table's set-up")
    finally:
        c.disconnect()
        c.loop_stop()


def test_a_rounds_set_ups_survive_a_broker_killed_and_started_afresh(hall):
    """The broker is killed (``kill -9``) just after the round is published, and its
    persistence is lost: the director publishes the round's set-ups again when its client
    reconnects, and a table that connects then gets its round."""
    creds = hall.account(3)
    setups = make_round(hall.store, 1, [Pairing("Ada", "Bob", 3)], now=1.0)
    hall.director.publish_round(1, setups)
    hall.broker.kill()
    (hall.accounts.broker_dir / "mosquitto.db").unlink(missing_ok=True)
    hall.broker.start()  # as the director's keeper starts it: nothing retained
    wait_until(hall.director.connected.is_set, what="the director's reconnection")
    got = retained_setup(hall, creds, 3)
    assert got["setup_id"] == setups[3]["setup_id"] and got["blue"] in ("Ada", "Bob")


def test_the_broker_saves_a_retained_set_up_at_once(hall):
    """Without the director (so nothing is published again), a set-up retained an instant
    before a ``kill -9`` is still there when the broker starts again."""
    creds = hall.account(4)
    setups = make_round(hall.store, 1, [Pairing("Cy", "Di", 4)], now=2.0)
    hall.director.publish_round(1, setups)
    hall.director.stop()
    hall.director = None
    hall.broker.kill()
    hall.broker.start()
    assert retained_setup(hall, creds, 4)["setup_id"] == setups[4]["setup_id"]


def test_a_table_whose_link_died_with_the_broker_is_offline(hall, caplog):
    caplog.set_level(logging.INFO, logger="companion.tournament")
    creds = hall.account(6)
    table, link = hall.join(6, creds)
    wait_until(
        lambda: ((hall.store.table(6) or {}).get("state") or {}).get("status") == "ready",
        what="the table's state",
    )
    assert "OFFLINE" not in hall.tile(6)["words"]
    # the broker and the table's link die together: no Last Will is ever published, and the
    # broker (which saved the table's retained "online: true") gives that word back
    hall.broker.save()
    hall.broker.kill()
    link.stop(goodbye=False)
    restarted = time.time()
    hall.broker.start()
    # the broker hands the director the table's retained word again, as it was: online
    wait_until(
        lambda: hall.store.table(6)["last_seen"] > restarted, what="the retained online word"
    )
    assert hall.director.drain()
    assert hall.store.table(6)["state"]["online"] is True
    # a few heartbeats later (the presence check is asked at a time moved on, not waited for;
    # the broker may hand the retained word over once more as the director resubscribes, and
    # a word heard now is older than that time, so the check marks the table all the same)
    wait_until(
        lambda: (
            6 in hall.director.check_presence(time.time() + OFFLINE_AFTER + 1)
            or hall.store.table(6)["state"]["online"] is False
        ),
        what="the table marked OFFLINE",
    )
    tile = hall.tile(6)
    assert tile["faults"][0] == "OFFLINE" and "fault" in tile["classes"]
    assert "table 6 not heard from for" in caplog.text and "OFFLINE" in caplog.text


def test_a_live_tables_heartbeat_keeps_it_online(hall):
    creds = hall.account(7)
    hall.join(7, creds, beat_seconds=0.1)
    wait_until(lambda: hall.store.table(7), what="the table")
    seen = hall.store.table(7)["last_seen"]
    # an idle table sends nothing else: its heartbeats move last_seen on
    wait_until(lambda: hall.store.table(7)["last_seen"] > seen + 0.3, what="heartbeats")
    marked = hall.director.check_presence(time.time() + OFFLINE_AFTER - 1)
    assert marked == [] and hall.store.table(7)["state"]["online"] is True


def test_two_boxes_set_up_as_the_same_table_are_said(hall, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="companion.tournament")
    creds = hall.account(6)
    first, link_a = hall.join(6, creds, root=tmp_path / "box-a", box="box-a")
    wait_until(link_a.connected.is_set, what="the first box")
    second, link_b = hall.join(6, creds, root=tmp_path / "box-b", box="box-b")
    # the two take the session from each other; the director says so on the hall and the log
    wait_until(
        lambda: "TWO BOXES CLAIM TABLE 6" in hall.tile(6)["words"],
        timeout=15,
        what="the claim on the hall",
    )
    assert "two boxes claim table 6 (box-a and box-b" in caplog.text
    # ... and the second box's screen says it
    status = second.table_toml.with_name("link-status.json")
    wait_until(
        lambda: status.exists() and json.loads(status.read_text()).get("claim"),
        timeout=15,
        what="the claim at the second box",
    )
    second.service.run_until(START + 2, second.clock.set)
    assert "TWO BOXES CLAIM THIS TABLE" in second.service.published.faults
    assert "two boxes claim table 6" in second.service.health()


def test_a_simulated_table_is_live_on_the_hall(hall, tmp_path, monkeypatch):
    """``companion sim`` (its own journal, data_dir()/sim/iago-journal.jsonl) beside a real
    ``companion link`` process: the link follows the simulator's journal, so its play shows on
    the hall."""
    import os
    import signal
    import subprocess
    import sys

    from companion.daemon.challenge import set_judge
    from companion.daemon.config import TableConfig
    from companion.daemon.sim import ScriptedTable, sim_journal

    creds = hall.account(9)
    data, config = tmp_path / "data", tmp_path / "config"
    config.mkdir()
    (config / "link.json").write_text(json.dumps(creds))
    (config / "table.toml").write_text(
        '[table]\nnumber = 9\nblue = "Ada"\nred = "Bob"\n\n[tournament]\n'
        f'broker = "mqtt://127.0.0.1:{hall.port}"\nevent = "{EVENT}"\n'
        f'credentials = "{config / "link.json"}"\n'
    )
    monkeypatch.setenv("COMPANION_DATA_DIR", str(data))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(config))
    env = {**os.environ, "COMPANION_DATA_DIR": str(data), "COMPANION_CONFIG_DIR": str(config)}
    log = open(tmp_path / "link.log", "wb")  # noqa: SIM115 - the child's
    link = subprocess.Popen(
        [sys.executable, "-m", "companion", "link", "--poll", "0.02"],
        env=env,
        stdout=log,
        stderr=log,
    )
    try:
        wait_until(
            lambda: ((hall.store.table(9) or {}).get("state") or {}).get("status") == "ready",
            what="the link's word (no game yet)",
        )
        # the terminal simulator's journal, as companion sim writes it
        sim = ScriptedTable(
            TableConfig(number=9, blue="Ada", red="Bob", minutes=3),
            set_judge({"WORD"}),
            sim_journal(False, "iago"),
        )
        sim.press("red")  # blue's clock starts
        sim.at(2)
        sim.press("blue")
        sim.at(3)
        state = wait_until(
            lambda: (s := hall.store.table(9)["state"]).get("status") == "running" and s,
            what="the simulated game on the hall:\n"
            + (tmp_path / "link.log").read_text(errors="replace")[-2000:],
        )
        assert state["players"] == {"blue": "Ada", "red": "Bob"} and state["mover"] == "red"
        assert "running" in hall.tile(9)["status"]
    finally:
        link.send_signal(signal.SIGTERM)
        link.wait(10)


def test_the_director_stops_without_saying_it_reconnects(tmp_path):
    """Ctrl-C (SIGTERM) at ``companion director``: its log ends with "stopped", and says no
    "reconnecting" on the way (it was said just before "stopped")."""
    import os
    import signal
    import subprocess
    import sys

    env = {
        **os.environ,
        "COMPANION_DATA_DIR": str(tmp_path / "data"),
        "COMPANION_CONFIG_DIR": str(tmp_path / "config"),
    }
    port = brk.free_port()
    director = subprocess.Popen(
        [sys.executable, "-m", "companion", "director", "--event", "stops"]
        + ["--broker-port", str(port), "--listen", "127.0.0.1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    running = tmp_path / "data" / "director" / "running.json"
    try:
        wait_until(running.exists, 20, "the director's running.json")
    finally:
        director.send_signal(signal.SIGTERM)
        _, err = director.communicate(timeout=30)
    lines = err.strip().splitlines()
    assert "director: stopped" in lines[-1], err
    assert not any("reconnecting" in line for line in lines), err
    assert any("director: disconnected from" in line for line in lines), err


def test_a_table_marked_offline_is_back_at_its_next_heartbeat(hall):
    creds = hall.account(8)
    hall.join(8, creds, beat_seconds=0.1)
    wait_until(lambda: (hall.store.table(8) or {}).get("state"), what="the table")
    assert hall.director.check_presence(time.time() + 60) == [8]
    assert hall.store.table(8)["state"]["online"] is False
    wait_until(lambda: hall.store.table(8)["state"]["online"] is True, what="back online")
