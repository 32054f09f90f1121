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


VISION = {
    "cells_225_cpu_ms": 640.4,
    "photos": {
        "12 MP, grid found (no markers)": {
            "mp": 12.0,
            "cpu_ms": 1630.2,
            "wall_ms": 1702.9,
            "goal_ms": 300.0,
            "stages": {"locate": 900.0},
        },
        "2 MP, corners given": {
            "mp": 1.92,
            "cpu_ms": 610.0,
            "wall_ms": 650.0,
            "goal_ms": 100.0,
            "stages": {},
        },
    },
    "real_photos": False,
    "seconds": 300.0,
    "host": "x86_64",
}


def test_the_vision_figures_are_labelled_emulated_and_never_decide_the_result():
    text = pi_check.summary(dict(PASSING, vision=VISION))
    assert "emulated (qemu-user on x86_64), not a real Pi" in text
    assert "warped 225-cell board read: 640 ms (goal < 150 ms)" in text
    assert "12 MP, grid found (no markers) (12.0 MP): 1630 ms (1703 ms wall; goal < 300 ms)" in text
    assert "2 MP, corners given (1.9 MP): 610 ms" in text
    assert text.endswith("result: PASS")  # slower than the goals under qemu: still a pass
    failed = pi_check.summary(dict(PASSING, vision={"error": "ModuleNotFoundError: cv2"}))
    assert "not measured (ModuleNotFoundError: cv2)" in failed and "not a real Pi" in failed


class _FakeRoot:
    """A root whose shell answers with ``stdout`` (the bench's output) and remembers the script."""

    def __init__(self, stdout: str, returncode: int = 0):
        self.stdout, self.returncode, self.scripts = stdout, returncode, []

    def sh(self, script, check=True, capture=False):
        self.scripts.append(script)
        return pi_check.subprocess.CompletedProcess(script, self.returncode, self.stdout, "boom")


def test_the_vision_bench_runs_in_the_service_venv_and_its_json_line_is_read(capsys):
    import json

    bench_text = "  warped 15x15 board, 225 cells read: cpu  640.4 ms  goal < 150 ms: NOT met\n"
    figures = {k: VISION[k] for k in ("cells_225_cpu_ms", "photos", "real_photos")}
    root = _FakeRoot(bench_text + json.dumps(figures) + "\n")
    speed = pi_check.vision_speed(root)
    assert speed["cells_225_cpu_ms"] == 640.4 and speed["photos"] == VISION["photos"]
    assert speed["host"] == pi_check.platform.machine() and speed["seconds"] >= 0
    assert "cd /opt/table-companion && " in root.scripts[0]
    assert ".venv/bin/python -m bench.bench_vision --json" in root.scripts[0]
    assert "225 cells read" in capsys.readouterr().out  # the bench's own text is shown
    broken = pi_check.vision_speed(_FakeRoot("Traceback ...\nImportError: cv2\n", returncode=1))
    assert "ImportError: cv2" in broken["error"]


def test_the_vision_bench_prints_its_figures_as_json_when_asked():
    import ast

    source = (pi_check.SOURCE / "bench" / "bench_vision.py").read_text()
    assert '"--json" in sys.argv[1:]' in source
    names = {n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant)}
    assert {"cells_225_cpu_ms", "photos", "cpu_ms", "wall_ms", "goal_ms", "mp"} <= names
