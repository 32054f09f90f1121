"""Image files read as photos (read_image_file): the header's size checked before decoding, paths
that are not regular files, decoders' logs, and photos of extreme shapes."""

import os
import struct
import zlib

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.devices import camera
from companion.devices.camera import CameraError, FileCamera, _opencv_log_level, read_image_file
from companion.vision import localise


def _png_bomb(width: int, height: int) -> bytes:
    """A 1-bit grey PNG of ``width`` x ``height`` black pixels: 30000x30000 is under 0.5 MB here,
    900 megapixels (2.7 GB as a BGR frame) once decoded."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    rows = bytes(1 + (width + 7) // 8) * 1000  # each row: filter byte 0, then the bits
    z = zlib.compressobj(1)
    idat = b"".join(z.compress(rows) for _ in range(height // 1000))
    idat += z.compress(bytes(1 + (width + 7) // 8) * (height % 1000)) + z.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_a_decompression_bomb_is_refused_from_its_header(tmp_path, capsys, monkeypatch):
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_bomb(30000, 30000))

    def decoded(_data):
        raise AssertionError("decoded (17 s and 5.3 GB when it was)")

    monkeypatch.setattr(camera, "_decode_quietly", decoded)
    image, problem = read_image_file(path)
    assert image is None
    assert "declares more than 179 megapixels" in problem  # Pillow's own bound, past ours
    assert f"{camera.MAX_IMAGE_PIXELS // 1_000_000} megapixels" in problem
    assert main(["vision", "read", str(path)]) == 2
    err = capsys.readouterr().err
    assert "bomb.png: declares more than" in err and "Traceback" not in err
    with pytest.raises(CameraError, match="bomb.png declares more than"):
        FileCamera(path).capture()  # at the table: no frame, as when unplugged


def test_declared_size_reads_the_headers_of_the_formats():
    img = np.zeros((30, 40, 3), np.uint8)
    for ext in (".jpg", ".png", ".bmp", ".tiff", ".webp"):
        ok, enc = cv2.imencode(ext, img)
        assert camera.declared_size(enc.tobytes()) == (40, 30), ext
        assert camera.image_size_problem(enc.tobytes()) is None, ext
    # an EXIF thumbnail's own start-of-frame (10x8) is inside APP1, skipped: the photo's counts
    ok, thumb = cv2.imencode(".jpg", img[::4, ::4])
    body = b"Exif\x00\x00" + thumb.tobytes()
    jpeg = cv2.imencode(".jpg", img)[1].tobytes()
    jpeg = jpeg[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + jpeg[2:]
    assert camera.declared_size(jpeg) == (40, 30)
    # a small JPEG whose start-of-frame declares 12000 x 10000 (over the limit, under Pillow's)
    sof = jpeg.rindex(b"\xff\xc0")  # the photo's, after the thumbnail's
    big = jpeg[: sof + 5] + struct.pack(">HH", 10000, 12000) + jpeg[sof + 9 :]
    assert camera.declared_size(big) == (12000, 10000)
    assert "12000x10000 pixels in its header, over the limit" in camera.image_size_problem(big)
    assert "is not an image read here" in camera.image_size_problem(b"not an image")


def test_a_header_pillow_refuses_is_still_refused(tmp_path, monkeypatch):
    from PIL import Image

    path = tmp_path / "big.tiff"
    assert cv2.imwrite(str(path), np.zeros((30, 40, 3), np.uint8))
    monkeypatch.setattr(camera, "MAX_IMAGE_PIXELS", 1000)
    assert "40x30 pixels" in read_image_file(path)[1]  # Pillow read the header
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 500)  # Pillow raises past 1000
    assert "declares more than" in read_image_file(path)[1]


def test_paths_that_are_not_regular_files_are_named_so(tmp_path):
    assert read_image_file(tmp_path)[1] == "is a directory, not an image file"
    assert read_image_file(tmp_path / "none.jpg")[1] == "does not exist"
    if os.path.exists(os.devnull):  # /dev/null: not "no such file", nor "empty"
        assert read_image_file(os.devnull)[1] == "is a character device, not an image file"
    if hasattr(os, "mkfifo"):  # a named pipe: refused, not read (that would wait for a writer)
        os.mkfifo(tmp_path / "pipe.jpg")
        assert read_image_file(tmp_path / "pipe.jpg")[1] == "is a named pipe, not an image file"
        os.symlink(tmp_path / "gone.jpg", tmp_path / "link.jpg")
        assert (
            "symbolic link to a file that does not exist"
            in read_image_file(tmp_path / "link.jpg")[1]
        )


def test_a_cut_tiff_is_named_without_opencvs_log(tmp_path, capfd):
    ok, enc = cv2.imencode(".tiff", np.zeros((300, 400, 3), np.uint8) + 77)
    path = tmp_path / "cut.tiff"
    path.write_bytes(enc.tobytes()[: len(enc) // 2])
    get_level = _opencv_log_level(cv2)[0]
    level = get_level()
    image, problem = read_image_file(path)
    assert image is None and "cut short" in problem
    assert get_level() == level  # restored
    err = capfd.readouterr().err
    assert "TIFF_Error" not in err and "[ERROR" not in err and "Warning" not in err


@pytest.mark.parametrize("shape", [(5, 30000), (30000, 5), (1, 100000), (1, 1)])
def test_reduce_never_makes_a_side_of_zero(shape):
    grey, f = localise.reduce(np.full(shape + (3,), 128, np.uint8))
    assert min(grey.shape) >= 1 and max(grey.shape) <= localise.FIND_PX


def test_a_strip_of_a_photo_is_no_grid_found_not_a_traceback(tmp_path, capsys):
    path = tmp_path / "tall.png"
    assert cv2.imwrite(str(path), np.full((5, 30000, 3), 128, np.uint8))
    assert main(["vision", "read", str(path)]) == 2
    assert "no 11x11 grid found" in capsys.readouterr().err


def test_a_header_whose_size_cannot_be_read_is_refused_before_decoding(tmp_path, monkeypatch):
    """OpenCV decodes, up to a gigapixel, files whose header Pillow cannot read (a JPEG with a
    short Adobe segment before its frame header, a format Pillow does not know): with no size
    read, the file is refused before it is decoded, and one plugin's own error is no traceback."""
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (16, 16)).save(buf, "JPEG")
    data = buf.getvalue()
    sof = data.index(b"\xff\xc0")
    big = data[: sof + 5] + struct.pack(">HH", 30000, 30000) + data[sof + 9 :]
    (tmp_path / "adobe.jpg").write_bytes(data[:2] + b"\xff\xee\x00\x07Adobe" + big[2:])
    (tmp_path / "image.hdr").write_bytes(
        b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 20000 +X 20000\n"
    )

    def decoded(_data):
        raise AssertionError("decoded")

    monkeypatch.setattr(camera, "_decode_quietly", decoded)
    image, problem = read_image_file(tmp_path / "adobe.jpg")
    assert image is None and "header whose size cannot be read" in problem
    image, problem = read_image_file(tmp_path / "image.hdr")
    assert image is None and "is not an image read here" in problem

    def plugin_fault(*_args, **_kwargs):
        raise NotImplementedError("Unimplemented pixel format 0")

    monkeypatch.setattr(Image, "open", plugin_fault)
    assert "header whose size cannot be read" in camera.image_size_problem(b"DDS damaged")


def test_opencvs_log_level_is_found_in_either_binding_or_left_alone():
    """OpenCV 5 offers its log level in ``cv2.utils.logging``; the OpenCV 4.11 wheel a Pi
    installs (seen under make pi-check) only as ``cv2.getLogLevel``/``setLogLevel``, where the
    first form raised AttributeError and no image could be read; a build with neither is read
    with its log left as it is."""
    from types import SimpleNamespace

    levels = [3]
    pi = SimpleNamespace(utils=SimpleNamespace(), getLogLevel=lambda: levels[-1],
                         setLogLevel=levels.append)  # fmt: skip
    get, set_, warning, silent = _opencv_log_level(pi)
    assert (get(), warning, silent) == (3, 3, 0)
    set_(silent)
    assert levels == [3, 0]
    assert _opencv_log_level(SimpleNamespace(utils=SimpleNamespace())) is None
    assert _opencv_log_level(cv2) is not None  # this machine's OpenCV has one of the two
