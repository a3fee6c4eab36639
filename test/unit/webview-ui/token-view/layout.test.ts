// The token view's layout: tokens flow into lines of `cols` columns, a line break ends a line, the
// response starts a line, a token wider than a line gets one of its own; lineOf() finds any token.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { layoutTokens } from '../../../../src/webview-ui/token-view/layout';

test("flow, breaks and the response's own line", () => {
  //            0  1  2  3  4  5  6  7
  const widths = [3, 3, 3, 1, 4, 2, 2, 9];
  const breaks = [0, 0, 0, 1, 0, 0, 0, 0];
  const L = layoutTokens(widths, breaks, 5, 8);
  // [0,1] (6 cols; 2 would make 9) · [2,3] (3 ends a line) · [4] (5 is the response) · [5,6] · [7] (wider than a line)
  assert.deepEqual([...L.lineStart], [0, 2, 4, 5, 7, 8]);
  assert.equal(L.lines, 5);
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6, 7].map((i) => L.lineOf(i)),
    [0, 0, 1, 1, 2, 3, 3, 4],
  );
});

test('no tokens: no lines; a break on the last token opens no empty line; 32 k tokens lay out in one pass', () => {
  assert.equal(layoutTokens([], [], 0, 80).lines, 0);
  assert.deepEqual([...layoutTokens([1, 1], [0, 1], 0, 80).lineStart], [0, 2]);
  const n = 32_768;
  const L = layoutTokens(new Uint16Array(n).fill(4), new Uint8Array(n), 100, 80);
  assert.equal(L.lines, 100 / 20 + Math.ceil((n - 100) / 20));
  assert.equal(L.lineOf(n - 1), L.lines - 1);
});
