"""The director's pages over the whole tournament network, in a real browser: a real Mosquitto
on a free loopback port, the real director storing into SQLite, eight simulated tables (the real
table service on mock pins, each with its real ``companion link``) and headless Chromium on the
hall. A press at a table's mock button reaches its tile; a round published from ``/round`` is
taken by the tables."""

import shutil
import time

import pytest

from companion.tournament import broker as brk
from tests.web_support import Browser, chromium_available

pytestmark = pytest.mark.skipif(
    not chromium_available()
    or (shutil.which("mosquitto") is None and not brk.os.path.exists("/usr/sbin/mosquitto")),
    reason="needs Mosquitto, chromium and chromium-driver (make deps installs them)",
)

EVENT = "spring"
TABLES = 8
PASSWORD = "hall-7"


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    from companion.tournament.director import Director
    from companion.tournament.mqtt import BrokerURL, check_login
    from companion.tournament.sim import Hall, SimTable
    from companion.tournament.store import Store
    from companion.tournament.web import WebServer

    root = tmp_path_factory.mktemp("hall")
    accounts = brk.Accounts(root / "director")
    port = brk.free_port()
    broker = brk.Broker(accounts, EVENT, port)
    broker.start()
    url = BrokerURL("127.0.0.1", port)
    creds = accounts.ensure()
    store = Store(root / "director" / f"{EVENT}.sqlite", durable=False)
    director = Director(store, EVENT, url, creds["username"], creds["password"])
    tables, links = [], []
    hall = web = browser = None
    try:
        director.start()
        accounts_of = accounts.add_tables(list(range(1, TABLES + 1)), EVENT)
        broker.reload()
        for n in range(1, TABLES + 1):
            check_login(url, accounts_of[n]["username"], accounts_of[n]["password"])
            table = SimTable(root, n, fsync=False)
            table.join(
                f"mqtt://127.0.0.1:{port}",
                EVENT,
                accounts_of[n]["username"],
                accounts_of[n]["password"],
            )
            link = table.link(poll=0.02, resend_seconds=0.5)
            link.start(thread=False)
            tables.append(table)
            links.append(link)
        hall = Hall(tables, links, poll=0.02)
        hall.start()
        web = WebServer(
            store, director_password=PASSWORD, publish=director.publish_round, event=EVENT
        ).start()
        browser = Browser()
        yield {"store": store, "tables": tables, "web": web, "driver": browser.driver, "hall": hall}
    finally:
        if browser is not None:
            browser.quit()
        if web is not None:
            web.stop()
        if hall is not None:
            hall.stop()
        for link in links:
            link.stop()
        director.stop()
        broker.stop()
        for table in tables:
            table.close()
        store.close()


def wait_for(driver, condition, timeout, what):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition, what)


def text(driver, css):
    got = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css
    )
    return got or ""


def test_a_round_published_from_the_page_is_taken_by_the_tables(network):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    store, tables, web, driver = (network[k] for k in ("store", "tables", "web", "driver"))
    driver.get(web.url + "/")
    # every table's link has told the director it is there (ready, no game yet)
    wait_for(
        driver,
        lambda d: (
            len(d.find_elements(By.CSS_SELECTOR, "#hall .tile")) == TABLES
            and "not heard" not in text(d, "#hall")
        ),
        15,
        "eight tables heard from",
    )
    driver.get(f"{web.url}/login?next=/round")
    driver.find_element(By.NAME, "secret").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "pair"), 10, "the round form")
    driver.find_element(By.CSS_SELECTOR, "input[name=method][value=robin]").click()
    players = driver.find_element(By.NAME, "players")
    players.clear()
    names = [f"Player{i:02d}" for i in range(1, 2 * TABLES + 1)]
    players.send_keys("\n".join(names))
    Select(driver.find_element(By.NAME, "colours")).select_by_value("fixed")
    for name, value in (("minutes", "2"), ("minute_seconds", "30")):
        box = driver.find_element(By.NAME, name)
        box.clear()
        box.send_keys(value)
    driver.find_element(By.ID, "preview").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "publish"), 10, "the review")
    driver.find_element(By.ID, "publish").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "notice"), 15, "published")
    setups = store.round_setups(1)
    assert sorted(setups) == list(range(1, TABLES + 1))
    # each table's link received its retained set-up and wrote it; the table, between games,
    # took it: its state (and so its tile) names the round's players
    driver.get(web.url + "/")
    for table in tables:
        s = setups[table.number]
        wait_for(
            driver,
            lambda d, s=s, n=table.number: (
                s["blue"] in text(d, f"#tile-{n}") and s["red"] in text(d, f"#tile-{n}")
            ),
            60,  # a set-up is taken at the table's next look between games, not timed here
            f"table {table.number} took it",
        )
        cfg = table.service.mode.context.table
        assert (cfg.round, cfg.blue, cfg.red, cfg.minutes) == (1, s["blue"], s["red"], 2)
    assert text(driver, "#progress") == f"Round 1: 0 / {TABLES} reported"


def test_a_press_at_a_table_changes_its_tile_within_a_second(network):
    store, tables, web, driver = (network[k] for k in ("store", "tables", "web", "driver"))
    driver.get(web.url + "/")
    table = tables[2]
    n = table.number
    assert "on move" not in text(driver, f"#tile-{n}").lower()
    # red presses his button: blue's move starts (rulebook, "The Timer")
    pressed = time.monotonic()
    table.press("red")
    wait_for(
        driver,
        lambda d: "on move" in text(d, f"#tile-{n} .player.blue").lower(),
        1.0,
        f"table {n}'s tile shows blue on move within a second of red's press",
    )
    took = time.monotonic() - pressed
    assert text(driver, f"#tile-{n} .player.blue .allowance") == "2"
    assert took < 1.0
    # the other tables did not start
    assert all(
        "on move" not in text(driver, f"#tile-{t.number}").lower() for t in tables if t.number != n
    )
