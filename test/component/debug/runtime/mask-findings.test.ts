// The action mask of an Experience a workflow builds itself, checked in a debug run: a workspace
// workflow (Trinity's Workflow style, test/fixtures/debug/hand_built.py) asks the real llama.cpp
// fixture model for a tool call, runs the tool, and builds Experience(tokens=…, action_mask=…)
// from Trinity's messages→experience conversion, then marks every response token trained — the
// tool's output included, on purpose.
// The debugger warns on that episode with the tool output's span, and the run summary counts it;
// the same workflow with the conversion's own mask gets no warning.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { collectOutput, launch, modelAndWorkspace, sdkPython, skipWithoutModel, startAdapter } from '../helpers';
import { addHandBuiltWorkflows } from '../../../harness/hand-built-workflow';
import { skipNoTokenizer } from '../../../harness/tiny-tokenizer';

describe('action-mask check of a hand-built Experience in a debug run (real model server, real runner)', { skip: skipWithoutModel || skipNoTokenizer }, () => {
  const env = modelAndWorkspace((ws) => addHandBuiltWorkflows(ws, { wrong: 'TrainsOnToolOutput', right: 'ConversionMask' }));

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

  test("the conversion's own mask: no warning", async () => {
    const output = await run('right.yaml');
    assert.match(output, /Rollout completed: 1 episode\(s\)/, output);
    assert.doesNotMatch(output, /are trained:|action mask:/, output);
  });
});
