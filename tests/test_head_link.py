"""The timer head and the host over a faulty wire (firmware/PROTOCOL.md): exactly-once in-order
delivery, press times mapped to the host's clock, resets, restarts and the link-lost display.

Everything runs on :class:`VirtualTable`'s injected clock: no thread, no sleep."""

import random

import pytest

from companion.devices.head.link import HostLink
from companion.devices.head.timesync import HeadClock
from companion.devices.head.virtual import Faults, VirtualTable
from companion.devices.head.wire import core, proto

SAMPLE = 0.005  # [head] sample_ms of the standard board, in seconds
ROLES = ("blue", "red", "challenge")


def connected_table(**kw) -> VirtualTable:
    table = VirtualTable(**kw)
    table.run(0.5, 0.002)
    assert table.host.connected and table.head.head.link.up
    return table


# --- debouncing on the head -----------------------------------------------------------------------


def test_debouncer_needs_consecutive_equal_samples_and_stamps_the_first():
    deb = core.Debouncer(4)
    # a bounce: new level, old level, then the new level for good
    assert deb.sample(True, 0) is None
    assert deb.sample(False, 5) is None  # back: the run starts again
    assert [deb.sample(True, t) for t in (10, 15, 20)] == [None, None, None]
    assert deb.sample(True, 25) == 10  # fourth equal sample: accepted, stamped at the first
    assert deb.level is True


def test_a_glitch_shorter_than_the_debounce_is_no_event():
    table = connected_table()
    table.head.set_button("blue", True)
    table.run(3 * SAMPLE, 0.001)  # three samples at most: one short of four
    table.head.set_button("blue", False)
    assert table.run(0.3, 0.001) == []


def test_a_bouncing_press_is_one_event_timed_at_the_contact():
    table = connected_table()
    t_press = table.host_time()
    for level in (True, False, True, False, True):  # 1 ms of chatter
        table.head.set_button("red", level)
        table.step(0.0002)
    changes = table.run(0.2, 0.001)
    assert [(c.role, c.pressed) for c in changes] == [("red", True)]
    # stamped at the first sample that saw the contact closed for good: within a sampling period
    # plus the 1 ms of chatter and the host's step of 2 ms in the offset estimate
    assert t_press - 0.001 <= changes[0].t <= t_press + SAMPLE + 0.001 + 0.003


# --- the hello --------------------------------------------------------------------------------------


def test_hello_brings_both_ends_up_and_gives_the_clock_offset():
    table = VirtualTable(host_epoch=500.0, head_clock_ms=0)
    assert not table.host.connected
    table.run(0.2, 0.001)
    assert table.host.connected and table.head.head.link.up
    # the head's clock started at 0 when the host's read 500 s: offset 500 s plus the wire
    assert table.host.head_clock.offset == pytest.approx(500.0, abs=0.003)


def test_a_head_of_another_protocol_version_is_reported_not_used():
    host = HostLink(port=None, clock=lambda: 1.0, session=7)
    sent = []
    host.port = type("P", (), {"write": staticmethod(sent.append)})()
    hello = proto.pack(proto.T_HELLO, proto.VERSION + 1, 99, 7, 0, 1000)
    host.step(proto.encode_frame(0, 0, proto.T_HELLO, hello))
    assert not host.connected
    assert "version 2" in host.version_error and "companion head flash" in host.version_error


def test_two_ends_of_different_versions_refuse_each_other_without_a_storm():
    wire_ab, wire_ba = [], []
    a = proto.Link(wire_ab.append, 1, 0)
    b = proto.Link(wire_ba.append, 2, 0)
    b.version = proto.VERSION + 1
    for ms in range(1000):
        to_a, to_b = b"".join(wire_ba), b"".join(wire_ab)
        wire_ab.clear()
        wire_ba.clear()
        a.feed(to_a, ms)
        b.feed(to_b, ms)
        a.poll(ms)
        b.poll(ms)
    assert not a.up and not b.up
    assert a.peer_version == proto.VERSION + 1 and b.peer_version == proto.VERSION
    # each repeats its hello every HELLO_MS (200 ms) and nothing more: 5 in a second
    assert a.frames_sent == b.frames_sent == 1000 // proto.HELLO_MS


# --- the measured claim: 10,000 events through a bad wire -----------------------------------------


def test_ten_thousand_events_through_a_wire_that_corrupts_drops_and_duplicates():
    faults = Faults(corrupt=0.01, drop=0.01, duplicate=0.01)
    # the head's clock starts a minute before its 32-bit wrap, its tick counter 20 s before the
    # 2**30 wrap of MicroPython's ticks_ms: both wrap during the run
    table = connected_table(
        to_host=faults,
        to_head=faults,
        seed=9,
        head_clock_ms=2**32 - 60_000,
        head_ticks0=2**30 - 20_000,
    )
    rng = random.Random(3)
    dt = 0.002
    n_events = 10_000
    truth = {role: [] for role in ROLES}  # per button: (pressed, host time of the contact)
    level = dict.fromkeys(ROLES, False)
    due = {role: table.t + rng.uniform(0.03, 0.08) for role in ROLES}
    commands = []
    made = 0
    while made < n_events:
        table.step(dt)
        for role in ROLES:
            if table.t >= due[role] and made < n_events:
                level[role] = not level[role]
                table.head.set_button(role, level[role])
                truth[role].append((level[role], table.host_time()))
                due[role] = table.t + rng.uniform(0.03, 0.08)
                made += 1
        if rng.random() < 0.02:  # the game drives the outputs meanwhile
            kind = rng.randrange(3)
            if kind == 0:
                pulse = rng.randrange(500, 2501)
                table.host.servo(pulse)
                commands.append((proto.T_SERVO, (pulse,)))
            elif kind == 1:
                index, on = rng.randrange(2), rng.randrange(2)
                table.host.led(index, bool(on))
                commands.append((proto.T_LED, (index, on)))
            else:
                table.host.buzz(1, 20, 10)
                commands.append((proto.T_BUZZER, (1, 20, 10)))
    table.run(3.0, dt)

    got = table.changes
    # exactly once, in order: the head's event counter runs 0, 1, 2... with no gap or repeat
    assert len(got) == n_events
    assert [c.event for c in got] == [i & 0xFFFF for i in range(n_events)]
    assert [c.t for c in got] == sorted(c.t for c in got)
    for role in ROLES:
        mine = [c for c in got if c.role == role]
        assert [c.pressed for c in mine] == [p for p, _ in truth[role]]
        for change, (_, t_contact) in zip(mine, truth[role], strict=True):
            # with its time: the first sample after the contact (5 ms grid, on 2 ms steps),
            # plus the offset estimate's wire latency and step (2.5 ms), whatever the frame's delay
            assert t_contact - 0.001 <= change.t <= t_contact + SAMPLE + 3 * dt + 0.0005
    assert max(c.received - c.t for c in got) > 0.1  # some came late (retransmitted)...
    # every servo, LED and buzzer command applied once, in order
    assert table.head.commands == commands
    # the faults really happened, both ways
    for wire in (table.to_host, table.to_head):
        assert min(wire.counts[k] for k in ("corrupted", "dropped", "duplicated")) > 50


def test_stalls_of_the_line_delay_delivery_not_the_press_time():
    stall = Faults(delay=0.05, delay_seconds=(0.2, 0.6))
    table = connected_table(to_host=stall, seed=4)
    contacts = []
    for i in range(40):
        role = ROLES[i % 2]
        table.head.set_button(role, True)
        contacts.append(table.host_time())
        table.run(0.05, 0.001)
        table.head.set_button(role, False)
        table.run(0.05, 0.001)
    table.run(3.0, 0.001)
    presses = [c for c in table.changes if c.pressed]
    assert len(presses) == 40
    assert max(c.received - c.t for c in presses) > 0.2  # delivered late...
    for change, t in zip(presses, contacts, strict=True):
        assert t - 0.001 <= change.t <= t + SAMPLE + 0.003  # ...counted when made


# --- resets, restarts and silence -----------------------------------------------------------------


def test_a_reset_head_gets_the_game_state_again():
    table = connected_table()
    table.host.servo(1700)
    table.host.led(1, True)
    table.run(0.2, 0.001)
    table.reset_head()
    assert table.head.hw.servo_us == 0 and table.head.hw.leds == [False, False]
    table.run(0.5, 0.001)
    assert table.host.head_starts == 2
    assert table.head.hw.servo_us == 1700
    assert table.head.hw.leds == [False, True]
    # and its presses still arrive, on the new head clock, mapped right
    t = table.host_time()
    table.head.set_button("blue", True)
    change = table.run(0.1, 0.001)[0]
    assert change.role == "blue" and t <= change.t <= t + SAMPLE + 0.003
    assert change.event == 0  # the new head counts from 0


def test_presses_while_the_host_is_down_reach_the_restarted_host_with_their_times():
    table = connected_table()
    table.host.led(0, True)
    table.run(0.2, 0.001)
    dead = table.host
    table.stop_host()
    contacts = []
    for role in ("red", "blue", "red"):
        table.head.set_button(role, True)
        contacts.append(table.host_time())
        table.run(0.1, 0.001)
        table.head.set_button(role, False)
        table.run(0.4, 0.001)
    table.run(2.0, 0.001)
    assert table.head.head.link.lost(table.head.head.clock_ms)  # the head noticed
    table.restart_host()
    table.run(1.0, 0.001)
    assert table.host is not dead and table.host.connected
    presses = [c for c in table.changes if c.pressed]
    assert [c.role for c in presses] == ["red", "blue", "red"]
    for change, t in zip(presses, contacts, strict=True):
        assert t - 0.001 <= change.t <= t + SAMPLE + 0.003
    assert table.head.hw.leds == [True, False]  # restored as commanded before the host died


def test_the_head_blinks_while_the_pi_is_silent_and_restores_its_leds():
    table = connected_table()
    table.host.led(1, True)
    table.run(0.2, 0.001)
    table.to_head.faults.drop = 1.0  # the Pi's frames stop arriving
    table.run(proto.LINK_TIMEOUT_MS / 1000 - 0.3, 0.001)
    assert table.head.hw.leds == [False, True]  # not yet: within the timeout
    table.run(1.5, 0.001)
    blinks = [c for c in table.head.hw.changes if c[1] == "led0"]
    assert len(blinks) >= 4  # both LEDs on and off together every 250 ms
    table.head.set_button("challenge", True)  # pressed meanwhile: kept with its time
    t = table.host_time()
    table.run(0.1, 0.001)
    table.to_head.faults.drop = 0.0
    table.run(0.5, 0.001)
    assert table.head.hw.leds == [False, True]
    assert [c.role for c in table.changes] == ["challenge"]
    assert t <= table.changes[0].t <= t + SAMPLE + 0.003


def test_buzzer_pattern_is_timed_on_the_head():
    table = connected_table()
    table.host.buzz(2, 150, 100)
    table.run(1.0, 0.001)
    buzz = [(ms, on) for ms, what, on in table.head.hw.changes if what == "buzzer"]
    assert [on for _, on in buzz] == [True, False, True, False]
    starts = [ms for ms, on in buzz]
    assert [starts[1] - starts[0], starts[2] - starts[1], starts[3] - starts[2]] == [150, 100, 150]


def test_the_head_clamps_the_servo_to_its_configured_range():
    table = connected_table()
    table.host.servo(100)
    table.run(0.1, 0.001)
    assert table.head.hw.servo_us == 500
    table.host.servo(0)  # 0 releases the servo
    table.run(0.1, 0.001)
    assert table.head.hw.servo_us == 0


def test_repl_request_leaves_the_firmware_loop():
    table = connected_table()
    table.host.request_repl()
    table.run(0.01, 0.001)
    assert table.head.head.repl_requested


# --- the clock mapping ----------------------------------------------------------------------------


def test_head_clock_unwraps_across_2_to_the_32():
    clock = HeadClock()
    clock.observe(0xFFFFFF00, 100.0)  # head at 2**32 - 256 ms when the host reads 100 s
    clock.observe(0x00000100, 100.512)  # 512 ms later, after the wrap
    assert clock.unwrap(0x00000100) == 2**32 + 256
    # a press stamped just before the wrap still maps before the later heartbeat
    assert clock.to_host(0xFFFFFFF0) == pytest.approx(100.0 + 0.240)


def test_head_clock_takes_the_fastest_frame_as_the_offset():
    clock = HeadClock()
    for sent_ms, delay in ((1000, 0.004), (1250, 0.001), (1500, 0.030)):
        clock.observe(sent_ms, 50.0 + sent_ms / 1000 + delay)
    assert clock.offset == pytest.approx(50.001)
