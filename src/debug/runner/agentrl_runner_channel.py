# The runner's side of the runner <-> extension protocol: JSON lines over a loopback TCP
# socket (shapes in src/debug/model/rollout-protocol.ts). Standard library only.
import json
import os
import socket
import threading

PROTOCOL_VERSION = 1


class Channel:
    """One connection to the extension. `send` is thread-safe; `request` blocks until the
    extension answers with {"type": "resume", "id": <same id>}."""

    def __init__(self, host, port, token):
        self._sock = socket.create_connection((host, port), timeout=10)
        self._sock.settimeout(None)
        self._wfile = self._sock.makefile("w", encoding="utf-8", newline="\n")
        self._rfile = self._sock.makefile("r", encoding="utf-8", newline="\n")
        self._lock = threading.Lock()
        self._next_id = 1
        self._waiters = {}
        self._start = threading.Event()
        self.plan = None
        self.stop_requested = False
        self.token = token
        reader = threading.Thread(target=self._read_loop, name="agentrl-channel", daemon=True)
        reader.start()

    def send(self, msg):
        line = json.dumps(msg, default=_json_default, ensure_ascii=False) + "\n"
        with self._lock:
            try:
                self._wfile.write(line)
                self._wfile.flush()
            except OSError:
                # The extension is gone: never linger as an orphan.
                os._exit(3)

    def request(self, msg):
        with self._lock:
            rid = self._next_id
            self._next_id += 1
            ev = threading.Event()
            self._waiters[rid] = ev
        msg = dict(msg, id=rid)
        self.send(msg)
        ev.wait()
        return rid

    def wait_for_start(self):
        self._start.wait()
        return self.plan

    def _read_loop(self):
        try:
            for line in self._rfile:
                line = line.strip()
                if not line:
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                kind = msg.get("type")
                if kind == "resume":
                    with self._lock:
                        ev = self._waiters.pop(msg.get("id"), None)
                    if ev is not None:
                        ev.set()
                elif kind == "start":
                    self.plan = msg.get("plan")
                    self._start.set()
                elif kind == "stop":
                    self.stop_requested = True
                    os._exit(0)
        except OSError:
            pass
        # EOF: the extension closed the socket (session ended or crashed).
        os._exit(3)


def _json_default(o):
    for attr in ("model_dump", "to_dict", "_asdict"):
        fn = getattr(o, attr, None)
        if callable(fn):
            try:
                return fn()
            except Exception:
                pass
    if hasattr(o, "tolist"):
        try:
            return o.tolist()
        except Exception:
            pass
    if isinstance(o, (set, tuple)):
        return list(o)
    if hasattr(o, "__dict__"):
        return {k: v for k, v in vars(o).items() if not k.startswith("_")}
    return repr(o)


def jsonable(value, depth=0):
    """A JSON-safe copy of `value` (objects become dicts, unknowns their repr)."""
    if depth > 12:
        return repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else repr(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v, depth + 1) for v in value]
    return jsonable(_json_default(value), depth + 1)
