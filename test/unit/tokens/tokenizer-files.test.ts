// Finding the run's tokenizer: a model folder, a tokenizer.json path, the local Hugging Face cache
// (hub/models--ORG--NAME/snapshots/<rev>, refs/main first), or the reason there is none.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fromBuffer, retokenize } from '../../../src/tokens/build';
import { findTokenizer, hfHubCache, loadTokenizer, tokenizerFor } from '../../../src/tokens/tokenizer-files';
import { skipNoTokenizer, tinyTokenizerDir } from '../../harness/tiny-tokenizer';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'arl-tok-'));
}
function copyFixture(to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(to, f));
}

test('the hub cache follows HF_HUB_CACHE, then HF_HOME, then XDG_CACHE_HOME', () => {
  assert.equal(hfHubCache({ HF_HUB_CACHE: '/a' }), '/a');
  assert.equal(hfHubCache({ HF_HOME: '/h' }), path.join('/h', 'hub'));
  assert.equal(hfHubCache({ XDG_CACHE_HOME: '/x' }), path.join('/x', 'huggingface', 'hub'));
});

test('a model folder, its tokenizer.json, and a model id in the HF cache (refs/main before the newest snapshot)', { skip: skipNoTokenizer }, () => {
  const root = tmp();
  try {
    copyFixture(path.join(root, 'model'));
    assert.deepEqual(findTokenizer(path.join(root, 'model')), { found: true, dir: path.join(root, 'model'), via: 'folder' });
    assert.deepEqual(findTokenizer(path.join(root, 'model', 'tokenizer.json')), { found: true, dir: path.join(root, 'model'), via: 'folder' });
    const hub = path.join(root, 'hub');
    const repo = path.join(hub, 'models--Org--Tiny');
    copyFixture(path.join(repo, 'snapshots', 'aaa'));
    copyFixture(path.join(repo, 'snapshots', 'bbb'));
    fs.utimesSync(path.join(repo, 'snapshots', 'aaa', 'tokenizer.json'), new Date(2020, 1, 1), new Date(2020, 1, 1));
    const env = { HF_HUB_CACHE: hub };
    assert.deepEqual(findTokenizer('Org/Tiny', env), { found: true, dir: path.join(repo, 'snapshots', 'bbb'), via: 'hf-cache' });
    fs.mkdirSync(path.join(repo, 'refs'));
    fs.writeFileSync(path.join(repo, 'refs', 'main'), 'aaa\n');
    assert.deepEqual(findTokenizer('Org/Tiny', env), { found: true, dir: path.join(repo, 'snapshots', 'aaa'), via: 'hf-cache' });
    const got = tokenizerFor('Org/Tiny', env);
    assert.ok('tokenizer' in got, JSON.stringify(got));
    assert.equal(got.tokenizer.decode(got.tokenizer.encode('It is sunny.')), 'It is sunny.');
    assert.ok(got.tokenizer.chatTemplate?.includes('<tool_call>'), 'chat_template.jinja read');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('no tokenizer: the reason says why (no such model, a folder without tokenizer.json, a broken or oversized file)', () => {
  const root = tmp();
  try {
    const env = { HF_HUB_CACHE: path.join(root, 'hub') };
    const a = findTokenizer('Qwen/Qwen2.5-7B-Instruct', env);
    assert.ok(!a.found && /Qwen\/Qwen2\.5-7B-Instruct is not a folder on this machine and not in the Hugging Face cache/.test(a.reason));
    assert.ok(!findTokenizer('', env).found);
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    const b = findTokenizer(empty, env);
    assert.ok(!b.found && b.reason === `${empty} has no tokenizer.json`);
    fs.writeFileSync(path.join(empty, 'tokenizer.json'), '{"model": ');
    const c = tokenizerFor(empty, env);
    assert.ok('reason' in c && /tokenizer\.json is not valid JSON/.test(c.reason), JSON.stringify(c));
    fs.truncateSync(path.join(empty, 'tokenizer.json'), 65 * 1024 * 1024); // sparse: nothing is written
    const d = tokenizerFor(empty, env);
    assert.ok('reason' in d && /over the 67108864-byte limit/.test(d.reason), JSON.stringify(d));
    assert.throws(() => loadTokenizer(path.join(root, 'nowhere')));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

// Hostile model folders (a job dir's model.model_path may name any folder): a looping chat
// template and a backtracking pre-tokenizer regex are refused within their budgets, with a
// message; the texts are still tokenized without the mask, or the ids are shown alone.
const LOOPING = '{% for i in range(100000) %}{% for j in range(100000) %}{{ messages[0].content }}{% endfor %}{% endfor %}';
const DOUBLING = "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}";

function hostileFolder(edit: (dir: string) => void): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-hostile-'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(dir, f));
  edit(dir);
  return dir;
}

test(
  'a looping chat_template.jinja or tokenizer_config.json template: over budget, a clear message, the texts tokenized without the mask',
  { skip: skipNoTokenizer },
  () => {
    const messages = [
      { role: 'user', content: 'What is 2 plus 3?' },
      { role: 'assistant', content: 'The answer is 5.' },
    ];
    const folders = [
      hostileFolder((d) => fs.writeFileSync(path.join(d, 'chat_template.jinja'), LOOPING)),
      hostileFolder((d) => {
        fs.rmSync(path.join(d, 'chat_template.jinja'));
        const cfg = JSON.parse(fs.readFileSync(path.join(d, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
        fs.writeFileSync(path.join(d, 'tokenizer_config.json'), JSON.stringify({ ...cfg, chat_template: DOUBLING }));
      }),
    ];
    try {
      for (const dir of folders) {
        const t = tokenizerFor(dir);
        assert.ok('tokenizer' in t, JSON.stringify(t));
        const e = retokenize({ messages, prompt_text: 'What is 2 plus 3?', response_text: 'The answer is 5.' }, t.tokenizer);
        assert.deepEqual(e.source, { kind: 'retokenized', from: 'text' });
        const mask = e.missing.find((m) => m.part === 'mask');
        assert.match(mask?.detail ?? '', /chat template went over its budget \((200000 steps|16777216 characters|2000000 items in a list)\)/);
        assert.ok(e.ids.length > 0, 'the texts are still tokenized');
      }
    } finally {
      for (const d of folders) fs.rmSync(d, { recursive: true, force: true });
    }
  },
);

test(
  'a pre-tokenizer regex that backtracks without end ((a+)+$) is refused when the folder loads: no tokenizer, the reason says why',
  { skip: skipNoTokenizer },
  () => {
    const dir = hostileFolder((d) => {
      const json = JSON.parse(fs.readFileSync(path.join(d, 'tokenizer.json'), 'utf8')) as {
        pre_tokenizer: { pretokenizers: { pattern?: { Regex: string } }[] };
      };
      json.pre_tokenizer.pretokenizers[0].pattern = { Regex: '(a+)+$' };
      fs.writeFileSync(path.join(d, 'tokenizer.json'), JSON.stringify(json));
    });
    try {
      const t = tokenizerFor(dir);
      assert.ok('reason' in t, 'the tokenizer was loaded');
      assert.match(t.reason, /tokenizer\.json has a regex that can backtrack without end \("\(a\+\)\+\$"/);
      // What the views then do with a row that has its ids: ids only, saying why.
      const e = fromBuffer({ tokens: [1, 2, 3], prompt_length: 1 }, t);
      assert.equal(e.texts, undefined);
      assert.ok(
        e.missing.some((m) => m.part === 'text' && m.detail === t.reason),
        JSON.stringify(e.missing),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
