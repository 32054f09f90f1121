"""The director's commands on a store (no broker needed), the link's configuration, the
protocol's checks (fuzzed), and the set-up key the link writes."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.daemon.config import TableConfigError, validate
from companion.tournament import protocol
from companion.tournament.director import store_path
from companion.tournament.link import LinkConfigError, load_config, tournament_record
from companion.tournament.store import Store


@pytest.fixture
def director_home(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path


def saved_game(blue, red, loser, minutes=3):
    """A saved game as the table service writes it: a loss on time leaves the loser 0 minutes
    and the winner both allowances."""
    winner = "red" if loser == "blue" else "blue"
    return {
        "result": {
            "game": "iago",
            "loser": loser,
            "winner": winner,
            "how": "lost on time",
            "minutes": {loser: 0, winner: 2 * minutes},
        },
        "settings": {"number": 4, "blue": blue, "red": red, "minutes": minutes, "round": 2},
        "record": [
            {"seq": 1, "kind": "_game", "mode": "iago", "game_id": "abc"},
            {"seq": 2, "t": 0.0, "kind": "press", "role": "red"},
        ],
    }


def fill(event="spring"):
    store = Store(store_path(event))
    for table, (blue, red, loser) in enumerate(
        [("Ada", "Bob", "red"), ("Cy", "Di", "blue")], start=1
    ):
        rec = tournament_record(saved_game(blue, red, loser))
        store.record_result(table, f"g{table}", 1, rec, 100.0 + table)
    store.close()


def test_results_json_csv_and_text(director_home, capsys):
    fill()
    assert main(["director", "results", "--json", "--event", "spring"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [(r["table"], r["game"], r["round"], r["winner"]) for r in got] == [
        (1, "g1", 1, "blue"),
        (2, "g2", 1, "red"),
    ]
    assert got[0]["record"]["players"] == {"blue": "Ada", "red": "Bob"}
    assert main(["director", "results", "--csv", "--event", "spring"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "round,table,game,blue,red,winner,loser,draw,void,how,corrected,corrections,received,held"
    )
    assert lines[1].startswith("1,1,g1,Ada,Bob,blue,red,no,no,")
    assert main(["director", "results", "--event", "spring"]) == 0
    assert "table 2: Cy (blue) v Di (red): Di (red) won" in capsys.readouterr().out


def test_a_correction_changes_the_standings_and_is_kept(director_home, capsys):
    fill()
    assert main(["director", "standings", "--json", "--event", "spring"]) == 0
    before = {r["player"]: r["wins"] for r in json.loads(capsys.readouterr().out)}
    assert before == {"Ada": 1, "Bob": 0, "Cy": 0, "Di": 1}
    assert (
        main(
            [
                "director",
                "correct",
                "1",
                "g1",
                "--loser",
                "blue",
                "--reason",
                "wrong clock",
                "--who",
                "TD Eve",
                "--event",
                "spring",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["director", "standings", "--json", "--event", "spring"]) == 0
    after = {r["player"]: r["wins"] for r in json.loads(capsys.readouterr().out)}
    assert after == {"Ada": 0, "Bob": 1, "Cy": 0, "Di": 1}
    with Store(store_path("spring")) as s:
        (c,) = s.corrections()
        assert (c["table"], c["game"], c["change"], c["who"], c["reason"]) == (
            1,
            "g1",
            {"loser": "blue"},
            "TD Eve",
            "wrong clock",
        )


def test_bad_input_is_exit_2_naming_it(director_home, capsys, tmp_path):
    fill()
    assert (
        main(
            [
                "director",
                "correct",
                "1",
                "nope",
                "--void",
                "--reason",
                "x",
                "--who",
                "y",
                "--event",
                "spring",
            ]
        )
        == 2
    )
    assert "no result of game 'nope' at table 1" in capsys.readouterr().err
    assert main(["director", "results", "--event", "other"]) == 2
    assert "no store for event 'other'" in capsys.readouterr().err
    assert main(["director", "results", "--event", "bad/name"]) == 2
    assert "event name 'bad/name'" in capsys.readouterr().err
    assert main(["director", "tables", "add", "x"]) == 2
    assert "table 'x': accepted a number (3) or a range (1-20)" in capsys.readouterr().err
    bad = tmp_path / "r1.csv"
    bad.write_text("1,Ada,Bob\n2,Ada,Cy\n")
    assert main(["director", "round", "1", "--pairings", str(bad), "--event", "spring"]) == 2
    assert "players paired twice: Ada" in capsys.readouterr().err
    assert main(["director", "round", "1", "--swiss", "--event", "spring"]) == 2
    assert "need --players" in capsys.readouterr().err


def test_round_dry_run_and_stored_without_a_running_director(director_home, capsys):
    args = [
        "director",
        "round",
        "1",
        "--round-robin",
        "--players",
        "Ada",
        "Bob",
        "Cy",
        "Di",
        "--colours",
        "fixed",
        "--minutes",
        "3",
        "--event",
        "spring",
    ]
    assert main([*args, "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # Berger round 1 of 4: 1-4, 2-3 (first colour blue)
    assert {t: (s["blue"], s["red"]) for t, s in out["setups"].items()} == {
        "1": ("Ada", "Di"),
        "2": ("Bob", "Cy"),
    }
    with Store(store_path("spring")) as s:
        assert s.current_round() is None  # a dry run keeps nothing
    assert main([*args, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["published"] is False
    assert "No director is running" in captured.err
    with Store(store_path("spring")) as s:
        assert s.current_round() == 1 and sorted(s.round_setups(1)) == [1, 2]
    # round 2 while round 1 has no result yet: said, and kept all the same
    round2 = [a if a != "1" else "2" for a in args]
    assert main(round2) == 0
    err = capsys.readouterr().err
    assert "round 1 has 0 / 2 results reported (tables 1, 2 still playing)" in err
    with Store(store_path("spring")) as s:
        assert s.current_round() == 2


def test_link_configuration_errors_all_at_once(tmp_path):
    toml = tmp_path / "table.toml"
    toml.write_text(
        '[table]\nnumber = 3\n[tournament]\nbroker = "http://x"\nevent = "a b"\ncolour = 1\n'
    )
    with pytest.raises(LinkConfigError) as err:
        load_config(toml)
    msg = str(err.value)
    assert "unknown keys ['colour']" in msg
    assert "accepted mqtt://HOST:PORT" in msg
    assert "event name 'a b'" in msg
    assert "credentials: missing" in msg
    toml.write_text("[table]\nnumber = 3\n")
    with pytest.raises(LinkConfigError, match="no \\[tournament\\] section"):
        load_config(toml)


def test_link_credentials_of_another_table_are_refused(tmp_path):
    """Table 7 given table 1's account (a newcomer's slip): the hall's broker would let the link
    connect and refuse every topic of table 7 unsaid; the set-up says so at once."""
    creds = tmp_path / "link.json"
    creds.write_text(json.dumps({"username": "table1", "password": "pw"}))
    toml = tmp_path / "table.toml"
    toml.write_text(
        f'[table]\nnumber = 7\n[tournament]\nbroker = "mqtt://10.42.0.1"\n'
        f'event = "spring"\ncredentials = "{creds}"\n'
    )
    with pytest.raises(
        LinkConfigError, match="the account table1 is table 1's, and this is table 7"
    ):
        load_config(toml)


def test_link_configuration_read(tmp_path):
    creds = tmp_path / "link.json"
    creds.write_text(json.dumps({"tables": {"3": {"username": "table3", "password": "pw"}}}))
    toml = tmp_path / "table.toml"
    toml.write_text(
        f'[table]\nnumber = 3\n[tournament]\nbroker = "mqtt://10.42.0.1"\n'
        f'event = "spring"\ncredentials = "{creds}"\n'
    )
    cfg = load_config(toml)
    assert (cfg.url.host, cfg.url.port, cfg.url.tls, cfg.table, cfg.username, cfg.password) == (
        "10.42.0.1",
        1883,
        False,
        3,
        "table3",
        "pw",
    )


def test_the_round_key_of_table_toml():
    assert validate({"round": 4}, check_names=False).round == 4
    assert validate({}, check_names=False).round == 0
    with pytest.raises(TableConfigError, match="round = -1: accepted a whole number from 0 to 999"):
        validate({"round": -1}, check_names=False)


def test_tournament_record_maps_names_to_colours():
    saved = {
        "result": {
            "game": "wordinoes",
            "players": ["Ada", "Bob"],
            "winner": "Bob",
            "held": {"Ada": 3, "Bob": 0},
        },
        "settings": {"number": 2, "blue": "Ada", "red": "Bob"},
        "record": [{"seq": 1, "kind": "_game", "mode": "wordinoes"}],
    }
    rec = tournament_record(saved)
    assert (rec["mode"], rec["winner"], rec["loser"], rec["held"]) == (
        "wordinoes",
        "red",
        "blue",  # two players: the one who did not win lost
        {"Ada": 3, "Bob": 0},
    )
    # three at the table: the winner is named, no one loser
    saved["result"] = {**saved["result"], "players": ["Ada", "Bob", "Cy"]}
    assert tournament_record(saved)["loser"] is None


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(protocol.FROM_TABLE + protocol.TO_TABLE),
    st.one_of(
        st.binary(max_size=300),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=10),
            lambda c: (
                st.lists(c, max_size=4)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "game",
                            "seq",
                            "record",
                            "table",
                            "board",
                            "trusted",
                            "online",
                            "events",
                            "round",
                            "t",
                        ]
                    ),
                    c,
                    max_size=6,
                )
            ),
            max_leaves=12,
        ).map(lambda v: json.dumps(v).encode()),
    ),
)
def test_decode_refuses_anything_bad_with_its_own_error(kind, raw):
    try:
        payload = protocol.decode(kind, 3, raw, "t")
    except protocol.ProtocolError as exc:
        assert str(exc).startswith("t: ")
        return
    assert isinstance(payload, dict)
    assert payload.get("table", 3) == 3


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--broker-port", "70000"], "--broker-port '70000': accepted a port number 1 to 65535"),
        (["--broker-port", "0"], "--broker-port '0': accepted a port number 1 to 65535"),
        (["--tls-port", "x"], "--tls-port 'x': accepted a port number 1 to 65535"),
        (["--listen", "999.1.1.1"], "--listen '999.1.1.1': not a host name or an IP address"),
        (["--listen", "x y"], "--listen 'x y': not a host name or an IP address"),
        (["--listen", "192.0.2.77"], "--listen '192.0.2.77': not an address of this machine"),
        (["--pages-url", "director.local:8080"], "--pages-url 'director.local:8080': not a page"),
        (["--pages-url", "javascript:alert(1)"], "--pages-url 'javascript:alert(1)': not a page"),
        (["--pages-url", "http://h/" + "p" * 120], "too long; accepted an http:// or https://"),
        (["--broker", "ftp://nowhere:99999"], "--broker 'ftp://nowhere:99999'"),
        (["--http", "127.0.0.1:99999"], "--http '127.0.0.1:99999': port 99999 is out of range"),
    ],
)
def test_the_directors_options_are_checked_before_anything_starts(
    director_home, capsys, options, said
):
    assert main(["director", "--event", "ev", *options]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
    assert not (director_home / "data" / "director" / "accounts.json").exists()


@given(
    st.from_regex(r"https?://[A-Za-z0-9.:\[\]-]{1,40}(:[0-9]{1,5})?(/[A-Za-z0-9._~%/-]{0,90})?")
    | st.text(max_size=130)
)
@settings(max_examples=200, deadline=None)
def test_a_pages_url_accepted_gives_pages_every_table_accepts(text):
    from companion.tournament.qr import QRError, check_pages_url, table_url

    try:
        base = check_pages_url(text)
    except QRError as exc:
        assert "--pages-url" in str(exc) and "accepted" in str(exc)
        return
    for table in (1, 999):
        cfg = validate({"page": table_url(base, table)}, "set-up", check_names=False)
        assert cfg.page == table_url(base, table)


def test_a_broker_given_before_round_is_the_one_used(director_home, capsys):
    base = ["director", "--event", "ev"]
    rr = ["round", "1", "--round-robin", "--players", "A", "B"]
    assert main([*base, "--broker", "ftp://nowhere:99999", *rr]) == 2
    assert "--broker 'ftp://nowhere:99999'" in capsys.readouterr().err
    # no broker answers there: said, not "no director is running" with the round stored
    assert main([*base, "--broker", "mqtt://127.0.0.1:1", *rr]) == 2
    assert "no broker at mqtt://127.0.0.1:1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["--bye-spread", "nan"], "bye spread nan: accepted a number from -999 to 999"),
        (["--bye-spread", "inf"], "bye spread inf: accepted a number from -999 to 999"),
        (["--bye-spread", "1e308"], "bye spread 1e+308: accepted a number from -999 to 999"),
        (["--game", "chess"], "game 'chess': accepted iago, iota, wordinoes, scrabble"),
    ],
)
def test_a_round_with_a_bad_value_is_refused_and_nothing_stored(director_home, capsys, extra, said):
    argv = ["director", "round", "2", "--round-robin", "--players", "A", "B", "C"]
    assert main([*argv, *extra, "--event", "ev"]) == 2
    err = capsys.readouterr().err
    assert said in err and "Published" not in err
    assert Store(store_path("ev")).rounds() == []


def test_a_round_of_byes_only_or_out_of_range_is_refused(director_home, capsys, tmp_path):
    byes = tmp_path / "byes.csv"
    byes.write_text("1,Ada,\n2,Bob,\n")
    assert main(["director", "round", "1", "--pairings", str(byes), "--event", "ev"]) == 2
    assert "seat no one at a table (byes only)" in capsys.readouterr().err
    pair = tmp_path / "pair.csv"
    pair.write_text("1,Ada,Bob\n")
    huge = ["round", "99999999999999999999", "--pairings", str(pair), "--event", "ev"]
    assert main(["director", *huge]) == 2
    assert "accepted a whole number, 1 to 999" in capsys.readouterr().err
    assert Store(store_path("ev")).rounds() == []


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("5-3", "table '5-3': the range ends before it begins"),
        ("1-999999999999", "table '1-999999999999': out of range"),
        ("\uff15", "table '\uff15': accepted a number (3) or a range (1-20)"),
        ("0", "table '0': out of range"),
        ("1000", "table '1000': out of range"),
        ("1e3", "table '1e3': accepted"),
    ],
)
def test_tables_add_refuses_a_bad_number_naming_it(director_home, capsys, item, said):
    assert main(["director", "tables", "add", "--event", "ev", "--", item]) == 2
    err = capsys.readouterr().err
    assert said in err and "1 to 999" in err and "Traceback" not in err


@given(st.lists(st.text(max_size=12) | st.from_regex(r"[0-9]{1,4}(-[0-9]{1,13})?"), max_size=4))
@settings(max_examples=300, deadline=None)
def test_table_numbers_are_in_range_or_refused_naming_the_item(items):
    from companion.tournament.broker import BrokerError
    from companion.tournament.cli import _numbers

    try:
        got = _numbers(items)
    except BrokerError as exc:
        assert any(repr(i) in str(exc) for i in items) and "accepted" in str(exc)
        return
    assert got == sorted(set(got)) and all(1 <= n <= 999 for n in got)
    assert len(got) <= 999


def test_a_players_file_that_is_not_text_is_refused_naming_it(director_home, capsys, tmp_path):
    binary = tmp_path / "players.bin"
    binary.write_bytes(b"\xff\xfe\x00\x81 Ada\n")
    argv = ["director", "round", "1", "--round-robin", "--players", f"@{binary}", "--dry-run"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"players file {binary} is not UTF-8 text" in err and "Traceback" not in err


def test_players_run_together_with_commas_are_named_and_how_to_give_them_said(
    director_home, capsys
):
    # "--players Ada,Bob" is one name: said with how names are given (it said only "1 player(s)")
    argv = ["director", "round", "1", "--round-robin", "--players", "Ada,Bob", "--dry-run"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "1 player(s) ('Ada,Bob')" in err and "separated by spaces" in err and "@FILE" in err


def test_a_pages_address_the_tables_cannot_take_is_left_out_not_sent(tmp_path, monkeypatch, caplog):
    """Without --pages-url the address is this machine's: one a table would refuse (a host
    name with an underscore) is said and left out of the set-ups, never sent to the tables."""
    import argparse
    import logging
    import types

    from companion.tournament import service
    from companion.tournament.broker import free_port

    monkeypatch.setattr(service, "pages_address", lambda host, port: f"http://pi_hall:{port}")
    store = Store(tmp_path / "ev.sqlite", durable=False)
    director = types.SimpleNamespace(publish_round=None, pages=None)
    args = argparse.Namespace(http=f"127.0.0.1:{free_port()}", password="pw", pages_url=None)
    caplog.set_level(logging.WARNING, logger="companion.tournament")
    server = service._start_web(args, store, director, "ev")
    try:
        assert director.pages == ""
        assert "the pages' address 'http://pi_hall:" in caplog.text
    finally:
        server.stop()
        store.close()


@pytest.mark.parametrize("table", ["0", "1000", "99999999999999999999", "-3"])
def test_correct_a_table_number_out_of_range_is_named_never_a_traceback(
    director_home, capsys, table
):
    """``director correct 99999999999999999999 g1 ...`` ended in an OverflowError traceback
    (SQLite holds no such integer); every table number outside 1 to 999 is now named with
    what is accepted, exit 2."""
    fill()
    args = ["director", "correct", table, "g1", "--void", "--reason", "x", "--who", "y"]
    assert main([*args, "--event", "spring"]) == 2
    err = capsys.readouterr().err
    assert f"table {table}: accepted a table number, 1 to 999" in err
    assert "Traceback" not in err
