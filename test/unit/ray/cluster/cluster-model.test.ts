// The rows under a Ray job (stall report, failure, actors) in the UI language: their text goes
// through the injected l10n (vscode.l10n in the extension), here with the real zh-cn bundle.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { english, type L10n } from '../../../../src/base/l10n';
import { jobDetails, type ClusterSnapshot } from '../../../../src/ray/cluster/cluster-model';
import { repoRoot } from '../../../harness/paths';

const zh = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
/** vscode.l10n.t with the zh-cn bundle: the translation of the message, placeholders filled. */
const chinese: L10n = { t: (message, ...args) => english.t(zh[message] ?? `UNTRANSLATED ${message}`, ...args) };

const snapshot = {
  url: 'http://127.0.0.1:8265',
  name: 'c',
  nodes: [],
  jobs: [],
  usage: {},
  fetchedAt: 0,
  actors: { s1: [{ actor_id: 'a1', name: 'explorer', class_name: 'Explorer', state: 'ALIVE' }] },
  stalls: {
    s1: {
      stalledForMs: 600_000,
      thresholdMs: 300_000,
      actorsNotAlive: [{ name: 'trainer', state: 'DEAD' }],
      deadNodes: [{ id: 'abcdef0123456789', ip: '10.0.0.9' }],
      explorerWaitsOnSynchronizer: true,
    },
  },
  failures: {
    s1: {
      message: 'RayActorError: the actor died\ntraceback…',
      errorType: 'ActorDiedError',
      deadNodes: [{ id: '0123456789abcdef', ip: '10.0.0.8', message: 'heartbeat missed' }],
      lastLogLines: ['Step 12: {}'],
    },
  },
} as unknown as ClusterSnapshot;

test('job detail rows in English', () => {
  assert.deepEqual(
    jobDetails(snapshot, 's1', english).map((r) => r.label),
    [
      'no progress for 10m (threshold 5m)',
      'actor trainer is DEAD',
      'node 10.0.0.9 abcdef01 is DEAD',
      'the explorer waits on the synchronizer',
      'FAILED: RayActorError: the actor died',
      'node 10.0.0.8 01234567 is DEAD',
      'Step 12: {}',
      'explorer',
    ],
  );
});

test('job detail rows in Simplified Chinese: every sentence translated, names and log lines kept', () => {
  const labels = jobDetails(snapshot, 's1', chinese).map((r) => r.label);
  assert.deepEqual(labels, [
    '已有 10m 没有进展（阈值 5m）',
    'actor trainer 的状态为 DEAD',
    '节点 10.0.0.9 abcdef01 已失效（DEAD）',
    'explorer 正在等待 synchronizer',
    '失败：RayActorError: the actor died',
    '节点 10.0.0.8 01234567 已失效（DEAD）',
    'Step 12: {}',
    'explorer',
  ]);
});
