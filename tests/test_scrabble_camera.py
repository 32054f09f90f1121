"""The camera at a crossword game's table, through the scripted simulator: renders of the board
move by move (companion.vision.synth, profile scrabble) stand in for the camera
(``[camera] kind = "files"``: one photo a capture). After each press the board is read and the
move found as the difference from the record's board; the whole game gives the same GCG as the
same game typed. An untrusted reading, or a blank whose letter no camera sees, asks for the move
to be typed and records nothing."""

import io

from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.sim import parse_sim_script
from companion.games.scrabble.record import GameRecord, write_gcg
from tests import camera_support

TABLE = TableConfig(number=2, blue="Ada", red="Bob", game="scrabble", minutes=25)
# the game typed, scored by hand: Ada JETON at 8D 40; Bob OX at G6 making OXO down through
# JETON's O (O 1, X on G7 double letter 16, O 1) 18; Ada QI at 9H (Q 10, I on I9 double
# letter 2) 12 and NQ down (N 1, Q 10) 11: 23
MOVES = [("blue", "8D", "JETON"), ("red", "G6", "OX"), ("blue", "9H", "QI")]


def boards_of(moves):
    """The board after each of ``moves`` ((player, position, word) each), rows each."""
    rec = GameRecord(players={"blue": "Ada", "red": "Bob"})
    out = []
    for player, pos, word in moves:
        rec.play(player, pos, word)
        out.append(list(rec.board))
    return out


def boards():
    return boards_of(MOVES)


def shoot(folder, grids, seed=4800, **render):
    camera_support.shoot(folder, grids, "scrabble", seed, size=(1000, 750), hand=False, **render)


def table(tmp_path, folder=None, name="j.jsonl"):
    return camera_support.camera_table(TABLE, set_judge({"JETON"}), tmp_path / name, folder)


def run(s, script):
    return s.run(parse_sim_script(script.strip().splitlines()), out=io.StringIO())


def camera_lines(grids):
    """The lines the camera watcher hands the mode after each press (``camera COLOUR
    NOTATION``), as a trusted reading gives them: the reader writes a blank as ``?``."""
    out = []
    for (player, _, _), grid in zip(MOVES, grids, strict=True):
        notation = "/".join(grid)
        out.append(f"camera {player} {''.join('?' if c.islower() else c for c in notation)}")
    return out


def assert_the_game_typed(tmp_path, s, final):
    """The game ``s`` played (its last ``state``, ``final``) is the same game typed: the same
    scores, the same moves (each noted as read by the camera) and the same GCG."""
    typed_script = "0 press red\n10 type 8D JETON\n20 press blue\n30 type G6 OX\n"
    typed_script += "40 press red\n50 type 9H QI\n60 press blue\n62 state\n"
    t = table(tmp_path, name="typed.jsonl")
    typed = run(t, typed_script)
    assert final["scores"] == typed["scores"] == {"blue": 40 + 23, "red": 18}
    read, keyed = s.service.mode.record, t.service.mode.record
    assert [m.note for m in read.moves] == ["read by the camera"] * 3
    assert [dict(m.to_json(), note="") for m in read.moves] == [
        dict(m.to_json(), note="") for m in keyed.moves
    ]
    assert write_gcg(read).replace("#note read by the camera\n", "") == write_gcg(keyed)


def test_a_game_read_by_the_camera_gives_the_same_gcg_as_typed(tmp_path):
    lines = camera_lines(boards())
    s = table(tmp_path)
    script = f"0 press red\n20 press blue\n21 type '{lines[0]}'\n40 press red\n"
    script += f"41 type '{lines[1]}'\n60 press blue\n61 type '{lines[2]}'\n62 state\n"
    final = run(s, script)
    assert_the_game_typed(tmp_path, s, final)
    # a reading of the same board again (the camera's second look) adds nothing
    final = run(s, f"63 type '{lines[2]}'\n64 state\n")
    assert final["scores"] == {"blue": 63, "red": 18}


def test_a_game_photographed_move_by_move_gives_the_same_gcg_as_typed(tmp_path):
    """The camera's whole path: a render of the board after each move (the light and the
    camera drawn anew for each photo), read by the shipped model after each press, each
    reading weighed with the board the record holds before the move; every move is read
    surely, found, and recorded as the same game typed gives it."""
    shoot(tmp_path / "cam", boards())
    s = table(tmp_path, tmp_path / "cam")
    final = run(s, "0 press red\n20 press blue\n40 press red\n60 press blue\n62 state\n")
    assert_the_game_typed(tmp_path, s, final)


# Bob's OXO laid with a blank for an S above it (sOXO at G5: the blank, O and X new)
WITH_A_BLANK = [("blue", "8D", "JETON"), ("red", "G5", "sOXO"), ("blue", "9H", "QI")]


def test_a_move_with_a_new_blank_read_by_the_camera_is_asked_for_not_recorded_without_it(
    tmp_path,
):
    """The camera sees a new blank but not its letter: the move is asked for, and never
    recorded as the word without the blank (OXO for sOXO)."""
    shoot(tmp_path / "cam", boards_of(WITH_A_BLANK)[:2], seed=20)
    s = table(tmp_path, tmp_path / "cam")
    final = run(s, "0 press red\n20 press blue\n40 press red\n42 state\n")
    assert [m.word for m in s.service.mode.record.moves] == ["JETON"]
    assert final["scores"] == {"blue": 40, "red": 0}
    assert "a blank was played (its letter cannot be seen): type the move (RED)" in (
        s.service.mode.notice
    )


def test_the_move_asked_for_is_typed_with_its_colour_and_the_game_goes_on(tmp_path):
    """The camera asks for Bob's sOXO (its blank's letter cannot be seen) while Ada is on move:
    'red G5 sOXO' records it as Bob's, in its place, and the camera then finds Ada's QI."""
    shoot(tmp_path / "cam", boards_of(WITH_A_BLANK), seed=20)
    s = table(tmp_path, tmp_path / "cam")
    final = run(s, "0 press red\n20 press blue\n40 press red\n41 state\n")
    assert "type the move (RED) as 'red 8D WORD'" in s.service.mode.notice
    assert final["mover"] == "blue"
    run(s, "42 type red G5 sOXO\n60 press blue\n62 state\n")
    moves = s.service.mode.record.moves
    assert [(m.player, m.word, m.note) for m in moves] == [
        ("blue", "JETON", "read by the camera"),
        ("red", "sOXO", "typed after the press"),
        ("blue", "QI", "read by the camera"),
    ]
    # a turn on the record already takes no second move, and says so
    final = run(s, "63 type blue 9H QI\n64 state\n")
    assert "BLUE's last turn cannot take a move typed now" in final["table"]["message"]
    assert len(s.service.mode.record.moves) == 3
    run(s, "65 kill\n")  # a power cut: the journal gives the same record back
    s.at(90)
    s.start_service()
    assert [m.word for m in s.service.mode.record.moves] == ["JETON", "sOXO", "QI"]


def test_a_blank_on_the_board_is_read_as_the_records_and_the_next_move_is_found(tmp_path):
    """sOXO typed (its blank's letter the record's): the camera's next reading sees a blank
    there, takes the record's letter for it and finds Ada's QI."""
    shoot(tmp_path / "cam", boards_of(WITH_A_BLANK), seed=20)
    s = table(tmp_path, tmp_path / "cam")
    script = "0 press red\n10 type 8D JETON\n20 press blue\n30 type G5 sOXO\n40 press red\n"
    run(s, script + "60 press blue\n62 state\n")
    moves = s.service.mode.record.moves
    assert [(m.word, m.note) for m in moves][-1] == ("QI", "read by the camera")
    assert [m.word for m in moves] == ["JETON", "sOXO", "QI"]


def test_a_new_blank_or_a_tile_read_otherwise_asks_for_the_move(tmp_path):
    first = boards()[0]
    s = table(tmp_path)
    blank = "/".join(row.replace("J", "?") for row in first)
    final = run(s, f"0 press red\n20 press blue\n21 type 'camera blue {blank}'\n22 state\n")
    assert final["last_move"] is None and "a blank was played" in s.service.mode.notice
    assert "type the move (BLUE)" in s.service.mode.notice


def test_a_photo_the_reader_is_unsure_of_asks_for_the_move_and_records_nothing(tmp_path):
    """A tile lying apart from the words (dropped on the board): no game holds it, so the
    reading is not trusted, the move is asked for, never guessed, and nothing is recorded."""
    dropped = list(boards()[0])
    dropped[1] = "..........S...."
    shoot(tmp_path / "cam", [dropped])  # render seed 4801, as before
    s = table(tmp_path, tmp_path / "cam")
    final = run(s, "0 press red\n20 press blue\n21 state\n")
    watcher = s.service.camera_watcher
    assert final["last_move"] is None and s.service.mode.record.moves == []
    assert "type the move (BLUE)" in s.service.mode.notice
    assert watcher.problem and "unsure" in watcher.problem


# --- a reading that comes late: recorded for its own turn while that is unambiguous, else said


def test_a_reading_after_the_next_press_records_the_move_it_belongs_to(tmp_path):
    """Blue's reading comes only after red's quick press (the camera's thread is slower than
    the reply): nothing was recorded since blue's press, so it is blue's move, recorded as
    such, and kept across a restart; red's own reading, late too (after blue's next press),
    then follows it, and the record is the game typed."""
    lines = camera_lines(boards())
    s = table(tmp_path)
    final = run(s, f"0 press red\n20 press blue\n21 press red\n22 type '{lines[0]}'\n23 state\n")
    moves = s.service.mode.record.moves
    assert [(m.player, m.word, m.note) for m in moves] == [("blue", "JETON", "read by the camera")]
    assert final["scores"] == {"blue": 40, "red": 0} and final["challengeable"]
    script = f"24 restart\n25 resume\n40 press blue\n41 type '{lines[1]}'\n"
    final = run(s, script + f"42 type '{lines[2]}'\n43 state\n")
    assert_the_game_typed(tmp_path, s, final)


def test_a_reading_while_the_clocks_are_paused_is_recorded(tmp_path):
    lines = camera_lines(boards())
    s = table(tmp_path)
    final = run(s, f"0 press red\n20 press blue\n21 pause\n22 type '{lines[0]}'\n23 state\n")
    assert final["status"] == "paused" and final["last_move"]["word"] == "JETON"


def test_a_late_reading_that_could_be_another_turns_says_the_move_was_not_recorded(tmp_path):
    """Red typed a move before pressing (the record moved on), or a second turn of blue's
    ended before blue's first reading came: the reading is no longer blue's move beyond doubt,
    so nothing is recorded and the screen says so, naming blue and asking for the move."""
    lines = camera_lines(boards())
    s = table(tmp_path)
    run(s, f"0 press red\n20 press blue\n21 type pass\n22 press red\n23 type '{lines[0]}'\n")
    mode = s.service.mode
    assert [(m.player, m.kind) for m in mode.record.moves] == [("red", "pass")]
    assert "BLUE'S MOVE NOT RECORDED" in mode.notice and "too late" in mode.notice
    assert "type the move (BLUE)" in mode.notice
    s = table(tmp_path, name="two.jsonl")
    run(s, f"0 press red\n20 press blue\n30 press red\n40 press blue\n41 type '{lines[0]}'\n")
    mode = s.service.mode
    assert mode.record.moves == []
    assert "BLUE'S MOVE NOT RECORDED" in mode.notice and "turn 1" in mode.notice


def test_a_reading_over_a_move_missing_from_the_record_is_not_taken_for_one_move(tmp_path):
    """Blue's JETON was not recorded (the camera unsure of it); red adds S to make JETONS.
    The difference between red's reading and the record is then J E T O N S in one row, a
    legal play, yet two players' tiles: it is never taken as red's move; the screen names
    blue's missing move instead."""
    rec = GameRecord(players={"blue": "Ada", "red": "Bob"})
    rec.play("blue", "8D", "JETON")
    rec.play("red", "8D", "JETONS")
    s = table(tmp_path)
    script = "0 press red\n20 press blue\n21 type 'camera blue unsure: glare'\n40 press red\n"
    run(s, script + f"41 type 'camera red {'/'.join(rec.board)}'\n")
    mode = s.service.mode
    assert mode.record.moves == []
    assert "RED'S MOVE NOT RECORDED" in mode.notice
    assert "BLUE's move of turn 1 is not on the record" in mode.notice


def test_a_turn_the_camera_saw_lay_no_tile_keeps_the_next_reading(tmp_path):
    """Blue passed without typing it: the camera sees no new tile, asks for the move, and the
    record's board is still the board, so red's reading after it is recorded."""
    rec = GameRecord(players={"blue": "Ada", "red": "Bob"})
    rec.play("red", "8D", "JETON")
    empty = "/".join(["15"] * 15)
    s = table(tmp_path)
    script = f"0 press red\n20 press blue\n21 type 'camera blue {empty}'\n40 press red\n"
    final = run(s, script + f"41 type 'camera red {'/'.join(rec.board)}'\n42 state\n")
    assert [(m.player, m.word) for m in s.service.mode.record.moves] == [("red", "JETON")]
    assert final["scores"] == {"blue": 0, "red": 40}


def test_each_turn_is_read_on_the_board_as_it_was_at_the_press_even_when_the_reader_lags(
    tmp_path,
):
    """A reading takes long on a Pi and the game goes on: the frame is captured at the press,
    not when the reader gets to it, so a turn read late is not read with the next player's
    tiles already laid. Here the reader is held on the first turn while the second is pressed
    and the third player's tiles go down; the second turn is still read as it was pressed."""
    import threading
    from types import SimpleNamespace

    from companion.daemon.scrabble_camera import ScrabbleCameraWatcher
    from companion.vision.notation import format_board
    from companion.vision.synth import render_photo
    from companion.vision.table import BoardCamera

    grids = boards()
    photos = [
        render_photo("scrabble", seed=4801 + i, grid=g, size=(1000, 750), hand=False).image
        for i, g in enumerate(grids)
    ]

    class TableCamera:
        """The board as it lies now; each capture is counted."""

        name, problem = "table", None

        def __init__(self):
            self.image = photos[0]
            self.captured = threading.Semaphore(0)

        def capture(self):
            self.captured.release()
            return self.image.copy()

    camera = TableCamera()
    watcher = ScrabbleCameraWatcher(BoardCamera(camera, "scrabble"), submit_line=lambda _: None)
    seen, gate = [], threading.Event()

    def on_board(notation, trusted):
        seen.append(notation)
        assert gate.wait(60), "the test never let the reader go on"

    watcher.on_board = on_board

    def press(role, turns, before):
        mode = SimpleNamespace(
            clock=SimpleNamespace(moves_completed=turns), record=SimpleNamespace(board=before)
        )
        watcher.observe({"kind": "press", "role": role}, mode)

    press("blue", 1, ["." * 15] * 15)  # Ada's JETON down: the reader starts on it, and is held
    assert camera.captured.acquire(timeout=60)
    camera.image = photos[1]  # Bob lays OX and presses
    press("red", 2, grids[0])
    assert camera.captured.acquire(timeout=60), "the second press waited for the first reading"
    camera.image = photos[2]  # Ada lays QI before the reader gets to Bob's turn
    gate.set()
    watcher.wait()
    assert seen == [format_board(grids[0]), format_board(grids[1])]


def test_a_turn_pressed_before_the_last_turn_is_on_the_record_is_read_without_the_record():
    """Red presses before blue's reading has come (blue's turn not yet on the record, which is
    still the board before blue's move): red's turn is read as a photo alone, not weighed with
    that record (blue's tiles and red's would pass for one move, and squares off their line
    for squares no move took). Pressed with every earlier turn on the record (recorded, or
    seen to lay no tile), a turn is weighed with the record."""
    from types import SimpleNamespace

    from companion.daemon.scrabble_camera import ScrabbleCameraWatcher
    from companion.vision.synth import render_photo
    from companion.vision.table import BoardCamera

    grids = boards()
    photo = render_photo("scrabble", seed=4802, grid=grids[1], size=(1000, 750), hand=False)

    class TableCamera:
        name, problem = "table", None

        def capture(self):
            return photo.image.copy()

    knowns = []

    class Weighed(BoardCamera):
        """The real board camera, noting the record each reading is weighed with."""

        def read(self, known=None, frame=None):
            knowns.append(known)
            return super().read(known=known, frame=frame)

    watcher = ScrabbleCameraWatcher(Weighed(TableCamera(), "scrabble"), submit_line=lambda _: None)
    empty = ["." * 15] * 15

    def press(role, turns, record, boards_on_record):
        entries = [{"board": b} for b in boards_on_record] + [{"board": False}]
        mode = SimpleNamespace(
            clock=SimpleNamespace(moves_completed=turns),
            record=SimpleNamespace(board=record),
            turns=entries,
        )
        watcher.observe({"kind": "press", "role": role}, mode)
        watcher.wait()

    press("blue", 1, empty, [])  # blue's JETON: the first turn, the record is the board
    press("red", 2, empty, [False])  # red's quick press: blue's JETON not yet on the record
    press("red", 4, grids[0], [True, True, True])  # every earlier turn on the record
    assert knowns == [empty, None, grids[0]]
