"""Live updates for the open pages: one poller over the store, fanned out to every page.

The director's store counts its changes (``Store.version()``) and says which tables changed since
a version (``Store.changed_since(v) -> (new_version, [table numbers])``). The :class:`Hub` asks it
every ``interval`` seconds (0.1 s by default) on the store's own thread, renders each changed
table's hall tile (and, for the table pages open on it, the table's page) once, and hands the
fragments to every open page's :class:`Subscriber`. A subscriber keeps only the newest fragment
of each table until its page has taken it, so a slow page (a phone on a weak signal) never
builds a backlog and never holds up the others: it gets the newest state when it catches up.
Pages receive the fragments as server-sent events (``text/event-stream``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

KEEPALIVE_SECONDS = 15.0


@dataclass(eq=False)
class Subscriber:
    """One open page: the hall (``table`` None) or one table's page (``table`` N)."""

    table: int | None = None
    pending: dict = field(default_factory=dict)
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def offer(self, message: dict) -> None:
        """Merge ``message`` (``{"tiles": {n: html}, "detail": html, "progress": ...}``) into
        what the page has not taken yet: newer fragments replace older ones."""
        tiles = message.get("tiles")
        if tiles:
            self.pending.setdefault("tiles", {}).update(tiles)
        for key in ("detail", "progress"):
            if key in message:
                self.pending[key] = message[key]
        self.wake.set()

    def take(self) -> dict:
        """What is pending, emptied."""
        out, self.pending = self.pending, {}
        self.wake.clear()
        return out


class Hub:
    """The poller and its subscribers.

    Args:
        call: runs a function on the store's thread: ``await call(fn, *args)``.
        store: the director's store (``changed_since``, ``tables``, ``table``).
        render: ``await render(changed, rows, details) -> {"tiles": {n: html}, "progress":
            {...}, "details": {n: html}}`` (``rows`` are the changed tables' rows of
            ``Store.tables()``, ``details`` the ``Store.table(n)`` of the changed tables a page
            is open on).
        interval: seconds between two polls.
    """

    def __init__(self, call: Callable[..., Awaitable], store, render, interval: float = 0.1):
        self.call, self.store, self.render, self.interval = call, store, render, interval
        self.subscribers: set[Subscriber] = set()
        self.version: int | None = None
        self.polls = 0
        self.stopping = False

    def stop(self) -> None:
        """End every stream (the server is shutting down)."""
        self.stopping = True
        for sub in list(self.subscribers):
            sub.wake.set()

    def subscribe(self, table: int | None = None) -> Subscriber:
        sub = Subscriber(table=table)
        self.subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)

    async def run(self) -> None:
        """Poll until cancelled; a store error is retried at the next poll (a page never
        stops updating because the store was busy once)."""
        if self.version is None:
            self.version = await self.call(self.store.version)
        while not self.stopping:
            await asyncio.sleep(self.interval)
            try:
                await self.poll()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store is busy or was replaced: try again
                self.last_error = f"{type(exc).__name__}: {exc}"

    async def poll(self) -> None:
        """One poll: fetch what changed and offer it to the subscribers."""
        self.polls += 1
        version, changed = await self.call(self.store.changed_since, self.version)
        if not changed or not self.subscribers:
            self.version = version
            return
        wanted = {int(n) for n in changed}
        rows = [r for r in await self.call(self.store.tables) if r.get("table") in wanted]
        open_on = {s.table for s in self.subscribers if s.table is not None} & wanted
        details = {}
        for n in sorted(open_on):
            details[n] = await self.call(self.store.table, n)
        out = await self.render(sorted(wanted), rows, details)
        hall = {"tiles": out.get("tiles", {}), "progress": out.get("progress")}
        for sub in list(self.subscribers):
            if sub.table is None:
                sub.offer(hall)
            elif sub.table in out.get("details", {}):
                sub.offer({"detail": out["details"][sub.table]})
        self.version = version  # only now: a poll that failed is done again by the next

    async def stream(self, sub: Subscriber, first: dict | None = None):
        """The server-sent events of one page: ``event: update`` with JSON ``{"now": epoch
        seconds, "tiles"?, "detail"?, "progress"?}``, a comment line every 15 s to keep the
        connection open."""
        try:
            yield "retry: 1000\n\n"
            if first:
                sub.offer(first)
            while not self.stopping:
                try:
                    await asyncio.wait_for(sub.wake.wait(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield ": keepalive\n\n"
                    continue
                message = sub.take()
                message["now"] = time.time()
                yield "event: update\ndata: " + json.dumps(message, separators=(",", ":")) + "\n\n"
        finally:
            self.unsubscribe(sub)
