"""The director's pages over HTTP with a real store: access, sessions, CSRF, forms, live
updates. (The browser tests are in test_web_browser.py.)"""

import contextlib
import json
import re
import threading
import time

import httpx
import pytest

from companion.tournament.store import Store
from companion.tournament.web import WebServer
from tests.web_support import fill_hall, iago_state

PASSWORD = "hall-7"


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "director.sqlite", durable=False)
    fill_hall(s, tables=4)
    yield s
    s.close()


@pytest.fixture
def clock():
    return Clock()


@contextlib.contextmanager
def client(store, clock=None, **kw):
    """An HTTP client of the pages served for real (uvicorn on a free loopback port)."""
    with (
        WebServer(store, director_password=PASSWORD, clock=clock or time.time, **kw) as web,
        httpx.Client(base_url=web.url, timeout=10, follow_redirects=True) as c,
    ):
        yield c


def csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def login(c, secret=PASSWORD, role="director"):
    token = csrf(c.get("/login").text)
    return c.post(
        "/login",
        data={"csrf": token, "secret": secret, "role": role, "next": "/"},
        follow_redirects=False,
    )


def test_every_page_answers(store):
    with client(store) as c:
        for path in (
            "/",
            "/table/1",
            "/standings",
            "/round",
            "/tv",
            "/tv/panels",
            "/results.csv",
            "/login",
            "/progress",
        ):
            assert c.get(path).status_code == 200, path
        assert c.get("/table/99").status_code == 404
        assert c.get("/progress").json()["text"] == "1 / 4 reported"


def test_viewing_needs_the_viewer_pin_when_set(store):
    with client(store, viewer_pin="4321") as c:
        r = c.get("/", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/login?next=/"
        assert c.get("/events", follow_redirects=False).status_code == 303
        assert login(c, "1111", role="viewer").status_code == 403
        assert login(c, "4321", role="viewer").status_code == 303
        assert c.get("/").status_code == 200


def correction_form(token, **kw):
    return {
        "csrf": token,
        "result": "2:t2-g1",
        "change": "winner-red",
        "reason": "clock fault",
        "who": "Jo",
    } | kw


def test_a_change_without_login_is_refused_and_changes_nothing(store):
    with client(store) as c:
        token = csrf(c.get("/login").text)  # a visitor's own session token
        r = c.post("/corrections", data=correction_form(token))
        assert r.status_code == 403 and "log in first" in r.text
        r = c.post(
            "/round",
            data={
                "csrf": token,
                "round": "2",
                "method": "robin",
                "players": "A\nB",
                "colours": "lot",
                "game": "iago",
                "minutes": "5",
                "minute_seconds": "60",
                "lexicon": "",
            },
        )
        assert r.status_code == 403
    assert store.corrections() == [] and store.current_round() == 1


def test_a_change_without_the_forms_token_is_refused(store):
    with client(store) as c:
        assert login(c).status_code == 303
        r = c.post("/corrections", data=correction_form("forged"))
        assert r.status_code == 403 and "not sent from these pages" in r.text
    assert store.corrections() == []


def test_a_correction_changes_the_standings_and_is_kept_with_reason_and_who(store):
    before = {s["player"]: s["wins"] for s in store.standings()}
    with client(store) as c:
        login(c)
        token = csrf(c.get("/standings").text)
        r = c.post("/corrections", data=correction_form(token))
        assert r.status_code == 200 and "Correction 1 kept" in r.text
    (kept,) = store.corrections()
    assert (kept["change"], kept["reason"], kept["who"]) == ({"winner": "red"}, "clock fault", "Jo")
    after = {s["player"]: s["wins"] for s in store.standings()}
    pair = ("Cleo", "Dev")  # the corrected game's players (every registered player is listed)
    assert [before[p] for p in pair] == [1, 0] and [after[p] for p in pair] == [0, 1]


def test_bad_correction_input_says_what_is_wrong_and_changes_nothing(store):
    with client(store) as c:
        login(c)
        token = csrf(c.get("/standings").text)
        r = c.post("/corrections", data=correction_form(token, reason=" ", change="maybe"))
        assert r.status_code == 400
        assert "Reason: required" in r.text and "Change: maybe" in r.text
    assert store.corrections() == []


def test_the_login_lapses_after_the_session_timeout(store, clock):
    with client(store, clock, session_seconds=600) as c:
        login(c)
        clock.now += 599
        assert 'badge">director' in c.get("/").text  # used: renewed for 600 s more
        token = csrf(c.get("/standings").text)
        clock.now += 601
        r = c.post("/corrections", data=correction_form(token))
        assert r.status_code == 403
    assert store.corrections() == []


def test_five_wrong_logins_lock_the_address_out(store, clock):
    with client(store, clock) as c:
        for _ in range(5):
            assert login(c, "guess").status_code == 403
        r = login(c)
        assert r.status_code == 429 and "wait 30 s" in r.text
        clock.now += 31
        assert login(c).status_code == 303


def round_form(token, **kw):
    return {
        "csrf": token,
        "round": "2",
        "method": "robin",
        "players": "Ada\nBob\nCleo\nDev\nEli\nFay",
        "colours": "fixed",
        "game": "iago",
        "minutes": "4",
        "minute_seconds": "30",
        "lexicon": "scowl-80-both",
    } | kw


def test_pair_review_and_publish_a_round(store):
    published = []

    def publish(rnd, setups, players=None, byes=None):
        published.append((rnd, setups))
        store.set_round(rnd, setups, time.time(), players=players, byes=byes)

    with client(store, publish=publish) as c:
        login(c)
        token = csrf(c.get("/round").text)
        r = c.post("/round", data=round_form(token))
        assert r.status_code == 200 and "Review round 2" in r.text
        assert store.current_round() == 1  # reviewed, not yet published
        draft = re.search(r'name="draft" value="([^"]+)"', r.text).group(1)
        r = c.post("/round/publish", data={"csrf": token, "draft": draft})
        assert r.status_code == 200 and "Round 2 published to 3 tables" in r.text
    ((rnd, setups),) = published
    assert rnd == 2 and store.current_round() == 2 and store.round_setups(2) == setups
    seated = sorted(n for s in setups.values() for n in (s["blue"], s["red"]))
    assert seated == ["Ada", "Bob", "Cleo", "Dev", "Eli", "Fay"]
    assert {(s["minutes"], s["minute_seconds"], s["lexicon"]) for s in setups.values()} == {
        (4, 30.0, "scowl-80-both")
    }


def test_bad_round_input_says_what_is_wrong_and_publishes_nothing(store):
    with client(store) as c:
        login(c)
        token = csrf(c.get("/round").text)
        r = c.post("/round", data=round_form(token, minutes="five", minute_seconds="0"))
        assert r.status_code == 400
        assert (
            "Minutes (each player&#39;s allowance): &#39;five&#39; is not a whole number" in r.text
        )
        assert "Seconds in a sand minute: 0 is out of range; accepted 1 to 600" in r.text
        r = c.post(
            "/round",
            data=round_form(token, method="csv"),
            files={"csv": ("hall.csv", b"1,Ada,Bob\n2,Ada,Cy\n", "text/csv")},
        )
        assert r.status_code == 400 and "players paired twice: Ada" in r.text
        r = c.post("/round/publish", data={"csrf": token, "draft": "stale"})
        assert r.status_code == 400 and "pair the round again" in r.text
    assert store.current_round() == 1


def test_a_round_from_a_csv_upload(store):
    with client(store) as c:
        login(c)
        token = csrf(c.get("/round").text)
        r = c.post(
            "/round",
            data=round_form(token, method="csv"),
            files={"csv": ("hall.csv", b"table,blue,red\n7,Ada,Bob\n9,Cy,Di\n", "text/csv")},
        )
        assert r.status_code == 200
        draft = re.search(r'name="draft" value="([^"]+)"', r.text).group(1)
        c.post("/round/publish", data={"csrf": token, "draft": draft})
    setups = store.round_setups(2)
    assert sorted(setups) == [7, 9] and (setups[7]["blue"], setups[7]["red"]) == ("Ada", "Bob")


def test_results_csv(store):
    with client(store) as c:
        r = c.get("/results.csv")
    assert r.headers["content-type"].startswith("text/csv")
    lines = r.text.splitlines()
    assert lines[0].startswith("round,table,game,blue,red,winner,loser")
    assert lines[1].startswith("1,2,t2-g1,Cleo,Dev,blue,red")


def test_an_open_page_gets_a_tables_change_as_a_server_sent_event(store):
    with WebServer(store, director_password=PASSWORD, poll_seconds=0.05) as web:
        got = []

        def listen():
            with httpx.stream("GET", web.url + "/events", timeout=10) as r:
                for line in r.iter_lines():
                    if line.startswith("data:"):
                        got.append(json.loads(line[5:]))
                        return

        t = threading.Thread(target=listen)
        t.start()
        deadline = time.monotonic() + 5
        while not web.app.state.web.hub.subscribers and time.monotonic() < deadline:
            time.sleep(0.01)
        store.record_state(3, iago_state(3, minutes=(1, 2), mover="red"), time.time())
        t.join(timeout=10)
    (message,) = got
    html = message["tiles"]["3"]
    assert 'id="tile-3"' in html and list(message["tiles"]) == ["3"]
    assert re.search(r"player red on-move.*?allowance[^>]*>2<", html, re.S)


@pytest.mark.parametrize("nxt", ["//evil.example/", "/\\evil.example", "https://evil.example/"])
def test_login_never_sends_the_director_to_another_site(store, nxt):
    with client(store) as c:
        token = csrf(c.get("/login").text)
        r = c.post(
            "/login",
            data={"csrf": token, "secret": PASSWORD, "role": "director", "next": nxt},
            follow_redirects=False,
        )
    assert r.status_code == 303 and r.headers["location"] == "/"


def test_a_body_too_large_is_refused(store):
    with client(store) as c:
        login(c)
        token = csrf(c.get("/round").text)
        r = c.post(
            "/round",
            data={"csrf": token},
            files={"csv": ("big.csv", b"1,A,B\n" * 200_000, "text/csv")},
        )
        assert r.status_code == 413
    assert store.current_round() == 1


def test_a_tables_qr_code_png_reads_back_as_its_page(store):
    import cv2
    import numpy as np

    with client(store, base_url="http://10.42.0.1:8080") as c:
        r = c.get("/table/3/qr.png")
    assert r.headers["content-type"] == "image/png"
    image = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_GRAYSCALE)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text == "http://10.42.0.1:8080/table/3"


def test_a_poll_that_fails_loses_no_change_the_next_poll_shows_it(store):
    """The hub took the store's new version before it read and drew the tables that changed;
    when that failed (the store busy, a tile that could not be drawn) the change was lost:
    the hall kept the table's old tile until the table changed again. Now the version moves
    only once the changes are offered, so the next poll shows them."""
    import asyncio
    import sqlite3

    from companion.tournament.web.live import Hub

    async def call(fn, *args):
        return fn(*args)

    async def render(changed, rows, details):
        return {"tiles": {str(r["table"]): "tile" for r in rows}}

    class Busy:
        def __init__(self, store):
            self.store, self.busy = store, True

        def __getattr__(self, name):
            return getattr(self.store, name)

        def tables(self):
            if self.busy:
                self.busy = False
                raise sqlite3.OperationalError("database is locked")
            return self.store.tables()

    async def run():
        hub = Hub(call, Busy(store), render)
        hub.version = store.version()
        sub = hub.subscribe()
        store.record_state(3, iago_state(3, minutes=(1, 2)), time.time())
        with pytest.raises(sqlite3.OperationalError):
            await hub.poll()
        await hub.poll()
        return sub.take()

    assert list(asyncio.run(run()).get("tiles", {})) == ["3"]


def test_a_tile_that_cannot_be_drawn_holds_up_no_other(store, monkeypatch):
    """With the hub polling again after a failure, one table that cannot be drawn must not
    stop the others: it is said in the log and left out of the update."""
    import asyncio

    from companion.tournament.web import app, views

    web = app._Web(
        store,
        director_password=PASSWORD,
        viewer_pin="",
        publish=None,
        session_seconds=60,
        poll_seconds=1,
        event="e",
        base_url="",
    )
    tile = views.tile

    def broken(row, **kw):
        if row.get("table") == 2:
            raise TypeError("a tile that cannot be drawn")
        return tile(row, **kw)

    monkeypatch.setattr(views, "tile", broken)
    rows = store.tables()
    out = asyncio.run(web.render_changes([1, 2, 3], rows, {2: store.table(2), 3: store.table(3)}))
    web.pool.shutdown()
    assert sorted(out["tiles"]) == sorted(str(r["table"]) for r in rows if r["table"] != 2)
    assert list(out["details"]) == [3]
