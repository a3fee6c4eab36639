"""{{name}}: the reward function of the Countdown tool-calling agent (registered as "{{name}}_reward").

Trinity calls ``CountdownReward(**reward_fn_args)(response=..., truth=...)``; the values of the
returned dict are summed into the reward and each one is logged as a metric.
"""
import ast
import json
import operator
import re

{{> trinity_reward_import.py}}

{{> safe_calculator.py}}

_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


@REWARD_FUNCTIONS.register_module("{{name}}_reward")
class CountdownReward(RewardFn):
    """accuracy: 1.0 when the last <answer> equation uses each given number exactly once and
    equals the target. format: ``format_bonus`` (reward_fn_args, default 0.1) for a well-formed
    <answer> that uses the right numbers but misses the target."""

    def __init__(self, format_bonus=0.1, **kwargs):
        self.format_bonus = float(format_bonus)

    def __call__(self, response, truth=None, **kwargs):
        spec = json.loads(truth) if isinstance(truth, str) else dict(truth or {})
        found = _ANSWER.findall(response or "")
        equation = found[-1].strip() if found else ""
        used = sorted(int(n) for n in re.findall(r"\d+", equation))
        if not equation or used != sorted(spec.get("numbers", [])):
            return {"accuracy": 0.0, "format": 0.0}
        try:
            correct = abs(evaluate_arithmetic(equation) - float(spec["target"])) < 1e-6
        except (ValueError, KeyError):
            correct = False
        return {"accuracy": 1.0 if correct else 0.0, "format": 0.0 if correct else self.format_bonus}
