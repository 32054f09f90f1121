"""The director's store: duplicates dropped, corrections applied, standings, live versions, and
use from several threads and a second process."""

import json
import subprocess
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.tournament.outcome import CorrectionError
from companion.tournament.store import Store, StoreError


def iago_record(blue, red, loser, minutes=5, round_=1):
    """A result record as the link sends it: a loss on time leaves the loser 0 minutes and the
    winner the whole 2 x minutes (the two allowances always sum to the total)."""
    left = {loser: 0, ("red" if loser == "blue" else "blue"): 2 * minutes}
    return {
        "game": "iago",
        "players": {"blue": blue, "red": red},
        "loser": loser,
        "winner": "red" if loser == "blue" else "blue",
        "minutes": left,
        "round": round_,
        "events": [],
    }


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "director.sqlite", durable=False)
    yield s
    s.close()


def test_events_are_kept_once_by_table_game_and_seq(store):
    assert store.record_event(3, "g1", 1, {"kind": "press", "seq": 1}, 10.0) is True
    assert store.record_event(3, "g1", 1, {"kind": "press", "seq": 1, "other": 1}, 11.0) is False
    assert store.record_event(3, "g1", 2, {"kind": "press", "seq": 2}, 12.0) is True
    # the same seq of another game, or of another table, is another event
    assert store.record_event(3, "g2", 1, {"kind": "press", "seq": 1}, 13.0) is True
    assert store.record_event(4, "g1", 1, {"kind": "press", "seq": 1}, 13.0) is True
    assert store.counts()["events"] == 4
    assert store.events(3, "g1") == [{"kind": "press", "seq": 1}, {"kind": "press", "seq": 2}]


def test_events_of_the_current_game_in_seq_order(store):
    store.record_event(5, "old", 1, {"seq": 1}, 1.0)
    store.record_event(5, "new", 2, {"seq": 2}, 2.0)  # arrived before seq 1
    store.record_event(5, "new", 1, {"seq": 1}, 3.0)
    t = store.table(5)
    assert t["game"] == "new"
    assert [e["seq"] for e in t["events"]] == [1, 2]
    assert t["last_seen"] == 3.0


def test_results_one_per_game(store):
    rec = iago_record("Ada", "Bob", "red")
    assert store.record_result(1, "g1", 1, rec, 100.0) is True
    assert store.record_result(1, "g1", 1, rec, 101.0) is False
    res = store.results()
    assert len(res) == 1
    assert res[0]["table"] == 1 and res[0]["game"] == "g1" and res[0]["round"] == 1
    assert res[0]["received"] == 100.0
    assert res[0]["winner"] == "blue" and res[0]["loser"] == "red"
    assert res[0]["record"] == rec


def test_state_latest_kept_and_tables_listed(store):
    store.record_state(2, {"status": "running", "t": 1.0}, 50.0)
    store.record_state(2, {"status": "paused", "t": 2.0}, 51.0)
    store.add_table(9, 52.0)
    tables = store.tables()
    assert [t["table"] for t in tables] == [2, 9]
    assert tables[0]["state"] == {"status": "paused", "t": 2.0}
    assert tables[0]["last_seen"] == 51.0
    assert tables[1]["state"] is None and tables[1]["last_seen"] is None
    assert store.table(77) is None


def test_board_latest(store):
    store.record_board(4, "g", "11/11/11/11/11/11/11/11/11/11/11", False, 5.0)
    store.record_board(4, "g", "11/11/11/11/11/4POT4/11/11/11/11/11", True, 6.0)
    assert store.table(4)["board"] == {
        "board": "11/11/11/11/11/4POT4/11/11/11/11/11",
        "trusted": True,
        "received": 6.0,
    }


def test_rounds_and_setups(store):
    assert store.current_round() is None
    store.set_round(1, {1: {"blue": "Ada"}, 2: {"blue": "Cy"}}, 10.0)
    store.set_round(2, {1: {"blue": "Bob"}}, 20.0)
    assert store.current_round() == 2
    assert store.round_setups(1) == {1: {"blue": "Ada"}, 2: {"blue": "Cy"}}
    by_table = {t["table"]: t["setup"] for t in store.tables()}
    assert by_table == {1: {"blue": "Bob"}, 2: None}  # table 2 is not in round 2
    # republishing round 1 replaces its set-ups and makes it current again
    store.set_round(1, {3: {"blue": "Di"}}, 30.0)
    assert store.round_setups(1) == {3: {"blue": "Di"}}
    assert store.current_round() == 1


def test_corrections_change_the_effective_result_and_the_standings(store):
    store.record_result(1, "g1", 1, iago_record("Ada", "Bob", "red"), 1.0)
    store.record_result(2, "g2", 1, iago_record("Cy", "Di", "blue"), 2.0)
    before = {r["player"]: r["wins"] for r in store.standings()}
    assert before == {"Ada": 1, "Bob": 0, "Cy": 0, "Di": 1}
    cid = store.add_correction(1, "g1", {"winner": "red"}, "clock fault", "TD Eve", 5.0)
    fixed = store.results()[0]
    assert fixed["winner"] == "red" and fixed["loser"] == "blue"
    assert fixed["record"]["loser"] == "red"  # the record is kept as the table sent it
    assert fixed["corrections"][0] == {
        "id": cid,
        "table": 1,
        "game": "g1",
        "change": {"winner": "red"},
        "reason": "clock fault",
        "who": "TD Eve",
        "at": 5.0,
    }
    assert store.tables()[0]["result"]["winner"] == "red"
    after = {r["player"]: r["wins"] for r in store.standings()}
    assert after == {"Ada": 0, "Bob": 1, "Cy": 0, "Di": 1}
    store.add_correction(2, "g2", {"void": True}, "wrong players", "TD Eve", 6.0)
    names = {r["player"] for r in store.standings()}
    assert names == {"Ada", "Bob"}  # a void game counts for no one
    assert [c["id"] for c in store.corrections()] == [1, 2]


def test_bad_corrections_refused(store):
    store.record_result(1, "g1", 1, iago_record("Ada", "Bob", "red"), 1.0)
    for bad in ({"winner": "green"}, {"winner": "blue", "loser": "blue"}, {}, {"void": "yes"}):
        with pytest.raises(CorrectionError, match="accepted"):
            store.add_correction(1, "g1", bad, "r", "w", 2.0)
    with pytest.raises(StoreError, match="stored games of table 1: \\['g1'\\]"):
        store.add_correction(1, "nope", {"winner": "red"}, "r", "w", 2.0)
    with pytest.raises(StoreError, match="reason"):
        store.add_correction(1, "g1", {"winner": "red"}, " ", "w", 2.0)
    assert store.corrections() == []


def test_standings_sorted_by_wins_then_spread(store):
    # Ada beats Bob on time with 5 minutes each: Ada +10 (10 - 0), Bob -10.
    store.record_result(1, "a", 1, iago_record("Ada", "Bob", "red", minutes=5), 1.0)
    # Cy beats Di with 3 minutes each: +6 / -6.
    store.record_result(2, "b", 1, iago_record("Cy", "Di", "red", minutes=3), 2.0)
    # an Iota game: scores are the points; Di 40 beats Bob 25 (+15 / -15)
    iota = {
        "game": "iota",
        "players": ["Di", "Bob"],
        "scores": {"Di": 40, "Bob": 25},
        "winner": "Di",
    }
    store.record_result(3, "c", 2, iota, 3.0)
    rows = store.standings()
    # one win each for Ada (+10), Di (-6 + 15 = +9) and Cy (+6): spread decides
    assert [r["player"] for r in rows] == ["Ada", "Di", "Cy", "Bob"]
    by = {r["player"]: r for r in rows}
    assert by["Ada"] == {
        "rank": 1,
        "player": "Ada",
        "played": 1,
        "wins": 1,
        "losses": 0,
        "draws": 0,
        "byes": 0,
        "points": 1,
        "spread": 10,
        "buchholz": 0,  # Bob's points
    }
    assert by["Di"]["spread"] == -6 + 15 and by["Di"]["wins"] == 1
    assert by["Bob"]["spread"] == -10 - 15 and by["Bob"]["losses"] == 2


def test_version_and_changed_since(store):
    v0 = store.version()
    assert store.changed_since(v0) == (v0, [])
    store.record_state(3, {"status": "ready"}, 1.0)
    store.record_event(7, "g", 1, {}, 2.0)
    v1, changed = store.changed_since(v0)
    assert v1 > v0 and changed == [3, 7]
    assert store.record_event(7, "g", 1, {}, 3.0) is False  # a duplicate changes nothing
    assert store.changed_since(v1) == (v1, [])
    store.set_round(1, {5: {}}, 4.0)
    v2, changed = store.changed_since(v1)
    assert v2 > v1 and changed == [5]


def test_threads_write_at_once_and_lose_nothing(store):
    def table(n):
        for seq in range(1, 51):
            store.record_event(n, "g", seq, {"seq": seq}, float(seq))
            store.record_event(n, "g", seq, {"seq": seq}, float(seq))  # its duplicate

    threads = [threading.Thread(target=table, args=(n,)) for n in range(1, 9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.counts()["events"] == 8 * 50
    assert all(len(store.events(n, "g")) == 50 for n in range(1, 9))


def test_a_second_process_reads_and_sees_changes(store, tmp_path):
    store.record_result(1, "g1", 1, iago_record("Ada", "Bob", "red"), 1.0)
    v = store.version()
    code = (
        "import json, sys\n"
        "from companion.tournament.store import Store\n"
        "s = Store(sys.argv[1])\n"
        "print(json.dumps({'results': s.results(), 'version': s.version(),"
        " 'since': s.changed_since(int(sys.argv[2]))}))\n"
    )
    store.record_state(4, {"status": "running"}, 2.0)
    out = subprocess.run(
        [sys.executable, "-c", code, str(store.path), str(v)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout)
    assert [r["game"] for r in got["results"]] == ["g1"]
    assert got["version"] == store.version()
    assert got["since"] == [store.version(), [4]]


def test_not_a_database_is_an_error_naming_the_file(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="bad.sqlite"):
        Store(bad)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 3), st.sampled_from("ab"), st.integers(1, 5)), max_size=40)
)
def test_any_order_of_arrivals_keeps_each_event_once(tmp_path_factory, arrivals):
    with Store(tmp_path_factory.mktemp("s") / "s.sqlite", durable=False) as s:
        kept = [s.record_event(t, g, q, {"q": q}, 0.0) for t, g, q in arrivals]
        assert sum(kept) == len(set(arrivals)) == s.counts()["events"]


def test_an_accepted_result_is_the_set_ups_game_and_its_typed_names_are_the_players(store):
    """Names typed at the table as ``ada``/``bob``: held; the director accepts it. It is then
    round 1's game at table 1 (a second result of that set-up is held as played already) and
    counts for Ada and Bob, not for new players ``ada`` and ``bob``."""
    setup = {"round": 1, "table": 1, "game": "iago", "blue": "Ada", "red": "Bob"}
    setup["players"] = {"blue": "Ada", "red": "Bob"}
    store.set_round(1, {1: setup}, 10.0, players=["Ada", "Bob"])

    def arrive(game, record, at):
        held = store.hold_reason(1, game, 1, record)
        store.record_result(1, game, 1, record, at, held=held)
        return held

    typed = iago_record("ada", "bob", "red")
    assert arrive("g1", typed, 11.0).startswith("players ada v bob")
    store.add_correction(1, "g1", {"accept": True}, "names typed in lower case", "TD Eve", 12.0)
    again = arrive("g2", iago_record("Ada", "Bob", "red"), 13.0)
    assert again == "round 1's set-up at this table was played already (game g1)"
    rows = {s["player"]: (s["played"], s["wins"], s["losses"]) for s in store.standings()}
    assert rows == {"Ada": (1, 1, 0), "Bob": (1, 0, 1)}
    # undone: the accepted game no longer counts, so the set-up's next result would
    store.add_correction(1, "g1", {"accept": False}, "wrong game", "TD Eve", 14.0)
    assert store.hold_reason(1, "g3", 1, iago_record("Ada", "Bob", "red")) is None


def test_names_that_differ_only_in_unicode_composition_are_one_player(store):
    """José registered with a precomposed é (U+00E9), typed at the table as e + a combining
    acute (U+0301): the result matches the set-up and counts for the one registered José."""
    composed, decomposed = "Jos\u00e9", "Jose\u0301"
    setup = {"round": 1, "table": 1, "game": "iago", "blue": composed, "red": "Bob"}
    setup["players"] = {"blue": composed, "red": "Bob"}
    store.set_round(1, {1: setup}, 10.0, players=[composed, "Bob"])
    record = iago_record(decomposed, "Bob", "red")
    assert store.hold_reason(1, "g1", 1, record) is None
    store.record_result(1, "g1", 1, record, 11.0)
    rows = {s["player"]: (s["played"], s["wins"]) for s in store.standings()}
    assert rows == {composed: (1, 1), "Bob": (1, 0)}


@pytest.mark.parametrize(
    "minutes",
    [{"blue": 1.7e308, "red": -1.7e308}, {"blue": 1000000, "red": 0}, {"blue": 3, "red": -1}],
)
def test_minutes_a_time_control_cannot_end_with_are_held_and_never_make_a_spread(store, minutes):
    setup = {"round": 1, "table": 1, "game": "iago", "minutes": 5}
    setup["players"] = {"blue": "Ada", "red": "Bob"}
    store.set_round(1, {1: setup}, 10.0, players=["Ada", "Bob"])
    record = {**iago_record("Ada", "Bob", "red"), "minutes": minutes}
    held = store.hold_reason(1, "g1", 1, record)
    assert held is not None and "time control gives each player 0 to 10" in held
    store.record_result(1, "g1", 1, record, 11.0, held=held)
    # accepted all the same: it counts as a win, but a value past any game's is no spread
    store.add_correction(1, "g1", {"accept": True}, "the TD's call", "TD Eve", 12.0)
    rows = store.standings()
    json.dumps(rows, allow_nan=False)  # valid JSON: no Infinity
    assert all(abs(r["spread"]) <= 10 for r in rows)
    assert {r["player"]: r["wins"] for r in rows} == {"Ada": 1, "Bob": 0}


def test_minutes_within_the_time_control_count():
    from companion.tournament.outcome import setup_mismatch

    setup = {"game": "iago", "minutes": 5, "players": {"blue": "Ada", "red": "Bob"}}
    assert setup_mismatch(setup, 1, iago_record("Ada", "Bob", "red")) is None


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_a_name_and_its_upper_case_are_one_player_whatever_its_script(name):
    """player_key matches a name typed in capitals to its registered spelling in any script: its
    key is composed again after folding (Greek capital ΐ folds decomposed: Παΐσιος and ΠΑΐΣΙΟΣ
    were two players), and it is always NFC."""
    import unicodedata

    from companion.tournament.standings import player_key

    assert player_key("Παΐσιος") == player_key("ΠΑΐΣΙΟΣ")
    key = player_key(name)
    assert unicodedata.is_normalized("NFC", key)
    assert player_key(key) == key
    assert player_key(unicodedata.normalize("NFD", name)) == key


@pytest.mark.parametrize("colour", ["blue", "red"])
def test_a_result_whose_winner_is_its_loser_is_held(store, colour):
    """``{"winner": "blue", "loser": "blue"}`` matched the set-up and counted: blue had a win
    and red no game at all (neither won, lost nor drew), so red's row and Buchholz were wrong.
    A record that contradicts itself is now held with that reason."""
    setup = {"round": 1, "table": 1, "game": "iago", "minutes": 5}
    setup["players"] = {"blue": "Ada", "red": "Bob"}
    store.set_round(1, {1: setup}, 10.0, players=["Ada", "Bob"])
    record = {**iago_record("Ada", "Bob", "red"), "winner": colour, "loser": colour}
    held = store.hold_reason(1, "g1", 1, record)
    assert held == f"winner and loser are both {colour}"
    store.record_result(1, "g1", 1, record, 11.0, held=held)
    rows = {s["player"]: (s["played"], s["wins"]) for s in store.standings()}
    assert rows == {"Ada": (0, 0), "Bob": (0, 0)}
