// A new comparison is offered the endpoints the workspace names (the sandbox's :8089 from its
// launch.json), not :8000/:8001 where nothing listens; a model compared with itself is a warning.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parse } from 'jsonc-parser';
import { english } from '../../../../src/base/l10n';
import { checkModelsInput, knownEndpoints, prefillModels } from '../../../../src/eval/run/known-endpoints';
import { repoRoot } from '../../../harness/paths';

test("the sandbox's launch.json: its model endpoint is offered, for both sides, and the identical pair is a warning", () => {
  const launch = parse(fs.readFileSync(path.join(repoRoot, 'sample-workspace', '.vscode', 'launch.json'), 'utf8')) as { configurations: unknown[] };
  const known = knownEndpoints(launch.configurations);
  assert.deepEqual(
    known.map((k) => k.url),
    ['http://127.0.0.1:8089/v1'],
  );
  assert.equal(known[0].from, 'Debug toolcall rollouts');
  const value = prefillModels(known);
  assert.equal(value, 'base=http://127.0.0.1:8089/v1 new=http://127.0.0.1:8089/v1');
  assert.doesNotMatch(value, /:800[01]/);
  const c = checkModelsInput(value, english);
  assert.equal(c.error, undefined);
  assert.match(c.warning ?? '', /base and new are the same endpoint \(http:\/\/127\.0\.0\.1:8089\/v1\): a model compared with itself shows only the noise/);
});

test('two endpoints named: base is the first, new the second; compareModels entries count; nothing named: empty', () => {
  const known = knownEndpoints([
    { type: 'node', name: 'x', model: { baseUrl: 'http://elsewhere/v1' } },
    { type: 'agentrl', name: 'a', model: { baseUrl: 'http://127.0.0.1:8089/v1/' } },
    { type: 'agentrl', name: 'cmp', compareModels: ['base=http://127.0.0.1:8089/v1', { name: 'ckpt', baseUrl: 'http://127.0.0.1:9001/v1' }] },
  ]);
  assert.deepEqual(known, [
    { url: 'http://127.0.0.1:8089/v1', from: 'a' },
    { url: 'http://127.0.0.1:9001/v1', from: 'cmp' },
  ]);
  assert.equal(prefillModels(known), 'base=http://127.0.0.1:8089/v1 new=http://127.0.0.1:9001/v1');
  assert.equal(checkModelsInput(prefillModels(known), english).warning, undefined);
  assert.equal(prefillModels([]), '');
});

test('what blocks: not NAME=URL, fewer than two, a name twice', () => {
  assert.ok(checkModelsInput('', english).error);
  assert.ok(checkModelsInput('base=http://a/v1', english).error);
  assert.ok(checkModelsInput('base=http://a/v1 new=ftp://b', english).error);
  assert.match(checkModelsInput('m=http://a/v1 m=http://b/v1', english).error ?? '', /'m' is given twice/);
  assert.deepEqual(checkModelsInput(' a=http://x/v1/  b=http://y/v1 ', english).models, [
    { name: 'a', url: 'http://x/v1' },
    { name: 'b', url: 'http://y/v1' },
  ]);
});
