"""How an episode is run for each workflow protocol (agentrl_runner/episodes.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentrl_runner.episodes import plain_model_arg

PLAN = {"model": {"baseUrl": "http://127.0.0.1:9/v1", "name": "tiny", "apiKey": "k"}, "config": {}}

# A stand-in for agentscope.model.OpenAIChatModel (agentscope is not installable here): it
# records how it was constructed, as the real class would be.
AGENTSCOPE_STANDIN = (
    "class OpenAIChatModel:\n"
    "    def __init__(self, model_name, api_key, stream, client_args):\n"
    '        self.model_name, self.base_url = model_name, client_args["base_url"]\n'
)


async def run_agent(task, model):
    pass


def with_client(task, client, model):
    pass


def test_agentscope_tuner_style_workflow_gets_an_agentscope_chat_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """AgentScope tuner style workflow(task, model): the model is an AgentScope chat model on the gateway."""
    (tmp_path / "agentscope" / "model").mkdir(parents=True)
    (tmp_path / "agentscope" / "__init__.py").write_text("")
    (tmp_path / "agentscope" / "model" / "__init__.py").write_text(AGENTSCOPE_STANDIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = plain_model_arg(run_agent, PLAN)
    assert type(m).__mro__[1].__module__ == "agentscope.model"
    assert (m.model_name, m.base_url) == ("tiny", "http://127.0.0.1:9/v1")
    assert plain_model_arg(with_client, PLAN) == "tiny", "beside a client, `model` is the model name"


def test_without_agentscope_using_the_model_says_what_is_missing():
    """Without agentscope, the model of a workflow(task, model) says so on first use."""
    m = plain_model_arg(run_agent, PLAN)
    with pytest.raises(RuntimeError, match="AgentScope chat model, and agentscope is not installed"):
        asyncio.run(m([]))
    assert plain_model_arg(with_client, PLAN) == "tiny"
