"""Helpers for the director's pages' tests and benchmark: a hall of simulated tables feeding the
director's store, and Debian's headless Chromium driven by Selenium (never downloaded: the
driver's path is given, so Selenium Manager is not used)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
NAMES = (
    "Ada",
    "Bob",
    "Cleo",
    "Dev",
    "Eli",
    "Fay",
    "Gus",
    "Hal",
    "Ivy",
    "Jon",
    "Kim",
    "Lou",
    "Max",
    "Nia",
    "Oto",
    "Pam",
)


def chromium_available() -> bool:
    return Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()


class Browser:
    """Headless Chromium through Selenium with a fresh profile, removed on ``quit()``."""

    def __init__(self, width: int = 1280, height: int = 900, mobile: bool = False) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = tempfile.mkdtemp(prefix="companion-chromium-")
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        for arg in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-extensions",
            "--disable-default-apps",
            "--mute-audio",
            "--hide-scrollbars",
            f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
        ):
            opts.add_argument(arg)
        if mobile:
            opts.add_experimental_option(
                "mobileEmulation",
                {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0}},
            )
        self.driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
        self.driver.set_page_load_timeout(20)

    def quit(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


def iago_state(
    n: int,
    *,
    status: str = "running",
    mover: str | None = "blue",
    minutes=(5, 5),
    sand_left: float | None = 60.0,
    round_no: int = 1,
    players=None,
    **extra,
) -> dict:
    """A table's ``tables/N/state`` payload as DESIGN.md lists it (Iago)."""
    blue, red = players or (NAMES[(2 * n - 2) % len(NAMES)], NAMES[(2 * n - 1) % len(NAMES)])
    state = {
        "game": "iago",
        "status": status,
        "mover": mover,
        "minutes": {"blue": minutes[0], "red": minutes[1]},
        "sand_left": sand_left,
        "minute_seconds": 60.0,
        "round": round_no,
        "players": {"blue": blue, "red": red},
        "t": 0.0,
        "table": n,
    }
    state.update(extra)
    return state


def result_record(blue: str, red: str, loser: str, minutes=(3, 0)) -> dict:
    """A finished Iago game's record as a table sends it (players, loser, minutes held)."""
    return {
        "players": {"blue": blue, "red": red},
        "loser": loser,
        "minutes": {"blue": minutes[0], "red": minutes[1]},
        "events": [],
    }


def fill_hall(store, tables: int = 8, round_no: int = 1, now: float | None = None) -> None:
    """``tables`` tables playing round ``round_no``: set up, each with a state, table 1 with a
    board and a challenge, table 2 finished, table 3 in a challenge, table 4 paused with a
    camera fault."""
    now = time.time() if now is None else now
    setups = {}
    for n in range(1, tables + 1):
        blue, red = NAMES[(2 * n - 2) % len(NAMES)], NAMES[(2 * n - 1) % len(NAMES)]
        setups[n] = {
            "round": round_no,
            "table": n,
            "game": "iago",
            "players": {"blue": blue, "red": red},
            "blue": blue,
            "red": red,
            "colours": "lot",
            "drawn_by_lot": True,
            "minutes": 5,
            "minute_seconds": 60.0,
            "lexicon": "scowl-70-both",
        }
    store.set_round(round_no, setups, now)
    for n in range(1, tables + 1):
        mover = "blue" if n % 2 else "red"
        store.record_state(
            n,
            iago_state(
                n,
                mover=mover,
                minutes=(5 - n % 3, 4 + n % 2),
                sand_left=10.0 + 5 * n,
                round_no=round_no,
            ),
            now,
        )
    game = "t1-g1"
    journal = [
        {"t": 0.0, "kind": "press", "role": "red"},
        {"t": 41.0, "kind": "press", "role": "blue"},
        {"t": 75.5, "kind": "challenge_button"},
        {"t": 76.0, "kind": "press", "role": "red"},
        {
            "t": 80.0,
            "kind": "words",
            "words": ["CAT", "QIX"],
            "valid": False,
            "per_word": {"cat": True, "qix": False},
            "lexicon": "scowl-70-both",
        },
        {"t": 85.0, "kind": "confirm"},
    ]
    for seq, rec in enumerate(journal, 1):
        store.record_event(1, game, seq, rec, now)
    store.record_board(1, game, "11/11/11/11/4Q6/3CAt5/4i6/4x6/11/11/11", False, now)
    b, r = setups[2]["blue"], setups[2]["red"]
    store.record_state(
        2,
        iago_state(
            2,
            status="finished",
            mover=None,
            minutes=(3, 0),
            sand_left=None,
            loser="red",
            round_no=round_no,
        ),
        now,
    )
    store.record_result(2, "t2-g1", round_no, result_record(b, r, "red"), now)
    store.record_state(
        3, iago_state(3, status="challenge", challenge="words", round_no=round_no), now
    )
    store.record_state(
        4, iago_state(4, status="paused", faults=["CAMERA UNAVAILABLE"], round_no=round_no), now
    )
