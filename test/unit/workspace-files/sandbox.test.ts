// The sandbox marker `npm start` writes. The endpoint probe is in
// test/component/workspace-files/sandbox.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readSandboxMarker } from '../../../src/workspace-files/sandbox';

test('sandbox marker: read, validated, job dir resolved against the folder', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-marker-'));
  assert.equal(readSandboxMarker(d), undefined);
  fs.mkdirSync(path.join(d, '.agentrl'));
  fs.writeFileSync(path.join(d, '.agentrl', 'sandbox.json'), '{ broken');
  assert.equal(readSandboxMarker(d), undefined, 'a malformed marker is ignored');
  fs.writeFileSync(
    path.join(d, '.agentrl', 'sandbox.json'),
    JSON.stringify({ created: 'c1', model: 'http://127.0.0.1:8089/v1', demo: { jobDir: '.agentrl/demo/demo-run', name: 'demo: simulated trainer' } }),
  );
  assert.deepEqual(readSandboxMarker(d), {
    created: 'c1',
    model: 'http://127.0.0.1:8089/v1',
    demo: { jobDir: path.join(d, '.agentrl/demo/demo-run'), name: 'demo: simulated trainer' },
  });
  fs.writeFileSync(path.join(d, '.agentrl', 'sandbox.json'), JSON.stringify({ model: 'file:///etc/passwd' }));
  assert.deepEqual(readSandboxMarker(d), {});
  fs.rmSync(d, { recursive: true, force: true });
});
