// `agentrl eval --runs`: a run folder with nothing recorded in it is refused with its name,
// never compared as "no difference" (which let a --fail-if-worse gate pass).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readEpisodes } from '../../../../src/debug/results/run-store';
import type { RolloutService } from '../../../../src/feature-api/rollouts';
import { compareRecorded } from '../../../../src/eval/run/offline';

// The recorded-runs side of the debugger's service: readEpisodes itself, nothing run.
const service = {
  recorded: (dir: string) => readEpisodes(dir).map((e) => ({ episode: e.episode, taskId: String(e.taskId), repeat: e.repeat, reward: e.reward, parts: {} })),
} as unknown as RolloutService;

test('an empty, cut-to-nothing or directory run folder is refused, naming the run', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-offline-'));
  try {
    const good = path.join(root, 'good');
    fs.mkdirSync(good);
    fs.writeFileSync(path.join(good, 'trajectories.jsonl'), `${JSON.stringify({ episode: 'T1#R0', taskId: 't1', repeat: 0, reward: 1 })}\n`);
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    const cut = path.join(root, 'cut');
    fs.mkdirSync(cut);
    fs.writeFileSync(path.join(cut, 'trajectories.jsonl'), '{"episode": "T1#R0", "tas');
    const dir = path.join(root, 'dir');
    fs.mkdirSync(path.join(dir, 'trajectories.jsonl'), { recursive: true });
    for (const bad of [empty, cut, dir]) {
      await assert.rejects(
        compareRecorded(service, {
          runs: [
            { name: 'base', dir: good },
            { name: 'new', dir: bad },
          ],
          rescore: false,
          cwd: root,
        }),
        new RegExp(`run new: ${bad} holds no recorded episodes`),
      );
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
