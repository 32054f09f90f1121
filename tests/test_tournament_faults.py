"""Nothing lost, small: eight real tables playing a round in real time against a real Mosquitto
and the real director, while the broker is stopped and started again, two tables' connections
drop and one link (a ``companion link`` process of its own) is killed with SIGKILL and started
again. Every result and every journal record arrives exactly once and the standings are right.
(The 200-table version with its figures is bench/bench_tournament.py.)"""

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from companion.tournament import broker as brk
from companion.tournament.director import Director
from companion.tournament.mqtt import BrokerURL, check_login
from companion.tournament.pairing import round_robin
from companion.tournament.rounds import make_round
from companion.tournament.sim import Hall, SimTable, audit, scripted_game
from companion.tournament.store import Store

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not os.path.exists("/usr/sbin/mosquitto"),
    reason="Mosquitto is not installed (make deps installs it)",
)

EVENT = "faults"
TABLES = 8
MINUTE = 2.0  # seconds: each player has one such minute, so a game ends 2 s after its last press


def wait_until(check, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")


def start_link_process(table: SimTable) -> subprocess.Popen:
    env = {**os.environ, **table.link_env()}
    log = open(table.home / "link.log", "ab")  # noqa: SIM115 - the child holds it
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "link", "--poll", "0.02", "--resend-seconds", "0.5"],
        env=env,
        stdout=log,
        stderr=log,
    )


def drop_connection(link) -> None:
    """The table's Wi-Fi goes: its socket is shut under paho (no DISCONNECT packet is sent)."""
    sock = link.client.socket()
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def test_a_round_survives_a_broker_restart_dropped_connections_and_a_killed_link(tmp_path):
    accounts = brk.Accounts(tmp_path / "director")
    port = brk.free_port()
    broker = brk.Broker(accounts, EVENT, port)
    broker.start()
    url = BrokerURL("127.0.0.1", port)
    creds = accounts.ensure()
    store = Store(tmp_path / "director" / f"{EVENT}.sqlite")
    director = Director(store, EVENT, url, creds["username"], creds["password"])
    director.start()
    table_creds = accounts.add_tables(list(range(1, TABLES + 1)), EVENT)
    broker.reload()
    check_login(url, **table_creds[TABLES])
    tables = [SimTable(tmp_path, n, minutes=1, minute_seconds=MINUTE) for n in range(1, TABLES + 1)]
    for t in tables:
        c = table_creds[t.number]
        t.join(f"mqtt://127.0.0.1:{port}", EVENT, c["username"], c["password"])
    victim = tables[0]  # its link runs in a process of its own, to be killed
    links = [t.link(poll=0.01, resend_seconds=0.5) for t in tables[1:]]
    for link in links:
        link.start(thread=False)
    hall = Hall(tables, links)
    hall.start()
    proc = start_link_process(victim)
    players = [f"P{i:02d}" for i in range(1, 2 * TABLES + 1)]
    try:
        setups = make_round(
            store, 1, round_robin(players, 1), colours="fixed", minutes=1, minute_seconds=MINUTE
        )
        director.publish_round(1, setups)
        wait_until(
            lambda: all(t.service.mode.context.table.round == 1 for t in tables),
            15,
            lambda: (
                "every table to take its set-up: "
                + str({t.number: t.service.mode.context.table.round for t in tables})
                + str([tables[-1].table_toml.read_text()])
                + str(
                    [
                        (lk.table, lk.connected.is_set(), lk.setup_problem, lk.setup_taken)
                        for lk in links
                    ]
                )
                + str(hall.errors)
                + (victim.home / "link.log").read_text(errors="replace")[-2000:]
            ),
        )
        rng = random.Random(17)
        scripts = {t.number: scripted_game(rng, moves=6, gap=(0.15, 0.5)) for t in tables}
        start = time.monotonic()
        for number, script in scripts.items():
            hall.play(number, script, at=start)
        time.sleep(0.5)
        proc.send_signal(signal.SIGKILL)  # the link dies mid-game, no goodbye
        proc.wait()
        time.sleep(0.3)
        broker.stop()  # the broker goes away ...
        for link in links[:2]:
            drop_connection(link)
        time.sleep(2.0)
        broker.start()  # ... and comes back on the same port, with its saved sessions
        for link in links[2:4]:
            drop_connection(link)
        proc = start_link_process(victim)
        # every table's game ends (the last presser's opponent loses on time), and every
        # result and record reaches the director
        wait_until(lambda: all(t.records() for t in tables), 30, "every game to end")
        wait_until(
            lambda: (a := audit(store, tables))["lost"] == 0 and a["results_lost"] == 0,
            30,
            "every result and record at the director",
        )
        assert not hall.errors
    finally:
        hall.stop()
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        for link in links:
            link.stop()
        director.stop()
        broker.stop()
        for t in tables:
            t.close()
    a = audit(store, tables)
    assert (a["games"], a["lost"], a["duplicated"], a["different"]) == (TABLES, 0, 0, 0), a
    assert (a["results_lost"], a["results_duplicated"]) == (0, 0)
    results = store.results()
    assert len(results) == TABLES and {r["table"] for r in results} == set(range(1, TABLES + 1))
    # the standings are the tables' own saved results, each counted once: the winner as the
    # table saved him (on an idle machine the script's last presser, whose opponent ran out of
    # his one minute; a press the loaded machine made late can end a game sooner), and the
    # spread of the minutes the table saved
    names = {n: setups[n]["players"] for n in setups}
    saved = {t.number: t.records()[-1]["result"] for t in tables}
    winners = {names[n][saved[n]["winner"]] for n in saved}
    spreads = {}
    for n, result in saved.items():
        for colour in ("blue", "red"):
            other = "red" if colour == "blue" else "blue"
            spreads[names[n][colour]] = result["minutes"][colour] - result["minutes"][other]
    rows = {r["player"]: r for r in store.standings()}
    assert {p for p, r in rows.items() if r["wins"] == 1} == winners
    assert {p: r["spread"] for p, r in rows.items()} == spreads
    assert len(rows) == 2 * TABLES
    store.close()
