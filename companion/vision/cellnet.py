"""The cell model at run time: a small convolutional network, shipped as ONNX, run by cv2.dnn.

Each cell of the warped top-down board (``profile.cell_px`` pixels a cell, half a cell of margin
round the grid) is cut with a quarter of a cell of its neighbours on every side, scaled to
:data:`INPUT_PX` pixels square and handed to the network, which gives, for every cell, the
probability of each class (:data:`companion.vision.wide.CLASSES`: empty, blank, A-Z, hidden) and, for a
lettered tile, of its ink being blue or red (Iago). The network is taught by
:mod:`companion.vision.learn` (``make vision-model``); its recipe stands beside it in
``data/cellnet.json``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from pathlib import Path

import cv2
import numpy as np

from companion.paths import data_dir
from companion.vision.errors import VisionError

INPUT_PX = 32  # pixels a side of the network's input
CROP_MARGIN = 0.25  # of a cell: the band of its neighbours cut with a cell on each side
N_CLASSES = 29  # empty, blank, A-Z, hidden
N_INKS = 2  # blue, red
NORMAL_LEVEL = 0.8  # a board's bright tenth is scaled to this (0-1) before the network sees it
NORMAL_LEAST = 20.0  # 8-bit: the bright tenth of a board darker than this is scaled as if this

# the least calibrated probability a cell of a trusted reading may have, when the recipe does not
# give the level chosen on the validation renders (learn.choose_trust_level)
TRUST_LEVEL = 0.99

MODEL_DIR = Path(__file__).resolve().parent / "data"
SHIPPED_MODEL = MODEL_DIR / "cellnet.onnx"
SHIPPED_RECIPE = MODEL_DIR / "cellnet.json"


def board_scale(warp: np.ndarray, size: int, cell_px: int) -> float:
    """The factor that brings a warped board's bright tenth (the 90th percentile of its grey
    grid area, 8-bit) to :data:`NORMAL_LEVEL`: the network sees boards at one exposure."""
    lo, hi = cell_px // 2, cell_px // 2 + size * cell_px
    grey = cv2.cvtColor(warp[lo:hi, lo:hi], cv2.COLOR_BGR2GRAY)
    level = max(float(np.percentile(grey[::2, ::2], 90)), NORMAL_LEAST)
    return NORMAL_LEVEL / level


def cell_crops(
    warp: np.ndarray,
    size: int,
    cell_px: int,
    shift: tuple[int, int] = (0, 0),
    only: np.ndarray | None = None,
) -> np.ndarray:
    """The network's input for every cell of a warped board.

    Args:
        warp: uint8 (board_px, board_px, 3) BGR, ``board_px = (size + 1) * cell_px``
            (:func:`companion.vision.reader.warp_board`).
        size: cells a side of the grid.
        cell_px: pixels a cell in ``warp``.
        shift: (down, right) pixels every crop is cut moved by (kept inside the padded board).
        only: the cells to cut (indices row * size + column, in that order), or None for all.

    Returns:
        float32 (cells, 3, INPUT_PX, INPUT_PX), cells row by row (or in ``only``'s order),
        BGR scaled so the board's bright tenth is :data:`NORMAL_LEVEL` (clipped to 0-2).

    Raises:
        VisionError: ``warp`` is not of that shape.
    """
    side = (size + 1) * cell_px
    if warp.shape != (side, side, 3):
        raise VisionError(
            f"warped board: expected shape ({side}, {side}, 3) for {size}x{size} cells of "
            f"{cell_px} px, got {warp.shape}"
        )
    m = int(round(CROP_MARGIN * cell_px))
    dy, dx = shift
    pad = cv2.copyMakeBorder(warp, m, m, m, m, cv2.BORDER_REPLICATE)
    scale = board_scale(warp, size, cell_px)
    cells = range(size * size) if only is None else only
    out = np.empty((len(cells), INPUT_PX, INPUT_PX, 3), np.float32)
    crop = cell_px + 2 * m
    for i, rc in enumerate(cells):
        r, c = divmod(int(rc), size)
        # the cell's top in warp = its crop's top in pad (moved by the shift, kept on the pad)
        y = min(max(cell_px // 2 + r * cell_px + dy, 0), pad.shape[0] - crop)
        x = min(max(cell_px // 2 + c * cell_px + dx, 0), pad.shape[1] - crop)
        win = pad[y : y + crop, x : x + crop]
        out[i] = cv2.resize(win, (INPUT_PX, INPUT_PX), interpolation=cv2.INTER_AREA)
    out *= scale
    np.clip(out, 0.0, 2.0, out=out)
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2))


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Softmax over the last axis of float logits divided by ``temperature`` (float64 out)."""
    z = np.asarray(logits, np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class CellNet:
    """The cell network, loaded from an ONNX file and run by OpenCV's ``cv2.dnn``.

    Args:
        path: the ONNX file (default the shipped ``data/cellnet.onnx``).
        recipe: its recipe (default ``data/cellnet.json`` beside the shipped model, or
            ``PATH.json`` beside another): the temperatures that calibrate its probabilities
            (``temperature`` the classes', ``ink_temperature`` the ink's, 1 when absent) and the
            trust levels chosen with them: ``trust_level``, the network's alone (a
            cell under it is in doubt and read again), and ``reader_trust_level``, what every
            cell of a trusted reading needs, chosen on the cells as the reader reads them
            (:func:`companion.vision.learn.reader_trust_level`; the network's when absent),
            and ``count_trust_level``, what every cell of a trusted count of the lead needs,
            chosen on the same cells by the same rule for a tile or none and its colour (a
            reading's when absent).

    ``model_id`` is the model's identity, the first 16 hex digits of its file's SHA-256: a
    calibration to the user's set names it and is read only with that model (:func:`read_head`).

    Raises:
        VisionError: the file is missing or is not a network OpenCV can run.
    """

    def __init__(self, path: Path | str | None = None, recipe: dict | None = None):
        self.path = Path(path) if path is not None else SHIPPED_MODEL
        if recipe is None:
            side = SHIPPED_RECIPE if path is None else self.path.with_suffix(".json")
            recipe = json.loads(side.read_text(encoding="utf-8")) if side.is_file() else {}
        self.recipe = recipe
        self.temperature = float(recipe.get("temperature", 1.0))
        self.ink_temperature = float(recipe.get("ink_temperature", 1.0))
        self.trust_level = float(recipe.get("trust_level", TRUST_LEVEL))
        self.reader_trust_level = float(recipe.get("reader_trust_level", self.trust_level))
        self.count_trust_level = float(recipe.get("count_trust_level", self.reader_trust_level))
        # pixels a cell in the network's input: a photo showing a cell in fewer is enlarged for
        # it, and every cell of it is read again moved (cells.read_cells)
        margin = float(recipe.get("crop_margin", CROP_MARGIN))
        self.native_cell_px = float(recipe.get("input_px", INPUT_PX)) / (1 + 2 * margin)
        if not self.path.is_file():
            raise VisionError(f"cell model {self.path}: no such file (make vision-model builds it)")
        try:
            self.net = cv2.dnn.readNetFromONNX(str(self.path))
        except cv2.error as exc:
            raise VisionError(f"cell model {self.path}: OpenCV cannot read it ({exc})") from None
        # the model's identity: the first 16 hex digits of its file's SHA-256 (a calibration
        # to the user's set names it, and is read only with it)
        self.model_id = hashlib.sha256(self.path.read_bytes()).hexdigest()[:16]
        self._lock = threading.Lock()
        self.head: tuple[np.ndarray, np.ndarray] | None = None
        self.calibration: Path | None = None  # the file of the adapted layer read with
        self.calibration_problem: str | None = None  # why a calibration made is not used

    @functools.cached_property
    def feature_size(self) -> int:
        """F, the width of the network's last hidden layer (the class layer's input), from one
        blank crop's outputs (the first time it is asked)."""
        return int(self.outputs(np.zeros((1, 3, INPUT_PX, INPUT_PX), np.float32))[1].shape[1])

    def outputs(self, crops: np.ndarray, batch: int = 256) -> tuple[np.ndarray, np.ndarray]:
        """(logits float32 (N, 31), features float32 (N, F)) for crops float32 (N, 3,
        INPUT_PX, INPUT_PX): the network's outputs, and its last hidden layer's (the class
        layer's input). With a calibration to the user's set (:meth:`adapt`), the class logits
        are the adapted layer's."""
        logits, feats = [], []
        with self._lock:
            for i in range(0, len(crops), batch):
                self.net.setInput(np.ascontiguousarray(crops[i : i + batch], np.float32))
                out, feat = self.net.forward(["logits", "features"])
                logits.append(np.array(out, np.float32).reshape(len(out), -1))
                feats.append(np.array(feat, np.float32).reshape(len(feat), -1))
        if not logits:
            return np.zeros((0, N_CLASSES + N_INKS), np.float32), np.zeros((0, 0), np.float32)
        logits_all, feats_all = np.concatenate(logits), np.concatenate(feats)
        if self.head is not None:
            weights, bias = self.head
            logits_all[:, :N_CLASSES] = feats_all @ weights.T + bias
        return logits_all, feats_all

    def logits(self, crops: np.ndarray, batch: int = 256) -> np.ndarray:
        """The outputs' logits alone, float32 (N, 31) (:meth:`outputs`)."""
        return self.outputs(crops, batch)[0]

    def adapt(self, head: tuple[np.ndarray, np.ndarray] | None) -> None:
        """Read with an adapted class layer (weights float32 (29, F), bias float32 (29,)) from
        a calibration to the user's set, or with the network's own (None).

        Raises:
            VisionError: the layer's shapes are not (29, F) and (29,), or it holds a value that
                is not a finite number.
        """
        if head is not None:
            weights, bias = (np.asarray(a, np.float32) for a in head)
            problem = layer_problem(weights, bias, self.feature_size)
            if problem:
                raise VisionError(f"adapted class layer: {problem}")
            head = (weights, bias)
        self.head = head


def calibration_path(profile_name: str) -> Path:
    """Where ``companion vision calibrate`` keeps the adapted class layer of a profile.

    Raises:
        UnsafeNameError: ``profile_name`` could name a file outside the data directory.
    """
    from companion.names import check_name, path_in

    check_name(profile_name, "board profile")
    return path_in(
        data_dir() / "vision", f"cellnet-calibration-{profile_name}", ".npz", "board profile"
    )


def layer_problem(weights: np.ndarray, bias: np.ndarray, features: int | None) -> str | None:
    """What makes a class layer (``weights`` (29, F), ``bias`` (29,)) one the network cannot read
    with, in words, or None: other shapes (``features``: the network's F, None: any), or a
    value that is not a finite number."""
    want = f"(29, {features if features is not None else 'F'})"
    if (
        weights.ndim != 2
        or weights.shape[0] != N_CLASSES
        or (features is not None and weights.shape[1] != features)
        or bias.shape != (N_CLASSES,)
    ):
        return (
            f"holds a class layer of {weights.shape} and {bias.shape}, not {want} and (29,): "
            "made for another cell model"
        )
    if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
        return "holds values that are not numbers"
    return None


def read_head(
    profile_name: str, net: CellNet | None = None
) -> tuple[tuple[np.ndarray, np.ndarray] | None, str | None]:
    """The adapted class layer of a profile and what is wrong with its file: ((weights float32
    (29, F), bias float32 (29,)), None); (None, None) when there is no calibration; (None, the
    fault in words) when the file cannot be read or holds no usable layer: not an ``.npz`` of
    ``weights`` and ``bias``, shapes other than (29, F) and (29,), a value that is not a finite
    number, or (given ``net``) a layer made for another network: F not ``net``'s, or the
    ``model`` it names (:attr:`CellNet.model_id`, written by ``companion vision calibrate``)
    not ``net``'s, or none named (a calibration kept from before an update of the model would
    read the new network's features with the old one's layer). Raises nothing."""
    path = calibration_path(profile_name)
    if not path.exists():
        return None, None
    if not path.is_file():
        return None, f"{path} is not a file"
    try:
        with np.load(path) as f:
            weights = np.asarray(f["weights"], np.float32)
            bias = np.asarray(f["bias"], np.float32)
            model = str(f["model"]) if "model" in f.files else None
    except Exception as exc:  # noqa: BLE001 - np.load of a damaged file raises many kinds
        # (EOFError, zipfile.BadZipFile, ValueError...): none stops the reading
        return None, f"{path} cannot be read (not a calibration file: {type(exc).__name__})"
    problem = layer_problem(weights, bias, None if net is None else net.feature_size)
    if problem:
        return None, f"{path} {problem}"
    if net is not None and model != net.model_id:
        made = "names no model" if model is None else f"was made for cell model {model}"
        return None, f"{path} {made}, not the one read with ({net.model_id}): calibrate again"
    return (weights, bias), None


_CACHE: dict[str, CellNet] = {}
_CACHE_LOCK = threading.Lock()


def load_cellnet(path: Path | str | None = None, profile: str | None = None) -> CellNet:
    """The cell network at ``path`` (default the shipped one), loaded once per process, reading
    with ``profile``'s calibration to the user's set when ``companion vision calibrate`` made
    one (:func:`read_head`; looked at on every call, so a calibration made or reset takes effect
    at once). A calibration file that cannot be used is not read with, and the network's
    ``calibration_problem`` says why (the reader notes it, ``vision read`` says it, the table
    logs it); ``calibration`` is the file read with, or None."""
    stamp = cal = None
    if profile is not None and path is None:
        cal = calibration_path(profile)
        stamp = cal.stat().st_mtime_ns if cal.exists() else None
    key = f"{path or SHIPPED_MODEL}|{cal if stamp is not None else ''}|{stamp}"
    with _CACHE_LOCK:
        if key not in _CACHE:
            net = CellNet(path)
            if stamp is not None:
                head, problem = read_head(profile, net)
                if problem:
                    net.calibration_problem = (
                        f"{problem}; 'companion vision calibrate --profile {profile}' makes it "
                        "again"
                    )
                net.adapt(head)
                net.calibration = cal if head is not None else None
            _CACHE[key] = net
        return _CACHE[key]
