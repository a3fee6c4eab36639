// A recorded run read back as episodes: only real episode lines count, and only from a regular
// file of a sane size (a run folder may be handed in by anyone: `agentrl eval --runs`).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readEpisodes } from '../../../../src/debug/results/run-store';

const runDir = (lines?: string): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-runstore-'));
  if (lines !== undefined) fs.writeFileSync(path.join(dir, 'trajectories.jsonl'), lines);
  return dir;
};

test('null, {}, numbers and lists are not episodes: skipped, never a TypeError or a task "undefined"', () => {
  const ep = { episode: 'T1#R0', taskId: 't1', repeat: 0, reward: 1, turns: [], metrics: {} };
  const dir = runDir(['null', '{}', '42', '[1]', JSON.stringify(ep), '{"episode": 1}', '{"torn'].join('\n'));
  try {
    const eps = readEpisodes(dir);
    assert.deepEqual(
      eps.map((e) => e.episode),
      ['T1#R0'],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'a trajectories.jsonl that is a link to /dev/zero, a directory, or missing: no episodes, read no further',
  { skip: !fs.existsSync('/dev/zero') && 'no /dev/zero' },
  () => {
    const dirs = [runDir(), runDir(), runDir()];
    try {
      fs.symlinkSync('/dev/zero', path.join(dirs[0], 'trajectories.jsonl'));
      fs.mkdirSync(path.join(dirs[1], 'trajectories.jsonl'));
      for (const d of dirs) assert.deepEqual(readEpisodes(d), []);
    } finally {
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    }
  },
);
