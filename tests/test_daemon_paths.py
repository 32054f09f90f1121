"""The data and configuration directories: a clear error (exit 2) when one cannot be used."""

import pytest

from companion.cli import main
from companion.errors import CompanionError
from companion.paths import DirectoryError, config_dir, data_dir


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "f"
    path.write_text("")
    return path


def test_a_file_as_the_config_dir_is_a_clear_error(a_file, monkeypatch):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(a_file))
    for create in (True, False):
        with pytest.raises(DirectoryError) as exc:
            config_dir(create=create)
        text = str(exc.value)
        assert f"COMPANION_CONFIG_DIR={a_file}" in text and "not a directory" in text
    assert isinstance(exc.value, CompanionError) and isinstance(exc.value, OSError)


def test_a_file_in_the_data_dirs_path_is_named(a_file, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(a_file / "sub"))
    with pytest.raises(DirectoryError, match=f"{a_file} is a file"):
        data_dir(create=False)
    with pytest.raises(DirectoryError, match="COMPANION_DATA_DIR="):
        data_dir()


def test_xdg_fallback_names_its_variable(a_file, monkeypatch):
    monkeypatch.delenv("COMPANION_CONFIG_DIR")
    monkeypatch.delenv("CONFIGURATION_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(a_file))
    with pytest.raises(DirectoryError, match=r"companion \(from XDG_CONFIG_HOME\)"):
        config_dir(create=False)


@pytest.mark.parametrize("command", [["table", "show"], ["table", "setup", "--number", "3"]])
def test_table_commands_exit_2_on_a_bad_config_dir(a_file, monkeypatch, capsys, command):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(a_file))
    assert main(command) == 2
    err = capsys.readouterr().err
    assert "COMPANION_CONFIG_DIR" in err and "Traceback" not in err


def test_a_word_list_that_is_not_utf8_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "config"))
    words = tmp_path / "b.txt"
    words.write_bytes(b"\xff\xfe")
    script = tmp_path / "s.txt"
    script.write_text("")
    assert main(["sim", "--words", str(words), "--script", str(script)]) == 2
    assert f"word list {words} is not UTF-8 text" in capsys.readouterr().err
