#!/usr/bin/env python3
"""demo: simulated trainer — a stand-in for a Trinity-RFT GRPO run, for the metrics view's demo.

Not a trainer: nothing is learned. It writes a job dir exactly where and how Trinity-RFT 0.5
writes one (its TensorBoard monitor, its "Step N" log lines, its SQL experience buffer), so
every part of Agent RL Studio's "watch training" path runs on real files:

  <job_dir>/monitor/tensorboard/explorer/events.out.tfevents.*   explorer scalars, per explorer step
  <job_dir>/monitor/tensorboard/trainer/events.out.tfevents.*    trainer scalars, per train step
  <job_dir>/log/explorer.log, log/trainer.log                     "Step N: {...}" lines (monitor.log)
  <job_dir>/buffer/experience_buffer.db                           the SQL experience buffer
                                                                  (ExperienceModel schema, TRXP bytes)
  <job_dir>/explorer_meta.json, trainer_meta.json                 latest_iteration
  <job_dir>/config.json                                           the run's config copy (model.model_path:
                                                                  --model-path, the model whose tokenizer
                                                                  the token views use)

The rollouts in the buffer are real: episodes of the tool-calling task of the
sample workspace (`toolcall/`) against an OpenAI-compatible model (the tiny fixture model that
`npm start` serves), with real tool calls and results, scored by the sample's exact-answer
reward. What is simulated is learning: the "policy" ignores its tools (and so guesses, and
fails) with a chance that decays over the run, so the real rewards rise as a trained
policy's would. Rollouts run in a thread at
the model's pace; each explorer step takes those that finished during it (a step with none
logs rewards drawn from the same schedule). Trainer metrics (losses, KL, entropy, lengths,
timings) follow plausible curves. Without a reachable model, every step is drawn. Beside the
real rollouts, each step writes a simulated taskset's groups (demo_tasks.py, marked simulated)
whose designed courses show every class of the Tasks view and a piece of evidence.

Python standard library only (no tensorboardX / torch), so it runs anywhere Python 3.8+ does,
e.g. as a Ray job entrypoint:

  python3 demo_trainer.py --job-dir /tmp/demo-job --step-seconds 1 --steps 300
  python3 demo_trainer.py --job-dir DIR --model-url http://127.0.0.1:8089/v1 --duration 600

Stops after --steps explorer steps or --duration seconds (0 = no limit), on SIGTERM/SIGINT.
"""
import argparse
import json
import math
import os
import pickle
import queue
import random
import re
import signal
import socket
import sqlite3
import struct
import sys
import threading
import time
import urllib.error
import urllib.request

try:
    from demo_tasks import write_simulated
except ImportError:  # copied alone (a Ray job's working dir): no simulated taskset
    write_simulated = None

TABLE = "experience_buffer"  # Trinity's default buffer name, which its SQL buffer uses as the table name
EVAL_EVERY = 10
ROLLOUTS = 4  # repeat_times: GRPO group size
TASKS_PER_BATCH = 2  # tasks rolled out together, each ROLLOUTS times
MAX_TURN_TOKENS = 32  # max_tokens of one model call: a rambling reply is cut (finish_reason "length")
IM_END = 2  # the fixture model's <|im_end|>

# ---- TensorBoard event files (TFRecord framing, masked CRC32C, Event protobuf) -----------

_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, wire, payload):
    key = _varint((num << 3) | wire)
    if wire == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


def event_bytes(wall_time, step, tag=None, value=None, file_version=None):
    """An Event: wall_time (1, double), step (2, int64), file_version (3) or summary (5)."""
    msg = _field(1, 1, struct.pack("<d", wall_time)) + _field(2, 0, _varint(step))
    if file_version is not None:
        msg += _field(3, 2, file_version.encode())
    else:
        val = _field(1, 2, tag.encode()) + _field(2, 5, struct.pack("<f", value))  # Summary.Value: tag, simple_value
        msg += _field(5, 2, _field(1, 2, val))
    return msg


class EventWriter:
    """Appends records to events.out.tfevents.<time>.<host> under `logdir`, one append per step."""

    def __init__(self, logdir):
        os.makedirs(logdir, exist_ok=True)
        now = time.time()
        self.path = os.path.join(logdir, f"events.out.tfevents.{int(now)}.{socket.gethostname()}.demo")
        self._append([event_bytes(now, 0, file_version="brain.Event:2")])

    def _append(self, events):
        records = b""
        for data in events:
            header = struct.pack("<Q", len(data))
            records += header + struct.pack("<I", masked_crc(header)) + data + struct.pack("<I", masked_crc(data))
        with open(self.path, "ab") as f:
            f.write(records)

    def scalars(self, step, values, wall_time=None):
        t = wall_time or time.time()
        # TensorBoard's writers clean tag names the same way ("mean@4" is stored as "mean_4").
        self._append([event_bytes(t, step, tag=re.sub(r"[^-/\w.]", "_", tag), value=float(v)) for tag, v in values.items()])


# ---- actor logs: Trinity's monitor also writes "Step N: {...}" to log/<role>.log ----------

def log_step(path, role, step, values):
    src = {"explorer": "explorer.py:358", "trainer": "trainer.py:207"}[role]
    scalars = {k: float(v) for k, v in values.items()}
    line = f"INFO {time.strftime('%m-%d %H:%M:%S')} [{src}] Step {step}: {scalars!r}\n"
    with open(path, "a") as f:
        f.write(line)


def log_finished(job):
    """The lines Trinity's explorer and trainer log when their run is over (explorer.py:251,
    trainer.py:113): what tells a reader of the job dir that the run finished."""
    stamp = time.strftime("%m-%d %H:%M:%S")
    for role, src, what in (("explorer", "explorer.py:251", "Explorer (explorer)"), ("trainer", "trainer.py:113", "Trainer")):
        with open(os.path.join(job, "log", role + ".log"), "a") as f:
            f.write(f"INFO {stamp} [{src}] --------------------\n> {what} finished.\n--------------------\n")


# ---- the SQL experience buffer (ExperienceModel; experience_bytes = TRXP) ---------------

_ST_DTYPES = {"I64": "q", "I32": "i", "F32": "f"}  # struct codes of the safetensors dtypes written


def safetensors_bytes(tensors):
    """safetensors as torch's `save` writes it: an 8-byte LE header length, a JSON header of
    {name: {dtype, shape, data_offsets}} padded with spaces to 8 bytes, then the raw LE data."""
    header, data = {}, b""
    for name, (dtype, values) in tensors.items():
        code = _ST_DTYPES[dtype]
        raw = struct.pack(f"<{len(values)}{code}", *values)
        header[name] = {"dtype": dtype, "shape": [len(values)], "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    head = json.dumps(header, separators=(",", ":")).encode()
    head += b" " * (-len(head) % 8)
    return struct.pack("<Q", len(head)) + head + data


def experience_bytes(item, tensors):
    """Experience.serialize (Trinity 0.5.2): b"TRXP", version 1, uint64 LE metadata and tensor
    lengths, the pickled metadata {version, num_items, items}, the tensors as "0:<field>"."""
    meta = pickle.dumps({"version": 1, "num_items": 1, "items": [item]}, protocol=pickle.HIGHEST_PROTOCOL)
    blob = safetensors_bytes({f"0:{k}": v for k, v in tensors.items()})
    return b"TRXP" + bytes([1]) + struct.pack("<QQ", len(meta), len(blob)) + meta + blob


def open_buffer(job_dir):
    os.makedirs(os.path.join(job_dir, "buffer"), exist_ok=True)
    db = sqlite3.connect(os.path.join(job_dir, "buffer", TABLE + ".db"))
    db.execute(
        f"CREATE TABLE IF NOT EXISTS {TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,"
        " task_id VARCHAR(64), run_id INTEGER, msg_id VARCHAR(64), model_version INTEGER, experience_bytes BLOB, reward FLOAT,"
        " consumed INTEGER DEFAULT 0)"
    )
    db.commit()
    return db


# ---- real rollouts: the sample workspace's tool-calling task against the model ----------

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                                                     "required": ["city"]}}},
    {"type": "function", "function": {"name": "add", "description": "Add two integers.",
                                      "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                                     "required": ["a", "b"]}}},
]
WEATHER = {"Paris": ("sunny", 21), "Kyoto": ("cloudy", 18), "Tokyo": ("rainy", 9), "Berlin": ("windy", 12), "Oslo": ("snowy", 2)}


def read_taskset(path):
    """The taskset's rows (jsonl: question, answer), in file order: a row's index is the
    `task_index` Trinity's file reader gives its experiences."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows.append({"id": str(row.get("id", len(rows))), "question": row["question"], "answer": row["answer"]})
    if not rows:
        raise ValueError(f"{path}: no tasks")
    return rows


def make_task(rng, step, taskset=None):
    """A task: a row of the taskset (with its index) when there is one, else made up."""
    if taskset:
        i = rng.randrange(len(taskset))
        return dict(taskset[i], index=i)
    if step % 2:
        a, b = rng.randint(0, 49), rng.randint(0, 49)
        return {"id": f"add-{a}-{b}", "question": f"What is {a} plus {b}?", "answer": f"The answer is {a + b}."}
    city = rng.choice(sorted(WEATHER))
    cond, t = WEATHER[city]
    return {"id": "weather-" + city.lower(), "question": f"What is the weather in {city}?",
            "answer": f"It is {cond} and {t} degrees C in {city}."}


def call_tool(name, args):
    try:
        if name == "get_weather":
            city = args.get("city")
            if city not in WEATHER:
                return {"error": f"unknown city: {city}"}
            return {"city": city, "temp_c": WEATHER[city][1], "condition": WEATHER[city][0]}
        if name == "add":
            return {"result": int(args["a"]) + int(args["b"])}
    except (KeyError, TypeError, ValueError) as e:
        return {"error": f"bad arguments: {e}"}
    return {"error": f"unknown tool: {name}"}


class EndpointTokenizer:
    """A conversation's token ids through the model server's own chat template and tokenizer
    (llama.cpp server's /apply-template and /tokenize, beside its /v1): what the simulated rows
    carry when a model is at hand, so their token views show texts and turns. Cached by text."""

    def __init__(self, base_url):
        root = base_url.rstrip("/")
        self.root = root[:-3] if root.endswith("/v1") else root
        self.cache = {}

    def _post(self, route, body):
        req = urllib.request.Request(self.root + route, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read().decode())

    def _ids(self, messages, generation_prompt):
        key = (json.dumps(messages), generation_prompt)
        if key not in self.cache:
            text = self._post("/apply-template", {"messages": messages, "add_generation_prompt": generation_prompt})["prompt"]
            self.cache[key] = [int(t) for t in self._post("/tokenize", {"content": text, "add_special": False})["tokens"]]
        return self.cache[key]

    def __call__(self, messages):
        try:
            prompt = self._ids(messages[:-1], True)
            full = self._ids(messages, False)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return (full, len(prompt)) if len(full) > len(prompt) and full[: len(prompt)] == prompt else None


def chat(base_url, model, messages, temperature, tools, seed=None, timeout=120):
    req = {"model": model, "messages": messages, "temperature": temperature, "max_tokens": MAX_TURN_TOKENS,
           "logprobs": True, "return_token_ids": True}
    if seed is not None:  # a sampling seed per call, as an engine draws one: the members of a group differ
        req["seed"] = seed
    if tools:
        req["tools"] = TOOLS
    body = json.dumps(req).encode()
    req = urllib.request.Request(base_url.rstrip("/") + "/chat/completions", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read().decode())


def rollout(base_url, model, task, temperature, tools=True, max_turns=4, seed=None):  # max_turns: the sample workflow's
    """One episode; returns (messages, final answer, reward, calls). Without tools the model can
    only guess. `calls` are the engine's own records of each model call: prompt ids, completion
    ids, completion logprobs, finish_reason."""
    messages = [{"role": "user", "content": task["question"]}]
    answer = ""
    calls = []
    for _ in range(max_turns):
        resp = chat(base_url, model, messages, temperature, tools, None if seed is None else seed + len(calls))
        choice = resp["choices"][0]
        msg = choice["message"]
        lps = [t["logprob"] for t in (choice.get("logprobs") or {}).get("content") or []]
        calls.append({"prompt": resp.get("prompt_token_ids") or [], "completion": choice.get("token_ids") or [],
                      "logprobs": lps, "finish": choice.get("finish_reason")})
        tool_calls = msg.get("tool_calls") or []
        if not tool_calls:
            answer = msg.get("content") or ""
            messages.append({"role": "assistant", "content": answer})
            break
        messages.append({"role": "assistant", "content": msg.get("content") or "", "tool_calls": tool_calls})
        for c in tool_calls:
            try:
                args = json.loads(c["function"].get("arguments") or "{}")
            except ValueError:
                args = {}
            result = call_tool(c["function"]["name"], args if isinstance(args, dict) else {})
            messages.append({"role": "tool", "tool_call_id": c.get("id", ""), "content": json.dumps(result)})
    reward = 1.0 if answer.strip() == task["answer"] else 0.0
    return messages, answer, reward, calls


# ---- the experience's tensors, as Trinity's convert_messages_to_experience builds them ----

def episode_tensors(calls, messages):
    """tokens / prompt_length / action_mask / logprobs of one episode, from the engine's ids.

    Trinity re-tokenizes the conversation through the chat template and trains each assistant
    turn from the end of its generation prompt to the end of its rendered turn (its content,
    <|im_end|> and the newline after it); tool results and the next turn's header are not
    trained. The engine's prompt for turn k+1 is that rendering of the conversation so far, so
    turn k's span is read off it; the last turn is its completion plus <|im_end|> and newline.
    Logprobs are the engine's for the tokens it sampled (see turn_logprobs), 0.0 for tokens it
    did not sample. Returns None when the engine gave no ids (another server).
    """
    if not calls or not all(c["prompt"] for c in calls):
        return None
    first = calls[0]["prompt"]
    if IM_END not in first[:-1]:
        return None
    newline = first[first.index(IM_END) + 1]
    last = calls[-1]
    tokens = list(last["prompt"]) + list(last["completion"]) + [IM_END, newline]
    mask = [0] * len(tokens)
    logprobs = [0.0] * len(tokens)
    for k, call in enumerate(calls):
        start = len(call["prompt"])
        if k + 1 < len(calls):
            nxt = calls[k + 1]["prompt"]
            end = nxt.index(IM_END, start) + 2 if IM_END in nxt[start:] else start
        else:
            end = len(tokens)
        for i in range(start, min(end, len(tokens))):
            mask[i] = 1
        turn = tokens[start:end]
        turn = turn[:turn.index(IM_END)] if IM_END in turn else turn  # what the model wrote, not its end marker
        for i, lp in turn_logprobs(turn, list(call["completion"]), call["logprobs"]):
            logprobs[start + i] = lp
    prompt_length = len(first)
    truncated = any(c["finish"] == "length" for c in calls)
    return {"tokens": tokens, "prompt_length": prompt_length, "action_mask": mask[prompt_length:],
            "logprobs": logprobs[prompt_length:], "truncate_status": "response_truncated" if truncated else None}


def turn_logprobs(rendered, sampled, lps):
    """(index in `rendered`, logprob) of one assistant turn: the engine's logprob of each sampled
    token where the rendering has the same ids (the common start and end). Where the template
    re-tokenized the same text differently (a tool call's JSON), the engine's total logprob of the
    sampled tokens there is spread evenly over the rendered ones: the text keeps the probability
    the engine gave it, and no trained token is left at a made-up 0."""
    lps = [float(x) for x in lps[:len(sampled)]]
    if len(lps) < len(sampled):
        return []
    head = 0
    while head < min(len(rendered), len(sampled)) and rendered[head] == sampled[head]:
        head += 1
    tail = 0
    while tail < min(len(rendered), len(sampled)) - head and rendered[-1 - tail] == sampled[len(sampled) - 1 - tail]:
        tail += 1
    out = [(i, lps[i]) for i in range(head)]
    mid_sampled = lps[head:len(sampled) - tail]
    mid = range(head, len(rendered) - tail)
    if mid_sampled and len(mid):
        share = sum(mid_sampled) / len(mid)
        out += [(i, share) for i in mid]
    out += [(len(rendered) - 1 - k, lps[len(sampled) - 1 - k]) for k in range(tail)]
    return out


def grpo_advantages(rewards, eps=1e-6):
    """Trinity's GRPOGroupedAdvantage: (r - mean) / (std + eps), torch.std unbiased; one member: r."""
    n = len(rewards)
    if n < 2:
        return [float(r) for r in rewards]
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / (n - 1))
    return [(r - mean) / (std + eps) for r in rewards]


def model_id(base_url):
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=3) as r:
            data = json.loads(r.read().decode()).get("data") or []
            return data[0]["id"] if data else "default"
    except (OSError, ValueError, KeyError, IndexError):
        return None


# ---- the loop -----------------------------------------------------------------------------

def untrained_at(step, steps):
    """The simulated policy: the chance that an episode ignores its tools (and so answers
    wrong), high early and low late, the way a trained policy learns to call them."""
    return 0.85 * math.exp(-4.0 * step / max(1, steps))


def curve(step, steps, start, end, noise, rng):
    k = 1 - math.exp(-4.0 * step / max(1, steps))
    return start + (end - start) * k + rng.gauss(0, noise)


def roll(a, state, stop, done, rng):
    """The rollout thread: batches of GRPO groups (TASKS_PER_BATCH tasks x ROLLOUTS episodes
    each, sampled at temperature 0.7 so members differ), one batch after the other, until stopped."""
    model = state["model"]
    while not stop["now"]:
        step = state["step"]
        batch = []
        for _ in range(a.tasks_per_batch):
            task = make_task(rng, step + len(batch), state.get("taskset"))
            group = []
            for _ in range(a.group_size):
                offered = rng.random() >= untrained_at(step, a.steps)
                t0 = time.time()
                try:
                    messages, answer, reward, calls = rollout(a.model_url, model, task, 0.7, tools=offered, seed=rng.getrandbits(30))
                except (OSError, ValueError, KeyError, IndexError) as e:
                    print(f"demo: rollout failed ({e}); going on with simulated rewards", flush=True)
                    return
                if stop["now"]:
                    return
                group.append((task, messages, answer, reward, offered, time.time() - t0, calls))
            batch.append(group)
        done.put(batch)


def write_groups(db, step, batch):
    """The rows of a finished batch: one per episode, advantages normalized within each group."""
    finished = []
    for group in batch:
        advantages = grpo_advantages([g[3] for g in group])
        for run, ((task, messages, answer, reward, offered, took, calls), score) in enumerate(zip(group, advantages)):
            finished.append((task, messages, answer, reward, offered, took))
            msg_id = f"demo-{step}-{task['id']}-{run}"
            t = episode_tensors(calls, messages)
            item = {
                "eid": {"batch": step, "task": task["id"], "run": run, "step": 0, "suffix": msg_id},
                "reward": reward, "truncate_status": t["truncate_status"] if t else None,
                "info": {"model_version": step, "simulated_trainer": True, "tools_offered": offered,
                         **({"task_index": task["index"]} if "index" in task else {})},
                "metrics": {"accuracy": reward},  # the sample reward's parts, as its workflow records them
                "prompt_length": t["prompt_length"] if t else 1,
                "response_text": answer, "prompt_text": task["question"], "messages": messages, "tools": TOOLS if offered else None,
                "chosen_messages": None, "rejected_messages": None, "custom_fields": [], "multi_modal_input_keys": [],
            }
            tensors = {"tokens": ("I64", [0])}
            if t:
                adv = [score * m for m in t["action_mask"]]
                tensors = {"tokens": ("I64", t["tokens"]), "logprobs": ("F32", t["logprobs"]), "advantages": ("F32", adv),
                           "returns": ("F32", adv), "action_mask": ("I32", t["action_mask"])}
            db.execute(f"INSERT INTO {TABLE} (task_id, run_id, msg_id, model_version, experience_bytes, reward) VALUES (?, ?, ?, ?, ?, ?)",
                       (task["id"], run, msg_id, step, experience_bytes(item, tensors), reward))
    db.commit()
    return finished


# ---- where the time goes: the time/* tags Trinity's trainer and explorer log ---------------

def pipeline_times(step, steps, rng, waits):
    """Simulated seconds of one step, as Trinity's timers would log them (a lockstep run:
    sync_interval 1). The explorer's step lasts as long as its slowest run; the trainer waits
    for it (time/read_experience), trains, then syncs. Until the "curriculum change" every run
    is long (explorer-bound); after it most tasks are short but one runs long (stragglers).
    Returns (explorer scalars, trainer scalars); `waits` keeps each step's wait for the trainer."""
    change = max(10, min(steps // 2, 60))
    if step < change:
        runs = [rng.uniform(8.5, 10.5) for _ in range(ROLLOUTS)]
    else:
        runs = [rng.uniform(1.5, 2.5) for _ in range(ROLLOUTS - 1)] + [rng.uniform(10, 14)]
    wait = max(runs)
    waits[step] = wait + 0.05
    explorer = {
        "time/wait_explore_step": wait,
        "rollout/time/run_execution/mean": sum(runs) / len(runs),
        "rollout/time/run_execution/max": wait,
        "rollout/time/run_execution/min": min(runs),
        "time/experience_pipeline/total": 0.05,
    }
    if step % EVAL_EVERY == 0:
        explorer["time/eval"] = wait + rng.uniform(1, 2)
    train = rng.uniform(2.8, 3.4)
    trainer = {
        "time/read_experience": waits.get(step, wait),
        "time/train_step": train,
        "time/step": train * 0.98,
        "time/old_log_prob": train * 0.2,
        "time/ref": train * 0.15,
        "time/adv": train * 0.01,
        "time/update_actor": train * 0.6,
        "time/sync_weight": rng.uniform(0.3, 0.5),
    }
    if step > 1:
        trainer["time/trainer_sync_interval"] = waits.get(step, wait) + train
    if step % 50 == 0:
        trainer["time/save_checkpoint"] = rng.uniform(3, 5)
    return explorer, trainer


def config_names(path):
    """project and name of a Trinity config (top-level `project:` / `name:` lines; stdlib has no YAML)."""
    found = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^(project|name):\s*([^#\s]+)", line)
            if m:
                found.setdefault(m.group(1), m.group(2).strip("'\""))
    return found


def write_config(job, a):
    """The run's config copy, where Trinity keeps it (<job_dir>/config.json, YAML; JSON is YAML):
    the fields a reader of the job dir looks for — model.model_path names the model folder whose
    tokenizer turns the buffer's ids into texts (absent without one); project and name, those of the
    workflow config the run stands in for (--workflow-config), tell which workspace config replays
    its rows; the GPUs, engines and sync settings are what the Pipeline view's advice names."""
    cfg = {
        "mode": "both", "project": "demo", "name": os.path.basename(job), "checkpoint_root_dir": os.path.dirname(job),
        "algorithm": {"algorithm_type": "grpo", "repeat_times": a.group_size},
        "model": {**({"model_path": os.path.abspath(a.model_path)} if a.model_path else {}), "max_response_tokens": MAX_TURN_TOKENS},
        "monitor": {"monitor_type": "tensorboard"},
        # what the Pipeline view's advice reads and links to (the simulated run's shape)
        "cluster": {"node_num": 1, "gpu_per_node": 8},
        "buffer": {"batch_size": 4},
        "explorer": {"rollout_model": {"engine_num": 2, "tensor_parallel_size": 1}},
        "synchronizer": {"sync_style": "fixed", "sync_interval": 1},
    }
    if a.workflow_config:
        cfg.update(config_names(a.workflow_config))
    with open(os.path.join(job, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)


def main(argv=None):
    p = argparse.ArgumentParser(description="demo: simulated trainer — writes a Trinity-RFT job dir (see the module docstring).")
    p.add_argument("--job-dir", required=True, help="the job dir to write (created)")
    p.add_argument("--steps", type=int, default=300, help="explorer steps (default 300)")
    p.add_argument("--step-seconds", type=float, default=1.0, help="at least this long per explorer step (the speed; default 1)")
    p.add_argument("--duration", type=float, default=0, help="stop after this many seconds (0: when the steps are done)")
    p.add_argument("--model-url", default=os.environ.get("AGENTRL_DEMO_MODEL_URL", "http://127.0.0.1:8089/v1"),
                   help="OpenAI-compatible endpoint for the real rollouts ('' for none)")
    p.add_argument("--model-path", default=os.environ.get("AGENTRL_DEMO_MODEL_PATH", ""),
                   help="the model's folder (its tokenizer.json), written as model.model_path of the job dir's config.json ('' for none)")
    p.add_argument("--taskset", default="",
                   help="a jsonl taskset (question, answer) the tasks are drawn from; each row's index is its experiences' info.task_index")
    p.add_argument("--workflow-config", default="",
                   help="the Trinity config the run stands in for: its project and name go into the job dir's config.json")
    p.add_argument("--no-simulated-taskset", action="store_true",
                   help="write only the real rollouts' rows, not the simulated taskset's (demo_tasks.py)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--group-size", type=int, default=ROLLOUTS, help=f"rollouts per task: the GRPO group (default {ROLLOUTS})")
    p.add_argument("--tasks-per-batch", type=int, default=TASKS_PER_BATCH,
                   help=f"tasks rolled out together and written in one step (default {TASKS_PER_BATCH})")
    a = p.parse_args(argv)

    stop = {"now": False}
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.update(now=True))
    rng = random.Random(a.seed)
    job = os.path.abspath(a.job_dir)
    os.makedirs(os.path.join(job, "log"), exist_ok=True)
    explorer = EventWriter(os.path.join(job, "monitor", "tensorboard", "explorer"))
    trainer = EventWriter(os.path.join(job, "monitor", "tensorboard", "trainer"))
    db = open_buffer(job)
    write_config(job, a)
    model = model_id(a.model_url) if a.model_url else None
    print("demo: simulated trainer -> {} ({})".format(job, f"rollouts on {a.model_url}, model {model}" if model else "no model: simulated rewards and taskset only"), flush=True)
    began = time.time()
    # Real rollouts run in a thread of their own, so the model's speed (a loaded CPU) never
    # stalls the step cadence: each explorer step takes the rollouts that finished during it.
    state = {"step": 0, "model": model, "taskset": read_taskset(a.taskset) if a.taskset else None}
    done = queue.Queue()
    roller = threading.Thread(target=roll, args=(a, state, stop, done, random.Random(a.seed + 1)), daemon=True)
    timing_rng, waits, sim_rng = random.Random(a.seed + 2), {}, random.Random(a.seed + 3)
    sim_tokenizer = EndpointTokenizer(a.model_url) if model else None
    if model:
        roller.start()
    for step in range(a.steps + 1):
        if stop["now"] or (a.duration and time.time() - began >= a.duration):
            break
        t0 = time.time()
        state["step"] = step
        rest = a.step_seconds - (time.time() - t0)
        while rest > 0 and not stop["now"]:
            time.sleep(min(rest, 0.1))
            rest = a.step_seconds - (time.time() - t0)
        # One batch per step, as a trainer consumes them: two batches written at one step could
        # draw the same task and merge into one group of twice --group-size.
        finished = write_groups(db, step, done.get()) if not done.empty() else []
        if write_simulated and not a.no_simulated_taskset:  # the Tasks view's taskset
            write_simulated(db, TABLE, step, a.steps, a.group_size, sim_rng, experience_bytes, sim_tokenizer)
        rewards, lengths, run_times = [], [], []
        for task, messages, answer, reward, offered, took in finished:
            rewards.append(reward)
            lengths.append(len(answer.split()) + 4)
            run_times.append(took)
        if not rewards:  # no rollout finished in this step (or no model): the schedule's rewards
            untrained = untrained_at(step, a.steps)
            rewards = [0.0 if rng.random() < untrained else 1.0 for _ in range(ROLLOUTS)]
            lengths, run_times = [8] * ROLLOUTS, [0.0] * ROLLOUTS
        mean = sum(rewards) / len(rewards)
        std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards))
        ex = {
            "rollout/accuracy/mean": mean, "rollout/accuracy/max": max(rewards), "rollout/accuracy/min": min(rewards),
            "rollout/model_version": step, "rollout/finished_task_count": len({t["id"] for t, *_ in finished}),
            "rollout/time/run_execution/mean": sum(run_times) / len(run_times),
            "experience_pipeline/experience_count": len(finished),
            "experience_pipeline/group_advantages/reward_std/mean": std,
            "time/wait_explore_step": time.time() - t0,
        }
        ex_times, tr_times = pipeline_times(step, a.steps, timing_rng, waits)
        ex.update(ex_times)
        if step % EVAL_EVERY == 0:
            ex["eval/toolcall-eval/accuracy/mean@4"] = min(1.0, max(0.0, curve(step, a.steps, 0.1, 0.9, 0.03, rng)))
        explorer.scalars(step, ex)
        log_step(os.path.join(job, "log", "explorer.log"), "explorer", step, ex)
        if step >= 1:  # the trainer trains on the previous explorer step (sync_interval 1)
            tr = {
                "actor/pg_loss": curve(step, a.steps, 0.02, -0.03, 0.01, rng),
                "actor/kl_loss": max(0.0, curve(step, a.steps, 0.0, 0.004, 0.0005, rng)),
                "actor/entropy": curve(step, a.steps, 1.8, 0.6, 0.04, rng),
                "actor/grad_norm": abs(curve(step, a.steps, 0.9, 0.3, 0.08, rng)),
                "actor/lr": 1e-6,
                "critic/rewards/mean": mean,
                "critic/advantages/mean": rng.gauss(0, 0.02),
                "response_length/mean": sum(lengths) / len(lengths),
                "perf/throughput": curve(step, a.steps, 900, 1100, 40, rng),
                "time/train_step": abs(curve(step, a.steps, 2.0, 1.6, 0.1, rng)),
            }
            tr.update(tr_times)
            trainer.scalars(step, tr)
            log_step(os.path.join(job, "log", "trainer.log"), "trainer", step, tr)
            with open(os.path.join(job, "trainer_meta.json"), "w") as f:
                json.dump({"latest_iteration": step}, f)
        with open(os.path.join(job, "explorer_meta.json"), "w") as f:
            json.dump({"latest_iteration": step, "taskset_states": []}, f)
    db.close()
    if not stop["now"]:  # its steps (or its duration) done: the run ends as Trinity's does
        log_finished(job)
    print("demo: simulated trainer stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
