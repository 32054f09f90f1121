"""The enclosure renders with Debian's openscad and its parts fit: the box holds the disc, the
windows sit over the disc's numbers, the servo horn meets the disc, and the disc's positions are
the servo calibration's (the pin map's degrees_per_minute)."""

import math
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from companion.devices.calibration import default_calibration, position_angle
from companion.devices.pinmap import DEFAULT_PINMAP, load_pinmap

ENCLOSURES = Path(__file__).resolve().parent.parent / "enclosures"
FN = 12  # coarse circles keep the renders quick; printing uses a fine $fn
PINMAP = load_pinmap(DEFAULT_PINMAP)
DPM = PINMAP.servo.degrees_per_minute
MINUTES = 5  # the rulebook: "both players begin the game with five minutes"


def openscad() -> str:
    path = shutil.which("openscad")
    if path is None:
        pytest.skip("openscad is not installed (Debian package openscad, in the Makefile)")
    return path


@cache
def render(source: str, out_dir: str, **defines) -> tuple[Path, str]:
    """Render ``source`` to STL with ``-D`` defines; returns the STL path and openscad's log."""
    args = [openscad(), "-o", "", "-D", f"$fn={FN}", "-D", f"degrees_per_minute={DPM}"]
    name = source.replace(".scad", "")
    for key, value in sorted(defines.items()):
        text = f'"{value}"' if isinstance(value, str) else str(value).lower()
        args += ["-D", f"{key}={text}"]
        name += f"-{key}-{value}"
    out = Path(out_dir) / f"{name}.stl"
    args[2] = str(out)
    result = subprocess.run(
        [*args, str(ENCLOSURES / source)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return out, result.stderr


def stl_bounds(path: Path) -> tuple[list[float], list[float], int]:
    """(min xyz, max xyz, facet count) of an ASCII STL."""
    text = path.read_text()
    vertices = [tuple(map(float, m)) for m in re.findall(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", text)]
    facets = text.count("facet normal")
    lo = [min(v[i] for v in vertices) for i in range(3)]
    hi = [max(v[i] for v in vertices) for i in range(3)]
    return lo, hi, facets


def echoes(log: str, tag: str) -> list[dict[str, object]]:
    """openscad's ``ECHO: "tag", key = value, ...`` lines as dicts (numbers and vectors)."""
    found = []
    for line in log.splitlines():
        if not line.startswith(f'ECHO: "{tag}"'):
            continue
        fields = {}
        for key, value in re.findall(r"(\w+) = (\[[^\]]*\]|[^,]+)", line):
            if value.startswith("["):
                fields[key] = [float(x) for x in value.strip("[]").split(",")]
            else:
                fields[key] = float(value) if value.strip() not in ("true", "false") else value
        positional = re.match(rf'ECHO: "{tag}", (\d+),', line)
        if positional:
            fields["index"] = int(positional.group(1))
        found.append(fields)
    return found


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return str(tmp_path_factory.mktemp("stl"))


def test_lid_and_base_render_to_the_box_size(out):
    lid, log = render("box.scad", out, part="lid")
    base, _ = render("box.scad", out, part="base")
    box = echoes(log, "box")[0]
    length, depth, height = box["outer"]
    for path in (lid, base):
        lo, hi, facets = stl_bounds(path)
        assert facets > 100
        assert hi[0] - lo[0] == pytest.approx(length, abs=0.01)
        assert hi[1] - lo[1] == pytest.approx(depth, abs=0.01)
    lo, hi, _ = stl_bounds(base)
    assert hi[2] - lo[2] == pytest.approx(height, abs=0.01)


@pytest.mark.slow
def test_disc_fits_under_the_lid_with_its_numbers_under_the_windows(out):
    disc, log = render("disc.scad", out, part="disc")
    _, box_log = render("box.scad", out, part="lid")
    lo, hi, facets = stl_bounds(disc)
    assert facets > 500  # the numbers are there, not a bare cylinder
    radius = (hi[0] - lo[0]) / 2
    seat = echoes(box_log, "disc_seat")[0]
    box = echoes(box_log, "box")[0]
    windows = echoes(box_log, "windows")[0]
    wall = 2.4
    cx, cy = seat["centre"]
    # the disc is inside the box's walls and under the lid
    assert cy + radius <= box["outer"][1] / 2 - wall
    assert cy - radius >= -box["outer"][1] / 2 + wall
    assert abs(cx) + radius <= box["outer"][0] / 2 - wall
    assert seat["top"] < box["lid_underside"]
    # each window lies over its ring of numbers, entirely over the disc
    rings = echoes(log, "disc")[0]
    radial, along = windows["size"]
    bx, by = windows["blue"]
    rx, ry = windows["red"]
    assert math.hypot(bx - cx, by - cy) == pytest.approx(rings["blue_ring"])
    assert math.hypot(rx - cx, ry - cy) == pytest.approx(rings["red_ring"])
    assert rings["blue_ring"] + radial / 2 <= radius
    # a window shows one number: its neighbours are at least a window's width away
    assert rings["pitch_red"] >= along and rings["pitch_blue"] >= along
    # the disc is no thicker than the gap it sits in
    assert hi[2] - lo[2] == pytest.approx(rings["thickness"], abs=0.01)


@pytest.mark.slow
def test_disc_positions_match_the_servo_calibration(out):
    _, log = render("disc.scad", out, part="disc")
    positions = echoes(log, "position")
    assert [p["index"] for p in positions] == list(range(2 * MINUTES + 1))
    nominal = default_calibration(PINMAP.servo, MINUTES)
    for p in positions:
        b = p["index"]
        assert p["blue"] == b and p["red"] == 2 * MINUTES - b
        assert p["servo_angle"] == pytest.approx(position_angle(b, MINUTES, DPM))
        assert p["servo_angle"] == pytest.approx(nominal.angles[b])
        # turned to its servo angle, the disc brings blue's b under the blue window (180
        # degrees, the -x end) and red's 10 - b under the red window (0 degrees, +x)
        assert (p["blue_angle"] + p["servo_angle"]) % 360 == pytest.approx(180)
        assert (p["red_angle"] + p["servo_angle"]) % 360 == pytest.approx(0)


def test_servo_horn_meets_the_disc(out):
    mount, log = render("servo_mount.scad", out)
    info = echoes(log, "servo_mount")[0]
    lo, hi, facets = stl_bounds(mount)
    assert facets > 20
    assert hi[2] - lo[2] == pytest.approx(info["height"], abs=0.01)
    # the horn's top is inside the disc's underside pocket (under the disc's top)
    assert info["disc_bottom"] < info["horn_top_z"] < info["disc_bottom"] + 3
    assert info["servo_bottom_z"] > 2.4  # above the floor


@pytest.mark.parametrize("model", ["mg90s", "mg996r"])
def test_other_servos_fit(out, model):
    _, log = render("servo_mount.scad", out, servo_model=model)
    info = echoes(log, "servo_mount")[0]
    assert info["disc_bottom"] < info["horn_top_z"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "defines",
    [{"second_oled": True}, {"oled_model": "sh1106_130", "wall": 3.0}],
    ids=["second-oled", "sh1106-thick-wall"],
)
def test_lid_variants_fit(out, defines):
    lid, _ = render("box.scad", out, part="lid", **defines)
    assert stl_bounds(lid)[2] > 100


def test_a_misfit_fails_to_render(tmp_path):
    result = subprocess.run(
        [
            openscad(),
            "-o",
            str(tmp_path / "x.stl"),
            "-D",
            "disc_radius=80",
            str(ENCLOSURES / "box.scad"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "the disc hits the OLED" in result.stderr


@pytest.mark.parametrize(("model", "vertical_fov"), [("module3_wide", 67), ("module3", 41)])
def test_camera_arm_holds_the_camera_over_the_board_centre(out, model, vertical_fov):
    board, gap, margin, thickness = 320, 20, 15, 15
    arm, log = render(
        "camera_arm.scad",
        out,
        camera_model=model,
        board_size=board,
        foot_gap=gap,
        board_margin=margin,
        board_thickness=thickness,
    )
    assert stl_bounds(arm)[2] > 100
    info = echoes(log, "camera_arm")[0]
    # the foot's rod stands `gap` from the board's edge: the centre is gap + board / 2 away
    assert info["lens_x"] == pytest.approx(gap + board / 2)
    # the camera's narrower field of view (Camera Module 3 datasheet) takes in the whole board
    half_view = info["lens_above_board"] * math.tan(math.radians(vertical_fov / 2))
    assert half_view >= board / 2 + margin - 0.01
    assert info["lens_z"] - thickness == pytest.approx(info["lens_above_board"])
    assert info["vertical_rod"] > 0 and info["horizontal_rod"] > 0


@pytest.mark.parametrize(
    ("model", "holes", "board"),
    [("pi4_5", [58, 49], [85, 56]), ("zero2w", [58, 23], [65, 30])],
)
def test_the_base_takes_a_pi_4_5_or_a_zero_2_w(out, model, holes, board):
    # Raspberry Pi mechanical drawings: M2.5 holes 3.5 mm in from the edges
    base, log = render("box.scad", out, part="base", pi_model=model)
    info = echoes(log, "pi")[0]
    assert info["holes"] == holes and info["board"] == board
    xs, ys = info["standoff_xs"], info["standoff_ys"]
    assert xs[1] - xs[0] == pytest.approx(holes[0]) and ys[1] - ys[0] == pytest.approx(holes[1])
    # the standoffs stand inside the walls
    lo, hi, facets = stl_bounds(base)
    assert lo[0] < xs[0] < xs[1] < hi[0] and lo[1] < ys[0] < ys[1] < hi[1] and facets > 100
