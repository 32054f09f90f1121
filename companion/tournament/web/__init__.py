"""The director's web pages (``companion director --http HOST:PORT``): the hall with every table
live, each table's page, the round set-up, the standings and results, a TV page.

Use :func:`create_app` for the ASGI app, :func:`serve` to run it under uvicorn until stopped, or
:class:`WebServer` to run it on a thread beside the director (and in tests). Pages and access:
:mod:`companion.tournament.web.app`; docs/director-pages.md.
"""

from __future__ import annotations

import threading
import time

from companion.errors import CompanionError
from companion.tournament.web.app import create_app


class WebError(CompanionError, ValueError):
    """The pages cannot be served (the address is taken, a bad HOST:PORT): names it."""


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``0.0.0.0:8080``, ``[::1]:8080``, ``:8080`` for every address) as
    ``(host, port)``.

    Raises:
        WebError: anything else, naming the text and what is accepted."""
    accepted = "accepted HOST:PORT, e.g. 0.0.0.0:8080 or 127.0.0.1:8080, PORT 1 to 65535"
    host, sep, port = str(text).rpartition(":")
    if not sep:
        raise WebError(f"--http {text!r}: no port; {accepted}")
    host = host.strip("[]") or "0.0.0.0"
    try:
        number = int(port)
    except ValueError:
        raise WebError(f"--http {text!r}: port {port!r} is not a number; {accepted}") from None
    if not 1 <= number <= 65535:
        raise WebError(f"--http {text!r}: port {number} is out of range; {accepted}")
    return host, number


def _config(app, host: str, port: int):
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
        ws="none",
    )


def serve(store, host: str, port: int, **options) -> None:
    """Serve the pages for ``store`` at ``host:port`` until interrupted (Ctrl-C, SIGTERM).

    ``options`` are :func:`create_app`'s (``director_password`` required, ``viewer_pin``,
    ``publish``, ``event``, ``base_url``, ...)."""
    import uvicorn

    uvicorn.Server(_config(create_app(store, **options), host, port)).run()


class WebServer:
    """The pages served on a thread of their own: ``start()`` returns once they answer,
    ``stop()`` ends every open page's stream and the server (within about 2 s).

    Args:
        store, host, port, options: as :func:`serve` (port 0 picks a free port; ``url`` then
            says which).
    """

    def __init__(self, store, host: str = "127.0.0.1", port: int = 0, **options) -> None:
        import uvicorn

        self.app = create_app(store, **options)
        self.server = uvicorn.Server(_config(self.app, host, port))
        self.server.install_signal_handlers = lambda: None  # not the main thread's to take
        self.thread = threading.Thread(target=self.server.run, name="director-web", daemon=True)
        self.host = host

    @property
    def port(self) -> int:
        servers = getattr(self.server, "servers", None) or []
        for s in servers:
            for sock in s.sockets:
                return sock.getsockname()[1]
        return self.server.config.port

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 10.0) -> WebServer:
        """Start serving; returns once the server listens.

        Raises:
            WebError: it did not start within ``timeout`` seconds (the address in use)."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise WebError(
                    f"the director's pages could not listen on {self.host}:"
                    f"{self.server.config.port} (in use?)"
                )
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread."""
        self.app.state.web.hub.stop()
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


__all__ = ["WebError", "WebServer", "create_app", "parse_address", "serve"]
