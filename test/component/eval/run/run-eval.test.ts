// A comparison whose model URLs carry a credential (`?api_key=…`): the calls get the full URL,
// and nothing printed or saved holds the key (eval.json, progress lines, errors). The model
// endpoint is a STAND-IN (a loopback HTTP server that answers /v1/models; the comparison only
// asks it whether it is there) and the rollout service a TEST DOUBLE: these tests are about
// what the comparison writes, not about running a workflow.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import type { RolloutRequest, RolloutService } from '../../../../src/feature-api/rollouts';
import { runEval } from '../../../../src/eval/run/run-eval';

describe('a comparison of endpoints whose URLs carry a key', () => {
  let server: http.Server;
  let port: number;
  let root: string;
  const asked: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.end('{"data":[]}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as net.AddressInfo).port;
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-eval-secrets-'));
  });
  after(() => {
    server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('eval.json, the progress and the errors hold no key; the calls get it', async () => {
    const seen: string[] = [];
    const service: RolloutService = {
      run: (req: RolloutRequest, onEpisode) => {
        seen.push(req.model.baseUrl ?? '');
        const message = `${req.model.baseUrl} answered 500: boom`; // as the gateway's errors quote the endpoint
        const episode = { episode: 'T0#R0', taskId: '0', repeat: 0, reward: null, parts: {}, error: { phase: 'workflow', type: 'APIError', message } };
        onEpisode?.(episode);
        return Promise.resolve({ ok: true, runDir: req.runDir, status: 'completed', message, episodes: [episode], llmCalls: 1 });
      },
      recorded: () => [],
      rescore: () => Promise.reject(new Error('no re-score here')),
      transcript: () => undefined,
    };
    const lines: string[] = [];
    const base = `http://127.0.0.1:${port}/v1`;
    const { dir } = await runEval(service, {
      config: 'c.yaml',
      cwd: root,
      models: [
        { name: 'a', baseUrl: `${base}?api_key=SEKRET-A` },
        { name: 'b', baseUrl: `${base}?model=x&access_token=SEKRET-B` },
      ],
      tasks: 1,
      repeat: 1,
      progress: (l) => lines.push(l),
    });
    assert.deepEqual(seen.sort(), [`${base}?api_key=SEKRET-A`, `${base}?model=x&access_token=SEKRET-B`], 'the calls get the key');
    const saved = fs.readFileSync(path.join(dir, 'eval.json'), 'utf8');
    assert.doesNotMatch(saved, /SEKRET/);
    assert.match(saved, /"baseUrl": "http:\/\/127\.0\.0\.1:\d+\/v1\?api_key=\*\*\*"/);
    assert.equal(lines.length, 2);
    for (const l of lines) assert.doesNotMatch(l, /SEKRET/);
  });

  test("a dead endpoint's error holds no key", async () => {
    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    const deadPort = (dead.address() as net.AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const never: RolloutService = {
      run: () => Promise.reject(new Error('ran a rollout')),
      recorded: () => [],
      rescore: () => Promise.reject(new Error('re-scored')),
      transcript: () => undefined,
    };
    await assert.rejects(
      runEval(never, {
        config: 'c.yaml',
        cwd: root,
        models: [
          { name: 'a', baseUrl: `http://127.0.0.1:${port}/v1` },
          { name: 'b', baseUrl: `http://127.0.0.1:${deadPort}/v1?api_key=SEKRET-C` },
        ],
        tasks: 1,
        repeat: 1,
      }),
      (e: Error) => /model b: the endpoint http:\/\/127\.0\.0\.1:\d+\/v1\?api_key=\*\*\* does not answer/.test(e.message) && !e.message.includes('SEKRET'),
    );
  });
});
