"""The head's millisecond counter mapped to the host's monotonic clock (firmware/PROTOCOL.md, "Time").

The head stamps each button change with its 32-bit millisecond counter ``clock_ms`` (wraps at
2**32, 49.7 days). Every HELLO and HEARTBEAT from the head carries the counter at the moment it was
sent; the host pairs it with the moment it read the frame. ``received - sent`` is the clock offset
plus the time in transit, so the smallest of the recent samples is the best estimate of the offset
(the frame that waited least). A press stamped ``c`` then counts at ``c / 1000 + offset`` seconds
on the host's clock, however late its frame arrives (a retransmission, a link outage).
"""

from __future__ import annotations

from collections import deque

from companion.devices.head.wire import proto


class HeadClock:
    """Maps head ``clock_ms`` values to host seconds.

    Args:
        window: how many recent samples the offset is the minimum of (``OFFSET_WINDOW``, 40:
            about 10 s of heartbeats, so a drift of the Pico's crystal, at most 50 ppm, moves the
            estimate by under a millisecond within the window).
    """

    def __init__(self, window: int = proto.OFFSET_WINDOW) -> None:
        self.samples: deque[float] = deque(maxlen=window)
        self.latest: int | None = None  # the newest head time seen, unwrapped, in ms

    def reset(self) -> None:
        """Forget everything (the head restarted: its counter began again)."""
        self.samples.clear()
        self.latest = None

    def unwrap(self, clock_ms: int) -> int:
        """The 32-bit ``clock_ms`` as an unbounded count: the value nearest to the newest seen."""
        if self.latest is None:
            return clock_ms
        return self.latest + proto.diff32(clock_ms, self.latest & 0xFFFFFFFF)

    def observe(self, clock_ms: int, received: float) -> None:
        """A HELLO or HEARTBEAT sent at head time ``clock_ms`` was read at host time ``received``
        (seconds)."""
        value = self.unwrap(clock_ms)
        if self.latest is None or value > self.latest:
            self.latest = value
        self.samples.append(received - value / 1000.0)

    @property
    def offset(self) -> float | None:
        """Host seconds minus head seconds, or None before the first sample."""
        return min(self.samples) if self.samples else None

    def to_host(self, clock_ms: int) -> float:
        """The host time (seconds) of head time ``clock_ms``.

        Raises:
            RuntimeError: no HELLO or HEARTBEAT seen yet (cannot happen for a button event, which
                the link delivers only after the hello).
        """
        offset = self.offset
        if offset is None:
            raise RuntimeError("the head's clock offset is unknown before its first hello")
        return self.unwrap(clock_ms) / 1000.0 + offset
