"""Shared fixtures.

The whole test session gets its own data and configuration directories (never the user's), shared
by all tests so that a lexicon index is built once per session. A test that needs empty folders of
its own sets ``COMPANION_DATA_DIR`` / ``COMPANION_CONFIG_DIR`` with ``monkeypatch``.
"""

import os
import threading

import pytest
from hypothesis import settings

# Every property test runs the same examples on every machine (derandomized: a failure in CI is
# one a contributor reproduces), with no per-example deadline: a loaded CI machine is slower
# than a laptop, and speed is measured by bench/, never by a test.
settings.register_profile("companion", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("companion")


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


@pytest.fixture(autouse=True)
def _stop_gpiozero_threads():
    """Stop the gpiozero threads a test left running (an LED's blink, the buzzer's beeps, a
    Button's hold thread): tests that drop a table without closing its devices leave them
    waking until the session ends. While the buttons were gpiozero Buttons that was some 300
    threads, which slowed the whole suite; the box's own buttons have no thread now."""
    from gpiozero import threads

    before = set(threads._THREADS)
    yield
    left = [t for t in threads._THREADS.copy() if t not in before]
    for thread in left:
        thread.stopping.set()
    for thread in left:
        threading.Thread.join(thread, 2.0)  # gpiozero's own join raises if it outlives this
        threads._THREADS.discard(thread)
