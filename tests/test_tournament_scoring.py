"""Scored the way a director scores (issue 46, items 13-15), on the real director and its real
Mosquitto: rounds are published with ``companion director round`` through the running director's
broker, each table's result arrives over MQTT with the table's own account, and the standings
and the next Swiss round are read back with the director's commands.

Anchors: TSH and WESPA (a win 1, a draw 1/2, a bye a win with a fixed spread; rank by wins then
spread), the FIDE Swiss rules (no rematch; pair by the same score)."""

import json
import re
import shutil
import time

import pytest

from companion.cli import main
from companion.tournament import broker as brk
from companion.tournament import protocol
from companion.tournament.director import Director, director_dir, store_path
from companion.tournament.mqtt import BrokerURL, connect
from companion.tournament.store import Store

pytestmark = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not brk.os.path.exists("/usr/sbin/mosquitto"),
    reason="Mosquitto is not installed (make deps installs it)",
)

EVENT = "scoring"
PREFIX = protocol.prefix(EVENT)


class Hall:
    """The director's broker and the director, as ``companion director`` runs them (its
    ``running.json`` names the broker, so the director's commands publish through it)."""

    def __init__(self):
        home = director_dir()
        self.accounts = brk.Accounts(home)
        self.port = brk.free_port()
        self.broker = brk.Broker(self.accounts, EVENT, self.port)
        self.broker.start()
        self.url = BrokerURL("127.0.0.1", self.port)
        creds = self.accounts.ensure()
        self.store = Store(store_path(EVENT))
        self.director = Director(self.store, EVENT, self.url, creds["username"], creds["password"])
        self.director.start()
        (home / "running.json").write_text(json.dumps({"event": EVENT, "broker": str(self.url)}))
        self.tables: dict[int, dict] = {}

    def result(self, table: int, game: str, record: dict) -> None:
        """Table ``table`` sends a result as its link does (its own account, QoS 1)."""
        if table not in self.tables:
            self.tables[table] = self.accounts.add_tables([table], EVENT)[table]
            self.broker.reload()
        creds = self.tables[table]
        client = connect(self.url, creds["username"], creds["password"], f"t{table}-{game}")
        payload = {"game": game, "table": table, "round": record["round"], "record": record}
        try:
            client.publish(
                protocol.topic(PREFIX, table, "result"), protocol.encode(payload), qos=1
            ).wait_for_publish(5)
        finally:
            client.disconnect()
            client.loop_stop()

    def wait_results(self, n: int) -> None:
        deadline = time.monotonic() + 10
        while len(self.store.results()) < n:
            assert time.monotonic() < deadline, f"{len(self.store.results())} of {n} results"
            time.sleep(0.02)

    def close(self):
        self.director.stop()
        self.broker.stop()
        self.store.close()
        (director_dir() / "running.json").unlink(missing_ok=True)


@pytest.fixture
def hall(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "config"))
    h = Hall()
    yield h
    h.close()


def director(capsys, *args) -> dict | list:
    assert main(["director", *args, "--event", EVENT]) == 0
    return json.loads(capsys.readouterr().out)


def iago(setup: dict, loser: str, minutes_left: dict) -> dict:
    """An Iago result of the table's set-up: ``loser`` lost on time, the minutes each held."""
    return {
        "mode": "iago",
        "game": "iago",
        "round": setup["round"],
        "table": setup["table"],
        "players": {"blue": setup["blue"], "red": setup["red"]},
        "loser": loser,
        "winner": "red" if loser == "blue" else "blue",
        "draw": False,
        "minutes": minutes_left,
        "events": [],
    }


def wordinoes(setup: dict, held: dict) -> dict:
    """A Wordinoes result: the fewer tiles held wins; equal tiles held is a draw."""
    blue, red = held["blue"], held["red"]
    winner = None if blue == red else ("blue" if blue < red else "red")
    return {
        "mode": "wordinoes",
        "game": "wordinoes",
        "round": setup["round"],
        "table": setup["table"],
        "players": {"blue": setup["blue"], "red": setup["red"]},
        "winner": winner,
        "loser": None if winner is None else ("red" if winner == "blue" else "blue"),
        "draw": winner is None,
        "held": held,
        "events": [],
    }


def test_a_bye_is_a_win_with_its_spread_and_every_player_is_standing(hall, capsys):
    out = director(
        capsys,
        *("round", "1", "--round-robin", "--players", "Ada", "Bob", "Cy", "Dee", "Eve"),
        *("--colours", "fixed", "--minutes", "3", "--bye-spread", "4", "--json"),
    )
    assert out["published"] is True
    (bye,) = out["byes"]
    setups = hall.store.round_setups(1)
    assert len(setups) == 2
    # one table reports; the other is still playing
    first = setups[1]
    hall.result(1, "g1", iago(first, "red", {"blue": 5, "red": 0}))
    hall.wait_results(1)
    rows = {r["player"]: r for r in director(capsys, "standings", "--json")}
    assert set(rows) == {"Ada", "Bob", "Cy", "Dee", "Eve"}  # every registered player
    assert (rows[bye]["points"], rows[bye]["wins"], rows[bye]["byes"]) == (1, 1, 1)
    assert rows[bye]["spread"] == 4 and rows[bye]["played"] == 1
    assert rows[first["blue"]]["points"] == 1 and rows[first["blue"]]["spread"] == 5
    assert rows[first["red"]]["points"] == 0 and rows[first["red"]]["spread"] == -5
    waiting = {setups[2]["blue"], setups[2]["red"]}
    assert all(rows[p]["played"] == 0 and rows[p]["points"] == 0 for p in waiting)
    # the bye's win ranks with the winner's: spread decides (+5 above +4), the rest below
    ranked = [r["player"] for r in director(capsys, "standings", "--json")]
    assert ranked[:2] == [first["blue"], bye]
    # the default bye spread of an Iago round is its minutes
    out = director(
        capsys,
        *("round", "1", "--round-robin", "--players", "Ada", "Bob", "Cy", "Dee", "Eve"),
        *("--colours", "fixed", "--minutes", "3", "--dry-run", "--json"),
    )
    assert out["bye_spread"] == {bye: 3}


def csv_round(hall, capsys, tmp_path, rnd: int, pairs: list[tuple[str, str]]) -> dict:
    path = tmp_path / f"round{rnd}.csv"
    path.write_text("".join(f"{t},{b},{r}\n" for t, (b, r) in enumerate(pairs, 1)))
    out = director(
        capsys,
        *("round", str(rnd), "--pairings", str(path), "--colours", "fixed"),
        *("--game", "wordinoes", "--json"),
    )
    assert out["published"] is True
    return hall.store.round_setups(rnd)


def test_draws_count_half_and_rank_by_points_then_spread_then_buchholz(hall, capsys, tmp_path):
    """Dee draws four games (2 points, spread 0); Win wins one game by 10 tiles and loses
    three by 1 (1 point, spread +7): Dee ranks above Win (before, one win beat four draws)."""
    for rnd in range(1, 5):
        setups = csv_round(hall, capsys, tmp_path, rnd, [("Dee", f"X{rnd}"), ("Win", f"Y{rnd}")])
        hall.result(1, f"d{rnd}", wordinoes(setups[1], {"blue": 2, "red": 2}))
        won = rnd == 1
        held = {"blue": 0, "red": 10} if won else {"blue": 1, "red": 0}
        hall.result(2, f"w{rnd}", wordinoes(setups[2], held))
    hall.wait_results(8)
    rows = director(capsys, "standings", "--json")
    by = {r["player"]: r for r in rows}
    assert (by["Dee"]["points"], by["Dee"]["draws"], by["Dee"]["spread"]) == (2, 4, 0)
    assert (by["Win"]["points"], by["Win"]["wins"], by["Win"]["spread"]) == (1, 1, 7)
    order = [r["player"] for r in rows]
    assert order.index("Dee") < order.index("Win")
    # Y2, Y3 and Y4 each won one game by 1 tile (1 point, spread +1) against Win (1 point):
    # tied on both, Buchholz (1) puts them above Y1 (0 points) and below Win (spread +7)
    assert by["Y2"]["buchholz"] == by["Win"]["points"] == 1
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    # the people's table says the same
    assert main(["director", "standings", "--event", EVENT]) == 0
    text = capsys.readouterr().out
    assert re.search(r"^\s+1 Dee\s+2\s+4\s+0\s+4\s+0\s+0\s+\+0\s+2", text, re.M), text
    # the Swiss ranks by the same score: Dee (2 points) meets the best of the 1-point group by
    # spread (Win, +7), though the list seeds Y2, Y3 and Y4 first
    players = ["Dee", "Y2", "Y3", "Y4", "Win", "X1", "X2", "X3", "X4", "Y1"]
    out = director(capsys, "round", "5", "--swiss", "--players", *players, "--dry-run", "--json")
    first = out["setups"]["1"]
    assert {first["blue"], first["red"]} == {"Dee", "Win"}


def test_pairings_made_count_as_played_though_no_result_is_in(hall, capsys, tmp_path):
    csv_round(hall, capsys, tmp_path, 1, [("Ada", "Bob"), ("Cy", "Dee")])
    out = director(
        capsys,
        *("round", "2", "--swiss", "--players", "Ada", "Bob", "Cy", "Dee"),
        *("--dry-run", "--json"),
    )
    pairs = {frozenset((s["blue"], s["red"])) for s in out["setups"].values()}
    assert not pairs & {frozenset(("Ada", "Bob")), frozenset(("Cy", "Dee"))}, pairs
    # pairing round 1 again (replacing it) is not a rematch of itself
    out = director(
        capsys,
        *("round", "1", "--swiss", "--players", "Ada", "Bob", "Cy", "Dee"),
        *("--dry-run", "--json"),
    )
    assert len(out["setups"]) == 2


def test_the_round_form_keeps_the_last_time_control_and_players(hall, capsys):
    from tests.test_web_app import client, login

    director(
        capsys,
        *("round", "1", "--round-robin", "--players", "Zed", "Amy", "Kit", "Lou", "Max"),
        *("--minutes", "7", "--minute-seconds", "45", "--game", "iago", "--lexicon", "twl"),
        "--json",
    )
    with client(hall.store) as c:
        login(c)
        page = c.get("/round").text
    assert 'name="minutes" value="7"' in page
    assert 'name="minute_seconds" value="45"' in page
    assert 'name="lexicon" value="twl"' in page
    # the players as listed for the round, in their order, the bye included
    listed = re.search(r'<textarea name="players"[^>]*>([^<]*)</textarea>', page).group(1)
    assert listed.split() == ["Zed", "Amy", "Kit", "Lou", "Max"]


def test_one_csv_format_with_iso_times_and_a_round_table_for_people(hall, capsys):
    """``director results --csv`` and ``/results.csv`` are one format, ``received`` in ISO 8601;
    ``director round`` prints a table for people (``--json`` for scripts)."""
    import csv
    import datetime
    import io

    from tests.test_web_app import client

    assert (
        main(
            ["director", "round", "1", "--round-robin", "--players", "Ada", "Bob", "--event", EVENT]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("Round 1: 1 tables, iago 5 min, 60 s minute\n"), out
    assert re.search(r"^\s+1\s+(Ada|Bob)\s+(Ada|Bob)$", out, re.M) and "{" not in out
    setup = hall.store.round_setups(1)[1]
    hall.result(1, "g1", iago(setup, "red", {"blue": 7, "red": 0}))
    hall.wait_results(1)
    assert main(["director", "results", "--csv", "--event", EVENT]) == 0
    cli_csv = capsys.readouterr().out
    with client(hall.store) as c:
        web_csv = c.get("/results.csv").text
    assert cli_csv == web_csv
    (row,) = list(csv.DictReader(io.StringIO(cli_csv)))
    assert row["blue"] == setup["blue"] and row["winner"] == "blue" and row["loser"] == "red"
    received = datetime.datetime.fromisoformat(row["received"])
    assert received.tzinfo is not None
    assert abs(received.timestamp() - hall.store.results()[0]["received"]) < 1


def test_the_round_form_keeps_a_crossword_event_and_its_rules(hall, capsys):
    """Round 1 of the crossword game from the command line: the /round form offers it, shows
    its challenge and overtime rules, and pairs round 2 as the same game with the same rules."""
    from companion.tournament.web import forms
    from tests.test_web_app import client, csrf, login

    director(
        capsys,
        *("round", "1", "--round-robin", "--players", "Amy", "Kit", "Lou", "Max"),
        *("--game", "scrabble", "--challenge", "points", "--challenge-points", "3"),
        *("--overtime-points", "7", "--json"),
    )
    with client(hall.store) as c:
        login(c)
        page = c.get("/round").text
        assert "<option selected>scrabble</option>" in page
        assert '<option value="points" selected>' in page
        assert 'name="challenge_points" value="3"' in page
        assert 'name="overtime_points" value="7"' in page
        values = {
            k: v
            for k, v in re.findall(r'name="(\w+)" value="([^"]*)"', page)
            if k in forms.ROUND_FIELDS
        }
        form = forms.round_defaults(1, ["Amy", "Kit", "Lou", "Max"], None) | values
        form |= {"game": "scrabble", "challenge": "points", "method": "robin", "csrf": csrf(page)}
        r = c.post("/round", data=form)
        assert r.status_code == 200 and "Review round 2" in r.text
    draft = forms.make_draft(hall.store, form, "", "x.csv", [], {}, "spring")
    rules = {
        (s["game"], s["minutes"], s["challenge"], s["challenge_points"], s["overtime_points"])
        for s in draft["setups"].values()
    }
    assert rules == {("scrabble", 25, "points", 3, 7)}
    bad = forms.round_defaults(1, ["Amy", "Kit"], None) | {"game": "scrabble"}
    with pytest.raises(forms.FormError, match="Points off per minute of overtime: 101"):
        forms.make_draft(hall.store, bad | {"overtime_points": "101"}, "", "x", [], {}, "e")
