"""The director's pages for a crossword game table: the hall tile shows both scores and times,
overtime in red; the table's page shows the board, the moves with their scores and both totals.
The state is the one a table's link publishes (the mode's state after a simulated game), served
for real (uvicorn on a free loopback port)."""

import re
import time

import httpx
import pytest

from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.sim import ScriptedTable, parse_sim_script
from companion.tournament.store import Store
from companion.tournament.web import WebServer


@pytest.fixture
def state(tmp_path):
    table = TableConfig(number=5, blue="Ada", red="Bob", game="scrabble", minutes=1)
    sim = ScriptedTable(table, set_judge({"JETON"}), tmp_path / "j.jsonl")
    script = "0 press red\n10 type 8D JETON\n12 press blue\n20 type H2 rEDYEING\n"
    script += "85 press red\n86 state\n"  # Bob: 73 s used of 60: 13 s over
    with open(tmp_path / "out.txt", "w") as out:
        final = sim.run(parse_sim_script(script.splitlines()), out=out)
    final["mode"] = "scrabble"  # as the link publishes it (companion.tournament.link)
    final["players"] = {"blue": "Ada", "red": "Bob"}
    final.pop("table", None)
    return final


def test_tile_and_table_page_show_scores_times_overtime_board_and_moves(state, tmp_path):
    assert state["time_left"]["red"] == pytest.approx(-13.0)
    store = Store(tmp_path / "director.sqlite", durable=False)
    store.record_state(5, state, time.time())
    try:
        with (
            WebServer(store, director_password="x", clock=time.time) as web,
            httpx.Client(base_url=web.url, timeout=10) as c,
        ):
            hall = c.get("/").text
            tile = re.search(r'<article class="tile[^"]*" id="tile-5".*?</article>', hall, re.S)
            assert tile, hall[:500]
            html = tile.group(0)
            assert '<span class="score" title="score">40</span>' in html
            assert '<span class="score" title="score">64</span>' in html
            assert re.search(r'class="time overtime"[^>]*>-0:13<', html)  # Bob over, in red
            assert re.search(r'class="time"[^>]*>0:47<', html)  # Ada: 60 - 12 - 1 s (runs from 85)
            page = c.get("/table/5").text
            assert "8D JETON" in page and "H2 rEDYEING" in page
            assert re.search(r"<td>Bob</td><td>H2 rEDYEING</td><td>64</td><td>64</td>", page)
            assert re.search(r"Ada 40</span>.*Bob 64</span>", page, re.S)
            cells = re.findall(r'<span class="cell ([a-z ]+)">([A-Z]*)</span>', page)
            assert ("tile", "J") in cells and ("blank", "R") in cells
            assert ("empty tw", "TW") in cells  # the premium squares left bare
    finally:
        store.close()
