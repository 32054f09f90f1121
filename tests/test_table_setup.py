"""companion table setup: table.toml under [table], every bad key reported at once."""

import json
import random
import tomllib

import pytest

from companion.cli import main
from companion.daemon.config import (
    TableConfig,
    TableConfigError,
    draw_colours,
    dump_table,
    load_table,
    validate,
)
from companion.names import player_name


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path))
    return tmp_path


def test_setup_writes_table_section(cfg, capsys):
    code = main(
        [
            "table",
            "setup",
            "--number",
            "7",
            "--players",
            "Ada",
            "Bob",
            "--minutes",
            "3",
            "--minute-seconds",
            "30",
            "--lexicon",
            "scowl-80-both",
        ]
    )
    assert code == 0
    table = tomllib.loads((cfg / "table.toml").read_text())["table"]
    assert table["number"] == 7 and table["blue"] == "Ada" and table["red"] == "Bob"
    assert table["minutes"] == 3 and table["minute_seconds"] == 30.0
    assert table["lexicon"] == "scowl-80-both" and table["drawn_by_lot"] is False
    out = json.loads(capsys.readouterr().out)
    assert out["table"]["number"] == 7
    # a later setup keeps what it does not change
    assert main(["table", "setup", "--number", "8"]) == 0
    assert load_table().blue == "Ada" and load_table().number == 8


def test_every_bad_key_in_one_error(cfg, capsys):
    code = main(
        [
            "table",
            "setup",
            "--number",
            "0",
            "--minutes",
            "100",
            "--minute-seconds",
            "0.5",
            "--lexicon",
            "bad name!",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    for piece in (  # each named as typed (issue 12a), not as a key of table.toml
        "--number 0: accepted a whole number from 1 to 999",
        "--minutes 100: accepted a whole number from 1 to 99",
        "--minute-seconds 0.5: accepted a number from 1 to 600",
        "--lexicon 'bad name!': accepted a lexicon name",
    ):
        assert piece in err
    assert not (cfg / "table.toml").exists()


def test_bad_file_lists_unknown_and_bad_keys(cfg):
    (cfg / "table.toml").write_text('[table]\nminutes = "five"\ncolour = "x"\nblue = ""\n')
    with pytest.raises(TableConfigError) as exc:
        load_table()
    text = str(exc.value)
    assert "minutes = 'five'" in text and "colour: unknown key" in text and "blue = ''" in text


def test_same_name_twice_is_refused():
    with pytest.raises(TableConfigError, match="both 'Ada'"):
        validate({"blue": "Ada", "red": "ada"})


def test_a_players_name_is_kept_composed_and_both_forms_are_one_name():
    composed, decomposed = "Jos\u00e9", "Jose\u0301"
    assert validate({"blue": decomposed, "red": "Bob"}).blue == composed
    with pytest.raises(TableConfigError, match=f"both '{composed}'"):
        validate({"blue": composed, "red": decomposed})
    # one player by the director's standings (names.name_key), so one here too
    for blue, red in (("Παΐσιος", "ΠΑΐΣΙΟΣ".upper()), ("Ada Lovelace", "Ada  Lovelace")):
        with pytest.raises(TableConfigError, match="blue and red are both") as err:
            validate({"blue": blue, "red": red})
        shown = player_name(red)  # as stored: composed
        assert f"red {shown!r}: one name, case and spaces aside" in str(err.value)  # both named


def test_dump_and_load_round_trip(cfg):
    config = TableConfig(number=12, blue='Zoë "Z"', red="Bob", minutes=4, minute_seconds=45.0)
    (cfg / "table.toml").write_text(dump_table(config))
    assert load_table() == config


def test_lot_draws_both_orders():
    seen = {draw_colours("Ada", "Bob", random.Random(seed)) for seed in range(20)}
    assert seen == {("Ada", "Bob"), ("Bob", "Ada")}


def test_absent_file_gives_the_rulebook_defaults(cfg):
    t = load_table()
    assert (t.minutes, t.minute_seconds, t.game) == (5, 60.0, "iago")


def test_setup_by_lot_draws_the_colours_of_the_two_players(cfg, capsys):
    assert main(["table", "setup", "--players", "Ada", "Bob", "--lot"]) == 0
    table = load_table()
    assert table.drawn_by_lot is True
    assert {table.blue, table.red} == {"Ada", "Bob"}
    capsys.readouterr()
    # colours given by hand afterwards replace the lot's, and it is said (it was dropped unsaid)
    assert main(["table", "setup", "--players", "Cy", "Dee"]) == 0
    assert load_table().drawn_by_lot is False
    err = capsys.readouterr().err
    assert "no longer drawn by lot" in err and "Cy blue, Dee red" in err
    assert main(["table", "setup", "--players", "Cy", "Eve"]) == 0  # no lot to lose: nothing said
    assert "lot" not in capsys.readouterr().err


def test_unknown_game_and_lexicon_reported_with_every_other_bad_key(cfg, capsys):
    code = main(
        ["table", "setup", "--number", "0", "--minutes", "-3", "--lexicon", "nosuch"]
        + ["--game", "chess"]
    )
    assert code == 2
    err = capsys.readouterr().err
    for piece in ("--number 0", "--minutes -3", "--lexicon nosuch", "--game chess"):
        assert piece in err
    assert "[table]" not in err  # nothing of the file is to blame
    # what is accepted: the registered modes, the SCOWL names, the imported lists
    assert "iago, iota, scrabble, wordinoes" in err and "scowl-SIZE" in err and "imported" in err
    assert not (cfg / "table.toml").exists()


def test_a_file_naming_an_unknown_game_or_lexicon_is_refused_on_load(cfg):
    (cfg / "table.toml").write_text('[table]\ngame = "chess"\nlexicon = "nosuch"\n')
    with pytest.raises(TableConfigError) as exc:
        load_table()
    assert "game = 'chess'" in str(exc.value) and "lexicon = 'nosuch'" in str(exc.value)
    # a journal's header is read without the name check (the game in progress survives)
    assert validate({"lexicon": "nosuch"}, check_names=False).lexicon == "nosuch"


def test_setup_fixes_a_bad_lexicon_in_the_file(cfg, capsys):
    (cfg / "table.toml").write_text('[table]\nnumber = 5\nlexicon = "gone"\n')
    assert main(["table", "setup", "--number", "6"]) == 2
    assert "lexicon = 'gone'" in capsys.readouterr().err
    assert main(["table", "setup", "--lexicon", ""]) == 0
    assert load_table().number == 5 and load_table().lexicon == ""


def test_scowl_short_name_is_stored_in_full_and_an_imported_list_is_accepted(
    cfg, tmp_path, monkeypatch, capsys
):
    from companion.lexicon.store import import_list

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    assert main(["table", "setup", "--lexicon", "scowl-80"]) == 0
    assert load_table().lexicon == "scowl-80-both"
    assert main(["table", "setup", "--lexicon", "club"]) == 2
    assert "(none imported yet)" in capsys.readouterr().err
    words = tmp_path / "club.txt"
    words.write_text("cat\nqi\n")
    import_list(words, "club")
    assert main(["table", "setup", "--lexicon", "club"]) == 0
    assert load_table().lexicon == "club"
    assert main(["table", "setup", "--lexicon", "other"]) == 2
    assert "imported list (companion lexicon list): club" in capsys.readouterr().err


def test_setup_keeps_the_other_sections_of_the_file(cfg):
    (cfg / "table.toml").write_text(
        "# my box\n[table]\nnumber = 3  # old\n\n[wordinoes]\ntarget = 7 # kept\n"
        '[[players]]\nname = "Ada"\n'
    )
    assert main(["table", "setup", "--number", "4", "--minutes", "3"]) == 0
    text = (cfg / "table.toml").read_text()
    data = tomllib.loads(text)
    assert data["wordinoes"] == {"target": 7} and data["players"] == [{"name": "Ada"}]
    assert data["table"]["number"] == 4 and data["table"]["minutes"] == 3
    assert text.startswith("# my box\n") and "target = 7 # kept" in text
    # a file without [table] gets one added
    (cfg / "table.toml").write_text("[wordinoes]\ntarget = 7\n")
    assert main(["table", "setup", "--number", "9"]) == 0
    data = tomllib.loads((cfg / "table.toml").read_text())
    assert data["wordinoes"] == {"target": 7} and data["table"]["number"] == 9


def test_bad_values_are_shown_as_toml_writes_them(cfg):
    (cfg / "table.toml").write_text('[table]\nnumber = true\nminutes = [1]\ndrawn_by_lot = "t"\n')
    with pytest.raises(TableConfigError) as exc:
        load_table()
    text = str(exc.value)
    assert "number = true:" in text and "minutes = an array:" in text
    assert "drawn_by_lot = 't': accepted true or false" in text and "True" not in text


def test_table_help_gives_the_path_rule(capsys):
    with pytest.raises(SystemExit):
        main(["table", "--help"])
    out = capsys.readouterr().out
    assert "config_dir()" not in out
    assert "$COMPANION_CONFIG_DIR" in out and "~/.config/companion" in out


def test_broken_file_names_itself_and_says_what_to_do(cfg, capsys):
    path = cfg / "table.toml"
    path.write_text("[table\n", encoding="utf-8")
    code = main(["table", "setup", "--number", "3"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(path) in err and "not valid TOML" in err
    assert "fix the file by hand, or delete it" in err and "table setup --replace" in err
    assert path.read_text(encoding="utf-8") == "[table\n"  # nothing written


def test_replace_starts_a_broken_file_afresh_keeping_nothing(cfg, capsys):
    path = cfg / "table.toml"
    path.write_text("[wordinoes]\nx = 1\n[table\nnumber = 7\n", encoding="utf-8")
    code = main(["table", "setup", "--replace", "--number", "3"])
    capsys.readouterr()
    assert code == 0
    written = tomllib.loads(path.read_text(encoding="utf-8"))
    assert set(written) == {"table"}  # the old [wordinoes] is gone too
    # the key given, the rest the rulebook's defaults (as for an absent file)
    assert load_table() == TableConfig(number=3)


@pytest.mark.parametrize(
    "page",
    ["http://10.42.0.1:8080/table/7", "https://hall.example.org/table/12", "http://[fd00::1]:80/"],
)
def test_a_tables_page_round_trips(cfg, page):
    config = TableConfig(number=7, round=2, page=page)
    (cfg / "table.toml").write_text(dump_table(config))
    assert load_table() == config


@pytest.mark.parametrize(
    "page, what",
    [
        ("ftp://10.42.0.1/table/7", "accepted an http:// or https:// address"),
        ("javascript:alert(1)", "accepted an http:// or https:// address"),
        ("http://a b/table/7", "accepted an http:// or https:// address"),
        (7, "accepted an http:// or https:// address"),
        ("http://h/" + "x" * 150, "accepted at most 120"),
    ],
)
def test_a_bad_page_address_is_refused_naming_what_is_accepted(page, what):
    with pytest.raises(TableConfigError, match=r"\[table\] page") as exc:
        validate({"page": page})
    assert what in str(exc.value)


# --- a bad option is named as typed, a bad key of the file by the file (issue 12a) -----------


def test_sim_names_the_option_typed_and_the_games_accepted(cfg, capsys):
    assert main(["sim", "--game", "chess", "--script", "-"]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == "companion sim: error: --game chess: no such game mode; accepted: iago, iota, scrabble, wordinoes\n"
    )


def test_the_docs_quote_every_game_the_cli_accepts():
    """Where README.md or docs/ quote the error of a bad --game, or list the modes a table
    can keep, they name every game of GAMES (the CLI's message is built from it)."""
    import re
    from pathlib import Path

    from companion.daemon.config import GAMES

    root = Path(__file__).resolve().parent.parent
    accepted = ", ".join(sorted(GAMES))
    quoted = []
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = " ".join(doc.read_text().split())
        for m in re.finditer(r"no such game mode; accepted: ([a-z, ]+)", text):
            quoted.append((doc.name, m.group(1).strip(", ")))
        for m in re.finditer(r"a registered mode: ([`a-z, ]+)\)", text):
            quoted.append((doc.name, ", ".join(sorted(re.findall(r"[a-z]+", m.group(1))))))
    assert len(quoted) >= 3
    assert [q for q in quoted if q[1] != accepted] == []


def test_setup_names_the_bad_option_and_the_bad_key_of_the_file_apart(cfg, capsys):
    (cfg / "table.toml").write_text('[table]\nlexicon = "gone"\n')
    assert main(["table", "setup", "--game", "chess", "--minute-seconds", "0"]) == 2
    err = capsys.readouterr().err
    assert "--game chess: no such game mode; accepted: iago, iota, scrabble, wordinoes" in err
    assert "--minute-seconds 0: accepted a number from 1 to 600" in err
    assert f"{cfg / 'table.toml'}: [table] lexicon = 'gone': no such lexicon" in err
    assert "[table] game" not in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--players", "Ada", "ada"], "--players: blue and red are both 'Ada'"),
        (["--blue", "Bob", "--red", "BOB"], "--blue/--red: blue and red are both 'Bob'"),
        (["--blue", "   "], "--blue '   ': accepted a name of 1 to 16"),
        (["--game", ""], "--game '': accepted a game mode: iago, iota, wordinoes, scrabble"),
    ],
)
def test_every_option_of_setup_is_named_as_typed(cfg, capsys, argv, said):
    assert main(["table", "setup", *argv]) == 2
    assert said in capsys.readouterr().err


def test_names_print_as_themselves_not_as_json_escapes(cfg, capsys):
    assert main(["table", "setup", "--players", "李雷", "Ωmega"]) == 0
    out = capsys.readouterr().out
    assert '"blue": "李雷"' in out and '"red": "Ωmega"' in out and "\\u" not in out
    assert json.loads(out)["table"]["blue"] == "李雷"
    assert main(["table", "show"]) == 0
    out = capsys.readouterr().out
    assert "李雷" in out and "\\u" not in out


def test_a_name_the_terminal_cannot_show_prints_escaped_not_a_traceback(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "COMPANION_CONFIG_DIR": str(tmp_path), "PYTHONIOENCODING": "latin-1"}
    done = subprocess.run(
        [sys.executable, "-m", "companion", "table", "setup", "--players", "Zoë", "李雷"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("latin-1")
    assert "Zoë" in out and "\\u674e\\u96f7" in out  # what latin-1 cannot show, escaped


def test_the_crossword_games_25_minutes_do_not_stay_when_the_table_goes_back_to_iago(cfg, capsys):
    # --game scrabble without --minutes sets its own 25; --game iago afterwards kept them, an
    # Iago game of 25 minutes' allowance (the rulebook's is 5) that nobody asked for
    assert main(["table", "setup", "--game", "scrabble"]) == 0
    assert load_table().minutes == 25
    assert main(["table", "setup", "--game", "iago"]) == 0
    assert load_table().minutes == 5
    assert main(["table", "setup", "--game", "scrabble", "--minutes", "20"]) == 0
    assert main(["table", "setup", "--game", "iota"]) == 0
    assert load_table().minutes == 5
    assert main(["table", "setup", "--game", "iago", "--minutes", "7"]) == 0
    assert main(["table", "setup", "--game", "iago"]) == 0  # not leaving scrabble: kept
    assert load_table().minutes == 7
