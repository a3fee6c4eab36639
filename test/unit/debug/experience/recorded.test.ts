// A buffer row as a replay reads it (src/debug/experience/recorded.ts): why a row cannot be
// replayed is said in the language it is given (vscode.l10n in the debug adapter; the real zh-cn
// bundle here), English in the CLI.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { english, type L10n } from '../../../../src/base/l10n';
import { recordedExperience } from '../../../../src/debug/experience/recorded';
import { repoRoot } from '../../../harness/paths';

const zh = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const chinese: L10n = { t: (message, ...args) => english.t(zh[message] ?? `UNTRANSLATED ${message}`, ...args) };

// Trinity's Experience.to_dict() of a row a workflow built from tokens alone: no conversation.
const bare = { id: '7', detail: { eid: { run: 0 }, reward: -1, info: { model_version: 2 }, messages: [{ role: 'user', content: 'hi' }] } };

test('a row that keeps no conversation: why, in English and in Chinese', () => {
  const en = recordedExperience(bare);
  assert.ok('error' in en);
  assert.match(en.error, /^experience 7 keeps no conversation to replay: no messages with an assistant turn, no response_text/);
  const cn = recordedExperience(bare, chinese);
  assert.ok('error' in cn);
  assert.match(cn.error, /^经验 7 没有可重放的对话：/);
});

test('a row that keeps its conversation is read, whatever the language', () => {
  const row = { ...bare, detail: { ...bare.detail, messages: [...bare.detail.messages, { role: 'assistant', content: 'hello' }], metrics: { accuracy: 1 } } };
  const x = recordedExperience(row, chinese);
  assert.ok(!('error' in x));
  assert.equal(x.messages?.length, 2);
  assert.deepEqual(x.parts, { accuracy: 1 });
});
