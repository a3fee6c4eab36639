// "Show tokens" on what an episode returned, over real DAP (the custom request
// agentrl.experienceTokens) against the real llama.cpp fixture server and a real runner: a
// workspace workflow (test/fixtures/debug/hand_built.py) builds Experience(tokens=…, action_mask=…)
// from Trinity's messages→experience conversion and marks every response token trained — the
// tool's output included, on purpose.
// Asked on the ended episode's Episode scope while the next episode is stopped (and, stopped on
// its reward after a Step Out, before the episode has ended), the debugger
// answers with those very ids and mask, the turns (user, assistant, tool) located by the fixture's
// chat template, and the mask warning on the tool output's span.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { EXPERIENCE_TOKENS_REQUEST } from '../../../../src/debug/dap/session';
import { fromWire, type ExperienceWire } from '../../../../src/tokens/experience-wire';
import type { MaskWarning, TurnSpan } from '../../../../src/tokens/mask-check';
import { byName, launch, modelAndWorkspace, sdkPython, skipWithoutModel, startAdapter } from '../helpers';
import { addHandBuiltWorkflows } from '../../../harness/hand-built-workflow';
import { skipNoTokenizer, tinyTokenizer } from '../../../harness/tiny-tokenizer';

type Returned = { index: number; experience: ExperienceWire; turns: TurnSpan[]; warnings: MaskWarning[]; notes: string[] };
type Body = { experiences: Returned[]; title: string };

describe('Show tokens on what an episode returned (real model server, real runner)', { skip: skipWithoutModel || skipNoTokenizer }, () => {
  const env = modelAndWorkspace((ws) => {
    addHandBuiltWorkflows(ws, { hand: 'TrainsOnToolOutput' });
    // The sample as the sandbox runs it when its model's files are not on this machine: a hub id
    // the (empty) Hugging Face cache does not hold, so the run's tokenizer is the endpoint's.
    const yaml = fs.readFileSync(path.join(ws, 'toolcall.yaml'), 'utf8');
    fs.writeFileSync(path.join(ws, 'hosted.yaml'), yaml.replace(/model_path: tiny-toolcall/, 'model_path: Qwen/Qwen2.5-7B-Instruct'));
  });

  test('the returned ids and mask, the turns, and the warning on the tool output', async () => {
    const adapter = await startAdapter();
    const dc = adapter.dc;
    try {
      // Two episodes, one after the other, stopping before each LLM call: at the second stop the
      // first episode has ended and returned its experience.
      const first = dc.waitForEvent('stopped', 60000);
      await launch(
        dc,
        {
          config: path.join(env.ws, 'hand.yaml'),
          cwd: env.ws,
          workspaceRoot: env.ws,
          python: sdkPython,
          model: { baseUrl: env.model.url },
          tasks: 2,
          record: false,
        },
        { functionBreakpoints: ['llm'] },
      );
      const s1 = (await first) as DebugProtocol.StoppedEvent;
      const second = dc.waitForEvent('stopped', 60000);
      await dc.continueRequest({ threadId: s1.body.threadId! });
      const s2 = (await second) as DebugProtocol.StoppedEvent;
      assert.notEqual(s2.body.threadId, s1.body.threadId, 'the second stop is the next episode');

      const frames = (await dc.stackTraceRequest({ threadId: s1.body.threadId! })).body.stackFrames;
      const scopes = (await dc.scopesRequest({ frameId: frames[0].id })).body.scopes;
      const episode = scopes.find((x) => x.name === 'Episode')!;
      const vars = (await dc.variablesRequest({ variablesReference: episode.variablesReference })).body.variables;
      const exps = byName(vars, 'experiences') as DebugProtocol.Variable & { __vscodeVariableMenuContext?: string };
      assert.equal(exps.__vscodeVariableMenuContext, 'agentrlExperienceTokens', 'the returned experiences carry the "Show tokens" menu');

      const body = (await dc.customRequest(EXPERIENCE_TOKENS_REQUEST, { variablesReference: episode.variablesReference })).body as Body;
      const running = (
        await dc.scopesRequest({ frameId: (await dc.stackTraceRequest({ threadId: s2.body.threadId! })).body.stackFrames[0].id })
      ).body.scopes.find((x) => x.name === 'Episode')!;
      const refused = await dc.customRequest(EXPERIENCE_TOKENS_REQUEST, { variablesReference: running.variablesReference }).then(
        () => undefined,
        (e: Error) => e.message,
      );
      assert.match(refused ?? '', /Stop where an episode returns/, 'a running episode has returned nothing yet: a clear error');
      await dc.terminateRequest().catch(() => undefined);

      assert.equal(body.experiences.length, 1);
      const r = body.experiences[0];
      const e = fromWire(r.experience);
      const tok = tinyTokenizer();
      assert.equal(e.texts?.joined, tok.decode(e.ids), 'texts from the fixture tokenizer');
      assert.ok(e.promptLength > 0 && e.promptLength < e.ids.length);
      assert.deepEqual(
        Array.from(e.trained),
        Array.from(e.ids, (_, i) => (i < e.promptLength ? 0 : 1)),
        'the mask the workflow built: the whole response trained',
      );

      // The turns: every message located, in order, contiguous, ending where the ids end.
      // Before them, a system message of the workflow's or, without one, the template's own system
      // prompt (message -1): located from the first token on.
      const roles = r.turns.map((t) => `${t.message}:${t.role}`);
      assert.deepEqual(
        roles.filter((x) => !x.endsWith(':system') && x !== '-1:template'),
        ['0:user', '1:assistant', '2:tool'],
        JSON.stringify(r.turns),
      );
      assert.equal(r.turns[0].start, 0, JSON.stringify(r.turns));
      for (let i = 1; i < r.turns.length; i++) assert.ok(r.turns[i].start >= r.turns[i - 1].end, 'turns in order');
      const tool = r.turns.find((t) => t.role === 'tool')!;
      assert.ok(tool.start >= e.promptLength, 'the tool output lies in the response');
      assert.match(tok.decode(e.ids.slice(tool.start, tool.end)), /<tool_response>/);

      // The warning: on the tool output's span, its tokens trained.
      assert.equal(r.warnings.length, 1, JSON.stringify(r.warnings));
      const w = r.warnings[0];
      assert.equal(w.role, 'tool');
      assert.ok(w.start >= tool.start && w.end <= tool.end && w.end > w.start, `warning ${w.start}–${w.end} inside the tool turn ${tool.start}–${tool.end}`);
      assert.ok(Array.from(e.trained.slice(w.start, w.end)).every((x) => x === 1));
      assert.ok(
        r.notes.some((n) => /tokens of tool output \(message 2, tokens \d+–\d+\) are trained/.test(n)),
        r.notes.join('\n'),
      );
      assert.match(body.title, /^T\w+#R0$/);
    } finally {
      await adapter.close();
    }
  });

  test('stopped where the episode returned (Step Out of it): its experiences answer before it ends', async () => {
    const adapter = await startAdapter();
    const dc = adapter.dc;
    try {
      const first = dc.waitForEvent('stopped', 60000);
      await launch(
        dc,
        {
          config: path.join(env.ws, 'hand.yaml'),
          cwd: env.ws,
          workspaceRoot: env.ws,
          python: sdkPython,
          model: { baseUrl: env.model.url },
          tasks: 1,
          record: false,
        },
        { functionBreakpoints: ['llm'] },
      );
      const s1 = (await first) as DebugProtocol.StoppedEvent;
      const returned = dc.waitForEvent('stopped', 60000);
      await dc.stepOutRequest({ threadId: s1.body.threadId! });
      const s2 = (await returned) as DebugProtocol.StoppedEvent;
      assert.equal(s2.body.threadId, s1.body.threadId, 'the same episode, stopped on its reward');
      const frames = (await dc.stackTraceRequest({ threadId: s2.body.threadId! })).body.stackFrames;
      assert.match(frames[0].name, /reward/);
      const episode = (await dc.scopesRequest({ frameId: frames[0].id })).body.scopes.find((x) => x.name === 'Episode')!;
      const exps = byName(
        (await dc.variablesRequest({ variablesReference: episode.variablesReference })).body.variables,
        'experiences',
      ) as DebugProtocol.Variable & { __vscodeVariableMenuContext?: string };
      assert.equal(exps.__vscodeVariableMenuContext, 'agentrlExperienceTokens');
      const body = (await dc.customRequest(EXPERIENCE_TOKENS_REQUEST, { variablesReference: episode.variablesReference })).body as Body;
      await dc.terminateRequest().catch(() => undefined);
      assert.equal(body.experiences.length, 1);
      assert.deepEqual(
        body.experiences[0].turns.map((t) => t.role).filter((r) => r !== 'system' && r !== 'template'),
        ['user', 'assistant', 'tool'],
      );
      assert.equal(body.experiences[0].warnings.length, 1);
    } finally {
      await adapter.close();
    }
  });

  test("no tokenizer on this machine: the texts from the endpoint Show Tokens used, the engine's logprobs, and the episode that returned says so", async () => {
    const adapter = await startAdapter();
    const dc = adapter.dc;
    try {
      const first = dc.waitForEvent('stopped', 60000);
      await launch(
        dc,
        {
          config: path.join(env.ws, 'hosted.yaml'),
          cwd: env.ws,
          workspaceRoot: env.ws,
          python: sdkPython,
          model: { baseUrl: env.model.url },
          tasks: 1,
          record: false,
          env: { HF_HUB_CACHE: path.join(env.ws, 'no-hf-cache') },
        },
        { functionBreakpoints: ['tool', 'reward>-1'] },
      );
      // Stopped on the first tool call: the LLM call that asked for it has its reply.
      const s1 = (await first) as DebugProtocol.StoppedEvent;
      const atTool = (await dc.stackTraceRequest({ threadId: s1.body.threadId! })).body.stackFrames;
      const llm1 = atTool.find((f) => /^llm #1/.test(f.name));
      assert.ok(llm1, atTool.map((f) => f.name).join(' | '));
      assert.match(llm1.name, /→ get_weather|→ add/, 'the call shows the tool it asked for');
      assert.doesNotMatch(llm1.name, /waiting for the model/);
      const returned = dc.waitForEvent('stopped', 60000);
      await dc.continueRequest({ threadId: s1.body.threadId! });
      const s2 = (await returned) as DebugProtocol.StoppedEvent;
      const frames = (await dc.stackTraceRequest({ threadId: s2.body.threadId! })).body.stackFrames;
      assert.match(frames[0].name, /reward 1/, "the sample's first task is solved");
      const episode = (await dc.scopesRequest({ frameId: frames[0].id })).body.scopes.find((x) => x.name === 'Episode')!;
      const vars = (await dc.variablesRequest({ variablesReference: episode.variablesReference })).body.variables;
      assert.equal(byName(vars, 'status').value, '"done"', 'the episode returned: it is not running any more');
      const body = (await dc.customRequest(EXPERIENCE_TOKENS_REQUEST, { variablesReference: episode.variablesReference })).body as Body;
      await dc.terminateRequest().catch(() => undefined);
      assert.ok(body.experiences.length >= 1);
      for (const r of body.experiences) {
        const e = fromWire(r.experience);
        assert.equal(e.texts?.joined, tinyTokenizer().decode(e.ids), "texts from the endpoint's /detokenize, as Show Tokens has them");
        assert.match(r.notes[0], /from the endpoint \(http:\/\/127\.0\.0\.1:\d+\/detokenize\)/);
        const lp = Array.from(e.logprobs!).slice(e.promptLength);
        assert.ok(lp.length > 0 && lp.every((x) => Number.isFinite(x) && x <= 0), `the engine's logprobs of the response: ${lp.join(',')}`);
        assert.ok(!r.notes.some((n) => /logprob/i.test(n)), r.notes.join('\n'));
      }
    } finally {
      await adapter.close();
    }
  });
});
