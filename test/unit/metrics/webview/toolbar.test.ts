// The tag filter is as wide as its placeholder, in English and Chinese (it read "Filter tags
// (regular expression" in a 220 px field).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { textWidth } from '../../../../src/metrics/webview/format';
import { repoRoot } from '../../../harness/paths';

test('the filter field holds its whole placeholder: one ch per Latin character, two per CJK one, plus padding and the clear button', () => {
  const en = 'Filter tags (regular expression)';
  assert.equal(textWidth(en), `calc(${en.length}ch + 3em)`);
  const zh = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>)[en];
  assert.equal(zh, '筛选标签（正则表达式）');
  assert.equal(textWidth(zh), `calc(${zh.length * 2}ch + 3em)`);
});
