// LineReader reads no more than the file has past its offset: a source polled at its end (every
// wake of every client) costs no buffer, a few new bytes cost a few bytes; lines are as before.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { LineReader } from '../../../../src/relay/sources/line-reader';
import { tmpDir } from '../helpers';

test('at the end of the file a read holds no buffer; a short tail holds only its bytes; a line being written waits', () => {
  const file = path.join(tmpDir('line-reader-'), 'buffer.jsonl');
  fs.writeFileSync(file, '{"a":1}\n{"b":2}\n');
  const fd = fs.openSync(file, 'r');
  try {
    const lines = new LineReader(1024 * 1024);
    const first = lines.read(fd, 0, 1024 * 1024);
    assert.equal(first.buf.subarray(first.from, first.to).toString(), '{"a":1}\n{"b":2}\n');
    assert.ok(first.buf.length <= 16, `a ${first.buf.length}-byte buffer for 16 bytes`);
    const end = lines.read(fd, first.next, 1024 * 1024);
    assert.deepEqual([end.buf.length, end.from, end.to, end.next], [0, 0, 0, first.next]);
    fs.appendFileSync(file, '{"c":');
    const partial = lines.read(fd, first.next, 1024 * 1024);
    assert.deepEqual([partial.from, partial.to, partial.next], [0, 0, first.next], 'a line still being written waits');
    assert.ok(partial.buf.length <= 10, `a ${partial.buf.length}-byte buffer for 5 bytes`);
    fs.appendFileSync(file, '3}\n');
    const done = lines.read(fd, first.next, 1024 * 1024);
    assert.equal(done.buf.subarray(done.from, done.to).toString(), '{"c":3}\n');
  } finally {
    fs.closeSync(fd);
  }
});
