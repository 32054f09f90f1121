"""Cameras: image files standing in for a camera, clear errors for a camera that is not there."""

import sys

import cv2
import numpy as np
import pytest

from companion.devices.camera import (
    CameraError,
    FileCamera,
    OpenCVCamera,
    PiCamera,
    explain_picamera2_failure,
    open_camera,
    picamera2_problem,
)
from companion.errors import CompanionError


def _write(path, value):
    img = np.full((30, 40, 3), value, np.uint8)
    img[:, :, 2] = 250  # red channel last: BGR order is kept
    assert cv2.imwrite(str(path), img)
    return img


def test_file_camera_serves_one_file_again_and_again(tmp_path):
    img = _write(tmp_path / "board.png", 10)
    cam = open_camera({"kind": "files", "folder": str(tmp_path / "board.png")})
    for _ in range(2):
        frame = cam.capture()
        assert frame.shape == (30, 40, 3) and frame.dtype == np.uint8
        assert np.array_equal(frame, img)
    _write(tmp_path / "board.png", 99)  # the board changed: the camera sees it
    assert cam.capture()[0, 0, 0] == 99


def test_folder_camera_serves_images_in_name_order_then_repeats_the_last(tmp_path):
    _write(tmp_path / "b.png", 2)
    _write(tmp_path / "a.png", 1)
    (tmp_path / "notes.txt").write_text("not an image")
    cam = FileCamera(tmp_path)
    assert [int(cam.capture()[0, 0, 0]) for _ in range(3)] == [1, 2, 2]


def test_missing_file_is_a_clear_error_and_the_problem_is_kept(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        FileCamera(tmp_path / "nowhere.jpg")
    path = tmp_path / "board.png"
    _write(path, 5)
    cam = FileCamera(path)
    path.unlink()  # unplugged
    with pytest.raises(CameraError, match="missing") as info:
        cam.capture()
    assert isinstance(info.value, CompanionError) and isinstance(info.value, ValueError)
    assert cam.problem.startswith("camera unavailable")
    _write(path, 6)
    cam.capture()
    assert cam.problem is None


def test_a_file_that_is_not_an_image(tmp_path):
    (tmp_path / "x.jpg").write_text("text")
    with pytest.raises(CameraError, match="not an image"):
        FileCamera(tmp_path / "x.jpg").capture()


def test_empty_folder(tmp_path):
    with pytest.raises(CameraError, match="holds no image"):
        FileCamera(tmp_path)


def test_a_folder_emptied_mid_game_says_what_images_it_takes(tmp_path):
    """As at the start: the folder named, what is wrong, and the images taken (a photo named
    .webp or .JPG~ by the program copying them in is not one)."""
    _write(tmp_path / "01.png", 10)
    cam = FileCamera(tmp_path)
    cam.capture()
    (tmp_path / "01.png").rename(tmp_path / "01.webp")
    with pytest.raises(CameraError, match=r"holds no image \(\.jpg, \.jpeg, \.png, \.bmp"):
        cam.capture()


def test_open_camera_kinds():
    assert open_camera({"kind": "none"}) is None
    assert open_camera({}) is None
    with pytest.raises(CameraError, match="accepted: none, picamera2, opencv, files"):
        open_camera({"kind": "webcam"})
    with pytest.raises(CameraError, match="needs folder"):
        open_camera({"kind": "files"})


def test_opencv_camera_that_is_not_plugged_in():
    with pytest.raises(CameraError, match="cannot open"):
        OpenCVCamera("/dev/video-not-here")


@pytest.mark.parametrize("device", [99999999999999999999, -1, 200, True, ""])
def test_opencv_camera_refuses_a_device_opencv_cannot_take(device):
    # a huge index made OpenCV raise its own "Overload resolution failed"; -1 crashed it
    with pytest.raises(CameraError, match=r"accepted an index 0 to 99 .* or a device path"):
        OpenCVCamera(device)


def test_pi_camera_without_picamera2():
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraError, match="camera software is not installed"):
            PiCamera(0)
    else:  # pragma: no cover - on a Pi
        pytest.skip("picamera2 is installed")


def _stage_picamera2(tmp_path, monkeypatch, body: str) -> None:
    # a picamera2 package whose import fails as the real one does on a broken install
    package = tmp_path / "staged" / "picamera2"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body)
    monkeypatch.syspath_prepend(str(package.parent))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)


def test_a_numpy_abi_failure_is_explained_not_only_import_errors(tmp_path, monkeypatch):
    # simplejpeg built against numpy 1.x, loaded under pip's numpy 2: Cython raises ValueError
    _stage_picamera2(
        tmp_path,
        monkeypatch,
        "raise ValueError('numpy.dtype size changed, may indicate binary incompatibility. "
        "Expected 96 from C header, got 88 from PyObject')\n",
    )
    problem = picamera2_problem()
    assert problem is not None
    assert "hides Raspberry Pi OS's numpy 1.24" in problem and "sudo make install" in problem
    with pytest.raises(CameraError) as caught:
        PiCamera(0)
    assert "numpy" in str(caught.value)
    assert caught.value.args  # the screen's text is kept too


def test_a_missing_libcamera_binding_is_named(tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "libcamera", raising=False)
    _stage_picamera2(tmp_path, monkeypatch, "import libcamera_not_here_either as libcamera\n")
    assert "does not load" in picamera2_problem()
    err = ModuleNotFoundError("No module named 'libcamera'", name="libcamera")
    assert "python3-libcamera" in explain_picamera2_failure(err, "1.24.2")


def test_numpy_2_importing_numpy_1_extensions_is_explained():
    err = ImportError("numpy.core.multiarray failed to import")
    text = explain_picamera2_failure(err, "2.2.6")
    assert "numpy 2.2.6 from pip" in text
    other = explain_picamera2_failure(OSError("libcamera.so.0.3: cannot open"), "1.24.2")
    assert other.startswith("the camera software (picamera2) does not load: OSError")


def test_picamera2_that_imports_is_no_problem(tmp_path, monkeypatch):
    _stage_picamera2(tmp_path, monkeypatch, "class Picamera2: pass\n")
    assert picamera2_problem() is None


# -- cut and corrupt image files ---------------------------------------------------------------


def _photo_jpeg(with_thumbnail=False):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)
    ok, enc = cv2.imencode(".jpg", img)
    data = enc.tobytes()
    if with_thumbnail:
        # an EXIF-like APP1 segment holding a whole little JPEG, with its own FF D9
        ok, thumb = cv2.imencode(".jpg", img[::4, ::4])
        body = b"Exif\x00\x00" + thumb.tobytes()
        app1 = b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body
        data = data[:2] + app1 + data[2:]
    return data


def test_image_data_problem_finds_cut_files():
    from companion.devices.camera import image_data_problem

    for data in (_photo_jpeg(), _photo_jpeg(with_thumbnail=True)):
        assert image_data_problem(data) is None
        assert "truncated" in image_data_problem(data[: len(data) // 2])
        assert "truncated" in image_data_problem(data[:-2])  # only the end marker lost
    thumbed = _photo_jpeg(with_thumbnail=True)
    assert b"\xff\xd9" in thumbed[: len(thumbed) // 2]  # the thumbnail's end does not count
    assert "truncated" in image_data_problem(thumbed[:300])  # cut inside the headers
    ok, png = cv2.imencode(".png", np.zeros((20, 20, 3), np.uint8))
    assert image_data_problem(png.tobytes()) is None
    assert "IEND" in image_data_problem(png.tobytes()[:-12])
    ok, bmp = cv2.imencode(".bmp", np.zeros((20, 20, 3), np.uint8))
    assert image_data_problem(bmp.tobytes()) is None
    assert "truncated" in image_data_problem(bmp.tobytes()[:100])
    assert "empty" in image_data_problem(b"")


def test_file_camera_treats_a_cut_jpeg_as_no_frame(tmp_path):
    data = _photo_jpeg(with_thumbnail=True)
    path = tmp_path / "board.jpg"
    path.write_bytes(data)
    cam = FileCamera(path)
    assert cam.capture().shape == (120, 160, 3)
    path.write_bytes(data[:5000])  # being rewritten, or cut short
    with pytest.raises(CameraError, match="board.jpg is truncated"):
        cam.capture()
    assert "truncated" in cam.problem


def test_file_camera_names_a_directory_among_images(tmp_path):
    from companion.devices.camera import read_image_file

    image, problem = read_image_file(tmp_path)
    assert image is None and "is a directory" in problem


def test_a_file_replaced_while_it_is_read_is_decoded_as_it_was_checked(tmp_path, monkeypatch):
    """The photo is checked from its bytes; a file rewritten between that read and the decoding
    (being copied in, cut short at that moment) must not be decoded unchecked: the frame is the
    one checked (OpenCV decodes a cut JPEG from a path, grey filling the rest)."""
    from pathlib import Path

    data = _photo_jpeg()
    path = tmp_path / "board.jpg"
    path.write_bytes(data)
    expected = FileCamera(path).capture()
    read_bytes = Path.read_bytes

    def read_then_replaced(self):
        got = read_bytes(self)
        self.write_bytes(data[: len(data) // 2])  # a new photo being written, half there
        return got

    monkeypatch.setattr(Path, "read_bytes", read_then_replaced)
    assert np.array_equal(FileCamera(path).capture(), expected)


class _Webcam:
    """cv2.VideoCapture over a USB webcam that can be unplugged: a capture opened while it is
    plugged in gives frames until it is unplugged, and none after, even once it is plugged in
    again (its device went away: V4L2 makes a new one); a capture opened again then does."""

    plugged = True

    def __init__(self, device):
        self.alive = _Webcam.plugged

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return self.alive

    def set(self, prop, value):
        return True

    def grab(self):
        return self.alive and _Webcam.plugged

    def read(self):
        if not (self.alive and _Webcam.plugged):
            self.alive = False
            return False, None
        return True, np.zeros((4, 6, 3), np.uint8)

    def release(self):
        self.alive = False


def test_an_opencv_camera_unplugged_and_plugged_in_again_gives_frames_again(monkeypatch):
    monkeypatch.setattr(cv2, "VideoCapture", _Webcam)
    monkeypatch.setattr(_Webcam, "plugged", True)
    cam = OpenCVCamera(0)
    assert cam.capture().shape == (4, 6, 3)
    _Webcam.plugged = False
    with pytest.raises(CameraError, match="OpenCV camera 0"):
        cam.capture()
    with pytest.raises(CameraError, match="OpenCV camera 0"):
        cam.capture()
    assert cam.problem.startswith("camera unavailable")
    _Webcam.plugged = True
    assert cam.capture().shape == (4, 6, 3)
    assert cam.problem is None


def test_a_folder_that_cannot_be_read_is_a_camera_error_naming_it(tmp_path, monkeypatch):
    """A folder whose listing is refused (no permission; root is never refused, so staged) is
    a CameraError naming it and why, at the start as at a capture, not a PermissionError."""
    from pathlib import Path

    _write(tmp_path / "01.png", 10)
    cam = FileCamera(tmp_path)

    def refused(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", refused)
    for make in (lambda: FileCamera(tmp_path), cam.capture):
        with pytest.raises(CameraError, match=r"folder .* cannot be read \(Permission denied\)"):
            make()
