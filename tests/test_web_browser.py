"""The director's pages in a real browser: Debian's headless Chromium through Selenium, the
pages served by uvicorn on a free loopback port over a real SQLite store with eight tables
playing."""

import time

import pytest

from companion.tournament.store import Store
from companion.tournament.web import WebServer
from tests.web_support import Browser, chromium_available, fill_hall, iago_state

pytestmark = pytest.mark.skipif(
    not chromium_available(), reason="needs Debian's chromium and chromium-driver"
)

PASSWORD = "hall-7"
TABLES = 8


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("director") / "event.sqlite", durable=False)
    fill_hall(store, tables=TABLES)
    web = WebServer(store, director_password=PASSWORD, event="spring").start()
    browser = Browser(width=1280, height=900)
    yield store, web, browser.driver
    browser.quit()
    web.stop()
    store.close()


def wait_for(driver, condition, timeout: float, what: str):
    """Poll ``condition(driver)`` every 20 ms until it is true or ``timeout`` seconds passed."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition, what)


def fresh(driver, url):
    driver.delete_all_cookies()
    driver.get(url)


def text(driver, css):
    """The text of the first element matching ``css``, read in one step (a live page replaces
    tiles under the test's feet)."""
    got = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css
    )
    assert got is not None, f"nothing matches {css}"
    return got


def login(driver, web, nxt):
    from selenium.webdriver.common.by import By

    driver.get(f"{web.url}/login?next={nxt}")
    driver.find_element(By.NAME, "secret").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_for(
        driver,
        lambda d: "/login" not in d.current_url and d.find_elements(By.CSS_SELECTOR, "nav .badge"),
        5,
        "logged in",
    )


def test_the_hall_shows_eight_tables_playing(hall):
    from selenium.webdriver.common.by import By

    store, web, driver = hall
    fresh(driver, web.url + "/")
    tiles = driver.find_elements(By.CSS_SELECTOR, "#hall .tile")
    assert [t.get_attribute("id") for t in tiles] == [f"tile-{n}" for n in range(1, 9)]
    assert text(driver, "#progress") == "Round 1: 1 / 8 reported"
    t3 = text(driver, "#tile-3")
    assert "Eli" in t3 and "Fay" in t3 and "CHALLENGE" in t3
    t4 = text(driver, "#tile-4")
    assert "PAUSED" in t4 and "CAMERA UNAVAILABLE" in t4
    assert "Cleo (blue) won" in text(driver, "#tile-2")
    assert "RED LOST ON TIME" in text(driver, "#tile-2")
    # table 5's sand runs down on the page between two messages of the table
    store.record_state(5, iago_state(5, sand_left=50.0), time.time())
    wait_for(driver, lambda d: text(d, "#tile-5 .sand-text") in ("0:50", "0:49"), 5, "new sand")
    first = text(driver, "#tile-5 .sand-text")
    wait_for(driver, lambda d: text(d, "#tile-5 .sand-text") != first, 3, "the sand runs")
    assert text(driver, "#tile-5 .sand-text") in ("0:49", "0:48", "0:47")


def test_a_press_at_a_table_changes_its_tile_within_a_second(hall):
    store, web, driver = hall
    fresh(driver, web.url + "/")
    before = {n: text(driver, f"#tile-{n}") for n in (6, 8)}
    assert "on move" in text(driver, "#tile-6 .player.red").lower()
    # table 6: red ends his move; blue is on move with 2 minutes left, a fresh sand minute
    store.record_state(6, iago_state(6, mover="blue", minutes=(2, 4), sand_left=60.0), time.time())
    pressed = time.monotonic()
    wait_for(
        driver,
        lambda d: "on move" in text(d, "#tile-6 .player.blue").lower(),
        1.0,
        "table 6's tile shows blue on move within a second",
    )
    took = time.monotonic() - pressed
    assert text(driver, "#tile-6 .player.blue .allowance") == "2"
    assert "on move" not in text(driver, "#tile-6 .player.red").lower()
    assert text(driver, "#tile-8") == before[8] or "s ago" in text(driver, "#tile-8")
    assert took < 1.0


def test_a_change_without_logging_in_is_refused(hall):
    from selenium.webdriver.common.by import By

    store, web, driver = hall
    fresh(driver, web.url + "/round")
    assert driver.find_elements(By.ID, "pair") == []  # no form to pair a round
    assert "log in" in text(driver, "main")
    fresh(driver, web.url + "/standings")
    assert driver.find_elements(By.ID, "correct") == []
    corrections, round_no = len(store.corrections()), store.current_round()
    # a forged post from the page (as a script or another site would send it)
    status = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const body = new URLSearchParams({result: "2:t2-g1", change: "void", reason: "x",
                                          who: "y", csrf: "guess"});
        fetch("/corrections", {method: "POST", body}).then(r => done(r.status));""")
    assert status == 403
    assert len(store.corrections()) == corrections and store.current_round() == round_no


def test_publish_a_round_from_the_round_page_and_the_tables_take_it(hall):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    store, web, driver = hall
    fresh(driver, web.url + "/")
    login(driver, web, "/round")
    driver.find_element(By.CSS_SELECTOR, "input[name=method][value=robin]").click()
    players = driver.find_element(By.NAME, "players")
    players.clear()
    players.send_keys("\n".join(f"P{i}" for i in range(1, 9)))
    Select(driver.find_element(By.NAME, "colours")).select_by_value("fixed")
    minutes = driver.find_element(By.NAME, "minutes")
    minutes.clear()
    minutes.send_keys("3")
    driver.find_element(By.ID, "preview").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "review"), 5, "the review")
    assert "Review round 2" in text(driver, "#review")
    assert store.current_round() == 1
    driver.find_element(By.ID, "publish").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "notice"), 5, "published")
    assert text(driver, "#notice") == "Round 2 published to 4 tables."
    setups = store.round_setups(2)
    assert store.current_round() == 2 and sorted(setups) == [1, 2, 3, 4]
    assert sorted(n for s in setups.values() for n in (s["blue"], s["red"])) == [
        f"P{i}" for i in range(1, 9)
    ]
    assert {s["minutes"] for s in setups.values()} == {3}
    # the hall counts the new round's tables
    driver.get(web.url + "/")
    assert text(driver, "#progress") == "Round 2: 0 / 4 reported"


def test_correct_a_result_and_the_standings_change(hall):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    store, web, driver = hall
    fresh(driver, web.url + "/")
    login(driver, web, "/standings")
    first = text(driver, "#standings tbody tr:first-child .player-name")
    assert first == "Cleo"
    Select(driver.find_element(By.NAME, "result")).select_by_value("2:t2-g1")
    Select(driver.find_element(By.NAME, "change")).select_by_value("winner-red")
    driver.find_element(By.NAME, "reason").send_keys("clock fault: red's press not counted")
    driver.find_element(By.NAME, "who").send_keys("Jo (arbiter)")
    driver.find_element(By.CSS_SELECTOR, "#correct button").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".notice"), 5, "corrected")
    assert text(driver, "#standings tbody tr:first-child .player-name") == "Dev"
    assert text(driver, "#standings tbody tr:first-child .wins") == "1"
    history = text(driver, "table.history")
    assert "Jo (arbiter)" in history and "clock fault" in history
    assert "Dev (red) won (corrected)" in text(driver, "table.results")


def test_the_table_page_on_a_phone(hall):
    from selenium.webdriver.common.by import By

    store, web, driver = hall
    driver.set_window_size(412, 900)
    try:
        fresh(driver, web.url + "/table/1")
        cells = driver.find_elements(By.CSS_SELECTOR, ".board .cell")
        assert len(cells) == 121
        assert [c.text for c in driver.find_elements(By.CSS_SELECTOR, ".board .cell.blue")] == [
            "Q",
            "C",
            "A",
        ]
        assert "NOT sure of every cell" in text(driver, ".trust")
        assert "QIX not in scowl-70-both" in text(driver, ".challenges")
        board = driver.find_element(By.CSS_SELECTOR, ".board")
        assert board.size["width"] <= 412  # fits the phone's width
        # a board read arrives: the open page redraws it
        store.record_board(
            1,
            "t1-g1",
            "11/11/11/11/4Q6/3CAt5/4i6/4x6/11/11/11".replace("4x6", "4X6"),
            True,
            time.time(),
        )
        wait_for(
            driver,
            lambda d: "sure of every cell" in text(d, ".trust") and "NOT" not in text(d, ".trust"),
            2,
            "the new board",
        )
        assert len(driver.find_elements(By.CSS_SELECTOR, ".board .cell.blue")) == 4
    finally:
        driver.set_window_size(1280, 900)


def test_the_tv_pages_through_every_standings_row_at_1920x1080(tmp_path):
    """Sixteen players: the TV shows every row in turn, each page whole on a 1920x1080 screen."""
    store = Store(tmp_path / "event.sqlite", durable=False)
    names = [f"Player{i:02d}" for i in range(1, 17)]
    setups = {
        t: {"round": 1, "table": t, "blue": names[2 * t - 2], "red": names[2 * t - 1]}
        for t in range(1, 9)
    }
    store.set_round(1, setups, time.time(), players=names)
    web = WebServer(store, director_password=PASSWORD, event="spring").start()
    browser = Browser(width=1920, height=1080)
    driver = browser.driver
    seen: set[str] = set()
    overflow: list[str] = []

    def look(d) -> bool:
        got = d.execute_script(
            "const p = document.getElementById('panel');"
            "if (p.dataset.panel !== 'standings') return null;"
            "const rows = [...p.querySelectorAll('tbody tr')];"
            "const last = p.lastElementChild;"  # the foot line, below the last row
            "return {names: rows.map(r => r.cells[1].innerText),"
            " bottom: last ? last.getBoundingClientRect().bottom : 0,"
            " height: window.innerHeight};"
        )
        if got:
            seen.update(got["names"])
            assert got["height"] == 1080
            if got["bottom"] > got["height"]:
                overflow.append(f"{got['names'][-1]} at {got['bottom']} px")
        return seen >= set(names)

    # the screen itself is 1920x1080 (a TV in kiosk mode: no window frame)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        driver.get(f"{web.url}/tv?cycle=0.3")
        wait_for(driver, look, 15, "every standings row on the TV")
    finally:
        browser.quit()
        web.stop()
        store.close()
    assert seen == set(names) and not overflow, overflow


def test_the_pages_print_cleanly_for_the_halls_wall(hall):
    """``@media print``: the pairings by table, the standings and a table's card with its QR
    code print black on white, without the navigation or any form (headless Chromium's print
    emulation, then its PDF)."""
    import base64

    store, web, driver = hall

    def shown_selector(d):
        return lambda s: d.execute_script(
            "const e = document.querySelector(arguments[0]);"
            "return !!e && getComputedStyle(e).display !== 'none'"
            " && e.getBoundingClientRect().height > 0"
            " && (e.tagName !== 'IMG' || e.naturalWidth > 0);",
            s,
        )

    def printed(path, selectors):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        try:
            fresh(driver, f"{web.url}{path}")
            look = driver.execute_script(
                "const forms = [...document.querySelectorAll('form')]"
                ".filter(f => getComputedStyle(f).display !== 'none').length;"
                "const nav = document.querySelector('nav.top');"
                "const td = document.querySelector('main td');"
                "return {nav: getComputedStyle(nav).display, forms: forms,"
                " tdColor: td ? getComputedStyle(td).color : null,"
                " tdBorder: td ? getComputedStyle(td).borderTopWidth : null,"
                " bodyBg: getComputedStyle(document.body).backgroundColor,"
                " text: document.querySelector('main').innerText};"
            )
            look["shown"] = {s: shown_selector(driver)(s) for s in selectors}
            pdf = driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": True})
            assert base64.b64decode(pdf["data"]).startswith(b"%PDF")
            return look
        finally:
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})

    pages = {"/round": ["#published"], "/standings": ["#standings"], "/table/1": ["#card img"]}
    for path, selectors in pages.items():
        look = printed(path, selectors)
        assert look["nav"] == "none" and look["forms"] == 0, (path, look)
        assert all(look["shown"].values()), (path, look["shown"])
        assert look["bodyBg"] in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"), (path, look)
        if path != "/table/1":
            assert look["tdColor"] == "rgb(0, 0, 0)" and look["tdBorder"] != "0px", (path, look)
        if path == "/round":
            assert "pairings by table" in look["text"]
        if path == "/standings":
            assert "Correct a result" not in look["text"]
        if path == "/table/1":
            assert "Table 1" in look["text"]
    # on the screen the card is not shown (the page shows the live table)
    fresh(driver, f"{web.url}/table/1")
    assert not shown_selector(driver)("#card")
