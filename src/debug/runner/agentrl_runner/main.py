"""The runner's entry point: connects back to the extension, receives the plan, loads the
tasks, imports the workflow and runs tasks x repeat episodes (up to the plan's
``concurrency`` at once); every LLM call goes to the extension's recording gateway.

``python -m agentrl_runner --connect HOST:PORT [--debugpy]`` with the session token in the
environment (``AGENTRL_RUNNER_TOKEN``); ``python -m agentrl_runner --read-experiences DB``
prints the episodes of a ``trinity debug`` experiences.db as JSON; ``python -m agentrl_runner
--rescore`` re-scores recorded episodes with the current reward function (rescore.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor

from agentrl_runner.channel import Channel
from agentrl_runner.episodes import EpisodeJob, Phase, Reporter, Workload, error_info, run_episode
from agentrl_runner.experiences import read_experiences
from agentrl_runner.imports import module_functions, resolve
from agentrl_runner.optional import optional_module
from agentrl_runner.protocol import (
    PROTOCOL_VERSION,
    TOKEN_ENV,
    DebugpyEndpoint,
    EpisodeEndMsg,
    EpisodeResult,
    HelloMsg,
    RunnerPlan,
)
from agentrl_runner.rescore import main as rescore_main
from agentrl_runner.stack import OutputCapture, set_episode
from agentrl_runner.tasks import load_rows, select, select_replayed
from agentrl_runner.values import jsonable

RUNNER_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Debugpy:
    """debugpy listening for the extension's child debug session, and whether it attached."""

    def __init__(self, endpoint: DebugpyEndpoint) -> None:
        self.endpoint = endpoint
        self.attached = threading.Event()


def start_debugpy() -> tuple[Debugpy | None, str | None]:
    """(debugpy listening for the child debug session, or None; why not)."""
    debugpy = optional_module("debugpy")
    if debugpy is None:
        return None, f"debugpy is not installed in {sys.executable} (pip install debugpy) - Python breakpoints are off"
    try:
        host, port = debugpy.listen(("127.0.0.1", 0))
    except Exception as e:  # any failure only turns Python breakpoints off, and says why
        return None, f"debugpy could not listen: {e}"
    dbg = Debugpy({"host": host, "port": port})

    def wait() -> None:
        debugpy.wait_for_client()
        dbg.attached.set()

    threading.Thread(target=wait, name="agentrl-debugpy-wait", daemon=True).start()
    return dbg, None


def _restore_pythonpath() -> None:
    """The extension put this package's folder first on PYTHONPATH to start it: the workflow's
    own subprocesses get the user's PYTHONPATH back."""
    parts = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if parts and os.path.abspath(parts[0] or ".") == RUNNER_ROOT:
        rest = os.pathsep.join(parts[1:])
        if rest:
            os.environ["PYTHONPATH"] = rest
        else:
            del os.environ["PYTHONPATH"]


def fatal(channel: Channel, exc: BaseException, phase: Phase) -> None:
    channel.request({"type": "exception", "error": error_info(exc, phase)})


def _flush_output() -> None:
    # The captured streams send what is left of their last line; a closed stream has nothing.
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()


def run_one(channel: Channel, work: Workload, job: EpisodeJob) -> None:
    """Runs one episode and reports it: episodeStart, (errors), reward, episodeEnd."""
    episode = job.name
    set_episode(episode)
    channel.send(
        {
            "type": "episodeStart",
            "episode": episode,
            "taskIndex": job.index,
            "taskId": job.task_id,
            "repeat": job.repeat,
            "task": jsonable(job.row),
        }
    )
    reporter = Reporter(channel, episode)
    result: EpisodeResult = {"reward": None, "success": None, "metrics": {}, "metadata": {}, "experiences": []}
    end: EpisodeEndMsg = {"type": "episodeEnd", "episode": episode, **result}
    try:
        result = run_episode(work, job, reporter)
    except BaseException as e:
        if isinstance(e, (KeyboardInterrupt, SystemExit)) and channel.stop_requested:
            raise
        end["error"] = error_info(e, reporter.exception(e, "workflow"))
    _flush_output()
    # What the episode returned goes with its reward: a stop there (a step out of the episode, a
    # reward breakpoint) shows the experiences, and their tokens, before the episode ends.
    returned = {"experiences": result.get("experiences", []), "experienceTokens": result.get("experienceTokens", [])}
    reward = {"type": "reward", "episode": episode, "reward": result.get("reward"), "failed": "error" in end}
    channel.request({**reward, **jsonable(returned)})
    end.update(jsonable(result))
    channel.send(end)
    set_episode(None)


def run(channel: Channel, plan: RunnerPlan, cwd: str) -> None:
    """Runs the plan: its tasks x repeat episodes, up to ``concurrency`` at once."""
    try:
        replayed = plan["tasks"].get("replayed")
        if replayed is not None:
            picked, found = select_replayed(plan["tasks"]["source"], cwd, replayed)
        else:
            picked, found = select(load_rows(plan["tasks"]["source"], cwd), plan["tasks"]), None
    except Exception as e:  # whatever loading raised is the run's error, shown with its traceback
        return fatal(channel, e, "tasks")
    msg = {"type": "tasks", "count": len(picked), "ids": [tid for _, tid, _ in picked]}
    if found is not None:
        msg["replayedTasks"] = found
    channel.send(msg)
    try:
        workflow = resolve(plan["workflow"], cwd, "workflow")
        reward = resolve(plan["reward"], cwd, "reward") if plan.get("reward") else None
    except Exception as e:  # whatever the user's module raised on import, likewise
        return fatal(channel, e, "import")
    channel.send({"type": "symbols", "functions": module_functions(workflow)})
    work = Workload(plan, workflow, reward)
    repeat = max(1, int(plan.get("repeat") or 1))
    jobs = [EpisodeJob(index, tid, row, k) for index, tid, row in picked for k in range(repeat)]
    workers = min(max(1, int(plan.get("concurrency") or 1)), max(1, len(jobs)))
    if workers == 1:
        for job in jobs:
            run_one(channel, work, job)
        return None
    # Like Trinity's runners: up to `concurrency` episodes at once, each on its own thread
    # (its own event loop for async workflows); the extension shows each as a thread.
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="agentrl-episode") as pool:
        for f in [pool.submit(run_one, channel, work, job) for job in jobs]:
            f.result()
    return None


def _args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m agentrl_runner", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--connect", required=True, metavar="HOST:PORT", help="the extension's runner socket")
    ap.add_argument("--debugpy", action="store_true", help="listen for a child debug session (Python breakpoints)")
    ap.add_argument("--debugpy-wait", type=float, default=20.0, metavar="SEC")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--read-experiences"] and len(argv) == 2:
        sys.stdout.write(json.dumps(read_experiences(argv[1])))
        return
    if argv[:1] == ["--rescore"]:
        rescore_main()
        return
    args = _args(argv)
    token = os.environ.pop(TOKEN_ENV, "")
    if not token:
        sys.exit(f"{TOKEN_ENV} is not set: the runner is started by the Agent RL extension")
    _restore_pythonpath()
    host, _, port = args.connect.rpartition(":")
    channel = Channel(host, int(port))

    dbg, note = start_debugpy() if args.debugpy else (None, None)
    hello: HelloMsg = {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "token": token,
        "pid": os.getpid(),
        "python": platform.python_version(),
        "executable": sys.executable,
    }
    if dbg:
        hello["debugpy"] = dbg.endpoint
    if note:
        hello["debugpyNote"] = note
    channel.send(hello)
    plan = channel.wait_for_start()
    if dbg and not dbg.attached.wait(args.debugpy_wait):
        channel.send(
            {
                "type": "output",
                "category": "stderr",
                "text": f"The Python debugger did not attach within {args.debugpy_wait:g} s; running without "
                "Python breakpoints.\n",
            }
        )

    cwd = plan.get("cwd") or os.getcwd()
    os.chdir(cwd)
    real_stderr = sys.stderr
    sys.stdout = OutputCapture(channel, "stdout")  # type: ignore[assignment]
    sys.stderr = OutputCapture(channel, "stderr")  # type: ignore[assignment]
    try:
        run(channel, plan, cwd)
    except BaseException as e:  # never die silently: tell the extension why
        try:
            fatal(channel, e, "runner")
        except BaseException:
            traceback.print_exc(file=real_stderr)
    finally:
        _flush_output()
    channel.send({"type": "done"})
    os._exit(0)
