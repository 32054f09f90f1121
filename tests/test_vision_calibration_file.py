"""A calibration file the reader cannot use: damaged, made for another network, or holding values
that are no numbers. The reader reads without it, says so, and never trusts what such a layer
would read (docs/vision.md, "Calibrating to your set")."""

import numpy as np
import pytest

from companion.vision import cellnet
from companion.vision.errors import VisionError
from companion.vision.reader import read_board
from companion.vision.synth import render_photo


@pytest.fixture
def photo():
    return render_photo("iago", seed=31, size=(1000, 750), hand=False)


@pytest.fixture
def calibration_file(tmp_path, monkeypatch):
    """The Iago calibration's path in a data directory of the test's own."""
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    path = cellnet.calibration_path("iago")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


BAD_LAYERS = {
    "no numbers": (np.full((29, 128), np.nan, np.float32), np.zeros(29, np.float32)),
    "infinite bias": (np.zeros((29, 128), np.float32), np.full(29, np.inf, np.float32)),
    "another network's": (np.zeros((29, 64), np.float32), np.zeros(29, np.float32)),
    "too few classes": (np.zeros((3, 3), np.float32), np.zeros(3, np.float32)),
}


@pytest.mark.parametrize("kind", sorted(BAD_LAYERS))
def test_a_calibration_the_network_cannot_use_is_not_read_with_and_is_said(
    kind, calibration_file, photo
):
    """The reading is the network's own (as with no calibration), a note says the calibration
    was not used and why, and nothing raises."""
    weights, bias = BAD_LAYERS[kind]
    np.savez(calibration_file, weights=weights, bias=bias)
    net = cellnet.load_cellnet(profile="iago")
    assert net.head is None and net.calibration is None
    assert str(calibration_file) in net.calibration_problem
    reading = read_board(photo.image, "iago", corners=photo.corners)
    own = read_board(photo.image, "iago", corners=photo.corners, net=cellnet.load_cellnet())
    assert reading.grid == own.grid == photo.grid
    assert reading.trusted == own.trusted
    assert any("without your set's calibration" in n for n in reading.notes)
    assert not any("calibration" in n for n in own.notes)


def test_a_calibration_file_that_is_no_npz_is_said(calibration_file, photo):
    calibration_file.write_bytes(b"not a numpy archive")
    net = cellnet.load_cellnet(profile="iago")
    assert net.head is None and "cannot be read" in net.calibration_problem
    reading = read_board(photo.image, "iago", corners=photo.corners)
    assert reading.grid == photo.grid
    assert any("cannot be read" in n for n in reading.notes)


def test_a_usable_calibration_is_named(calibration_file):
    net = cellnet.load_cellnet()
    weights = np.zeros((29, net.feature_size), np.float32)
    np.savez(calibration_file, weights=weights, bias=np.zeros(29), model=np.array(net.model_id))
    calibrated = cellnet.load_cellnet(profile="iago")
    assert calibrated.calibration == calibration_file and calibrated.calibration_problem is None
    assert calibrated.head is not None


@pytest.mark.parametrize("model", [None, "0123456789abcdef"], ids=["none named", "another"])
def test_a_calibration_made_for_another_model_is_not_read_with(model, calibration_file, photo):
    """A model updated with the product keeps its width: a calibration made for the model
    before (or before calibrations named theirs) would read the new network's features with
    the old one's layer. It is not read with, and said: calibrate again."""
    net = cellnet.load_cellnet()
    named = {} if model is None else {"model": np.array(model)}
    layer = {"weights": np.zeros((29, net.feature_size)), "bias": np.zeros(29)}
    np.savez(calibration_file, **layer, **named)
    used = cellnet.load_cellnet(profile="iago")
    assert used.head is None and "calibrate again" in used.calibration_problem
    assert ("names no model" if model is None else model) in used.calibration_problem
    reading = read_board(photo.image, "iago", corners=photo.corners)
    assert reading.grid == photo.grid


def test_calibrate_names_the_model_it_was_made_for(calibration_file):
    from companion.vision.calibrate import calibrate, default_layout

    layout = default_layout("iago")
    shot = render_photo("iago", seed=31, size=(1000, 750), grid=layout, hand=False)
    calibrate([shot.image], "iago", layout, corners=shot.corners)
    with np.load(calibration_file) as f:
        assert str(f["model"]) == cellnet.load_cellnet().model_id
    assert cellnet.load_cellnet(profile="iago").calibration == calibration_file


@pytest.mark.parametrize("kind", sorted(BAD_LAYERS))
def test_adapting_to_a_layer_of_the_wrong_shape_or_no_numbers_is_refused(kind):
    net = cellnet.CellNet()
    with pytest.raises(VisionError, match="adapted class layer"):
        net.adapt(BAD_LAYERS[kind])
    assert net.head is None


def test_a_cell_read_with_no_number_for_its_confidence_is_never_trusted(photo):
    """Whatever gives the network's outputs no number (a class layer set by hand, bypassing the
    checks), the reading is not trusted: a confidence that is no number is not at the level."""
    net = cellnet.CellNet()
    net.head = BAD_LAYERS["no numbers"]
    reading = read_board(photo.image, "iago", corners=photo.corners, net=net)
    assert not reading.trusted
    assert not reading.count_trusted


def test_vision_read_says_a_calibration_it_cannot_use(calibration_file, photo, tmp_path, capsys):
    import cv2

    from companion.cli import main

    np.savez(calibration_file, weights=np.zeros((3, 3)), bias=np.zeros(3))
    path = tmp_path / "board.png"
    assert cv2.imwrite(str(path), photo.image)
    corners = ",".join(f"{v:.1f}" for v in np.asarray(photo.corners).reshape(-1))
    assert main(["vision", "read", str(path), f"--corners={corners}"]) == 0
    out, err = capsys.readouterr()
    assert "read without your set's calibration" in err and str(calibration_file) in err
    assert "read with the calibration" not in err


def test_adding_to_a_calibration_made_for_another_network_starts_from_the_shipped_layer(
    calibration_file,
):
    """``calibrate --add`` teaches on from the earlier layer; one the network cannot use (made
    for another network) is not taught on: the calibration starts from the shipped layer and
    replaces it with one the network reads with."""
    from companion.vision.calibrate import calibrate, default_layout

    np.savez(calibration_file, weights=np.zeros((29, 64)), bias=np.zeros(29))
    layout = default_layout("iago")
    shot = render_photo("iago", seed=31, size=(1000, 750), grid=layout, hand=False)
    result = calibrate([shot.image], "iago", layout, corners=shot.corners, replace=False)
    assert result.right_after >= result.right_before
    net = cellnet.load_cellnet(profile="iago")
    assert net.calibration == calibration_file and net.calibration_problem is None


@pytest.mark.parametrize(
    "damage", ["empty", "cut", "zip header", "garbage", "folder"], ids=lambda d: d.replace(" ", "-")
)
def test_a_damaged_calibration_file_is_said_and_nothing_raises(damage, calibration_file, photo):
    """Whatever np.load raises on a damaged file (EOFError, a bad zip, a pickle refused), or a
    folder where the file should be: the reader reads without it and says so, and calibrating
    again or resetting says what is wrong instead of raising anything else."""
    from companion.vision.calibrate import calibrate, default_layout, reset_calibration

    net = cellnet.load_cellnet()
    layer = {"weights": np.zeros((29, net.feature_size)), "bias": np.zeros(29)}
    np.savez(calibration_file, **layer, model=np.array(net.model_id))
    good = calibration_file.read_bytes()
    calibration_file.unlink()
    if damage == "folder":
        calibration_file.mkdir()
    else:
        calibration_file.write_bytes(
            {
                "empty": b"",
                "cut": good[: len(good) // 2],
                "zip header": b"PK\x03\x04" + bytes(40),
            }.get(damage, b"\x93NUMPY garbage")
        )
    used = cellnet.load_cellnet(profile="iago")
    assert used.head is None and str(calibration_file) in used.calibration_problem
    assert "--profile iago" in used.calibration_problem
    reading = read_board(photo.image, "iago", corners=photo.corners)
    assert reading.grid == photo.grid
    if damage == "folder":
        layout = default_layout("iago")
        shot = render_photo("iago", seed=31, size=(1000, 750), grid=layout, hand=False)
        with pytest.raises(VisionError, match="cannot save the calibration"):
            calibrate([shot.image], "iago", layout, corners=shot.corners)
        with pytest.raises(VisionError, match="cannot remove the calibration"):
            reset_calibration("iago")
    else:
        assert reset_calibration("iago") == calibration_file and not calibration_file.exists()


def test_the_table_logs_an_unusable_calibration_once(calibration_file, photo, tmp_path, caplog):
    """At the table the camera reads on: the set's calibration it cannot use is logged (the
    service's log), once, not at every frame."""
    import cv2

    from companion.devices.camera import FileCamera
    from companion.vision.table import BoardCamera

    np.savez(calibration_file, weights=np.zeros((3, 3)), bias=np.zeros(3))
    assert cv2.imwrite(str(tmp_path / "board.png"), photo.image)
    board_camera = BoardCamera(FileCamera(tmp_path / "board.png"), corners=photo.corners)
    with caplog.at_level("WARNING", logger="companion.vision"):
        for _ in range(2):
            assert board_camera.read().grid == photo.grid
    told = [r.getMessage() for r in caplog.records if "calibration" in r.getMessage()]
    assert len(told) == 1 and str(calibration_file) in told[0]
