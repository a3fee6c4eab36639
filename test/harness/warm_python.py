"""A warm interpreter for the test suite: one Python that has imported Trinity, forking a child per run.

Every run of the debugger runner in the component tests starts a Python that imports Trinity-RFT
(torch, transformers, datasets): ~5 CPU s before the first line of the run, ~35 times in two test
files on a 2-core machine. Here one server process imports those once and forks a child for each
run; the child then *is* the run: the runner's command line, environment, working folder and stdio
(the pipes the extension reads) as the extension gave them, the runner's own code executed fresh
(``runpy``), exit code or signal passed back. What differs from a cold interpreter: the modules
imported beforehand are already in ``sys.modules``, and the process is the server's child, not the
extension's — so the extension's ``python`` is a shim (``shim`` below) that hands its stdio to the
server, forwards signals to the run and exits as the run did; a shim killed outright (SIGKILL) ends
the run's whole session. A request whose interpreter, flags or import-time environment differ from
the server's is not served warm: the shim execs the real interpreter, so a test of a missing
package or another PYTHONPATH still sees a cold start. Each request is logged (warm or cold, and
why) so a suite can check that its runs were served warm.

    python -B -u warm_python.py serve SOCKET LOG MODULE...   (prints "ready" once imported)
    python -SE warm_python.py shim SOCKET ARGS...             (as the extension starts "python")
"""

from __future__ import annotations

import array
import json
import os
import random
import runpy
import selectors
import signal
import socket
import sys
import traceback
from typing import Any

# Set per run by the extension, read at run time (never at import): they may differ from the server's.
RUN_ENV_PREFIXES = ("AGENTRL_", "TRINITY_", "OPENAI_", "PYDEVD_", "DEBUGPY_")
# The interpreter flags a run may carry: -B (no bytecode written) and -u (unbuffered, as the server runs).
FLAGS = ("-B", "-u")


def _recv_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    fds = array.array("i")
    chunks: list[bytes] = []
    while True:
        data, ancdata, _flags, _addr = conn.recvmsg(
            1 << 16, socket.CMSG_SPACE(3 * fds.itemsize)
        )
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
        if not data:
            raise ConnectionError("the shim closed before its request was whole")
        chunks.append(data)
        if data.endswith(b"\n"):
            return json.loads(b"".join(chunks)), list(fds)


def _send(conn: socket.socket, msg: dict[str, Any]) -> None:
    try:
        conn.sendall((json.dumps(msg) + "\n").encode())
    except OSError:
        pass  # the shim is gone: the run's session is ended when its end is read


def _why_cold(req: dict[str, Any], base_env: dict[str, str]) -> str | None:
    """Why a request cannot be served by this server, or None."""
    if req["executable"] != sys.executable:
        return f"interpreter {req['executable']} (this server: {sys.executable})"
    args: list[str] = req["argv"]
    i = 0
    while i < len(args) and args[i] in FLAGS:
        i += 1
    if i >= len(args) - 1 or args[i] != "-m":
        return f"command line {args[:4]} (only {' '.join(FLAGS)} -m MODULE is served)"
    env: dict[str, str] = req["env"]
    for key in sorted(set(env) | set(base_env)):
        if key.startswith(RUN_ENV_PREFIXES):
            continue
        if env.get(key) != base_env.get(key):
            return f"environment variable {key} differs"
    return None


def _session_members(sid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[3]) == sid:
            out.append(int(name))
    return out


def _end_session(sid: int) -> None:
    """Ends what the run left in its session, as the extension ends a run's session after it."""
    for pid in _session_members(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def serve(sock_path: str, log_path: str, modules: list[str]) -> dict[str, Any]:
    """Imports ``modules``, then serves requests; returns (in a forked child) the request to run."""
    base_env = dict(os.environ)
    for m in modules:
        __import__(m)
    # What the imports added to the environment a fresh interpreter would have added too.
    added = {k: v for k, v in os.environ.items() if base_env.get(k) != v}
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(16)
    with open(log_path, "a", buffering=1) as log:
        sel = selectors.DefaultSelector()
        sel.register(listener, selectors.EVENT_READ)
        runs: dict[int, socket.socket] = {}  # child pid -> its shim's connection
        print("ready", flush=True)
        while True:
            for key, _ in sel.select(timeout=0.05):
                if key.fileobj is listener:
                    conn, _addr = listener.accept()
                    try:
                        req, fds = _recv_request(conn)
                    except (OSError, ValueError) as e:
                        log.write(f"bad request: {e}\n")
                        conn.close()
                        continue
                    why = _why_cold(req, base_env)
                    if why is not None:
                        log.write(f"cold: {why}\n")
                        _send(conn, {"cold": why})
                        conn.close()
                        for fd in fds:
                            os.close(fd)
                        continue
                    sys.stdout.flush()
                    sys.stderr.flush()
                    pid = os.fork()
                    if pid == 0:
                        sel.close()
                        listener.close()
                        for other in runs.values():
                            other.close()
                        conn.close()
                        return {"req": req, "fds": fds, "added": added}
                    for fd in fds:
                        os.close(fd)
                    log.write(f"warm: pid {pid} {' '.join(req['argv'][:4])}\n")
                    runs[pid] = conn
                    sel.register(conn, selectors.EVENT_READ, pid)
                    _send(conn, {"pid": pid})
                else:
                    # A shim's connection readable: the shim has gone (it sends nothing after its
                    # request), so the run goes too, with everything in its session.
                    pid = key.data
                    if pid in runs:
                        _end_session(pid)
            while runs:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                conn = runs.pop(pid, None)
                _end_session(pid)
                if conn is not None:
                    sel.unregister(conn)
                    _send(conn, {"status": os.waitstatus_to_exitcode(status)})
                    conn.close()


def become(run: dict[str, Any]) -> str:
    """In the forked child: take the run's stdio, environment, folder and argv; the module to run."""
    req, fds, added = run["req"], run["fds"], run["added"]
    os.setsid()  # the run's processes in a session of their own, as the extension starts the runner
    for target, fd in zip((0, 1, 2), fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    os.environ.update({k: v for k, v in added.items() if k not in req["env"]})
    args: list[str] = req["argv"]
    i = 0
    while args[i] in FLAGS:
        if args[i] == "-B":
            sys.dont_write_bytecode = True
        i += 1
    module = args[i + 1]
    sys.argv = [module, *args[i + 2 :]]
    sys.path[0] = os.getcwd()  # `python -m` puts the working folder first
    # A fresh interpreter seeds its generators from the OS: so does each run.
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    if "torch" in sys.modules:
        sys.modules["torch"].seed()
    return module


def shim(sock_path: str, args: list[str]) -> int:
    """The extension's `python`: the run served warm, or the real interpreter exec'd."""
    executable = sys.executable
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(sock_path)
        req = {
            "executable": executable,
            "argv": args,
            "env": dict(os.environ),
            "cwd": os.getcwd(),
        }
        conn.sendmsg(
            [(json.dumps(req) + "\n").encode()],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))],
        )
        reader = conn.makefile("r")
        first = json.loads(reader.readline() or "{}")
    except (OSError, ValueError):
        first = {"cold": "no warm server"}
    if "pid" not in first:
        conn.close()
        os.execv(executable, [executable, *args])
    pid = first["pid"]

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    for s in (
        signal.SIGTERM,
        signal.SIGINT,
        signal.SIGHUP,
        signal.SIGQUIT,
        signal.SIGUSR1,
        signal.SIGUSR2,
    ):
        signal.signal(s, forward)
    while True:
        try:
            line = reader.readline()
            break
        except InterruptedError:
            continue
    status = json.loads(line)["status"] if line else 1
    if status < 0:  # ended by a signal: end the same way
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status


def main() -> None:
    mode, sock_path = sys.argv[1], sys.argv[2]
    if mode == "shim":
        sys.exit(shim(sock_path, sys.argv[3:]))
    run = serve(sock_path, sys.argv[3], sys.argv[4:])
    module = become(run)
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - reported as a cold interpreter reports it
        # The traceback from the run's own first frame, as `python -m` prints it (not this file's).
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename in (
            __file__,
            runpy.__file__,
            "<frozen runpy>",
        ):
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb)
        sys.stderr.flush()
        if isinstance(e, KeyboardInterrupt):
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        sys.exit(1)


if __name__ == "__main__":
    main()
