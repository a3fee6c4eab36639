"""Which Python frames belong to the user's workflow, and which episode is running.

Every LLM call carries the user part of its call stack to the gateway (so a turn's frame
opens the line that made the call); printed output carries the line that printed it.
"""

from __future__ import annotations

import base64
import contextvars
import json
import os
import sys
import sysconfig
import threading
from types import FrameType, TracebackType
from typing import Literal

from agentrl_runner.channel import Channel
from agentrl_runner.protocol import OutputMsg, SourceFrame

RUNNER_DIR = os.path.normcase(os.path.dirname(os.path.abspath(__file__)))
_LIB_DIRS = tuple(
    os.path.normcase(os.path.abspath(p))
    for p in {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    if p
)

_episode: contextvars.ContextVar[str | None] = contextvars.ContextVar("agentrl_episode", default=None)
# Threads a workflow starts do not inherit contextvars: they fall back to the episode that
# is running, which is only known when exactly one is (episodes may run concurrently).
_active: list[str] = []
_active_lock = threading.Lock()


def set_episode(episode: str | None) -> None:
    """The episode of the calling thread (None: it ended)."""
    previous = _episode.get()
    _episode.set(episode)
    with _active_lock:
        if previous is not None and previous in _active:
            _active.remove(previous)
        if episode is not None:
            _active.append(episode)


def current_episode() -> str | None:
    ep = _episode.get()
    if ep:
        return ep
    with _active_lock:
        return _active[0] if len(_active) == 1 else None


def _in_runner(filename: str) -> bool:
    return os.path.normcase(os.path.abspath(filename)).startswith(RUNNER_DIR)


def is_user_file(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    path = os.path.normcase(os.path.abspath(filename))
    if path.startswith(RUNNER_DIR) or "site-packages" in path or "dist-packages" in path:
        return False
    return not path.startswith(_LIB_DIRS)


def user_stack(limit: int = 16, frame: FrameType | None = None) -> list[SourceFrame]:
    """User frames of the current call stack, innermost first."""
    out: list[SourceFrame] = []
    f = frame or sys._getframe(1)
    while f is not None and len(out) < limit:
        code = f.f_code
        if is_user_file(code.co_filename):
            out.append({"path": os.path.abspath(code.co_filename), "line": f.f_lineno, "name": code.co_name})
        f = f.f_back
    return out


def stack_header(frames: list[SourceFrame]) -> str:
    return base64.b64encode(json.dumps(frames).encode("utf-8")).decode("ascii")


def traceback_frames(tb: TracebackType | None) -> list[SourceFrame]:
    """The frames of a traceback outside the runner, innermost first, for clickable output."""
    frames: list[SourceFrame] = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if not _in_runner(code.co_filename):
            frames.append(
                {
                    "path": os.path.abspath(code.co_filename),
                    "line": tb.tb_lineno,
                    "name": code.co_name,
                    "user": is_user_file(code.co_filename),
                }
            )
        tb = tb.tb_next
    frames.reverse()
    return frames


class OutputCapture:
    """Replaces sys.stdout / sys.stderr: each complete line goes to the extension with the
    source line that printed it."""

    encoding = "utf-8"
    errors = "replace"

    def __init__(self, channel: Channel, category: Literal["stdout", "stderr"]) -> None:
        self._channel = channel
        self._category: Literal["stdout", "stderr"] = category
        self._buf = ""
        self._lock = threading.Lock()

    def write(self, text: object) -> int:
        s = text if isinstance(text, str) else str(text)
        with self._lock:
            self._buf += s
            if "\n" not in self._buf:
                return len(s)
            head, _, self._buf = self._buf.rpartition("\n")
        msg: OutputMsg = {"type": "output", "category": self._category, "text": head + "\n"}
        frames = user_stack(limit=1, frame=sys._getframe(1))
        ep = current_episode()
        if ep:
            msg["episode"] = ep
        if frames:
            msg["source"] = frames[0]
        self._channel.send(msg)
        return len(s)

    def flush(self) -> None:
        with self._lock:
            rest, self._buf = self._buf, ""
        if rest:
            self._channel.send({"type": "output", "category": self._category, "text": rest})

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("agentrl output capture has no file descriptor")

    def writable(self) -> bool:
        return True
