import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { absolutePath, getPath, parseEditedValue, parsePath, PathError, setPath, splitAssignment } from '../../../../src/debug/dap/paths';

test('Debug Console paths: names, dots, indexes (negative from the end), quoted keys', () => {
  assert.deepEqual(parsePath('messages[-1].content'), ['messages', -1, 'content']);
  assert.deepEqual(parsePath(`request.tools[0]["function"]['name']`), ['request', 'tools', 0, 'function', 'name']);
  const root = { messages: [{ content: 'a' }, { content: 'b' }] };
  assert.equal(getPath(root, parsePath('messages[-1].content')), 'b');
  assert.deepEqual(absolutePath(root, ['messages', -1, 'content']), ['messages', 1, 'content']);
  assert.throws(() => getPath(root, parsePath('messages[5]')), /index 5 is out of range \(length 2\)/);
  assert.throws(() => parsePath('messages[x'), PathError);
  assert.throws(() => parsePath('1abc'), /expected a name/);
});

test('edits: text stays text where a string was; JSON elsewhere; assignments split at top level', () => {
  assert.equal(parseEditedValue('What is 2 plus 2?', 'x'), 'What is 2 plus 2?');
  assert.equal(parseEditedValue('"quoted"', 'x'), 'quoted');
  assert.equal(parseEditedValue('42', 'x'), '42');
  assert.equal(parseEditedValue('0.7', 1), 0.7);
  assert.deepEqual(parseEditedValue('{"a":1}', {}), { a: 1 });
  const root = { messages: [{ content: 'a' }] };
  setPath(root, ['messages', -1, 'content'], 'z');
  assert.equal(root.messages[0].content, 'z');
  assert.deepEqual(splitAssignment('messages[-1].content = "a = b"'), { lhs: 'messages[-1].content', rhs: '"a = b"' });
  assert.equal(splitAssignment('reward == 1'), undefined);
  assert.equal(splitAssignment('messages["a=b"]'), undefined);
});
