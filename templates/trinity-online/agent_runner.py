"""{{name}}: the agent side of online RL with Trinity-RFT's serve mode.

The serving explorer (explorer.yaml) is an OpenAI-compatible API that records every completion.
This script plays the part of your deployed agent: for each task it asks the served model
``--group`` times, scores every answer, sends the rewards to ``/feedback`` (the completion ids as
``msg_ids``, one ``task_id`` per task so GRPO compares the group's answers) and calls ``/commit``
every ``--commit-every`` tasks, which hands the rewarded experiences to the trainer.

    python agent_runner.py --url http://127.0.0.1:8010 --tasks data/train.jsonl

The explorer writes its URL to <checkpoint dir>/{{name}}/{{name}}-online/explorer_server_url.txt.
``solve(task, client, model)`` is one episode; the Agent RL debugger (F5) runs it alone.
"""
import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.request

{{> math_answer.py}}

SYSTEM_PROMPT = "Solve the math problem step by step, then give the final answer as a single number in \\boxed{}."


def solve(task, client, model):
    """One episode: ask the question, score the answer. Returns the reward and the completion id."""
    reply = client.chat.completions.create(
        model=model,
        messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task["question"]}],
    )
    answer = reply.choices[0].message.content or ""
    given = final_answer(answer)
    correct = given is not None and same_number(given, reference_answer(task["answer"]))
    return {"reward": 1.0 if correct else 0.0, "msg_id": reply.id, "answer": answer}


class ServeError(Exception):
    pass


class TrinityServe:
    """/feedback and /commit of Trinity's serve-mode explorer (standard library only)."""

    def __init__(self, url, timeout=60.0):
        self.url = url.rstrip("/")
        self.timeout = timeout

    def _post(self, path, body=None):
        data = json.dumps(body if body is not None else {}).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")
            raise ServeError(f"POST {self.url}{path}: HTTP {e.code} {body}")
        except urllib.error.URLError as e:
            raise ServeError(f"cannot reach {self.url} ({e.reason}): is the explorer running in serve mode?")

    def feedback(self, msg_ids, reward, task_id, run_id=0):
        return self._post("/feedback", {"msg_ids": list(msg_ids), "reward": float(reward), "task_id": task_id, "run_id": run_id})

    def commit(self):
        return self._post("/commit")


def read_tasks(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser(description="Chat with Trinity's serving explorer, send rewards, commit.")
    parser.add_argument("--url", default="http://127.0.0.1:8010", help="the explorer's URL (explorer.proxy_port)")
    parser.add_argument("--tasks", default="data/train.jsonl", help="JSONL rows with question and answer")
    parser.add_argument("--model", default="{{model}}", help="the served model name (model.model_path)")
    parser.add_argument("--group", type=int, default=4, help="answers per task (the GRPO group)")
    parser.add_argument("--commit-every", type=int, default=4, help="tasks between two /commit calls")
    parser.add_argument("--limit", type=int, default=0, help="stop after this many tasks (0: all)")
    args = parser.parse_args(argv)
    try:
        from openai import APIError, OpenAI
    except ImportError:
        sys.exit("agent_runner.py needs the openai package: pip install openai")

    serve = TrinityServe(args.url)
    client = OpenAI(base_url=serve.url + "/v1", api_key="EMPTY")
    tasks = read_tasks(args.tasks)
    if args.limit > 0:
        tasks = tasks[: args.limit]
    session = time.strftime("%Y%m%d%H%M%S")  # task ids never collide across runs
    uncommitted = 0
    try:
        for index, task in enumerate(tasks):
            task_id = f"{session}-{index}"
            rewards = []
            for run_id in range(args.group):
                result = solve(task, client, args.model)
                serve.feedback([result["msg_id"]], result["reward"], task_id=task_id, run_id=run_id)
                rewards.append(result["reward"])
            uncommitted += 1
            print(f"task {task_id}: rewards {rewards}", flush=True)
            if uncommitted >= args.commit_every:
                serve.commit()
                uncommitted = 0
                print("committed", flush=True)
        if uncommitted:
            serve.commit()
            print("committed", flush=True)
    except (ServeError, APIError) as e:
        sys.exit(f"agent_runner.py: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
