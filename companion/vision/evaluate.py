"""Measuring the reader on a folder of photos with their truth (``companion vision eval DIR``).

A folder holds ``NAME.jpg`` (or .png/.jpeg) with ``NAME.truth.txt`` (board notation, or one row a
line of ``.`` and letters) and optionally ``NAME.corners.json`` (the grid's outer corners, as in
../shared/data/real-scrabble-photos and as ``companion vision render`` writes them) and
``NAME.kind.txt`` (what the photo shows: ``vision render --kind``; a photo without one is of kind
``photo``). Figures are given for the whole folder and for each kind apart: cells right, boards
perfect, boards trusted, wrong boards trusted (which must be none) and good boards trusted; and
how well the cells' confidence predicts being right (expected calibration error and the
reliability diagram's bins).

Truth letters follow the profile: for Iago, upper case is a blue tile and lower case a red one;
for Scrabble, a lower-case letter is a blank tile its player declared as that letter, which the
reader should see as a blank (``?``).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.devices.camera import read_image_file
from companion.textformats import loads_json
from companion.vision.errors import BoardNotFoundError, VisionError
from companion.vision.notation import parse_board
from companion.vision.profiles import PROFILES, Profile, get_profile, profile_for_size

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass
class Sample:
    """One photo of an evaluation folder."""

    image: Path
    truth: list[str]
    corners: list | None
    kind: str = "photo"


def _photos(folder: Path) -> list[tuple[Path, Path]]:
    """The photos of ``folder`` (an existing folder), sorted by name, each with the path of its
    truth file (``NAME.truth.txt``), which may not exist."""
    return [
        (img, Path(f"{img.with_suffix('')}.truth.txt"))
        for img in sorted(folder.iterdir())
        if img.suffix.lower() in IMAGE_SUFFIXES
    ]


def photos_without_truth(folder: Path | str) -> list[Path]:
    """The photos of ``folder`` that have no truth file (``NAME.truth.txt``), sorted by name:
    :func:`load_folder` leaves them out, and ``vision eval`` says so. Empty for a folder that
    does not exist."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return [img for img, truth_file in _photos(folder) if not truth_file.exists()]


def load_folder(folder: Path | str) -> list[Sample]:
    """The photos of ``folder`` that have a truth file, sorted by name.

    Raises:
        VisionError: the folder is missing, holds no photo with a truth file, or a truth or
            corners file is malformed (naming the file).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise VisionError(f"eval folder {folder} does not exist or is not a folder")
    samples = []
    sizes = {p.size for p in PROFILES.values()}  # a truth's rows: one profile's size
    for img, truth_file in _photos(folder):
        if not truth_file.exists():
            continue
        stem = img.with_suffix("")
        text = truth_file.read_text(encoding="utf-8")
        rows = [r for r in (text.split("/") if "/" in text else text.split()) if r.strip()]
        if rows and len(rows) not in sizes:
            # said first: every row would otherwise be reported the wrong length
            raise VisionError(
                f"truth file {truth_file}: {len(rows)} rows; a board has "
                + " or ".join(f"{p.size} ({name})" for name, p in sorted(PROFILES.items()))
                + ", one a line of '.' and letters, or in board notation joined by '/'"
            )
        try:
            truth = parse_board(text)
        except VisionError as exc:
            raise VisionError(f"truth file {truth_file}: {exc}") from None
        corners = None
        corners_file = Path(f"{stem}.corners.json")
        if corners_file.exists():
            try:
                corners = loads_json(corners_file.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise VisionError(f"corners file {corners_file}: not JSON ({exc.msg})") from None
        kind_file = Path(f"{stem}.kind.txt")
        kind = "photo"
        if kind_file.exists():
            kind = kind_file.read_text(encoding="utf-8").strip() or "photo"
        samples.append(Sample(img, truth, corners, kind))
    if not samples:
        raise VisionError(
            f"eval folder {folder} holds no photo (.jpg, .jpeg, .png) with a NAME.truth.txt"
        )
    return samples


def expected_cell(ch: str, profile: Profile) -> str:
    """What the reader should write for a truth character: Scrabble's blanks (lower case in the
    truth) are seen as ``?``."""
    if profile.blank_tiles and ch.islower():
        return "?"
    return ch


@dataclass
class Report:
    """Accuracy and time over a folder for one way of locating the board."""

    mode: str
    profile: str
    boards: int = 0
    boards_perfect: int = 0
    not_found: int = 0
    cells: int = 0
    cells_right: int = 0
    tiles: int = 0
    occupancy_right: int = 0
    letters: int = 0
    letters_right: int = 0
    colours: int = 0
    colours_right: int = 0
    boards_trusted: int = 0
    wrong_trusted: int = 0
    perfect_trusted: int = 0
    confusions: Counter = field(default_factory=Counter)
    stage_seconds: dict[str, list[float]] = field(default_factory=dict)
    per_board: list[dict] = field(default_factory=list)
    cell_confidence: list[np.ndarray] = field(default_factory=list)
    cell_right: list[np.ndarray] = field(default_factory=list)
    kinds: dict[str, Report] = field(default_factory=dict)

    def add_board(self, wrong: int, trusted: bool) -> None:
        """Count one board read: perfect or not, trusted or not."""
        self.boards_perfect += wrong == 0
        self.boards_trusted += trusted
        self.wrong_trusted += trusted and wrong > 0
        self.perfect_trusted += trusted and wrong == 0

    def calibration(self) -> dict:
        """Expected calibration error and the reliability diagram's bins over every cell read."""
        from companion.vision.trust import expected_calibration_error, reliability

        if not self.cell_confidence:
            return {"ece": None, "bins": []}
        conf = np.concatenate(self.cell_confidence)
        right = np.concatenate(self.cell_right)
        return {
            "ece": round(expected_calibration_error(conf, right), 5),
            "bins": reliability(conf, right),
        }

    def to_json(self) -> dict:
        """Figures as a JSON-ready dict (ratios 0-1, times in milliseconds)."""

        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 5) if b else None

        return {
            "mode": self.mode,
            "profile": self.profile,
            "boards": self.boards,
            "boards_not_found": self.not_found,
            "boards_perfect": ratio(self.boards_perfect, self.boards),
            "boards_trusted": ratio(self.boards_trusted, self.boards),
            "wrong_boards_trusted": self.wrong_trusted,
            "perfect_boards_trusted": ratio(self.perfect_trusted, self.boards_perfect),
            "calibration": self.calibration(),
            "cells": ratio(self.cells_right, self.cells),
            "cells_wrong": self.cells - self.cells_right,
            "occupancy": ratio(self.occupancy_right, self.cells),
            "letters": ratio(self.letters_right, self.letters),
            "colours": ratio(self.colours_right, self.colours),
            "confusions": [
                {"truth": t, "read": r, "count": n} for (t, r), n in self.confusions.most_common(12)
            ],
            "ms_per_image": {
                k: round(1000 * float(np.mean(v)), 1) for k, v in self.stage_seconds.items()
            },
            "per_board": self.per_board,
            "kinds": {k: r.to_json() for k, r in sorted(self.kinds.items())},
        }

    def text(self) -> str:
        """A short human-readable summary."""
        j = self.to_json()

        def pct(v: float | None) -> str:
            return "n/a" if v is None else f"{100 * v:.2f}%"

        if self.boards == 0 and self.mode == "given":
            return (
                f"{self.profile} / corners given: no photo here has a NAME.corners.json (the "
                "grid's four corners, [[x, y], ...] top-left, top-right, bottom-right, "
                "bottom-left): nothing measured"
            )
        lines = [
            f"{self.profile} / corners {self.mode}: {self.boards} boards, "
            f"{j['boards_not_found']} not found",
            f"  cells right    {pct(j['cells'])} ({j['cells_wrong']} wrong of {self.cells})",
            f"  tile or empty  {pct(j['occupancy'])}",
            f"  letters        {pct(j['letters'])} of {self.letters}",
        ]
        if self.colours:
            lines.append(f"  colours        {pct(j['colours'])} of {self.colours}")
        lines.append(f"  boards perfect {pct(j['boards_perfect'])}")
        lines.append(
            f"  trusted        {pct(j['boards_trusted'])} of boards; wrong boards trusted "
            f"{j['wrong_boards_trusted']}; perfect boards trusted {pct(j['perfect_boards_trusted'])}"
        )
        cal = j["calibration"]
        if cal["ece"] is not None:
            diagram = " ".join(
                f"{b['from']:.1f}-{b['to']:.1f}:{100 * b['right']:.0f}%/{b['cells']}"
                for b in cal["bins"]
            )
            lines.append(f"  calibration    ECE {cal['ece']:.4f}; right by confidence {diagram}")
        if j["confusions"]:
            pairs = ", ".join(f"{c['truth']}->{c['read']} x{c['count']}" for c in j["confusions"])
            lines.append(f"  confusions     {pairs}")
        times = ", ".join(f"{k} {v} ms" for k, v in j["ms_per_image"].items())
        lines.append(f"  time per image {times}")
        if len(self.kinds) > 1 or (self.kinds and "photo" not in self.kinds):
            lines.append(
                "  by kind        boards  cells right  perfect  trusted  wrong trusted  "
                "perfect trusted"
            )
            for name, r in sorted(self.kinds.items()):
                k = r.to_json()
                lines.append(
                    f"    {name:<12} {r.boards:>6}  {pct(k['cells']):>11}  "
                    f"{pct(k['boards_perfect']):>7}  {pct(k['boards_trusted']):>7}  "
                    f"{k['wrong_boards_trusted']:>13}  {pct(k['perfect_boards_trusted']):>15}"
                )
        return "\n".join(lines)


def score_board(report: Report, truth: list[str], grid: list[str], profile: Profile) -> int:
    """Add one board's cells to ``report``; returns the number of wrong cells."""
    wrong = 0
    for trow, rrow in zip(truth, grid, strict=True):
        for t, r in zip(trow, rrow, strict=True):
            want = expected_cell(t, profile)
            report.cells += 1
            if (want == ".") == (r == "."):
                report.occupancy_right += 1
            if want != ".":
                report.tiles += 1
            if want.isalpha() and r.isalpha():
                report.letters += 1
                report.letters_right += want.upper() == r.upper()
                if profile.coloured_ink:
                    report.colours += 1
                    report.colours_right += want.isupper() == r.isupper()
            if r == want:
                report.cells_right += 1
            else:
                wrong += 1
                report.confusions[(want, r)] += 1
    return wrong


def right_cells(truth: list[str], grid: list[str], profile: Profile) -> np.ndarray:
    """Which cells of ``grid`` are read right against ``truth``: bool (size, size)."""
    return np.array(
        [
            [expected_cell(t, profile) == r for t, r in zip(trow, rrow, strict=True)]
            for trow, rrow in zip(truth, grid, strict=True)
        ]
    )


def evaluate(
    folder: Path | str,
    profile: Profile | str | None = None,
    modes: tuple[str, ...] = ("given", "found"),
) -> list[Report]:
    """Read every photo of ``folder`` and score it against its truth, once per mode: ``given``
    (the corners file; skipped for photos without one) and ``found`` (the board found by the
    reader).

    Raises:
        VisionError: see :func:`load_folder`; an unknown mode.
    """
    from companion.vision.reader import read_board

    for mode in modes:
        if mode not in ("given", "found"):
            raise VisionError(f"eval mode {mode!r}: accepted are 'given' and 'found'")
    samples = load_folder(folder)
    reports = []
    for mode in modes:
        report = None
        for sample in samples:
            prof = get_profile(profile) if profile else profile_for_size(len(sample.truth))
            if len(sample.truth) != prof.size:
                raise VisionError(
                    f"truth of {sample.image.name} is {len(sample.truth)}x{len(sample.truth)}: "
                    f"profile {prof.name} reads {prof.size}x{prof.size}"
                )
            if report is None:
                report = Report(mode, prof.name)
            if mode == "given" and sample.corners is None:
                continue
            t0 = time.perf_counter()
            image, problem = read_image_file(sample.image)
            decode = time.perf_counter() - t0
            if problem:
                raise VisionError(f"image {sample.image} {problem}")
            kind_report = report.kinds.setdefault(sample.kind, Report(mode, prof.name))
            try:
                reading = read_board(
                    image, prof, corners=sample.corners if mode == "given" else None
                )
            except BoardNotFoundError:
                reading = None
            except VisionError as exc:
                # the corners file's corners, or the photo: named
                named = (
                    f"corners file {sample.image.with_suffix('.corners.json')}"
                    if mode == "given"
                    else f"image {sample.image}"
                )
                raise VisionError(f"{named}: {exc}") from None
            if reading is None:
                n = prof.size
                for rep in (report, kind_report):
                    rep.boards += 1
                    rep.not_found += 1
                    wrong = score_board(rep, sample.truth, ["." * n] * n, prof)
                report.per_board.append(
                    {
                        "image": sample.image.name,
                        "kind": sample.kind,
                        "wrong": wrong,
                        "found": False,
                    }
                )
                continue
            right = right_cells(sample.truth, reading.grid, prof)
            for rep in (report, kind_report):
                rep.boards += 1
                wrong = score_board(rep, sample.truth, reading.grid, prof)
                rep.add_board(wrong, reading.trusted)
                rep.cell_confidence.append(reading.confidence.ravel())
                rep.cell_right.append(right.ravel())
            timings = {"decode": decode, **reading.timings}
            timings["total"] = sum(v for k, v in timings.items() if k != "decode")
            for k, v in timings.items():
                report.stage_seconds.setdefault(k, []).append(v)
            report.per_board.append(
                {
                    "image": sample.image.name,
                    "kind": sample.kind,
                    "wrong": wrong,
                    "trusted": reading.trusted,
                    "problems": reading.problems,
                }
            )
        if report is not None:
            reports.append(report)
    return reports
