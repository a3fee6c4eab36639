"""The relay server: serves authenticated WebSocket clients the sources its catalog discovers
under its root, and notices change by stat (directory and file sizes, times, identities) every
few tens of milliseconds, which works alike on local disks and network filesystems.
Read-only: clients can only name sources the relay found itself."""

from __future__ import annotations

import asyncio
import os
import secrets
import ssl
import sys
import time
from typing import Any, Callable

from . import __version__
from .auth import check_upgrade
from .catalog import Catalog
from .decodecache import DecodeCache
from .envelope import EnvelopeCache, EnvelopePass
from .protocol import MAX_CLIENT_FRAME_BYTES, PROTOCOL_VERSION, SUBPROTOCOL
from .session import ErrorDigest, Session, run_sliced
from .tasks import TaskCache
from .timeline import TimelineCache
from .websocket import (
    WebSocket,
    accept_response,
    handshake_error,
    http_response,
    offered_protocols,
    read_request,
)

WATCH_S = 0.04
MAX_WATCHED = 512


class Options:
    def __init__(self, **kw: Any):
        self.mode: str = kw["mode"]
        self.dir: str = kw["dir"]
        self.run: str | None = kw.get("run")
        self.host: str = kw.get("host", "127.0.0.1")
        self.port: int = kw.get("port", 8765)
        self.token: str | None = kw.get("token")
        self.tls: tuple[str, str] | None = kw.get("tls")
        self.allow_origins: list[str] = kw.get("allow_origins", [])
        self.max_clients: int = kw.get("max_clients", 32)
        self.heartbeat_s: float = kw.get("heartbeat_s", 10.0)
        self.poll_s: float = kw.get("poll_s", 1.0)
        self.stall_s: float = kw.get("stall_s", 30.0)
        self.high_water: int = kw.get("high_water", 1024 * 1024)
        self.batch_bytes: int = kw.get("batch_bytes", 256 * 1024)
        self.decode_cache_bytes: int = kw.get("decode_cache_bytes", 64 * 1024 * 1024)
        self.exit_when_idle_s: float | None = kw.get("exit_when_idle_s")
        self.verbose: bool = kw.get("verbose", False)


def stderr_log(verbose: bool) -> Callable[[str, str], None]:
    def log(level: str, message: str) -> None:
        if level in ("debug", "trace") and not verbose:
            return
        try:
            sys.stderr.write(f"[{level}] {message}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    return log


class Relay:
    def __init__(self, opts: Options, log: Callable[[str, str], None] | None = None):
        self.opts = opts
        self.log = log or stderr_log(opts.verbose)
        self.instance = secrets.token_hex(8)
        self.errors = ErrorDigest(self.log)
        self.envelopes = EnvelopeCache()
        self.task_tables = TaskCache()
        # Ray's timeline of the run, read into columns when first asked (timeline.py)
        self.timelines = TimelineCache()
        self.decode_cache = DecodeCache(opts.decode_cache_bytes)
        self._passes: dict[int, asyncio.Future[None]] = {}
        self.sessions: dict[int, Session] = {}
        self.next_id = 1
        self.closed = False
        self.server: asyncio.AbstractServer | None = None
        self.tasks: list[asyncio.Task] = []
        self.catalog = Catalog(opts.mode, opts.dir, opts.run, self.instance, opts.poll_s, self._changed, self.log)
        self.idle_since = time.monotonic()
        self.done = asyncio.Event()
        self._signature: dict[str, Any] = {}

    # ---- sources -----------------------------------------------------------------------

    def sources(self) -> list[Any]:
        return self.catalog.list()

    def source(self, sid: str) -> Any:
        return self.catalog.sources.get(sid)

    def feed(self, src: Any, cursor: dict[str, Any] | None) -> Any:
        """What a session reads `src` from, starting at `cursor` (shared decode or its own reader)."""
        return self.decode_cache.feed(src, cursor)

    async def envelope(self, sid: str, path: str, buckets: int) -> EnvelopePass:
        """The shared pass of an event file at `buckets`, read on to the file's end (one run at a time)."""
        p = self.envelopes.get(sid, path, buckets)
        running = self._passes.get(id(p))
        if running is not None:
            await running
        else:
            fut: asyncio.Future[None] = asyncio.get_event_loop().create_future()
            self._passes[id(p)] = fut
            try:
                await run_sliced(p.advance())
            finally:
                del self._passes[id(p)]
                fut.set_result(None)
        self.envelopes.enforce(p)
        return p

    def infos(self) -> list[dict[str, Any]]:
        return [s.info for s in self.sources()]

    def _changed(self) -> None:
        self.idle_since = time.monotonic()
        for s in list(self.sessions.values()):
            s.wake()

    def _rescan(self) -> None:
        added = self.catalog.rescan()
        if added:
            self.idle_since = time.monotonic()
            infos = [s.info for s in added]
            for s in list(self.sessions.values()):
                s.announce(infos)
                s.wake()

    # ---- serving -------------------------------------------------------------------------

    async def start(self) -> str:
        self._rescan()
        ctx = None
        if self.opts.tls:
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(self.opts.tls[0], self.opts.tls[1])
        self.server = await asyncio.start_server(self._connection, self.opts.host, self.opts.port, ssl=ctx, limit=MAX_CLIENT_FRAME_BYTES * 2)
        loop = asyncio.get_event_loop()
        self.tasks = [
            loop.create_task(self._every(self.opts.heartbeat_s, self._heartbeat)),
            loop.create_task(self._every(self.opts.poll_s, self._poll)),
            loop.create_task(self._watch()),
        ]
        if self.opts.exit_when_idle_s is not None:
            self.tasks.append(loop.create_task(self._watch_idle()))
        return self.url()

    def url(self) -> str:
        assert self.server is not None
        addr = self.server.sockets[0].getsockname()
        host = f"[{addr[0]}]" if ":" in addr[0] else addr[0]
        return f"{'wss' if self.opts.tls else 'ws'}://{host}:{addr[1]}/"

    async def _every(self, period: float, f: Callable[[], None]) -> None:
        while True:
            await asyncio.sleep(period)
            try:
                f()
            except Exception as e:  # noqa: BLE001 (a timer must go on)
                self.log("warn", f"relay: {e}")

    def _heartbeat(self) -> None:
        for s in list(self.sessions.values()):
            s.heartbeat()

    def _poll(self) -> None:
        self._rescan()
        for s in list(self.sessions.values()):
            s.wake()

    def _stat_signature(self) -> tuple[dict[str, Any], bool]:
        """Size / mtime / identity of the watched directories and data files; whether a directory changed."""
        sig: dict[str, Any] = {}
        dir_changed = False
        paths = list(self.catalog.dirs)
        for s in self.sources():
            paths.extend(getattr(s, "data_files", []) or [])
        for p in paths[:MAX_WATCHED]:
            try:
                st = os.stat(p)
                v: Any = (st.st_size, st.st_mtime_ns, st.st_ino)
            except OSError:
                v = None
            sig[p] = v
        for d in self.catalog.dirs[:MAX_WATCHED]:
            if self._signature.get(d) != sig.get(d):
                dir_changed = True
        return sig, dir_changed

    async def _watch(self) -> None:
        """Change detection by stat (no inotify in the standard library; works on NFS too)."""
        self._signature, _ = self._stat_signature()
        rescan_at: float | None = None
        while True:
            await asyncio.sleep(WATCH_S)
            try:
                sig, dir_changed = self._stat_signature()
            except OSError:
                continue
            if sig != self._signature:
                self._signature = sig
                self._changed()
                if dir_changed and rescan_at is None:
                    rescan_at = time.monotonic() + 0.2
            if rescan_at is not None and time.monotonic() >= rescan_at:
                rescan_at = None
                self._rescan()

    async def _watch_idle(self) -> None:
        limit = self.opts.exit_when_idle_s or 0
        period = max(0.05, min(30.0, limit / 4))
        while not self.closed:
            await asyncio.sleep(period)
            if self.sessions:
                self.idle_since = time.monotonic()
            if time.monotonic() - self.idle_since >= limit:
                self.log("info", f"relay: idle for {round(time.monotonic() - self.idle_since)} s (no client, no new data): exiting")
                self.done.set()
                return

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        addr = peer[0] if isinstance(peer, tuple) else str(peer)
        try:
            req = await read_request(reader, 10.0)
            if req is None:
                writer.close()
                return
            if not req.wants_upgrade:
                writer.write(http_response(426, "agentrl relay: connect with a WebSocket client (agentrl tail, or the Agent RL extension)\n"))
                await _end(writer)
                return

            async def refuse(status: int, reason: str) -> None:
                # The reason never contains the token: check_upgrade does not echo credentials.
                self.log("warn", f"relay: refused connection from {addr}: {status} {reason}")
                writer.write(http_response(status, f"{reason}\n"))
                await _end(writer)

            if self.closed:
                return await refuse(503, "relay is shutting down")
            if len(self.sessions) >= self.opts.max_clients:
                return await refuse(503, f"connection limit ({self.opts.max_clients}) reached")
            ok, status, reason = check_upgrade(req, self.opts.token, self.opts.allow_origins)
            if not ok:
                return await refuse(status, reason)
            bad = handshake_error(req)
            if bad:
                writer.write(http_response(bad[0], bad[1], "text/html", length=True, extra=bad[2]))
                await _end(writer)
                return
            protocol = SUBPROTOCOL if SUBPROTOCOL in (offered_protocols(req) or []) else None
            writer.write(accept_response(req, protocol))
            writer.transport.set_write_buffer_limits(high=self.opts.high_water, low=self.opts.high_water // 2)
            await self._serve(reader, writer, addr)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            writer.transport.abort()
        except Exception as e:  # noqa: BLE001 - a fault costs that one connection, said in one line, never a traceback
            self.log("error", f"relay: connection from {addr} ended by an internal error: {type(e).__name__}: {str(e)[:300]}")
            writer.transport.abort()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, addr: str) -> None:
        ws = WebSocket(reader, writer, MAX_CLIENT_FRAME_BYTES)
        sid = self.next_id
        self.next_id += 1
        session = Session(sid, ws, self)
        self.sessions[sid] = session
        self.idle_since = time.monotonic()
        self.log("info", f"relay: client {sid} connected from {addr}")
        session.send(self.hello())
        try:
            async for binary, data in ws.messages():
                session.on_message(binary, data)
                # Too many requests waiting: this client's frames stay unread until they drain.
                await session.admitted()
        finally:
            session.close()
            self.sessions.pop(sid, None)
            self.idle_since = time.monotonic()
            ws.terminate()
            self.log("info", f"relay: client {sid} disconnected")

    def hello(self) -> dict[str, Any]:
        infos = self.infos()
        return {
            "type": "hello",
            "protocol": PROTOCOL_VERSION,
            "relayVersion": __version__,
            "instance": self.instance,
            "runs": sorted({s["run"] for s in infos}),
            "roles": sorted({s["role"] for s in infos if s["role"] != ""}),
            "sources": infos,
            "heartbeatSeconds": self.opts.heartbeat_s,
        }

    async def close(self) -> None:
        self.closed = True
        for t in self.tasks:
            t.cancel()
        for s in list(self.sessions.values()):
            s.close()
            s.ws.terminate()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        self.decode_cache.close()
        self.task_tables.close()
        self.catalog.close()


async def _end(writer: asyncio.StreamWriter) -> None:
    try:
        await asyncio.wait_for(writer.drain(), 5)
        writer.close()
    except (asyncio.TimeoutError, ConnectionError, OSError):
        writer.transport.abort()
