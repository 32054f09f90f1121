"""Iago's differential timer: a pure state machine with time injected (see :mod:`.timer`)."""

from companion.clock.timer import (
    COLOURS,
    ClockError,
    DifferentialTimer,
    Penalty,
    Status,
    Verdict,
    opponent,
)

__all__ = [
    "COLOURS",
    "ClockError",
    "DifferentialTimer",
    "Penalty",
    "Status",
    "Verdict",
    "opponent",
]
