"""`agentrl_relay.py`: the command line of `agentrl relay` (src/relay/cli.ts), flag for flag,
with its security rules: a token is required unless the relay binds a loopback address."""

from __future__ import annotations

import asyncio
import math
import os
import platform
import signal
import sys

from .auth import TokenFileError, env_token, is_loopback_host, read_token
from .server import Options, Relay

DEFAULTS = {"host": "127.0.0.1", "port": 8765, "max_clients": 32, "heartbeat_s": 10, "poll_ms": 1000, "stall_s": 30, "decode_cache_mb": 64}

USAGE = f"""Usage: python3 agentrl_relay.py (--job-dir DIR | --logdir DIR) [options]

Streams training metrics and experiences from this node over a WebSocket
(the Python twin of `agentrl relay`: same flags, same protocol; standard library only).

Sources:
  --job-dir DIR        a Trinity job dir: monitor/tensorboard/<role>/ event files,
                       'Step N: {{...}}' lines of log/<role>.log (roles without event files),
                       the SQL experience buffer (buffer/*.db), serve mode's /metrics
  --logdir DIR         any TensorBoard logdir (recursive; run = sub-directory)
  --run NAME           run name in job-dir mode (default: the job dir's name)

Network and security:
  --host HOST          address to bind (default {DEFAULTS["host"]})
  --port PORT          port (default {DEFAULTS["port"]}; 0 = any free port)
  --token-file FILE    bearer token clients must send (or env AGENTRL_RELAY_TOKEN);
                       required unless --host is a loopback address
  --tls-cert FILE      certificate (PEM) for wss://, with --tls-key FILE
  --allow-origin URL   a browser origin allowed to connect (repeatable; default none)
  --max-clients N      connection limit (default {DEFAULTS["max_clients"]})

Tuning:
  --poll-interval MS   polling for filesystems without change events (default {DEFAULTS["poll_ms"]})
  --heartbeat S        seconds between heartbeats (default {DEFAULTS["heartbeat_s"]})
  --stall-timeout S    disconnect a client that stops reading for S seconds (default {DEFAULTS["stall_s"]})
  --decode-cache-mb MB memory for decoded batches shared by all clients (default {DEFAULTS["decode_cache_mb"]}; 0 = off)
  --exit-when-idle S   exit (code 0) after S seconds with no client and no new data (default: never)
  --verbose            debug logging
"""

_VALUED = {
    "--job-dir",
    "--logdir",
    "--run",
    "--host",
    "--port",
    "--token-file",
    "--tls-cert",
    "--tls-key",
    "--allow-origin",
    "--max-clients",
    "--poll-interval",
    "--heartbeat",
    "--stall-timeout",
    "--decode-cache-mb",
    "--exit-when-idle",
}
_FLAGS = {"--verbose", "--help", "-h"}


class UsageError(Exception):
    pass


def parse_args(argv: list[str]) -> dict:
    """node:util parseArgs, strict: known options only, `--x=v` or `--x v`, repeatable --allow-origin."""
    out: dict = {"allow-origin": []}
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, value = a.partition("=") if a.startswith("--") else (a, "", "")
        if name in _FLAGS and not eq:
            out["help" if name in ("-h", "--help") else name[2:]] = True
        elif name in _VALUED:
            if not eq:
                i += 1
                if i >= len(argv) or (argv[i].startswith("-") and argv[i] != "-"):
                    raise UsageError(f"Option '{name} <value>' argument missing")
                value = argv[i]
            if name == "--allow-origin":
                out["allow-origin"].append(value)
            else:
                out[name[2:]] = value
        elif a.startswith("-"):
            raise UsageError(f"Unknown option '{name}'")
        else:
            raise UsageError(f"Unexpected argument '{a}'. This command does not take positional arguments")
        i += 1
    return out


def _number(v: str | None, name: str, default: float, low: float = 0) -> float:
    if v is None:
        return float(default)
    try:
        n = float(v.strip()) if v.strip() else 0.0
    except ValueError:
        n = math.nan
    if not math.isfinite(n) or n < low:
        raise ValueError(f"{name} must be a number ≥ {low:g}, got '{v}'")
    return n


def _fail(msg: str) -> int:
    sys.stderr.write(f"agentrl relay: {msg}\n")
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["relay"]:
        argv = argv[1:]  # `python3 agentrl_relay.py relay …` reads like `agentrl relay …`
    try:
        a = parse_args(argv)
    except UsageError as e:
        return _fail(f"{e}\n\n{USAGE}")
    if a.get("help"):
        sys.stdout.write(USAGE)
        return 0
    job_dir, logdir = a.get("job-dir"), a.get("logdir")
    if (job_dir is None) == (logdir is None):
        return _fail(f"give exactly one of --job-dir or --logdir\n\n{USAGE}")
    d = os.path.abspath(job_dir if job_dir is not None else logdir)  # type: ignore[arg-type]
    if not os.path.isdir(d):
        return _fail(f"{d} is not a directory")
    if ("tls-cert" in a) != ("tls-key" in a):
        return _fail("--tls-cert and --tls-key go together")
    try:
        token = None
        if "token-file" in a:
            token = read_token(a["token-file"])
        else:
            token = env_token(os.environ.get("AGENTRL_RELAY_TOKEN"))
        port = _number(a.get("port"), "--port", DEFAULTS["port"])
        if not port.is_integer() or port > 65535:
            raise ValueError(f"--port must be 0..65535, got '{a.get('port')}'")
        opts = Options(
            mode="job" if job_dir is not None else "logdir",
            dir=d,
            run=a.get("run"),
            host=a.get("host", DEFAULTS["host"]),
            port=int(port),
            token=token,
            allow_origins=a["allow-origin"],
            max_clients=int(_number(a.get("max-clients"), "--max-clients", DEFAULTS["max_clients"], 1)),
            poll_s=_number(a.get("poll-interval"), "--poll-interval", DEFAULTS["poll_ms"], 10) / 1000,
            heartbeat_s=_number(a.get("heartbeat"), "--heartbeat", DEFAULTS["heartbeat_s"], 0.05),
            stall_s=_number(a.get("stall-timeout"), "--stall-timeout", DEFAULTS["stall_s"], 0.05),
            decode_cache_bytes=int(_number(a.get("decode-cache-mb"), "--decode-cache-mb", DEFAULTS["decode_cache_mb"]) * 1048576),
            exit_when_idle_s=_number(a["exit-when-idle"], "--exit-when-idle", 0, 0.05) if "exit-when-idle" in a else None,
            verbose=bool(a.get("verbose")),
        )
        if "tls-cert" in a:
            for f in (a["tls-cert"], a["tls-key"]):
                with open(f, "rb"):
                    pass
            opts.tls = (a["tls-cert"], a["tls-key"])
    except (ValueError, TokenFileError) as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"{e.strerror or e}: {e.filename}" if e.filename else str(e))
    if not is_loopback_host(opts.host) and token is None:
        return _fail(
            f"refusing to listen on {opts.host} without a token: pass --token-file FILE or set AGENTRL_RELAY_TOKEN (or bind 127.0.0.1 and use an SSH tunnel)"
        )
    try:
        return asyncio.run(_run(opts))
    except KeyboardInterrupt:
        return 0


async def _run(opts: Options) -> int:
    relay = Relay(opts)
    try:
        url = await relay.start()
    except (OSError, ValueError) as e:
        await relay.close()
        sys.stderr.write(f"agentrl relay: cannot listen on {opts.host}:{opts.port}: {getattr(e, 'strerror', None) or e}\n")
        return 1
    n = len(relay.sources())
    sys.stdout.write(f"agentrl relay: listening on {url} ({n} source{'' if n == 1 else 's'} under {opts.dir}{', token required' if opts.token else ''})\n")
    sys.stdout.flush()
    relay.log("info", f"relay: the Python relay on Python {platform.python_version()} ({sys.executable})")
    if not opts.token:
        relay.log("warn", "relay: no token set: any local user can connect (fine behind an SSH tunnel on a single-user node)")
    loop = asyncio.get_event_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, relay.done.set)
        except (NotImplementedError, RuntimeError):
            pass
    await relay.done.wait()
    await relay.close()
    return 0
