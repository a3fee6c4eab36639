"""Who may open a relay WebSocket: checked on the HTTP upgrade, before any WebSocket exists.

The token travels only in `Authorization: Bearer`; anything in the URL that looks like a
credential is refused (so it never lands in proxy or shell history), tokens are compared in
constant time and never logged, and browsers are kept out by the Origin check.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import stat

from .websocket import HttpRequest

# Words a credential's name contains (token, access_token, api_key, passwd, x-auth, ...).
_CREDENTIAL_NAME = re.compile(r"(token|bearer|auth|key|pass|secret|credential|session|signature|jwt)")
_ORIGIN = re.compile(r"^[a-z][a-z0-9+.-]*://([^/?#]*)", re.IGNORECASE)
_ESCAPE = re.compile(r"%([0-9a-fA-F]{2})")
_NAME = re.compile(r"^\s*([^=:]*)[=:]")
URL_CREDENTIALS = "credentials in the URL are refused: send them in the Authorization header"
_BEARER = re.compile(r"^Bearer\s+(\S+)\s*$", re.IGNORECASE)


class TokenFileError(Exception):
    pass


def secret_equals(a: str, b: str) -> bool:
    """Constant-time equality (both hashed first, so lengths do not leak)."""
    ha = hashlib.sha256(a.encode("utf-8")).digest()
    hb = hashlib.sha256(b.encode("utf-8")).digest()
    return hmac.compare_digest(ha, hb)


def token_problem(token: str) -> str | None:
    """Why `token` cannot be a bearer token (empty, several words, a character a header cannot
    carry), or None."""
    if token == "":
        return "it is empty"
    if re.search(r"\s", token):
        return "it holds more than one word (a token is one word, no spaces or line breaks)"
    if not re.fullmatch(r"[\x21-\x7e]+", token):
        return "it holds characters other than printable ASCII"
    return None


# The most of a token file read: a token is one short word.
TOKEN_FILE_BYTES = 4096


def read_token(path: str) -> str:
    """The token of a token file: exactly one token (surrounding blank space, line breaks and a
    UTF-8 BOM allowed). Only a regular file, only its first TOKEN_FILE_BYTES: `/dev/zero` or a
    FIFO must not hang the start (the FIFO is opened without waiting for a writer)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise TokenFileError(f"token file {path} is not a regular file")
        data = os.pread(fd, TOKEN_FILE_BYTES + 1, 0)
    finally:
        os.close(fd)
    if len(data) > TOKEN_FILE_BYTES:
        raise TokenFileError(f"token file {path} must hold exactly one token: it is longer than {TOKEN_FILE_BYTES} bytes")
    token = data.decode("utf-8", "replace")
    token = (token[1:] if token.startswith("\ufeff") else token).strip()
    problem = token_problem(token)
    if problem:
        raise TokenFileError(f"token file {path} must hold exactly one token: {problem}")
    return token


def env_token(value: str | None) -> str | None:
    """AGENTRL_RELAY_TOKEN's value, held to the same rule as a token file; None when unset or blank."""
    token = (value or "").strip()
    if not token:
        return None
    problem = token_problem(token)
    if problem:
        raise TokenFileError(f"AGENTRL_RELAY_TOKEN must hold exactly one token: {problem}")
    return token


def _unescape_fully(s: str) -> str:
    """s with its percent-escapes decoded until none is left (a double escape hides a name once)."""
    for _ in range(4):
        nxt = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), s)
        if nxt == s:
            return s
        s = nxt
    return s


def credential_in_url(url: str, token: str | None = None) -> str | None:
    """Why a relay URL (or a request path with its query) looks like it carries a credential, or
    None. One rule for the whole URL: after unescaping, no `name=` or `name:` whose name contains a
    credential word, in any query parameter (whatever its separator: `&`, `;`, `,`, `+`, a tab)
    or path segment, no `bearer` anywhere, no user in the authority, and not the token itself."""
    origin = _ORIGIN.match(url)
    if origin and "@" in origin.group(1):
        return URL_CREDENTIALS
    unescaped = _unescape_fully(url[origin.end() :] if origin else url)
    # The token itself, whatever names it (a query value, a path segment).
    if token and token in unescaped:
        return URL_CREDENTIALS
    text = unescaped.lower()
    if "bearer" in text:
        return URL_CREDENTIALS
    # Separators: the URL's own, and those clients put between parameters (`,`, `+`, blank space).
    for part in re.split(r"[/?&;#,+\s]", text):
        name = _NAME.match(part)
        if name and _CREDENTIAL_NAME.search(name.group(1)):
            return URL_CREDENTIALS
    return None


def check_upgrade(req: HttpRequest, token: str | None, allow_origins: list[str]) -> tuple[bool, int, str]:
    """(ok, status, reason) of an upgrade request; the reason never contains a credential."""
    in_url = credential_in_url(req.target, token)
    if in_url:
        return False, 400, in_url
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
