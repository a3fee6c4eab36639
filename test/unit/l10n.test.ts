// Every user-visible string has an English and a Simplified Chinese version: package.json
// %placeholders% in both package.nls files, and every l10n.t('…') message in src/ (found on the
// syntax tree by test/harness/architecture, the same reader as the architecture test's rule 6,
// "text goes through l10n") in l10n/bundle.l10n.zh-cn.json, which holds nothing else.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { fileSet, formatViolation, l10nMessages, readTree, untranslated } from '../harness/architecture';
import { repoRoot } from '../harness/paths';

const read = (p: string) => JSON.parse(fs.readFileSync(path.join(repoRoot, p), 'utf8')) as Record<string, unknown>;

test('every %key% in package.json exists in package.nls.json and package.nls.zh-cn.json', () => {
  const manifest = fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8');
  const keys = new Set([...manifest.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]));
  assert.ok(keys.size > 0);
  const en = read('package.nls.json');
  const zh = read('package.nls.zh-cn.json');
  for (const k of keys) {
    assert.ok(typeof en[k] === 'string', `package.nls.json lacks "${k}"`);
    assert.ok(typeof zh[k] === 'string', `package.nls.zh-cn.json lacks "${k}"`);
  }
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort(), 'the two nls files have different keys');
});

test('untranslated() finds l10n.t messages missing from a bundle, keyed as the source spells them', () => {
  const files = fileSet({
    'src/a/host.ts': [
      "import * as vscode from 'vscode';",
      "vscode.l10n.t('Connected to {0}', url);",
      'this.l10n.t("It\'s\\nhere");',
      "l10n.t({ message: `Saved`, comment: ['a button'] });",
      "vscode.l10n.t('Missing one');",
      "// vscode.l10n.t('in a comment: not a message')",
    ].join('\n'),
  });
  assert.deepEqual(
    l10nMessages(files).map((m) => `${m.line}:${m.message}`),
    ['2:Connected to {0}', "3:It's\nhere", '4:Saved', '5:Missing one'],
  );
  const bundle = { 'Connected to {0}': '已连接到 {0}', "It's\nhere": '在这里', Saved: '已保存' };
  assert.deepEqual(untranslated(files, bundle).map(formatViolation), ['src/a/host.ts:5: l10n message "Missing one" has no translation in the bundle']);
});

test('every l10n.t() message in src/ has a zh-cn translation', () => {
  const files = readTree(repoRoot, 'src');
  assert.ok(l10nMessages(files).length > 100, 'the l10n.t reader found (almost) nothing: is it broken?');
  const missing = untranslated(files, read('l10n/bundle.l10n.zh-cn.json')).map(formatViolation);
  assert.equal(missing.length, 0, `untranslated strings:\n${missing.join('\n')}`);
});

test('every zh-cn bundle entry has the placeholders of its English key, as many times', () => {
  const count = (s: string) => (s.match(/\{\d+\}/g) ?? []).sort().join(' ');
  const bundle = read('l10n/bundle.l10n.zh-cn.json') as Record<string, string>;
  const wrong = Object.entries(bundle).filter(([en, zh]) => count(en) !== count(zh));
  assert.deepEqual(wrong, [], 'a translation drops or adds a {n} placeholder');
  assert.notEqual(count('{1} of {0}'), count('{0} of {0}'), 'the comparison can fail');
});

test('every zh-cn bundle entry is still an l10n.t() message in src/ (no stale translations)', () => {
  const used = new Set(l10nMessages(readTree(repoRoot, 'src')).map((m) => m.message));
  const stale = Object.keys(read('l10n/bundle.l10n.zh-cn.json')).filter((k) => !used.has(k));
  assert.deepEqual(stale, [], `remove these from l10n/bundle.l10n.zh-cn.json (or use them):\n${stale.join('\n')}`);
});
