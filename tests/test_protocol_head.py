"""The timer head's wire protocol (firmware/PROTOCOL.md, firmware/headproto.py): CRC, framing,
messages, and the same code under CPython and MicroPython."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.devices.head.wire import FIRMWARE_DIR, FIRMWARE_FILES, proto

# --- CRC ----------------------------------------------------------------------------------------


def test_crc_is_ccitt_false_by_its_catalogue_check_value():
    # CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout): check 0x29B1
    assert proto.crc16(b"123456789") == 0x29B1
    assert proto.crc16(b"") == 0xFFFF  # the initial value, untouched


def test_crc_of_one_byte_worked_by_hand():
    # index (0xFFFF >> 8) ^ 0x00 = 0xFF; the CCITT table's entry for 0xFF is 0x1EF0 (0xFF00
    # shifted eight times through poly 0x1021); (0xFFFF << 8) & 0xFFFF = 0xFF00; 0xFF00 ^ 0x1EF0
    assert proto.crc16(b"\x00") == 0xE1F0


# --- frames -------------------------------------------------------------------------------------


def test_frame_layout_matches_the_protocol_document():
    payload = proto.pack(proto.T_LED, 1, 1)
    frame = proto.encode_frame(5, 9, proto.T_LED, payload)
    # SYNC, LEN, SEQ, ACK, TYPE, PAYLOAD, CRC high, CRC low
    assert frame[:7] == bytes([0x7E, 2, 5, 9, 0x21, 1, 1])
    crc = proto.crc16(frame[1:7])
    assert frame[7:] == bytes([crc >> 8, crc & 0xFF])
    assert len(frame) == len(payload) + proto.OVERHEAD


def test_button_payload_fields_are_big_endian_in_document_order():
    payload = proto.pack(proto.T_BUTTON, 0x0102, 2, 1, 0xA0B0C0D0)
    assert payload == bytes([0x01, 0x02, 0x02, 0x01, 0xA0, 0xB0, 0xC0, 0xD0])
    assert proto.unpack(proto.T_BUTTON, payload) == (0x0102, 2, 1, 0xA0B0C0D0)


def test_message_sizes_match_the_document():
    # PROTOCOL.md, "Messages": the size column
    sizes = {"HELLO": 14, "ACK": 0, "HEARTBEAT": 9, "REPL": 4, "BUTTON": 8, "SERVO": 2}
    sizes.update({"LED": 2, "BUZZER": 5})
    assert {proto.NAMES[t]: n for t, n in proto.SIZES.items()} == sizes


def test_every_documented_type_code_is_the_codes_value():
    text = (FIRMWARE_DIR / "PROTOCOL.md").read_text(encoding="utf-8")
    for mtype, name in proto.NAMES.items():
        assert f"| 0x{mtype:02X} | {name}" in text, name


def test_every_constant_the_document_quotes_has_that_value_in_the_code():
    text = (FIRMWARE_DIR / "PROTOCOL.md").read_text(encoding="utf-8")
    quoted = re.findall(r"`([A-Z_]+)` (?:\(|= )(\d+)", text)
    checked = {name: int(value) for name, value in quoted if hasattr(proto, name)}
    assert len(checked) >= 10
    assert {name: getattr(proto, name) for name in checked} == checked


def test_payload_longer_than_the_maximum_is_refused():
    with pytest.raises(ValueError, match="at most 32"):
        proto.encode_frame(0, 0, proto.T_SERVO, bytes(33))


def test_short_payload_unpacks_to_none():
    assert proto.unpack(proto.T_BUTTON, b"\x00\x01") is None
    assert proto.unpack(0x55, b"xy") == (b"xy",)  # unknown type: raw bytes


messages = st.lists(
    st.tuples(
        st.integers(0, 255),
        st.integers(0, 255),
        st.integers(0, 255),
        st.binary(max_size=proto.MAX_PAYLOAD),
    ),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(messages, st.data())
def test_frames_survive_any_split_and_garbage_between_them(frames, data):
    stream = b""
    for seq, ack, mtype, payload in frames:
        garbage = data.draw(st.binary(max_size=5).filter(lambda b: 0x7E not in b))
        stream += garbage + proto.encode_frame(seq, ack, mtype, payload)
    parser = proto.FrameParser()
    got = []
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    start = 0
    for cut in [*cuts, len(stream)]:
        got += parser.feed(stream[start:cut])
        start = cut
    assert got == frames


def test_a_corrupted_length_byte_does_not_swallow_the_next_frames():
    good = [
        proto.encode_frame(i, 0, proto.T_SERVO, proto.pack(proto.T_SERVO, 1000 + i))
        for i in range(3)
    ]
    bad = bytearray(good[0])
    bad[1] = 30  # LEN claims 30 bytes: the candidate spans the next frames, its CRC fails
    parser = proto.FrameParser()
    assert parser.feed(bytes(bad) + good[1] + good[2]) == []  # waiting for 30 bytes
    frames = parser.skip()  # the receiver gives up on it after FRAME_TIMEOUT_MS of silence
    assert [f[0] for f in frames] == [1, 2]
    assert parser.bad >= 1
    assert parser.buf == b""


def test_a_long_candidate_followed_by_more_frames_resynchronises_without_waiting():
    good = [
        proto.encode_frame(i, 0, proto.T_SERVO, proto.pack(proto.T_SERVO, 1000 + i))
        for i in range(6)
    ]
    bad = bytearray(good[0])
    bad[1] = 30
    frames = proto.FrameParser().feed(bytes(bad) + b"".join(good[1:]))
    assert [f[0] for f in frames] == [1, 2, 3, 4, 5]


def test_a_flipped_bit_anywhere_is_detected():
    frame = proto.encode_frame(1, 2, proto.T_BUTTON, proto.pack(proto.T_BUTTON, 7, 0, 1, 99))
    for i in range(1, len(frame)):
        for bit in range(8):
            damaged = bytearray(frame)
            damaged[i] ^= 1 << bit
            assert proto.FrameParser().feed(bytes(damaged)) == [], (i, bit)


def test_mpremote_interrupt_between_frames_is_counted_not_inside():
    parser = proto.FrameParser()
    frame = proto.encode_frame(0, 0, proto.T_BUZZER, b"\x0d\x03\x00\x0d\x03")  # inside: data
    parser.feed(frame)
    assert parser.interrupts == 0
    parser.feed(b"\r\x03")
    assert parser.interrupts == 1


def test_unwrapping_diff_of_32_bit_counters():
    assert proto.diff32(5, 0xFFFFFFFB) == 10
    assert proto.diff32(0xFFFFFFFB, 5) == -10
    assert proto.diff32(1000, 400) == 600


# --- one implementation, two interpreters --------------------------------------------------------

CROSSCHECK = r"""
import sys
sys.path.insert(0, FIRMWARE)
import headproto as hp
import headcore

state = [12345]
def rnd(n):
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return state[0] % n

out = []
out.append(hex(hp.crc16(b"123456789")))
for t, fields in ((hp.T_BUTTON, (1, 2, 1, 4000000000)), (hp.T_SERVO, (1500,)),
                  (hp.T_HELLO, (1, 0xDEADBEEF, 7, 3, 99)), (hp.T_BUZZER, (3, 150, 100))):
    out.append(hp.encode_frame(rnd(256), rnd(256), t, hp.pack(t, *fields)).hex())

class Cfg:
    SAMPLE_MS = 5
    DEBOUNCE_SAMPLES = 4
    SERVO_MIN_US = 500
    SERVO_MAX_US = 2500

to_host = []
to_head = []
servo = []
class Hw:
    levels = [False, False, False]
    def read_buttons(self): return self.levels
    def set_led(self, i, on): pass
    def set_buzzer(self, on): pass
    def set_servo_us(self, us): servo.append(us)
    def write(self, frame):
        if rnd(50) == 0: return
        if rnd(50) == 0:
            frame = bytearray(frame); frame[rnd(len(frame))] ^= 1 << rnd(8); frame = bytes(frame)
        to_host.append(frame)

def host_write(frame):
    if rnd(50) != 0:
        to_head.append(frame)

hw = Hw()
head = headcore.Head(hw, Cfg(), 0x1234, 1000, headcore.ticks_diff_plain, clock_ms=0xFFFFF000)
host = hp.Link(host_write, 0x5678, 0)
events = []
for ms in range(1, 20000):
    if ms % 97 == 0 and ms < 19000:
        hw.levels[rnd(3)] ^= True
    if ms % 503 == 0:
        host.send(hp.T_SERVO, 500 + rnd(2000))
    data = b"".join(to_head); to_head.clear()
    head.step(1000 + ms, data)
    data = b"".join(to_host); to_host.clear()
    for m in host.feed(data, ms):
        if m[0] == hp.T_BUTTON:
            events.append(m[1])
    host.poll(ms)
out.append(str(len(events)))
out.append(str(events[:5]))
out.append(str(events[-3:]))
out.append(str([e[0] for e in events] == list(range(len(events)))))
out.append(str(servo))
out.append("retransmitted %d %d" % (head.link.retransmitted, host.retransmitted))
for line in out:
    print(line)
"""


def _run(interpreter: str, tmp_path: Path) -> list[str]:
    script = tmp_path / "crosscheck.py"
    script.write_text(f"FIRMWARE = {str(FIRMWARE_DIR)!r}\n" + CROSSCHECK, encoding="utf-8")
    result = subprocess.run(
        [interpreter, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def _micropython() -> str | None:
    here = Path(sys.executable).parent / "micropython"
    return str(here) if here.exists() else shutil.which("micropython")


def test_the_protocol_code_runs_the_same_on_cpython(tmp_path):
    lines = _run(sys.executable, tmp_path)
    assert lines[0] == "0x29b1"
    assert lines[8] == "True"  # every event delivered, once, in order, through the faults
    assert int(lines[5]) == 18999 // 97  # a toggle every 97 ms until 19 s, each one event


@pytest.mark.skipif(_micropython() is None, reason="MicroPython's unix port is not installed")
def test_the_protocol_code_runs_the_same_on_micropython(tmp_path):
    assert _run(_micropython(), tmp_path) == _run(sys.executable, tmp_path)


MACHINE_STUB = """
class Pin:
    IN, OUT, PULL_UP = 0, 1, 2
    def __init__(self, n, mode=0, pull=None, value=None):
        self.v = 1 if value is None else value  # inputs read high: pulled up, not pressed
    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v

class PWM:
    def __init__(self, pin): pass
    def freq(self, f): pass
    def duty_u16(self, d): pass
    def duty_ns(self, d): pass

def reset():
    raise SystemExit(3)
"""


@pytest.mark.skipif(_micropython() is None, reason="MicroPython's unix port is not installed")
def test_the_firmware_main_runs_under_micropython_and_answers_a_hello(tmp_path):
    """main.py itself, with only ``machine`` stubbed: it answers the host's hello, then leaves
    for the REPL when asked (as ``companion head flash`` asks)."""
    for name in (*FIRMWARE_FILES, "board_config.py"):
        shutil.copy(FIRMWARE_DIR / name, tmp_path / name)
    (tmp_path / "machine.py").write_text(MACHINE_STUB, encoding="utf-8")
    host_session = 0x1111
    hello = proto.pack(proto.T_HELLO, proto.VERSION, host_session, 0, 0, 5)
    stdin = proto.encode_frame(0, 0, proto.T_HELLO, hello)
    stdin += proto.encode_frame(0, 0, proto.T_REPL, proto.REPL_MAGIC)
    result = subprocess.run(
        [_micropython(), "main.py"], input=stdin, capture_output=True, cwd=tmp_path, timeout=30
    )
    assert result.returncode == 0, result.stderr
    frames = proto.FrameParser().feed(result.stdout)
    assert frames and frames[0][2] == proto.T_HELLO
    version, session, peer, first_seq, _ = proto.unpack(proto.T_HELLO, frames[-1][3])
    assert (version, peer, first_seq) == (proto.VERSION, host_session, 0) and session != 0
