// The metrics feature's logic stays free of the vscode API (testable in plain node, reused by
// the bench); only the thin adapter files import it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../harness/paths';

// That the logic subfolders (store, view, connect, webview) never import vscode is rule 5 of
// test/unit/architecture.test.ts, for every feature.

test('the webview and the shared protocol never import vscode or node modules', () => {
  const inFolder = (dir: string) => fs.readdirSync(path.join(repoRoot, 'src', 'metrics', dir)).map((f) => path.join('src', 'metrics', dir, f));
  for (const f of [...inFolder('webview'), ...inFolder('protocol')]) {
    if (!f.endsWith('.ts')) continue;
    const text = fs.readFileSync(path.join(repoRoot, f), 'utf8');
    assert.doesNotMatch(text, /from ['"](vscode|node:|fs|path|ws)['"/]/, f);
  }
});

test('the activation bundle does not contain the metrics host (loaded lazily)', () => {
  const ext = path.join(repoRoot, 'dist', 'extension.js');
  assert.ok(fs.existsSync(ext), 'dist/extension.js is built (npm run build; scripts/test.mjs builds before the component tier)');
  const text = fs.readFileSync(ext, 'utf8');
  assert.doesNotMatch(text, /class MetricsStore|class RelayClient|perMessageDeflate/);
  assert.match(text, /metrics-host/);
});
