"""``companion daemon``: the table service on the configured hardware, until SIGTERM.

The systemd unit (systemd/, the Pi engineer's) starts it. Typed lines on standard input are the
challenged words; a line starting with ``/`` is an arbiter's command (``/pause``, ``/resume``,
``/override``, ``/confirm``, ``/cancel``, ``/new``, ``/abandon``; ``/count`` asks the camera for the
colour count, shown on the OLED); an empty line confirms a verdict. So a USB
keyboard on the console works with ``StandardInput=tty`` / ``TTYPath=/dev/tty1`` in the unit.

systemd hears from it (sd_notify): READY=1 once the devices are open; WATCHDOG=1 only from the
clock thread, after a step that completed (a clock that is stuck or keeps failing stops feeding
it and systemd restarts the service, which resumes from the journal); STATUS= the service's
health, changed as soon as a fault starts or ends (``NOT SAVING: storage (...)``, ``TIMER HEAD
DISCONNECTED (...)``), with ERRNO= while the storage fails. A failing card does not stop the
watchdog: the game is kept in memory and a restart would lose it.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable

from companion.daemon.modes import COMMANDS

ARBITER_WORDS = {*COMMANDS, "new", "abandon"}


def serve(
    pinmap_path: str | None = None,
    backend: str | None = None,
    on_ready: Callable[[], None] | None = None,
    stdin=None,
) -> int:
    """Open the devices and run the table service until SIGTERM/SIGINT; returns the exit code.

    Raises:
        PinMapError, DeviceError, TableConfigError: the configuration or hardware is unusable.
    """
    from companion.daemon.service import TableService
    from companion.devices.backends import open_devices
    from companion.devices.pinmap import load_pinmap
    from companion.platform.systemd import notifier

    sd = notifier()  # systemd's Type=notify and watchdog; no-ops outside systemd
    pinmap = load_pinmap(pinmap_path, backend=backend)
    devices = open_devices(pinmap, backend=backend)
    service = TableService(devices, pinmap, setup_poll_seconds=1.0)  # a set-up from the link
    stop = threading.Event()

    def terminate(signum, frame) -> None:
        sd.stopping()
        stop.set()
        service.stop()

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    stdin = stdin if stdin is not None else sys.stdin
    if stdin is not None and not stdin.closed:
        threading.Thread(target=_read_lines, args=(stdin, service), daemon=True).start()
    watchdog = sd.watchdog_seconds
    base = f"table service running ({devices.backend})"
    clock = threading.Thread(
        target=service.run,
        name="clock",
        kwargs={
            "on_wake": health_reporter(service, sd, base),
            "max_sleep": watchdog / 4 if watchdog else None,
        },
    )
    clock.start()
    problems = [
        p
        for d in (devices.display, devices.disc, devices.camera)
        if (p := getattr(d, "problem", None))
    ]
    for problem in problems:
        print(f"companion daemon: {problem}", file=sys.stderr)
    status = f"table service running ({devices.backend})"
    sd.ready(status + (f"; {len(problems)} device(s) missing" if problems else ""))
    if on_ready is not None:
        on_ready()
    print(f"companion daemon: {status}", file=sys.stderr)
    clock.join()  # the main thread waits; SIGTERM/SIGINT interrupt it and stop the service
    devices.close()
    return 0


def health_reporter(service, sd, base: str, clock: Callable[[], float] = time.monotonic):
    """The clock thread's ``on_wake``: feed systemd's watchdog (the step completed) and send
    the service's health as its status line each time it changes.

    Args:
        service: the :class:`~companion.daemon.service.TableService`.
        sd: a :class:`~companion.platform.systemd.Notifier`.
        base: the status line while all is well.
    """
    last: list[str | None] = [None]

    def on_wake() -> None:
        sd.tick(clock())
        health = service.health()
        if health != last[0]:
            last[0] = health
            if health == "ok":
                sd.status(base)
            else:
                fields: dict[str, str | int] = {"status": f"FAULT: {health}"}
                if service.storage_errno:
                    fields["errno"] = service.storage_errno
                sd.notify(**fields)
                print(f"companion daemon: {health}", file=sys.stderr)

    return on_wake


def _read_lines(stream, service) -> None:
    """Typed lines: ``/pause`` and the like are commands, an empty line confirms, anything else
    is a line of words (a word such as NEW is never taken for a command)."""
    for raw in stream:
        text = raw.strip()
        if not text:
            service.command("confirm")
        elif text.startswith("/"):
            word = text[1:].strip().lower()
            if word == "count":  # the colour count from the camera (not a game event)
                service.count()
            elif word in ARBITER_WORDS:
                service.command(word)
            else:
                print(
                    f"unknown command {text!r}; accepted: /"
                    + ", /".join(sorted({*ARBITER_WORDS, "count"})),
                    file=sys.stderr,
                )
        else:
            service.line(text)
