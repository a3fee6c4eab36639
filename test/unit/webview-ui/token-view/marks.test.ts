// The token view's turn and warning marks: per-token lookups of which message a token belongs to,
// where a turn starts (a line break before it), and which tokens a warning covers.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MarkIndex } from '../../../../src/webview-ui/token-view/marks';
import { tokenViewStrings } from '../../../../src/tokens/view-strings';
import { english } from '../../../../src/base/l10n';

const marks = {
  turns: [
    { message: 0, role: 'user', start: 0, end: 4 },
    { message: 1, role: 'assistant', start: 4, end: 7 },
    { message: 2, role: 'tool', start: 7, end: 12 },
  ],
  warnings: [{ start: 8, end: 11 }],
};

test('turn starts, role classes and the warned span', () => {
  const m = new MarkIndex(12, marks);
  assert.deepEqual(
    [...Array(12).keys()].filter((i) => m.startsTurn(i)),
    [4, 7],
    'the first token opens no line',
  );
  assert.equal(m.classes(4), ' tv-role-assistant tv-turn-start');
  assert.equal(m.classes(5), ' tv-role-assistant');
  assert.equal(m.classes(9), ' tv-role-tool tv-mask-warn');
  assert.equal(m.classes(11), ' tv-role-tool', 'the warning ends before token 11');
  const s = tokenViewStrings(english);
  assert.deepEqual(m.tooltip(8, s), [
    ['message', '2 (tool)'],
    ['', s.maskWarning],
  ]);
});

test('a label on the first token of each turn, the first one included', () => {
  const s = tokenViewStrings(english);
  const m = new MarkIndex(12, marks);
  assert.equal(m.hasTurns, true);
  assert.deepEqual(
    [...Array(12).keys()].map((i) => m.label(i, s)).filter((x) => x !== undefined),
    ['message 0 (user)', 'message 1 (assistant)', 'message 2 (tool)'],
  );
  assert.equal(m.label(7, s), 'message 2 (tool)');
  assert.equal(m.label(8, s), undefined);
  const none = new MarkIndex(5);
  assert.equal(none.hasTurns, false);
  assert.equal(none.label(0, s), undefined);
});

test('no marks, or spans beyond the tokens: nothing marked, nothing thrown', () => {
  const none = new MarkIndex(5);
  assert.equal(none.classes(2), '');
  assert.equal(none.startsTurn(2), false);
  assert.deepEqual(none.tooltip(2, tokenViewStrings(english)), []);
  const odd = new MarkIndex(3, { turns: [{ message: 0, role: 'ipython', start: -2, end: 99 }], warnings: [{ start: 2, end: 1e9 }] });
  assert.equal(odd.classes(0), ' tv-role-other tv-turn-start');
  assert.equal(odd.classes(2), ' tv-role-other tv-mask-warn');
  assert.equal(odd.classes(5), '');
});

test("what the chat template puts before the first message (its default system prompt) is labelled as the template's, not as message 0", () => {
  const s = tokenViewStrings(english);
  const m = new MarkIndex(12, {
    turns: [{ message: -1, role: 'template', start: 0, end: 3 }, ...marks.turns.map((t) => ({ ...t, start: Math.max(t.start, 3) }))],
    warnings: [],
  });
  assert.deepEqual(
    [...Array(12).keys()].map((i) => m.label(i, s)).filter((x) => x !== undefined),
    ['added by the chat template', 'message 0 (user)', 'message 1 (assistant)', 'message 2 (tool)'],
  );
  assert.deepEqual(m.tooltip(1, s), [['message', 'added by the chat template']]);
  assert.equal(m.classes(0), ' tv-role-other tv-turn-start');
});
