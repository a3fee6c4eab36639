"""``python -m agentrl_runner``: see :mod:`agentrl_runner.main`."""

from agentrl_runner.main import main

main()
