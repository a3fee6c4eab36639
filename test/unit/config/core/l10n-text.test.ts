// Config findings are deferred l10n text (src/config/core/l10n-text.ts): rendering in English
// and through @vscode/l10n with the zh-cn bundle, and every literal template the config feature
// writes — found on the syntax tree like the l10n test's — has a zh-cn entry with the same
// placeholders, so a finding never shows up half translated.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { shippedBundle } from '../../../../src/config/core/l10n-bundle';
import { doc, l10n, list, render, verbatim } from '../../../../src/config/core/l10n-text';
import { l10nMessages, readTree, untranslated } from '../../../harness/architecture';
import { repoRoot } from '../../../harness/paths';
import { ZH } from '../helpers';

const bundle = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const placeholders = (s: string) => (s.match(/\{\d+\}/g) ?? []).sort();

test('render: templates, nested text, lists, verbatim text and bilingual docs, in English and Chinese', () => {
  const t = l10n.t('`defaults` must list `{0}`{1}.', 'ajet', l10n.t(' (found `{0}`)', 'astuner'));
  assert.equal(render(t), '`defaults` must list `ajet` (found `astuner`).');
  assert.equal(render(t, ZH), '`defaults` 必须包含 `ajet`（找到的是 `astuner`）。');
  const storage = l10n.t("Storage type '{0}' is not supported ({1}); the buffer fails when it is created.", 'x', list(['file', 'sql']));
  assert.equal(render(storage), "Storage type 'x' is not supported (file, sql); the buffer fails when it is created.");
  assert.equal(render(storage, ZH), "不支持存储类型 'x'（file、sql）；创建缓冲区时会失败。");
  assert.equal(render(verbatim('`a` = {{0}}'), ZH), '`a` = {{0}}');
  assert.equal(render(doc('docs', '文档'), ZH), '文档');
  assert.equal(render(doc('docs', '文档')), 'docs');
  // a missing value reads as a template literal would have shown it
  assert.equal(
    render(l10n.t('Sequence parallel size {0} is invalid; Trinity uses 1.', undefined)),
    'Sequence parallel size undefined is invalid; Trinity uses 1.',
  );
});

test('the shipped bundle is found for a Chinese locale only', () => {
  assert.equal(shippedBundle('en'), undefined);
  assert.equal(shippedBundle('zh-cn')?.['Set to 1'], '设为 1');
  assert.equal(shippedBundle('zh-TW')?.['Set to 1'], '设为 1', 'any zh locale read Simplified Chinese before the move too');
});

test('every config l10n.t template has a zh-cn translation with the same placeholders', () => {
  const files = new Map([...readTree(repoRoot, 'src')].filter(([f]) => f.startsWith('src/config/')));
  const templates = l10nMessages(files);
  assert.ok(templates.length > 200, `found only ${templates.length} templates in src/config: is the reader broken?`);
  assert.deepEqual(untranslated(files, bundle), []);
  const wrong = templates
    .filter((m) => JSON.stringify(placeholders(m.message)) !== JSON.stringify(placeholders(bundle[m.message])))
    .map((m) => `${m.file}:${m.line}: ${m.message}`);
  assert.deepEqual(wrong, []);
  // the check fails when one translation goes missing
  const { [templates[0].message]: _dropped, ...less } = bundle;
  assert.equal(untranslated(files, less).length, templates.filter((m) => m.message === templates[0].message).length);
});

test('a huge value is shown clipped in a message, with how much was left out', () => {
  const big = 'x'.repeat(1_000_000);
  const shown = render(l10n.t('`{0}`: expected an int, got {1}.', 'explorer.eval_interval', `str '${big}'`));
  assert.ok(shown.length < 300, `${shown.length} characters`);
  assert.match(shown, /^`explorer\.eval_interval`: expected an int, got str 'x+…\(\+999\d{3}\)\.$/);
  assert.equal(render(l10n.t('`{0}`', 'short')), '`short`');
  assert.ok(render(verbatim(big)).length <= 2000);
});
