// A run's age in the Rollouts view is redrawn when it would read differently ("3 min ago" once
// stayed frozen until something else refreshed the view).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ageRefreshDelay, runRow } from '../../../../src/debug/results/run-label';
import type { RunInfo } from '../../../../src/debug/results/run-store';

const run = (startedAt: string): RunInfo => ({
  id: 'r',
  dir: '/ws/.agentrl/runs/r',
  summary: {
    id: 'r',
    status: 'completed',
    backbone: 'native',
    startedAt,
    finishedAt: startedAt,
    wallMs: 1,
    episodes: 1,
    errors: 0,
    rewardMean: 0,
    rewardByTask: {},
    tokens: { prompt: 0, completion: 0, total: 0 },
    llmCalls: 1,
  },
});

test('the view is redrawn exactly when an age would read differently, and then it does', () => {
  const r = run('2026-12-07T01:00:00.000Z');
  const now = new Date('2026-12-07T01:03:10.000Z');
  assert.match(runRow(r, now).description, /3 min ago/);
  const delay = ageRefreshDelay([r], now)!;
  assert.equal(delay, 50_000);
  assert.match(runRow(r, new Date(now.getTime() + delay)).description, /4 min ago/);
  assert.match(runRow(r, new Date(now.getTime() + delay - 1000)).description, /3 min ago/);
  // "just now" → "1 min ago"; hours; the soonest of several runs; none without a start
  assert.equal(ageRefreshDelay([r], new Date('2026-12-07T01:00:20.000Z')), 40_000);
  assert.equal(ageRefreshDelay([r], new Date('2026-12-07T03:30:00.000Z')), 30 * 60_000);
  assert.equal(ageRefreshDelay([r, run('2026-12-07T01:02:55.000Z')], now), 45_000);
  assert.equal(ageRefreshDelay([{ id: 'x', dir: '/x' }], now), undefined);
});
