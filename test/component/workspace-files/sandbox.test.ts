// The endpoint probe the wizard uses (which local model server answers /models), against a
// real loopback HTTP server and a dead port.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { firstAnswering, modelAnswers } from '../../../src/workspace-files/sandbox';

test('the first endpoint that answers /models wins; dead ones are skipped quickly', async () => {
  const srv = http.createServer((req, res) => res.end(req.url === '/v1/models' ? '{"data":[]}' : 'no'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const live = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
  const dead = 'http://127.0.0.1:9/v1';
  try {
    assert.equal(await modelAnswers(dead, 500), false);
    assert.equal(await firstAnswering([dead, live, dead]), live);
    assert.equal(await firstAnswering([dead]), undefined);
  } finally {
    srv.close();
  }
});
