// The advantage read from a TRXP blob's safetensors part, per dtype and with the action mask:
// the relay reads these as typed arrays (one copy), so each dtype's decoding is pinned here.
// The layout is Trinity's (Experience.serialize_many); the end-to-end check with Trinity's own writer is
// test/component/sqlite/row-changes.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { summarizeExperience } from '../../../../src/relay/formats/trxp';

type Tensor = { dtype: string; data: Buffer };

function blob(tensors: Record<string, Tensor>, pad = 0): Buffer {
  let off = 0;
  const header: Record<string, unknown> = {};
  const parts: Buffer[] = [];
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: [t.data.length], data_offsets: [off, off + t.data.length] };
    parts.push(t.data);
    off += t.data.length;
  }
  const json = Buffer.from(JSON.stringify(header) + ' '.repeat(pad));
  const meta = Buffer.alloc(0); // no pickled metadata: the metrics stay out, the advantage is read
  const head = Buffer.alloc(4 + 1 + 8 + 8);
  head.write('TRXP', 0, 'latin1');
  head.writeBigUInt64LE(BigInt(meta.length), 5);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([head, meta, len, json, ...parts]);
}

const f32 = (xs: number[]): Tensor => ({ dtype: 'F32', data: Buffer.from(new Float32Array(xs).buffer) });
const f64 = (xs: number[]): Tensor => ({ dtype: 'F64', data: Buffer.from(new Float64Array(xs).buffer) });
const bf16 = (xs: number[]): Tensor => ({
  dtype: 'BF16',
  data: Buffer.from(new Uint16Array(Array.from(new Uint32Array(new Float32Array(xs).buffer), (w) => w >>> 16)).buffer),
});
const bool = (xs: number[]): Tensor => ({ dtype: 'BOOL', data: Buffer.from(xs) });

function advantage(b: Buffer, headLen = b.length): unknown {
  return summarizeExperience(b.subarray(0, headLen), b.length, (s, n) => b.subarray(s, s + n)).advantage;
}

test('advantage: the mean over action tokens for F32, F64 and BF16 tensors', () => {
  const mask = bool([0, 1, 1, 0]);
  assert.equal(advantage(blob({ '0:advantages': f32([9, 1.5, 2.5, 9]), '0:action_mask': mask })), 2);
  assert.equal(advantage(blob({ '0:advantages': f64([9, -0.25, 0.75, 9]), '0:action_mask': mask })), 0.25);
  assert.equal(advantage(blob({ '0:advantages': bf16([9, 1.5, 2.5, 9]), '0:action_mask': mask })), 2);
  // without a mask (or one of another length) every token counts
  assert.equal(advantage(blob({ '0:advantages': f32([1, 2, 3, 6]) })), 3);
  assert.equal(advantage(blob({ '0:advantages': f32([1, 2, 3, 6]), '0:action_mask': bool([1]) })), 3);
});

test('advantage: tensors at odd offsets and beyond the head are read through the range reader', () => {
  // 1 byte of header padding puts the tensor data at an offset no typed array could view in place
  const b = blob({ '0:advantages': f32([0.5, 1.5]), '0:action_mask': bool([1, 1]) }, 1);
  assert.equal(advantage(b, 24), 1);
});

test('advantage: absent when every token is masked, the dtype is unknown or the tensor is missing', () => {
  assert.equal(advantage(blob({ '0:advantages': f32([1, 2]), '0:action_mask': bool([0, 0]) })), undefined);
  assert.equal(advantage(blob({ '0:advantages': { dtype: 'C64', data: Buffer.alloc(16) } })), undefined);
  assert.equal(advantage(blob({ '0:returns': f32([1]) })), undefined);
});

test('advantage: an int32 or int64 action mask (as the multi-turn conversion of Trinity leaves it) masks like a bool one', () => {
  const i32 = (xs: number[]): Tensor => ({ dtype: 'I32', data: Buffer.from(new Int32Array(xs).buffer) });
  const i64 = (xs: number[]): Tensor => ({ dtype: 'I64', data: Buffer.from(new BigInt64Array(xs.map(BigInt)).buffer) });
  assert.equal(advantage(blob({ '0:advantages': f32([1, 2, 4]), '0:action_mask': i32([1, 0, 1]) })), 2.5);
  assert.equal(advantage(blob({ '0:advantages': f32([1, 2, 4]), '0:action_mask': i64([0, 1, 0]) })), 2);
});

test("group facts: the response length is the mask's, the trained tokens its nonzero entries; no metadata, no truncation said", () => {
  const i32 = (xs: number[]): Tensor => ({ dtype: 'I32', data: Buffer.from(new Int32Array(xs).buffer) });
  const b = blob({ '0:advantages': f32([1, 2, 4, 0, 0]), '0:action_mask': i32([1, 0, 1, 0, 0]) });
  const s = summarizeExperience(b, b.length, (st, n) => b.subarray(st, st + n));
  assert.deepEqual([s.response_tokens, s.trained_tokens, s.truncated, s.empty_response], [5, 2, undefined, undefined]);
  const none = blob({ '0:action_mask': bool([0, 0, 0]) });
  const n = summarizeExperience(none, none.length, (st, k) => none.subarray(st, st + k));
  assert.deepEqual([n.response_tokens, n.trained_tokens, n.advantage], [3, 0, undefined]);
});

test("the tasks fold's summary (tensors: 'shapes') takes the response length from the header's shapes and reads no tensor's bytes", () => {
  const b = blob({ '0:tokens': { dtype: 'I64', data: Buffer.alloc(8 * 9) }, '0:action_mask': bool([0, 1, 1, 1, 0]), '0:advantages': f32([1, 2, 3, 4, 5]) });
  const ranges: [number, number][] = [];
  const head = b.subarray(0, 21 + 8 + Number(b.readBigUInt64LE(21))); // the TRXP header, the (empty) metadata and the safetensors header: no tensor
  const read = (s: number, n: number): Buffer => {
    ranges.push([s, n]);
    return b.subarray(s, s + n);
  };
  const lean = summarizeExperience(head, b.length, read, 'shapes');
  assert.equal(lean.response_tokens, 5);
  assert.equal(lean.advantage, undefined);
  assert.equal(lean.trained_tokens, undefined);
  assert.deepEqual(ranges, [], 'no range read past the header');
  // the experience list's summary reads the mask and the advantages
  const full = summarizeExperience(head, b.length, read);
  assert.equal(full.response_tokens, 5);
  assert.equal(full.trained_tokens, 3);
  assert.ok(ranges.length > 0);
});
