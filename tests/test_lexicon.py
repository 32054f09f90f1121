"""The lexicon: SCOWL lists folded and filtered, compiled once, opened by name."""

import pytest

from companion.lexicon import DEFAULT_NAME, open_lexicon


@pytest.fixture(scope="session")
def default_lexicon():
    """The default list (scowl-70-both), built once for the whole session."""
    return open_lexicon()


def test_default_lexicon_is_scowl_70_both(default_lexicon):
    assert default_lexicon.name == DEFAULT_NAME == "scowl-70-both"
    assert "love" in default_lexicon and "LOVE" in default_lexicon and "Love" in default_lexicon
    assert "xqzt" not in default_lexicon
