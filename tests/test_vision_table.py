"""The board camera at the table (issue 5, "At the table"), through the scripted simulator.

A folder of small synthetic photos (companion.vision.synth) stands in for the camera
(``[camera] kind = "files"``: one photo a capture, the last repeating). What the OLED shows is
checked on the dummy display's last frame; the clock is checked against the same script run
without a camera.
"""

import io

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from companion.daemon import overlays, screen
from companion.daemon.challenge import set_judge
from companion.daemon.config import TableConfig
from companion.daemon.sim import parse_sim_script
from companion.devices.camera import CameraError, FileCamera
from companion.vision import cellnet
from companion.vision.notation import parse_board
from companion.vision.profiles import get_profile
from companion.vision.table import BoardCamera
from tests import camera_support

SMALL = (800, 600)
EMPTY = "..........."
CAT = [EMPTY] * 5 + ["....CAT...."] + [EMPTY] * 5  # blue's CAT across the centre
CAT_DOG = CAT[:9] + [".DOG......."] + CAT[10:]  # and blue's DOG, touching nothing
CAT_D = CAT[:9] + [".D........."] + CAT[10:]  # and a lone D, touching nothing
# a first word of 4 letters that say which way round the board lies (a board whose letters read
# as surely turned, under 4 or as CATS's do, is not trusted, and a move is checked only between
# two trusted boards)
CAFE = [EMPTY] * 5 + ["....CAFE..."] + [EMPTY] * 5
CAFE_DOG = CAFE[:9] + [".DOG......."] + CAFE[10:]
CAFE_D = CAFE[:9] + [".D........."] + CAFE[10:]
TABLE = TableConfig(minute_seconds=10.0)


@pytest.fixture(scope="session")
def classifier():
    return cellnet.load_cellnet()  # the shipped cell model, loaded once per session


def shoot(folder, *grids, seed=60):
    """Photos of ``grids`` in ``folder``, named in capture order, nothing else."""
    camera_support.shoot(folder, grids, "iago", seed, size=SMALL)


def table(tmp_path, folder=None, name="j.jsonl"):
    return camera_support.camera_table(TABLE, set_judge({"CAT"}), tmp_path / name, folder)


def run(s, *lines):
    s.run(parse_sim_script(list(lines)), out=io.StringIO())
    return s.service.published


def clock_of(s):
    state = s.state()
    state.pop("table")
    return state


def region(image, box):
    left, top, right, bottom = box
    return image.crop((left, top, right + 1, bottom + 1)).tobytes()


def banner_pixels(banner):
    """The banner's part of the screen as :func:`overlays.draw_banner` draws ``banner``."""
    alone = screen.render(lambda d, w, h: overlays.draw_banner(d, w, h, banner))
    return region(alone, overlays.BANNER_BOX)


STRIP_BOX = (0, 55, 127, 63)


def strip_pixels():
    return region(screen.render(overlays.draw_strip), STRIP_BOX)


# -- what is written on the screen (pure) -------------------------------------------------------


def test_count_banner_names_both_colours_and_the_lead():
    # rulebook, "The Move" (2): the lead is at least one more letter of one's colour
    assert overlays.count_banner({"blue": 4, "red": 3}) == overlays.Banner(
        "BLUE 4  RED 3", "BLUE LEADS BY 1"
    )
    assert overlays.count_banner({"blue": 2, "red": 7}).detail == "RED LEADS BY 5"
    assert overlays.count_banner({"blue": 3, "red": 3}).detail == "NO LEAD (LEVEL)"


@given(st.integers(0, 121), st.integers(0, 121))
def test_the_lead_is_the_larger_colour_by_the_difference(blue, red):
    text = overlays.lead_text(blue, red)
    if blue == red:
        assert "NO LEAD" in text
    else:
        leader = "BLUE" if blue > red else "RED"
        assert text == f"{leader} LEADS BY {abs(blue - red)}"


@pytest.mark.parametrize(
    ("problem", "detail"),
    [
        ("the photo is too dark to read", "board too dark to read"),
        ("glare hides 3 cell(s)", "glare on the board"),
        ("the photo is too soft (out of focus or moved)", "photo out of focus"),
        ("2 cell(s) read with a confidence under what a trusted reading needs", "board not read"),
    ],
)
def test_a_count_not_made_says_the_photos_fault_when_a_player_can_mend_it(problem, detail):
    banner = overlays.no_count_banner(f"camera unsure of the board: {problem}")
    assert banner.title == "NO COUNT" and banner.detail.startswith(detail)
    assert overlays.no_count_banner(None).detail == "board not read: try again"


def test_warning_banner_asks_and_names_the_broken_rules():
    banner = overlays.warning_banner("red", ("disconnected", "no-lead"))
    assert banner.title == "ILLEGAL MOVE?"
    assert banner.detail == "RED: disconnected, no-lead"


def test_board_camera_calls_any_driver_failure_a_camera_error():
    class Broken:
        def capture(self):
            raise RuntimeError("USB device gone")

    cam = BoardCamera(Broken())
    with pytest.raises(CameraError, match="USB device gone"):
        cam.read()
    assert cam.camera_problem == "camera unavailable: RuntimeError: USB device gone"


# -- in the simulator ---------------------------------------------------------------------------


def test_an_illegal_move_read_by_the_camera_is_warned_on_the_oled(tmp_path, classifier):
    """Blue lays DOG away from CAFE (rulebook, "The Move": not connected); when blue presses, the
    box beeps twice and the OLED asks ILLEGAL MOVE? with the rule, over the clock; the clock is
    exactly as without a camera, and the banner goes at the next input."""
    shoot(tmp_path / "camera", CAFE, CAFE_DOG)
    s = table(tmp_path, tmp_path / "camera")
    twin = table(tmp_path, name="twin.jsonl")  # no camera
    moves = ("0 press red", "1 press blue")
    pub = run(s, *moves)
    run(twin, *moves)
    expected = overlays.Banner("ILLEGAL MOVE?", "BLUE: disconnected")
    assert pub.banner == str(expected)
    assert region(s.devices.display.image, overlays.BANNER_BOX) == banner_pixels(expected)
    assert pub.beeps == twin.service.published.beeps + 2
    assert pub.status == "running"
    assert clock_of(s) == clock_of(twin)  # only a warning: the players decide
    records = s.service.journal.records
    kinds = {r["kind"] for r in records}
    assert kinds <= {"_game", "_alive", "press", "_board"}  # no game event from the camera
    # the board after each move, as read, journaled as the service's own record (for the
    # game's record and the director's pages; the replay skips it)
    boards = [(parse_board(r["board"]), r["trusted"]) for r in records if r["kind"] == "_board"]
    assert boards == [(CAFE, True), (CAFE_DOG, True)]

    pub = run(s, "2 press challenge")  # the next input that does something: the banner goes
    assert pub.banner == ""
    assert pub.status == "challenge:who"


def test_a_lone_tile_laid_apart_is_warned_too(tmp_path, classifier):
    """A single tile laid apart breaks the same rule as a word laid apart; the reader keeps such
    a board trusted on Iago (no blanks: a lone tile read surely is the move, not a tile missed
    beside it), so the table warns."""
    shoot(tmp_path / "camera", CAFE, CAFE_D, seed=63)
    s = table(tmp_path, tmp_path / "camera")
    pub = run(s, "0 press red", "1 press blue")
    assert pub.banner == str(overlays.Banner("ILLEGAL MOVE?", "BLUE: disconnected"))
    records = s.service.journal.records
    boards = [(parse_board(r["board"]), r["trusted"]) for r in records if r["kind"] == "_board"]
    assert boards == [(CAFE, True), (CAFE_D, True)]


def test_a_first_word_whose_letters_read_turned_too_is_not_trusted_but_counted(
    tmp_path, classifier
):
    """Iago's board is turned towards the opponent after every move (rulebook, "The Move"), so
    the camera may see the first word either way round. CAT's three letters read as surely
    under another turn, so they cannot say which way the board lies: the reading is journaled
    as not trusted (no warning for the move it starts: a move is checked between two trusted
    boards), the count of that board still stands (tiles and colours do not depend on it), and
    the clock is as without a camera."""
    from companion.vision.reader import WAY_UNKNOWN

    folder = tmp_path / "camera"
    shoot(folder, CAT, CAT_DOG)
    cam = BoardCamera(FileCamera(folder), "iago", net=classifier)
    first = cam.read()
    assert first.grid == CAT and first.problems == [WAY_UNKNOWN] and first.count_trusted
    assert not first.trusted and not first.way_known
    s = table(tmp_path, folder)
    twin = table(tmp_path, name="twin.jsonl")
    run(twin, "0 press red", "1 press blue", "7 sleep")
    pub = run(s, "0 press red", "1 press blue")
    records = s.service.journal.records
    boards = [(parse_board(r["board"]), r["trusted"]) for r in records if r["kind"] == "_board"]
    assert boards == [(CAT, False), (CAT_DOG, True)]
    assert pub.banner == "" and pub.beeps == twin.service.published.beeps  # no warning
    run(s, "7 sleep")
    assert clock_of(s) == clock_of(twin)
    alone = tmp_path / "alone"  # the count asked while CAT is the board the camera sees
    shoot(alone, CAT)
    s = table(tmp_path, alone, name="alone.jsonl")
    run(s, "0 press red")
    pub = run(s, "7 count")
    assert pub.banner == str(overlays.Banner("BLUE 3  RED 0", "BLUE LEADS BY 3"))


def test_a_count_on_request_shows_both_colours_for_a_few_seconds(tmp_path, classifier):
    """After blue's move the board holds CAFE and DOG in blue: 7 blue, 0 red."""
    shoot(tmp_path / "camera", CAFE, CAFE_DOG)
    s = table(tmp_path, tmp_path / "camera")
    twin = table(tmp_path, name="twin.jsonl")
    run(twin, "0 press red", "1 press blue", "7 sleep", "14 sleep")
    run(s, "0 press red", "1 press blue")
    pub = run(s, "7 count")  # the warning's banner is over; the count replaces it
    expected = overlays.Banner("BLUE 7  RED 0", "BLUE LEADS BY 7")
    assert pub.banner == str(expected)
    assert region(s.devices.display.image, overlays.BANNER_BOX) == banner_pixels(expected)
    pub = run(s, "14 sleep")  # BANNER_SECONDS later the clock's own frame is back
    assert pub.banner == ""
    mode_frame = screen.render(s.service.mode.view(s.service.game_time()).frame)
    assert s.devices.display.image.tobytes() == mode_frame.tobytes()
    assert clock_of(s) == clock_of(twin)


def test_a_count_whose_new_tile_shows_the_other_colour_says_so_and_the_clock_goes_on(
    tmp_path, classifier
):
    """Blue's move began on CAFE; a D laid since shows red (rulebook, "The Move": words are
    entered "with your colour up"), misread or laid the wrong face up. The count asked during
    blue's move is withheld and the OLED asks the players to look at the new tiles; the same
    move with the D blue is counted; the clock is as without a camera."""
    cafe_d_red = CAFE[:9] + [".d........."] + CAFE[10:]
    shoot(tmp_path / "camera", CAFE, cafe_d_red)
    s = table(tmp_path, tmp_path / "camera")
    twin = table(tmp_path, name="twin.jsonl")
    run(twin, "0 press red", "7 sleep")
    run(s, "0 press red")
    pub = run(s, "7 count")
    expected = overlays.Banner("NO COUNT", "look at new tiles")
    assert pub.banner == str(expected)
    assert region(s.devices.display.image, overlays.BANNER_BOX) == banner_pixels(expected)
    assert "1 tile(s) laid this move show red, not blue" in s.service.message
    assert pub.beeps == twin.service.published.beeps
    assert clock_of(s) == clock_of(twin)
    shoot(tmp_path / "blue", CAFE, CAFE_D)
    s = table(tmp_path, tmp_path / "blue", name="blue.jsonl")
    run(s, "0 press red")
    assert run(s, "7 count").banner == str(overlays.Banner("BLUE 5  RED 0", "BLUE LEADS BY 5"))


def test_a_board_unsure_of_a_letter_is_still_counted(tmp_path, classifier):
    """The count asks only the tiles and their colours (the rulebook's count): a board small in
    the frame (about 20 px a cell, a bold face the model never learnt) whose letters are read
    under the reading's trust level, its tiles and colours surely, is counted on request; the
    board itself is not trusted (no warning), and the clock is as without a camera."""
    from companion.vision.synth import render_photo
    from companion.vision.table import colour_counts

    folder = tmp_path / "camera"
    folder.mkdir()
    photo = render_photo("iago", seed=86000, size=(340, 256), font="croscore/Tinos-Bold.ttf")
    photo.save(folder / "01")
    for extra in folder.glob("*.*.*"):
        extra.unlink()
    s = table(tmp_path, folder)
    twin = table(tmp_path, name="twin.jsonl")
    run(twin, "0 press red", "1 press blue", "7 sleep")
    run(s, "0 press red", "1 press blue")
    boards = [r for r in s.service.journal.records if r["kind"] == "_board"]
    assert boards and not any(r["trusted"] for r in boards)  # the letters are in doubt
    pub = run(s, "7 count")
    expected = overlays.count_banner(colour_counts(photo.grid))
    assert pub.banner == str(expected)
    assert region(s.devices.display.image, overlays.BANNER_BOX) == banner_pixels(expected)
    assert pub.beeps == twin.service.published.beeps
    assert clock_of(s) == clock_of(twin)


def test_a_black_and_white_camera_is_said_on_the_count_and_the_clock_goes_on(tmp_path, classifier):
    """A camera set to black and white gives frames the reader cannot tell red from blue in:
    no count, no warning, the OLED says why, and the clock is as without a camera."""
    import cv2

    folder = tmp_path / "camera"
    shoot(folder, CAFE, CAFE_DOG)
    grey = cv2.cvtColor(cv2.imread(str(folder / "02.png")), cv2.COLOR_BGR2GRAY)
    cv2.imwrite(str(folder / "02.png"), grey)  # a one-channel PNG, as such a camera's
    s = table(tmp_path, folder)
    twin = table(tmp_path, name="twin.jsonl")
    run(twin, "0 press red", "1 press blue", "7 sleep")
    run(s, "0 press red", "1 press blue")
    pub = run(s, "7 count")
    expected = overlays.Banner("NO COUNT", "camera sees no colour")
    assert pub.banner == str(expected)
    assert region(s.devices.display.image, overlays.BANNER_BOX) == banner_pixels(expected)
    assert "no colour" in s.service.message and "red ink from blue" in s.service.message
    assert pub.beeps == twin.service.published.beeps  # DOG is away from CAFE: no warning
    assert clock_of(s) == clock_of(twin)
    assert pub.status == "running"


def test_a_camera_unplugged_mid_game_is_said_on_the_oled_and_the_clock_goes_on(
    tmp_path, classifier
):
    folder = tmp_path / "camera"
    shoot(folder, CAT)
    s = table(tmp_path, folder)
    twin = table(tmp_path, name="twin.jsonl")
    run(s, "0 press red")
    assert s.service.published.camera == ""
    photo = folder / "01.png"
    kept = photo.read_bytes()
    photo.unlink()  # the camera gives no frame from now on
    pub = run(s, "1 press blue")
    assert pub.camera.startswith("camera unavailable:")
    assert region(s.devices.display.image, STRIP_BOX) == strip_pixels()

    pub = run(s, "26 count")
    expected = overlays.Banner("CAMERA UNAVAILABLE", "no count; the clock runs on")
    assert pub.banner == str(expected)
    assert region(s.devices.display.image, overlays.BANNER_BOX) == banner_pixels(expected)
    run(twin, "0 press red", "1 press blue", "26 sleep")
    assert clock_of(s) == clock_of(twin)  # minutes ran out and beeped as without a camera
    assert pub.beeps == twin.service.published.beeps
    assert pub.status == "running"

    photo.write_bytes(kept)  # plugged in again: the next reading clears the strip
    pub = run(s, "31 press red")
    assert pub.camera == ""
    assert region(s.devices.display.image, STRIP_BOX) != strip_pixels()


def test_a_camera_that_cannot_be_opened_is_unavailable_from_the_start(tmp_path):
    s = table(tmp_path, tmp_path / "no-such-folder")  # open_camera fails: the box runs on
    assert s.service.camera_watcher is None
    pub = run(s, "0 state")
    assert pub.camera.startswith("camera unavailable")
    assert region(s.devices.display.image, STRIP_BOX) == strip_pixels()
    pub = run(s, "1 count")
    assert pub.banner.startswith("CAMERA UNAVAILABLE")


def test_a_count_without_a_camera_says_so(tmp_path):
    s = table(tmp_path)
    pub = run(s, "0 count")
    assert pub.banner == str(overlays.Banner("NO CAMERA", "no count: count by hand"))
    assert pub.camera == ""


def test_the_daemon_keyboard_asks_for_the_count_with_slash_count():
    from companion.daemon.run import _read_lines

    calls = []

    class Service:
        def count(self):
            calls.append("count")

        def command(self, name):
            calls.append(name)

        def line(self, text):
            calls.append(f"line {text}")

    _read_lines(io.StringIO("/count\n/pause\nCOUNT\n"), Service())
    assert calls == ["count", "pause", "line COUNT"]


def test_the_simulators_status_line_says_the_camera_is_unavailable():
    from companion.daemon.service import Published
    from companion.daemon.sim import status_lines

    pub = Published(status="running", camera="camera unavailable: file camera gone")
    assert ("camera unavailable: file camera gone", True) in status_lines(pub, "", False, 80)


def test_camera_jobs_capture_at_once_read_in_order_and_hold_few_frames():
    """Each job's frame is captured when it is queued, in order, while the reader is busy; the
    frames are read in that order; and however far the reader falls behind, no more than
    FRAMES_WAITING frames are held (captured, not yet read); a camera's failure reaches the
    reader as the job's error, with no frame."""
    import threading

    from companion.vision.table import FRAMES_WAITING, CameraJobs

    class Camera:
        name, problem = "test", None

        def __init__(self):
            self.taken, self.read_count, self.most_held = 0, 0, 0
            self.captured = threading.Semaphore(0)
            self.fail = set()

        def capture(self):
            self.taken += 1
            self.most_held = max(self.most_held, self.taken - self.read_count)
            self.captured.release()
            if self.taken in self.fail:
                raise CameraError("unplugged")
            return np.full((4, 4, 3), self.taken, np.uint8)

    camera = Camera()
    camera.fail = {FRAMES_WAITING + 2}
    gate, handled = threading.Event(), []

    def handle(job, shot):
        assert gate.wait(60)
        frame = None if shot.frame is None else int(shot.frame[0, 0, 0])
        handled.append((job, frame, shot.error, shot.problem, shot.camera_problem))
        camera.read_count += 1

    jobs = CameraJobs(BoardCamera(camera), handle, "test-camera")
    total = FRAMES_WAITING + 3
    for k in range(1, total + 1):
        jobs.put(k)
    for _ in range(FRAMES_WAITING):  # the reader is held on the first: the next are taken
        assert camera.captured.acquire(timeout=60)
    gate.set()
    jobs.wait()
    assert camera.most_held <= FRAMES_WAITING
    assert [h[:2] for h in handled] == [
        (k, None if k in camera.fail else k) for k in range(1, total + 1)
    ]
    # the failed capture says so in its own job, and the camera's state is that job's
    failed = [h for h in handled if h[2] is not None]
    assert [h[0] for h in failed] == sorted(camera.fail)
    assert isinstance(failed[0][2], CameraError) and "unplugged" in str(failed[0][2])
    assert failed[0][3] == failed[0][4] == "camera unavailable: unplugged"
    assert all(h[4] is None for h in handled if h[2] is None)


class CountingCamera:
    """A camera that counts its captures and fails (unplugged) at those numbered in ``fail``;
    its frames are grey, no board in them."""

    name, problem = "test", None

    def __init__(self, fail=()):
        self.taken, self.fail = 0, set(fail)

    def capture(self):
        self.taken += 1
        if self.taken in self.fail:
            raise CameraError("unplugged")
        return np.full((480, 640, 3), 128, np.uint8)


def test_camera_jobs_with_no_frame_keep_their_place_and_take_no_frame():
    """A job queued with no frame is handled in its place among the others, with no shot; the
    camera is not asked for a frame for it, and it tells nothing of the camera's state (the
    camera failing at the job before is still said as failing until a job's frame says it is
    back)."""
    from companion.vision.table import CameraJobs

    camera, handled, told = CountingCamera(fail={1}), [], []

    def handle(job, shot):
        handled.append((job, None if shot is None else shot.frame is not None))

    jobs = CameraJobs(BoardCamera(camera), handle, "test-camera", told.append)
    jobs.put("failed")
    jobs.put("no frame", frame=False)
    jobs.put("framed")
    jobs.wait()
    assert handled == [("failed", False), ("no frame", None), ("framed", True)]
    assert camera.taken == 2
    assert told == ["camera unavailable: unplugged", None]


def test_a_move_given_back_takes_no_frame_and_forgets_its_start_board():
    """A move given back to its player by a challenge's ruling (the mover changes with no
    press) asks the camera for no frame: the board then still holds the tiles to be taken off,
    is no move's start and is not read; the player's start board is forgotten, so a count in
    the move is not held to it."""
    from types import SimpleNamespace

    from companion.vision.table import ChallengeWatcher

    camera = CountingCamera()
    watcher = ChallengeWatcher(BoardCamera(camera), submit_line=lambda _: None)
    watcher.start_boards["blue"] = "11/11/11/11/11/4CAFE3/11/11/11/11/11"  # kept before the ruling
    watcher.observe({}, SimpleNamespace(timer=SimpleNamespace(mover="red")))  # red's move: read
    watcher.observe({}, SimpleNamespace(timer=SimpleNamespace(mover="blue")))  # given back
    watcher.wait()
    assert camera.taken == 1
    assert "blue" not in watcher.start_boards


def test_a_count_whose_frame_the_camera_did_not_give_says_so_even_while_a_reading_fails():
    """The camera's failure is said by the job it befell: a count asked for while an earlier
    reading is still failing (no board in its frame) says the camera is unavailable, not the
    earlier frame's fault, and the watcher's camera state follows the jobs in order."""
    from types import SimpleNamespace

    from companion.vision.table import ChallengeWatcher

    watcher = ChallengeWatcher(BoardCamera(CountingCamera(fail={2})), submit_line=lambda _: None)
    counts, states = [], []
    watcher.on_count = lambda c, problem: counts.append((c, problem))
    watcher.on_camera = states.append
    watcher.observe({}, SimpleNamespace(timer=SimpleNamespace(mover="blue")))
    watcher.request_count()
    blue_presses = {"kind": "press", "role": "blue"}  # red's move begins: a frame (no board)
    watcher.observe(blue_presses, SimpleNamespace(timer=SimpleNamespace(mover="red")))
    watcher.wait()
    assert counts == [(None, "camera unavailable: unplugged")]
    assert states == ["camera unavailable: unplugged", None]
    assert "blue" not in watcher.start_boards and "red" not in watcher.start_boards


def test_a_reading_that_fails_unforeseen_still_answers_its_count_and_the_camera_goes_on(caplog):
    """A fault of the reader's own (not a CompanionError) in a count is said to ``on_count``
    and logged; it used to set ``problem`` alone, so a player's count (``n``) showed nothing.
    The next job is read as usual."""
    import logging
    from types import SimpleNamespace

    from companion.vision.table import ChallengeWatcher

    board_camera = BoardCamera(CountingCamera())
    watcher = ChallengeWatcher(board_camera, submit_line=lambda _: None)
    counts = []
    watcher.on_count = lambda c, problem: counts.append((c, problem))
    watcher.observe({}, SimpleNamespace(timer=SimpleNamespace(mover="blue")))

    def broken(**_):
        raise ZeroDivisionError("a reader's bug")

    board_camera.counts = broken
    with caplog.at_level(logging.ERROR, logger="companion.vision"):
        watcher.request_count()
        watcher.wait()
    assert counts == [(None, "camera: ZeroDivisionError: a reader's bug")]
    assert "the count reading failed" in caplog.text
    del board_camera.counts  # the reader mended: the next count is read (no board: said)
    watcher.request_count()
    watcher.wait()
    assert len(counts) == 2 and counts[1][0] is None and "ZeroDivision" not in counts[1][1]


CAFE_D_RED = CAFE[:9] + [".d........."] + CAFE[10:]  # CAFE and a lone d showing red


def _watcher(folder, classifier, *grids):
    """A ChallengeWatcher over a files camera showing ``grids`` in capture order, its counts."""
    from companion.devices.camera import FileCamera
    from companion.vision.table import ChallengeWatcher

    shoot(folder, *grids)
    watcher = ChallengeWatcher(BoardCamera(FileCamera(folder), net=classifier), print)
    counts = []
    watcher.on_count = lambda c, problem: counts.append((c, problem))
    return watcher, counts


def test_a_new_game_counts_against_its_own_start_board_not_the_last_games(tmp_path, classifier):
    """The last game's blue move began on CAFE and a red d; a new game (another ``game_id``)
    begins with blue's move too, on the empty board, and blue lays the same tiles: the d, laid
    this move, shows red, and the count is withheld (not counted against the last game's board,
    where the d already lay); the last game's start boards are gone."""
    from types import SimpleNamespace

    watcher, counts = _watcher(tmp_path, classifier, CAFE_D_RED, [EMPTY] * 11, CAFE_D_RED)
    blue = SimpleNamespace(timer=SimpleNamespace(mover="blue"), phase=None, challenge_rec=None)
    watcher.game_id = "last"
    watcher.observe({}, blue)  # the last game: blue's move begins on CAFE and d
    watcher.wait()
    assert watcher.start_boards == {"blue": "11/11/11/11/11/4CAFE3/11/11/11/1d9/11"}
    watcher.game_id = "new"
    watcher.observe({}, blue)  # the new game: blue's move begins on the empty board
    watcher.request_count()  # blue has laid CAFE and a red d
    watcher.wait()
    assert watcher.start_boards == {"blue": "11/11/11/11/11/11/11/11/11/11/11"}
    assert counts[0][0] is None and "1 tile(s) laid this move show red" in counts[0][1]


def test_a_count_in_a_move_challenged_is_not_held_to_the_movers_colour(tmp_path, classifier):
    """A sustained challenge's penalty turns three of the mover's letters, which may be a word
    laid earlier in the same move (rulebook, "Challenge"): after a challenge in blue's move, the
    count is not withheld by a tile of the move showing red; red's own move may lay red tiles,
    and a blue tile laid in it is withheld."""
    from types import SimpleNamespace

    mode = SimpleNamespace(timer=SimpleNamespace(mover="blue"), phase=None, challenge_rec=None)
    watcher, counts = _watcher(tmp_path / "a", classifier, CAFE, CAFE_D_RED, CAFE_D_RED)
    watcher.observe({}, mode)  # blue's move begins on CAFE
    mode.phase, mode.challenge_rec = "words", SimpleNamespace(started_at=1.0, challenged="blue")
    watcher.observe({}, mode)  # red challenges blue's word (its words read from photo 2)
    watcher.request_count()
    watcher.wait()
    assert counts == [({"blue": 4, "red": 1}, None)]
    mode = SimpleNamespace(timer=SimpleNamespace(mover="red"), phase=None, challenge_rec=None)
    watcher, counts = _watcher(tmp_path / "b", classifier, CAFE, CAFE_D_RED, CAFE_D)
    watcher.observe({}, mode)  # red's move begins on CAFE
    watcher.request_count()  # red has laid a red d: counted
    watcher.request_count()  # the d shows blue now: withheld
    watcher.wait()
    assert counts[0] == ({"blue": 4, "red": 1}, None)
    assert counts[1][0] is None and "1 tile(s) laid this move show blue, not red" in counts[1][1]


def test_a_new_game_is_not_warned_of_against_the_last_games_board(tmp_path, classifier):
    """The last game: blue laid CAFE, then red's move began, and the game was abandoned. The
    new game's blue move begins on the empty board: no move of the last game is checked
    against it (red's CAFE-to-empty would break every rule), so no warning and no beep; the
    clock is as without a camera."""
    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, [EMPTY] * 11)
    s = table(tmp_path, tmp_path / "camera")
    twin = table(tmp_path, name="twin.jsonl")
    script = ("0 press red", "1 press blue", "2 abandon", "3 abandon", "4 press red", "9 sleep")
    run(twin, *script)
    pub = run(s, *script)
    assert s.service.camera_watcher.start_boards == {"blue": "11/11/11/11/11/11/11/11/11/11/11"}
    assert s.service.camera_watcher.warning is None
    assert pub.banner == "" and pub.beeps == twin.service.published.beeps
    assert clock_of(s) == clock_of(twin)


def test_a_move_given_back_by_a_sustained_challenge_is_not_warned_of(tmp_path, classifier):
    """Blue lays CAFE, red challenges it and the challenge is sustained (CAFE is not in the
    word list: rulebook, "Challenge"): the move goes back to blue, who takes CAFE off and lays
    DOGE. Red made no move, and the board at the ruling (CAFE still on it) is no move's start:
    no ILLEGAL MOVE? warning at the ruling ("no-lead") nor at blue's press (DOGE against CAFE,
    "too-many-substitutions"); the beeps and the clock are as without a camera."""
    from companion.daemon.challenge import set_judge

    doge = [EMPTY] * 5 + ["....DOGE..."] + [EMPTY] * 5
    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, CAFE, doge)  # no frame at the ruling
    judge = set_judge({"FACE", "DOGE", "OX"})
    s = camera_support.camera_table(TABLE, judge, tmp_path / "j.jsonl", tmp_path / "camera")
    twin = camera_support.camera_table(TABLE, judge, tmp_path / "twin.jsonl")
    script = (
        "0 press red", "2 press blue", "3 press challenge", "3.5 press red", "5 confirm",
        "8 press blue", "9 sleep",
    )  # fmt: skip
    run(twin, *script[:4], "4 type CAFE", *script[4:])  # without a camera the words are typed
    pub = run(s, *script)
    watcher = s.service.camera_watcher
    assert watcher.warning is None and "ILLEGAL" not in pub.banner
    assert pub.beeps == twin.service.published.beeps
    assert clock_of(s) == clock_of(twin)


def test_after_a_restart_the_move_in_progress_is_checked_against_its_start_board(
    tmp_path, classifier
):
    """A power cut mid-move (red's, begun on CAFE): the board read when it began is in the
    journal (its ``_board`` record names red and the move), so after the restart red's move is
    still checked at its press: a lone D, touching nothing, is ILLEGAL MOVE? with two beeps.
    The resume reads no board (the board mid-move is no move's start: before, it was taken for
    one), the status line does not say the move goes unchecked, and the clock is as without a
    camera."""
    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, CAFE_D)
    s = table(tmp_path, tmp_path / "camera")
    twin = table(tmp_path, name="twin.jsonl")
    for t in (s, twin):
        run(t, "0 press red", "2 press blue", "3 sleep")
        t.kill()
        t.start_service()
    message = s.service.published.message
    assert message.startswith("Restarted") and "moves that begin from now on" not in message
    script = ("4 resume", "5 sleep", "6 press red", "7 sleep")
    run(twin, *script)
    pub = run(s, *script)
    assert s.service.camera_watcher.warning_codes[:1] == ("disconnected",)
    assert pub.banner.startswith("ILLEGAL MOVE?") and "RED" in pub.banner
    assert pub.beeps == twin.service.published.beeps + 2
    assert clock_of(s) == clock_of(twin)


def test_after_a_restart_a_move_whose_start_board_is_not_journaled_is_said_unchecked(
    tmp_path, classifier
):
    """A journal whose ``_board`` records do not say whose move began on them (written before
    they did): the board when red's move began is not known after the power cut. The status
    line says the move goes unchecked (a check passed over silently is a fault not said), and
    the board mid-move is not taken for its start: red's press warns of nothing, though CAFE_D
    to CAFE_DOG would break rules. The clock resumes as without a camera, and a game resumed
    with no camera says nothing of it."""
    import json

    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, CAFE_D, CAFE_DOG)
    s = table(tmp_path, tmp_path / "camera")
    twin = table(tmp_path, name="twin.jsonl")
    for t in (s, twin):
        run(t, "0 press red", "2 press blue", "3 sleep")
        t.kill()
    journal = tmp_path / "j.jsonl"
    old = []
    for line in journal.read_text().splitlines():
        rec = json.loads(line)
        if rec["kind"] == "_board":
            del rec["player"], rec["move"]
        old.append(json.dumps(rec) + "\n")
    journal.write_text("".join(old))
    for t in (s, twin):
        t.start_service()
    said = "the camera checks the moves that begin from now on"
    assert (
        s.service.published.message.startswith("Restarted") and said in s.service.published.message
    )
    assert said not in twin.service.published.message
    script = ("4 resume", "5 sleep", "6 press red", "7 sleep")
    run(twin, *script)
    pub = run(s, *script)
    assert s.service.camera_watcher.warning is None and "ILLEGAL" not in pub.banner
    assert pub.beeps == twin.service.published.beeps
    assert clock_of(s) == clock_of(twin)


class _ScriptedBoards:
    """A stand-in for :class:`BoardCamera` for the watcher's bookkeeping alone: each board read
    (a move begins) is the next of ``boards``, (notation, trusted) pairs."""

    problem = None
    profile = get_profile("iago")

    def __init__(self, boards):
        self._boards = iter(boards)

    def take(self):
        from companion.vision.table import Captured

        return Captured(frame="a frame")

    def read(self, frame):
        from types import SimpleNamespace

        notation, trusted = next(self._boards)
        return SimpleNamespace(notation=notation, trusted=trusted)

    def challenged_words(self, before, colour, frame):
        from types import SimpleNamespace

        return SimpleNamespace(trusted=False, problems=["a stand-in"], words=[])


_STEPS = st.lists(st.sampled_from(["press", "given back", "challenge", "settled"]), max_size=14)


@given(_STEPS, st.lists(st.booleans(), min_size=16, max_size=16), st.lists(st.integers(0, 3)))
@example(  # blue's first board read late, after blue's next move began on a board in doubt
    steps=["press", "press"], trusted=[True, True] + [False] * 14, lags=[3]
)
def test_a_watcher_following_the_journal_keeps_what_the_live_one_kept(steps, trusted, lags):
    """Any run of presses (the mover's: the other's move begins), moves given back by a
    challenge's ruling (no press), challenges and their settling, each board read when a move
    begins trusted or not and its ``_board`` record journaled up to three records late (the
    reading lags): a watcher that follows the journal on a restart
    (:meth:`ChallengeWatcher.follow`, ``resume_board``) holds the move in progress's start
    board exactly when the live watcher holds it, the same board, and the same mover and
    challenge; the board is the last move's read and trusted, and a move given back has none."""
    from types import SimpleNamespace

    from companion.vision.table import ChallengeWatcher

    boards = [
        (f"5{c}5/11/11/11/11/11/11/11/11/11/11", t)
        for c, t in zip("ABCDEFGHIJKLMNOP", trusted, strict=True)
    ]
    live = ChallengeWatcher(_ScriptedBoards(boards), submit_line=lambda _: None)
    journal: list[tuple[dict, object]] = []  # (event, the mode's state after), or (_board, None)
    late: list[list] = []  # [records still to wait, _board record]
    lag = iter(lags)

    def board_read(notation, ok, move):
        rec = {"board": notation, "trusted": ok, "player": move[0], "move": move[1]}
        late.append([next(lag, 0), rec])

    live.on_board = board_read
    live.game_id = "g"
    mover, phase, challenge, presses = "blue", None, None, 1
    expected = None  # the move in progress's start board, by the watcher's rules

    def apply(event):
        state = SimpleNamespace(
            timer=SimpleNamespace(mover=mover), phase=phase, challenge_rec=challenge
        )
        live.observe(event, state)
        live.wait()
        journal.append((event, state))
        for entry in late:
            entry[0] -= 1
        journal.extend((rec, None) for wait, rec in late if wait < 0)
        late[:] = [entry for entry in late if entry[0] >= 0]

    apply({"kind": "press", "role": "red"})  # red starts the game: blue's move
    board, ok = boards[0]
    expected = board if ok else None
    for i, step in enumerate(steps):
        if step == "press" and phase is None:
            event = {"kind": "press", "role": mover}
            mover = "red" if mover == "blue" else "blue"
            board, ok = boards[presses]
            presses, expected = presses + 1, board if ok else None
        elif step == "given back" and phase is not None:
            event = {"kind": "ruling"}
            mover, phase, challenge = ("red" if mover == "blue" else "blue"), None, None
            expected = None
        elif step == "challenge" and phase is None:
            event = {"kind": "challenge_button"}
            phase, challenge = "words", SimpleNamespace(started_at=float(i), challenged=mover)
        elif step == "settled" and phase is not None:
            event = {"kind": "confirm"}
            phase, challenge = None, None
        else:
            continue
        apply(event)
    journal.extend((rec, None) for _wait, rec in late)  # written before the power went
    follower = ChallengeWatcher(_ScriptedBoards([]), submit_line=lambda _: None)
    follower.game_id = "g"
    for rec, state in journal:
        if state is None:
            follower.resume_board(rec["player"], rec["move"], rec["board"], rec["trusted"])
        else:
            follower.follow(rec, state)
    assert live.start_boards.get(mover) == expected
    assert follower.start_boards == live.start_boards  # the other player's last start too
    assert follower._moves.mover == live._moves.mover == mover
    assert follower._move_challenged == live._move_challenged


def _words_records(s):
    return [r["words"] for r in s.service.journal.records if r["kind"] == "words"]


def test_a_challenge_of_a_completed_move_takes_its_words_not_the_challengers_tiles(
    tmp_path, classifier
):
    """Blue lays CAFE and presses; red, on move, lays r, u, s above its C, then challenges
    blue's completed move. The words are those of blue's move, between the board when it began
    and the board at blue's press (red's start board): CAFE, not RUSC too (red's own tiles,
    which a photo now would add). No frame is taken for them."""
    rusc = [EMPTY] * 2 + ["....r......", "....u......", "....s......"] + CAFE[5:]
    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, rusc)
    s = camera_support.camera_table(
        TABLE, set_judge({"CAFE"}), tmp_path / "j.jsonl", tmp_path / "camera"
    )
    run(s, "0 press red", "5 press blue", "6 press challenge", "7 press red", "8 sleep")
    assert _words_records(s) == [["CAFE"]]
    assert s.service.mode.phase == "verdict"


def test_a_move_whose_challenge_turned_tiles_over_is_not_warned_of(tmp_path, classifier):
    """Red challenges blue's FOG while blue is laying it; FOG is a word, so the challenge is
    rejected and blue turns over three of red's tiles (rulebook, "Challenge": "your opponent
    may turn over any three of yours"), then ends the move. The three tiles turned are the
    penalty, not blue's move: no ILLEGAL MOVE? ("illegal-change") at blue's press; the beeps
    and the clock are as without a camera."""
    e = [EMPTY] * 5
    rustic = ["....r......", "....u......", "....s......", "....t......", "....i......"]
    fog = ["......O....", "......G....", EMPTY, EMPTY, EMPTY]
    turned = ["....R......", "....U......", "....S......", "....t......", "....i......"]
    shoot(
        tmp_path / "camera",
        [EMPTY] * 11,
        e + ["....CAFE..."] + e,
        rustic + ["....CAFE..."] + e,
        rustic + ["....CAFE..."] + fog,
        turned + ["....CAFE..."] + fog,
    )
    judge = set_judge({"CAFE", "RUSTIC", "FOG"})
    s = camera_support.camera_table(TABLE, judge, tmp_path / "j.jsonl", tmp_path / "camera")
    twin = camera_support.camera_table(TABLE, judge, tmp_path / "twin.jsonl")
    script = (
        "0 press red", "5 press blue", "10 press red", "12 press challenge", "13 press red",
        "14 confirm", "20 press blue", "21 sleep",
    )  # fmt: skip
    run(twin, *script[:5], "13.5 type FOG", *script[5:])  # without a camera the words are typed
    pub = run(s, *script)
    assert _words_records(s) == [["FOG"]]
    assert s.service.camera_watcher.warning is None and "ILLEGAL" not in pub.banner
    assert pub.beeps == twin.service.published.beeps
    assert clock_of(s) == clock_of(twin)


def test_a_challenges_words_read_after_it_was_settled_are_not_judged_for_the_next(
    tmp_path, classifier
):
    """The camera reads slowly: red's challenge of blue's CAFE is typed and settled before its
    reading is done, and blue's challenge of red's word then waits for its words. The words
    read for the first challenge (CAFE) are said to have come late and are not judged as the
    second's: the second is judged on red's CAFES, as read for it."""
    import threading

    cafes = [EMPTY] * 5 + ["....CAFEs.."] + [EMPTY] * 5
    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, CAFE, cafes)
    s = camera_support.camera_table(
        TABLE, set_judge({"CAFE"}), tmp_path / "j.jsonl", tmp_path / "camera"
    )
    watcher = s.service.camera_watcher
    run(s, "0 press red", "1 sleep")
    gate, read = threading.Event(), watcher.board_camera.read

    def slow(*args, **kwargs):  # a Pi reads for a second or more: here until the gate opens
        gate.wait()
        return read(*args, **kwargs)

    watcher.board_camera.read = slow
    for t, act in [
        (2, lambda: s.press("challenge")),
        (3, lambda: s.press("red")),  # red challenges blue's word in progress: a frame
        (4, lambda: s.service.line("CAFE")),  # typed before the camera is done
        (5, lambda: s.service.command("confirm")),
        (6, lambda: s.press("blue")),
        (8, lambda: s.press("challenge")),
        (9, lambda: s.press("blue")),  # blue challenges red's word in progress
    ]:
        s.at(t)
        act()
        s.service.step()  # not settle(): it would wait for the camera
    assert s.service.mode.phase == "words"
    gate.set()
    s.at(10)
    s.settle()  # the three readings are done, their news handled
    assert _words_records(s) == [["CAFE"], ["CAFES"]]


def test_a_count_answers_abandon_game_as_any_other_input(tmp_path, classifier):
    """ABANDON GAME? is asked; a count is asked for instead of the answer. The count is shown,
    and the question is answered as any other input answers it: the game goes on, and a
    confirm later abandons nothing (it used to stay armed behind the count)."""
    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, CAFE)
    s = table(tmp_path, tmp_path / "camera")
    run(s, "0 press red", "1 press blue", "2 abandon", "3 count", "4 sleep")
    assert s.service.published.message.startswith("count from the camera")
    run(s, "20 confirm", "21 sleep")
    assert not s.service.mode.finished and s.state()["status"] == "running"


def test_a_count_after_the_camera_came_back_is_not_hidden_by_it(tmp_path, classifier):
    """The camera gives no frame for a count, then gives one for the next: the camera's coming
    back is told before that count's news, so the status line ends with the count, not with
    "the camera is back"."""
    shoot(tmp_path / "camera", [EMPTY] * 11, CAFE, CAFE, CAFE)
    (tmp_path / "camera" / "02.jpg").write_bytes(b"")  # the second capture fails
    s = table(tmp_path, tmp_path / "camera")
    run(s, "0 press red", "1 count", "2 sleep")
    assert s.service.published.message.startswith("no count: camera unavailable")
    run(s, "3 count", "4 sleep")
    assert s.service.published.message.startswith("count from the camera")


def test_a_challenge_waiting_for_its_words_at_a_power_cut_is_read_on_the_restart(
    tmp_path, classifier
):
    """Red challenges blue's word being laid; the camera is still reading when the power goes.
    On the restart (paused, in the challenge) the board is read again at once and the words
    judged, as they would be typed: no press needed first. One photo file stands for the
    camera (read again at each capture)."""
    import shutil
    import threading

    shoot(tmp_path / "shots", [EMPTY] * 11, CAFE)
    camera = tmp_path / "camera.png"
    shutil.copy(tmp_path / "shots" / "01.png", camera)
    s = camera_support.camera_table(TABLE, set_judge({"CAFE"}), tmp_path / "j.jsonl", camera)
    run(s, "0 press red", "1 sleep")  # blue's move begins on the empty board
    shutil.copy(tmp_path / "shots" / "02.png", camera)  # blue lays CAFE
    gate, watcher = threading.Event(), s.service.camera_watcher
    read = watcher.board_camera.read
    watcher.board_camera.read = lambda *a, **k: (gate.wait(), read(*a, **k))[1]
    for t, who in ((2, "challenge"), (3, "red")):
        s.at(t)
        s.press(who)
        s.service.step()  # not settle(): the reading is held
    assert s.service.mode.phase == "words"
    s.kill()
    s.start_service()
    s.settle()
    gate.set()  # the dead service's reading ends; its words go nowhere
    assert s.service.mode.phase == "verdict" and _words_records(s) == [["CAFE"]]


def test_a_challenge_whose_words_the_camera_cannot_read_says_so_and_the_words_are_typed(
    tmp_path, classifier
):
    """Red challenges blue's CAFE while a hand covers the board: the camera's reading is not
    trusted, so it gives no words; that is said (the OLED's banner, the status line with the
    reader's own words), not left for the players to wait on. The words are typed and judged;
    the clock is as without a camera."""
    import cv2

    from companion.vision.synth import render_photo

    folder = tmp_path / "camera"
    folder.mkdir()
    render_photo("iago", seed=61, grid=[EMPTY] * 11, size=SMALL).save(folder / "01")
    photo = render_photo("iago", seed=62, grid=CAFE, size=SMALL)
    x, y = np.mean(photo.corners, axis=0).astype(int)
    cv2.ellipse(photo.image, (int(x), int(y)), (60, 140), 30, 0, 360, (120, 150, 200), -1)
    cv2.imwrite(str(folder / "02.png"), photo.image)  # a hand over the board
    for extra in folder.glob("*.*.*"):
        extra.unlink()
    judge = set_judge({"CAFE"})
    s = camera_support.camera_table(TABLE, judge, tmp_path / "j.jsonl", folder)
    twin = camera_support.camera_table(TABLE, judge, tmp_path / "twin.jsonl")
    script = ("0 press red", "2 press challenge", "3 press red")
    pub = run(s, *script, "4 sleep")
    run(twin, *script, "4 sleep")
    assert s.service.mode.phase == "words" and _words_records(s) == []
    expected = overlays.Banner("WORDS NOT READ", "type the words")
    assert pub.banner == str(expected)
    assert region(s.devices.display.image, overlays.BANNER_BOX) == banner_pixels(expected)
    assert s.service.message.startswith("camera unsure of the board (something covers")
    assert s.service.message.endswith("type the words")
    assert clock_of(s) == clock_of(twin)
    run(s, "5 type CAFE")
    assert _words_records(s) == [["CAFE"]] and s.service.mode.phase == "verdict"
