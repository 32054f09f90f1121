"""Teaching the cell model (``make vision-model``): wide renders in, an ONNX file and its recipe out.

Three sets are kept apart, each drawn from its own seed:

- *training*: :data:`TRAIN_BOARDS` wide renders (:mod:`companion.vision.wide`) in the training
  fonts, Iago and Scrabble boards alike;
- *validation*: a tenth as many renders of another seed, which choose the temperature that
  calibrates the probabilities, the network's trust level (under it a cell is read again) and a
  reading's trust level (the same rule on the cells as the reader reads them), and nothing
  else;
- *test*: a tenth as many renders of a third seed, in :data:`companion.vision.wide.TEST_FONTS`,
  faces never drawn in training, only reported.

The real photos (../shared/data) are never trained on. Training needs PyTorch (the ``train``
extra: ``pip install -e .[train]``); the product runs the ONNX file through ``cv2.dnn`` alone.
"""

from __future__ import annotations

import functools
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from companion.vision import cellnet, wide

SEED = 20261206
TRAIN_BOARDS = 1200
EPOCHS = 12
BATCH = 256
LEARNING_RATE = 3e-3
OPSET = 13


def _render(seed: int, index: int, fonts: tuple[str, ...]):
    """(profile, render): board ``index`` of a set seeded ``seed`` (:func:`render_set`: even
    indices Scrabble, odd Iago), drawn in ``fonts``."""
    from companion.vision.profiles import get_profile

    profile = get_profile("iago" if index % 2 else "scrabble")
    return profile, wide.render(wide.board_rng(seed, index), profile, fonts=fonts)


def _render_cells(args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One render's crops (float16), classes and inks (int64), flattened row by row."""
    p, ren = _render(*args)
    crops = cellnet.cell_crops(ren.warp, p.size, p.cell_px).astype(np.float16)
    return crops, ren.labels.reshape(-1), ren.ink.reshape(-1)


def render_set(
    seed: int, count: int, fonts: tuple[str, ...], workers: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells of ``count`` wide renders (even index Scrabble, odd Iago) seeded ``seed``.

    Returns:
        crops float16 (N, 3, INPUT_PX, INPUT_PX), classes int64 (N,), ink int64 (N,) (-1 where
        ink says nothing), cells int (count,) of each board; the same whatever ``workers`` is.
    """
    jobs = [(seed, i, tuple(fonts)) for i in range(count)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_render_cells, jobs, chunksize=8))
    else:
        parts = [_render_cells(j) for j in jobs]
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
        np.array([len(p[1]) for p in parts]),
    )


def network():
    """The cell network (a torch ``nn.Module``): four 3x3 convolutions of 16, 32, 64 and 128
    channels, each with batch normalisation and ReLU, a 2x2 max pool after each, then a fully
    connected layer of 128 and the outputs: 29 class logits, then 2 ink logits."""
    from torch import nn

    def block(i, o):
        return [
            nn.Conv2d(i, o, 3, padding=1, bias=False),
            nn.BatchNorm2d(o),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]

    return nn.Sequential(
        *block(3, 16), *block(16, 32), *block(32, 64), *block(64, 128),
        nn.Flatten(),
        nn.Linear(128 * (cellnet.INPUT_PX // 16) ** 2, 128), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(128, cellnet.N_CLASSES + cellnet.N_INKS),
    )  # fmt: skip


def _logits(model, crops: np.ndarray) -> np.ndarray:
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), 1024):
            out.append(model(torch.from_numpy(crops[i : i + 1024].astype(np.float32))).numpy())
    return np.concatenate(out)


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature (0.5-5) that minimises the negative log-likelihood of ``labels`` (int
    (N,)) under softmax(``logits`` (N, 29) / T): temperature scaling (Guo et al., 2017)."""
    best, best_nll = 1.0, np.inf
    for t in np.arange(0.5, 5.0001, 0.05):
        p = cellnet.softmax(logits, t)[np.arange(len(labels)), labels]
        nll = float(-np.log(np.maximum(p, 1e-12)).mean())
        if nll < best_nll:
            best, best_nll = float(t), nll
    return round(best, 2)


def _cells_read(
    logits: np.ndarray,
    labels: np.ndarray,
    ink: np.ndarray,
    temperature: float,
    ink_temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(class read int (N,), its confidence float (N,), wrong bool (N,)) of cells: the
    calibrated probability of the class read, times its ink's (the ink head calibrated by
    ``ink_temperature``) for a lettered tile whose ink says something; wrong when the class or
    that ink is."""
    probs = cellnet.softmax(logits[:, : cellnet.N_CLASSES], temperature)
    inkp = cellnet.softmax(logits[:, cellnet.N_CLASSES :], ink_temperature)
    pred = probs.argmax(1)
    inked = (ink >= 0) & (pred >= 2) & (pred < wide.HIDDEN)
    conf = np.where(inked, probs.max(1) * inkp.max(1), probs.max(1))
    wrong = (pred != labels) | (inked & (inkp.argmax(1) != ink))
    return pred, conf, wrong


def board_confidences(
    logits: np.ndarray,
    labels: np.ndarray,
    ink: np.ndarray,
    cells: np.ndarray,
    temperature: float,
    ink_temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Each board's least cell confidence and whether it is read perfect: float64 (B,), bool
    (B,), for the cells of B boards (``cells``: each board's cell count, in order). A cell's
    confidence is the calibrated probability of its class read (times its ink's, for a lettered
    tile of a board whose ink says something), as :func:`companion.vision.cells.read_cells`
    gives it."""
    _, conf, wrong = _cells_read(logits, labels, ink, temperature, ink_temperature)
    right = ~wrong
    least, perfect, i = [], [], 0
    for n in cells:
        least.append(conf[i : i + n].min())
        perfect.append(bool(right[i : i + n].all()))
        i += n
    return np.array(least), np.array(perfect)


# the share of wrong cells a trusted cell may carry, over the validation renders' cells at or
# over the trust level: one in a thousand (a 121- or 225-cell board has every cell over it)
WRONG_OVER_LEVEL = 0.001


def choose_trust_level(conf: np.ndarray, wrong: np.ndarray) -> float:
    """The trust level: the lowest (in steps of 0.001, from 0.9) at which at most
    :data:`WRONG_OVER_LEVEL` of the validation cells with a confidence at or over it are read
    wrong (``conf`` float (N,), the calibrated confidence of what each cell was read as;
    ``wrong`` bool (N,)). Chosen on the validation renders alone."""
    for level in np.arange(0.9, 1.0, 0.001):
        over = conf >= level
        if over.any() and wrong[over].mean() <= WRONG_OVER_LEVEL:
            return round(float(level), 3)
    return 0.999


def cell_confidences(
    logits: np.ndarray,
    labels: np.ndarray,
    ink: np.ndarray,
    temperature: float,
    ink_temperature: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """(confidence float (N,), wrong bool (N,)) of cells as the reader reads them: the
    calibrated probability of the class read (times its ink's, for a lettered tile whose ink
    says something), and whether class or ink is wrong. A cell read ``hidden`` is never
    trusted, and is left out (wrong False, confidence 0)."""
    pred, conf, wrong = _cells_read(logits, labels, ink, temperature, ink_temperature)
    hidden = pred == wide.HIDDEN
    return np.where(hidden, 0.0, conf), wrong & ~hidden


@functools.lru_cache(maxsize=2)
def _net(path: str, recipe: str) -> cellnet.CellNet:
    """The cell network at ``path`` with its recipe (JSON text), loaded once a process."""
    return cellnet.CellNet(path, json.loads(recipe))


def _reader_cells(job) -> tuple[np.ndarray, ...]:
    """One validation render read as the reader reads it: (confidence float (N,), wrong bool
    (N,), the count's confidence float (N,), the count's wrong bool (N,)), a cell read
    ``hidden`` left out (confidence 0, not wrong). The count's are of what the count of the lead
    needs (:func:`companion.vision.cells.presence_confidence`): a tile or none, and a lettered
    tile's colour; a hidden cell, which no reading matches, is wrong for it too."""
    from companion.vision.cells import (
        counted_differently,
        grid_chars,
        presence_confidence,
        read_cells,
    )

    path, recipe, seed, index, fonts = job
    profile, ren = _render(seed, index, fonts)
    grid, conf, ev, _ = read_cells(ren.warp, profile, _net(path, recipe), photo_cell_px=ren.cell_px)
    truth = ren.rows(profile.coloured_ink)
    wrong = grid_chars(grid) != grid_chars(truth)
    counted_wrong = counted_differently(grid, truth)
    hidden = ev.hidden
    counted = presence_confidence(grid, ev)
    return (
        np.where(hidden, 0.0, conf).reshape(-1),
        (wrong & ~hidden).reshape(-1),
        np.where(hidden, 0.0, counted).reshape(-1),
        (counted_wrong & ~hidden).reshape(-1),
    )


def reader_trust_level(
    path: Path, recipe: dict, seed: int, boards: int, workers: int = 2
) -> tuple[float, float, int]:
    """The trust levels of a reading (:attr:`companion.vision.cellnet.CellNet.reader_trust_level`
    and ``count_trust_level``): chosen by :func:`choose_trust_level`'s rule on the validation
    renders (``boards`` of ``seed``, drawn as :func:`render_set` draws them) read as the reader
    reads a board (:func:`companion.vision.cells.read_cells`: the cells in doubt read again, a
    tile's colour weighed in, the set's counts), not on the network's outputs alone: the
    reading's on each cell's confidence in what it reads, the count's on each cell's confidence
    in a tile or none and a lettered tile's colour
    (:func:`companion.vision.cells.presence_confidence`), on the cells under the reading's level
    alone (a cell at or over it is sure for the count: a trusted reading is always counted).
    Returns (level, count level, cells read)."""
    fonts = tuple(wide.training_fonts())
    jobs = [(str(path), json.dumps(recipe), seed, i, fonts) for i in range(boards)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_reader_cells, jobs, chunksize=4))
    else:
        parts = [_reader_cells(j) for j in jobs]
    conf, wrong, counted, counted_wrong = (np.concatenate(x) for x in zip(*parts, strict=True))
    level = choose_trust_level(conf, wrong)
    # a cell the reading is sure of is sure for the count (its class right, its tile and colour
    # are; a trusted reading is always counted): the count's level is chosen on the others, the
    # cells the count alone may take as sure, so that the rule holds on them and is not met
    # only thanks to the many the reading is already sure of
    alone = conf < level
    return level, choose_trust_level(counted[alone], counted_wrong[alone]), int(len(conf))


def accuracy(logits: np.ndarray, labels: np.ndarray, ink: np.ndarray) -> dict:
    """Cell accuracy (class), and ink accuracy on cells whose ink says something."""
    pred = logits[:, : cellnet.N_CLASSES].argmax(1)
    right = pred == labels
    inked = ink >= 0
    ink_right = logits[inked, cellnet.N_CLASSES :].argmax(1) == ink[inked]
    return {
        "cells": int(len(labels)),
        "class_accuracy": round(float(right.mean()), 5),
        "letter_accuracy": round(float(right[(labels >= 2) & (labels < wide.HIDDEN)].mean()), 5),
        "hidden_accuracy": round(float(right[labels == wide.HIDDEN].mean()), 5) if (labels == wide.HIDDEN).any() else None,
        "empty_accuracy": round(float(right[labels == 0].mean()), 5),
        "blank_accuracy": round(float(right[labels == 1].mean()), 5) if (labels == 1).any() else None,
        "ink_accuracy": round(float(ink_right.mean()), 5) if inked.any() else None,
    }  # fmt: skip


class _Exported:
    """The network as shipped: outputs ``logits`` (N, 31) and ``features`` (N, 128), the last
    hidden layer, which calibration to a user's set adapts the class layer on
    (:mod:`companion.vision.calibrate`)."""

    def __new__(cls, model):
        from torch import nn

        class Exported(nn.Module):
            def __init__(self, model):
                super().__init__()
                self.body = model[:-2]  # through the hidden layer's ReLU
                self.head = model[-1]

            def forward(self, x):
                features = self.body(x)
                return self.head(features), features

        return Exported(model)


def export_onnx(model, path: Path) -> None:
    """Write ``model`` as ONNX (opset :data:`OPSET`, batch axis free) to ``path``, with two
    outputs: ``logits`` and ``features`` (:class:`_Exported`)."""
    import torch

    model.eval()
    dummy = torch.zeros(1, 3, cellnet.INPUT_PX, cellnet.INPUT_PX)
    torch.onnx.export(
        _Exported(model), dummy, str(path), input_names=["cells"],
        output_names=["logits", "features"],
        dynamic_axes={"cells": {0: "n"}, "logits": {0: "n"}, "features": {0: "n"}},
        opset_version=OPSET, dynamo=False,
    )  # fmt: skip


def train(
    output: Path = cellnet.SHIPPED_MODEL,
    seed: int = SEED,
    boards: int = TRAIN_BOARDS,
    epochs: int = EPOCHS,
    workers: int = 2,
    log=print,
) -> dict:
    """Build the cell model from scratch: render the three sets, train, calibrate, export.

    Writes ``output`` (ONNX) and ``output.with_suffix('.json')`` (the recipe: seed, sets, fonts,
    epochs, temperature, and the accuracy measured on validation and test renders).

    Raises:
        ImportError: PyTorch is not installed (``pip install -e .[train]``).
    """
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(max(workers, 1))
    t0 = time.time()
    train_fonts = wide.training_fonts()
    x, y, ink, _ = render_set(seed, boards, train_fonts, workers)
    xv, yv, inkv, nv = render_set(seed + 1, max(boards // 10, 8), train_fonts, workers)
    xt, yt, inkt, nt = render_set(seed + 2, max(boards // 10, 8), wide.TEST_FONTS, workers)
    log(f"rendered {len(y)} training cells in {time.time() - t0:.0f} s")
    model = network()
    opt = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=1e-4)
    steps = epochs * ((len(y) + BATCH - 1) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LEARNING_RATE, total_steps=steps)
    gen = np.random.default_rng(seed)
    xs, ys, inks = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(ink)
    ce = torch.nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        order = torch.from_numpy(gen.permutation(len(y)))
        total = 0.0
        for i in range(0, len(y), BATCH):
            idx = order[i : i + BATCH]
            out = model(xs[idx].float())
            loss = ce(out[:, : cellnet.N_CLASSES], ys[idx])
            inked = inks[idx] >= 0
            if inked.any():
                loss = loss + 0.5 * ce(out[inked, cellnet.N_CLASSES :], inks[idx][inked])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        val = accuracy(_logits(model, xv), yv, inkv)
        log(
            f"epoch {epoch + 1}/{epochs}: loss {total / len(y):.4f}, validation "
            f"{val['class_accuracy']:.4f} ({time.time() - t0:.0f} s)"
        )
    lv, lt = _logits(model, xv), _logits(model, xt)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(model, output)
    recipe = {
        "model": output.name,
        "seed": seed,
        "input_px": cellnet.INPUT_PX,
        "crop_margin": cellnet.CROP_MARGIN,
        "classes": list(wide.CLASSES),
        "inks": ["blue", "red"],
        "training": {
            "boards": boards,
            "cells": int(len(y)),
            "fonts": len(train_fonts),
            "epochs": epochs,
            "batch": BATCH,
            "learning_rate": LEARNING_RATE,
            "profiles": "even renders scrabble, odd iago",
        },
        **calibrate(lv, yv, inkv, nv, lt, yt, inkt, nt, seed),
        "seconds": round(time.time() - t0),
        "torch": torch.__version__,
    }
    reader_level, count_level, read = reader_trust_level(output, recipe, seed + 1, len(nv), workers)
    recipe["reader_trust_level"] = reader_level
    recipe["count_trust_level"] = count_level
    recipe["validation"]["reader_cells"] = read
    output.with_suffix(".json").write_text(json.dumps(recipe, indent=2) + "\n", encoding="utf-8")
    log(json.dumps(recipe["validation"]))
    log(json.dumps(recipe["test"]))
    return recipe


def calibrate(lv, yv, inkv, nv, lt, yt, inkt, nt, seed: int) -> dict:
    """The recipe's calibration, from the network's outputs on the validation set (``lv``
    float (N, 31) logits, ``yv`` int (N,) classes, ``inkv`` int (N,) inks, -1 where none, ``nv``
    each board's cell count) and on the test set (the same, ``lt``...): the class temperature
    and the ink head's (each fitted on the validation set alone, :func:`fit_temperature`), the
    network's trust level (:func:`choose_trust_level`), and each set's accuracy and boards
    perfect, trusted and trusted wrong. ``seed`` is the training's (validation ``seed + 1``,
    test ``seed + 2``)."""
    temperature = fit_temperature(lv[:, : cellnet.N_CLASSES], yv)
    inked = inkv >= 0  # the ink head on its own: uncalibrated, it was far surer than right
    ink_temperature = fit_temperature(lv[inked, cellnet.N_CLASSES :], inkv[inked])
    level = choose_trust_level(*cell_confidences(lv, yv, inkv, temperature, ink_temperature))

    def figures(logits, labels, ink, cells, set_seed) -> dict:
        least, perfect = board_confidences(logits, labels, ink, cells, temperature, ink_temperature)
        return {
            "boards": len(cells),
            "seed": set_seed,
            **accuracy(logits, labels, ink),
            "boards_perfect": int(perfect.sum()),
            "boards_trusted": int((least >= level).sum()),
            "wrong_trusted": int(((least >= level) & ~perfect).sum()),
        }

    return {
        "temperature": temperature,
        "ink_temperature": ink_temperature,
        "trust_level": level,
        "validation": figures(lv, yv, inkv, nv, seed + 1),
        "test": {**figures(lt, yt, inkt, nt, seed + 2), "fonts": list(wide.TEST_FONTS)},
    }
