// Online-training commits marked on the run they belong to: which run, no
// duplicates, and the layout message carrying the marks to the webview.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { HostMessage, LayoutMessage, METRICS_PROTOCOL_VERSION } from '../../../../src/metrics/protocol/view-protocol';
import { silentLogger } from '../../../../src/base/log';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { RunMarks, runsForCommit, SERVE_TAG } from '../../../../src/metrics/view/run-marks';
import { ViewController } from '../../../../src/metrics/view/view-controller';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;

test('a commit belongs to the runs fed by a serve-mode explorer, else to the only run shown, else to none', () => {
  assert.deepEqual(
    runsForCommit([
      { run: 'train', tag: 'actor/pg_loss' },
      { run: 'online', tag: SERVE_TAG },
      { run: 'online', tag: 'ready_experience_count' },
    ]),
    ['online'],
  );
  assert.deepEqual(runsForCommit([{ run: 'only', tag: 'rollout/accuracy/mean' }]), ['only']);
  assert.deepEqual(
    runsForCommit([
      { run: 'a', tag: 'x' },
      { run: 'b', tag: 'x' },
    ]),
    [],
    'ambiguous: mark nothing rather than the wrong run',
  );
  assert.deepEqual(runsForCommit([]), []);
});

test('marks are kept in step order, once per step', () => {
  const m = new RunMarks();
  assert.equal(m.add('r', { kind: 'commit', step: 3, wallTime: 30 }), true);
  assert.equal(m.add('r', { kind: 'commit', step: 1, wallTime: 10 }), true);
  assert.equal(m.add('r', { kind: 'commit', step: 3, wallTime: 31 }), false);
  assert.deepEqual(
    m.forRun('r')!.map((x) => x.step),
    [1, 3],
  );
  assert.equal(m.forRun('other'), undefined);
});

test('the view controller marks the serve-mode run and re-sends the layout with the marks', () => {
  const store = new MetricsStore();
  const posted: HostMessage[] = [];
  const ctl = new ViewController(store, { post: (m) => posted.push(m as HostMessage) }, silentLogger, strings);
  ctl.addPoints('online', 'explorer', SERVE_TAG, [{ step: 0, wallTime: 100, value: 0 }]);
  ctl.addPoints('train', 'trainer', 'actor/pg_loss', [{ step: 0, wallTime: 100, value: 1 }]);
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  ctl.flush();
  posted.length = 0;
  assert.deepEqual(ctl.markCommit(1, 101), ['online']);
  assert.deepEqual(ctl.markCommit(1, 102), ['online'], 'the same commit again: same run');
  ctl.flush();
  const layout = posted.find((m): m is LayoutMessage => m.type === 'layout');
  assert.ok(layout, 'a layout message went out');
  assert.deepEqual(layout.runs.find((r) => r.run === 'online')?.marks, [{ kind: 'commit', step: 1, wallTime: 101 }]);
  assert.equal(layout.runs.find((r) => r.run === 'train')?.marks, undefined);
  ctl.dispose();
});
