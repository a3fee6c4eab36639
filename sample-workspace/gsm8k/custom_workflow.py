"""A custom Trinity-RFT workflow for GSM8K: the answer must be the last number, exactly.

Trinity loads it as a plugin:  trinity run --config gsm8k/gsm8k.yaml --plugin-dir gsm8k
The config refers to it by its registered name, `gsm8k_strict_workflow`
(Agent RL Studio finds the registration: hover the name, or go to its definition).
"""

import re

try:
    from trinity.common.workflows import WORKFLOWS, Workflow
except ImportError:  # Trinity-RFT is not installed here: just enough of its API to debug a rollout (F5)

    class _Registry(dict):
        """Stands in for trinity.utils.registry.Registry: name -> class."""

        def register_module(self, name):
            def add(cls):
                self[name] = cls
                return cls

            return add

    class Workflow:
        def __init__(self, *, task, model, auxiliary_models=None):
            self.task, self.model, self.auxiliary_models = task, model, auxiliary_models
            self.run_id_base = 0

    WORKFLOWS = _Registry()

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def last_number(text: str):
    """The last number in a text, without thousands separators (None if there is none)."""
    found = _NUMBER.findall(text or "")
    return found[-1].replace(",", "") if found else None


@WORKFLOWS.register_module("gsm8k_strict_workflow")
class GSM8KStrictWorkflow(Workflow):
    """Asks the question once per repeat; reward 1.0 when the final number matches."""

    is_async = True

    def __init__(self, *, task, model, auxiliary_models=None):
        super().__init__(task=task, model=model, auxiliary_models=auxiliary_models)
        fmt = task.format_args
        self.question = task.raw_task[fmt.prompt_key]
        # GSM8K answers end with "#### <number>"
        self.truth = last_number(task.raw_task[fmt.response_key].split("####")[-1])

    async def run_async(self):
        messages = [
            {"role": "system", "content": "Solve the problem. End with the final number only."},
            {"role": "user", "content": self.question},
        ]
        experiences = await self.model.chat_async(messages, **vars(self.task.rollout_args))
        for run_id, exp in enumerate(experiences):
            exp.reward = 1.0 if last_number(exp.response_text) == self.truth else 0.0
            exp.metrics = {"accuracy": exp.reward}
            exp.eid.run = run_id
        return experiences
