# Which Python frames belong to the user's workflow, and the current episode. Every LLM
# call carries the user part of its call stack to the gateway (so a turn's frame opens the
# line that made the call); printed output carries the line that printed it.
import base64
import contextvars
import json
import os
import sys
import sysconfig
import threading

RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))
_LIB_DIRS = tuple(
    os.path.normcase(os.path.abspath(p))
    for p in {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    if p
)

_episode = contextvars.ContextVar("agentrl_episode", default=None)
# Threads a workflow starts do not inherit contextvars: they fall back to the episode that
# is running, which is only known when exactly one is (episodes may run concurrently).
_active = []
_active_lock = threading.Lock()


def set_episode(episode):
    previous = _episode.get()
    _episode.set(episode)
    with _active_lock:
        if previous is not None and previous in _active:
            _active.remove(previous)
        if episode is not None:
            _active.append(episode)


def current_episode():
    ep = _episode.get()
    if ep:
        return ep
    with _active_lock:
        return _active[0] if len(_active) == 1 else None


def is_user_file(filename):
    if not filename or filename.startswith("<"):
        return False
    path = os.path.normcase(os.path.abspath(filename))
    if path.startswith(os.path.normcase(RUNNER_DIR)):
        return False
    if "site-packages" in path or "dist-packages" in path:
        return False
    return not path.startswith(_LIB_DIRS)


def user_stack(limit=16, frame=None):
    """User frames of the current call stack, innermost first."""
    out = []
    f = frame or sys._getframe(1)
    while f is not None and len(out) < limit:
        code = f.f_code
        if is_user_file(code.co_filename):
            out.append({"path": os.path.abspath(code.co_filename), "line": f.f_lineno, "name": code.co_name})
        f = f.f_back
    return out


def stack_header(frames):
    return base64.b64encode(json.dumps(frames).encode("utf-8")).decode("ascii")


def traceback_frames(tb):
    """(user frames of a traceback, innermost first) for clickable traceback output."""
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if os.path.normcase(os.path.abspath(code.co_filename)).startswith(os.path.normcase(RUNNER_DIR)):
            tb = tb.tb_next
            continue
        frames.append({"path": os.path.abspath(code.co_filename), "line": tb.tb_lineno, "name": code.co_name,
                       "user": is_user_file(code.co_filename)})
        tb = tb.tb_next
    frames.reverse()
    return frames


class OutputCapture(object):
    """Replaces sys.stdout/sys.stderr: each complete line goes to the extension with the
    source line that printed it."""

    def __init__(self, channel, category):
        self._channel = channel
        self._category = category
        self._buf = ""
        self._lock = threading.Lock()
        self.encoding = "utf-8"
        self.errors = "replace"

    def write(self, text):
        if not isinstance(text, str):
            text = str(text)
        with self._lock:
            self._buf += text
            if "\n" not in self._buf:
                return len(text)
            head, _, self._buf = self._buf.rpartition("\n")
        frames = user_stack(limit=1, frame=sys._getframe(1))
        msg = {"type": "output", "category": self._category, "text": head + "\n"}
        ep = current_episode()
        if ep:
            msg["episode"] = ep
        if frames:
            msg["source"] = frames[0]
        self._channel.send(msg)
        return len(text)

    def flush(self):
        with self._lock:
            rest, self._buf = self._buf, ""
        if rest:
            self._channel.send({"type": "output", "category": self._category, "text": rest})

    def isatty(self):
        return False

    def fileno(self):
        raise OSError("agentrl output capture has no file descriptor")

    def writable(self):
        return True
