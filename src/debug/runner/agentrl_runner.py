#!/usr/bin/env python3
# Agent RL Studio rollout runner (native debug backbone). Standard library only.
#   python agentrl_runner.py --connect 127.0.0.1:PORT --token TOKEN [--debugpy]
# Connects back to the extension (JSON lines, src/debug/model/rollout-protocol.ts), receives the
# plan, loads the tasks, imports the workflow and runs tasks x repeat episodes (up to the
# plan's `concurrency` at once); every LLM call goes to the extension's recording gateway.
import argparse
import io
import json
import os
import pickle
import sqlite3
import struct
import platform
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.append(HERE)

from agentrl_runner_channel import PROTOCOL_VERSION, Channel, jsonable  # noqa: E402
from agentrl_runner_episodes import Reporter, error_info, run_episode  # noqa: E402
from agentrl_runner_imports import module_functions, resolve  # noqa: E402
from agentrl_runner_stack import OutputCapture, set_episode  # noqa: E402
from agentrl_runner_tasks import load_rows, select  # noqa: E402


def start_debugpy():
    """(endpoint, note): debugpy listening for the child debug session, or why not."""
    try:
        import debugpy  # type: ignore
    except Exception:
        return None, "debugpy is not installed in %s (pip install debugpy) - Python breakpoints are off" % sys.executable
    try:
        host, port = debugpy.listen(("127.0.0.1", 0))
    except Exception as e:
        return None, "debugpy could not listen: %s" % e
    attached = threading.Event()

    def wait():
        debugpy.wait_for_client()
        attached.set()

    threading.Thread(target=wait, name="agentrl-debugpy-wait", daemon=True).start()
    return {"host": host, "port": port, "attached": attached}, None


def fatal(channel, exc, phase):
    channel.request({"type": "exception", "error": error_info(exc, phase)})


class _BuiltinsOnly(pickle.Unpickler):
    """Trinity's experience metadata is a pickle of builtin types only: refuse anything else."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError("refusing to load %s.%s from an experience buffer" % (module, name))


def read_experiences(db):
    """Episodes from `trinity debug`'s experiences.db (table debug_buffer), as JSON on stdout."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    rows = con.execute("SELECT task_id, run_id, reward, experience_bytes FROM debug_buffer ORDER BY id").fetchall()
    out = []
    for i, (task_id, run_id, reward, blob) in enumerate(rows):
        meta = {}
        try:
            if blob[:4] == b"TRXP":
                n = struct.unpack("<Q", blob[5:13])[0]
                items = _BuiltinsOnly(io.BytesIO(blob[21:21 + n])).load().get("items") or [{}]
                meta = items[0]
        except Exception as e:  # legacy rows pickle Experience objects: keep the columns only
            meta = {"note": "experience not decoded: %s" % e}
        episode = "T%s#R%s" % (task_id, run_id)
        out.append({"episode": episode, "taskIndex": i, "taskId": str(task_id), "repeat": int(run_id or 0), "task": None,
                    "turns": [], "reward": reward, "metrics": jsonable(meta.get("metrics") or {}),
                    "metadata": jsonable({k: meta.get(k) for k in ("response_text", "prompt_text", "messages", "info") if meta.get(k) is not None}),
                    "experiences": []})
    sys.stdout.write(json.dumps(out))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--read-experiences"]:
        read_experiences(argv[1])
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--connect", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--debugpy", action="store_true")
    ap.add_argument("--debugpy-wait", type=float, default=20.0)
    args = ap.parse_args(argv)
    host, _, port = args.connect.rpartition(":")
    channel = Channel(host, int(port), args.token)

    dbg, note = start_debugpy() if args.debugpy else (None, None)
    hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "token": args.token, "pid": os.getpid(),
             "python": platform.python_version(), "executable": sys.executable}
    if dbg:
        hello["debugpy"] = {"host": dbg["host"], "port": dbg["port"]}
    if note:
        hello["debugpyNote"] = note
    channel.send(hello)
    plan = channel.wait_for_start()
    if dbg and not dbg["attached"].wait(args.debugpy_wait):
        channel.send({"type": "output", "category": "stderr",
                      "text": "The Python debugger did not attach within %g s; running without Python breakpoints.\n" % args.debugpy_wait})

    cwd = plan.get("cwd") or os.getcwd()
    os.chdir(cwd)
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    real_stderr = sys.stderr
    sys.stdout = OutputCapture(channel, "stdout")
    sys.stderr = OutputCapture(channel, "stderr")
    try:
        run(channel, plan, cwd)
    except BaseException as e:  # never die silently: tell the extension why
        try:
            fatal(channel, e, "runner")
        except BaseException:
            traceback.print_exc(file=real_stderr)
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
    channel.send({"type": "done"})
    os._exit(0)


def run(channel, plan, cwd):
    try:
        rows = load_rows(plan["tasks"]["source"], cwd)
        picked = select(rows, plan["tasks"])
    except Exception as e:
        fatal(channel, e, "tasks")
        return
    channel.send({"type": "tasks", "count": len(picked), "ids": [tid for _, tid, _ in picked]})
    try:
        workflow = resolve(plan["workflow"], cwd, "workflow")
        reward = resolve(plan["reward"], cwd, "reward") if plan.get("reward") else None
    except Exception as e:
        fatal(channel, e, "import")
        return
    channel.send({"type": "symbols", "functions": module_functions(workflow)})
    repeat = max(1, int(plan.get("repeat") or 1))
    jobs = [(index, tid, row, k) for index, tid, row in picked for k in range(repeat)]
    workers = min(max(1, int(plan.get("concurrency") or 1)), max(1, len(jobs)))

    def one(job):
        index, tid, row, k = job
        run_one(channel, plan, workflow, reward, row, tid, index, k, "T%s#R%d" % (tid, k))

    if workers == 1:
        for job in jobs:
            one(job)
        return
    # Like Trinity's runners: up to `concurrency` episodes at once, each on its own thread
    # (its own event loop for async workflows); the extension shows each as a thread.
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="agentrl-episode") as pool:
        for f in [pool.submit(one, job) for job in jobs]:
            f.result()


def run_one(channel, plan, workflow, reward, row, tid, index, k, episode):
    set_episode(episode)
    channel.send({"type": "episodeStart", "episode": episode, "taskIndex": index, "taskId": tid, "repeat": k,
                  "task": jsonable(row)})
    reporter = Reporter(channel, episode)
    result = {"reward": None, "success": None, "metrics": {}, "metadata": {}, "experiences": []}
    error = None
    try:
        result = run_episode(plan, workflow, reward, row, tid, index, k, episode, reporter)
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)) and channel.stop_requested:
            raise
        phase = reporter.exception(e, "workflow")
        error = error_info(e, phase)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    channel.request({"type": "reward", "episode": episode, "reward": result.get("reward")})
    end = {"type": "episodeEnd", "episode": episode}
    end.update(jsonable(result))
    if error:
        end["error"] = error
    channel.send(end)
    set_episode(None)


if __name__ == "__main__":
    main()
