"""One connected client: after its `subscribe`, streams every matching source from the client's
cursors. Reading is pulled by the socket: a batch is read only while the bytes still buffered
for this client are below the high-water mark, so a slow client costs at most ~2 batches of
memory; one that stops reading for the stall timeout is cut off (it resumes from its cursor
when it reconnects), and so is one that never subscribes. Requests (`experience`, `detail`,
`tokens`, `tasks`) are answered one at a time and only while the client reads; past MAX_QUEUED_REQUEST_BYTES
of requests waiting, the client's socket is not read until they drain (as the Node relay pauses
it). Every costly step (a pass, a detail read, a row's decoding) runs in slices of about SLICE_S,
and each client's request task and stream yield between them: clients take turns, so one that
keeps asking for heavy answers delays the others by a slice, not by its whole queue.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Callable, Generator, TypeVar

from .envelope import DetailSink, EnvelopeCache, EnvelopePass, read_detail
from .points import ExperiencesBatch, PointsBatch
from .protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    as_int,
    dumps,
    envelope_frame,
    envelope_json_columns,
    js_number,
    js_slice,
    json_columns_steps,
    parse_client_message,
    points_frame,
    wire_number,
)
from .timeline import timeline_reply_steps
from .tokens import tokens_frame
from .websocket import WebSocket

# Requests a client may have waiting (bytes of their frames) before its socket is not read.
MAX_QUEUED_REQUEST_BYTES = 256 * 1024
# Work done for one client between two turns of the others.
SLICE_S = 0.01
# What a client may hold in the relay (bytes buffered for it) before it is cut off at once.
MAX_CLIENT_BYTES = 32 * 1024 * 1024
INDEX_ONLY_BUCKETS = 2

_Sliced = TypeVar("_Sliced")


async def run_sliced(steps: Generator[None, None, _Sliced]) -> _Sliced:
    """Runs a generator of work slices, letting the other clients run every SLICE_S; its result."""
    last = time.monotonic()
    while True:
        try:
            next(steps)
        except StopIteration as e:
            return e.value  # type: ignore[no-any-return]
        if time.monotonic() - last >= SLICE_S:
            await asyncio.sleep(0)
            last = time.monotonic()


class ErrorDigest:
    """A source failing on every read is reported once, then only counted."""

    def __init__(self, log: Callable[[str, str], None], summary_s: float = 60.0):
        self.log = log
        self.summary_s = summary_s
        self.failing: dict[str, list[Any]] = {}

    def fail(self, key: str, message: str) -> bool:
        t = time.monotonic()
        f = self.failing.get(key)
        if f is None:
            self.failing[key] = [message, 0, 0, t]
            self.log("warn", f"{key}: {message}")
            return True
        f[1] += 1
        f[2] += 1
        if message != f[0] or t - f[3] >= self.summary_s:
            changed = message != f[0]
            self.log("warn", f"{key}: {message if changed else f[0]} (failed {f[2]} more time(s) since the last report)")
            f[0], f[2], f[3] = message, 0, t
            return changed
        return False

    def ok(self, key: str) -> None:
        f = self.failing.pop(key, None)
        if f is not None:
            self.log("info", f"{key}: recovered after {f[1] + 1} failed attempt(s)")


class Session:
    def __init__(self, sid: int, ws: WebSocket, relay: Any):
        self.id = sid
        self.ws = ws
        self.relay = relay
        self.opts = relay.opts
        self.readers: dict[str, Any] = {}
        self.subscribed: dict[str, Any] | None = None
        self.known: set[str] = set()
        self.waiting: list[Any] = []  # event files whose envelope goes first
        self.pumping = False
        self.again = False
        self.caught_up = False
        self.closed = False
        self.alive = True
        self.sent = 0
        self.requests: asyncio.Queue[tuple[dict[str, Any], int]] = asyncio.Queue()
        self.request_bytes = 0
        self.room = asyncio.Event()
        self.room.set()
        self.stall_handle: asyncio.TimerHandle | None = None
        self.tasks: list[asyncio.Task] = []
        ws.on_pong = self._pong
        loop = asyncio.get_event_loop()
        self.tasks.append(loop.create_task(self._answer_requests()))
        # A client that never subscribes holds a connection for nothing: cut it after the stall timeout.
        self.subscribe_timer = loop.call_later(self.opts.stall_s, self._never_subscribed)

    def _pong(self) -> None:
        self.alive = True

    def _never_subscribed(self) -> None:
        if self.subscribed is None and not self.closed:
            self._cut("no-subscription", f"sent no subscription within {js_number(self.opts.stall_s * 1000)} ms")

    def _cut(self, code: str, why: str) -> None:
        """Ends the connection: says why (if the client still reads), logs it."""
        if self.closed or self.ws.closed:
            return
        self.relay.log("warn", f"relay: client {self.id} {why}: disconnecting it")
        self.ws.send(dumps({"type": "error", "code": code, "message": f"disconnected: this client {why}"}), False)
        self.ws.terminate()

    # ---- sending -----------------------------------------------------------------------

    def send(self, msg: Any) -> None:
        self.send_bytes(dumps(msg), False)

    def send_bytes(self, data: bytes, binary: bool) -> None:
        if self.closed or self.ws.closed:
            return
        self.ws.send(data, binary)
        self.sent += len(data)
        buffered = self.ws.buffered
        if buffered > MAX_CLIENT_BYTES:
            self._cut("slow-client", f"holds {buffered} bytes in the relay (cap {MAX_CLIENT_BYTES})")
        elif buffered >= self.opts.high_water:
            self._arm_stall()

    def _arm_stall(self) -> None:
        if self.stall_handle is None:
            mark = self.sent - self.ws.buffered
            self.stall_handle = asyncio.get_event_loop().call_later(self.opts.stall_s, self._stalled, mark)

    def _stalled(self, mark: int) -> None:
        self.stall_handle = None
        if self.closed or self.ws.closed:
            return
        buffered = self.ws.buffered
        if buffered < self.opts.high_water:
            return
        if self.sent - buffered > mark:
            self._arm_stall()  # it read meanwhile: a slow client, not a stopped one
            return
        self._cut("slow-client", f"stopped reading ({buffered} bytes held for {js_number(self.opts.stall_s * 1000)} ms)")

    async def _writable(self) -> bool:
        """Waits until the client has read its backlog below the high-water mark."""
        while not self.closed and not self.ws.closed and self.ws.buffered >= self.opts.high_water:
            self._arm_stall()
            try:
                await asyncio.wait_for(self.ws.writer.drain(), self.opts.stall_s)
            except (asyncio.TimeoutError, ConnectionError, RuntimeError):
                await asyncio.sleep(0.05)
        return not self.closed and not self.ws.closed

    # ---- receiving ---------------------------------------------------------------------

    def on_message(self, binary: bool, data: bytes) -> None:
        try:
            if binary:
                raise ProtocolError("binary frames are not part of the protocol")
            msg = parse_client_message(data.decode("utf-8"))
        except ProtocolError as e:
            self.send({"type": "error", "code": "bad-message", "message": str(e)})
            return
        if msg["type"] in ("experience", "detail", "tokens", "tasks", "timeline"):
            self.requests.put_nowait((msg, len(data)))
            self.request_bytes += len(data)
            if self.request_bytes > MAX_QUEUED_REQUEST_BYTES:
                self.room.clear()
            return
        if as_int(msg["protocol"]) != PROTOCOL_VERSION:
            self.send(
                {"type": "error", "code": "unsupported-version", "message": f"this relay speaks protocol {PROTOCOL_VERSION}, not {as_int(msg['protocol'])}"}
            )
            self.ws.close(4000, "unsupported protocol version")
            return
        self._close_readers()
        self.subscribed = msg
        self.known.clear()
        self.waiting.clear()
        self.wake()

    def _wants(self, info: dict[str, Any]) -> bool:
        s = self.subscribed
        if s is None:
            return False
        runs = s.get("runs")
        if runs is not None and info["run"] not in runs:
            return False
        return not (info["kind"] in ("sql", "jsonl") and s.get("experiences") is False)

    def _refresh_readers(self) -> None:
        cursors = {c["source"]: c for c in (self.subscribed or {}).get("cursors", [])}
        env = (self.subscribed or {}).get("envelope")
        for src in self.relay.sources():
            sid = src.info["id"]
            if sid in self.known:
                continue
            self.known.add(sid)
            if not self._wants(src.info):
                continue
            if env and src.kind == "tfevents" and sid not in cursors and _size(src.path) >= int(env.get("minBytes", 0)):
                self.waiting.append(src)
            else:
                self.readers[sid] = self.relay.feed(src, cursors.get(sid))

    def wake(self) -> None:
        """New data may be available (a file changed, a source appeared)."""
        if self.closed or self.subscribed is None:
            return
        if self.pumping:
            self.again = True
            return
        self.pumping = True
        self.tasks.append(asyncio.get_event_loop().create_task(self._pump()))
        self.tasks = [t for t in self.tasks if not t.done()]

    async def _pump(self) -> None:
        try:
            while True:
                self.again = False
                self._refresh_readers()
                sub = self.subscribed
                await self._envelopes(sub)
                progressed = True
                failed: set[str] = set()
                while progressed and not self.closed:
                    progressed = False
                    for sid, reader in list(self.readers.items()):
                        if self.closed or self.subscribed is not sub:
                            return
                        if sid in failed:
                            continue
                        if self.ws.buffered >= self.opts.high_water:
                            self._arm_stall()
                            if not await self._writable():
                                return
                        try:
                            batch = reader.next(self.opts.batch_bytes)
                        except Exception as e:  # noqa: BLE001 (a failing source must not end the session)
                            failed.add(sid)
                            message = str(e) or type(e).__name__
                            if self.relay.errors.fail(f"relay: source {sid}", message):
                                self.send({"type": "error", "code": "source-error", "message": message, "source": sid})
                            continue
                        self.relay.errors.ok(f"relay: source {sid}")
                        if batch is not None and not self.closed:
                            self._send_batch(reader, batch)
                            progressed = True
                            await asyncio.sleep(0)
                if not self.again or self.closed:
                    break
            if not self.closed and not self.caught_up:
                self.caught_up = True
                self.send({"type": "heartbeat", "time": int(time.time() * 1000), "caughtUp": True})
        finally:
            self.pumping = False

    def _send_batch(self, reader: Any, batch: Any) -> None:
        info = reader.info
        if isinstance(batch, bytes):  # a shared, already serialized batch
            self.send_bytes(batch, True)
        elif isinstance(batch, PointsBatch):
            self.send_bytes(points_frame(info["id"], info["run"], info["role"], batch.series, batch.cursor), True)
        elif isinstance(batch, ExperiencesBatch):
            self.send({"type": "experiences", "source": info["id"], "run": info["run"], "rows": batch.rows, "cursor": batch.cursor})

    async def _envelopes(self, sub: dict[str, Any] | None) -> None:
        """Sends the envelope of each waiting event file, then opens its live stream after it."""
        env = (sub or {}).get("envelope")
        while self.waiting and env and self.subscribed is sub and not self.closed:
            src = self.waiting.pop(0)
            sid = src.info["id"]
            cursor = None
            try:
                p = await self.relay.envelope(sid, src.path, int(env["buckets"]))
                if self.subscribed is not sub or self.closed:
                    return
                cursor = p.cursor(sid) if p.tags else None
                await self._send_envelopes(src.info, p)
            except Exception as e:  # noqa: BLE001 (a failing source must not end the session)
                message = str(e) or type(e).__name__
                if self.relay.errors.fail(f"relay: source {sid}", message):
                    self.send({"type": "error", "code": "source-error", "message": message, "source": sid})
            # Without an envelope (no scalars yet, a failed read) the source streams from its start.
            self.readers[sid] = self.relay.feed(src, cursor)

    async def _send_envelopes(self, info: dict[str, Any], p: EnvelopePass) -> None:
        cursor = p.cursor(info["id"])
        for tag, b in list(p.tags.items()):
            if not await self._writable():
                return
            width, cols = b.arrays()
            header = {"type": "envelope", "source": info["id"], "run": info["run"], "role": info["role"], "tag": tag, "points": b.points, "cursor": cursor}
            self.send_bytes(envelope_frame(header, width, cols), True)

    # ---- requests ------------------------------------------------------------------------

    async def admitted(self) -> None:
        """Returns once the client may send more (its waiting requests are below the bound)."""
        while not self.room.is_set() and not self.closed:
            await self.room.wait()

    async def _answer_requests(self) -> None:
        while not self.closed:
            m, size = await self.requests.get()
            self.request_bytes -= size
            if self.request_bytes <= MAX_QUEUED_REQUEST_BYTES // 2:
                self.room.set()
            if not await self._writable():
                return
            if m["type"] == "tokens":
                await self._tokens(m)
                continue
            if m["type"] == "tasks":
                self.send(await self._tasks(m))
                continue
            if m["type"] == "timeline":
                self.send(await self._timeline(m))
                continue
            try:
                answer = await (self._experience(m) if m["type"] == "experience" else self._detail(m))
            except Exception as e:  # noqa: BLE001 (any failure is the answer)
                answer = {
                    "type": m["type"] if m["type"] == "detail" else "experience-detail",
                    "request": m["request"],
                    "source": m["source"],
                    "error": self._said(e),
                }
            if isinstance(answer, bytes):
                self.send_bytes(answer, False)
            else:
                self.send(answer)

    async def _experience(self, m: dict[str, Any]) -> dict[str, Any]:
        base = {"type": "experience-detail", "request": as_int(m["request"]), "source": m["source"], "id": as_int(m["id"])}
        src = self.relay.source(m["source"])
        if src is None or not hasattr(src, "read_detail"):
            return {**base, "error": f"no SQL source '{js_slice(m['source'], 200)}'"}
        try:
            steps = getattr(src, "detail_steps", None)
            return {**base, "detail": await run_sliced(steps(as_int(m["id"]))) if steps else src.read_detail(as_int(m["id"]))}
        except Exception as e:  # noqa: BLE001 (any failure is the answer)
            return {**base, "error": self._said(e)}

    async def _tasks(self, m: dict[str, Any]) -> dict[str, Any]:
        """An experience source's tasks table, folded by the relay (tasks.py) and shared by its clients."""
        base = {"type": "tasks", "request": as_int(m["request"]), "source": m["source"]}
        src = self.relay.source(m["source"])
        if src is None:
            return {**base, "error": f"no experience source '{js_slice(m['source'], 200)}'"}
        try:
            return {**base, "table": await self.relay.task_tables.table(src)}
        except Exception as e:  # noqa: BLE001 (any failure is the answer)
            return {**base, "error": js_slice(self._said(e), 1000)}

    async def _timeline(self, m: dict[str, Any]) -> dict[str, Any]:
        """A window of the run's Ray timeline (timeline.py), or why not."""
        try:
            o = self.relay.opts
            return await run_sliced(timeline_reply_steps(self.relay.timelines, o.mode, o.dir, o.run, m))
        except Exception as e:  # noqa: BLE001 (any failure is the answer)
            return {"type": "timeline", "request": as_int(m["request"]), "error": js_slice(self._said(e), 1000)}

    def _said(self, e: BaseException) -> str:
        """What a client is told of a failed request: the relay's own messages (RuntimeError,
        ValueError such as RowDecodeError, OSError) as they are; for anything else (a bug, a
        decoder's KeyError) not Python's raw text but one line naming the error, logged here."""
        if isinstance(e, (RuntimeError, ValueError, OSError)) and not isinstance(e, (RecursionError, UnicodeError)):
            return str(e) or type(e).__name__
        self.relay.log("warn", f"relay: client {self.id}: a request failed: {type(e).__name__}: {str(e)[:300]}")
        return f"the relay could not read this ({type(e).__name__})"

    async def _tokens(self, m: dict[str, Any]) -> None:
        """One row's tokens: a binary tokens frame, or a JSON `tokens` error."""
        base = {"type": "tokens", "request": as_int(m["request"]), "source": m["source"], "id": as_int(m["id"])}
        src = self.relay.source(m["source"])
        if src is None or not hasattr(src, "read_tokens"):
            self.send({**base, "error": f"no experience source '{js_slice(m['source'], 200)}'"})
            return
        try:
            steps = getattr(src, "tokens_steps", None)
            header, arrays = await run_sliced(steps(as_int(m["id"]))) if steps else src.read_tokens(as_int(m["id"]))
            frame = tokens_frame({**base, **header}, arrays)
        except Exception as e:  # noqa: BLE001 (any failure is the answer)
            self.send({**base, "error": js_slice(self._said(e), 1000)})
            return
        self.send_bytes(frame, True)

    async def _detail(self, m: dict[str, Any]) -> dict[str, Any] | bytes:
        base = {"type": "detail", "request": as_int(m["request"]), "source": m["source"], "tag": m["tag"], "from": m["from"], "to": m["to"]}
        src = self.relay.source(m["source"])
        if src is None or src.kind != "tfevents":
            return {**base, "error": f"no event file '{js_slice(m['source'], 200)}'"}
        cache: EnvelopeCache = self.relay.envelopes
        cursor = m["cursor"]
        fid = cursor.get("fid")
        try:
            p = cache.indexed(m["source"], fid)
            # Dropped from the cache (memory bound): index the file again.
            if p is None or p.offset < cursor["offset"]:
                p = await self.relay.envelope(m["source"], src.path, INDEX_ONLY_BUCKETS)
            if p.fid != fid:
                return {**base, "error": "the event file was replaced since its envelope"}
            regions = p.index.regions(m["from"], m["to"], cursor["offset"])
            sink = DetailSink(m["tag"], m["from"], m["to"], as_int(m["maxPoints"]))
            await run_sliced(read_detail(src.path, regions, sink))
        except Exception as e:  # noqa: BLE001 (any failure is the answer)
            return {**base, "error": self._said(e)}
        if sink.envelope is not None:
            width, cols = sink.envelope.arrays()
            return {**base, "envelope": envelope_json_columns(width, cols)}
        # Serialized here, in slices: a 100 k-point answer takes CPython most of a second to print.
        return await run_sliced(json_columns_steps(base, "points", {"step": sink.step, "wallTime": sink.wall, "value": [wire_number(v) for v in sink.value]}))

    # ---- life --------------------------------------------------------------------------------

    def announce(self, infos: list[dict[str, Any]]) -> None:
        if self.ws.buffered < self.opts.high_water * 2:
            self.send({"type": "sources", "sources": infos})

    def heartbeat(self) -> None:
        if not self.alive:
            self.relay.log("info", f"relay: client {self.id} missed a heartbeat: disconnecting it")
            self.ws.terminate()
            return
        self.alive = False
        self.ws.ping()
        if self.ws.buffered < self.opts.high_water:
            self.send({"type": "heartbeat", "time": int(time.time() * 1000), "caughtUp": self.caught_up})

    def _close_readers(self) -> None:
        for r in self.readers.values():
            r.close()
        self.readers.clear()

    def close(self) -> None:
        self.closed = True
        self.subscribe_timer.cancel()
        if self.stall_handle is not None:
            self.stall_handle.cancel()
        self._close_readers()
        self.room.set()
        for t in self.tasks:
            t.cancel()


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
