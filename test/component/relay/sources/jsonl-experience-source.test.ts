// Rollouts of Trinity's default queue buffer: its .jsonl backup (written here by Trinity
// 0.5.2's own FileStorage, ../shared/upstream) streams as experience rows — also the lines
// appended while a viewer is connected — and one row's content reads back by its id.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RELAY_DEFAULTS, Relay } from '../../../../src/relay/serve/relay';
import { RelayClient } from '../../../../src/relay-protocol/client';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';
import { silentLogger } from '../../../../src/base/log';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';
import { tmpDir } from '../helpers';
import { until } from '../../../harness/wait';

const trinityPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const canRun = hasShared && fs.existsSync(path.join(repoRoot, '.cache', 'trinity-venv', '.agentrl-ok'));
const skip = !canRun && 'needs ../shared and .cache/trinity-venv (scripts/setup.sh trinity)';

function trinityWrite(file: string, from: number, count: number): void {
  const pp = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
  const r = spawnSync(trinityPython, [path.join(repoRoot, 'test', 'fixtures', 'relay', 'trinity_file_buffer.py'), file, String(from), String(count)], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PYTHONPATH: pp, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', RAY_USAGE_STATS_ENABLED: '0' },
  });
  assert.equal(r.status, 0, r.stderr.slice(-2000));
}

test('queue buffer .jsonl backup (Trinity FileStorage): rows stream, appends follow, detail by id', { skip, timeout: 180_000 }, async () => {
  const job = tmpDir('relay-jsonl-');
  fs.mkdirSync(path.join(job, 'buffer'));
  const file = path.join(job, 'buffer', 'experience_buffer.jsonl');
  trinityWrite(file, 0, 100);
  const relay = new Relay({ ...RELAY_DEFAULTS, root: { mode: 'job', dir: job }, port: 0, token: undefined, allowOrigins: [], log: silentLogger, pollMs: 200 });
  const client = new RelayClient({ url: await relay.start(), backoff: { initialMs: 20, maxMs: 200 } });
  const rows: ExperienceRow[] = [];
  client.on('experiences', (m) => rows.push(...m.rows));
  client.start();
  const rowsArrived = (n: number) =>
    until(`${n} rows`, () => rows.length >= n, 20_000, 50).catch((e: Error) => assert.fail(`${e.message}: ${rows.length} of ${n} rows`));
  try {
    await rowsArrived(100);
    trinityWrite(file, 100, 60); // appended while connected
    await rowsArrived(160);
    assert.equal(rows.length, 160);
    assert.equal(client.sources().find((s) => s.kind === 'jsonl')?.role, 'experience_buffer');
    for (const [i, r] of rows.entries()) {
      assert.equal(r.task_id, String(Math.floor(i / 4)));
      assert.equal(r.run_id, i % 4);
      assert.equal(r.model_version, Math.floor(i / 16));
      assert.equal(r.reward, (i % 4) / 4);
      assert.equal(r.table, 'experience_buffer');
    }
    assert.equal(new Set(rows.map((r) => r.id)).size, 160, 'ids are unique');
    const src = client.sources().find((s) => s.kind === 'jsonl')!.id;
    const d = await client.requestExperience(src, rows[137].id);
    assert.deepEqual(
      (d.messages as { content: string }[]).map((m) => m.content),
      ['question 137', 'answer 137'],
    );
    await assert.rejects(client.requestExperience(src, rows[137].id + 3), /row/);
  } finally {
    await client.close();
    await relay.close();
    fs.rmSync(job, { recursive: true, force: true });
  }
});
