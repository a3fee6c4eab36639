// `agentrl tokens`, run as users run it (dist/agentrl.js), on a job directory Trinity-RFT 0.5.2's
// own writers filled: --json prints each SQL row's ids, logprobs, mask and advantages as
// Trinity's own deserialization has them; a file-buffer line is re-tokenized with --model's
// tokenizer and says so; a crafted row exits 1 with its error, bad usage exits 2.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { test } from 'node:test';
import type { TokensJson } from '../../../../src/tokens/token-json';
import { cliBundle } from '../../../harness/relay';
import { type TrinityRow, writeTokenRows } from '../../../harness/trinity-token-rows';
import { skipNoTokenizer, tinyTokenizer, tinyTokenizerDir } from '../../../harness/tiny-tokenizer';
import { freePort } from '../../../harness/vscode-server';
import { tmpDir } from '../helpers';
import { noTrinity } from '../trinity-sql-writer';

const run = (args: string[]) =>
  spawnSync(process.execPath, [cliBundle, 'tokens', ...args], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '' } });

test('agentrl tokens --job-dir: JSON equal to Trinity, texts re-tokenized, exit codes 0/1/2', { skip: noTrinity || skipNoTokenizer, timeout: 240_000 }, () => {
  const { job, rows, lines } = writeTokenRows(tmpDir('cli-tokens-'));
  // Trinity's values as the JSON holds them: float32, an infinity by name (-inf logprobs are in the rows), NaN as absent.
  const f32 = (v: number | string | undefined) => (v === undefined || v === 'NaN' ? null : v === 'Infinity' || v === '-Infinity' ? v : Math.fround(Number(v)));
  const read = (v: TokensJson['tokens'][number]['logprob']) => (v === null || typeof v === 'string' ? v : Math.fround(v));
  for (const row of rows.filter((r): r is TrinityRow => !r.crafted)) {
    const r = run(['--job-dir', job, '--id', String(row.id), '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as TokensJson;
    assert.equal(j.source, 'buffer');
    assert.equal(j.prompt_length, row.prompt_length);
    assert.equal(j.truncated, row.truncate_status !== null);
    assert.deepEqual(
      j.tokens.map((t) => t.id),
      row.tokens,
      `row ${row.id} ids`,
    );
    const resp = (k: 'logprobs' | 'advantages', i: number) => (i < row.prompt_length ? null : f32(row[k]?.[i - row.prompt_length]));
    // The JSON prints the shortest decimal of each float32: read back as float32, it is the value.
    assert.deepEqual(
      j.tokens.map((t) => read(t.logprob)),
      row.tokens.map((_, i) => resp('logprobs', i)),
      `row ${row.id} logprobs`,
    );
    assert.deepEqual(
      j.tokens.map((t) => read(t.advantage)),
      row.tokens.map((_, i) => resp('advantages', i)),
      `row ${row.id} advantages`,
    );
    const mask = row.action_mask ?? [];
    assert.deepEqual(
      j.tokens.map((t) => t.trained),
      row.tokens.map((_, i) => i >= row.prompt_length && !!mask[i - row.prompt_length]),
      `row ${row.id} mask`,
    );
  }
  // The text view: the summary line and one line per token.
  const text = run(['--job-dir', job, '--id', '1', '--model', tinyTokenizerDir]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /experience_buffer #1 · 8 tokens \(3 prompt, 5 response, 4 trained\)/);
  assert.match(text.stdout, /truncated \(response_truncated\)/);
  assert.equal(text.stdout.trim().split('\n').length, 3 + 8 + 1);
  // A file-buffer line keeps texts only: re-tokenized with the fixture model's chat template.
  const src = 'jsonl:buffer/file_buffer.jsonl';
  const noModel = run(['--job-dir', job, '--id', String(lines[0].id), '--source', src, '--json']);
  assert.equal(noModel.status, 1);
  assert.match(noModel.stderr, /keeps only texts.*no --model given/);
  const re = run(['--job-dir', job, '--id', String(lines[0].id), '--source', src, '--json', '--model', tinyTokenizerDir]);
  assert.equal(re.status, 0, re.stderr);
  const j = JSON.parse(re.stdout) as TokensJson;
  assert.equal(j.source, 'retokenized');
  assert.equal(j.tokens.map((t) => t.text).join(''), tinyTokenizer().decode(Int32Array.from(j.tokens.map((t) => t.id))));
  assert.ok(
    j.tokens
      .map((t) => t.text)
      .join('')
      .includes('answer 0 ünï'),
  );
  assert.ok(
    j.tokens.every((t) => t.logprob === null),
    'no logprobs from texts',
  );
  // Crafted rows: exit 1 with the row's error; bad usage: exit 2.
  const crafted = rows.find((r) => r.crafted === 'huge shape')!;
  const bad = run(['--job-dir', job, '--id', String(crafted.id)]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /over the 524288-element limit/);
  assert.equal(run(['--job-dir', job, '--id', '99999']).status, 1);
  assert.equal(run(['--job-dir', job]).status, 2);
  assert.equal(run(['--id', '1']).status, 2);
  assert.equal(run(['--job-dir', job, '--id', '0']).status, 2);
  for (const id of ['0x10', '1e3', ' 7', '7.0']) assert.match(run(['--job-dir', job, '--id', id]).stderr, /--id must be a positive integer row id/, id);
});

test(
  'a relay URL where nothing listens: exit 1 at once, saying the relay cannot be reached (not after the whole wait)',
  { skip: !fs.existsSync(cliBundle) && 'needs the CLI bundle (npm run build)' },
  async () => {
    const url = `ws://127.0.0.1:${await freePort()}`;
    const r = run([url, '--id', '1']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`cannot reach the relay at ${url} \\(.*; 3 attempts\\): is it running, and is that its address\\?`));
  },
);
