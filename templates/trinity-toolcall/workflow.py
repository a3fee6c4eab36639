"""{{name}}: a tool-calling agent trained with Trinity-RFT (Countdown puzzles).

The agent gets a list of numbers and a target, may call the ``calculate`` tool (OpenAI function
calling) to try equations, and answers with ``<answer>equation</answer>``. It talks to the rollout
model through Trinity's OpenAI client with history recording, so every call of the episode becomes
an experience for ``multi_step_grpo``.

Registered as "{{name}}_workflow"; run ``trinity run --config config.yaml --plugin-dir .`` here.
"""
import ast
import json
import operator

{{> trinity_workflow_import.py}}

SYSTEM_PROMPT = (
    "You solve Countdown puzzles: combine the given numbers with + - * / and parentheses, using each "
    "number exactly once, to reach the target. Check candidate equations with the calculate tool. "
    "When you have found one, reply with it as <answer>equation</answer>."
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calculate",
            "description": "Evaluate an arithmetic expression and return its value.",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string", "description": "e.g. (44 + 19) + 35"}},
                "required": ["expression"],
            },
        },
    }
]

{{> safe_calculator.py}}


def run_tool(name, arguments):
    """Runs one tool call of the model; mistakes come back as text the model can read."""
    if name != "calculate":
        return f"error: unknown tool {name!r}"
    try:
        expression = json.loads(arguments or "{}")["expression"]
        return str(evaluate_arithmetic(expression))
    except (ValueError, KeyError, TypeError) as e:
        return f"error: {e}"


def puzzle(task):
    """(numbers, target) of a Countdown row: its answer column is JSON {"numbers": [...], "target": n}."""
    spec = task.raw_task[task.format_args.response_key]
    spec = json.loads(spec) if isinstance(spec, str) else spec
    return list(spec["numbers"]), spec["target"]


{{> sampling_args.py}}


@WORKFLOWS.register_module("{{name}}_workflow")
class CountdownToolWorkflow(Workflow):
{{> trinity_workflow_init.py}}
        self.numbers, self.target = puzzle(task)
        self.max_turns = int(task.workflow_args.get("max_turns", 6))

    def run(self):
        client = self.model.get_openai_client()
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Numbers: {self.numbers}. Target: {self.target}."},
        ]
        answer, tool_calls = "", 0
        for _ in range(self.max_turns):
            reply = client.chat.completions.create(
                model=client.model_path, messages=messages, tools=TOOLS, **sampling_args(self.task.rollout_args)
            )
            message = reply.choices[0].message
            if not message.tool_calls:
                answer = message.content or ""
                break
            calls = [
                {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in message.tool_calls
            ]
            messages.append({"role": "assistant", "content": message.content or "", "tool_calls": calls})
            for call in calls:
                tool_calls += 1
                result = run_tool(call["function"]["name"], call["function"]["arguments"])
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})

        scores = self.reward_fn(response=answer, truth={"numbers": self.numbers, "target": self.target})
        experiences = self.model.extract_experience_from_history()
        for experience in experiences:
            experience.reward = sum(scores.values())
            experience.metrics = {**(experience.metrics or {}), **scores, "tool_calls": float(tool_calls)}
        return experiences
