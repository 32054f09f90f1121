"""Mistakes on the command line: a mistyped option is reported by its own sub-command, with that
sub-command's usage and the option meant (issue 16); ``table setup`` takes two players."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import main


@pytest.mark.parametrize(
    ("argv", "usage", "meant"),
    [
        (["judge", "--lexicn", "scowl-70-both", "CAT"], "usage: companion judge", "--lexicon"),
        (["judge", "--lexicn"], "usage: companion judge", "--lexicon"),  # a word is missing too
        (["table", "setup", "--numbr", "3"], "usage: companion table setup", "--number"),
        (
            ["iota", "score", "RT1", "RT1 GT1", "--lastcard"],
            "usage: companion iota score",
            "--last-card",
        ),
        (["iota", "score", "--lastcard"], "usage: companion iota score", "--last-card"),
        (["lexicon", "build", "--forse"], "usage: companion lexicon build", "--force"),
    ],
)
def test_a_mistyped_option_gets_the_subcommands_usage_and_the_option_meant(
    capsys, argv, usage, meant
):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert f"did you mean {meant}?" in err
    assert "usage: companion [-h]" not in err


def test_an_option_far_from_every_other_gets_no_guess(capsys):
    with pytest.raises(SystemExit):
        main(["judge", "CAT", "--zzzzzzzz"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: --zzzzzzzz" in err
    assert "did you mean" not in err


@pytest.mark.parametrize("names", [["Ada", "Bob", "Cy"], ["Ada"]])
def test_table_setup_says_iago_takes_two_players(capsys, monkeypatch, tmp_path, names):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    assert main(["table", "setup", "--players", *names]) == 2
    err = capsys.readouterr().err
    assert "Iago takes two players" in err
    assert f"not {len(names)}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "table.toml").exists()


def test_table_setup_takes_two_players_before_other_options(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    assert main(["table", "setup", "--players", "Ada", "Bob", "--number", "4"]) == 0
    assert '"blue": "Ada"' in capsys.readouterr().out


def test_ctrl_c_while_the_commands_load_is_a_quiet_exit_130(monkeypatch, capsys):
    """The sub-commands' modules load while the parser is built (seconds on a Pi): a Ctrl-C then
    ends the command with status 130 and no traceback, as it does later."""
    from companion import cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["judge", "CAT"]) == 130
    assert "Traceback" not in capsys.readouterr().err


# --- a mistyped sub-command, at every level, gets the one meant (issue 12a) ---------------------


def _subcommand_paths():
    """Every (path of sub-commands before, sub-command) of the companion command, all levels."""
    import argparse

    from companion.cli import build_parser

    found = []

    def walk(parser, before):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found.append((before, name))
                    walk(child, [*before, name])

    walk(build_parser(), [])
    return found


SUBCOMMANDS = _subcommand_paths()


def _typo(name: str) -> str:
    """``name`` with two letters in the middle swapped (jugde for judge), or doubled if short."""
    i = len(name) // 2
    if len(name) < 4 or name[i - 1] == name[i]:
        return name + name[-1]
    return name[: i - 1] + name[i] + name[i - 1] + name[i + 1 :]


def test_the_walk_finds_every_level():
    assert ([], "judge") in SUBCOMMANDS and (["vision"], "read") in SUBCOMMANDS
    assert (["lexicon"], "import") in SUBCOMMANDS and len(SUBCOMMANDS) > 40


@pytest.mark.parametrize(("before", "name"), SUBCOMMANDS, ids=lambda v: " ".join(v) or "-")
def test_a_mistyped_subcommand_gets_the_one_meant_at_every_level(capsys, before, name):
    typo = _typo(name)
    with pytest.raises(SystemExit) as exc:
        main([*before, typo])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: {' '.join(['companion', *before])} ")
    assert f"invalid choice: {typo!r} (did you mean {name}?); choose from " in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["jugde"], "invalid choice: 'jugde' (did you mean judge?)"),
        (["vision", "raed"], "invalid choice: 'raed' (did you mean read?)"),
        (["JUDGE"], "(did you mean judge?)"),
        (["sim", "--render", "halff"], "invalid choice: 'halff' (did you mean half?)"),
    ],
)
def test_the_newcomers_typos(capsys, argv, said):
    with pytest.raises(SystemExit):
        main(argv)
    assert said in capsys.readouterr().err


def test_a_subcommand_far_from_every_other_gets_no_guess(capsys):
    with pytest.raises(SystemExit):
        main(["zzzzzz"])
    err = capsys.readouterr().err
    assert "invalid choice: 'zzzzzz'; choose from clock, " in err and "did you mean" not in err


@given(st.sampled_from([n for _, n in SUBCOMMANDS]), st.data())
def test_one_letter_changed_never_suggests_a_farther_name(name, data):
    """Invariant of nearest_choice: the suggestion for a one-letter edit of a sub-command is a
    name at least as close to the typo as the one meant (usually the one meant)."""
    import difflib

    from companion.cliutil import nearest_choice

    i = data.draw(st.integers(0, len(name) - 1))
    letter = data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    typo = name[:i] + letter + name[i + 1 :]
    names = sorted({n for _, n in SUBCOMMANDS})
    near = nearest_choice(typo, names)
    ratio = difflib.SequenceMatcher(None, typo, name).ratio()
    if ratio >= 0.6:
        assert near is not None
        assert difflib.SequenceMatcher(None, typo, near).ratio() >= ratio
