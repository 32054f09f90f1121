"""Shared fixtures.

The whole test session gets its own data and configuration directories (never the user's), shared
by all tests so that a lexicon index is built once per session. A test that needs empty folders of
its own sets ``COMPANION_DATA_DIR`` / ``COMPANION_CONFIG_DIR`` with ``monkeypatch``.
"""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_dirs(tmp_path_factory):
    saved = {k: os.environ.get(k) for k in ("COMPANION_DATA_DIR", "COMPANION_CONFIG_DIR")}
    os.environ["COMPANION_DATA_DIR"] = str(tmp_path_factory.mktemp("data"))
    os.environ["COMPANION_CONFIG_DIR"] = str(tmp_path_factory.mktemp("config"))
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
