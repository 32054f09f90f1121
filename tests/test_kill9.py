"""kill -9 of the table service (real processes, mock pins, the real clock), a handful of times:
no journal record reported written is lost, and the journal never proves the service alive
earlier than a change of the allowances it showed (the minute would come back). The benchmark
(bench/bench_kill9.py) does 1,000."""

from bench.bench_kill9 import kill_runs


def test_kill_9_loses_no_event_and_never_turns_a_minute_back():
    st = kill_runs(6, seed=3, window=(0.0, 0.8))
    assert st["kills"] == 6 and st["events"] > 6  # records were written in between
    assert (st["lost"], st["turned_back"], st["damaged"], st["crashed"]) == (0, 0, 0, 0)
