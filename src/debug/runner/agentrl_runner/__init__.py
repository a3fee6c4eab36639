"""Agent RL Studio's rollout runner: the Python side of the native debug backbone.

The extension starts it as ``python -m agentrl_runner --connect HOST:PORT`` (the session's
token in the ``AGENTRL_RUNNER_TOKEN`` environment variable, never on the command line). It
connects back over a loopback socket (:mod:`agentrl_runner.protocol`), receives the plan,
loads the tasks, imports the workflow and runs tasks x repeat episodes; every LLM call goes
to the extension's recording gateway. Standard library only, Python 3.8 and later.
"""
