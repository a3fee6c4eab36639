"""A WebSocket server endpoint (RFC 6455) over asyncio streams, written out because nothing
may be installed on the node: the HTTP upgrade, masked client frames, fragmentation, control
frames, and a writer whose buffered bytes are the session's flow control.

Refusals and handshake errors are answered the way the Node relay (the `ws` package behind
`http.Server`) answers them, so clients see the same statuses and bodies.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import struct

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_KEY_RE = re.compile(r"^[+/0-9A-Za-z]{22}==$")
_TOKEN_RE = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
MAX_HEAD_BYTES = 16 * 1024

STATUS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    405: "Method Not Allowed",
    426: "Upgrade Required",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10


class HttpRequest:
    """The request line and headers of an upgrade request (header names lower-cased)."""

    def __init__(self, method: str, target: str, headers: dict[str, str]):
        self.method = method
        self.target = target
        self.headers = headers

    @property
    def wants_upgrade(self) -> bool:
        """What makes Node's http.Server emit 'upgrade' rather than 'request'."""
        conn = self.headers.get("connection", "").lower()
        return "upgrade" in self.headers and "upgrade" in [t.strip() for t in conn.split(",")]


async def read_request(reader: asyncio.StreamReader, timeout: float) -> HttpRequest | None:
    """Reads one HTTP request head; None when the peer sent no valid one in time."""
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return None
    lines = head[:-4].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            return None
        key = name.lower()
        value = value.strip()
        # Node joins repeated headers with ", " (set-cookie aside); a repeated authorization is dropped.
        if key in headers:
            if key in ("authorization", "origin", "host", "upgrade", "sec-websocket-key", "sec-websocket-version"):
                continue
            headers[key] = f"{headers[key]}, {value}"
        else:
            headers[key] = value
    return HttpRequest(parts[0], parts[1], headers)


def http_response(status: int, body: str, content_type: str = "text/plain", length: bool = False, extra: dict[str, str] | None = None) -> bytes:
    head = [f"HTTP/1.1 {status} {STATUS.get(status, 'Error')}", "Connection: close", f"Content-Type: {content_type}"]
    data = body.encode("utf-8")
    if length:
        head.append(f"Content-Length: {len(data)}")
    for k, v in (extra or {}).items():
        head.append(f"{k}: {v}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data


def handshake_error(req: HttpRequest) -> tuple[int, str, dict[str, str]] | None:
    """What `ws` refuses in an upgrade request (status, body, extra headers); None when valid."""
    if req.method != "GET":
        return 405, "Invalid HTTP method", {}
    if req.headers.get("upgrade", "").lower() != "websocket":
        return 400, "Invalid Upgrade header", {}
    if not _KEY_RE.match(req.headers.get("sec-websocket-key", "")):
        return 400, "Missing or invalid Sec-WebSocket-Key header", {}
    if req.headers.get("sec-websocket-version", "").strip() not in ("13", "8"):
        return 400, "Missing or invalid Sec-WebSocket-Version header", {"Sec-WebSocket-Version": "13, 8"}
    if offered_protocols(req) is None:
        return 400, "Invalid Sec-WebSocket-Protocol header", {}
    return None


def offered_protocols(req: HttpRequest) -> list[str] | None:
    """The subprotocols the client offers; None when the header is malformed."""
    raw = req.headers.get("sec-websocket-protocol")
    if raw is None:
        return []
    out = [p.strip() for p in raw.split(",")]
    if not all(_TOKEN_RE.match(p) for p in out) or len(set(out)) != len(out):
        return None
    return out


def accept_response(req: HttpRequest, protocol: str | None) -> bytes:
    key = req.headers["sec-websocket-key"].encode("ascii")
    accept = base64.b64encode(hashlib.sha1(key + _GUID).digest()).decode("ascii")
    lines = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Accept: {accept}"]
    if protocol:
        lines.append(f"Sec-WebSocket-Protocol: {protocol}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class CloseConnection(Exception):
    """The peer broke the protocol: close with this code and reason."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _unmask(payload: bytes, mask: bytes) -> bytes:
    if not payload:
        return payload
    n = len(payload)
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "little")
    return (int.from_bytes(payload, "little") ^ key).to_bytes(n, "little")


def encode_frame(opcode: int, payload: bytes) -> bytes:
    """A final, unmasked server frame."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    return head + payload


class WebSocket:
    """One accepted connection: reads messages, sends frames, tracks what is still buffered."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_payload: int):
        self.reader = reader
        self.writer = writer
        self.max_payload = max_payload
        self.closed = False
        self.on_pong = lambda: None

    @property
    def buffered(self) -> int:
        """Bytes handed to the socket but not yet written out (the client's backlog)."""
        transport = self.writer.transport
        return 0 if transport.is_closing() else transport.get_write_buffer_size()

    def send(self, data: bytes, binary: bool) -> None:
        if not self.closed:
            self.writer.write(encode_frame(OP_BINARY if binary else OP_TEXT, data))

    def ping(self) -> None:
        if not self.closed:
            self.writer.write(encode_frame(OP_PING, b""))

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Sends a close frame and ends the connection once it is written."""
        if self.closed:
            return
        self.closed = True
        try:
            self.writer.write(encode_frame(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[:123]))
            self.writer.close()
        except (ConnectionError, RuntimeError):
            self.terminate()

    def terminate(self) -> None:
        """Drops the connection at once (what `ws.terminate()` does)."""
        self.closed = True
        transport = self.writer.transport
        if not transport.is_closing():
            transport.abort()

    async def _read_frame(self) -> tuple[bool, int, bytes]:
        b0, b1 = await self.reader.readexactly(2)
        fin, rsv, opcode = b0 & 0x80, b0 & 0x70, b0 & 0x0F
        if rsv:
            raise CloseConnection(1002, "RSV1 must be clear" if rsv & 0x40 else "RSV2 and RSV3 must be clear")
        if not b1 & 0x80:
            raise CloseConnection(1002, "MASK must be set")
        n = b1 & 0x7F
        if opcode >= 8 and (not fin or n > 125):
            raise CloseConnection(1002, "invalid control frame")
        if opcode not in (OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG):
            raise CloseConnection(1002, f"Invalid opcode {opcode}")
        if n == 126:
            (n,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", await self.reader.readexactly(8))
        if n > self.max_payload:
            raise CloseConnection(1009, "Max payload size exceeded")
        mask = await self.reader.readexactly(4)
        return bool(fin), opcode, _unmask(await self.reader.readexactly(n), mask)

    async def messages(self):
        """Yields (is_binary, payload) per data message; answers pings; ends at close or EOF."""
        parts: list[bytes] = []
        kind: int | None = None
        size = 0
        try:
            while not self.closed:
                fin, opcode, payload = await self._read_frame()
                if opcode == OP_PING:
                    self.writer.write(encode_frame(OP_PONG, payload))
                    continue
                if opcode == OP_PONG:
                    self.on_pong()
                    continue
                if opcode == OP_CLOSE:
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1000
                    self.close(code if code in (1000, 1001) or 3000 <= code < 5000 else 1000)
                    return
                if opcode == OP_CONT:
                    if kind is None:
                        raise CloseConnection(1002, "invalid opcode 0")
                elif kind is not None:
                    raise CloseConnection(1002, f"invalid opcode {opcode}")
                else:
                    kind = opcode
                size += len(payload)
                if size > self.max_payload:
                    raise CloseConnection(1009, "Max payload size exceeded")
                parts.append(payload)
                if not fin:
                    continue
                data = b"".join(parts)
                binary = kind == OP_BINARY
                parts, kind, size = [], None, 0
                if not binary:
                    try:
                        data.decode("utf-8")
                    except UnicodeDecodeError:
                        raise CloseConnection(1007, "invalid UTF-8 sequence") from None
                yield binary, data
        except CloseConnection as e:
            self.close(e.code, e.reason)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            self.terminate()
