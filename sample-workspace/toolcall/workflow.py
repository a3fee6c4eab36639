"""A tool-calling agent workflow in the Trinity-RFT Workflow style.

Trinity constructs it as ToolCallWorkflow(task=..., model=..., auxiliary_models=...) and calls
run(); the Agent RL debugger does the same, with a model whose OpenAI client goes through its
recording gateway. Runs with or without trinity-rft installed.
"""
import json

from tools import TOOLS, call_tool

try:  # the real base class when Trinity-RFT is installed
    from trinity.common.workflows import Workflow
except ImportError:
    Workflow = object


class ToolCallWorkflow(Workflow):
    max_turns = 4

    def __init__(self, *, task, model, auxiliary_models=None):
        if Workflow is not object:
            super().__init__(task=task, model=model, auxiliary_models=auxiliary_models)
        self.task = task
        self.model = model
        self.client = model.get_openai_client()
        self.reward_fn = task.reward_fn(**task.reward_fn_args) if task.reward_fn else None
        self.temperature = task.rollout_args.temperature or 0.0
        self.max_tokens = task.rollout_args.max_tokens or 64

    def run(self):
        question = self.task.raw_task["question"]
        messages = [{"role": "user", "content": question}]
        answer = ""
        for _ in range(self.max_turns):
            reply = self.client.chat.completions.create(
                model=self.client.model_path, messages=messages, tools=TOOLS,
                temperature=self.temperature, max_tokens=self.max_tokens)
            message = reply.choices[0].message
            if not message.tool_calls:
                answer = message.content or ""
                break
            calls = [{"id": c.id, "type": "function",
                      "function": {"name": c.function.name, "arguments": c.function.arguments}}
                     for c in message.tool_calls]
            messages.append({"role": "assistant", "content": message.content or "", "tool_calls": calls})
            for call in calls:
                result = call_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
                print("tool {} -> {}".format(call["function"]["name"], result))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
        reward = self.reward_fn(response=answer, truth=self.task.raw_task["answer"]) if self.reward_fn else {}
        experiences = self.model.extract_experience_from_history()
        for exp in experiences:
            exp.reward = sum(reward.values())
            exp.metrics = dict(reward)
        return experiences
