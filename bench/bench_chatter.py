"""Buttons: one touch, one press (issue 12). Contact chatter and cable glitches on gpiozero's mock
pins, through the table's own GpioButtons and its filter (companion/devices/debounce.py).

The contact model below turns a few parameters (durations in seconds) into the pin's edges; the
tests draw the parameters with hypothesis (tests/test_chatter.py), this benchmark draws 1,000
sequences of each kind at random and counts, for callbacks delivered on time and 0.3 ms late (as
on a Pi, where lgpio's callbacks arrive a little after the edge):

- spurious presses (more than the touches), lost presses (fewer), and presses stamped elsewhere
  than at their first edge. Goal: 0, 0 and 0.

Kinds (issue 12, "Buttons: one touch, one press"):
  spike       a spike of 20-500 us (EMI on a long cable): no press
  tap         a tap of 8-25 ms whose release bounces past 20 ms: one press
  glitch      a press of a few ms, then an edge 60-90 ms after it lasting a few ms: one press
  bouncy      a press whose first edge bounces for 0.2 ms, held 30-500 ms: one press, at the
              first edge
  held        a button held while the box (or the timer head) restarts, then released: no press
  double      two taps 0.2-0.6 s apart: two presses
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

KINDS = ("spike", "tap", "glitch", "bouncy", "held", "double")
LATE_SECONDS = 0.0003  # how late a Pi delivers an edge's callback
T0 = 1.0  # the first edge of each sequence, seconds (the pin was quiet before)


@dataclass
class Sequence:
    """The edges of one sequence: ``(t, closed)`` in time order, the pin ``held`` (closed)
    before the filter starts, and the presses a player made (their first edges)."""

    kind: str
    edges: list[tuple[float, bool]] = field(default_factory=list)
    presses: list[float] = field(default_factory=list)
    held: bool = False


def _bounce(edges: list, t: float, closed_after: bool, widths: list[float]) -> float:
    """Chatter at ``t``: the contact flips for each width in ``widths`` (seconds), ending at
    ``closed_after``; returns the time of the last edge."""
    level = closed_after
    for w in widths:
        level = not level
        edges.append((t, level))
        t += w
    edges.append((t, closed_after))
    return t


def tap(
    start: float, hold: float, press_bounce: list[float], release_bounce: list[float]
) -> tuple[list[tuple[float, bool]], float]:
    """A touch: the first edge at ``start``, chatter ``press_bounce`` (widths, s), closed until
    ``start + hold``, then the release with chatter ``release_bounce``. Returns the edges and the
    time of the last one."""
    edges: list[tuple[float, bool]] = [(start, True)]
    t = start
    for i, w in enumerate(press_bounce):  # open, closed, open... ending closed
        t += w
        edges.append((t, i % 2 == 1))
    if len(press_bounce) % 2 == 1:
        t += 0.00002
        edges.append((t, True))
    t = max(t + 0.0001, start + hold)
    edges.append((t, False))
    for i, w in enumerate(release_bounce):  # closed, open, closed... ending open
        t += w
        edges.append((t, i % 2 == 0))
    if len(release_bounce) % 2 == 1:
        t += 0.00002
        edges.append((t, False))
    return edges, t


def _widths(rng: random.Random, n_max: int, lo: float, hi: float) -> list[float]:
    return [rng.uniform(lo, hi) for _ in range(rng.randint(0, n_max))]


def _release_past(rng: random.Random, start: float, hold: float, past: float) -> list[float]:
    """Release chatter that lasts until at least ``past`` seconds after ``start``."""
    widths = []
    t = start + hold
    while t < start + past or not widths or len(widths) % 2:
        w = rng.uniform(0.00002, 0.002)
        widths.append(w)
        t += w
    return widths


def generate(kind: str, rng: random.Random) -> Sequence:
    """One sequence of ``kind`` (see the module docstring) drawn with ``rng``."""
    seq = Sequence(kind)
    if kind == "spike":
        seq.edges = [(T0, True), (T0 + rng.uniform(20e-6, 500e-6), False)]
    elif kind == "tap":
        hold = rng.uniform(0.008, 0.025)
        bounce = _widths(rng, 4, 0.00002, 0.0002)
        seq.edges, _ = tap(T0, hold, bounce, _release_past(rng, T0, hold, rng.uniform(0.021, 0.03)))
        seq.presses = [T0]
    elif kind == "glitch":
        hold = rng.uniform(0.003, 0.008)
        edges, _ = tap(T0, hold, _widths(rng, 3, 0.00002, 0.0002), _widths(rng, 4, 0.00002, 0.001))
        g = T0 + rng.uniform(0.060, 0.090)
        spike, _ = tap(g, rng.uniform(0.002, 0.006), _widths(rng, 2, 0.00002, 0.0002), [])
        seq.edges, seq.presses = edges + spike, [T0]
    elif kind == "bouncy":
        widths, t = [], 0.0
        while t < 0.0002:  # the first edge bounces for 0.2 ms
            w = rng.uniform(0.00001, 0.00005)
            widths.append(w)
            t += w
        hold = rng.uniform(0.03, 0.5)
        seq.edges, _ = tap(T0, hold, widths, _widths(rng, 6, 0.00002, 0.002))
        seq.presses = [T0]
    elif kind == "held":
        seq.held = True
        edges: list[tuple[float, bool]] = []
        _bounce(edges, T0, False, _widths(rng, 6, 0.00002, 0.002))
        seq.edges = edges
    elif kind == "double":
        first, end = tap(T0, rng.uniform(0.008, 0.12), _widths(rng, 4, 0.00002, 0.0002),
                         _widths(rng, 4, 0.00002, 0.002))  # fmt: skip
        t1 = T0 + rng.uniform(0.2, 0.6)
        second, _ = tap(t1, rng.uniform(0.008, 0.12), _widths(rng, 4, 0.00002, 0.0002),
                        _widths(rng, 4, 0.00002, 0.002))  # fmt: skip
        seq.edges, seq.presses = first + second, [T0, t1]
    else:
        raise ValueError(f"kind {kind!r}: accepted {', '.join(KINDS)}")
    return seq


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def run(seq: Sequence, late: float = 0.0, bounce_seconds: float = 0.02) -> list[float]:
    """The presses the table's buttons report for ``seq``: gpiozero's mock pin driven through
    its edges in time order, each edge's callback delivered ``late`` seconds after it (with the
    edge's own level, as lgpio reports it), the filter's checks run at their times. Returns the
    press times handed to the table (seconds)."""
    from gpiozero.pins.pi import PiPin

    from companion.devices.gpio import GpioButtons
    from companion.devices.mockpins import ClockedMockFactory, ClockedMockPWMPin
    from companion.devices.timers import ManualTimer

    clock, timer = _Clock(), ManualTimer()

    class LatePin(ClockedMockPWMPin):
        def _set_pull(self, value):
            if seq.held:  # the closed contact holds the line low against the pull-up
                self._pull = value
                return
            super()._set_pull(value)

        def _call_when_changed(self, ticks=None, state=None):
            ticks, state = self._last_change, self._state

            def deliver(now: float) -> None:
                clock.t = now
                PiPin._call_when_changed(self, ticks, state)

            timer.call_at(ticks + late, deliver)

    factory = ClockedMockFactory(clock=clock, timer=timer, auto_run=False, pin_class=LatePin)
    pin = factory.pin(17)
    if seq.held:
        pin.drive_low()
    buttons = GpioButtons({"blue": 17}, bounce_seconds, pin_factory=factory, clock=clock)
    presses: list[float] = []
    buttons.on_press(lambda role, t: presses.append(t))

    def edge(closed: bool):
        def change(now: float) -> None:
            clock.t = now
            pin.drive_low() if closed else pin.drive_high()

        return change

    for t, closed in seq.edges:
        timer.call_at(t, edge(closed))
    while (due := timer.next_due()) is not None:
        clock.t = max(clock.t, due)
        timer.run_due(due)
    buttons.close()
    return presses


def score(seq: Sequence, got: list[float]) -> tuple[int, int, int]:
    """``(spurious, lost, misstamped)`` of ``got`` against the touches of ``seq``."""
    want = list(seq.presses)
    spurious = max(0, len(got) - len(want))
    lost = max(0, len(want) - len(got))
    misstamped = sum(1 for a, b in zip(got, want, strict=False) if abs(a - b) > 1e-9)
    return spurious, lost, misstamped


def main(n: int = 1000, seed: int = 12) -> dict:
    """Print, for each kind and each delivery, the spurious, lost and misstamped presses over
    ``n`` sequences. Goal: all 0."""
    rng = random.Random(seed)
    totals = {"spurious": 0, "lost": 0, "misstamped": 0}
    print(
        f"{n} generated sequences of each kind; callbacks on time and {LATE_SECONDS * 1e3:g} ms late"
    )
    print(
        f"{'kind':8} {'delivery':9} {'touches':>7} {'presses':>7} {'spurious':>8} {'lost':>5} {'misstamped':>10}"
    )
    for kind in KINDS:
        seqs = [generate(kind, rng) for _ in range(n)]
        for label, late in (("on time", 0.0), ("0.3 ms", LATE_SECONDS)):
            s = lo = m = touches = got_n = 0
            for seq in seqs:
                got = run(seq, late)
                a, b, c = score(seq, got)
                s, lo, m = s + a, lo + b, m + c
                touches += len(seq.presses)
                got_n += len(got)
            totals["spurious"] += s
            totals["lost"] += lo
            totals["misstamped"] += m
            print(f"{kind:8} {label:9} {touches:7d} {got_n:7d} {s:8d} {lo:5d} {m:10d}")
    print(
        f"total: {totals['spurious']} spurious, {totals['lost']} lost, "
        f"{totals['misstamped']} misstamped presses (goal 0, 0, 0)"
    )
    return totals


if __name__ == "__main__":
    main()
