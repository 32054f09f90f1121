"""The director's pages' pure parts: what a tile, a table page, a CSV and a form say."""

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.tournament import qr
from companion.tournament.web import WebError, parse_address, views
from companion.tournament.web.forms import ROUND_FIELDS, FormError, correction, make_draft


def row(state=None, setup=None, result=None, last_seen=100.0, table=5):
    return {
        "table": table,
        "state": state,
        "last_seen": last_seen,
        "setup": setup,
        "result": result,
    }


def iago(**kw):
    state = {
        "game": "iago",
        "status": "running",
        "mover": "blue",
        "minutes": {"blue": 4, "red": 5},
        "sand_left": 37.5,
        "minute_seconds": 60.0,
        "players": {"blue": "Ada", "red": "Bob"},
        "round": 2,
        "t": 80.0,
    }
    state.update(kw)
    return state


def test_running_iago_tile_has_both_allowances_the_mover_and_the_sand():
    t = views.tile(row(iago()), now=103.0)
    assert t["players"] == {"blue": "Ada", "red": "Bob"}
    assert t["minutes"] == {"blue": 4, "red": 5}
    assert t["mover"] == "blue" and t["running"]
    assert t["sand_left"] == 37.5 and t["sand_text"] == "0:38"
    assert t["words"] == [] and t["ago"] == "3 s ago" and t["round"] == 2


@pytest.mark.parametrize(
    ("state", "words"),
    [
        (iago(status="challenge", challenge="words"), ["CHALLENGE"]),
        (iago(status="paused"), ["PAUSED"]),
        (iago(status="paused", restarted=True), ["PAUSED RESTARTED"]),
        (iago(status="finished", loser="red", mover=None), ["RED LOST ON TIME"]),
        (iago(faults=["CAMERA UNAVAILABLE"]), ["CAMERA UNAVAILABLE"]),
        (iago(status="paused", fault="CAMERA UNAVAILABLE"), ["PAUSED", "CAMERA UNAVAILABLE"]),
        (iago(online=False), ["OFFLINE"]),
    ],
)
def test_status_words_are_the_oleds(state, words):
    t = views.tile(row(state), now=100.0)
    assert t["words"] == words


def test_the_sand_runs_only_while_the_clock_runs():
    for status in ("challenge", "paused", "finished", "ready"):
        assert not views.tile(row(iago(status=status)), now=100.0)["running"]


def test_a_table_not_heard_from_shows_its_setup():
    setup = {"round": 3, "table": 5, "game": "iota", "players": {"blue": "Cy", "red": "Di"}}
    t = views.tile(row(None, setup, last_seen=None), now=100.0)
    assert t["players"] == {"blue": "Cy", "red": "Di"} and t["game"] == "iota"
    assert t["ago"] == "never" and "silent" in t["classes"] and t["round"] == 3


def test_scores_for_iota():
    t = views.tile(row({"game": "iota", "status": "running", "scores": {"Cy": 31, "Di": 12}}))
    assert t["scores"] == [("Cy", 31), ("Di", 12)]


def test_result_text_follows_the_corrected_outcome():
    res = {
        "players": {"blue": "Ada", "red": "Bob"},
        "winner": "red",
        "loser": "blue",
        "draw": False,
        "void": False,
        "record": {"loser": "blue"},
        "corrections": [{"change": {"winner": "red"}}],
    }
    assert views.result_of(res)["text"] == "Bob (red) won (corrected)"
    assert views.result_of(res | {"void": True})["text"] == "void (corrected)"
    assert (
        views.result_of(res | {"winner": None, "loser": None, "draw": True, "corrections": []})[
            "text"
        ]
        == "draw"
    )


def test_reported_counts_tables_of_the_round_with_a_result():
    setups = {1: {}, 2: {}, 3: {}}
    results = [
        {"table": 1, "round": 2},
        {"table": 1, "round": 2},
        {"table": 3, "round": 1},
        {"table": 2, "round": 2},
    ]
    assert views.reported(2, setups, results)["text"] == "2 / 3 reported"
    assert views.reported(None, {}, [])["text"] == "no round published"


def test_board_grid_takes_colour_from_case():
    g = views.board_grid("3/Ab1/3")
    assert g["rows"][1][0] == {"letter": "A", "colour": "blue"}
    assert g["rows"][1][1] == {"letter": "B", "colour": "red"}
    assert g["rows"][0] == [None, None, None] and g["counts"] == {"blue": 1, "red": 1}
    assert "row 2" in views.board_grid("3/Ab/3")["error"]
    assert views.board_grid("") is None


def test_challenges_with_words_verdict_and_evidence():
    events = [
        {"t": 10.0, "kind": "press", "role": "red"},
        {"t": 30.0, "kind": "challenge_button"},
        {"t": 31.0, "kind": "press", "role": "red"},
        {
            "t": 40.0,
            "kind": "words",
            "words": ["CAT", "QIX"],
            "valid": False,
            "per_word": {"cat": True, "qix": False},
            "lexicon": "scowl-70-both",
        },
        {"t": 42.0, "kind": "override"},
        {"t": 45.0, "kind": "confirm"},
        {"t": 50.0, "kind": "challenge_button"},
        {"t": 51.0, "kind": "cancel"},
    ]
    first, second = views.challenges(events)
    assert first["challenger"] == "red" and first["words"] == ["CAT", "QIX"]
    assert first["per_word"] == {"CAT": True, "QIX": False}
    assert first["verdict"] == "ACCEPTABLE" and first["overridden"]  # the arbiter's override
    assert second["verdict"] == "called off"


def test_words_no_lexicon_judged_show_as_the_table_shows_them_the_arbiters():
    """Words the table took with no lexicon to judge them (``unchecked_event``: valid None) are
    shown ACCEPTABLE, as the table's OLED shows them, and said to be the arbiter's; the
    arbiter's override turns them NOT ACCEPTABLE without counting as overriding a lexicon.
    Before, valid None read as NOT ACCEPTABLE and the override as the judge overridden."""
    from companion.daemon.challenge import unchecked_event

    words = unchecked_event(40.0, ["cat"], "the lexicon cannot be opened (no such file)")
    events = [
        {"t": 30.0, "kind": "challenge_button"},
        {"t": 31.0, "kind": "press", "role": "red"},
        words,
        {"t": 45.0, "kind": "confirm"},
        {"t": 50.0, "kind": "challenge_button"},
        {"t": 51.0, "kind": "press", "role": "blue"},
        {**words, "t": 55.0},
        {"t": 56.0, "kind": "override"},
        {"t": 57.0, "kind": "confirm"},
    ]
    kept, overridden = views.challenges(events)
    assert kept["verdict"] == "ACCEPTABLE" and not kept["overridden"] and kept["unchecked"]
    assert overridden["verdict"] == "NOT ACCEPTABLE" and not overridden["overridden"]
    said = views.describe_event(words)
    assert said.startswith("challenged CAT: ACCEPTABLE") and views.NO_LEXICON in said
    checked = views.challenges(events[:2] + [{**words, "valid": False, "unchecked": None}])
    assert checked[0]["verdict"] == "NOT ACCEPTABLE" and checked[0]["unchecked"] == ""


def test_a_challenge_settled_with_the_button_is_one_challenge_and_a_paused_button_resumes():
    """The challenge button with the verdict shown settles it (as confirm does) and starts no
    second challenge; pressed while the clock is paused (a restart) it resumes, and the next
    press settles. Before, every settling press showed a challenge under way that never was."""
    words = {"kind": "words", "words": ["CAT"], "valid": True, "lexicon": "x"}
    events = [
        {"t": 30.0, "kind": "challenge_button"},
        {"t": 31.0, "kind": "press", "role": "red"},
        {**words, "t": 32.0},
        {"t": 33.0, "kind": "challenge_button"},  # settles
        {"t": 40.0, "kind": "challenge_button"},
        {"t": 41.0, "kind": "press", "role": "blue"},
        {**words, "t": 42.0, "valid": False},
        {"t": 43.0, "kind": "restart"},
        {"t": 44.0, "kind": "challenge_button"},  # resumes
        {"t": 45.0, "kind": "challenge_button"},  # settles
    ]
    first, second = views.challenges(events)
    assert (first["challenger"], first["verdict"]) == ("red", "ACCEPTABLE")
    assert (second["challenger"], second["verdict"]) == ("blue", "NOT ACCEPTABLE")


def test_a_crossword_challenge_says_its_challenger_and_an_override_before_the_words():
    """The crossword game: no press names the challenger (the player on move challenges: the
    one who did not press last), and ``override`` before the words rules NOT ACCEPTABLE at once
    (the arbiter's); Iago's tables refuse that override, so there it changes nothing."""
    events = [
        {"t": 0.0, "kind": "press", "role": "red"},
        {"t": 12.0, "kind": "press", "role": "blue"},  # red on move
        {"t": 20.0, "kind": "challenge_button"},
        {"t": 21.0, "kind": "override"},
        {"t": 22.0, "kind": "challenge_button"},
    ]
    (c,) = views.challenges(events, game="scrabble")
    assert (c["challenger"], c["verdict"], c["overridden"]) == ("red", "NOT ACCEPTABLE", True)
    (i,) = views.challenges(events[:4])
    assert (i["verdict"], i["overridden"]) == ("under way", False)


@settings(max_examples=200, deadline=None)
@given(
    words=st.one_of(
        st.none(), st.integers(), st.booleans(), st.floats(), st.text(), st.lists(st.integers())
    ),
    valid=st.one_of(st.none(), st.booleans(), st.integers(), st.text()),
    unchecked=st.one_of(st.none(), st.integers(), st.text(), st.lists(st.text())),
)
def test_any_words_record_makes_a_line_and_a_challenge(words, valid, unchecked):
    """Whatever a table's words record holds (words not a list: a number, true), the pages
    describe it and list its challenge, never breaking (before, words 5 raised TypeError)."""
    rec = {"t": 1.0, "kind": "words", "words": words, "valid": valid, "unchecked": unchecked}
    assert views.describe_event(rec).startswith("challenged")
    for game in ("iago", "scrabble"):
        (c,) = views.challenges([{"t": 0.0, "kind": "challenge_button"}, rec], game=game)
        assert isinstance(c["words"], list) and c["verdict"] in ("ACCEPTABLE", "NOT ACCEPTABLE")


def test_game_record_leaves_out_the_services_own_records():
    events = [
        {"t": 0.0, "kind": "_game"},
        {"t": 0.0, "kind": "press", "role": "red"},
        {"t": 61.0, "kind": "press", "role": "blue"},
    ]
    rec = views.game_record(events)
    assert [r["text"] for r in rec] == ["RED pressed", "BLUE pressed"]
    assert [r["clock"] for r in rec] == ["0:00", "1:01"]


def test_results_csv_has_one_line_per_game_after_corrections():
    results = [
        {
            "table": 4,
            "game": "g1",
            "round": 1,
            "record": {},
            "received": 5.0,
            "players": {"blue": "Ada", "red": "Bob"},
            "winner": "blue",
            "loser": "red",
            "draw": False,
            "void": False,
            "corrections": [{"who": "Jo", "reason": "clock fault", "change": {}}],
        }
    ]
    rows = list(csv.DictReader(io.StringIO(views.results_csv(results))))
    assert len(rows) == 1
    assert rows[0]["winner"] == "blue" and rows[0]["blue"] == "Ada"
    assert rows[0]["corrections"] == "Jo: clock fault" and rows[0]["corrected"] == "yes"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
state_keys = st.sampled_from(
    [
        "status",
        "mover",
        "minutes",
        "sand_left",
        "players",
        "scores",
        "fault",
        "faults",
        "challenge",
        "round",
        "game",
        "loser",
        "minute_seconds",
        "online",
        "restarted",
    ]
)


@settings(max_examples=80, deadline=None)
@given(
    state=st.dictionaries(state_keys, json_values, max_size=8) | json_values,
    setup=st.dictionaries(state_keys, json_values, max_size=4) | st.none(),
    last_seen=json_values,
)
def test_any_payload_makes_a_tile_and_never_breaks_the_page(state, setup, last_seen):
    web = _TILE_RENDERER
    html = web.tile_template.render(t=views.tile(row(state, setup, last_seen=last_seen), now=100.0))
    assert 'id="tile-5"' in html


class _Renderer:
    def __init__(self):
        from starlette.templating import Jinja2Templates

        from companion.tournament.web.app import HERE

        env = Jinja2Templates(directory=str(HERE / "templates")).env
        env.filters["clock"] = views._clock
        self.tile_template = env.get_template("_tile.html")


_TILE_RENDERER = _Renderer()


@settings(max_examples=60, deadline=None)
@given(
    moves=json_values,
    state=st.dictionaries(
        st.sampled_from(["moves", "scores", "time_left", "overtime_penalty", "board"]),
        json_values,
        max_size=4,
    ),
)
def test_any_crossword_state_makes_the_table_page(moves, state):
    """A crossword table's state whose ``moves`` is not a list (``true``, ``5``: a table
    may send anything) made the table page fail with a TypeError, and with it every live
    update of the poll that drew it (the hall's tiles of every other table changed then)."""
    from starlette.templating import Jinja2Templates

    from companion.tournament.web.app import HERE, table_context

    env = Jinja2Templates(directory=str(HERE / "templates")).env
    env.filters["clock"] = views._clock
    detail = env.get_template("_table.html")
    for value in (moves, True, 5, "P"):
        table = row({**state, "game": "scrabble", "moves": value}) | {"events": [], "results": []}
        html = detail.render(**table_context(table, 100.0))
        assert "<h1>Table 5</h1>" in html


def test_names_are_escaped_in_a_tile():
    html = _TILE_RENDERER.tile_template.render(
        t=views.tile(row(iago(players={"blue": "<script>x</script>", "red": "Bob"})))
    )
    assert "<script>x" not in html and "&lt;script&gt;" in html


class Form(dict):
    pass


def test_a_correction_form_reports_every_problem_at_once():
    results = [{"table": 2, "game": "g1"}]
    with pytest.raises(FormError) as exc:
        correction(Form(result="9:zz", change="nonsense", reason="", who=""), results)
    text = " | ".join(exc.value.problems)
    assert len(exc.value.problems) == 4
    assert "9:zz" in text and "nonsense" in text and "Reason: required" in text
    got = correction(Form(result="2:g1", change="winner-red", reason=" clock ", who="Jo"), results)
    assert got == {
        "table": 2,
        "game": "g1",
        "change": {"winner": "red"},
        "reason": "clock",
        "who": "Jo",
    }


def test_a_round_form_reports_every_bad_field_at_once():
    form = Form(
        round="0",
        method="robin",
        players="Ada",
        colours="lot",
        game="chess",
        minutes="abc",
        minute_seconds="60",
        lexicon="",
    )
    with pytest.raises(FormError) as exc:
        make_draft(None, form, "", "x.csv", [], {})
    text = " | ".join(exc.value.problems)
    assert "Round: 0 is out of range" in text and "'chess'" in text
    assert "Minutes (each player's allowance): 'abc' is not a whole number" in text
    assert "Players: 1 listed" in text


def test_a_round_robin_draft_seats_every_player():
    form = Form(
        round="1",
        method="robin",
        players="Ada\nBob\nCy\nDi",
        colours="fixed",
        game="iago",
        minutes="5",
        minute_seconds="60",
        lexicon="",
    )
    draft = make_draft(None, form, "", "x.csv", [], {})
    seated = sorted(n for s in draft["setups"].values() for n in (s["blue"], s["red"]))
    assert seated == ["Ada", "Bob", "Cy", "Di"] and len(draft["setups"]) == 2


def test_a_bad_csv_is_reported_with_its_line():
    form = Form(
        round="1",
        method="csv",
        players="",
        colours="lot",
        game="iago",
        minutes="5",
        minute_seconds="60",
        lexicon="",
    )
    with pytest.raises(FormError) as exc:
        make_draft(None, form, "1,Ada,Bob\nx,Cy,Di\n", "hall.csv", [], {})
    assert "hall.csv:2" in exc.value.problems[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0.0.0.0:8080", ("0.0.0.0", 8080)), (":80", ("0.0.0.0", 80)), ("[::1]:8080", ("::1", 8080))],
)
def test_parse_address(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["8080", "host:http", "host:0", "host:70000"])
def test_parse_address_refuses(text):
    with pytest.raises(WebError, match="accepted HOST:PORT"):
        parse_address(text)


def test_the_oled_qr_code_reads_back_as_the_tables_page():
    import cv2
    import numpy as np

    url = qr.table_url("http://10.42.0.1:8080/", 17)
    assert url == "http://10.42.0.1:8080/table/17"
    image = qr.qr_image(url, size=64)
    assert image.mode == "1" and image.width == image.height <= 64
    assert image.getpixel((0, 0)) == 255  # the quiet zone is lit: dark modules are unlit
    big = np.array(image.convert("L").resize((image.width * 6,) * 2, 0))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(
        cv2.copyMakeBorder(big, 24, 24, 24, 24, cv2.BORDER_CONSTANT, value=255)
    )
    assert text == url


def test_an_address_too_long_for_the_screen_is_refused():
    with pytest.raises(qr.QRError, match="64 pixels"):
        qr.qr_image("http://hall.example/" + "x" * 300, size=64)


def test_a_result_of_an_earlier_round_is_not_on_the_tile():
    res = {
        "round": 1,
        "players": {"blue": "Ada", "red": "Bob"},
        "winner": "blue",
        "loser": "red",
        "record": {},
        "corrections": [],
    }
    assert views.tile(row(iago(round=2), result=res))["result"] is None
    assert views.tile(row(iago(round=1, status="finished"), result=res))["result"]["text"] == (
        "Ada (blue) won"
    )


def test_the_links_state_names_the_game_by_mode_and_the_game_id_by_game():
    state = iago(game="4f2a9c", mode="iago", online=True, challenge_phase="who", status="challenge")
    t = views.tile(row(state))
    assert t["game"] == "iago" and t["words"] == ["CHALLENGE"]


def test_iota_and_wordinoes_tiles_show_scores_and_the_player_on_turn():
    iota = {
        "mode": "iota",
        "phase": "game",
        "players": {"blue": "Cy", "red": "Di"},
        "scores": {"Cy": 31, "Di": 12},
        "current": "Di",
    }
    t = views.tile(row(iota))
    assert t["mover"] == "red" and t["scores"] == [("Cy", 31), ("Di", 12)]
    assert t["status"] == "running"
    dom = {
        "mode": "wordinoes",
        "status": "playing",
        "players": {"blue": "Cy", "red": "Di"},
        "turn": "Cy",
        "hands": {"Cy": {"count": 4}, "Di": {"count": 6}},
    }
    t = views.tile(row(dom))
    assert t["mover"] == "blue" and t["scores"] == [("Cy", "4 tiles"), ("Di", "6 tiles")]


def test_a_setup_the_table_refused_is_said():
    t = views.tile(row(iago(status="ready", setup_problem="table.toml: minutes = 0")))
    assert "SET-UP NOT TAKEN: table.toml: minutes = 0" in t["words"] and "fault" in t["classes"]


form_text = st.one_of(
    st.sampled_from(
        [
            "",
            "1",
            "0",
            "2",
            "999",
            "1000",
            "-3",
            "abc",
            "5.5",
            "lot",
            "balanced",
            "fixed",
            "robin",
            "swiss",
            "csv",
            "iago",
            "iota",
            "scowl-70-both",
            "x y",
            "Ada\nBob",
        ]
    ),
    st.text(max_size=30),
)
round_forms = st.fixed_dictionaries(
    {},
    optional={k: form_text for k in ROUND_FIELDS},
)


@pytest.fixture(scope="module")
def empty_store(tmp_path_factory):
    from companion.tournament.store import Store

    s = Store(tmp_path_factory.mktemp("forms") / "event.sqlite", durable=False)
    yield s
    s.close()


@settings(max_examples=100, deadline=None)
@given(form=round_forms, csv_text=st.text(max_size=80))
def test_any_round_form_is_a_draft_or_a_clear_refusal(empty_store, form, csv_text):
    try:
        draft = make_draft(empty_store, Form(form), csv_text, "up.csv", [], {})
    except FormError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        return
    assert draft["setups"] and 1 <= draft["round"] <= 999
    assert empty_store.current_round() is None  # a draft is never published by itself


@settings(max_examples=100, deadline=None)
@given(
    form=st.fixed_dictionaries(
        {}, optional={k: form_text for k in ("result", "change", "reason", "who")}
    )
)
def test_any_correction_form_is_a_correction_or_a_clear_refusal(form):
    try:
        got = correction(Form(form), [{"table": 1, "game": "g"}])
    except FormError as exc:
        assert exc.problems
        return
    assert got["table"] == 1 and got["reason"] and got["who"]
