"""The runner's end of the runner <-> extension socket (messages in :mod:`.protocol`)."""

from __future__ import annotations

import json
import os
import socket
import threading
from typing import cast

from agentrl_runner.protocol import ExtensionMessage, HoldingMessage, RunnerMessage, RunnerPlan
from agentrl_runner.values import to_builtin

#: Exit status when the extension is gone (the socket closed or failed).
EXIT_EXTENSION_GONE = 3


class Channel:
    """One connection to the extension. :meth:`send` is thread-safe; :meth:`request` blocks
    until the extension answers with ``{"type": "resume", "id": <the same id>}``."""

    def __init__(self, host: str, port: int) -> None:
        self._sock = socket.create_connection((host, port), timeout=10)
        self._sock.settimeout(None)
        self._wfile = self._sock.makefile("w", encoding="utf-8", newline="\n")
        self._rfile = self._sock.makefile("r", encoding="utf-8", newline="\n")
        self._lock = threading.Lock()
        self._next_id = 1
        self._waiters: dict[int, threading.Event] = {}
        self._start = threading.Event()
        self._plan: RunnerPlan | None = None
        self.stop_requested = False
        threading.Thread(target=self._read_loop, name="agentrl-channel", daemon=True).start()

    def send(self, msg: RunnerMessage) -> None:
        line = json.dumps(msg, default=to_builtin, ensure_ascii=False) + "\n"
        with self._lock:
            try:
                self._wfile.write(line)
                self._wfile.flush()
            except OSError:
                # The extension is gone: never linger as an orphan.
                os._exit(EXIT_EXTENSION_GONE)

    def request(self, msg: HoldingMessage) -> int:
        """Sends ``msg`` with a fresh id and waits until the extension resumes it."""
        with self._lock:
            rid = self._next_id
            self._next_id += 1
            resumed = threading.Event()
            self._waiters[rid] = resumed
        msg["id"] = rid
        self.send(msg)
        resumed.wait()
        return rid

    def wait_for_start(self) -> RunnerPlan:
        self._start.wait()
        return cast(RunnerPlan, self._plan)

    def _read_loop(self) -> None:
        try:
            for raw in self._rfile:
                line = raw.strip()
                if line:
                    self._on_line(line)
        except OSError:
            pass
        # EOF: the extension closed the socket (the session ended or crashed).
        os._exit(EXIT_EXTENSION_GONE)

    def _on_line(self, line: str) -> None:
        try:
            msg = cast(ExtensionMessage, json.loads(line))
        except ValueError:
            return
        if msg["type"] == "resume":
            with self._lock:
                resumed = self._waiters.pop(msg["id"], None)
            if resumed is not None:
                resumed.set()
        elif msg["type"] == "start":
            self._plan = msg["plan"]
            self._start.set()
        elif msg["type"] == "stop":
            self.stop_requested = True
            os._exit(0)
