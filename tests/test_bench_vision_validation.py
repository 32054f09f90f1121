"""The validation bench (issue 45) refuses a set name that is no set, saying which sets there
are, before it reads anything."""

import pytest

from bench import bench_vision_validation


def test_an_unknown_set_is_refused_with_the_sets_there_are(monkeypatch):
    monkeypatch.setenv("BENCH_VALIDATION_SETS", "real,iago2")
    with pytest.raises(SystemExit) as exc:
        bench_vision_validation.main()
    said = str(exc.value)
    assert "'iago2'" in said and "'real'" not in said
    assert all(name in said for name in bench_vision_validation.SETS)
