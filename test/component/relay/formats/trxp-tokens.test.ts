// `tokens` requests (trxp-tokens.ts and its Python twin tokens.py; a conformance test of the two
// relays, kept beside the module it tests), from the Node relay and from its Python twin, against rows Trinity-RFT
// 0.5.2's own writers made (test/fixtures/tokens/trinity_token_rows.py: SQLExperienceStorage and
// FileStorage, tensors of every dtype torch gives Trinity's fields): each relay's binary frame
// decodes to exactly what Trinity's own Experience.deserialize reads from the same row (tokens,
// logprobs, action_mask, prompt_length, advantages, returns, token-level reward, truncation);
// file-buffer lines come back as texts to re-tokenize; crafted rows (a 2^40-element shape,
// offsets past the data, float ids, a cut row, a 2^39-byte tensors header, an id past 32 bits)
// each get a clear error from both, and the relay answers the next request. The Python relays'
// replies equal the Node relay's.
import * as assert from 'node:assert/strict';
import { RelayClient } from '../../../../src/relay-protocol/client';
import type { TokensReply } from '../../../../src/relay-protocol/tokens-frame';
import { until } from '../../../harness/wait';
import { noTrinity } from '../trinity-sql-writer';
import { writeTokenRows } from '../../../harness/trinity-token-rows';
import { tmpDir } from '../helpers';
import { RELAY_RUNTIMES, type RelayRuntime, once, relaySkipReason, startRelay } from '../conformance/helpers';
import { test } from 'node:test';

const plain = (a: ArrayLike<number> | undefined) => (a ? Array.from(a) : null);
/** A reply in comparable form (its request number is the client's, not the relay's). */
const comparable = (r: TokensReply) => ({ ...r, request: 0, arrays: Object.fromEntries(Object.entries(r.arrays).map(([k, v]) => [k, plain(v)])) });

/** Every row's tokens (or error) from a relay of `runtime`. */
async function repliesOf(runtime: RelayRuntime): Promise<Record<string, unknown>> {
  const { job, rows, lines } = await written();
  const relay = await startRelay(['--job-dir', job], { runtime });
  const client = new RelayClient({ url: relay.url, backoff: { initialMs: 50, maxMs: 500 } });
  client.start();
  try {
    const sources = await until('the buffer sources', () => {
      const s = client.sources();
      const sql = s.find((x) => x.kind === 'sql');
      const jsonl = s.find((x) => x.kind === 'jsonl');
      return client.state === 'open' && sql && jsonl && { sql: sql.id, jsonl: jsonl.id };
    });
    const out: Record<string, unknown> = {};
    for (const row of rows) {
      out[`sql#${row.id}`] = await client.requestTokens(sources.sql, row.id).then(comparable, (e: Error) => ({ error: e.message }));
    }
    for (const line of lines)
      out[`jsonl#${line.line}`] = await client.requestTokens(sources.jsonl, line.id).then(comparable, (e: Error) => ({ error: e.message }));
    out['jsonl#mid-line'] = await client.requestTokens(sources.jsonl, lines[1].id + 3).then(comparable, (e: Error) => ({ error: e.message }));
    out['sql#missing'] = await client.requestTokens(sources.sql, 99_999).then(comparable, (e: Error) => ({ error: e.message }));
    out['no-source'] = await client.requestTokens('sql:nope', 1).then(comparable, (e: Error) => ({ error: e.message }));
    return out;
  } finally {
    await client.close();
    await relay.stop();
  }
}

const written = once(() => Promise.resolve(writeTokenRows(tmpDir('conf-tokens-'))));
const reference = once(() => repliesOf('node'));
const skip = noTrinity || relaySkipReason('node');

test('tokens of SQL rows written by Trinity 0.5.2 equal its own deserialization, every dtype [node]', { skip, timeout: 240_000 }, async () => {
  const { rows, lines } = await written();
  const got = await reference();
  const f32 = (xs: (number | string)[] | null) => (xs ? xs.map((x) => Math.fround(Number(x))) : null);
  for (const row of rows.filter((r) => !r.crafted)) {
    const r = got[`sql#${row.id}`] as ReturnType<typeof comparable> & { error?: string };
    assert.equal(r.error, undefined, `row ${row.id}: ${r.error}`);
    const want = (k: string) => `row ${row.id}: ${k}`;
    assert.equal(r.kind, 'tensors');
    assert.deepEqual(r.arrays.tokens, row.tokens, want('tokens'));
    assert.equal(r.prompt_length, row.prompt_length, want('prompt_length'));
    assert.deepEqual(r.arrays.logprobs ?? null, f32(row.logprobs), want('logprobs'));
    assert.deepEqual(r.arrays.action_mask ?? null, row.action_mask?.map((m) => (m ? 1 : 0)) ?? null, want('action_mask'));
    assert.deepEqual(r.arrays.advantages ?? null, f32(row.advantages), want('advantages'));
    assert.deepEqual(r.arrays.returns ?? null, f32(row.returns), want('returns'));
    assert.deepEqual(r.arrays.token_level_reward ?? null, f32(row.token_level_reward), want('token_level_reward'));
    assert.equal(r.truncate_status, row.truncate_status, want('truncate_status'));
    assert.equal(r.reward, row.reward, want('reward'));
    assert.equal(r.response_text, row.response_text, want('response_text'));
    assert.deepEqual(r.messages, row.messages, want('messages'));
  }
  // The first row keeps -inf and -1e-8 logprobs as they are (no JSON number list on the way).
  assert.equal((got['sql#1'] as ReturnType<typeof comparable>).arrays.logprobs?.[4], -Infinity);
  const crafted = rows.filter((r) => r.crafted);
  assert.equal(crafted.length, 9);
  const expected: Record<string, RegExp> = {
    'huge shape': /1099511627776 elements, over the 524288-element limit/,
    'offsets past the data': /data_offsets \[0, 16\] outside the 8 data bytes/,
    'float ids': /ids of dtype F32/,
    truncated: /truncated/,
    'huge tensors header': /tensors header of 549755813888 bytes is over/,
    'id past 32 bits': /does not fit 32 bits/,
    '2-D tokens': /tensor 0:tokens: shape \[2, 2\] has 2 dimensions, not one sequence/,
  };
  for (const row of crafted.filter((r) => expected[r.crafted!]))
    assert.match(String((got[`sql#${row.id}`] as { error?: string }).error), expected[row.crafted!], row.crafted);
  // A prompt length that is not a count is not known (null), not Trinity's default of 1.
  for (const why of ['huge prompt_length', 'string prompt_length']) {
    const r = got[`sql#${crafted.find((c) => c.crafted === why)!.id}`] as ReturnType<typeof comparable>;
    assert.deepEqual([r.prompt_length, r.arrays.tokens], [null, [1, 2]], why);
  }
  for (const line of lines) {
    const r = got[`jsonl#${line.line}`] as ReturnType<typeof comparable>;
    assert.equal(r.kind, 'texts', `line ${line.line}`);
    assert.deepEqual(r.arrays, {});
    assert.deepEqual(r.messages, line.messages);
    assert.equal(r.response_text, line.response_text);
    assert.equal(r.prompt_length, line.prompt_length);
    assert.equal(r.truncate_status, line.truncate_status);
  }
  assert.match(String((got['sql#missing'] as { error?: string }).error), /no row 99999/);
  assert.match(String((got['jsonl#mid-line'] as { error?: string }).error), /row \d+: not the start of a line/);
  assert.match(String((got['no-source'] as { error?: string }).error), /no experience source/);
});

for (const runtime of RELAY_RUNTIMES.filter((r) => r !== 'node')) {
  test(
    `tokens replies equal the Node relay's, row by row, crafted ones too [${runtime}]`,
    { skip: skip || relaySkipReason(runtime), timeout: 240_000 },
    async () => {
      const want = await reference();
      const got = await repliesOf(runtime);
      assert.deepEqual(Object.keys(got), Object.keys(want));
      for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], k);
    },
  );
}
