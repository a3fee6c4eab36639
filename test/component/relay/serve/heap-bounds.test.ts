// The relay's heap bounds (heap-bounds.ts): a process that keeps many young survivors, as the
// relay does while it answers a flood, grows V8's young generation past YOUNG_BYTES by default
// and not past it once boundHeap() ran. Each case runs in a node process of its own: V8 flags
// are the whole process's.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { YOUNG_BYTES, youngBytes } from '../../../../src/relay/serve/heap-bounds';

const MODULE = require.resolve('../../../../src/relay/serve/heap-bounds');

/** The young generation's largest size (bytes) in a process that allocates in turns, as the relay does (with boundHeap() first if `bound`). */
function youngPeak(bound: boolean): number {
  const script = `
    const hb = require(${JSON.stringify(MODULE)});
    if (${bound}) hb.boundHeap();
    const keep = [];
    let peak = 0, turns = 0;
    const turn = () => {
      for (let i = 0; i < 20000; i++) keep.push({ i, s: 'x' + i });
      if (keep.length > 400000) keep.splice(0, 200000);
      peak = Math.max(peak, hb.youngBytes());
      if (++turns < 300) setImmediate(turn); else process.stdout.write(String(peak));
    };
    turn();`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return Number(r.stdout);
}

test('boundHeap: the young generation stays within YOUNG_BYTES where V8 alone grows it past', () => {
  assert.ok(youngBytes() > 0, "no new space in V8's heap statistics");
  const alone = youngPeak(false);
  assert.ok(alone > YOUNG_BYTES, `V8 alone grew the young generation to ${alone} bytes only: the case does not test the bound`);
  const bounded = youngPeak(true);
  assert.ok(bounded > 0 && bounded <= YOUNG_BYTES, `young generation ${bounded} bytes (bound ${YOUNG_BYTES})`);
});
