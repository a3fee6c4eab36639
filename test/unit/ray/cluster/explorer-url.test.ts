// The explorer URL of a serve-mode run from its Ray job's log (the banner Trinity's
// Explorer.serve logs, trinity/explorer/explorer.py in ../shared/upstream, as Ray forwards it).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { explorerUrlFromLog } from '../../../../src/ray/cluster/explorer-url';

const banner = (url: string) =>
  `(Explorer pid=4242, ip=10.0.0.7) INFO 11-25 10:00:01 explorer.py:512] ======================================================\n` +
  `(Explorer pid=4242, ip=10.0.0.7) Starting Trinity Service on ${url}\n` +
  `(Explorer pid=4242, ip=10.0.0.7) ======================================================\n`;

test('finds the URL Trinity logs when its serve-mode explorer is up; the last one wins (a restarted explorer)', () => {
  assert.equal(explorerUrlFromLog('INFO starting ray\n' + banner('http://10.0.0.7:8010') + 'Step 1: {}\n'), 'http://10.0.0.7:8010');
  assert.equal(explorerUrlFromLog(banner('http://10.0.0.7:8010') + banner('http://10.0.0.9:8011')), 'http://10.0.0.9:8011');
  assert.equal(
    explorerUrlFromLog('Starting Trinity Service on http://127.0.0.1:8010.'),
    'http://127.0.0.1:8010',
    'trailing punctuation is not part of the URL',
  );
});

test('no banner (a train-mode run, or the explorer not up yet): no URL', () => {
  assert.equal(explorerUrlFromLog(''), undefined);
  assert.equal(explorerUrlFromLog('Starting Trinity Service on\nStep 3: {}'), undefined);
});
