// The action mask of an Experience a workflow builds itself, checked in a debug run: a workspace
// workflow (Trinity's Workflow style) asks the real llama.cpp fixture model for a tool call, runs
// the tool, and builds Experience(tokens=…, action_mask=…) from Trinity's messages→experience
// conversion, then marks every response token trained — the tool's output included, on purpose.
// The debugger warns on that episode with the tool output's span, and the run summary counts it;
// the same workflow with the conversion's own mask gets no warning. Built without its messages
// (as Trinity's Workflow.process_messages_to_experience rebuilds the converted Experience), the
// wrong mask is caught all the same: the runner finds the messages by the ids the model's
// conversion returned.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { collectOutput, launch, modelAndWorkspace, sdkPython, skipWithoutModel, startAdapter } from '../helpers';
import { skipNoTokenizer, tinyTokenizerDir } from '../../../harness/tiny-tokenizer';

const WORKFLOW = `"""Builds its Experience itself; TRAIN_ALL marks every response token trained (tool output too);
KEEP_MESSAGES False leaves the messages out, as Trinity's own builder does."""
import json
import types

from tools import TOOLS, call_tool

try:
    from trinity.common.workflows import Workflow
    from trinity.common.experience import Experience
except ImportError:
    Workflow = object
    Experience = None

TRAIN_ALL = {train_all}
KEEP_MESSAGES = {keep_messages}


class HandBuiltExperience(Workflow):
    def __init__(self, *, task, model, auxiliary_models=None):
        self.task = task
        self.model = model
        self.client = model.get_openai_client()

    def run(self):
        messages = [{"role": "user", "content": self.task.raw_task["question"]}]
        reply = self.client.chat.completions.create(
            model=self.client.model_path, messages=messages, tools=TOOLS, temperature=0.0, max_tokens=64)
        message = reply.choices[0].message
        calls = [{"id": c.id, "type": "function",
                  "function": {"name": c.function.name, "arguments": json.loads(c.function.arguments)}}
                 for c in message.tool_calls or []]
        messages.append({"role": "assistant", "content": message.content or "", "tool_calls": calls})
        for c in calls:
            result = call_tool(c["function"]["name"], c["function"]["arguments"])
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": json.dumps(result)})
        base = self.model.convert_messages_to_experience(messages, tools=TOOLS)
        tokens = [int(t) for t in base.tokens]
        prompt_length = int(base.prompt_length)
        mask = [1] * (len(tokens) - prompt_length) if TRAIN_ALL else [int(x) for x in base.action_mask]
        fields = dict(tokens=tokens, prompt_length=prompt_length, action_mask=mask, reward=0.0)
        if KEEP_MESSAGES:
            fields.update(messages=messages, tools=TOOLS)
        if Experience is not None:
            return [Experience(**fields)]
        return [types.SimpleNamespace(metrics={{}}, info={{}}, response_text="", **fields)]
`;

describe('action-mask check of a hand-built Experience in a debug run (real model server, real runner)', { skip: skipWithoutModel || skipNoTokenizer }, () => {
  const env = modelAndWorkspace((ws) => {
    const dir = path.join(ws, 'model');
    fs.mkdirSync(dir);
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(dir, f));
    const yaml = fs.readFileSync(path.join(ws, 'toolcall.yaml'), 'utf8').replace(/model_path: tiny-toolcall/, `model_path: ${JSON.stringify(dir)}`);
    for (const [name, trainAll, keepMessages] of [['wrong', 'True', 'True'], ['right', 'False', 'True'], ['rebuilt', 'True', 'False']] as const) {
      fs.writeFileSync(path.join(ws, `hand_${name}.py`), WORKFLOW.replace('{train_all}', trainAll).replace('{keep_messages}', keepMessages).replace('{{}}', '{}').replace('{{}}', '{}'));
      fs.writeFileSync(path.join(ws, `${name}.yaml`), yaml.replace('workflow.ToolCallWorkflow', `hand_${name}.HandBuiltExperience`));
    }
  });

  async function run(config: string): Promise<string> {
    const adapter = await startAdapter();
    const out = collectOutput(adapter.dc);
    try {
      const ended = adapter.dc.waitForEvent('terminated', 120000);
      await launch(adapter.dc, { config: path.join(env.ws, config), cwd: env.ws, workspaceRoot: env.ws, python: sdkPython, model: { baseUrl: env.model.url }, tasks: 1, record: false });
      await ended;
      return out.text();
    } finally {
      await adapter.close();
    }
  }

  test('tool output marked trained: a warning on the episode with the span and its text, and a summary line', async () => {
    const output = await run('wrong.yaml');
    const warnings = output.split('\n').filter((l) => /are trained:/.test(l));
    assert.equal(warnings.length, 1, output);
    assert.match(warnings[0], /^T\w+#R0: experience 0: \d+ tokens of tool output \(message 2, tokens \d+–\d+\) are trained: `<\|im_start\|>user↵<tool_response>↵\{"city…`$/);
    assert.match(output, /action mask: 1 span\(s\) of tool output, user or system tokens marked trained in 1 episode\(s\)/);
  });

  test("built without its messages, as Trinity's own builder does: the same warning, on the turns of the conversation the model converted", async () => {
    const output = await run('rebuilt.yaml');
    const warnings = output.split('\n').filter((l) => /are trained:/.test(l));
    assert.equal(warnings.length, 1, output);
    assert.match(warnings[0], /^T\w+#R0: experience 0: \d+ tokens of tool output \(message 2, tokens \d+–\d+\) are trained: `<\|im_start\|>user↵<tool_response>↵\{"city…`$/);
    assert.doesNotMatch(output, /action mask not checked/, output);
  });

  test("the conversion's own mask: no warning", async () => {
    const output = await run('right.yaml');
    assert.match(output, /Rollout completed: 1 episode\(s\)/, output);
    assert.doesNotMatch(output, /are trained:|action mask:/, output);
  });
});
