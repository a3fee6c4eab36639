"""What convert_messages_to_experience was given, found again by token ids (agentrl_runner/conversions.py),
and the returned experiences that get those messages back (episodes._experience_tokens)."""

from __future__ import annotations

from agentrl_runner import episodes
from agentrl_runner.conversions import Conversions
from agentrl_runner.sampling import DebugExperience

MESSAGES = [
    {"role": "system", "content": "You walk on a frozen lake."},
    {"role": "user", "content": "Observation: P _ G"},
    {"role": "assistant", "content": "```Right```"},
    {"role": "user", "content": "Observation: _ P G"},
]
IDS = [1, 20, 300, 4000, 50000, 7, 8]


def test_found_by_ids_not_identity_and_a_copy_of_what_was_given():
    store = Conversions()
    messages = [dict(m) for m in MESSAGES]
    store.record(IDS, messages, tools=None)
    messages.append({"role": "assistant", "content": "the workflow goes on editing its list"})
    messages[0]["content"] = "edited"
    found = store.find(list(IDS))
    assert found is not None
    assert found.messages == MESSAGES, "what the conversion was given, not the list as edited later"
    assert found.tools is None
    assert store.find(IDS[:-1]) is None, "a prefix is other ids"
    assert store.find(IDS[:-1] + [9]) is None, "same length, one id differs"


def test_bounded_oldest_dropped_first_and_cleared():
    store = Conversions(limit=3)
    for i in range(5):
        store.record([i, i + 1], [{"role": "user", "content": str(i)}])
    assert len(store) == 3
    assert store.find([0, 1]) is None and store.find([1, 2]) is None
    assert store.find([4, 5]).messages == [{"role": "user", "content": "4"}]
    store.record([2, 3], [{"role": "user", "content": "again"}])
    store.record([5, 6], [{"role": "user", "content": "5"}])
    again = store.find([2, 3])
    assert again is not None and again.messages == [{"role": "user", "content": "again"}], "done again: the newest"
    assert store.find([3, 4]) is None
    store.clear()
    assert len(store) == 0 and store.find([4, 5]) is None


def test_no_messages_nothing_kept():
    store = Conversions()
    store.record(IDS, [])
    store.record(IDS, None)
    assert len(store) == 0


def test_a_rebuilt_experience_gets_the_messages_of_the_conversion_with_its_ids():
    """As Trinity's Workflow._build_experience_from_converted: the same ids and mask, no messages."""
    store = Conversions()
    tools = [{"type": "function", "function": {"name": "look"}}]
    store.record(IDS, MESSAGES, tools)
    rebuilt = DebugExperience(tokens=list(IDS), prompt_length=3, action_mask=[True, True, False, False])
    own = DebugExperience(tokens=list(IDS), prompt_length=3, action_mask=[True] * 4, messages=MESSAGES[:2])
    other = DebugExperience(tokens=IDS[:-1] + [9], prompt_length=3, action_mask=[True] * 4)
    out = episodes._experience_tokens([rebuilt, own, other], store)
    assert [e["index"] for e in out] == [0, 1, 2]
    assert out[0]["messages"] == MESSAGES and out[0]["tools"] == tools
    assert out[0]["actionMask"] == [1, 1, 0, 0], "the experience's own mask, which is what gets checked"
    assert out[1]["messages"] == MESSAGES[:2], "an experience's own messages win"
    assert out[2]["messages"] is None, "other ids: nothing to attach (the debugger says the mask was not checked)"
    assert episodes._experience_tokens([rebuilt])[0]["messages"] is None
