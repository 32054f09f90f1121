"""The director's pages: a Starlette app over the director's store.

Pages (docs/director-pages.md):

- ``/`` the hall: a tile per table, updated live (server-sent events from ``/events``);
- ``/table/N`` one table: the board as the camera read it, the game move by move, the
  challenges, the clock (``/events?table=N`` keeps it live); mobile-first;
- ``/round`` pair a round (CSV file, round robin or Swiss), review it, publish it;
- ``/standings`` the standings, every result with its corrections, the corrections' history, and
  (for the director) a form to correct a result; ``/results.csv`` the results as CSV;
- ``/tv`` large type for a screen by the door: standings and the round's progress in turn;
- ``/login``, ``/logout``.

Access: viewing is open, or needs the viewer PIN when one is set. Every change (a round, a
correction) needs the director's login (password or PIN), a session kept on the server
(:class:`Sessions`: the cookie holds only its id; logging out ends it) that lapses after
``session_seconds`` without use, and the form's CSRF token (one per session, checked with
``hmac.compare_digest``). Five wrong logins from one address lock it out for 30 seconds. Bad form
input shows what is wrong on the page (status 400) and changes nothing.

The store is read and written on a small pool of threads (the store keeps one SQLite connection
per thread), never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import logging
import math
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import (
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from companion.errors import CompanionError
from companion.tournament.protocol import TABLE_MAX
from companion.tournament.web import forms, views
from companion.tournament.web.live import Hub

log = logging.getLogger("companion.tournament")

HERE = Path(__file__).parent
SESSION_SECONDS = 30 * 60
LOCKOUT_FAILURES = 5
LOCKOUT_SECONDS = 30.0
TV_CYCLE_SECONDS = 10
TV_ROWS = 7  # standings rows on one TV page (whole on 1920x1080 at the TV's type size)
MAX_BODY_BYTES = 1024 * 1024  # a form or a CSV file of pairings; anything larger is refused
PAGE_OF = {"/corrections": "/standings", "/round/publish": "/round"}  # where a form came from


class _Web:
    """What the handlers share: the store, its thread pool, the hub, the settings."""

    def __init__(
        self,
        store,
        *,
        director_password,
        viewer_pin,
        publish,
        session_seconds,
        poll_seconds,
        event,
        base_url,
        clock=time.time,
    ):
        self.store = store
        self.clock = clock
        self.director_password = str(director_password)
        self.viewer_pin = str(viewer_pin) if viewer_pin else ""
        self.publish = publish
        self.session_seconds = float(session_seconds)
        self.event = event
        self.base_url = base_url
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="director-web")
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        env = self.templates.env
        env.trim_blocks = env.lstrip_blocks = True  # a lighter hall page
        env.globals["event"] = event
        env.filters["clock"] = views._clock
        env.filters["change"] = views.change_text
        self.tile_template = env.get_template("_tile.html")
        self.detail_template = env.get_template("_table.html")
        self.hub = Hub(self.call, store, self.render_changes, interval=poll_seconds)
        self.drafts: dict[str, dict] = {}
        self.sessions = Sessions(clock)
        self.failures: dict[str, tuple[int, float]] = {}

    async def call(self, fn, *args, **kwargs):
        """Run ``fn(*args, **kwargs)`` on the store's threads."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, functools.partial(fn, *args, **kwargs))

    # -- rendering shared by the pages and the live updates ----------------------------------

    def tile_html(self, row: dict, now: float) -> str:
        return self.tile_template.render(t=views.tile(row, now=now))

    def detail_html(self, table: dict, now: float) -> str:
        return self.detail_template.render(**table_context(table, now))

    def progress(self, rnd, setups, results) -> dict:
        return views.reported(rnd, setups, results)

    async def render_changes(self, changed, rows, details) -> dict:
        """The changed tables drawn; one that cannot be drawn is said in the log and left
        out, never holding up the others (the hub polls again only when the store fails)."""
        now = time.time()
        _, progress = await _hall_data(self, rows=False)
        tiles, pages = {}, {}
        for r in rows:
            with _said(f"table {r.get('table')}'s tile"):
                tiles[str(r["table"])] = self.tile_html(r, now)
        for n, d in details.items():
            if d:
                with _said(f"table {n}'s page"):
                    pages[n] = self.detail_html(d, now)
        return {"tiles": tiles, "details": pages, "progress": progress}


@contextlib.contextmanager
def _said(what: str):
    try:
        yield
    except Exception:  # noqa: BLE001 - one table drawn wrong must not stop the others' updates
        log.exception("director pages: %s could not be drawn", what)


def _results(table: dict) -> list[dict]:
    return [
        views.result_of(r)
        | {"round": r.get("round"), "game": r.get("game"), "received": r.get("received")}
        for r in table.get("results") or []
    ]


def table_context(table: dict, now: float) -> dict:
    """What ``_table.html`` draws for ``Store.table(n)``."""
    board = table.get("board") or None
    t = views.tile(table, now=now)
    state = table.get("state") if isinstance(table.get("state"), dict) else {}
    if t["game"] == "scrabble":
        notation = board.get("board") if board else state.get("board")
        return {
            "t": t,
            "board": views.scrabble_board(notation),
            "board_trusted": bool(board and board.get("trusted")),
            "board_typed": not board,
            "board_received": board.get("received") if board else None,
            "moves": views.scrabble_moves(state),
            "record": views.game_record(table.get("events") or []),
            "challenges": views.challenges(table.get("events") or [], game="scrabble"),
            "results": _results(table),
            "now": now,
        }
    results = _results(table)
    return {
        "t": t,
        "board": views.board_grid(board.get("board")) if board else None,
        "board_trusted": bool(board and board.get("trusted")),
        "board_received": board.get("received") if board else None,
        "record": views.game_record(table.get("events") or []),
        "challenges": views.challenges(table.get("events") or []),
        "results": results,
        "now": now,
    }


# --- access ---------------------------------------------------------------------------------


SESSION_IDLE_SECONDS = 12 * 3600  # as long as the cookie lives
SESSIONS_MAX = 10_000


class Sessions:
    """The pages' sessions, kept on the server: the (signed) cookie holds only a random id, so
    logging out ends the session for every copy of the cookie, and a restart of the director
    ends them all.

    Args:
        clock: seconds since the epoch.
        idle_seconds: a session unused this long is forgotten.
        most: the most sessions kept; past it the least recently used go first, those with no
            login before those with one.
    """

    def __init__(self, clock, idle_seconds: float = SESSION_IDLE_SECONDS, most: int = SESSIONS_MAX):
        self.clock = clock
        self.idle_seconds = idle_seconds
        self.most = most
        self._held: dict[str, dict] = {}

    def __len__(self) -> int:
        return len(self._held)

    def get(self, sid: object) -> dict | None:
        """The session ``sid`` (renewed), or None when there is none (ended, lapsed, forged)."""
        data = self._held.get(sid) if isinstance(sid, str) else None
        if data is None:
            return None
        now = self.clock()
        if now - data["seen"] > self.idle_seconds:
            self._held.pop(sid, None)
            return None
        data["seen"] = now
        return data

    def new(self) -> tuple[str, dict]:
        """A new session: ``(id, data)``; the id is 256 random bits."""
        if len(self._held) >= self.most:
            # a flood of visitors without a cookie evicts visitors, not a logged-in director
            def order(k: str) -> tuple[bool, float]:
                data = self._held[k]
                return "director_until" in data or "viewer" in data, data["seen"]

            by_use = sorted(self._held, key=order)
            for sid in by_use[: max(1, self.most // 10)]:
                del self._held[sid]
        sid = secrets.token_urlsafe(32)
        data = {"seen": self.clock()}
        self._held[sid] = data
        return sid, data

    def end(self, sid: object) -> None:
        """Forget session ``sid`` (logout)."""
        if isinstance(sid, str):
            self._held.pop(sid, None)


def _session(request: Request, create: bool = True) -> dict:
    """This request's server-side session (a new one when it has none and ``create``; else an
    empty dict that is kept nowhere)."""
    web: _Web = request.app.state.web
    data = web.sessions.get(request.session.get("sid"))
    if data is None:
        if not create:
            return {}
        sid, data = web.sessions.new()
        request.session["sid"] = sid
    return data


def _fresh_session(request: Request) -> dict:
    """A new session in place of this request's (at each login: a session id known before the
    login never carries it)."""
    web: _Web = request.app.state.web
    web.sessions.end(request.session.get("sid"))
    sid, data = web.sessions.new()
    request.session.clear()
    request.session["sid"] = sid
    return data


def _csrf(request: Request) -> str:
    session = _session(request)
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def is_director(request: Request) -> bool:
    """True while the session holds a director's login that has not lapsed (each use renews
    it)."""
    web: _Web = request.app.state.web
    session = _session(request, create=False)
    until = session.get("director_until", 0)
    now = web.clock()
    if not isinstance(until, int | float) or until < now:
        session.pop("director_until", None)
        return False
    session["director_until"] = now + web.session_seconds
    return True


def is_viewer(request: Request) -> bool:
    web: _Web = request.app.state.web
    viewer = bool(_session(request, create=False).get("viewer"))
    return not web.viewer_pin or viewer or is_director(request)


def _page(request: Request, name: str, context: dict, status: int = 200) -> Response:
    web: _Web = request.app.state.web
    director = is_director(request)
    base = {
        "director": director,
        "csrf": _csrf(request),
        "viewer_pin": bool(web.viewer_pin),
        "path": request.url.path,
    }
    return web.templates.TemplateResponse(request, name, base | context, status_code=status)


async def _store_damaged(request: Request, exc: Exception) -> Response:
    """A damaged row of the store (:class:`companion.tournament.store.StoreError`), said on
    the page with the row it names (503: the director must mend it), not a bare error 500."""
    import html

    from starlette.responses import HTMLResponse

    log.error("director: page %s: %s", request.url.path, exc)
    text = html.escape(str(exc))
    return HTMLResponse(
        "<!doctype html><title>The store is damaged</title><h1>The director's store is "
        f'damaged</h1><p role="alert">{text}</p>',
        status_code=503,
    )


def _refuse(request: Request, why: str, status: int = 403) -> Response:
    page = PAGE_OF.get(request.url.path, request.url.path)
    return _page(request, "refused.html", {"why": why, "page": page}, status=status)


async def _change_allowed(request: Request) -> tuple[dict | None, Response | None]:
    """The posted form when the director is logged in and the CSRF token matches; else the
    refusal to send (and nothing changes)."""
    form = await request.form()
    if not is_director(request):
        return None, _refuse(request, "Only the director can change this: log in first.")
    token = str(form.get("csrf", ""))
    if not hmac.compare_digest(token.encode(), _csrf(request).encode()):
        return None, _refuse(
            request,
            "This form was not sent from these pages or is out of date: "
            "reload the page and send it again.",
        )
    return form, None


def viewer_page(handler):
    """A page that needs the viewer PIN when one is set."""

    @functools.wraps(handler)
    async def wrapped(request: Request):
        if not is_viewer(request):
            nxt = request.url.path
            return RedirectResponse(f"/login?next={nxt}", status_code=303)
        return await handler(request)

    return wrapped


# --- pages ----------------------------------------------------------------------------------


async def _hall_data(web: _Web, rows: bool = True) -> tuple[list[dict], dict]:
    """The tables' rows (when ``rows``) and the round's progress, with the store's version
    read first (a page built from them catches up from that version)."""

    def read():
        version = web.store.version()
        got = web.store.tables() if rows else []
        rnd = web.store.current_round()
        setups = web.store.round_setups(rnd) if rnd is not None else {}
        return version, got, rnd, setups, web.store.results()

    version, got, rnd, setups, results = await web.call(read)
    return got, web.progress(rnd, setups, results) | {"version": version}


@viewer_page
async def hall(request: Request) -> Response:
    web: _Web = request.app.state.web
    rows, progress = await _hall_data(web)
    now = time.time()
    tiles = [web.tile_html(r, now) for r in rows]
    return _page(
        request,
        "hall.html",
        {
            "tiles": tiles,
            "progress": progress,
            "now": now,
            "count": len(rows),
            "version": progress["version"],
        },
    )


@viewer_page
async def table_page(request: Request) -> Response:
    web: _Web = request.app.state.web
    n = request.path_params["n"]
    if not 1 <= n <= TABLE_MAX:
        table = None  # no such table number (and SQLite holds no integer past 2^63)
    else:
        version, table = await web.call(lambda: (web.store.version(), web.store.table(n)))
    if table is None:
        return _page(
            request,
            "missing.html",
            {"what": f"Table {n} has not been heard from and is in no round."},
            status=404,
        )
    now = time.time()
    return _page(
        request,
        "table.html",
        {"n": n, "detail": web.detail_html(table, now), "now": now, "version": version},
    )


@viewer_page
async def table_qr(request: Request) -> Response:
    """A PNG of the QR code of table N's page (to print on a card for the table), drawn by
    :func:`companion.tournament.qr.qr_image` with 8 pixels a module; the address is
    ``base_url``'s, else the one this request came to."""
    import io

    from companion.tournament import qr

    web: _Web = request.app.state.web
    if not 1 <= request.path_params["n"] <= TABLE_MAX:
        return _page(
            request,
            "missing.html",
            {"what": f"Tables are numbered 1 to {TABLE_MAX}."},
            status=404,
        )
    base = web.base_url or str(request.base_url)
    try:
        image = qr.qr_image(qr.table_url(base, request.path_params["n"]), size=8 * 64)
    except qr.QRError as exc:
        return PlainTextResponse(str(exc), status_code=400)
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return Response(buf.getvalue(), media_type="image/png")


@viewer_page
async def events(request: Request) -> Response:
    """Server-sent events: the hall's tiles, or (``?table=N``) one table's page."""
    web: _Web = request.app.state.web
    raw = request.query_params.get("table")
    table = None
    if raw is not None:
        try:
            table = int(raw)
        except ValueError:
            table = 0
        if not 1 <= table <= TABLE_MAX:
            return PlainTextResponse(
                f"table {raw[:20]!r}: accepted a table number, 1 to {TABLE_MAX}", status_code=400
            )
    sub = web.hub.subscribe(table)
    first = None
    if "since" in request.query_params:
        # the page's data is as of version `since`: send what changed after it
        first = await _catch_up(web, table, request.query_params.get("since", ""))
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(
        web.hub.stream(sub, first), media_type="text/event-stream", headers=headers
    )


async def _catch_up(web: _Web, table: int | None, since: str) -> dict | None:
    try:
        version = int(since)
    except ValueError:
        return None
    _, changed = await web.call(web.store.changed_since, version)
    now = time.time()
    if table is not None:
        if table not in changed:
            return None
        detail = await web.call(web.store.table, table)
        return {"detail": web.detail_html(detail, now)} if detail else None
    if not changed:
        return None
    rows = [r for r in await web.call(web.store.tables) if r["table"] in set(changed)]
    return {"tiles": {str(r["table"]): web.tile_html(r, now) for r in rows}}


@viewer_page
async def progress(request: Request) -> Response:
    """The round's progress as JSON: ``{"round", "reported", "tables", "text"}``."""
    web: _Web = request.app.state.web
    _, prog = await _hall_data(web)
    return JSONResponse(prog)


async def _standings_data(web: _Web) -> dict:
    def read():
        return web.store.standings(), web.store.results(), web.store.corrections()

    standings, results, corrections = await web.call(read)
    shown = []
    for r in results:
        shown.append(
            views.result_of(r)
            | {
                "table": r["table"],
                "game": r["game"],
                "round": r.get("round"),
                "corrections": r.get("corrections") or [],
            }
        )
    return {"standings": standings, "results": shown, "corrections": corrections}


@viewer_page
async def standings(request: Request) -> Response:
    web: _Web = request.app.state.web
    data = await _standings_data(web)
    notice = request.query_params.get("corrected")
    return _page(
        request,
        "standings.html",
        data
        | {
            "notice": f"Correction {notice} kept; the standings include it." if notice else "",
            "errors": [],
            "values": {},
        },
    )


@viewer_page
async def results_csv(request: Request) -> Response:
    web: _Web = request.app.state.web
    results = await web.call(web.store.results)
    return Response(
        views.results_csv(results),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="results.csv"'},
    )


async def correct(request: Request) -> Response:
    web: _Web = request.app.state.web
    form, refusal = await _change_allowed(request)
    if refusal is not None:
        return refusal
    results = await web.call(web.store.results)
    try:
        c = forms.correction(form, results)
        cid = await web.call(
            web.store.add_correction,
            c["table"],
            c["game"],
            c["change"],
            c["reason"],
            c["who"],
            time.time(),
        )
    except (forms.FormError, ValueError) as exc:
        data = await _standings_data(web)
        errors = exc.problems if isinstance(exc, forms.FormError) else [str(exc)]
        return _page(
            request,
            "standings.html",
            data | {"notice": "", "errors": errors, "values": dict(form)},
            status=400,
        )
    return RedirectResponse(f"/standings?corrected={cid}#results", status_code=303)


@viewer_page
async def tv(request: Request) -> Response:
    """The TV page; ``?cycle=S`` shows each panel S seconds (0.2 to 600; default 10)."""
    cycle: float = TV_CYCLE_SECONDS
    raw = request.query_params.get("cycle")
    if raw is not None:
        try:
            cycle = float(raw)
        except ValueError:
            cycle = math.nan
        if not 0.2 <= cycle <= 600:
            return PlainTextResponse(
                f"cycle {raw[:20]!r}: accepted seconds from 0.2 to 600", status_code=400
            )
    return _page(request, "tv.html", {"cycle": f"{cycle:g}"})


@viewer_page
async def tv_panels(request: Request) -> Response:
    """The TV's panels as HTML fragments: ``{"pages": [html, ...], "standings": html,
    "progress": html}``: ``pages`` the standings :data:`TV_ROWS` rows a page, every row
    (``standings`` is the first page)."""
    web: _Web = request.app.state.web
    data = await _standings_data(web)
    rows, prog = await _hall_data(web)
    done = {r["table"] for r in data["results"] if r.get("round") == prog["round"]}
    tmpl = web.templates.env.get_template("_tv.html")
    standings = data["standings"]
    chunks = [standings[i : i + TV_ROWS] for i in range(0, len(standings), TV_ROWS)] or [[]]
    pages = [
        tmpl.render(
            panel="standings",
            standings=chunk,
            progress=prog,
            page=n,
            pages=len(chunks),
            total=len(standings),
            first=(n - 1) * TV_ROWS + 1,
        )
        for n, chunk in enumerate(chunks, 1)
    ]
    return JSONResponse(
        {
            "pages": pages,
            "standings": pages[0],
            "progress": tmpl.render(
                panel="progress", progress=prog, tiles=[views.tile(r) for r in rows], done=done
            ),
        }
    )


# --- rounds ---------------------------------------------------------------------------------


async def _round_context(web: _Web) -> dict:
    def read():
        rnd = web.store.current_round()
        setups = web.store.round_setups(rnd) if rnd is not None else {}
        listed = web.store.round_players(rnd) if rnd is not None else []
        return (
            rnd,
            setups,
            web.store.standings(),
            web.store.results(),
            web.store.rounds() if hasattr(web.store, "rounds") else [],
            listed,
        )

    rnd, setups, standings, results, rounds, listed = await web.call(read)
    return {
        "current": rnd,
        "setups": setups,
        "progress": web.progress(rnd, setups, results),
        "rounds": rounds,
        # the last round's players as listed (its byes included), else every player seen
        "default_players": listed or forms.known_players(standings, setups),
        "games": forms.GAMES,
        "challenges": forms.CHALLENGES,
    }


def _round_defaults(ctx: dict) -> dict:
    last = next(iter(ctx["setups"].values()), None)
    return forms.round_defaults(ctx["current"], ctx["default_players"], last)


@viewer_page
async def round_page(request: Request) -> Response:
    web: _Web = request.app.state.web
    ctx = await _round_context(web)
    published = request.query_params.get("published")
    notice = ""
    if published:
        notice = f"Round {published} published to {len(ctx['setups'])} tables."
    values = _round_defaults(ctx)
    return _page(
        request,
        "round.html",
        ctx | {"values": values, "errors": [], "draft": None, "notice": notice},
    )


async def round_preview(request: Request) -> Response:
    web: _Web = request.app.state.web
    form, refusal = await _change_allowed(request)
    if refusal is not None:
        return refusal
    ctx = await _round_context(web)
    values = {k: form.get(k) for k in forms.ROUND_FIELDS}
    try:
        upload = form.get("csv")
        csv_text, csv_name = "", "pairings.csv"
        if upload is not None and hasattr(upload, "read"):
            raw = await upload.read()
            csv_name = upload.filename or csv_name
            csv_text = forms.decode_upload(raw, csv_name)
        results = await web.call(web.store.results)
        rounds = {
            r: await web.call(web.store.round_setups, r)
            for r in range(1, (ctx["current"] or 0) + 1)
        }
        draft = await web.call(
            forms.make_draft, web.store, form, csv_text, csv_name, results, rounds, web.event
        )
    except forms.FormError as exc:
        return _page(
            request,
            "round.html",
            ctx | {"values": values, "errors": exc.problems, "draft": None, "notice": ""},
            status=400,
        )
    token = secrets.token_urlsafe(16)
    web.drafts = {k: v for k, v in web.drafts.items() if v["made"] > time.time() - 3600}
    web.drafts[token] = draft
    return _page(
        request,
        "round.html",
        ctx | {"values": values, "errors": [], "draft": draft | {"token": token}, "notice": ""},
    )


async def round_publish(request: Request) -> Response:
    web: _Web = request.app.state.web
    form, refusal = await _change_allowed(request)
    if refusal is not None:
        return refusal
    draft = web.drafts.get(str(form.get("draft", "")))
    if draft is None:
        ctx = await _round_context(web)
        values = _round_defaults(ctx)
        return _page(
            request,
            "round.html",
            ctx
            | {
                "values": values,
                "draft": None,
                "notice": "",
                "errors": [
                    "This round's review is no longer held (the director restarted, or it "
                    "was published already): pair the round again."
                ],
            },
            status=400,
        )
    try:
        await web.call(
            web.publish,
            draft["round"],
            draft["setups"],
            players=draft.get("players"),
            byes=draft.get("bye_spread"),
        )
    except CompanionError as exc:  # RoundError, DirectorError: the broker did not take one
        ctx = await _round_context(web)
        return _page(
            request,
            "round.html",
            ctx
            | {
                "values": draft["values"],
                "draft": draft | {"token": form.get("draft")},
                "notice": "",
                "errors": [str(exc)],
            },
            status=502,
        )
    web.drafts.pop(str(form.get("draft")), None)
    return RedirectResponse(f"/round?published={draft['round']}", status_code=303)


# --- login ----------------------------------------------------------------------------------


async def login_page(request: Request) -> Response:
    nxt = request.query_params.get("next", "/")
    return _page(request, "login.html", {"next": _safe_next(nxt), "error": ""})


def _safe_next(nxt: str) -> str:
    """Where to go after logging in: a path of these pages only (never another site: no
    ``//host``, no backslash, no scheme)."""
    ok = nxt.startswith("/") and not nxt.startswith("//") and "\\" not in nxt and ":" not in nxt
    return nxt if ok else "/"


async def login(request: Request) -> Response:
    web: _Web = request.app.state.web
    form = await request.form()
    nxt = _safe_next(str(form.get("next", "/")))
    host = request.client.host if request.client else "?"
    count, until = web.failures.get(host, (0, 0.0))
    now = web.clock()
    if until > now:
        return _page(
            request,
            "login.html",
            {
                "next": nxt,
                "error": (f"Too many wrong tries: wait {math.ceil(until - now)} s and try again."),
            },
            status=429,
        )
    token = str(form.get("csrf", ""))
    if not hmac.compare_digest(token.encode(), _csrf(request).encode()):
        return _page(
            request,
            "login.html",
            {"next": nxt, "error": ("This form is out of date: try again.")},
            status=403,
        )
    secret = str(form.get("secret", "")).strip()
    role = str(form.get("role", "director"))
    if role == "director" and hmac.compare_digest(secret.encode(), web.director_password.encode()):
        web.failures.pop(host, None)
        session = _fresh_session(request)
        session["director_until"] = now + web.session_seconds
        session["viewer"] = True
        session["csrf"] = secrets.token_urlsafe(24)  # a new token for the new login
        return RedirectResponse(nxt if nxt != "/login" else "/", status_code=303)
    if (
        role == "viewer"
        and web.viewer_pin
        and hmac.compare_digest(secret.encode(), web.viewer_pin.encode())
    ):
        web.failures.pop(host, None)
        session = _fresh_session(request)
        session["viewer"] = True
        session["csrf"] = secrets.token_urlsafe(24)
        return RedirectResponse(nxt, status_code=303)
    count += 1
    web.failures[host] = (count, now + LOCKOUT_SECONDS if count >= LOCKOUT_FAILURES else 0.0)
    what = "director's password or PIN" if role == "director" else "viewer PIN"
    return _page(
        request, "login.html", {"next": nxt, "error": f"That {what} is not right."}, status=403
    )


async def logout(request: Request) -> Response:
    form = await request.form()
    if hmac.compare_digest(str(form.get("csrf", "")).encode(), _csrf(request).encode()):
        web: _Web = request.app.state.web
        web.sessions.end(request.session.get("sid"))  # every copy of the cookie is logged out
        request.session.clear()
    return RedirectResponse("/", status_code=303)


# --- the app ----------------------------------------------------------------------------------

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The pages' Content Security Policy (W3C CSP Level 3): scripts, styles, images and live
updates from these pages only, no inline script, no plugin, forms posted only here, and no other
site may frame them (clickjacking). Inline ``style`` attributes (a tile's sand bar, the board's
size) are allowed: they cannot run code."""

SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers before CSP 2
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
"""Sent with every answer (OWASP Secure Headers Project): the pages are open on a hall's
Wi-Fi, and a page's address (``/table/N``, ``?next=``) goes to no other site."""


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP answer."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(
    store,
    *,
    director_password: str,
    viewer_pin: str | None = None,
    publish=None,
    session_seconds: float = SESSION_SECONDS,
    poll_seconds: float = 0.1,
    event: str = "",
    base_url: str = "",
    secret_key: str | None = None,
    clock=time.time,
) -> Starlette:
    """The director's pages as an ASGI app (Starlette) over ``store``.

    Args:
        store: the director's :class:`companion.tournament.store.Store` (or anything with its
            methods); read and written on the app's own threads.
        director_password: the director's password or PIN (required for every change).
        viewer_pin: when given, viewing needs it too (or the director's login).
        publish: ``publish(round, setups, players=, byes=)`` publishes a round's set-ups to
            the tables and keeps them in the store with its players and byes (:func:`companion.tournament.rounds.publish_round` bound to the
            running director); None keeps them in the store only (``Store.set_round``).
        session_seconds: a director's login lapses after this many seconds without use.
        poll_seconds: how often the store is asked what changed, for the live pages.
        event: the tournament's short name, shown in the pages' titles.
        base_url: the pages' address as the tables' phones reach it (for QR codes), e.g.
            ``http://10.42.0.1:8080``.
        secret_key: signs the session cookies, which hold only a session's id (the sessions are
            kept on the server, so a restart of the director logs everyone out; default: a new
            random key).
        clock: seconds since the epoch, for the sessions' timeout and the login lock-out
            (tests inject theirs).

    Raises:
        ValueError: an empty ``director_password``.
    """
    if not director_password or not str(director_password).strip():
        raise ValueError(
            "director_password: the director's password or PIN is required "
            "(accepted: any non-empty text)"
        )
    if publish is None:

        def publish(round_no, setups, players=None, byes=None):
            store.set_round(round_no, setups, time.time(), players=players, byes=byes)

    web = _Web(
        store,
        director_password=director_password,
        viewer_pin=viewer_pin,
        publish=publish,
        session_seconds=session_seconds,
        poll_seconds=poll_seconds,
        event=event,
        base_url=base_url,
        clock=clock,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.create_task(web.hub.run())
        try:
            yield
        finally:
            web.hub.stop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            web.pool.shutdown(wait=False, cancel_futures=True)

    routes = [
        Route("/", hall),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/table/{n:int}", table_page),
        Route("/table/{n:int}/qr.png", table_qr),
        Route("/events", events),
        Route("/progress", progress),
        Route("/round", round_page, methods=["GET"]),
        Route("/round", round_preview, methods=["POST"]),
        Route("/round/publish", round_publish, methods=["POST"]),
        Route("/standings", standings),
        Route("/corrections", correct, methods=["POST"]),
        Route("/results.csv", results_csv),
        Route("/tv", tv),
        Route("/tv/panels", tv_panels),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        # compressed pages for the phones on the hall's Wi-Fi (never the event streams)
        Middleware(GZipMiddleware, minimum_size=2048),
        Middleware(
            SessionMiddleware,
            secret_key=secret_key or secrets.token_hex(32),
            session_cookie="companion_director",
            max_age=12 * 3600,
            same_site="strict",
        ),
    ]
    from companion.tournament.store import StoreError

    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        max_body_size=MAX_BODY_BYTES,
        exception_handlers={StoreError: _store_damaged},
    )
    app.state.web = web
    return app
