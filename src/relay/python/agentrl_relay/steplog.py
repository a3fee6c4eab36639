"""Trinity's monitor log lines as points. Every `monitor.log(data, step)` also writes

    LEVEL MM-DD HH:MM:SS [file.py:line] Step N: {'key': value, ...}

where the dict is a Python repr (3, 0.5, nan, inf, np.float64(0.5), float('nan'), True...).
The parser follows the Node relay's (src/relay/sources/step-log.ts) character for character,
JavaScript's notion of whitespace and numbers included, so both relays read the same points.
Keys of a wandb shared run (`<role>/...`, hidden `<role>/step` axes) name per-role series.
"""

from __future__ import annotations

import math
import os
import re
import time

from .protocol import parse_json

# JavaScript's \s
_WS = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_STEP_RE = re.compile(r"Step ([0-9]+): (\{[^\n\r\u2028\u2029]*\})[" + _WS + r"]*\Z")
_STAMP_RE = re.compile(r"^[" + _WS + r"]*[A-Z]+[" + _WS + r"]+([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})")
_NUM_RE = re.compile(r"[+-]?(?:inf|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_FLOAT_CALL = re.compile(r"^(float|np\.float[0-9]*|numpy\.float[0-9]*)\Z")
_WS_SET = frozenset("\t\n\x0b\x0c\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | frozenset(chr(c) for c in range(0x2000, 0x200B))


class _Skip:
    pass


SKIP = _Skip()


class _Bad(Exception):
    pass


def js_to_number(t: str) -> float:
    """Number(t) of JavaScript for a trimmed, lower-cased string ('' is 0, hex counts, '1_0' does not)."""
    if t == "":
        return 0.0
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if t.startswith(prefix):
            try:
                return float(int(t[2:], base)) if "_" not in t and t[2:].isalnum() else float("nan")
            except ValueError:
                return float("nan")
    if t.strip("0123456789.e+-"):
        return float("nan")
    try:
        return float(t)
    except ValueError:
        return float("nan")


def py_number(text: str):
    t = text.strip(_WS_STRIP).lower()
    if re.fullmatch(r"[+-]?nan", t):
        return float("nan")
    if re.fullmatch(r"[+-]?inf(inity)?", t):
        return float("-inf") if t.startswith("-") else float("inf")
    v = js_to_number(t)
    return SKIP if math.isnan(v) else v


_WS_STRIP = "".join(sorted(_WS_SET))


class _PyRepr:
    """A small parser for the subset of Python literal repr that metric dicts use."""

    def __init__(self, s: str):
        self.s = s
        self.i = 0

    def peek(self) -> str | None:
        return self.s[self.i] if self.i < len(self.s) else None

    def ws(self) -> None:
        s, n = self.s, len(self.s)
        while self.i < n and s[self.i] in _WS_SET:
            self.i += 1

    def expect(self, c: str) -> None:
        self.ws()
        if self.peek() != c:
            raise _Bad(f"expected {c}")
        self.i += 1

    def dict(self) -> list[tuple[str, float]] | None:
        try:
            out: list[tuple[str, float]] = []
            self.expect("{")
            self.ws()
            if self.peek() == "}":
                return out
            while True:
                self.ws()
                k = self.value()
                self.ws()
                self.expect(":")
                v = self.value()
                if isinstance(k, str) and isinstance(v, float):
                    out.append((k, v))
                self.ws()
                c = self.peek()
                self.i += 1
                if c == "}":
                    return out
                if c != ",":
                    return None
                self.ws()
                if self.peek() == "}":
                    self.i += 1
                    return out
        except (_Bad, RecursionError):
            return None

    def value(self):
        self.ws()
        c = self.peek()
        if c is None:
            raise _Bad("eof")
        if c in "'\"":
            return self.string()
        if c in "{[(":
            self.skip_nested()
            return SKIP
        if c in "-+." or "0" <= c <= "9":
            return self.number()
        return self.name()

    def string(self) -> str:
        s = self.s
        q = s[self.i]
        self.i += 1
        out = []
        while self.i < len(s):
            c = s[self.i]
            self.i += 1
            if c == q:
                return "".join(out)
            if c == "\\":
                e = s[self.i] if self.i < len(s) else ""
                self.i += 1
                out.append({"n": "\n", "t": "\t", "r": "\r"}.get(e, e))
            else:
                out.append(c)
        raise _Bad("unterminated string")

    def number(self):
        m = _NUM_RE.match(self.s[self.i : self.i + 64])
        if not m:
            raise _Bad("bad number")
        self.i += len(m.group(0))
        return py_number(m.group(0))

    def name(self):
        m = _NAME_RE.match(self.s[self.i : self.i + 64])
        if not m:
            raise _Bad("bad token")
        ident = m.group(0)
        self.i += len(ident)
        self.ws()
        if self.peek() == "(":
            self.i += 1
            self.ws()
            inner = SKIP if self.peek() == ")" else self.value()
            depth = 1
            s = self.s
            while self.i < len(s) and depth > 0:
                c = s[self.i]
                self.i += 1
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                elif c in "'\"":
                    self.i -= 1
                    self.string()
            if depth > 0:
                raise _Bad("unbalanced call")
            if isinstance(inner, str):
                return py_number(inner) if _FLOAT_CALL.match(ident) else SKIP
            return inner
        if ident in ("True", "np.True_"):
            return 1.0
        if ident in ("False", "np.False_"):
            return 0.0
        if ident in ("nan", "inf"):
            return py_number(ident)
        return SKIP

    def skip_nested(self) -> None:
        depth = 0
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in "'\"":
                self.string()
                continue
            self.i += 1
            if c in "{[(":
                depth += 1
            elif c in "}])":
                depth -= 1
                if depth == 0:
                    return
        raise _Bad("unbalanced")


def parse_step_line(line: str, year: int) -> tuple[float, float | None, list[tuple[str, float]]] | None:
    """(step, wall time or None, numeric entries) of a `Step N: {...}` line; None otherwise."""
    m = _STEP_RE.search(line)
    if not m:
        return None
    values = _PyRepr(m.group(2)).dict()
    if values is None:
        return None
    s = _STAMP_RE.match(line)
    wall = None
    if s:
        mon, day, hh, mm, ss = (int(x) for x in s.groups())
        wall = float(time.mktime((year, mon, day, hh, mm, ss, 0, 0, -1)))
    return float(int(m.group(1))), wall, values


# ---- Trinity 0.6 wandb "shared run" keys --------------------------------------------------

DEFAULT_ROLES = ["explorer", "trainer"]


def load_shared_step_bindings(monitor_dir: str) -> dict[str, str]:
    """Merges every `shared_step_bindings/*.json` of a monitor dir; bad files are skipped."""
    out: dict[str, str] = {}
    d = os.path.join(monitor_dir, "shared_step_bindings")
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith(".json"))
    except OSError:
        return out
    for n in names:
        try:
            with open(os.path.join(d, n), "r", encoding="utf-8", errors="replace") as f:
                j = parse_json(f.read(1 << 20))
        except (OSError, ValueError, RecursionError):
            continue
        if isinstance(j, dict):
            for k, v in j.items():
                if isinstance(v, str):
                    out[k] = v
    return out


def shared_roles(bindings: dict[str, str] | None) -> list[str]:
    roles: list[str] = []
    for axis in (bindings or {}).values():
        if axis.endswith("/step") and axis[:-5] not in roles:
            roles.append(axis[:-5])
    return roles or DEFAULT_ROLES


def shared_run_series(key: str, fallback_role: str, bindings: dict[str, str] | None) -> tuple[str, str] | None:
    """(role, tag) of a shared-run key; None for a hidden step axis."""
    axis = (bindings or {}).get(key)
    roles = shared_roles(bindings)
    if any(key == f"{r}/step" for r in roles):
        return None
    if axis is not None and axis.endswith("/step"):
        role: str | None = axis[:-5]
    else:
        role = next((r for r in roles if key.startswith(f"{r}/")), None)
    if role and key.startswith(f"{role}/"):
        return role, key[len(role) + 1 :]
    return fallback_role, key
