"""Who may open a relay WebSocket: checked on the HTTP upgrade, before any WebSocket exists.

The token travels only in `Authorization: Bearer`; anything in the URL that looks like a
credential is refused (so it never lands in proxy or shell history), tokens are compared in
constant time and never logged, and browsers are kept out by the Origin check.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from urllib.parse import unquote

from .websocket import HttpRequest

# A credential-looking name followed by '=' or ':' anywhere in the path or the query, after
# percent-decoding: `?token=`, `?a=1;token=`, `?%74oken=`, `?bearer=`, `/token=…`.
_CREDENTIAL_IN_URL = re.compile(
    r"(?:^|[^a-z0-9])(token|access[_-]?token|auth|authorization|bearer|key|api[_-]?key|apikey|password|passwd|secret|credentials?)\s*[=:]",
)
_BEARER = re.compile(r"^Bearer\s+(\S+)\s*$", re.IGNORECASE)


class TokenFileError(Exception):
    pass


def secret_equals(a: str, b: str) -> bool:
    """Constant-time equality (both hashed first, so lengths do not leak)."""
    ha = hashlib.sha256(a.encode("utf-8")).digest()
    hb = hashlib.sha256(b.encode("utf-8")).digest()
    return hmac.compare_digest(ha, hb)


def check_token_text(token: str, where: str) -> str:
    """A token is one word: a value no `Authorization: Bearer` header could ever match is refused."""
    if any(c.isspace() for c in token):
        raise TokenFileError(f"{where} holds more than one word: a token is a single word (e.g. openssl rand -hex 32)")
    return token


def read_token(path: str) -> str:
    """The token of a token file: its one non-empty line, trimmed."""
    with open(path, "r", encoding="utf-8") as f:
        text = f.read(64 * 1024 + 1)
    if len(text) > 64 * 1024:
        raise TokenFileError(f"token file {path} is too large")
    lines = [ln.strip() for ln in re.split(r"\r?\n", text) if ln.strip()]
    if not lines:
        raise TokenFileError(f"token file {path} is empty")
    if len(lines) > 1:
        raise TokenFileError(f"token file {path} holds {len(lines)} lines: a token file holds one token")
    return check_token_text(lines[0], f"token file {path}")


def credential_in_url(target: str) -> bool:
    text = target
    for _ in range(3):  # %2574oken decodes twice
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return bool(_CREDENTIAL_IN_URL.search(text.lower()))


def check_upgrade(req: HttpRequest, token: str | None, allow_origins: list[str]) -> tuple[bool, int, str]:
    """(ok, status, reason) of an upgrade request; the reason never contains a credential."""
    if credential_in_url(req.target):
        return False, 400, "credentials in the URL are refused: send them in the Authorization header"
    origin = req.headers.get("origin")
    if origin is not None and origin not in allow_origins:
        return False, 403, "origin not allowed"
    if token is None:
        return True, 0, ""
    m = _BEARER.match(req.headers.get("authorization", ""))
    if not m:
        return False, 401, "missing bearer token"
    if not secret_equals(m.group(1), token):
        return False, 401, "invalid token"
    return True, 0, ""


def is_loopback_host(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost."""
    h = host.strip("[]").lower()
    return h in ("localhost", "::1", "::ffff:127.0.0.1") or bool(re.match(r"^127\.\d+\.\d+\.\d+$", h))
