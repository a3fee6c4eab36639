// The online playground's webview → host messages: the host acts only on shapes it knows.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWebviewMessage } from '../../../../src/online/protocol/playground-protocol';

const params = { n: 2, maxTokens: 256, stream: true };

test('webview messages are checked before the host acts on them', () => {
  assert.equal(parseWebviewMessage({ type: 'reward', turn: 1, reward: 'a lot' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'reward', turn: -1, reward: 1 }), undefined);
  assert.equal(parseWebviewMessage({ type: 'fetch', url: 'http://evil' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'choose', turn: 1 }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'choose', turn: 1, alt: 0 }), { type: 'choose', turn: 1, alt: 0 });
});

test('every message the webview sends passes as it is', () => {
  const ok: unknown[] = [
    { type: 'ready' },
    { type: 'send', text: 'hi', params },
    { type: 'send', text: 'hi', params: { ...params, topP: 0.9, temperature: 0.7 } },
    { type: 'regenerate', turn: 3 },
    { type: 'reward', turn: 1, alt: 0, reward: 1, source: 'thumb' },
    { type: 'reward', turn: 1, reward: 0.5, source: 'score' },
    { type: 'choose', turn: 1, alt: 1 },
    { type: 'retry' },
    { type: 'retry', feedbackId: 'f1' },
    { type: 'commit' },
    { type: 'refreshMetrics' },
    { type: 'newConversation' },
    { type: 'openConversation', id: 'c1' },
    { type: 'pickTools' },
    { type: 'selectModel', model: 'qwen' },
    { type: 'connect' },
  ];
  for (const m of ok) assert.deepEqual(parseWebviewMessage(m), m, JSON.stringify(m));
});

test('malformed fields drop the message; NaN sampling params reach the controller, which clamps them', () => {
  const bad: unknown[] = [
    null,
    'ready',
    [],
    { type: 42 },
    { type: 'send', text: 'hi' },
    { type: 'send', text: 'hi', params: 'fast' },
    { type: 'send', text: 'hi', params: { ...params, stream: 'yes' } },
    { type: 'send', text: 7, params },
    { type: 'regenerate', turn: 1.5 },
    { type: 'reward', turn: 1, reward: Number.NaN, source: 'thumb' },
    { type: 'reward', turn: 1, reward: 1, source: 'gut feeling' },
    { type: 'reward', turn: 1, alt: -1, reward: 1, source: 'thumb' },
    { type: 'retry', feedbackId: 3 },
    { type: 'openConversation' },
    { type: 'selectModel', model: null },
    { type: 'toString' },
  ];
  for (const m of bad) assert.equal(parseWebviewMessage(m), undefined, JSON.stringify(m));
  const nan = { type: 'send', text: 'hi', params: { ...params, topP: Number.NaN } };
  assert.deepEqual(parseWebviewMessage(nan), nan);
});
