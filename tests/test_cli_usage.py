"""Mistakes on the command line: a mistyped option is reported by its own sub-command, with that
sub-command's usage and the option meant (issue 16); ``table setup`` takes two players."""

import pytest

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
