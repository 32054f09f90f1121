"""Buttons, one touch one press (issue 12): contact chatter and cable glitches drawn by hypothesis,
through gpiozero's mock pins, the table's GpioButtons and its filter, callbacks on time and 0.3 ms
late. The contact model and the figures over 1,000 sequences of each kind: bench/bench_chatter.py.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bench_chatter import LATE_SECONDS, T0, Sequence, run, tap
from companion.devices.debounce import PressFilter

DELIVERY = st.sampled_from([0.0, LATE_SECONDS])
WIDTHS = st.lists(st.floats(0.00002, 0.0002), max_size=4)  # press chatter, seconds
RELEASE = st.lists(st.floats(0.00002, 0.002), max_size=6)  # release chatter, seconds


@settings(max_examples=60, deadline=None)
@given(width=st.floats(20e-6, 500e-6), late=DELIVERY)
def test_a_spike_of_20_to_500_us_is_no_press(width, late):
    seq = Sequence("spike", [(T0, True), (T0 + width, False)])
    assert run(seq, late) == []


@st.composite
def release_past_20ms(draw, hold):
    """Release chatter lasting until 21-30 ms after the first edge (an even number of flips)."""
    end = draw(st.floats(0.021, 0.03))
    widths = draw(st.lists(st.floats(0.00002, 0.002), min_size=2, max_size=40))
    out, t = [], T0 + hold
    for w in widths:
        out.append(w)
        t += w
        if t >= T0 + end and len(out) % 2 == 0:
            break
    return out


@settings(max_examples=60, deadline=None)
@given(data=st.data(), hold=st.floats(0.008, 0.025), bounce=WIDTHS, late=DELIVERY)
def test_a_tap_whose_release_bounces_past_20_ms_is_one_press(data, hold, bounce, late):
    edges, _ = tap(T0, hold, bounce, data.draw(release_past_20ms(hold)))
    assert run(Sequence("tap", edges, [T0]), late) == [T0]


@settings(max_examples=60, deadline=None)
@given(
    hold=st.floats(0.003, 0.008),
    gap=st.floats(0.060, 0.090),
    glitch=st.floats(0.002, 0.006),
    bounce=WIDTHS,
    release=RELEASE,
    late=DELIVERY,
)
def test_an_edge_60_to_90_ms_after_a_short_press_is_a_glitch(
    hold, gap, glitch, bounce, release, late
):
    first, _ = tap(T0, hold, bounce, release)
    second, _ = tap(T0 + gap, glitch, [], [])
    assert run(Sequence("glitch", first + second, [T0]), late) == [T0]


@settings(max_examples=60, deadline=None)
@given(flips=st.integers(2, 12), hold=st.floats(0.03, 0.5), release=RELEASE, late=DELIVERY)
def test_a_press_whose_first_edge_bounces_for_0_2_ms_counts_at_that_edge(
    flips, hold, release, late
):
    edges, _ = tap(T0, hold, [0.0002 / flips] * flips, release)
    assert run(Sequence("bouncy", edges, [T0]), late) == [T0]


@settings(max_examples=40, deadline=None)
@given(release=RELEASE, late=DELIVERY)
def test_a_button_held_while_the_box_restarts_is_no_press(release, late):
    edges, t = [(T0, False)], T0
    for i, w in enumerate(release):
        t += w
        edges.append((t, i % 2 == 0))
    if len(release) % 2:
        edges.append((t + 0.00002, False))
    assert run(Sequence("held", edges, [], held=True), late) == []


@settings(max_examples=40, deadline=None)
@given(gap=st.floats(0.2, 0.6), holds=st.tuples(st.floats(0.008, 0.12), st.floats(0.008, 0.12)),
       bounce=WIDTHS, release=RELEASE, late=DELIVERY)  # fmt: skip
def test_two_taps_a_fifth_of_a_second_apart_are_two_presses(gap, holds, bounce, release, late):
    first, _ = tap(T0, holds[0], bounce, release)
    second, _ = tap(T0 + gap, holds[1], bounce, release)
    assert run(Sequence("double", first + second, [T0, T0 + gap]), late) == [T0, T0 + gap]


def test_the_filter_waits_for_an_edge_still_on_its_way():
    """A check that finds the pin at another level than the last edge delivered does nothing:
    the late edge brings its own check."""
    f = PressFilter()
    f.edge(True, 1.0)
    assert f.check(1.002, level_now=False) is None  # the opening edge has not arrived yet
    f.edge(False, 1.0003)
    assert f.check(1.0023, level_now=False) is None  # a 0.3 ms spike: dropped
    f.edge(True, 1.01)
    assert f.check(1.012, level_now=True) == pytest.approx(1.01)
