// A source that fails on every read is reported once, then as a count per period, then as
// recovered (a user once got 27 313 identical warnings in two minutes). The clock is injected.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorDigest } from '../../../../src/relay/serve/error-digest';
import type { Logger } from '../../../../src/base/log';

function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (m: string | Error) => void lines.push(`${level} ${m instanceof Error ? m.message : m}`);
  return { lines, trace: () => undefined, debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error') };
}

test('ErrorDigest: first failure reported, repeats counted once per period, recovery logged', () => {
  const log = memoryLog();
  let t = 0;
  const d = new ErrorDigest(log, { summaryMs: 1000, now: () => t });
  assert.equal(d.fail('src', 'malformed'), true);
  for (let i = 0; i < 500; i++) assert.equal(d.fail('src', 'malformed'), false);
  assert.deepEqual(log.lines, ['warn src: malformed']);
  t = 1500;
  d.fail('src', 'malformed');
  assert.equal(log.lines.length, 2);
  assert.match(log.lines[1], /failed 501 more time\(s\)/);
  assert.equal(d.fail('src', 'other'), true, 'a different message is news');
  d.ok('src');
  assert.match(log.lines.at(-1)!, /^info src: recovered after 503 failed attempt\(s\)/);
  d.ok('src');
  assert.equal(log.lines.filter((l) => /recovered/.test(l)).length, 1);
});
