"""Trinity's generation settings as an OpenAI request (agentrl_runner/sampling.py)."""

from __future__ import annotations

from agentrl_runner.sampling import DebugExperience, Sample, assemble_stream, make_experience, sampling_request


def test_vllm_only_keys_go_in_extra_body_none_is_dropped_n_and_logprobs_kept():
    """Trinity's generation settings: vLLM-only keys go in extra_body, None is dropped, n and logprobs kept."""
    # what SimpleWorkflow passes: asdict(GenerationConfig) with Trinity's defaults
    kw = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "logprobs": 0, "max_tokens": 512, "n": 4, "min_p": None}
    a, n = sampling_request({}, kw)
    # neutral vLLM values stay out (a hosted API would refuse top_k); nothing is a TypeError for the SDK
    assert a == {
        "temperature": 1,
        "top_p": 1,
        "max_tokens": 512,
        "logprobs": True,
        "n": 4,
        "extra_body": {"return_token_ids": True},
    }
    assert n == 4
    b, _ = sampling_request(
        {"temperature": 0.7},
        {"top_k": 20, "repetition_penalty": 1.1, "min_p": 0.05, "logprobs": 3, "lora_request": None, "bogus": 1},
    )
    assert b == {
        "temperature": 0.7,
        "logprobs": True,
        "top_logprobs": 3,
        "extra_body": {"top_k": 20, "repetition_penalty": 1.1, "min_p": 0.05, "return_token_ids": True},
    }


def test_a_stream_adds_up_to_the_completion_with_its_token_ids():
    """Stream chunks assemble into one completion: content, tool calls by index, token ids, logprobs."""
    chunks = [
        {
            "prompt_token_ids": [1, 2],
            "choices": [
                {
                    "index": 0,
                    "delta": {"role": "assistant", "content": "It "},
                    "token_ids": [5],
                    "logprobs": {"content": [{"logprob": -0.1}]},
                }
            ],
        },
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "content": "is",
                        "tool_calls": [{"index": 0, "id": "c1", "function": {"name": "get_", "arguments": '{"city"'}}],
                    },
                    "token_ids": [6],
                }
            ]
        },
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"name": "weather", "arguments": ': "Oslo"}'}}]},
                    "finish_reason": "tool_calls",
                }
            ]
        },
    ]
    out = assemble_stream(chunks)
    assert out["prompt_token_ids"] == [1, 2]
    (choice,) = out["choices"]
    assert choice["message"]["content"] == "It is"
    assert choice["message"]["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    ]
    assert choice["token_ids"] == [5, 6]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["logprobs"] == {"content": [{"logprob": -0.1}]}


def test_without_trinity_an_experience_is_a_debug_experience_with_the_same_fields():
    """Without trinity (and torch), make_experience gives a DebugExperience: tokens joined, prompt length."""
    exp = make_experience(Sample([1, 2, 3], [7, 8], [-0.5, -0.25], "hi", action_mask=[True, True]))
    assert isinstance(exp, DebugExperience)
    assert (exp.tokens, exp.prompt_length, exp.logprobs, exp.response_text) == ([1, 2, 3, 7, 8], 3, [-0.5, -0.25], "hi")
    assert exp.to_dict() == {"reward": None, "response_text": "hi", "info": {}, "metrics": {}, "prompt_length": 3}
    unknown = make_experience(Sample(None, None, None, "text only"))
    assert (unknown.tokens, unknown.prompt_length) == (None, 0)
