// The sandbox marker `npm start` writes and which endpoints count as local (no API key asked
// for: issue 18's first F5 stopped on a modal). The endpoint probe is in test/component/shared.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { isLoopbackUrl } from '../../../src/base/loopback';
import { readSandboxMarker } from '../../../src/workspace-files/sandbox';

test('loopback endpoints', () => {
  for (const u of ['http://127.0.0.1:8089/v1', 'http://localhost:8000/v1', 'http://[::1]:1/v1', 'http://127.1.2.3/v1']) assert.ok(isLoopbackUrl(u), u);
  for (const u of ['https://api.openai.com/v1', 'http://10.0.0.5:8000/v1', 'http://127.0.0.1.evil.com/v1', 'not a url', undefined]) assert.ok(!isLoopbackUrl(u), String(u));
});

test('sandbox marker: read, validated, job dir resolved against the folder', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-marker-'));
  assert.equal(readSandboxMarker(d), undefined);
  fs.mkdirSync(path.join(d, '.agentrl'));
  fs.writeFileSync(path.join(d, '.agentrl', 'sandbox.json'), '{ broken');
  assert.equal(readSandboxMarker(d), undefined, 'a malformed marker is ignored');
  fs.writeFileSync(path.join(d, '.agentrl', 'sandbox.json'), JSON.stringify({ created: 'c1', model: 'http://127.0.0.1:8089/v1', demo: { jobDir: '.agentrl/demo/demo-run', name: 'demo: simulated trainer' } }));
  assert.deepEqual(readSandboxMarker(d), { created: 'c1', model: 'http://127.0.0.1:8089/v1', demo: { jobDir: path.join(d, '.agentrl/demo/demo-run'), name: 'demo: simulated trainer' } });
  fs.writeFileSync(path.join(d, '.agentrl', 'sandbox.json'), JSON.stringify({ model: 'file:///etc/passwd' }));
  assert.deepEqual(readSandboxMarker(d), {});
  fs.rmSync(d, { recursive: true, force: true });
});
