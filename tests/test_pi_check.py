"""`make pi-check`'s own logic: the mirror it takes from apt's sources, and its verdict. (The check
itself builds an arm64 root under qemu and takes many minutes: it is not part of the suite.)"""

import pytest

from companion.platform import pi_check


def test_the_mirror_comes_from_a_deb822_source(tmp_path):
    sources = tmp_path / "debian.sources"
    sources.write_text(
        "Types: deb\n"
        "# a comment: URIs: http://wrong.example/\n"
        "URIs: http://mirror.example/debian\n"
        "Suites: bookworm bookworm-updates\n"
        "Components: main\n"
        "\n"
        "Types: deb\n"
        "URIs: http://mirror.example/debian-security\n"
        "Suites: bookworm-security\n"
    )
    assert pi_check.debian_mirror([sources]) == "http://mirror.example/debian"


def test_the_mirror_comes_from_a_one_line_source(tmp_path):
    listing = tmp_path / "sources.list"
    listing.write_text(
        "deb [arch=amd64] https://other.example/apt stable main\n"
        "deb http://mirror.example/debian bookworm main contrib\n"
    )
    assert pi_check.debian_mirror([listing]) == "http://mirror.example/debian"


def test_no_bookworm_source_is_said(tmp_path):
    listing = tmp_path / "sources.list"
    listing.write_text("deb http://mirror.example/debian trixie main\n")
    with pytest.raises(pi_check.PiCheckError, match="--mirror URL"):
        pi_check.debian_mirror([listing, tmp_path / "missing.sources"])


PASSING = {
    "tests": {"passed": 900, "failed": 0, "errors": 0, "skipped": 12, "seconds": 1200.0},
    "camera": {
        "ok": True,
        "cv2": "4.11.0",
        "numpy": "1.24.2",
        "numpy_from": "/usr/lib/python3/dist-packages/numpy/__init__.py",
        "simplejpeg": "1.6.6",
        "libcamera_standin": True,
    },
    "control": {"numpy": "2.2.6", "simplejpeg": "ValueError: numpy.dtype size changed"},
    "cache": {"peak_mb": 159.0, "seconds": 300.0, "qemu_base_mb": 73.0, "native_base_mb": 26.0},
    "install_seconds": 600.0,
    "seconds": 2400.0,
}


def test_the_summary_passes_only_with_every_test_and_the_camera_imports():
    text = pi_check.summary(PASSING)
    assert text.endswith("result: PASS")
    assert "900 passed, 0 failed" in text
    assert "picamera2 + cv2 import together in the service's venv: yes" in text
    assert "libcamera binding: stand-in" in text
    assert "peak 159 MB resident under qemu (qemu's own about 47 MB" in text
    assert "so about 112 MB on a Pi" in text
    failing = dict(PASSING, tests=dict(PASSING["tests"], failed=1, failures=["tests.x::test_y"]))
    assert pi_check.summary(failing).endswith("result: FAIL")
    assert "failed: tests.x::test_y" in pi_check.summary(failing)
    no_camera = dict(PASSING, camera={"ok": False, "error": "ValueError: numpy.dtype size"})
    text = pi_check.summary(no_camera)
    assert "import together: NO (ValueError" in text and text.endswith("result: FAIL")
    assert pi_check.summary({}).endswith("result: FAIL")  # nothing ran: never a pass


def test_pi_check_needs_root(monkeypatch, capsys):
    monkeypatch.setattr(pi_check.os, "geteuid", lambda: 1000)
    assert pi_check.main([]) == 2
    assert "needs root" in capsys.readouterr().err


def test_the_default_selection_names_test_files_that_exist():
    root = pi_check.SOURCE
    missing = [name for name in pi_check.PI_SELECTION if not (root / name).is_file()]
    assert missing == []
    assert len(set(pi_check.PI_SELECTION)) == len(pi_check.PI_SELECTION)
