// Whether an explorer URL is exposed off loopback, and the SSH tunnel to suggest instead
// (the explorer's failure kinds over real sockets are in test/component/online/explorer).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { assessUrl } from '../../../../src/online/explorer/discover';

test('plain http off loopback is flagged with a tunnel command', () => {
  assert.equal(assessUrl('http://127.0.0.1:8010').exposed, false);
  const r = assessUrl('http://10.0.0.7:8010');
  assert.equal(r.exposed, true);
  assert.equal(r.tunnelCommand, 'ssh -N -L 8010:127.0.0.1:8010 <user>@10.0.0.7');
  assert.equal(assessUrl('https://explorer.example.com').exposed, false);
});
