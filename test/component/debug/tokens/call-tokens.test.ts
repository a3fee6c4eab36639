// "Show tokens" on an LLM call, over real DAP (the custom request agentrl.callTokens) against the
// real llama.cpp fixture server and a real runner: the ids and logprobs the endpoint returned,
// their texts from the fixture's tokenizer.json when the config's model_path is that folder, and
// from the endpoint's /detokenize when model_path names a model that is not on this machine.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CALL_TOKENS_REQUEST } from '../../../../src/debug/dap/session';
import { fromWire, type ExperienceWire } from '../../../../src/tokens/experience-wire';
import { byName, launch, modelAndWorkspace, sdkPython, skipWithoutModel, startAdapter } from '../helpers';
import { skipNoTokenizer, tinyTokenizer, tinyTokenizerDir } from '../../../harness/tiny-tokenizer';

type Body = { experience: ExperienceWire; notes: string[]; title: string };

describe('Show tokens on an LLM call (real model server, real runner)', { skip: skipWithoutModel || skipNoTokenizer }, () => {
  const env = modelAndWorkspace((ws) => {
    // The same run with model_path at the fixture's folder (tokenizer.json there).
    const yaml = fs.readFileSync(path.join(ws, 'toolcall.yaml'), 'utf8');
    fs.writeFileSync(path.join(ws, 'local.yaml'), yaml.replace(/model_path: tiny-toolcall/, `model_path: ${JSON.stringify(tinyTokenizerDir)}`));
    // A hosted model's id: not a folder here, not in the (empty) Hugging Face cache.
    fs.writeFileSync(path.join(ws, 'hosted.yaml'), yaml.replace(/model_path: tiny-toolcall/, 'model_path: Qwen/Qwen2.5-7B-Instruct'));
  });

  /** Runs one episode to its first tool call and asks for the tokens of the LLM call before it. */
  async function tokensOfFirstCall(config: string): Promise<{ body: Body; promptIds: number[]; completionIds: number[]; logprobs: number }> {
    const adapter = await startAdapter();
    const dc = adapter.dc;
    try {
      const stopped = dc.waitForEvent('stopped', 60000);
      await launch(
        dc,
        {
          config: path.join(env.ws, config),
          cwd: env.ws,
          workspaceRoot: env.ws,
          python: sdkPython,
          model: { baseUrl: env.model.url },
          tasks: 1,
          record: false,
          env: { HF_HUB_CACHE: path.join(env.ws, 'no-hf-cache') },
        },
        { functionBreakpoints: ['tool'] },
      );
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      const frames = (await dc.stackTraceRequest({ threadId: s.body.threadId! })).body.stackFrames;
      const llm = frames.find((f) => f.name.startsWith('llm #1'))!;
      const scopes = (await dc.scopesRequest({ frameId: llm.id })).body.scopes;
      const response = scopes.find((x) => x.name === 'Response')!;
      const vars = (await dc.variablesRequest({ variablesReference: response.variablesReference })).body.variables;
      const tokensVar = byName(vars, 'tokens') as DebugProtocol.Variable & { __vscodeVariableMenuContext?: string };
      assert.equal(tokensVar.__vscodeVariableMenuContext, 'agentrlCallTokens', 'the Response variables carry the "Show tokens" menu');
      const ids = async (name: string) =>
        (await dc.variablesRequest({ variablesReference: byName(vars, name).variablesReference })).body.variables.map((v) => Number(v.value));
      const promptIds = await ids('prompt_token_ids');
      const completionIds = await ids('token_ids');
      const logprobs = byName(vars, 'logprobs').indexedVariables ?? 0;
      const r = await dc.customRequest(CALL_TOKENS_REQUEST, { variablesReference: response.variablesReference });
      const wrong = await dc.customRequest(CALL_TOKENS_REQUEST, { variablesReference: 999999 }).then(
        () => undefined,
        (e: Error) => e.message,
      );
      assert.match(wrong ?? '', /Response/, 'a reference that is no Response scope gets a clear error');
      await dc.terminateRequest().catch(() => undefined);
      return { body: r.body as Body, promptIds, completionIds, logprobs };
    } finally {
      await adapter.close();
    }
  }

  function checkCall(got: Awaited<ReturnType<typeof tokensOfFirstCall>>): ReturnType<typeof fromWire> {
    const e = fromWire(got.body.experience);
    assert.ok(got.completionIds.length > 3, 'the endpoint returned completion ids');
    assert.deepEqual(Array.from(e.ids), [...got.promptIds, ...got.completionIds], "the ids are the endpoint's own");
    assert.equal(e.promptLength, got.promptIds.length);
    assert.deepEqual(Array.from(e.trained), [...got.promptIds.map(() => 0), ...got.completionIds.map(() => 1)], 'the completion is what training learns from');
    assert.equal(got.logprobs, got.completionIds.length);
    const lp = Array.from(e.logprobs!);
    assert.ok(
      lp.slice(0, e.promptLength).every(Number.isNaN) && lp.slice(e.promptLength).every((x) => Number.isFinite(x) && x <= 0),
      'logprobs on the completion',
    );
    // Texts checked against the fixture's tokenizer.json, loaded here on its own.
    assert.equal(e.texts?.joined, tinyTokenizer().decode(e.ids), 'the token texts join to the decode of the ids');
    assert.match(got.body.title, /^T\w+#R0 llm #1$/);
    return e;
  }

  test('model_path is the model folder: texts from its tokenizer.json', async () => {
    const got = await tokensOfFirstCall('local.yaml');
    const e = checkCall(got);
    assert.deepEqual(Array.from(e.texts!.offsets), Array.from(tinyTokenizer().tokenTexts(e.ids).offsets));
    assert.match(got.body.notes[0], /tokenizer of .*tiny-toolcall/);
  });

  test("model_path not on this machine: texts from the endpoint's /detokenize, and it says so", async () => {
    const got = await tokensOfFirstCall('hosted.yaml');
    checkCall(got);
    assert.match(got.body.notes[0], /from the endpoint \(http:\/\/127\.0\.0\.1:\d+\/detokenize\): no tokenizer on this machine \(.*Qwen\/Qwen2\.5-7B-Instruct/);
  });
});
