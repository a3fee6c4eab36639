// The tokens frames of a row laid out once: every answer for the row is the same frame with its
// own request number, counted (laid out once, reused after), and equal to a frame encoded anew;
// an answer is a small head of its own and the body every answer shares (never a copy of it).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { decodeTokensFrame, encodeTokensFrame } from '../../../../src/relay-protocol/tokens-frame';
import type { RowTokens } from '../../../../src/relay/sources/source';
import { TokensFrames } from '../../../../src/relay/serve/tokens-frames';

const row: RowTokens = {
  kind: 'tensors',
  prompt_length: 2,
  truncate_status: null,
  reward: 1,
  messages: Array.from({ length: 2000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` })),
  arrays: { tokens: Int32Array.from([1, 2, 3, 4, 5]), logprobs: Float32Array.from([-0.5, -Infinity, -0.25]), action_mask: Uint8Array.from([1, 0, 1]) },
};

test('a row asked 100 times is laid out once: one frame of bytes built, each answer its own request', () => {
  const frames = new TokensFrames();
  const requests = [0, 1, 7, 42, 2 ** 31, Number.MAX_SAFE_INTEGER, -3, ...Array.from({ length: 93 }, (_, i) => 100 + i)];
  const parts = requests.map((n) => frames.fragments(row, 'sql:buffer', 9, n));
  const out = parts.map((p) => Buffer.concat(p));
  assert.deepEqual(frames.stats, { built: 1, reused: 99, builtBytes: out[0].length });
  const fresh = decodeTokensFrame(encodeTokensFrame({ ...row, type: 'tokens', request: 5, source: 'sql:buffer', id: 9 }));
  out.forEach((f, i) => {
    const d = decodeTokensFrame(f);
    assert.equal(d.request, requests[i]);
    assert.deepEqual({ ...d, request: 5 }, fresh);
  });
});

test('answers share the frame body: each copies only its head (the request number), ~100 bytes of a 2000-message row', () => {
  const frames = new TokensFrames();
  const [headA, bodyA] = frames.fragments(row, 'sql:buffer', 9, 1);
  const [headB, bodyB] = frames.fragments(row, 'sql:buffer', 9, 2);
  assert.equal(bodyA.buffer, bodyB.buffer, "the body is the template's bytes, not a copy per answer");
  assert.equal(bodyA.byteOffset, bodyB.byteOffset);
  assert.notEqual(headA.buffer, headB.buffer, 'each answer has its own head');
  assert.ok(headA.length < 64, `a head of ${headA.length} bytes`);
  assert.ok(bodyA.length > 40_000, `a body of ${bodyA.length} bytes`);
  assert.equal(decodeTokensFrame(Buffer.concat([headA, bodyA])).request, 1);
});

test('another row, or the same row of another source or id, is laid out on its own', () => {
  const frames = new TokensFrames();
  frames.fragments(row, 's', 1, 1);
  frames.fragments(row, 's', 2, 1);
  frames.fragments(row, 't', 1, 1);
  frames.fragments({ ...row, reward: 0 }, 's', 1, 1);
  assert.equal(frames.stats.built, 4);
  assert.equal(decodeTokensFrame(Buffer.concat(frames.fragments({ ...row, reward: 0 }, 's', 1, 3))).reward, 0);
});
