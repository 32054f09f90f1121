"""Bad input never crashes: every parser answers any input with a result or its own clear error.

Two kinds of test: hypothesis feeds each parser of bench/fuzz_targets.py (board and grid
notation, clock and sim scripts, table.toml, pinmap.toml with [head], word lists, game records,
the timer head's serial frames, command arguments) a few hundred mutated inputs and fails on any
exception that is not a :class:`CompanionError`; and each crash the issue names is staged
through the command line, which must exit 2 with a message naming the input, what is wrong and
what is accepted, never a traceback.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz_targets import TARGETS, crc_valid_garbage, head_seeds, mutate, traceback_of
from companion.cli import main
from companion.devices.head.wire import proto
from companion.errors import CompanionError
from companion.textformats import MAX_DEPTH, TomlError, is_number, loads_json, loads_toml, shown

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TEXT_TARGETS = [t for t in TARGETS if not t.binary]


def _no_traceback(t, value) -> None:
    exc = traceback_of(t, value)
    if exc is not None:
        raise AssertionError(f"{t.name}: {type(exc).__name__}: {exc} on {value!r:.300}") from exc


@pytest.mark.parametrize("t", TEXT_TARGETS, ids=lambda t: t.name)
@FUZZ
@given(data=st.data())
def test_every_parser_answers_mutated_input_without_a_traceback(t, data):
    seed = data.draw(st.sampled_from(t.seeds))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    _no_traceback(t, mutate(seed, rng))


@pytest.mark.parametrize("t", TEXT_TARGETS, ids=lambda t: t.name)
@settings(FUZZ, max_examples=50)
@given(text=st.text(max_size=300))
def test_every_parser_answers_any_text_without_a_traceback(t, text):
    _no_traceback(t, text)


@pytest.mark.parametrize("t", TARGETS, ids=lambda t: t.name)
def test_the_known_crashes_answer_without_a_traceback(t):
    for value in t.known + (head_seeds() if t.binary else ()):
        _no_traceback(t, value)


def test_the_seeds_are_valid_input():
    """The fuzzing starts from input each parser takes (else it would only fuzz the first check)."""
    from bench.fuzz_targets import target

    names = ("iago board notation", "iota grid notation", "clock script", "sim script")
    names += ("table.toml", "pinmap.toml", "word list", "iago record", "vision --corners")
    names += ("vision --known",)
    names += ("judge words", "wordinoes match words", "wordinoes setup line", "wordinoes script")
    for name in names:
        for seed in target(name).seeds:
            target(name).run(seed)


# --- the timer head's frames ------------------------------------------------------------------

HEAD = next(t for t in TARGETS if t.binary)


@FUZZ
@given(data=st.binary(max_size=400))
def test_the_head_and_host_take_any_bytes(data):
    _no_traceback(HEAD, data)


@FUZZ
@given(seed=st.integers(0, 2**32), n=st.integers(1, 6))
def test_crc_valid_garbage_frames_never_break_the_head_or_host(seed, n):
    rng = random.Random(seed)
    _no_traceback(HEAD, b"".join(crc_valid_garbage(rng) for _ in range(n)))


@FUZZ
@given(noise=st.binary(max_size=120))
def test_after_any_noise_the_parser_finds_the_next_valid_frame(noise):
    """Resynchronisation of the frame parser: whatever bytes come before it, a whole valid frame
    is delivered, once the parser has given up the incomplete frames it holds (as the link does
    when no byte has come for FRAME_TIMEOUT_MS)."""
    frame = proto.encode_frame(5, 0, proto.T_LED, proto.pack(proto.T_LED, 1, 1))
    parser = proto.FrameParser()
    got = parser.feed(noise + frame)
    while parser.buf:
        got += parser.skip()
    # a CRC-valid frame made of noise and the frame's first bytes is possible (1 in 65536)
    assert (5, 0, proto.T_LED, b"\x01\x01") in got


# --- the readers every parser uses ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["[" * 600 + "]" * 600, '{"a":' * 100 + "1" + "}" * 100, "[" * 100_000],
    ids=["600 arrays", "100 objects", "100000 arrays"],
)
def test_json_nested_too_deep_is_a_json_error(text):
    with pytest.raises(json.JSONDecodeError, match=f"nested more than {MAX_DEPTH} deep"):
        loads_json(text)


def test_json_of_thousands_of_digits_is_a_json_error():
    with pytest.raises(json.JSONDecodeError, match="more than 4000 digits"):
        loads_json('{"t": ' + "9" * 5000 + "}")


def test_json_brackets_inside_strings_are_not_nesting():
    assert loads_json(json.dumps(["[" * 500, {"x": "{" * 500}])) == ["[" * 500, {"x": "{" * 500}]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("x = " + "[" * 500 + "]" * 500, "nested more than 64 deep \\(at line 1, column 69\\)"),
        ("a = 1\nx = " + "9" * 5000, "more than 4000 digits \\(at line 2, column 5\\)"),
        ("x = {y = " * 300 + "1" + "}" * 300, "at line 1"),
        ("[table\n", "at line 1"),
    ],
)
def test_toml_errors_say_where(text, match):
    with pytest.raises(TomlError, match=match):
        loads_toml(text)


def test_toml_brackets_in_strings_and_comments_are_not_nesting():
    text = "a = '" + "[" * 100 + "'\n# " + "[" * 100 + '\nb = "' + "{" * 100 + '"\n'
    assert loads_toml(text) == {"a": "[" * 100, "b": "{" * 100}


def test_a_number_too_large_for_a_float_is_no_number():
    assert not is_number(10**400)
    assert not is_number(float("inf")) and not is_number(float("nan")) and not is_number(True)
    assert is_number(12.5, 0.0) and not is_number(-1, 0.0)


def test_shown_cuts_any_value():
    assert shown("a" * 5000) == "'" + "a" * 56 + "... (5000 characters)"
    assert shown(10**5000) == "a number of about 5001 digits"
    assert shown([1, 2]) == "[1, 2]"


# --- the crashes the issue names, through the command line ----------------------------------


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


@pytest.mark.parametrize("digit", ["²", "①", "٣"])
def test_unicode_digits_in_board_notation_are_refused(digit, capsys):
    board = "11/11/11/11/11/11/11/11/11/11/1" + digit
    code, _, err = _run(["iago", "check", "11/11/11/11/11/11/11/11/11/11/11", board], capsys)
    assert code == 2
    assert f"row 11, column 2: {digit!r} is not a letter" in err
    assert "digits 0-9" in err


def test_thousands_of_digits_in_board_notation_are_refused(capsys):
    code, _, err = _run(["iago", "check", "9" * 5000 + "/11" * 10, "11/" * 10 + "11"], capsys)
    assert code == 2 and "row 1, column 1" in err and "run past the 11 columns" in err
    assert len(err) < 2000  # the 5000 digits are not echoed


def test_a_number_too_large_for_a_float_in_a_clock_script(tmp_path, capsys):
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 0, "press": "red"}\n{"t": 1' + "0" * 400 + ', "press": "blue"}\n')
    code, _, err = _run(["clock", "replay", str(script)], capsys)
    assert code == 2
    assert f"{script}:2:" in err and "accepted: a number of seconds, 0 or more" in err


def test_thousands_of_digits_in_a_clock_script(tmp_path, capsys):
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": ' + "1" * 5000 + ', "press": "blue"}\n')
    code, _, err = _run(["clock", "replay", str(script)], capsys)
    assert code == 2 and f"{script}:1: not JSON (a number of more than 4000 digits" in err


def test_clock_replay_at_infinity_is_refused(tmp_path, capsys):
    script = tmp_path / "s.jsonl"
    script.write_text('{"t": 0, "press": "red"}\n')
    code, _, err = _run(["clock", "replay", str(script), "--at", "inf"], capsys)
    assert code == 2 and "--at inf" in err and "finite" in err


@pytest.mark.parametrize("time", ["٣", "1_0", "1e3", "99999999"])
def test_sim_script_times_are_ascii_numbers_of_reasonable_size(time):
    from companion.daemon.sim import SimScriptError, parse_sim_script

    with pytest.raises(SimScriptError, match=r"s:1: .* is not a time; accepted: seconds"):
        parse_sim_script([f"{time} press red"], "s")


def test_500_nested_arrays_in_table_toml(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    (tmp_path / "table.toml").write_text("[table]\nnumber = " + "[" * 500 + "]" * 500 + "\n")
    code, _, err = _run(["table", "show"], capsys)
    assert code == 2
    assert "table.toml: not valid TOML: nested more than 64 deep (at line 2, column" in err


def test_thousands_of_digits_in_table_toml(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    (tmp_path / "table.toml").write_text("[table]\nnumber = " + "7" * 5000 + "\n")
    code, _, err = _run(["table", "show"], capsys)
    assert code == 2 and "more than 4000 digits (at line 2, column 10)" in err


def test_500_nested_arrays_in_the_pin_map(tmp_path, capsys):
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text("[buzzer]\npin = " + "[" * 500 + "]" * 500 + "\n")
    code, _, err = _run(["wiring", "--check", "--pinmap", str(pinmap)], capsys)
    assert code == 2 and f"{pinmap}: not valid TOML: nested more than 64 deep" in err


@pytest.mark.parametrize("value", ["[]", "{}", '"GP8"', "8.0", "true", "[[1, 2]]"])
def test_a_head_pin_that_is_not_a_number(value, tmp_path, capsys):
    from bench.fuzz_targets import PINMAP

    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text(PINMAP.replace("buzzer = 8\n", f"buzzer = {value}\n"))
    assert f"buzzer = {value}\n" in pinmap.read_text()
    code, _, err = _run(["head", "config", "--pinmap", str(pinmap), "-o", "-"], capsys)
    assert code == 2
    assert "[head] buzzer = " in err and "accepted a Pico GP number 0 to 22 or 26 to 28" in err


def test_an_iota_grid_longer_than_a_file_name(capsys):
    """A grid written as one word (no space) is first looked for as a file; one longer than a
    file name may be (255 bytes) is read as notation, not an OSError."""
    before = "RT1/" + "/".join(["."] * 200)
    after = "RT1/GT1/" + "/".join(["."] * 199)
    code, out, _ = _run(["iota", "score", before, after], capsys)
    assert code == 0 and json.loads(out)["score"] == 2  # red and green triangle 1: 1 + 1
    code, _, err = _run(["iota", "score", "X" * 5000, "RT1"], capsys)
    assert code == 2 and "BEFORE 'XXX" in err and "is not an Iota grid" in err


def test_a_word_list_line_of_only_a_combining_accent_is_rejected(tmp_path):
    from companion.lexicon.store import LexiconError, import_list, open_lexicon

    words = tmp_path / "accents.txt"
    words.write_text("cat\n\u0301\ndog\n\u0301\u0302\n", encoding="utf-8")
    report = import_list(words, "accents-test")
    assert report.taken == 2
    assert [(r.line, r.reason[:17]) for r in report.rejected] == [
        (2, "it holds no lette"),
        (4, "it holds no lette"),
    ]
    lex = open_lexicon("accents-test")
    assert len(lex) == 2 and "CAT" in lex and "ZZZ" not in lex
    only = tmp_path / "only.txt"
    only.write_text("\u0301\n", encoding="utf-8")
    with pytest.raises(LexiconError, match="no word to take, nothing imported"):
        import_list(only, "only-accents")
    with pytest.raises(CompanionError):
        open_lexicon("only-accents")


def test_judge_refuses_a_word_of_only_accents(capsys):
    code, _, err = _run(["judge", "\u0301"], capsys)
    assert code == 2 and "holds no letter" in err


def test_wordinoes_match_refuses_a_word_of_only_accents(capsys):
    code, _, err = _run(["wordinoes", "match", "\u0301", "SUN"], capsys)
    assert code == 2 and "LEFT" in err and "holds no letter" in err


@pytest.mark.parametrize("corners", ["٣,1,2,3,4,5,6,7", "nan,1,2,3,4,5,6,7", "1e999,1,2,3,4,5,6,7"])
def test_vision_corners_are_ascii_finite_numbers(corners):
    from companion.vision.cli import parse_corners
    from companion.vision.errors import VisionError

    with pytest.raises(VisionError, match="expected 8 numbers"):
        parse_corners(corners)


def test_iota_play_far_off_the_table_is_refused():
    from companion.games.iota.cards import IotaNotationError
    from companion.games.iota.scorekeeper import parse_placements

    with pytest.raises(IotaNotationError, match="rows and columns are numbers from -99 to 99"):
        parse_placements("RT1@" + "9" * 5000 + ",0")
    assert parse_placements("RT1@-99,99")


def test_lexicon_names_with_unicode_digits_are_no_scowl_names():
    from companion.lexicon import scowl

    assert scowl.parse_name("scowl-²0") is None and scowl.parse_name("scowl-" + "7" * 5000) is None
    assert scowl.parse_name("scowl-70") is not None


# --- the tournament's messages and files ------------------------------------------------------


def test_a_table_message_nested_too_deep_is_refused_not_raised():
    from companion.tournament.protocol import ProtocolError, decode

    raw = b'{"game": "g", "seq": 1, "record": ' + b"[" * 1000 + b"}"
    with pytest.raises(ProtocolError, match="not JSON .*nested more than 64 deep"):
        decode("events", 3, raw, "companion/open/tables/3/events")


def test_a_state_time_too_large_for_a_float_is_refused():
    from companion.tournament.protocol import ProtocolError, decode

    with pytest.raises(ProtocolError, match=r"number 1000+\.\.\. \(401 digits\) is out of range"):
        decode("state", 3, b'{"t": 1' + b"0" * 400 + b"}", "companion/open/tables/3/state")


@pytest.mark.parametrize("number", ["²", "٣", "0", "1000", "01", "9" * 5000])
def test_a_topic_table_number_is_1_to_999_in_ascii_digits(number):
    from companion.tournament.protocol import ProtocolError, parse_topic

    with pytest.raises(ProtocolError, match="accepted 1 to 999"):
        parse_topic("companion/open/", f"companion/open/tables/{number}/state")
    assert parse_topic("companion/open/", "companion/open/tables/999/state") == (999, "state")


@pytest.mark.parametrize("event", ["spring\n", "../x", "a/b", "x" * 33, ""])
def test_an_event_name_that_would_leave_the_directors_folder_is_refused(event):
    from companion.tournament.protocol import ProtocolError, check_event

    with pytest.raises(ProtocolError, match="event name"):
        check_event(event)


def test_pairings_csv_the_csv_module_refuses():
    from companion.tournament.pairing import PairingError, from_csv

    with pytest.raises(PairingError, match="pairings.csv: not CSV .*field larger than field"):
        from_csv("1,Ann," + "B" * 200_000, "pairings.csv")
    with pytest.raises(PairingError, match="pairings.csv:1: player name 'B.*printable characters"):
        from_csv("1,Ann,B\x00b", "pairings.csv")


def test_iago_replay_of_a_file_whose_first_line_is_thousands_of_digits(tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text("9" * 5000 + "\n{}\n")
    code, _, err = _run(["iago", "replay", str(path)], capsys)
    assert code == 2 and f"{path}: not JSON" in err
