"""Screenshots of the director's pages for the README: ``python -m tests.web_screenshots
[FOLDER]`` (default docs/screenshots/) serves the pages over a store of eight tables in round 3
of an event and saves one PNG a page from headless Chromium."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tests.web_support import NAMES, Browser, fill_hall, iago_state, result_record


def scene(store) -> None:
    """Rounds 1 and 2 played (16 results), round 3 under way at eight tables."""
    now = time.time()
    rounds = {
        1: [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13), (14, 15)],
        2: [(1, 2), (3, 0), (5, 6), (7, 4), (9, 10), (11, 8), (13, 14), (15, 12)],
    }
    for rnd, pairs in rounds.items():
        setups = {}
        for table, (b, r) in enumerate(pairs, 1):
            setups[table] = {
                "round": rnd,
                "table": table,
                "game": "iago",
                "players": {"blue": NAMES[b], "red": NAMES[r]},
                "blue": NAMES[b],
                "red": NAMES[r],
                "minutes": 5,
                "minute_seconds": 60.0,
                "lexicon": "scowl-70-both",
                "colours": "lot",
            }
        store.set_round(rnd, setups, now - 4000 + rnd * 1000)
        for table, (b, r) in enumerate(pairs, 1):
            loser = "red" if (b + r + rnd) % 3 else "blue"
            held = (table + rnd) % 4 + 1
            minutes = (held, 0) if loser == "red" else (0, held)
            store.record_result(
                table,
                f"r{rnd}-t{table}",
                rnd,
                result_record(NAMES[b], NAMES[r], loser, minutes),
                now - 100,
            )
    fill_hall(store, tables=8, round_no=3, now=now)
    store.record_state(7, iago_state(7, status="paused", restarted=True, round_no=3), now - 40)
    store.record_state(
        8, iago_state(8, mover="red", minutes=(1, 0), sand_left=8.0, round_no=3), now - 2
    )
    store.add_correction(
        3,
        "r1-t3",
        {"winner": "red"},
        "red's last press was not counted (a loose button)",
        "Jo (arbiter)",
        now - 3000,
    )


def main(argv: list[str]) -> int:
    from selenium.webdriver.common.by import By

    from companion.tournament.store import Store
    from companion.tournament.web import WebServer

    out = Path(argv[0] if argv else "docs/screenshots")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "spring.sqlite", durable=False)
        scene(store)
        web = WebServer(store, director_password="pin", event="spring-open").start()
        wide = Browser(1280, 800)
        phone = Browser(412, 915, mobile=True)
        try:
            d = wide.driver
            d.get(web.url + "/")
            time.sleep(0.8)
            d.save_screenshot(str(out / "hall.png"))
            d.get(web.url + "/tv")
            time.sleep(0.8)
            d.save_screenshot(str(out / "tv-standings.png"))
            d.execute_script("document.body.dataset.cycle = 1")
            d.get(web.url + "/tv/panels")
            panels = d.execute_script("return JSON.parse(document.body.innerText)")
            d.get(web.url + "/tv")
            time.sleep(0.5)
            d.execute_script(
                "document.getElementById('panel').innerHTML = arguments[0]", panels["progress"]
            )
            d.save_screenshot(str(out / "tv-progress.png"))
            d.get(web.url + "/login?next=/round")
            d.find_element(By.NAME, "secret").send_keys("pin")
            d.find_element(By.CSS_SELECTOR, "form button").click()
            time.sleep(0.5)
            d.find_element(By.CSS_SELECTOR, "input[name=method][value=swiss]").click()
            d.find_element(By.ID, "preview").click()
            time.sleep(0.8)
            d.set_window_size(1280, 1500)
            d.save_screenshot(str(out / "round.png"))
            d.get(web.url + "/standings")
            time.sleep(0.5)
            d.set_window_size(1280, 1700)
            d.save_screenshot(str(out / "standings.png"))
            p = phone.driver
            store.record_state(
                1, iago_state(1, minutes=(4, 5), sand_left=42.0, round_no=3), time.time()
            )
            p.get(web.url + "/table/1")
            time.sleep(0.8)
            height = p.execute_script("return document.documentElement.scrollHeight")
            p.set_window_size(412, min(height + 40, 2200))
            time.sleep(0.3)
            p.save_screenshot(str(out / "table-phone.png"))
        finally:
            wide.quit()
            phone.quit()
            web.stop()
            store.close()
    for png in sorted(out.glob("*.png")):
        print(png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
