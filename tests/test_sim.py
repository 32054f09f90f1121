"""companion sim --script: the real service on mock pins, driven without a terminal."""

import io
import json

import pytest

from companion.cli import main
from companion.daemon.sim import SimScriptError, parse_sim_script


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "config"))
    words = tmp_path / "words.txt"
    words.write_text("cat\nqi\n")
    return tmp_path, words


def run(monkeypatch, capsys, script: str, *args):
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    code = main(["sim", *args])
    out = capsys.readouterr()
    return code, [json.loads(line) for line in out.out.splitlines() if line.startswith("{")]


def test_script_from_stdin_plays_moves_and_prints_states(dirs, monkeypatch, capsys):
    _, words = dirs
    script = "0 press red\n61 state\n61.5 press blue\n75 state\n"
    code, states = run(monkeypatch, capsys, script, "--words", str(words))
    assert code == 0
    first, second = states  # the script ends on "state": the final state is not printed again
    assert first["minutes"] == {"blue": 4, "red": 6} and first["mover"] == "blue"
    assert second["mover"] == "red" and second["sand_left"] == pytest.approx(60 - 13.5)
    assert second["t"] == 75


def test_script_challenge_kill_and_restart(dirs, monkeypatch, capsys):
    _, words = dirs
    script = """
    0 press red        # blue on move
    10 press challenge
    11 press red       # red challenges blue's word
    12 type cat qi
    13 confirm         # acceptable: blue resumes
    20.5 kill          # power cut; heartbeats every second: last at 20 s
    100 restart
    100 state
    101 resume
    141 state
    """
    code, states = run(monkeypatch, capsys, script, "--words", str(words), "--minute-seconds", "60")
    assert code == 0
    after_restart, later = states
    # sand stopped from 10 to 13 s: 10 + (20 - 13) = 17 s used when the last heartbeat was written
    assert after_restart["status"] == "paused"
    assert after_restart["sand_left"] == pytest.approx(60 - 17)
    assert later["minutes"] == {"blue": 5, "red": 5}
    assert later["sand_left"] == pytest.approx(60 - 17 - 40)


def test_script_errors_are_listed_together():
    with pytest.raises(SimScriptError) as exc:
        parse_sim_script(["x press red", "2 jump", "3 press green", "5 state", "4 state"], "s")
    text = str(exc.value)
    assert "s:1:" in text and "s:2: action 'jump'" in text and "s:3: press 'green'" in text
    assert "s:5: time 4.0 goes backwards" in text


def test_bad_script_exits_2(dirs, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("0 fly\n"))
    code = main(["sim"])
    assert "action 'fly'; accepted: press" in capsys.readouterr().err
    assert code == 2


def test_frame_action_prints_the_oled(dirs, monkeypatch, capsys):
    _, words = dirs
    monkeypatch.setattr("sys.stdin", io.StringIO("0 frame\n"))
    assert main(["sim", "--words", str(words)]) == 0
    lines = capsys.readouterr().out.splitlines()
    frame = [line for line in lines if not line.startswith("{")]
    assert len(frame) == 16 and all(len(line) == 64 for line in frame)
    assert any(ch != " " for line in frame for ch in line)


def test_each_game_resumes_its_own_journal(dirs):
    from companion.daemon.config import TableConfig
    from companion.daemon.sim import ScriptedTable, game_notice, set_judge, sim_journal

    judge = set_judge(["cat"], "words")

    def open_table(game: str) -> ScriptedTable:
        table = TableConfig(game=game)
        return ScriptedTable(table, judge, journal_file=sim_journal(False, game), resume=True)

    iago = open_table("iago")
    iago.at(0)
    iago.press("red")  # the Iago game starts: blue on move
    iago.at(5)
    iago.service.stop()
    iago.service.step()
    iota = open_table("iota")  # asked for Iota: a new Iota game, not the Iago one
    assert iota.service.mode.name == "iota"
    assert game_notice(iota.service, "iota").startswith("iota: a new game")
    iota.service.close()
    again = open_table("iago")  # and the Iago game is still there, resumed
    assert again.service.mode.name == "iago" and again.service.mode.started
    assert "game in progress was resumed" in game_notice(again.service, "iago")
    assert sim_journal(False, "iago") != sim_journal(False, "iota")
    # options of another time control do not apply to the game resumed, and it is said
    again.service.close()
    asked = TableConfig(game="iago", minutes=1, minute_seconds=2.0)
    resumed = ScriptedTable(asked, judge, journal_file=sim_journal(False, "iago"), resume=True)
    kept = resumed.service.mode.context.table
    assert (kept.minutes, kept.minute_seconds) != (1, 2.0)
    said = game_notice(resumed.service, "iago", asked)
    assert f"keeps its own time ({kept.minutes} min" in said and "1 min, 2 s minute is for" in said
    assert "keeps its own time" not in game_notice(resumed.service, "iago", kept)
    # the crossword game's clock has no minute of sand: only its minutes are compared
    resumed.service.close()
    cross = open_table("scrabble")
    cross.at(0)
    cross.press("red")  # the crossword game starts
    cross.at(5)
    cross.service.stop()
    cross.service.step()
    own = cross.service.mode.context.table
    other_sand = TableConfig(game="scrabble", minutes=own.minutes, minute_seconds=30.0)
    again = ScriptedTable(other_sand, judge, sim_journal(False, "scrabble"), resume=True)
    assert "keeps its own time" not in game_notice(again.service, "scrabble", other_sand)
    shorter = TableConfig(game="scrabble", minutes=own.minutes - 5)
    said = game_notice(again.service, "scrabble", shorter)
    assert f"keeps its own time ({own.minutes} min): {own.minutes - 5} min is for" in said
    # the resumed game abandoned, a new one is ready: the notice no longer speaks of it (a
    # newcomer read "your game in progress was resumed" under the new game's ready screen)
    from companion.daemon.sim import notice_now

    game_id = again.service._game_id()
    assert notice_now(again.service, said, game_id) == said
    again.service.command("abandon")
    again.service.command("abandon")
    again.at(10)
    assert again.service.mode.started is False
    assert notice_now(again.service, said, game_id) == ""


def test_the_old_single_journal_goes_to_its_game(dirs):
    from companion.daemon.sim import adopt_old_journal, sim_journal
    from companion.paths import data_dir

    old = data_dir() / "sim" / "journal.jsonl"
    old.parent.mkdir(parents=True)
    old.write_text('{"kind": "_game", "mode": "iota", "settings": {}, "seq": 0}\n')
    assert adopt_old_journal() == sim_journal(False, "iota")
    assert not old.exists() and sim_journal(False, "iota").exists()


def test_while_typing_the_key_line_shows_the_function_keys():
    from companion.daemon.sim import key_help

    typing = " ".join(key_help(True))
    for key in ("F1 blue", "F2 red", "F3 challenge", "F4 pause", "F10 quit"):
        assert key in typing
    assert " q quit" not in typing  # q types a letter then
    assert "q quit" in " ".join(key_help(False))


def test_status_lines_wrap_to_the_terminal_and_count_one_beep():
    from companion.daemon.service import Published
    from companion.daemon.sim import status_lines

    prompt = "Ada: play CARD@ROW,COL ... or 'pass [N]', then Enter; 'undo' takes back a turn"
    message = "x" * 30 + " " + "y" * 30
    pub = Published(status="game", prompt=prompt, beeps=1, message=message)
    lines = status_lines(pub, "RT2@0,1", False, 40)
    assert all(len(text) <= 39 for text, _ in lines)
    joined = " ".join(text for text, _ in lines)
    assert "(1 beep)" in joined and "beeps" not in joined
    # nothing is lost: every word of the prompt and the message is shown
    for word in (*prompt.split(), *message.split()):
        assert word in joined
    assert status_lines(Published(beeps=2), "", False, 200)[0][0].count("(2 beeps)") == 1


def test_a_terminal_too_small_for_the_frame_says_so():
    from companion.daemon.sim import too_small

    # braille: 64 x 16 characters, a border each side, 6 lines under it
    assert too_small(66, 24, "braille") == ""
    text = too_small(65, 24, "braille")
    assert "too small: 65x24" in text and "66x24" in text
    assert too_small(66, 23, "braille") != ""


@pytest.mark.parametrize("time", ["inf", "-inf", "nan", "-1", "1e400"])
def test_script_time_must_be_finite_and_not_negative(time):
    with pytest.raises(SimScriptError) as exc:
        parse_sim_script(["0 state", f"{time} press red"], "s")
    text = str(exc.value)
    assert f"s:2: {time!r} is not a time" in text
    assert "a finite number 0 or more" in text
    assert "goes backwards" not in text and "JSON" not in text


def test_script_with_inf_time_exits_2_naming_the_line(dirs, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("0 state\ninf press red\n"))
    code = main(["sim"])
    err = capsys.readouterr().err
    assert code == 2
    assert "2: 'inf' is not a time" in err and "script-journal" not in err


def test_frames_saves_every_frame_shown_as_png(dirs, monkeypatch, capsys):
    from PIL import Image

    tmp, words = dirs
    folder = tmp / "frames"
    script = "0 press red\n2 press blue\n3 pause\n4 resume\n5 state\n"
    code, _ = run(monkeypatch, capsys, script, "--words", str(words), "--frames", str(folder))
    assert code == 0
    saved = sorted(folder.glob("*.png"))
    assert len(saved) >= 4  # ready, blue's move, red's move, paused, running again...
    names = [p.name for p in saved]
    assert names[0].startswith("00001-") and names == sorted(names)
    times = [float(n.split("-", 1)[1].removesuffix("s.png")) for n in names]
    assert times == sorted(times) and times[-1] <= 5
    images = [Image.open(p) for p in saved]
    assert all(im.size == (128, 64) for im in images)
    assert len({im.tobytes() for im in images}) >= 3  # ready, running, paused differ
    # enlarged for documentation, pixels kept square
    big = tmp / "big"
    run(
        monkeypatch,
        capsys,
        "0 state\n",
        "--words",
        str(words),
        "--frames",
        str(big),
        "--frames-scale",
        "3",
    )
    first = Image.open(sorted(big.glob("*.png"))[0])
    assert first.size == (384, 192)
    assert (
        first.resize((128, 64), Image.Resampling.NEAREST).tobytes()
        == images[0].convert(first.mode).tobytes()
    )


def test_frames_scale_out_of_range_is_bad_input(dirs, monkeypatch, capsys):
    tmp, words = dirs
    monkeypatch.setattr("sys.stdin", io.StringIO("0 state\n"))
    code = main(["sim", "--frames", str(tmp / "f"), "--frames-scale", "20"])
    assert code == 2 and "accepted a whole number from 1 to 8" in capsys.readouterr().err


def _scripted_sim(tmp_path, monkeypatch, capsys, script_text: str) -> list[str]:
    """Run ``companion sim --script`` on ``script_text`` with folders of its own and a one-word
    list; returns its standard output's lines (it must exit 0)."""
    from companion.cli import main

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "cfg"))
    words = tmp_path / "words.txt"
    words.write_text("CAT\n")
    script = tmp_path / "s.txt"
    script.write_text(script_text)
    assert main(["sim", "--script", str(script), "--words", str(words)]) == 0
    return capsys.readouterr().out.splitlines()


def test_a_scripted_run_keeps_its_records_apart_and_prints_its_final_state_once(
    tmp_path, monkeypatch, capsys
):
    from companion.paths import data_dir

    lines = _scripted_sim(
        tmp_path,
        monkeypatch,
        capsys,
        "0 press red\n10 press blue\n20 abandon\n20 abandon\n30 state\n",
    )
    assert len(lines) == 1  # the script's "state", not again as the final state
    assert not (data_dir() / "records").exists() or not list((data_dir() / "records").iterdir())
    saved = list((data_dir() / "sim" / "records").glob("*-table*.json"))
    assert len(saved) == 1


def test_a_script_not_ending_on_state_prints_the_final_state(tmp_path, monkeypatch, capsys):
    first, final = _scripted_sim(tmp_path, monkeypatch, capsys, "0 state\n5 press red\n")
    assert json.loads(first)["status"] == "ready" and json.loads(final)["status"] == "running"


def _twin(tmp_path, name: str, frames: bool = False):
    """A scripted table of its own (journal, records) on a game of 5 minutes of 10 s;
    ``frames``: every frame shown is saved, so it wakes at every turn of the picture."""
    from companion.daemon.challenge import set_judge
    from companion.daemon.config import TableConfig
    from companion.daemon.sim import FrameSaver, ScriptedTable

    folder = tmp_path / name
    return ScriptedTable(
        TableConfig(minutes=5, minute_seconds=10),
        set_judge(["cat", "qi"], "testwords"),
        folder / "journal.jsonl",
        frames=FrameSaver(folder / "frames") if frames else None,
        records_path=folder / "records",
    )


def test_a_long_gap_wakes_only_where_the_state_can_change(tmp_path):
    # a tester's script: "0 press red" then "10000000 state" stepped the service at every turn
    # of GAME OVER's texts (3 s): 3.3 million frames drawn, 44 minutes
    table = _twin(tmp_path, "gap")
    table.run(parse_sim_script(["0 press red", "100 state"]), out=io.StringIO())
    assert table.service.mode.finished  # blue lost on time, at the clock's own deadlines
    steps = table.service.steps
    table.at(3000)  # before: 967 steps, one a turn of the screen's texts
    assert table.service.steps - steps <= 3
    table.at(10_000_000)  # the longest gap a script may name
    state = table.state()
    assert state["t"] == 10_000_000 and state["loser"] == "blue"
    assert table.service.steps - steps <= 6


def test_waking_only_where_the_state_can_change_changes_nothing_a_script_sees(tmp_path):
    # the same script on a table that wakes at every turn of the picture (--frames) and on one
    # that does not: the same states, frames, journal (heartbeats and minutes at their instants)
    script = """
    0 press red        # blue on move: heartbeats, a minute every 10 s, the bar draining
    7.3 frame
    12 press blue      # red on move
    14 press challenge
    15 press blue      # blue challenges red's word
    16 type qzx        # not acceptable: the verdict and the penalty in turns of 3 s
    40 frame
    41.7 state
    42 confirm
    43 count           # NO CAMERA: a banner that ends by itself
    44.5 frame
    47 frame
    50 pause           # PAUSED, in turns
    120.4 frame
    121 resume
    122 abandon        # ABANDON GAME? stays until an input
    150.2 frame
    160 press blue     # plays on
    161 press red
    170.4 kill
    300 restart        # PAUSED RESTARTED
    333.3 frame
    334 press challenge
    900 state          # blue has lost on time: GAME OVER in turns
    901.6 frame
    """
    actions = parse_sim_script(script.splitlines())
    outputs, journals = [], []
    for name, frames in (("every", True), ("changes", False)):
        table = _twin(tmp_path, name, frames)
        out = io.StringIO()
        table.run(actions, out=out)
        outputs.append(out.getvalue())
        (game,) = (tmp_path / name / "records").glob("*.journal.jsonl")  # the finished game's
        records = [json.loads(line) for line in game.open()]
        journals.append([r for r in records if r["kind"] != "_game"])
    assert outputs[0] == outputs[1]
    assert journals[0] == journals[1]
    assert sum(r["kind"] == "_alive" for r in journals[1]) > 100
    assert '"loser": "blue"' in outputs[1]
    assert len(list((tmp_path / "every" / "frames").glob("*.png"))) > 200  # every turn saved
