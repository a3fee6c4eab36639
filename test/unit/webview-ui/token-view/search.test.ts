// Search in the token view: text across tokens (case-insensitive, each match's first and last
// token), #id, nothing for an empty query, a cap on matches.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLAG_PARTIAL, fromTensors } from '../../../../src/tokens/experience';
import { findMatches } from '../../../../src/webview-ui/token-view/search';

const withTexts = (pieces: string[], ids = pieces.map((_, i) => i + 10)) => {
  const offsets = new Uint32Array(pieces.length + 1);
  pieces.forEach((p, i) => (offsets[i + 1] = offsets[i] + p.length));
  const flags = Uint8Array.from(pieces.map((p) => (p === '' ? FLAG_PARTIAL : 0)));
  return { ...fromTensors({ tokens: ids, prompt_length: 1 }), texts: { joined: pieces.join(''), offsets, flags, partialBytes: {} } };
};

test('text found across tokens, case-insensitively; #id finds tokens by id; an empty query finds nothing', () => {
  const e = withTexts(['It', ' is', ' sun', 'ny', ' in', ' Paris', '.', ' sunny']);
  assert.deepEqual(findMatches(e, 'SUNNY'), [
    [2, 3],
    [7, 7],
  ]);
  assert.deepEqual(findMatches(e, 'n p'), [[4, 5]]);
  assert.deepEqual(findMatches(e, '#15'), [[5, 5]]);
  assert.deepEqual(findMatches(e, '  '), []);
  assert.deepEqual(findMatches(e, 'x'), []);
  assert.equal(findMatches(e, 'i', 2).length, 2);
});

test('a character completed by a later token is found on that token (the partial ones before it hold no text)', () => {
  const e = withTexts(['a', '', '', '中', 'b']);
  assert.deepEqual(findMatches(e, '中b'), [[3, 4]]);
  const noText = fromTensors({ tokens: [1, 2], prompt_length: 1 });
  assert.deepEqual(findMatches(noText, 'a'), []);
  assert.deepEqual(findMatches(noText, '#2'), [[1, 1]]);
});
