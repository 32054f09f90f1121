"""Cameras behind one interface: a frame is a uint8 (H, W, 3) array in BGR channel order.

Kinds (the pin map's ``[camera] kind``):

- ``picamera2``: a Camera Module on a Raspberry Pi's CSI connector (``camera_num``, default 0).
  picamera2 is imported lazily, inside the class. Its ``RGB888`` format is, despite the name, BGR
  in memory (libcamera's naming; Picamera2 manual, "4.2.2 Image formats"), which is what OpenCV
  and the board reader expect, so frames are used as they come.
- ``opencv``: any camera OpenCV's VideoCapture opens (``device``: an index 0 to 99, or a path
  such as "/dev/video0"; another is refused before OpenCV sees it).
- ``files``: image files standing in for a camera (the simulator's camera). ``folder`` is one
  image file, read again at every capture (replace the file and the camera sees the new board), or a
  folder whose images are served in name order, one a capture, the last one repeating.

``width`` and ``height`` (pixels) ask the real cameras for that frame size.

A camera that cannot give a frame raises :class:`CameraError` (a DeviceError: CompanionError and
ValueError) naming the camera and the cause, and keeps the text in ``problem`` for the screen;
nothing here ever stops the clock.
"""

from __future__ import annotations

import io
import stat
import threading
import warnings
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from companion.devices.base import DeviceError

CAMERA_KINDS = ("none", "picamera2", "opencv", "files")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff")


class CameraError(DeviceError):
    """A camera that cannot be opened or cannot give a frame (unplugged, busy, missing file)."""


def _jpeg_problem(data: bytes) -> str | None:
    # walk the header segments (each FF xx and a 2-byte length) to the first start of scan
    # (FF DA); an end-of-image marker (FF D9) must follow it. An EXIF thumbnail's own FF D9 lies
    # inside a header segment, so it is skipped, and the scan's data never holds FF D9 (an FF
    # there is followed by 00 or a restart marker D0-D7). ITU-T T.81, B.1.1 and B.2.
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return "is a corrupt JPEG (no segment marker where one belongs)"
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker == 0xD9:
            return "is a corrupt JPEG (it ends before its image data)"
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker == 0xDA:
            if data.find(b"\xff\xd9", i + 2 + length) == -1:
                return "is truncated: the JPEG has no end-of-image marker (FF D9); it was cut short"
            return None
        i += 2 + length
    return "is truncated: the JPEG ends in its headers, before any image data"


def image_data_problem(data: bytes) -> str | None:
    """What is wrong with an image file's bytes, or None if nothing is seen: an empty file, a JPEG
    without its end-of-image marker after the image data, a PNG without its IEND chunk, a BMP
    shorter than its header says. Other formats are left to the decoder. OpenCV decodes a cut
    JPEG without an error (libjpeg only warns and fills the rest with grey), so this is checked
    first.

    Args:
        data: the file's bytes.
    """
    if not data:
        return "is empty (0 bytes)"
    if data[:2] == b"\xff\xd8":
        return _jpeg_problem(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if data.rfind(b"IEND", 8) == -1:
            return "is truncated: the PNG has no IEND chunk; it was cut short"
        return None
    if data[:2] == b"BM" and len(data) >= 6:
        declared = int.from_bytes(data[2:6], "little")
        if declared > len(data):
            return f"is truncated: the BMP holds {len(data)} of its {declared} bytes"
    return None


# the most pixels an image file may declare, checked from its header before decoding: a small
# PNG or JPEG of one flat colour can declare 30000x30000 pixels (a "decompression bomb", 1 MB that
# took 17 s and 5.3 GB to decode). The Camera Module 3 gives 12 MP, phones 12 MP by default and 50
# or 64 MP at full size (8160x6144, 9248x6936), so 100 MP passes any real photo of a board but a
# phone's 108 or 200 MP mode. Reading costs about 6.4 bytes a pixel at its peak (the BGR frame, its
# grey copy, the reduced copies: `vision read` peaks at 125 MB for 12 MP, 350 MB for 50 MP, 640 MB
# for 100 MP), so a Zero 2 W (512 MB) reads up to about 50 MP: scale a bigger photo down for it.
MAX_IMAGE_PIXELS = 100_000_000


def declared_size(data: bytes) -> tuple[int, int]:
    """The (width, height) in pixels an image file's header declares, read by Pillow without
    decoding the image.

    Args:
        data: the file's bytes.

    Raises:
        PIL.UnidentifiedImageError: not an image format Pillow knows.
        PIL.Image.DecompressionBombError: Pillow refuses a header past twice its own limit
            (``PIL.Image.MAX_IMAGE_PIXELS``, 89 MP) without saying the size.
        Exception: the header is cut short or damaged (each format's plugin raises its own:
            OSError, SyntaxError, struct.error, NotImplementedError...).
    """
    from PIL import Image

    with warnings.catch_warnings():  # its DecompressionBombWarning, "Corrupt EXIF data"...
        warnings.simplefilter("ignore")
        with Image.open(io.BytesIO(data)) as image:
            return image.size


def image_size_problem(data: bytes) -> str | None:
    """What is wrong with the size an image file's header declares (:func:`declared_size`), or
    None: more pixels than :data:`MAX_IMAGE_PIXELS`, or no size to read (not an image Pillow
    knows, or a header cut short or damaged): OpenCV would decode such a file up to a gigapixel
    unchecked.

    Args:
        data: the file's bytes.
    """
    from PIL import Image, UnidentifiedImageError

    why = "a decompression bomb? a photo that large should be scaled down first"
    limit = f"the most read is {MAX_IMAGE_PIXELS // 1_000_000} megapixels ({why})"
    try:
        width, height = declared_size(data)
    except Image.DecompressionBombError:
        over = 2 * (Image.MAX_IMAGE_PIXELS or 0) / 1e6
        return f"declares more than {over:.0f} megapixels in its header; {limit}"
    except Exception as exc:  # noqa: BLE001 - each format's plugin raises its own on a damaged
        # header, and Pillow says of one it gave up on that it knows no such image
        if isinstance(exc, UnidentifiedImageError) and not data.startswith(_IMAGE_MAGIC):
            return "is not an image read here; accepted: JPEG, PNG, BMP, TIFF, WebP photos"
        return "has a header whose size cannot be read (cut short or damaged)"
    if width * height <= MAX_IMAGE_PIXELS:
        return None
    return f"declares {width}x{height} pixels in its header, over the limit; {limit}"


_TIFF_MAGIC = (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+")
# how the files of the formats read here begin: JPEG, PNG, BMP, WebP (RIFF), TIFF
_IMAGE_MAGIC = (b"\xff\xd8", b"\x89PNG", b"BM", b"RIFF", *_TIFF_MAGIC)


def _not_a_regular_file(mode: int) -> str:
    kinds = (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
    )
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    return f"is {kind}, not an image file"


def _decode_quietly(data: bytes):
    # the bytes checked are the bytes decoded: a file rewritten after it was read (a new photo
    # being copied in) is not decoded unchecked from its path, where OpenCV decodes a cut JPEG
    # with grey filling the rest. OpenCV's decoders log their own errors on stderr
    # ("[ERROR:0@0.2] global grfmt_tiff.cpp:117 TIFF_Error ...") before imdecode returns None,
    # and the caller says what is wrong; at the default level (WARNING) they are silenced for
    # the call, and a level set higher to see them (OPENCV_LOG_LEVEL=INFO or DEBUG) is kept.
    # libjpeg's own warnings ("Corrupt JPEG data") are not OpenCV's log and still show.
    import cv2

    buffer = np.frombuffer(data, np.uint8)
    log = _opencv_log_level(cv2)
    if log is None:  # an OpenCV that lets no one set its log level: its lines show
        return cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    get, set_, warning, silent = log
    level = get()
    if level == warning:  # the default: a level set otherwise is kept
        set_(silent)
    try:
        return cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    finally:
        set_(level)


def _opencv_log_level(cv2):
    """OpenCV's log level as this build of its Python binding offers it: ``(get, set, WARNING,
    SILENT)``, or None. OpenCV 5 (PyPI here) has ``cv2.utils.logging``; OpenCV 4.11 (PyPI's
    arm64 wheel on the Pi, seen under ``make pi-check``) has only ``cv2.getLogLevel`` and
    ``cv2.setLogLevel``, taking the levels of ``opencv2/core/utils/logger.defines.hpp``
    (LOG_LEVEL_SILENT 0, LOG_LEVEL_WARNING 3)."""
    logging = getattr(getattr(cv2, "utils", None), "logging", None)
    if logging is not None:
        return (
            logging.getLogLevel,
            logging.setLogLevel,
            logging.LOG_LEVEL_WARNING,
            logging.LOG_LEVEL_SILENT,
        )
    if hasattr(cv2, "getLogLevel") and hasattr(cv2, "setLogLevel"):
        return cv2.getLogLevel, cv2.setLogLevel, 3, 0
    return None


def read_image_file(path: str | Path) -> tuple[np.ndarray | None, str | None]:
    """Decode an image file as uint8 (H, W, 3) BGR, checking it first: a regular file, not cut
    short (:func:`image_data_problem`), of at most :data:`MAX_IMAGE_PIXELS` pixels by its header
    (:func:`image_size_problem`), so that a decompression bomb is refused before it is decoded.

    Returns:
        (image, None), or (None, problem): what is wrong, a phrase to follow the file's name
        ("does not exist", "is a directory...", "is a character device...", "is truncated: ...",
        "declares 30000x30000 pixels...", "is not an image...").
    """
    import cv2

    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():
            return None, "is a symbolic link to a file that does not exist"
        return None, "does not exist"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"
    if stat.S_ISDIR(mode):
        return None, "is a directory, not an image file"
    if not stat.S_ISREG(mode):  # /dev/null reads as empty, /dev/zero and a pipe never end
        return None, _not_a_regular_file(mode)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, "does not exist"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror})"
    problem = image_data_problem(data) or image_size_problem(data)
    if problem:
        return None, problem
    try:
        frame = _decode_quietly(data)
    except cv2.error as exc:
        # OpenCV refuses, with an exception, a header that declares more pixels than it
        # decodes (2**30 by default: a decompression bomb, or a panorama far past any camera's)
        if "CV_IO_MAX_IMAGE_PIXELS" in str(exc):
            return None, "declares more pixels than OpenCV reads (2**30: a photo that large?)"
        return None, f"is not an image OpenCV can read (JPEG, PNG, BMP, TIFF...): {exc.err}"
    if frame is None:
        if data[:4] in _TIFF_MAGIC:
            return None, "is a TIFF OpenCV cannot decode (cut short or damaged?)"
        return None, "is not an image OpenCV can read (JPEG, PNG, BMP, TIFF...)"
    return frame, None


@runtime_checkable
class Camera(Protocol):
    """A source of photos of the board."""

    name: str
    problem: str | None

    def capture(self) -> np.ndarray:
        """A new frame: uint8 array (H, W, 3), BGR channel order.

        Raises:
            CameraError: no frame (the camera is unplugged, busy or the file is missing).
        """

    def close(self) -> None:
        """Release the camera."""


class _Base:
    name = "camera"

    def __init__(self) -> None:
        self.problem: str | None = None
        self._lock = threading.Lock()

    def _fail(self, message: str) -> CameraError:
        self.problem = f"camera unavailable: {message}"
        return CameraError(f"{self.name}: {message}")

    def capture(self) -> np.ndarray:
        with self._lock:
            try:
                frame = self._grab()
            except CameraError:
                raise
            except Exception as exc:  # noqa: BLE001 - any driver failure is "no frame"
                raise self._fail(f"{type(exc).__name__}: {exc}") from None
            if (
                not isinstance(frame, np.ndarray)
                or frame.ndim != 3
                or frame.shape[2] != 3
                or frame.dtype != np.uint8
            ):
                raise self._fail("the frame is not a colour image (H, W, 3) of uint8")
            self.problem = None
            return frame

    def _grab(self) -> np.ndarray:  # pragma: no cover - every kind overrides it
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class FileCamera(_Base):
    """Image files standing in for a camera (see the module docstring).

    Args:
        path: one image file, or a folder of images (.jpg, .jpeg, .png, .bmp, .tif).

    Raises:
        CameraError: the path does not exist, or the folder holds no image.
    """

    def __init__(self, path: str | Path):
        super().__init__()
        self.path = Path(path)
        self.name = f"file camera {self.path}"
        if not self.path.exists():
            raise self._fail(f"{self.path} does not exist (an image file or a folder of images)")
        self._next = 0
        if self.path.is_dir() and not self._images():
            raise self._fail(f"folder {self.path} holds no image ({', '.join(IMAGE_SUFFIXES)})")

    def _images(self) -> list[Path]:
        try:
            names = list(self.path.iterdir())
        except OSError as exc:  # no permission, the folder gone meanwhile, a dead disk
            raise self._fail(f"folder {self.path} cannot be read ({exc.strerror})") from None
        return sorted(p for p in names if p.suffix.lower() in IMAGE_SUFFIXES)

    def _grab(self) -> np.ndarray:
        if self.path.is_dir():
            images = self._images()
            if not images:
                raise self._fail(f"folder {self.path} holds no image ({', '.join(IMAGE_SUFFIXES)})")
            path = images[min(self._next, len(images) - 1)]
            self._next += 1
        else:
            path = self.path
        if not path.exists():
            raise self._fail(f"{path} is missing")
        frame, problem = read_image_file(path)
        if problem:
            raise self._fail(f"{path} {problem}")
        return frame


class OpenCVCamera(_Base):
    """A camera opened by OpenCV's VideoCapture (USB webcams, V4L2 devices).

    Args:
        device: an index (0) or a device path ("/dev/video0").
        width, height: the frame size to ask for, pixels (None: the camera's default).

    Raises:
        CameraError: the device cannot be opened.
    """

    def __init__(self, device: int | str = 0, width: int | None = None, height: int | None = None):
        super().__init__()
        from companion.devices.pinmap import CAMERA_DEVICE_ACCEPTED, camera_device_ok

        self.name = f"OpenCV camera {device}"
        if not camera_device_ok(device):  # OpenCV would refuse it in its own words, or crash
            raise self._fail(f"device {device!r}: accepted {CAMERA_DEVICE_ACCEPTED}")
        self._device, self._size = device, (width, height)
        self._cap = self._open()
        if self._cap is None:
            raise self._fail(f"cannot open {device!r} (unplugged or used by another program?)")

    def _open(self):
        """The device opened, its frame size asked for; None when it cannot be opened."""
        import cv2

        cap = cv2.VideoCapture(self._device)
        if not cap.isOpened():
            cap.release()
            return None
        width, height = self._size
        if width:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, int(width))
        if height:
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, int(height))
        return cap

    def _grab(self) -> np.ndarray:
        if self._cap is None:
            # lost at a capture before (unplugged): a capture once open gives no frame again
            # when its device comes back (V4L2 makes it anew), so it is opened again
            self._cap = self._open()
            if self._cap is None:
                raise self._fail(f"cannot open {self._device!r} (unplugged?)")
        # the driver may hold a stale frame: take the newest
        self._cap.grab()
        ok, frame = self._cap.read()
        if not ok or frame is None:
            self._cap.release()
            self._cap = None  # opened again at the next capture
            raise self._fail("no frame (unplugged?)")
        return frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()


SETTLE_FRAMES = 40  # at most this many frames are waited for the exposure to settle (~2 s)
SETTLE_CHANGE = 0.05  # exposure time and gain that change less than this between frames: settled


def wait_for_exposure(next_metadata, max_frames: int = SETTLE_FRAMES) -> tuple[bool, int]:
    """Wait, frame by frame, until the camera's automatic exposure has settled.

    Settled: the frame's metadata says ``AeLocked``, or its ``ExposureTime`` and ``AnalogueGain``
    changed by less than ``SETTLE_CHANGE`` over the last three frames (``AeLocked`` is missing or
    never set on some libcamera versions). A frame taken right after ``start()`` is under- or
    over-exposed: the board would read wrong.

    Args:
        next_metadata: called once a frame, returns that frame's metadata dict (picamera2's
            ``capture_metadata``; it waits for the next frame itself, so nothing sleeps here).
        max_frames: frames to wait at most.

    Returns:
        (settled, frames waited).
    """
    history: list[tuple[float, float]] = []
    for k in range(1, max_frames + 1):
        meta = next_metadata() or {}
        if meta.get("AeLocked") is True:
            return True, k
        exposure, gain = meta.get("ExposureTime"), meta.get("AnalogueGain")
        if exposure is None or gain is None:
            continue
        history.append((float(exposure), float(gain)))
        if len(history) >= 3:
            last = history[-3:]
            steady = all(
                abs(a[i] - b[i]) <= SETTLE_CHANGE * max(abs(b[i]), 1e-9)
                for a, b in zip(last, last[1:], strict=False)
                for i in (0, 1)
            )
            if steady:
                return True, k
    return False, max_frames


def _numpy_version() -> str:
    return str(np.__version__)


def explain_picamera2_failure(exc: BaseException, numpy_version: str | None = None) -> str:
    """What a failed ``import picamera2`` means, in words a player (or the builder) can act on.

    picamera2 comes from Raspberry Pi OS (``python3-picamera2``), seen from the service's venv
    through ``--system-site-packages``. Its compiled parts (simplejpeg, PiDNG) are built against
    Debian's numpy 1.24; a numpy 2 installed by pip into the venv hides that one and they fail,
    not with an ImportError but with ``ValueError: numpy.dtype size changed`` (Cython's check) or
    "compiled using NumPy 1.x cannot be run in NumPy 2" (picamera2 issue #1079).

    Args:
        exc: what the import raised.
        numpy_version: the numpy loaded (default: this process's).
    """
    text = f"{type(exc).__name__}: {exc}"
    numpy_version = numpy_version or _numpy_version()
    missing = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if missing == "picamera2":
        return (
            "the camera software is not installed: on Raspberry Pi OS run `sudo apt install "
            "python3-picamera2`, then `sudo make install` (its venv sees it)"
        )
    if missing == "libcamera":
        return (
            "the camera's libcamera binding (python3-libcamera) is missing: it comes with "
            "Raspberry Pi OS; run `sudo apt install python3-picamera2` there"
        )
    abi = ("dtype size changed", "NumPy 1.x cannot be run in NumPy 2", "multiarray failed to import",
           "_ARRAY_API not found", "numpy.core")  # fmt: skip
    if any(marker in text for marker in abi) or numpy_version.startswith("2"):
        return (
            f"the camera software does not load: numpy {numpy_version} from pip hides Raspberry "
            "Pi OS's numpy 1.24, which picamera2's JPEG library is built for. Run `sudo make "
            f"install` again (it keeps numpy below 2). ({text})"
        )
    return f"the camera software (picamera2) does not load: {text}"


def picamera2_problem() -> str | None:
    """None when picamera2 imports here, else what is wrong (:func:`explain_picamera2_failure`).
    Any exception of the import is caught, not only ImportError."""
    try:
        import picamera2  # noqa: F401  Pi only: apt install python3-picamera2
    except Exception as exc:  # noqa: BLE001 - a broken extension raises ValueError, OSError...
        return explain_picamera2_failure(exc)
    return None


class PiCamera(_Base):
    """A Raspberry Pi Camera Module through picamera2 (imported here, lazily).

    Frames are ``RGB888``, which is BGR in memory (Picamera2 manual, "Image formats"). Before the
    first frame the automatic exposure is waited for (:func:`wait_for_exposure`, from the frames'
    metadata); a frame still too dark to read is refused by the reader (not ``trusted``).

    Args:
        camera_num: which camera (0 for the first CSI connector).
        width, height: still size in pixels (default 2304x1296, Camera Module 3's 2x2 binned mode:
            3 MP, plenty for a board).

    Raises:
        CameraError: picamera2 is not installed, or the camera cannot be started.
    """

    def __init__(self, camera_num: int = 0, width: int | None = None, height: int | None = None):
        super().__init__()
        self.name = f"Pi camera {camera_num}"
        problem = picamera2_problem()
        if problem:
            raise self._fail(problem)
        from picamera2 import Picamera2  # Pi only: apt install python3-picamera2

        try:
            self._cam = Picamera2(camera_num)
            size = (int(width or 2304), int(height or 1296))
            config = self._cam.create_still_configuration(main={"size": size, "format": "RGB888"})
            self._cam.configure(config)
            self._cam.start()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
            raise self._fail(f"cannot start ({type(exc).__name__}: {exc})") from None
        self.settled = False

    def _grab(self) -> np.ndarray:
        if not self.settled:
            # the first frames after start() are taken before the exposure has settled (dark)
            self.settled, _ = wait_for_exposure(self._cam.capture_metadata)
        return self._cam.capture_array("main")

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # noqa: BLE001,S110 - closing a dead camera is not an error
            pass


def open_camera(config: dict) -> Camera | None:
    """The camera a ``[camera]`` table describes (``kind`` and its keys), or None for ``none``.

    Raises:
        CameraError: unknown kind, a missing key, or a camera that cannot be opened (the message
            names it and why; the daemon shows it and runs without the camera).
    """
    kind = config.get("kind", "none")
    width, height = config.get("width"), config.get("height")
    if kind == "none":
        return None
    if kind == "files":
        folder = config.get("folder")
        if not folder:
            raise CameraError(
                '[camera] kind = "files" needs folder = "PATH" (an image file or a folder)'
            )
        return FileCamera(folder)
    if kind == "opencv":
        return OpenCVCamera(config.get("device", 0), width, height)
    if kind == "picamera2":
        return PiCamera(int(config.get("camera_num", 0)), width, height)
    raise CameraError(f"[camera] kind {kind!r} is unknown; accepted: {', '.join(CAMERA_KINDS)}")
