"""The timer head's wire protocol (firmware/PROTOCOL.md): framing, CRC, messages and the link.

This one file runs on the Pico under MicroPython and on the Pi under CPython (the host loads it
through ``companion.devices.head.wire``), so both ends share one implementation. It therefore
uses only what MicroPython has: ``struct`` with ``>BHI`` codes, plain classes, lists and
bytearrays (no dataclasses, enum, typing or ``from __future__``). Nothing here reads a clock or
touches a port: time (integer milliseconds) is passed in and bytes go out through ``write``.
"""

import struct

VERSION = 1
SYNC = 0x7E
MAX_PAYLOAD = 32
OVERHEAD = 7  # SYNC, LEN, SEQ, ACK, TYPE + 2 CRC bytes
WINDOW = 8  # sequenced frames in flight, unacknowledged
QUEUE = 256  # button events the head keeps waiting for the host (beyond: dropped, counted)
RTO_MS = 100  # retransmission timeout
RTO_MAX_MS = 1000  # the timeout doubles after each fruitless retransmission, up to this
HELLO_MS = 200  # hello repeat while the link is not up
HEARTBEAT_MS = 250
LINK_TIMEOUT_MS = 2000  # no valid frame from the peer for this long: the link is lost
FRAME_TIMEOUT_MS = 20  # an incomplete frame with no byte for this long is abandoned
OFFSET_WINDOW = 40  # heartbeats over which the host takes the smallest clock offset
REPL_MAGIC = b"REPL"

T_HELLO = 0x01
T_ACK = 0x02
T_HEARTBEAT = 0x03
T_REPL = 0x0F
FIRST_SEQUENCED = 0x10
T_BUTTON = 0x10
T_SERVO = 0x20
T_LED = 0x21
T_BUZZER = 0x22

BUTTONS = ("blue", "red", "challenge")  # BUTTON.button 0, 1, 2
LEDS = ("blue", "red")  # LED.led 0, 1

# payload layout of each type (struct format, big-endian); see PROTOCOL.md "Messages"
FORMATS = {
    T_HELLO: ">BIIBI",  # version, session, peer_session, first_seq, clock_ms
    T_ACK: ">",
    T_HEARTBEAT: ">IHHB",  # clock_ms, queued, dropped, flags
    T_REPL: ">4s",
    T_BUTTON: ">HBBI",  # event, button, pressed, clock_ms
    T_SERVO: ">H",  # pulse_us
    T_LED: ">BB",  # led, on
    T_BUZZER: ">BHH",  # count, on_ms, off_ms
}
NAMES = {
    T_HELLO: "HELLO",
    T_ACK: "ACK",
    T_HEARTBEAT: "HEARTBEAT",
    T_REPL: "REPL",
    T_BUTTON: "BUTTON",
    T_SERVO: "SERVO",
    T_LED: "LED",
    T_BUZZER: "BUZZER",
}
SIZES = {t: struct.calcsize(f) for t, f in FORMATS.items()}


def _crc_table():
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_TABLE = _crc_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no final XOR) of ``data``.

    ``crc16(b"123456789") == 0x29B1`` (the catalogue's check value).
    """
    table = _TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


def pack(mtype, *fields):
    """The payload bytes of a message of type ``mtype`` with ``fields`` (PROTOCOL.md order)."""
    return struct.pack(FORMATS[mtype], *fields)


def unpack(mtype, payload):
    """The fields of a known message type as a tuple, or None if ``payload`` is too short.

    Extra trailing bytes are ignored (room for fields added by a later version). An unknown
    type gives ``(payload,)``.
    """
    fmt = FORMATS.get(mtype)
    if fmt is None:
        return (bytes(payload),)
    if len(payload) < SIZES[mtype]:
        return None
    return struct.unpack_from(fmt, payload, 0)


def encode_frame(seq, ack, mtype, payload=b""):
    """One frame: SYNC, LEN, SEQ, ACK, TYPE, PAYLOAD, CRC (high byte first).

    Raises ValueError if the payload is longer than MAX_PAYLOAD.
    """
    n = len(payload)
    if n > MAX_PAYLOAD:
        raise ValueError(f"payload of {n} bytes; at most {MAX_PAYLOAD}")
    body = bytearray((n, seq & 0xFF, ack & 0xFF, mtype & 0xFF)) + payload
    crc = crc16(body)
    return bytes([SYNC]) + bytes(body) + bytes([crc >> 8, crc & 0xFF])


class FrameParser:
    """Cuts a byte stream into frames; rejects bad CRCs and resynchronises after them.

    ``feed(data)`` returns a list of ``(seq, ack, type, payload)`` for every valid frame completed
    by ``data``. ``bad`` counts rejected candidate frames; ``interrupts`` counts the two-byte
    sequence CR, Ctrl-C (mpremote's interrupt) seen outside frames.
    """

    def __init__(self):
        self.buf = bytearray()
        self.bad = 0
        self.interrupts = 0

    def skip(self):
        """Abandon the incomplete frame held (its sync byte) and hunt again in the bytes held;
        returns the frames found. Called when no byte has come for FRAME_TIMEOUT_MS."""
        if not self.buf:
            return []
        self.bad += 1
        self.buf = self.buf[1:]
        return self.feed(b"")

    def feed(self, data):
        buf = self.buf
        if data:
            buf.extend(data)
        frames = []
        n = len(buf)
        i = 0
        while i < n:
            if buf[i] != SYNC:
                if buf[i] == 0x03 and i > 0 and buf[i - 1] == 0x0D:
                    self.interrupts += 1
                i += 1
                continue
            if i + 2 > n:
                break
            length = buf[i + 1]
            if length > MAX_PAYLOAD:
                self.bad += 1
                i += 1
                continue
            end = i + length + OVERHEAD
            if end > n:
                break
            if crc16(buf[i + 1 : end - 2]) != (buf[end - 2] << 8) | buf[end - 1]:
                self.bad += 1
                i += 1
                continue
            frames.append((buf[i + 2], buf[i + 3], buf[i + 4], bytes(buf[i + 5 : end - 2])))
            i = end
        if i:
            self.buf = buf[i:]
        return frames


def plain_diff(a, b):
    """``a - b`` for clocks that do not wrap (the host's)."""
    return a - b


def diff32(a, b):
    """``a - b`` for 32-bit millisecond counters that wrap, as a signed number (|result| < 2**31)."""
    return ((a - b + 0x80000000) & 0xFFFFFFFF) - 0x80000000


class Link:
    """One end of the link: hello, sequencing, acknowledgement, retransmission, liveness.

    Args:
        write: called with the bytes of one whole frame at a time.
        session: this side's non-zero 32-bit session number (random at each start).
        now: the current time in milliseconds (any origin; compared with ``diff``).
        queue_size: sequenced messages that may wait beyond the window; :meth:`send` refuses more.
        diff: ``diff(a, b)`` gives ``a - b`` in milliseconds for this side's clock
            (:func:`plain_diff` on the host, :func:`diff32` on the head's 32-bit clock).

    :meth:`feed` takes received bytes and returns the delivered messages as ``(type, fields)``:
    every sequenced message exactly once and in order, every HEARTBEAT and REPL, and a HELLO
    each time the peer shows a new session (a reset of the head, a restart of the host).
    :meth:`poll` sends what is due (hello, queued messages, retransmissions, heartbeat, ack).
    """

    def __init__(self, write, session, now, queue_size=256, diff=plain_diff):
        self.write = write
        self.session = session & 0xFFFFFFFF
        self.diff = diff
        self.queue_size = queue_size
        self.parser = FrameParser()
        self.version = VERSION  # the protocol version this side speaks
        self.peer_session = 0
        self.peer_version = None
        self.up = False
        self.tx_next = 0  # SEQ of the next sequenced frame to send
        self.tx_base = 0  # SEQ of the oldest unacknowledged frame
        self.unacked = []  # [(seq, type, payload)], at most WINDOW
        self.queue = []  # [(type, payload)] waiting for room in the window
        self.rx_expected = 0
        self.ack_owed = False
        self.hello_owed = False
        self.resend_due = False
        self.last_rx = now
        self.last_byte = now
        self.last_hello = None
        self.last_heartbeat = now
        self.timer_start = now
        self.rto = RTO_MS
        self.was_lost = True
        self.dropped = 0  # set by the head: button events dropped by a full queue
        # counters, for tests and the status command
        self.frames_sent = 0
        self.retransmitted = 0
        self.duplicates = 0
        self.delivered = 0

    # --- state ------------------------------------------------------------------------------

    def lost(self, now):
        """True while the link is not up or the peer has been silent over LINK_TIMEOUT_MS."""
        return (not self.up) or self.diff(now, self.last_rx) > LINK_TIMEOUT_MS

    def pending(self):
        """Sequenced messages not yet acknowledged (in flight plus waiting)."""
        return len(self.unacked) + len(self.queue)

    @property
    def interrupts(self):
        """How many times mpremote's interrupt (CR, Ctrl-C) was seen outside frames."""
        return self.parser.interrupts

    @property
    def bad_frames(self):
        """Candidate frames rejected (bad CRC or length)."""
        return self.parser.bad

    # --- sending ----------------------------------------------------------------------------

    def send(self, mtype, *fields):
        """Queue a sequenced message; False (and nothing queued) if the queue is full."""
        if len(self.queue) >= self.queue_size:
            return False
        self.queue.append((mtype, pack(mtype, *fields)))
        return True

    def send_now(self, mtype, *fields):
        """Send an unsequenced message at once (not acknowledged, not repeated)."""
        self._frame(0, mtype, pack(mtype, *fields))

    def _frame(self, seq, mtype, payload):
        self.write(encode_frame(seq, self.rx_expected, mtype, payload))
        self.frames_sent += 1
        self.ack_owed = False

    def _hello(self, now):
        first = self.unacked[0][0] if self.unacked else self.tx_next
        payload = pack(
            T_HELLO, self.version, self.session, self.peer_session, first, now & 0xFFFFFFFF
        )
        self._frame(0, T_HELLO, payload)
        self.last_hello = now
        self.hello_owed = False

    def poll(self, now):
        """Send whatever is due at ``now`` (milliseconds)."""
        diff = self.diff
        if self.hello_owed or (
            not self.up and (self.last_hello is None or diff(now, self.last_hello) >= HELLO_MS)
        ):
            self._hello(now)
        if not self.up:
            return
        if self.resend_due or (self.unacked and diff(now, self.timer_start) >= self.rto):
            if not self.resend_due:
                self.rto = min(self.rto * 2, RTO_MAX_MS)
            for seq, mtype, payload in self.unacked:
                self._frame(seq, mtype, payload)
                self.retransmitted += 1
            self.timer_start = now
            self.resend_due = False
        while self.queue and len(self.unacked) < WINDOW:
            mtype, payload = self.queue.pop(0)
            seq = self.tx_next
            self.tx_next = (seq + 1) & 0xFF
            if not self.unacked:
                self.timer_start = now
            self.unacked.append((seq, mtype, payload))
            self._frame(seq, mtype, payload)
        if diff(now, self.last_heartbeat) >= HEARTBEAT_MS:
            self.last_heartbeat = now
            flags = 1 if self.lost(now) else 0
            queued = min(self.pending(), 0xFFFF)
            self.send_now(T_HEARTBEAT, now & 0xFFFFFFFF, queued, self.dropped & 0xFFFF, flags)
        if self.ack_owed:
            self._frame(0, T_ACK, b"")

    # --- receiving --------------------------------------------------------------------------

    def _on_ack(self, ack, now):
        in_flight = (self.tx_next - self.tx_base) & 0xFF
        n = (ack - self.tx_base) & 0xFF
        if n == 0 or n > in_flight:
            return
        self.unacked = self.unacked[n:]
        self.tx_base = ack & 0xFF
        self.timer_start = now
        self.rto = RTO_MS

    def _on_hello(self, fields, out):
        version, session, peer_session, first_seq, _clock = fields
        if version != self.version:
            # refused; not answered at once (two sides of different versions would answer each
            # other forever): the hello repeated every HELLO_MS tells the peer our version
            self.peer_version = version
            self.up = False
            return
        self.peer_version = version
        if session != self.peer_session:
            self.peer_session = session
            self.rx_expected = first_seq
            self.ack_owed = False
            self.hello_owed = True
            out.append((T_HELLO, fields))
        if peer_session != self.session:
            self.hello_owed = True
        was_up = self.up
        self.up = peer_session == self.session
        if self.up and not was_up and self.unacked:
            self.resend_due = True

    def feed(self, data, now):
        """Take received bytes at ``now``; return the delivered ``(type, fields)`` in order."""
        out = []
        parser = self.parser
        if data:
            self.last_byte = now
            frames = parser.feed(data)
        elif parser.buf and self.diff(now, self.last_byte) > FRAME_TIMEOUT_MS:
            frames = []
            while parser.buf:  # nothing more is coming: hunt through what is held
                frames += parser.skip()
        else:
            return out
        for seq, ack, mtype, payload in frames:
            fields = unpack(mtype, payload)
            if fields is None:
                self.parser.bad += 1
                continue
            if self.diff(now, self.last_rx) > LINK_TIMEOUT_MS and self.unacked:
                self.resend_due = True  # the peer is back after a silence: deliver at once
                self.rto = RTO_MS
            self.last_rx = now
            if mtype == T_HELLO:
                self._on_hello(fields, out)
                continue
            if mtype == T_REPL:
                if fields[0] == REPL_MAGIC:
                    out.append((T_REPL, fields))
                continue
            if not self.up:
                continue
            self._on_ack(ack, now)
            if mtype < FIRST_SEQUENCED:
                if mtype == T_HEARTBEAT:
                    out.append((T_HEARTBEAT, fields))
                continue
            self.ack_owed = True
            if seq != self.rx_expected:
                self.duplicates += 1
                continue
            self.rx_expected = (seq + 1) & 0xFF
            self.delivered += 1
            out.append((mtype, fields))
        return out
