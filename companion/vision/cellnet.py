"""The cell model at run time: a small convolutional network, shipped as ONNX, run by cv2.dnn.

Each cell of the warped top-down board (``profile.cell_px`` pixels a cell, half a cell of margin
round the grid) is cut with a quarter of a cell of its neighbours on every side, scaled to
:data:`INPUT_PX` pixels square and handed to the network, which gives, for every cell, the
probability of each class (:data:`companion.vision.wide.CLASSES`: empty, blank, A-Z) and, for a
lettered tile, of its ink being blue or red (Iago). The network is taught by
:mod:`companion.vision.learn` (``make vision-model``); its recipe stands beside it in
``data/cellnet.json``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.errors import VisionError

INPUT_PX = 32  # pixels a side of the network's input
CROP_MARGIN = 0.25  # of a cell: the neighbours' band cut with a cell on each side
N_CLASSES = 28  # empty, blank, A-Z
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


def cell_crops(warp: np.ndarray, size: int, cell_px: int) -> np.ndarray:
    """The network's input for every cell of a warped board.

    Args:
        warp: uint8 (board_px, board_px, 3) BGR, ``board_px = (size + 1) * cell_px``
            (:func:`companion.vision.reader.warp_board`).
        size: cells a side of the grid.
        cell_px: pixels a cell in ``warp``.

    Returns:
        float32 (size * size, 3, INPUT_PX, INPUT_PX), cells row by row, BGR scaled so the board's
        bright tenth is :data:`NORMAL_LEVEL` (clipped to 0-2).

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
    pad = cv2.copyMakeBorder(warp, m, m, m, m, cv2.BORDER_REPLICATE)
    scale = board_scale(warp, size, cell_px)
    out = np.empty((size * size, INPUT_PX, INPUT_PX, 3), np.float32)
    crop = cell_px + 2 * m
    for r in range(size):
        y = cell_px // 2 + r * cell_px  # the cell's top in warp = its crop's top in pad
        for c in range(size):
            x = cell_px // 2 + c * cell_px
            win = pad[y : y + crop, x : x + crop]
            out[r * size + c] = cv2.resize(win, (INPUT_PX, INPUT_PX), interpolation=cv2.INTER_AREA)
    out *= scale
    np.clip(out, 0.0, 2.0, out=out)
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2))


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Softmax over the last axis of float logits divided by ``temperature`` (float64 out)."""
    z = np.asarray(logits, np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass
class CellProbabilities:
    """What the network says of every cell.

    Attributes:
        classes: float64 (size, size, 28): calibrated probability of each class (empty, blank,
            A-Z); each cell's row sums to 1.
        ink: float64 (size, size, 2): probability of blue and red ink, given a lettered tile.
        logits: float32 (size, size, 30): the network's raw outputs (class logits, then ink).
    """

    classes: np.ndarray
    ink: np.ndarray
    logits: np.ndarray


class CellNet:
    """The cell network, loaded from an ONNX file and run by OpenCV's ``cv2.dnn``.

    Args:
        path: the ONNX file (default the shipped ``data/cellnet.onnx``).
        recipe: its recipe (default ``data/cellnet.json`` beside the shipped model, or
            ``PATH.json`` beside another): the temperature that calibrates its probabilities
            and the trust level chosen with them.

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
        self.trust_level = float(recipe.get("trust_level", TRUST_LEVEL))
        if not self.path.is_file():
            raise VisionError(
                f"cell model {self.path}: no such file (make vision-model builds it)"
            )
        try:
            self.net = cv2.dnn.readNetFromONNX(str(self.path))
        except cv2.error as exc:
            raise VisionError(f"cell model {self.path}: OpenCV cannot read it ({exc})") from None
        self._lock = threading.Lock()

    def logits(self, crops: np.ndarray, batch: int = 256) -> np.ndarray:
        """Raw outputs, float32 (N, 30), for crops float32 (N, 3, INPUT_PX, INPUT_PX)."""
        outs = []
        with self._lock:
            for i in range(0, len(crops), batch):
                self.net.setInput(np.ascontiguousarray(crops[i : i + batch]))
                outs.append(np.array(self.net.forward(), np.float32).reshape(-1, N_CLASSES + N_INKS))
        return np.concatenate(outs) if outs else np.zeros((0, N_CLASSES + N_INKS), np.float32)

    def read(self, warp: np.ndarray, size: int, cell_px: int) -> CellProbabilities:
        """Every cell's class and ink probabilities for a warped board (:func:`cell_crops`)."""
        raw = self.logits(cell_crops(warp, size, cell_px))
        raw = raw.reshape(size, size, N_CLASSES + N_INKS)
        classes = softmax(raw[..., :N_CLASSES], self.temperature)
        ink = softmax(raw[..., N_CLASSES:])
        return CellProbabilities(classes, ink, raw)


_CACHE: dict[str, CellNet] = {}
_CACHE_LOCK = threading.Lock()


def load_cellnet(path: Path | str | None = None) -> CellNet:
    """The cell network at ``path`` (default the shipped one), loaded once per process."""
    key = str(path or SHIPPED_MODEL)
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = CellNet(path)
        return _CACHE[key]
