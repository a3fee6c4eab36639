// The action mask of an Experience a workflow builds itself, checked in a debug run: a workspace
// workflow (Trinity's Workflow style, test/fixtures/debug/hand_built.py) asks the real llama.cpp
// fixture model for a tool call, runs the tool, and builds Experience(tokens=…, action_mask=…)
// from Trinity's messages→experience conversion, then marks every response token trained — the
// tool's output included, on purpose.
// The debugger warns on that episode with the tool output's span, and the run summary counts it;
// the same workflow with the conversion's own mask gets no warning. Built without its messages
// (as Trinity's Workflow.process_messages_to_experience rebuilds the converted Experience), the
// wrong mask is caught all the same: the runner finds the messages by the ids the model's
// conversion returned. And with Trinity-RFT 0.5.2's own code (.cache/trinity-venv, its source
// from ../shared/upstream): a multi-turn conversation of environment observations (user turns)
// and moves, converted by the model and rebuilt by Trinity's own
// MultiTurnWorkflow._build_experience_from_converted, gets a verdict on its mask — correct as
// converted, and a warning on the observation when every response token is marked trained.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { collectOutput, launch, modelAndWorkspace, sdkPython, skipWithoutModel, startAdapter } from '../helpers';
import { addHandBuiltWorkflows } from '../../../harness/hand-built-workflow';
import { skipNoTokenizer } from '../../../harness/tiny-tokenizer';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';

/** Trinity's own builder on a multi-turn conversation; {train_all} marks every response token trained. */
const TRINITY_BUILT = `"""Trinity's MultiTurnWorkflow rebuilds what the model converted, as frozen_lake_workflow does."""
from trinity.common.workflows.workflow import MultiTurnWorkflow

TRAIN_ALL = {train_all}
MESSAGES = [
    {"role": "system", "content": "You walk on a frozen lake. Answer with one move."},
    {"role": "user", "content": "Current Observation (0): P _ / _ G. Please give the next action."},
    {"role": "assistant", "content": "Right"},
    {"role": "user", "content": "Current Observation (1): _ P / _ G. Please give the next action."},
    {"role": "assistant", "content": "Down"},
]


class RebuiltByTrinity(MultiTurnWorkflow):
    def run(self):
        converted = self.model.convert_messages_to_experience(MESSAGES)
        if TRAIN_ALL:
            converted.action_mask[:] = True
        return [self._build_experience_from_converted(converted, 0.0)]
`;

const trinityPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const skipTrinity =
  !hasShared || !fs.existsSync(path.join(sharedDir, 'upstream', 'trinity-rft-0.5.2'))
    ? 'needs ../shared/upstream/trinity-rft-0.5.2'
    : !fs.existsSync(trinityPython)
      ? 'needs .cache/trinity-venv (bash scripts/setup.sh trinity)'
      : false;

describe('action-mask check of a hand-built Experience in a debug run (real model server, real runner)', { skip: skipWithoutModel || skipNoTokenizer }, () => {
  const env = modelAndWorkspace((ws) => {
    addHandBuiltWorkflows(ws, { wrong: 'TrainsOnToolOutput', right: 'ConversionMask', rebuilt: 'WithoutMessages' });
    const yaml = fs.readFileSync(path.join(ws, 'wrong.yaml'), 'utf8');
    for (const [name, trainAll] of [
      ['trinity_wrong', 'True'],
      ['trinity_right', 'False'],
    ] as const) {
      fs.writeFileSync(path.join(ws, `${name}.py`), TRINITY_BUILT.replace('{train_all}', trainAll));
      fs.writeFileSync(path.join(ws, `${name}.yaml`), yaml.replace('hand_built.TrainsOnToolOutput', `${name}.RebuiltByTrinity`));
    }
  });

  async function run(config: string, python = sdkPython, pyEnv: Record<string, string> = {}): Promise<string> {
    const adapter = await startAdapter();
    const out = collectOutput(adapter.dc);
    try {
      const ended = adapter.dc.waitForEvent('terminated', 120000);
      await launch(adapter.dc, {
        config: path.join(env.ws, config),
        cwd: env.ws,
        workspaceRoot: env.ws,
        python,
        env: pyEnv,
        model: { baseUrl: env.model.url },
        tasks: 1,
        record: false,
      });
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
    assert.match(
      warnings[0],
      /^T\w+#R0: experience 0: \d+ tokens of tool output \(message 2, tokens \d+–\d+\) are trained: `<\|im_start\|>user↵<tool_response>↵\{"city…`$/,
    );
    assert.match(output, /action mask: 1 span\(s\) of tool output, user or system tokens marked trained in 1 episode\(s\)/);
  });

  test("built without its messages, as Trinity's own builder does: the same warning, on the turns of the conversation the model converted", async () => {
    const output = await run('rebuilt.yaml');
    const warnings = output.split('\n').filter((l) => /are trained:/.test(l));
    assert.equal(warnings.length, 1, output);
    assert.match(
      warnings[0],
      /^T\w+#R0: experience 0: \d+ tokens of tool output \(message 2, tokens \d+–\d+\) are trained: `<\|im_start\|>user↵<tool_response>↵\{"city…`$/,
    );
    assert.doesNotMatch(output, /action mask not checked/, output);
  });

  test("the conversion's own mask: no warning", async () => {
    const output = await run('right.yaml');
    assert.match(output, /Rollout completed: 1 episode\(s\)/, output);
    assert.doesNotMatch(output, /are trained:|action mask:/, output);
  });
  const runTrinity = (config: string) => {
    const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
    return run(config, trinityPython, { PYTHONPATH: pythonpath, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', HF_DATASETS_OFFLINE: '1' });
  };

  test(
    "Trinity's own builder, every response token marked trained: a warning on the environment's observation (a user turn)",
    { skip: skipTrinity },
    async () => {
      const output = await runTrinity('trinity_wrong.yaml');
      const warnings = output.split('\n').filter((l) => /are trained:/.test(l));
      assert.equal(warnings.length, 1, output);
      assert.match(
        warnings[0],
        /^T\w+#R0: experience 0: \d+ tokens of user message \(message 3, tokens \d+–\d+\) are trained: `<\|im_start\|>user↵Current Observation \(1…`$/,
      );
      assert.doesNotMatch(output, /action mask not checked/, output);
      assert.match(output, /action mask: 1 span\(s\) of tool output, user or system tokens marked trained in 1 episode\(s\)/);
    },
  );

  test("Trinity's own builder on the conversion's mask: checked, no warning", { skip: skipTrinity }, async () => {
    const output = await runTrinity('trinity_right.yaml');
    assert.doesNotMatch(output, /are trained:|action mask:|action mask not checked/, output);
    assert.match(
      output,
      /checked against the chat template: \d+ LLM call\(s\) for retokenization drift, 1 returned experience\(s\) for their action mask/,
      output,
    );
  });
});
