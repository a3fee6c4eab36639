"""demo: simulated taskset — the rows of demo_trainer.py that show the Tasks view at work.

Beside the real rollouts (whose tasks come and go), each explorer step writes one simulated
rollout group per task of a small fixed taskset: every row says so (info["simulated_rollout"],
and its messages), carries info["task_index"] as Trinity's WorkflowRunner sets it, and its
reward follows the task's designed course, so every class the Tasks view names is there:

  learned    unsolved, then solved from about a third of the run on
  never      never rewarded
  always     solved from the start (no signal to learn from)
  forgotten  solved, then lost from about the middle of the run
  flaky      solved and unsolved in turn

and one piece of evidence a newcomer can click through: from 60 % of the run on, every rewarded
answer is the same text whatever the task (mode collapse). Standard library only.
"""

TASKSET = [
    # (question, reference answer, class)
    ("What is 12 plus 30?", "42", "learned"),
    ("What is 7 times 6?", "42", "learned"),
    ("What is the capital of Australia?", "Canberra", "never"),
    ("What is 2 to the power 20?", "1048576", "never"),
    ("What is 1 plus 1?", "2", "always"),
    ("What colour is the sky on a clear day?", "blue", "always"),
    ("What is 15 minus 8?", "7", "forgotten"),
    ("What is the weather in Oslo?", "snowy", "forgotten"),
    ("What is 9 plus 10?", "19", "flaky"),
    ("What is 100 divided by 4?", "25", "flaky"),
]
COLLAPSED = "The answer is 42."
# Its rows name it as a second taskset (Trinity numbers a run's tasksets from 0): its tasks are
# not the real rollouts' (the workflow config's taskset, id 0), and a replay of one of its rows
# says that taskset is not in the config rather than picking the wrong row.
SIMULATED_TASKSET_ID = 1


def solved_members(cls, step, steps, members, rng):
    """How many of a group's members are rewarded at `step` for a task of class `cls`."""
    at = step / max(1, steps)
    if cls == "learned":
        return members if at >= 0.35 else (1 if at >= 0.25 and rng.random() < 0.5 else 0)
    if cls == "never":
        return 0
    if cls == "always":
        return members
    if cls == "forgotten":
        return members if at < 0.5 else 0
    return members if step % 2 else 0  # flaky


def simulated_groups(step, steps, members, rng):
    """This step's rows: per task, `members` dicts of task_index, reward, response text, messages."""
    rows = []
    for index, (question, answer, cls) in enumerate(TASKSET):
        k = solved_members(cls, step, steps, members, rng)
        for m in range(members):
            right = m < k
            if right and step / max(1, steps) >= 0.6:
                text = COLLAPSED
            elif right:
                text = f"Let me work it out: the answer is {answer}."
            else:
                text = f"I think it is {rng.randint(0, 999)}, but I am not sure (try {m})."
            rows.append(
                {
                    "task_index": index,
                    "reward": 1.0 if right else 0.0,
                    "question": question,
                    "response_text": text,
                    "messages": [
                        {"role": "system", "content": "demo: simulated rollout (the Tasks view's example taskset)"},
                        {"role": "user", "content": question},
                        {"role": "assistant", "content": text},
                    ],
                }
            )
    return rows


def placeholder_tokens(text):
    """Token ids for a simulated row when no tokenizer is at hand: Trinity's Experience needs a
    response after its prompt (prompt_length 1): one placeholder id per word of the answer."""
    return [0] * (1 + max(1, len(text.split()))), 1


def write_simulated(db, table, step, steps, members, rng, experience_bytes, tokenize=None):
    """Writes this step's simulated groups into the buffer as Trinity's SQL storage does (one row
    per member, TRXP bytes from `experience_bytes`); returns the rewards. `tokenize(messages)`:
    (token ids, prompt length) through the model's chat template and tokenizer, or None."""
    rewards = []
    for n, r in enumerate(simulated_groups(step, steps, members, rng)):
        msg_id = f"demo-sim-{step}-{r['task_index']}-{n % members}"
        tokens, prompt_length = (tokenize(r["messages"]) if tokenize else None) or placeholder_tokens(r["response_text"])
        item = {
            "eid": {"batch": step, "task": str(r["task_index"]), "run": n % members, "step": 0, "suffix": msg_id},
            "reward": r["reward"], "truncate_status": None,
            "info": {"model_version": step, "task_index": {"index": r["task_index"], "taskset_id": SIMULATED_TASKSET_ID}, "simulated_rollout": True},
            "metrics": {"accuracy": r["reward"]},
            "prompt_length": prompt_length, "response_text": r["response_text"], "prompt_text": r["question"], "messages": r["messages"],
            "tools": None, "chosen_messages": None, "rejected_messages": None, "custom_fields": [], "multi_modal_input_keys": [],
        }
        db.execute(f"INSERT INTO {table} (task_id, run_id, msg_id, model_version, experience_bytes, reward) VALUES (?, ?, ?, ?, ?, ?)",
                   (str(r["task_index"]), n % members, msg_id, step, experience_bytes(item, {"tokens": ("I64", tokens)}), r["reward"]))
        rewards.append(r["reward"])
    db.commit()
    return rewards
