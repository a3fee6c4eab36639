// The Model Comparisons view, empty (nothing saved yet), says what it is for and offers its next
// step: text and a button in both languages (it once showed a blank pane).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../harness/paths';

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  contributes: { viewsWelcome: { view: string; contents: string }[]; commands: { command: string }[] };
};
const nls = (lang: string) =>
  JSON.parse(fs.readFileSync(path.join(repoRoot, lang ? `package.nls.${lang}.json` : 'package.nls.json'), 'utf8')) as Record<string, string>;

test('the empty Model Comparisons view has welcome text and a Compare Models button', () => {
  const w = pkg.contributes.viewsWelcome.find((v) => v.view === 'agentrl.comparisons');
  assert.ok(w, 'a viewsWelcome entry for agentrl.comparisons');
  const ours = new Set(pkg.contributes.commands.map((c) => c.command));
  for (const lang of ['', 'zh-cn']) {
    const text: string | undefined = nls(lang)[w.contents.replace(/^%|%$/g, '')];
    assert.ok(text && text.split('\n')[0].length > 20, `${lang || 'en'}: a sentence first`);
    const links: string[] = [...text.matchAll(/\]\(command:([\w.]+)\)/g)].map((m) => m[1]);
    assert.deepEqual(links, ['agentrl.eval.compare'], lang || 'en');
    assert.ok(ours.has(links[0]));
  }
});
