// The Ray view's row of a paused task: name and file:line, breakpoint or post-mortem, address,
// since when the view saw it paused — in English and Simplified Chinese.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { english, type L10n } from '../../../../src/base/l10n';
import { pausedRow } from '../../../../src/ray/paused/rows';
import { repoRoot } from '../../../harness/paths';

const zh = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const chinese: L10n = { t: (message, ...args) => english.t(zh[message] ?? `UNTRANSLATED ${message}`, ...args) };

const task = {
  job: 's1',
  name: 'compute',
  node: 'abcdef0123',
  ip: '127.0.0.1',
  port: 41473,
  pid: 7,
  worker_id: 'w1',
  file: '/work/agents/math.py',
  line: 12,
  post_mortem: false,
  since: 0,
  seen_at: 60_000,
};

test('a paused task: name and file:line, breakpoint or post-mortem, address, since when (English and Chinese)', () => {
  const r = pausedRow(task, 's1', 120_000, english);
  assert.deepEqual([r.label, r.description, r.job], ['compute paused at math.py:12', 'breakpoint · 127.0.0.1 · since 1m', 's1']);
  assert.match(r.tooltip, /\/work\/agents\/math\.py:12\nnode abcdef01 · 127\.0\.0\.1:41473 · pid 7/);
  const z = pausedRow({ ...task, post_mortem: true }, 's1', 120_000, chinese);
  assert.deepEqual([z.label, z.description], ['compute 暂停于 math.py:12', '事后调试 · 127.0.0.1 · 已持续 1m']);
  const unknown = pausedRow({ ...task, file: null, line: null, post_mortem: null, stack_error: 'profiling-disabled' }, 's1', 120_000, english);
  assert.deepEqual([unknown.label, unknown.description.split(' · ')[0]], ['compute paused at an unknown line', 'paused']);
});
