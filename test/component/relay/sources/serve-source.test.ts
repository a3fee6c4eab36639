// Serve mode's /metrics samples persist like every other series: after the relay that polled
// them is gone (and the explorer too), a new relay and a new viewer still get all of them,
// once; a second relay on the same job dir reads them instead of polling twice.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { RELAY_DEFAULTS, Relay } from '../../../../src/relay/serve/relay';
import { serveSamplesFile } from '../../../../src/relay/sources/serve-source';
import { Logger, silentLogger } from '../../../../src/base/log';
import { collect, tmpDir } from '../helpers';

function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (m: string | Error) => void lines.push(String(m));
  return { lines, trace: at, debug: at, info: at, warn: at, error: at };
}

const relayOn = (dir: string, log: Logger = silentLogger) =>
  new Relay({ ...RELAY_DEFAULTS, root: { mode: 'job', dir }, port: 0, token: undefined, allowOrigins: [], log, pollMs: 100 });

test('serve /metrics samples survive the relay and the explorer', { timeout: 60_000 }, async () => {
  const job = tmpDir('relay-serve-');
  // A stand-in for Trinity's serve-mode explorer (its API needs GPU engines): a /metrics
  // JSON whose explore_step_num advances on every request.
  let step = 0;
  const serve = http.createServer((req, res) => {
    step++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ explore_step_num: step, rollout_count: step * 8, note: 'ignored' }));
  });
  await new Promise<void>((r) => serve.listen(0, '127.0.0.1', () => r()));
  const urlFile = path.join(job, 'explorer_server_url.txt');
  fs.writeFileSync(urlFile, `http://127.0.0.1:${(serve.address() as AddressInfo).port}\n`);
  const first = relayOn(job);
  const secondLog = memoryLog();
  const second = relayOn(job, secondLog);
  try {
    const c1 = collect({ url: await first.start() });
    const c2 = collect({ url: await second.start() });
    await c1.until((p) => p.filter((x) => x.tag === 'explore_step_num').length >= 5);
    await c2.until((p) => p.filter((x) => x.tag === 'explore_step_num').length >= 5);
    assert.ok(
      secondLog.lines.some((l) => /another relay polls explorer/.test(l)),
      secondLog.lines.join('\n'),
    );
    // the serve source names its explorer, so the editor can offer "Connect to Online Explorer"
    const serveInfo = c1.client.sources().find((x) => x.kind === 'serve');
    assert.equal(serveInfo?.endpoint, `http://127.0.0.1:${(serve.address() as AddressInfo).port}`);
    assert.deepEqual(c2.points.slice(0, 10), c1.points.slice(0, 10), 'both read the one file');
    await c1.client.close();
    await c2.client.close();
    await first.close();
    await second.close();
    await new Promise<void>((r) => serve.close(() => r()));
    const lines = fs.readFileSync(serveSamplesFile(urlFile), 'utf8').trim().split('\n');
    const steps = lines.map((l) => (JSON.parse(l) as { step: number }).step);
    assert.deepEqual(
      steps,
      [...new Set(steps)].sort((a, b) => a - b),
      'one relay polled: each sample once, in order',
    );
    const live = c1.points.filter((p) => p.tag === 'explore_step_num').map((p) => `${p.step}`);
    assert.ok(live.length >= 5);

    // The explorer is gone; a new relay and a new viewer still see every sample.
    const later = relayOn(job);
    const c3 = collect({ url: await later.start() });
    try {
      await c3.until((p) => p.filter((x) => x.tag === 'explore_step_num').length >= lines.length);
      const replay = c3.points.filter((p) => p.tag === 'explore_step_num').map((p) => `${p.step}`);
      assert.deepEqual(replay, steps.map(String));
      for (const s of live) assert.ok(replay.includes(s), `sample at step ${s} kept`);
      assert.equal(c3.points.filter((p) => p.tag === 'rollout_count').length, lines.length);
      assert.ok(!c3.points.some((p) => p.tag === 'note'));
    } finally {
      await c3.client.close();
      await later.close();
    }
  } finally {
    serve.close();
    fs.rmSync(job, { recursive: true, force: true });
  }
});
