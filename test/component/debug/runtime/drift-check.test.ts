// Retokenization drift in a debug run, over real DAP against the real llama.cpp fixture server and
// a real runner (the sample tool-calling workflow: a tool call, then an answer after the tool
// result). With the model's own chat template the engine's ids and the template's agree on every
// call; with a template that renders tool results with one more newline (a trainer whose template
// differs from the server's), the second call — after the tool result — drifts, and only it.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { collectOutput, launch, modelAndWorkspace, sdkPython, skipWithoutModel, startAdapter } from '../helpers';
import { skipNoTokenizer, tinyTokenizerDir } from '../../../harness/tiny-tokenizer';

describe('retokenization drift in a debug run (real model server, real runner)', { skip: skipWithoutModel || skipNoTokenizer }, () => {
  const env = modelAndWorkspace((ws) => {
    const yaml = fs.readFileSync(path.join(ws, 'toolcall.yaml'), 'utf8');
    for (const [name, edit] of [['same', (t: string) => t], ['other', (t: string) => t.replace("'\\n<tool_response>\\n'", "'\\n<tool_response>\\n\\n'")]] as const) {
      const dir = path.join(ws, `model-${name}`);
      fs.mkdirSync(dir);
      for (const f of ['tokenizer.json', 'tokenizer_config.json']) fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(dir, f));
      const template = fs.readFileSync(path.join(tinyTokenizerDir, 'chat_template.jinja'), 'utf8');
      const edited = edit(template);
      if (name === 'other') assert.notEqual(edited, template, 'the fixture template renders tool results as expected');
      fs.writeFileSync(path.join(dir, 'chat_template.jinja'), edited);
      fs.writeFileSync(path.join(ws, `${name}.yaml`), yaml.replace(/model_path: tiny-toolcall/, `model_path: ${JSON.stringify(dir)}`));
    }
  });

  async function run(config: string): Promise<{ output: string; stops: string[] }> {
    const adapter = await startAdapter();
    const dc = adapter.dc;
    const out = collectOutput(dc);
    const stops: string[] = [];
    dc.on('stopped', (e: DebugProtocol.StoppedEvent) => {
      stops.push(`${e.body.reason}: ${e.body.description ?? ''}`);
      void dc.continueRequest({ threadId: e.body.threadId! });
    });
    try {
      const ended = dc.waitForEvent('terminated', 120000);
      await launch(dc, { config: path.join(env.ws, config), cwd: env.ws, workspaceRoot: env.ws, python: sdkPython, model: { baseUrl: env.model.url }, tasks: 1, record: false }, { exceptionFilters: ['drift'] });
      await ended;
      return { output: out.text(), stops };
    } finally {
      await adapter.close();
    }
  }

  // The fixture's template renders tool-call arguments (a JSON string in OpenAI messages) as a
  // quoted string where the server renders the object: a real drift, on the call that made the
  // tool call, in its completion — and not again on later calls whose history holds it.
  const argumentsDrift = /^T\w+#R0: Turn 1: \d+ tokens differ in the completion: engine ` \{"city": "Paris"\}\}↵` vs template ` "\{\\"city\\":\\"Paris\\"\}"\}↵`$/;

  test("the model's own template: the arguments drift on call 1 only, a drift stop there, a summary line", async () => {
    const r = await run('same.yaml');
    const findings = r.output.split('\n').filter((l) => /tokens differ/.test(l));
    assert.equal(findings.length, 1, r.output);
    assert.match(findings[0], argumentsDrift);
    assert.equal(r.stops.length, 1, r.stops.join('\n'));
    assert.match(r.stops[0], /^exception: Turn 1: /);
    assert.match(r.output, /retokenization drift: 1 LLM call\(s\) in 1 episode\(s\)/);
  });

  test('a template that differs after the tool result: a finding on call 2, after the tool result, and nowhere else new', async () => {
    const r = await run('other.yaml');
    const findings = r.output.split('\n').filter((l) => /tokens differ/.test(l));
    assert.equal(findings.length, 2, r.output);
    assert.match(findings[0], argumentsDrift);
    assert.match(findings[1], /^T\w+#R0: Turn 2: 1 tokens differ after the tool result: engine `.*` vs template `.*`$/);
    assert.deepEqual(r.stops.map((s) => /^exception: Turn (\d)/.exec(s)?.[1]), ['1', '2']);
    assert.match(r.output, /retokenization drift: 2 LLM call\(s\) in 1 episode\(s\)/);
  });
});
