"""``make pi-check``: the project installed and tested as on a Raspberry Pi, in an arm64 Debian
bookworm root run under qemu (debootstrap + qemu-user-static, binfmt_misc).

What it does, each step reused when already done (the root is kept in ``--root``, default
``/var/tmp/table-companion-pi/bookworm-arm64``):

1. builds the root with debootstrap from the Debian mirror apt already uses here (read from
   ``/etc/apt/sources.list*``), registering qemu's aarch64 interpreter with binfmt_misc first;
2. puts in what Raspberry Pi OS adds to Debian for the camera. Debian's own packages where Debian
   has them (numpy 1.24, Pillow, PyAV, prctl, piexif, jsonschema, libarchive-c, tqdm: the same
   Debian bookworm packages Pi OS ships); the Raspberry Pi archive's ``python3-picamera2``,
   ``python3-simplejpeg``, ``python3-pidng`` and ``python3-v4l2`` are not reachable here, so the
   same releases come from PyPI into Debian's ``/usr/lib/python3/dist-packages`` as the .deb files
   would put them: picamera2, simplejpeg 1.6.6 (a build against numpy 1.x, as Pi OS's is, so that it
   fails the same way under numpy 2), PiDNG (built here against Debian's numpy), videodev2. The one
   part neither archive offers is libcamera's Python binding (``python3-libcamera`` exists only in
   the Raspberry Pi archive): a stand-in module, named as such in the summary, lets picamera2's
   import run through everything else;
3. copies this checkout into the root and runs ``make install`` there, as a builder does (no
   systemd runs in a chroot: the installer enables the unit without starting it);
4. imports picamera2 and cv2 together in the service's venv, and, as a control, shows the failure
   this prevents: in a venv with pip's numpy 2, simplejpeg fails with "numpy.dtype size changed"
   and :func:`companion.devices.camera.picamera2_problem` explains it;
5. adds the test tools to the service's venv (``pip install -e '.[pi,dev]'``) and times the board
   reader there on one core, as ``bench/bench_vision.py`` does (``python -m bench.bench_vision
   --json``: a warped 225-cell board's cells read, goal < 150 ms; 2 MP and 12 MP photos, the grid
   given, found or tracked, goals < 100 ms and < 300 ms; CPU ms, median of 5). The figures are
   emulated (qemu-user on this machine), not a real Pi's: they are printed as such and never
   decide the result (a few minutes under qemu);
6. runs the tests of what a box runs there
   (:data:`PI_SELECTION`: the clock, the table service and its faults, the devices, the OLED,
   the board reader, the judges and the lexicon's reading; under qemu they take about 30
   minutes); ``make pi-check PI_TESTS=tests`` runs the whole suite (hours under qemu);
7. measures the Wordinoes judge's cache build (peak resident memory of a fresh build, as
   ``bench/bench_judgecache.py`` does);
8. prints a summary and exits 0 only when every test passed and picamera2 and cv2 import together.

Memory figures under qemu-user are those of the emulator process: they include qemu's own code
cache, so a real Pi's are lower. Times under qemu-user are those of the emulator translating the
arm64 builds of numpy and OpenCV on this machine's CPU (their NEON code emulated): not a Pi 4's
(Cortex-A72), which may be faster or slower.

Needs root (debootstrap, chroot, mounts). Imports only the standard library.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent.parent
DEFAULT_ROOT = Path("/var/tmp/table-companion-pi/bookworm-arm64")
SUITE = "bookworm"
BINFMT = Path("/proc/sys/fs/binfmt_misc")
BINFMT_CONF = Path("/usr/lib/binfmt.d/qemu-aarch64.conf")
BASE_PACKAGES = (
    "python3",
    "python3-venv",
    "python3-dev",
    "python3-pip",
    "build-essential",
    "ca-certificates",
    "make",
    "rsync",
    "passwd",
    "util-linux",
)
# Debian bookworm's packages of what python3-picamera2 depends on (Pi OS ships these same ones)
CAMERA_DEBIAN = (
    "python3-numpy",
    "python3-pil",
    "python3-prctl",
    "python3-av",
    "python3-piexif",
    "python3-jsonschema",
    "python3-libarchive-c",
    "python3-tqdm",
    "python3-setuptools",
    "python3-wheel",
)
# the Raspberry Pi archive's packages, from PyPI at the releases Pi OS bookworm packages
CAMERA_PYPI = ("picamera2", "simplejpeg==1.6.6", "videodev2")
CAMERA_PYPI_BUILT = ("pidng",)  # sdist: built here against Debian's numpy, as Pi OS builds it
DIST_PACKAGES = "/usr/lib/python3/dist-packages"
STANDINS = ("libcamera/__init__.py", "libcamera/controls.py", "pykms/__init__.py")
"""Stand-ins for the two C++ bindings picamera2 imports that only the Raspberry Pi archive has:
libcamera's (python3-libcamera) and kms++'s (python3-kms++, for the DRM preview). Neither uses
numpy's C API, so they play no part in the numpy question pi-check answers."""
LIBCAMERA_STANDIN = '''"""pi-check stand-in for a binding that only the Raspberry Pi archive has
(python3-libcamera, python3-kms++), which this machine cannot reach. It has no camera or display:
every name is a placeholder so that picamera2's import can be checked through its other
dependencies."""

STANDIN = True


class _Placeholder:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Placeholder()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Placeholder()

    def __iter__(self):
        return iter(())

    def __mro_entries__(self, bases):
        return (object,)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Placeholder()
'''
HOST_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
ROOT_CA_BUNDLE = "/etc/ssl/certs/pi-check-host-bundle.crt"
PROJECT_DIR = "/src/table-companion"
PREFIX = "/opt/table-companion"

IMPORT_CHECK = r"""
import json, sys
out = {}
try:
    import picamera2, cv2, numpy, simplejpeg, libcamera
    from companion.devices.camera import picamera2_problem
    out = {
        "ok": True,
        "picamera2": getattr(picamera2, "__file__", "?"),
        "cv2": cv2.__version__,
        "numpy": numpy.__version__,
        "numpy_from": numpy.__file__,
        "simplejpeg": simplejpeg.__version__,
        "libcamera_standin": bool(getattr(libcamera, "STANDIN", False)),
        "problem": picamera2_problem(),
    }
except Exception as exc:
    out = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
print(json.dumps(out))
"""

CONTROL_CHECK = r"""
import json
out = {}
try:
    import numpy
    out["numpy"] = numpy.__version__
    import simplejpeg  # noqa: F401
    out["simplejpeg"] = "imported"
except Exception as exc:
    out["simplejpeg"] = f"{type(exc).__name__}: {exc}"
from companion.devices.camera import picamera2_problem
out["problem"] = picamera2_problem()
print(json.dumps(out))
"""


class PiCheckError(RuntimeError):
    """pi-check cannot go on (no root, no qemu, a step failed): names the step."""


def say(text: str) -> None:
    print(f"pi-check: {text}", flush=True)


def run(argv, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    """Run ``argv`` on the host, echoing it."""
    print("    $ " + shlex.join(map(str, argv)), flush=True)
    done = subprocess.run([str(a) for a in argv], check=False, **kwargs)
    if check and done.returncode != 0:
        raise PiCheckError(f"`{shlex.join(map(str, argv))}` exited with status {done.returncode}")
    return done


def debian_mirror(paths=None) -> str:
    """The Debian archive URL apt uses on this machine (first ``URIs:`` of a deb822 source or
    first ``deb`` line whose suites include bookworm, else the first Debian one).

    Raises:
        PiCheckError: no Debian source is configured.
    """
    if paths is None:
        paths = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    found: list[tuple[str, str]] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError:
            continue
        if str(path).endswith(".sources"):
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(
                    (k.strip().lower(), v.strip())
                    for k, _, v in (ln.partition(":") for ln in stanza.splitlines())
                    if not k.startswith("#") and v
                )
                for uri in fields.get("uris", "").split():
                    found.append((uri, fields.get("suites", "")))
        elif str(path).endswith(".list"):
            for line in text.splitlines():
                parts = line.split()
                if len(parts) >= 3 and parts[0] == "deb":
                    uri_i = 2 if parts[1].startswith("[") else 1
                    found.append((parts[uri_i], " ".join(parts[uri_i + 1 :])))
    for uri, suites in found:
        if SUITE in suites.split() and not uri.rstrip("/").endswith("-security"):
            return uri
    raise PiCheckError("no Debian bookworm source in /etc/apt/sources.list*: give --mirror URL")


HOST_TOOLS = {"debootstrap": "debootstrap", "qemu-aarch64-static": "qemu-user-static"}


def ensure_host_tools() -> None:
    """debootstrap and qemu-user-static on this machine (apt-get installs what is missing)."""
    missing = sorted({pkg for tool, pkg in HOST_TOOLS.items() if shutil.which(tool) is None})
    if missing:
        say(f"installing {', '.join(missing)} on this machine")
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
            env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))  # fmt: skip


def ensure_binfmt() -> None:
    """qemu's aarch64 interpreter registered with binfmt_misc (mounting it if needed)."""
    if not (BINFMT / "register").exists():
        run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)])
    if not (BINFMT / "qemu-aarch64").exists():
        if not BINFMT_CONF.exists():
            raise PiCheckError(
                f"{BINFMT_CONF} is missing: apt install qemu-user-static (and binfmt-support)"
            )
        line = next(
            ln for ln in BINFMT_CONF.read_text().splitlines() if ln and not ln.startswith("#")
        )
        (BINFMT / "register").write_text(line)
    if "enabled" not in (BINFMT / "qemu-aarch64").read_text():
        raise PiCheckError("binfmt_misc's qemu-aarch64 entry is disabled")


class Root:
    """An arm64 root with /proc, /sys, /dev mounted while in use (a context manager)."""

    def __init__(self, path: Path):
        self.path = path
        self._mounted: list[Path] = []

    def __enter__(self) -> Root:
        for name, args in (
            ("proc", ["-t", "proc", "proc"]),
            ("sys", ["-t", "sysfs", "sysfs"]),
            ("dev", ["--rbind", "/dev"]),
            ("dev/shm", ["-t", "tmpfs", "shm"]),
        ):
            target = self.path / name
            target.mkdir(parents=True, exist_ok=True)
            if os.path.ismount(target):
                continue
            run(["mount", *args, str(target)])
            if name == "dev":
                run(["mount", "--make-rslave", str(target)], check=False)
            self._mounted.append(target)
        with contextlib.suppress(OSError):
            shutil.copyfile("/etc/resolv.conf", self.path / "etc/resolv.conf")
        # this machine's trusted certificates, for pip in the root (a proxy's own CA included)
        with contextlib.suppress(OSError):
            shutil.copyfile(HOST_CA_BUNDLE, self.path / ROOT_CA_BUNDLE.lstrip("/"))
        return self

    def __exit__(self, *exc) -> None:
        for target in reversed(self._mounted):
            subprocess.run(["umount", "-R", "-l", str(target)], check=False)

    def sh(
        self, script: str, check: bool = True, capture: bool = False
    ) -> subprocess.CompletedProcess:
        """Run a shell script inside the root (as root, in a login-like environment)."""
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": "/root",
            "LANG": "C.UTF-8",
            "DEBIAN_FRONTEND": "noninteractive",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        }
        if (self.path / ROOT_CA_BUNDLE.lstrip("/")).exists():
            env.update(PIP_CERT=ROOT_CA_BUNDLE, SSL_CERT_FILE=ROOT_CA_BUNDLE,
                       REQUESTS_CA_BUNDLE=ROOT_CA_BUNDLE)  # fmt: skip
        argv = ["chroot", str(self.path), "/bin/bash", "-euo", "pipefail", "-c", script]
        print("    [arm64] " + script.strip().replace("\n", "\n    [arm64] "), flush=True)
        done = subprocess.run(
            argv, env=env, check=False, text=True, capture_output=capture, stdin=subprocess.DEVNULL
        )
        if check and done.returncode != 0:
            tail = (done.stderr or "")[-2000:] if capture else ""
            raise PiCheckError(
                f"in the arm64 root, exit {done.returncode}: {script.strip()}\n{tail}"
            )
        return done

    def stamp(self, name: str) -> Path:
        return self.path / "var/lib/pi-check" / name

    def done(self, name: str) -> bool:
        return self.stamp(name).exists()

    def mark(self, name: str) -> None:
        self.stamp(name).parent.mkdir(parents=True, exist_ok=True)
        self.stamp(name).write_text(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def build_root(path: Path, mirror: str) -> None:
    """debootstrap an arm64 bookworm root at ``path`` (skipped when one is there)."""
    if (path / "var/lib/pi-check/base").exists():
        say(f"reusing the arm64 root {path}")
        return
    if (path / "usr/bin/python3").exists() and (path / "etc/debian_version").exists():
        say(f"the arm64 root {path} exists (debootstrapped before): completing it")
    else:
        say(f"building an arm64 {SUITE} root in {path} (debootstrap under qemu, ~10 min)")
        path.parent.mkdir(parents=True, exist_ok=True)
        run(
            [
                "debootstrap",
                "--arch=arm64",
                "--variant=minbase",
                "--include=" + ",".join(p for p in BASE_PACKAGES if p != "build-essential"),
                SUITE,
                str(path),
                mirror,
            ]
        )
    (path / "var/lib/pi-check").mkdir(parents=True, exist_ok=True)


def host_apt_packages() -> list[str]:
    """The Makefile's APT_PACKAGES (what `make test` installs on any machine)."""
    out = subprocess.run(
        ["make", "-s", "-C", str(SOURCE), "--no-print-directory", "--eval",
         "pi-check-apt-packages: ; @echo $(APT_PACKAGES)", "pi-check-apt-packages"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return out.split()


def prepare(root: Root) -> None:
    """The base tools and the camera stack of Raspberry Pi OS (see the module docstring).

    A root reused after a pi-check stopped in the middle of an install (Ctrl-C, the machine's
    time limit) holds half-configured packages, and every apt-get there fails with "dpkg was
    interrupted": ``dpkg --configure -a`` finishes them first (nothing to do otherwise)."""
    root.sh("dpkg --configure -a")
    if not root.done("base"):
        root.sh("apt-get update -qq && apt-get install -y -qq --no-install-recommends "
                + " ".join(BASE_PACKAGES))  # fmt: skip
        root.mark("base")
    if not root.done("camera"):
        root.sh(
            "apt-get install -y -qq --no-install-recommends " + " ".join(CAMERA_DEBIAN) + "\n"
            f"pip install --quiet --break-system-packages --no-deps --no-compile "
            f"--upgrade --target {DIST_PACKAGES} {' '.join(CAMERA_PYPI)}\n"
            f"pip install --quiet --break-system-packages --no-deps --no-build-isolation "
            f"--upgrade --target {DIST_PACKAGES} {' '.join(CAMERA_PYPI_BUILT)}\n"
        )
        root.mark("camera")
    # the Raspberry Pi archive's C++ bindings with no camera behind them (see STANDINS)
    site = root.path / DIST_PACKAGES.lstrip("/")
    for module in STANDINS:
        path = site / module
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(LIBCAMERA_STANDIN)
    packages = host_apt_packages()
    key = "apt-" + hashlib.sha256(" ".join(sorted(packages)).encode()).hexdigest()[:12]
    if not root.done(key):
        # what `make test` installs (the Makefile's APT_PACKAGES), for the test suite
        root.sh("apt-get install -y -qq --no-install-recommends " + " ".join(packages))
        root.mark(key)


def install(root: Root) -> float:
    """Copy the checkout into the root and run ``make install`` there; returns seconds."""
    target = root.path / PROJECT_DIR.lstrip("/")
    say(f"copying {SOURCE} to {PROJECT_DIR} in the root (as a fresh clone)")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(
        SOURCE,
        target,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".ruff_cache",
            ".hypothesis", "build",
        ),
    )  # fmt: skip
    start = time.monotonic()
    root.sh(f"cd {PROJECT_DIR} && make install")
    return time.monotonic() - start


def camera_checks(root: Root) -> tuple[dict, dict]:
    """(the service venv's import check, the numpy-2 control's)."""
    done = root.sh(f"{PREFIX}/.venv/bin/python - <<'EOF'\n{IMPORT_CHECK}EOF", capture=True)
    together = json.loads(done.stdout.strip().splitlines()[-1])
    control_venv = "/var/tmp/numpy2-control"
    root.sh(
        f"[ -x {control_venv}/bin/python ] || python3 -m venv --system-site-packages {control_venv}\n"
        f"{control_venv}/bin/pip install --quiet 'numpy>=2'\n"
        f"{control_venv}/bin/pip install --quiet --no-deps -e {PREFIX}"
    )
    done = root.sh(f"{control_venv}/bin/python - <<'EOF'\n{CONTROL_CHECK}EOF", capture=True)
    control = json.loads(done.stdout.strip().splitlines()[-1])
    return together, control


PI_SELECTION = (
    # the clock and the table service as a box runs them: the rulebook's timer, the service, its
    # journal, its faults staged on the real process, kill -9, the sim's scripts
    "tests/test_clock.py",
    "tests/test_daemon.py",
    "tests/test_daemon_gpio.py",
    "tests/test_daemon_paths.py",
    "tests/test_journal.py",
    "tests/test_faults.py",
    "tests/test_kill9.py",
    "tests/test_sim.py",
    # the hardware: gpiozero's pins, the pin map, the OLED (luma, Pillow), the camera's module,
    # the Pico timer head's serial protocol, the platform checks, the systemd units
    "tests/test_devices.py",
    "tests/test_camera.py",
    "tests/test_oled.py",
    "tests/test_pinmap.py",
    "tests/test_platform.py",
    "tests/test_platform_wiring.py",
    "tests/test_hil.py",
    "tests/test_head_link.py",
    "tests/test_protocol_head.py",
    "tests/test_systemd.py",
    "tests/test_least_privilege.py",
    "tests/test_layout.py",
    # the board reader (numpy, OpenCV's cv2.dnn running the shipped cell model: the same reading
    # whatever fonts the machine has) and the table's use of it
    "tests/test_vision.py",
    "tests/test_vision_trust.py",
    "tests/test_vision_model.py",
    "tests/test_vision_table.py",
    # the rules and the judges on the box (marisa-trie, regex, the judge's cache)
    "tests/test_iago_board.py",
    "tests/test_iago_moves.py",
    "tests/test_judge.py",
    "tests/test_iota.py",
    "tests/test_wordinoes_game.py",
    "tests/test_tournament_table.py",
    "tests/test_pi_check.py",
)
"""The tests pi-check runs by default: those of what runs on the box itself, the parts whose
builds differ on arm64 (numpy, OpenCV, Pillow, marisa-trie, lgpio through gpiozero). Left to the
PC: the director's pages in a browser, the tournament's network, the lexicon's build from the word
lists, the enclosure's OpenSCAD renders and the command lines' wording (no arm64 build of theirs
differs), each of which takes minutes under qemu."""

EMULATED_PLUGIN = """# pi-check: under qemu-user every test runs 10-30 times slower than on the machine
# it was written on; hypothesis's per-example deadline (200 ms) and its too-slow health checks
# measure the emulator, not the code, so they are off here
from hypothesis import HealthCheck, settings

settings.register_profile("pi-check", deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile("pi-check")
"""


def add_test_tools(root: Root) -> None:
    """The test and bench tools (the ``pi`` and ``dev`` extras) added to the service's venv."""
    root.sh(f"cd {PREFIX} && .venv/bin/python -m pip install --quiet -e '.[pi,dev]'")


def vision_speed(root: Root) -> dict:
    """The board reader timed on one core in the service's venv by ``bench/bench_vision.py``
    (``--json``; its text is echoed here once it has run): ``cells_225_cpu_ms`` and ``photos`` (each
    line's ``cpu_ms``, ``wall_ms``, ``goal_ms``, ``mp`` and ``stages``, all ms), with ``seconds``
    (the bench's wall time under qemu, s) and ``host`` (the machine qemu ran on). Emulated
    figures, not a Pi's; ``{"error": ...}`` when the bench failed."""
    start = time.monotonic()
    done = root.sh(
        f"cd {PREFIX} && OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "
        f".venv/bin/python -m bench.bench_vision --json",
        check=False,
        capture=True,
    )
    seconds = time.monotonic() - start
    lines = (done.stdout or "").strip().splitlines()
    for line in lines[:-1]:
        print("    " + line, flush=True)
    try:
        figures = json.loads(lines[-1])
    except (ValueError, IndexError):
        figures = None
    if not isinstance(figures, dict) or "cells_225_cpu_ms" not in figures:
        return {"error": ((done.stderr or "") + (done.stdout or ""))[-500:].strip()}
    figures["seconds"] = seconds
    figures["host"] = platform.machine()
    return figures


VISION_LINES = ("12 MP, grid found (no markers)", "12 MP, corners given", "2 MP, corners given")
"""The photo lines of the vision bench the summary gives (the issue's 12 MP photo, grid found,
first)."""


def vision_summary(speed: dict) -> list[str]:
    """The summary's lines for :func:`vision_speed`'s figures, labelled as emulated."""
    host = speed.get("host") or platform.machine()
    label = f"emulated (qemu-user on {host}), not a real Pi"
    if "cells_225_cpu_ms" not in speed:
        return [f"  board reader speed, {label}: not measured ({speed.get('error', '?')})"]
    lines = [
        f"  board reader speed, one core, {label}, CPU ms, median of 5 "
        f"({speed.get('seconds', 0) / 60:.1f} min):",
        f"    warped 225-cell board read: {speed['cells_225_cpu_ms']:.0f} ms (goal < 150 ms)",
    ]
    photos = speed.get("photos", {})
    for name in VISION_LINES:
        if name in photos:
            fig = photos[name]
            lines.append(
                f"    {name} ({fig['mp']:.1f} MP): {fig['cpu_ms']:.0f} ms "
                f"({fig['wall_ms']:.0f} ms wall; goal < {fig['goal_ms']:.0f} ms)"
            )
    return lines


def run_tests(root: Root, pytest_args: list[str]) -> dict:
    """``pytest_args`` (by default :data:`PI_SELECTION`) run in the prefix, in the service's venv
    with the test tools added (hypothesis's deadlines off: :data:`EMULATED_PLUGIN`).
    Returns counts: passed, failed, errors, skipped, seconds, the failing tests' names."""
    pytest_args = list(pytest_args) or list(PI_SELECTION)
    (root.path / "var/tmp/pi_check_emulated.py").write_text(EMULATED_PLUGIN)
    start = time.monotonic()
    done = root.sh(
        f"cd {PREFIX} && PYTHONPATH=/var/tmp .venv/bin/python -m pytest -p no:cacheprovider "
        f"-p pi_check_emulated -q --junitxml=/var/tmp/pi-check-junit.xml "
        f"{shlex.join(pytest_args)}",
        check=False,
    )
    seconds = time.monotonic() - start
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "seconds": seconds}
    report = root.path / "var/tmp/pi-check-junit.xml"
    if report.exists():
        import xml.etree.ElementTree as ET

        suite = ET.parse(report).getroot()
        suite = suite if suite.tag == "testsuite" else suite.find("testsuite")
        tests = int(suite.get("tests", 0))
        counts["failed"] = int(suite.get("failures", 0))
        counts["errors"] = int(suite.get("errors", 0))
        counts["skipped"] = int(suite.get("skipped", 0))
        counts["passed"] = tests - counts["failed"] - counts["errors"] - counts["skipped"]
        counts["failures"] = [
            f"{case.get('classname')}::{case.get('name')}"
            for case in suite.iter("testcase")
            if case.find("failure") is not None or case.find("error") is not None
        ]
    counts["exit"] = done.returncode
    counts["selection"] = (
        f"the box's {len(PI_SELECTION)} test files"
        if pytest_args == list(PI_SELECTION)
        else " ".join(pytest_args)
    )
    return counts


BASELINE = (
    "import resource, subprocess, sys; "
    "subprocess.run([sys.executable, '-c', 'import numpy, sqlite3, companion.games.wordinoes']); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
)
"""The peak resident memory (MiB) of an interpreter that only imports what the cache build
imports: run under qemu and natively, it gives qemu's own share of a peak measured under qemu."""


def cache_peak(root: Root) -> dict:
    """The judge cache's build measured by the bench (a fresh build in a subprocess), with
    :data:`BASELINE` under qemu (``qemu_base_mb``) and run natively on this machine
    (``native_base_mb``): the build's peak on a Pi is about ``peak_mb`` less their difference."""
    done = root.sh(
        f"cd {PREFIX} && .venv/bin/python -m bench.bench_judgecache --json", check=False,
        capture=True,
    )  # fmt: skip
    try:
        figures = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": (done.stderr or done.stdout)[-500:]}
    with contextlib.suppress(PiCheckError, ValueError, IndexError, OSError):
        base = root.sh(f'cd {PREFIX} && .venv/bin/python -c "{BASELINE}"', capture=True)
        figures["qemu_base_mb"] = float(base.stdout.split()[-1])
        venv_python = SOURCE / ".venv" / "bin" / "python"
        python = str(venv_python) if venv_python.exists() else sys.executable
        native = subprocess.run(
            [python, "-c", BASELINE], capture_output=True, text=True, cwd=SOURCE, check=False
        )
        figures["native_base_mb"] = float(native.stdout.split()[-1])
    return figures


def summary(result: dict) -> str:
    """The closing lines: passed, failed, the cache build's peak, picamera2 + cv2."""
    t = result.get("tests", {})
    cam = result.get("camera", {})
    ctl = result.get("control", {})
    peak = result.get("cache", {})
    lines = ["", "pi-check summary (arm64 Debian bookworm, Python 3.11, under qemu-user):"]
    lines.append(
        f"  tests ({t.get('selection', 'the whole suite')}): {t.get('passed', 0)} passed, {t.get('failed', 0)} failed, "
        f"{t.get('errors', 0)} errors, {t.get('skipped', 0)} skipped "
        f"({t.get('seconds', 0) / 60:.1f} min)"
    )
    for name in t.get("failures", [])[:20]:
        lines.append(f"    failed: {name}")
    if "peak_mb" in peak:
        line = f"  Wordinoes judge cache build: peak {peak['peak_mb']:.0f} MB resident under qemu"
        if "qemu_base_mb" in peak and "native_base_mb" in peak:
            share = peak["qemu_base_mb"] - peak["native_base_mb"]
            line += (
                f" (qemu's own about {share:.0f} MB: the same imports alone peak at "
                f"{peak['qemu_base_mb']:.0f} MB under qemu, {peak['native_base_mb']:.0f} MB "
                f"natively), so about {peak['peak_mb'] - share:.0f} MB on a Pi"
            )
        lines.append(line + f"; goal < 150 MB; {peak['seconds']:.0f} s")
    else:
        lines.append(f"  Wordinoes judge cache build: not measured ({peak.get('error', '?')})")
    if "vision" in result:
        lines.extend(vision_summary(result["vision"]))
    if cam.get("ok"):
        lines.append(
            f"  picamera2 + cv2 import together in the service's venv: yes (cv2 {cam['cv2']}, "
            f"numpy {cam['numpy']} from {cam['numpy_from']}, simplejpeg {cam['simplejpeg']}"
            + (", libcamera binding: stand-in" if cam.get("libcamera_standin") else "")
            + ")"
        )
    else:
        lines.append(f"  picamera2 + cv2 import together: NO ({cam.get('error', '?')})")
    if ctl:
        lines.append(
            f"  control, pip's numpy {ctl.get('numpy')} instead: simplejpeg -> "
            f"{ctl.get('simplejpeg')}; the box says: {ctl.get('problem')}"
        )
    lines.append(f"  make install in the root: {result.get('install_seconds', 0) / 60:.1f} min; "
                 f"pi-check in all: {result.get('seconds', 0) / 60:.1f} min")  # fmt: skip
    ok = t.get("failed", 1) == 0 and t.get("errors", 1) == 0 and t.get("passed", 0) > 0
    ok = ok and bool(cam.get("ok"))
    lines.append(f"  result: {'PASS' if ok else 'FAIL'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python3 -m companion.platform.pi_check [--root DIR] [--mirror URL] [-- PYTEST_ARGS]``"""
    parser = argparse.ArgumentParser(prog="pi-check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help=f"({DEFAULT_ROOT})")
    parser.add_argument("--mirror", help="Debian archive URL (default: the one apt uses here)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("pi-check: error: needs root (debootstrap, chroot): run `sudo make pi-check`",
              file=sys.stderr)  # fmt: skip
        return 2
    start = time.monotonic()
    result: dict = {}
    try:
        ensure_host_tools()
        ensure_binfmt()
        build_root(args.root, args.mirror or debian_mirror())
        with Root(args.root) as root:
            prepare(root)
            result["install_seconds"] = install(root)
            result["camera"], result["control"] = camera_checks(root)
            add_test_tools(root)
            result["vision"] = vision_speed(root)
            print("\n".join(vision_summary(result["vision"])), flush=True)
            result["tests"] = run_tests(root, args.pytest_args)
            result["cache"] = cache_peak(root)
    except PiCheckError as exc:
        print(f"pi-check: error: {exc}", file=sys.stderr)
        result["error"] = str(exc)
    result["seconds"] = time.monotonic() - start
    text = summary(result)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if text.endswith("PASS") else 1


if __name__ == "__main__":
    raise SystemExit(main())
