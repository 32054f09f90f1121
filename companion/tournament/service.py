"""The long-running commands: ``companion director`` (broker + director + pages) and
``companion link``. Both run until SIGTERM or Ctrl-C and then stop cleanly (the director stores
what is queued and stops the broker it started)."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

log = logging.getLogger("companion.tournament")


def _logging() -> None:
    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s"
        )


def _stop_on_signal() -> threading.Event:
    """An event set by SIGTERM or SIGINT, its handlers installed now: a service installs them
    before it says it is running (``running.json``), so a stop sent at once is a clean stop, not
    the default death that would skip its last words and its clean-up."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *a: stop.set())
    return stop


def _wait_for_signal(every=None, stop: threading.Event | None = None) -> None:
    """Until SIGTERM or SIGINT (``stop``, from :func:`_stop_on_signal`, or handlers installed
    now); ``every()`` is called twice a second meanwhile."""
    stop = stop or _stop_on_signal()
    while not stop.wait(0.5):
        if every is not None:
            every()


def _keep_broker(broker):
    """A check that starts the director's own broker again if it died (its sessions and queued
    messages are in its persistence file; the tables and the director reconnect by themselves)."""

    def check() -> None:
        if broker is None or broker.running:
            return
        log.error("director: the broker stopped (%s); starting it again", broker.log_tail(2))
        try:
            broker.start()
        except Exception as exc:  # noqa: BLE001 - said, and tried again in half a second
            log.error("director: the broker could not be started again: %s", exc)

    return check


def run_director(args, event: str) -> int:
    """``companion director``: see :mod:`companion.tournament.cli`."""
    from companion.tournament import broker as brk
    from companion.tournament.director import Director, director_dir, store_path
    from companion.tournament.mqtt import BrokerURL, parse_url
    from companion.tournament.store import Store

    _logging()
    stop = _stop_on_signal()
    home = director_dir()
    accounts = brk.Accounts(home)
    creds = accounts.ensure()
    (home / "event").write_text(event + "\n")
    store = Store(store_path(event, home))
    broker = None
    ca = None
    tls_dir = home / "tls"
    if args.broker:
        url = parse_url(args.broker)
        if url.tls:
            ca = tls_dir / "ca.pem"
    else:
        tls = None
        if (tls_dir / "broker.pem").exists():
            tls = brk.TLSFiles(tls_dir / "ca.pem", tls_dir / "broker.pem", tls_dir / "broker.key")
        listen = tuple(args.listen) if args.listen else ("",)
        broker = brk.Broker(accounts, event, args.broker_port, listen, tls, args.tls_port)
        broker.start()
        url = BrokerURL("127.0.0.1", args.broker_port)
    director = Director(store, event, url, creds["username"], creds["password"], ca)
    if broker is not None:
        director.save_broker = broker.save
    web = None
    try:
        director.start()
        running = home / "running.json"
        info = {"event": event, "broker": str(url), "pid": os.getpid(), "store": str(store.path)}
        running.write_text(json.dumps(info))
        if args.http:
            web = _start_web(args, store, director, event)
            running.write_text(json.dumps({**info, "pages": director.pages}))
        director.republish_round()  # with the pages' addresses, now that they are known
        where = f"broker {url}" + (f" (started here, log {broker.log})" if broker else "")
        log.info("director: event %s, %s, store %s", event, where, store.path)
        _wait_for_signal(_keep_broker(broker), stop)
    finally:
        if web is not None:
            web.stop()
        director.stop()
        if broker is not None:
            broker.stop()
        store.close()
        (home / "running.json").unlink(missing_ok=True)
        s = director.stats
        log.info(
            "director: stopped; %d messages, %d stored, %d duplicates dropped, %d refused",
            s.received,
            s.stored,
            s.duplicates,
            s.rejected,
        )
    return 0


def _start_web(args, store, director, event: str):
    """The director's pages on a thread (companion.tournament.web), when they are installed."""
    import secrets

    from companion.errors import CompanionError

    try:
        from companion.tournament import web
    except ModuleNotFoundError as exc:
        raise CompanionError(f"--http: the director's pages are not installed ({exc})") from None
    host, port = web.parse_address(args.http)
    password = args.password or os.environ.get("COMPANION_DIRECTOR_PASSWORD")
    if not password:
        password = secrets.token_urlsafe(9)
        print(f"director: the web pages' director password is {password}", file=sys.stderr)
    server = web.WebServer(
        store,
        host,
        port,
        director_password=password,
        viewer_pin=getattr(args, "viewer_pin", None) or os.environ.get("COMPANION_VIEWER_PIN"),
        publish=director.publish_round,
        event=event,
    )
    server.start()
    pages = getattr(args, "pages_url", None)  # checked at start (cli._check_options)
    if not pages:
        from companion.tournament.qr import QRError, check_pages_url

        pages = pages_address(host, server.port)
        try:
            check_pages_url(pages, "the pages' address")
        except QRError as exc:  # a machine name the tables cannot take: no page, not refused
            log.warning("director: %s; the set-ups carry no page (give --pages-url)", exc)
            pages = ""
    server.app.state.web.base_url = pages
    director.pages = pages  # each table's set-up carries its page, shown as a QR code
    log.info(
        "director: pages at http://%s:%d/ (the tables' QR codes: %s)", host, server.port, pages
    )
    return server


def pages_address(host: str, port: int) -> str:
    """The director's pages as the players' phones reach them: ``http://HOST:PORT``, with a
    listen-everywhere host (``0.0.0.0``, ``::``) replaced by this machine's address on the
    network a table would reach (the one the default route leaves by; no packet is sent),
    else its host name."""
    import socket

    if host in ("0.0.0.0", "::", ""):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("10.255.255.255", 1))  # UDP: picks the route, sends nothing
                host = probe.getsockname()[0]
        except OSError:
            host = socket.gethostname()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def run_link(args) -> int:
    """``companion link``: see :mod:`companion.tournament.link`."""
    from companion.tournament.link import Link, load_config

    _logging()
    config = load_config()
    link = Link(config, poll=args.poll, resend_seconds=args.resend_seconds, follow_sim=True)
    link.start()
    log.info("link: table %d to %s, event %s", config.table, config.url, config.event)
    try:
        _wait_for_signal()
    finally:
        link.stop()
    return 0


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def wait_for(path: Path, timeout: float = 10.0) -> bool:
    """Wait until ``path`` exists (for scripts that start the director in the background)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.05)
    return False
