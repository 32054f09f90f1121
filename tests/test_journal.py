"""The journal: append-before-effect records, torn last record dropped, damage reported."""

import json

import pytest

from companion.daemon.journal import Journal, JournalError, read_records


def test_append_then_reopen_gives_the_records_back(tmp_path):
    path = tmp_path / "j.jsonl"
    with Journal.open(path) as j:
        j.append({"t": 0.0, "kind": "press", "role": "red"})
        j.append({"t": 1.5, "kind": "press", "role": "blue"})
    again = Journal.open(path)
    assert [r["seq"] for r in again.records] == [1, 2]
    assert again.records[1] == {"seq": 2, "t": 1.5, "kind": "press", "role": "blue"}
    assert not again.dropped_torn
    again.close()


def test_each_record_is_on_disk_when_append_returns(tmp_path):
    path = tmp_path / "j.jsonl"
    j = Journal.open(path)
    j.append({"t": 3.0, "kind": "x"})
    lines = path.read_text().splitlines()  # read by another reader, file still open
    assert json.loads(lines[-1])["t"] == 3.0
    j.close()


@pytest.mark.parametrize("tail", [b'{"seq":3,"t":4.0,"ki', b'{"seq":3,"t":4.0}', b"\x00\x00"])
def test_torn_last_record_is_dropped_and_truncated(tmp_path, tail):
    path = tmp_path / "j.jsonl"
    with Journal.open(path) as j:
        j.append({"t": 1.0, "kind": "a"})
        j.append({"t": 2.0, "kind": "b"})
    good = path.read_bytes()
    path.write_bytes(good + tail)
    again = Journal.open(path)
    assert [r["kind"] for r in again.records] == ["a", "b"]
    assert again.dropped_torn
    assert path.read_bytes() == good
    again.append({"t": 3.0, "kind": "c"})  # appends after the good prefix
    again.close()
    assert [r["kind"] for r in read_records(path)[0]] == ["a", "b", "c"]


def test_garbage_last_line_with_newline_is_torn_too(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq":1,"t":0}\n{"seq":2,"t\n')
    records, good, torn = read_records(path)
    assert [r["seq"] for r in records] == [1] and torn and good == len(b'{"seq":1,"t":0}\n')


def test_damage_before_the_last_record_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq":1}\nnot json\n{"seq":3}\n')
    with pytest.raises(JournalError, match=r"j.jsonl:2: damaged journal record"):
        Journal.open(path)


@pytest.mark.parametrize(
    "line", [b"[" * 100_000 + b"]" * 100_000, b'{"seq":2,"t":' + b"9" * 5000 + b"}"]
)
def test_a_record_nested_past_the_stack_or_with_a_huge_number_is_damage_not_a_crash(tmp_path, line):
    """A journal line nested 100,000 deep (or with a 5,000-digit number) is named as damage at
    its line, like any other bad line, not a RecursionError (or ValueError) from the parser."""
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq":1,"t":0}\n' + line + b'\n{"seq":3,"t":1}\n')
    with pytest.raises(JournalError, match=r"j.jsonl:2: damaged journal record"):
        Journal.open(path)


def test_unserialisable_record_is_refused_and_nothing_written(tmp_path):
    path = tmp_path / "j.jsonl"
    j = Journal.open(path)
    with pytest.raises(JournalError, match="is not JSON"):
        j.append({"t": float("nan")})
    j.close()
    assert path.read_bytes() == b""
