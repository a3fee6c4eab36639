// The working_dir zip's contract as Ray reads it, checked in the bytes of the central directory
// (not through fflate, which writes them): Unix modes, the fixed date, stored vs deflated entries,
// byte-equal output for equal input and refused names. Python's zipfile reading it back is
// test/component/ray/submit/zip.test.ts.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { zip, type ZipEntry } from '../../../../src/ray/submit/zip';

interface CentralEntry {
  name: string;
  madeByOs: number;
  method: number;
  dosDate: number;
  dosTime: number;
  mode: number;
  flags: number;
}

/** Walks the central directory from the end-of-central-directory record (no comment). */
function centralDirectory(buf: Buffer): CentralEntry[] {
  const end = buf.length - 22;
  assert.equal(buf.readUInt32LE(end), 0x06054b50, 'end record');
  const count = buf.readUInt16LE(end + 10);
  let p = buf.readUInt32LE(end + 16);
  const out: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, 'central header');
    const nameLen = buf.readUInt16LE(p + 28);
    out.push({
      name: buf.subarray(p + 46, p + 46 + nameLen).toString('utf8'),
      madeByOs: buf.readUInt8(p + 5),
      flags: buf.readUInt16LE(p + 8),
      method: buf.readUInt16LE(p + 10),
      dosTime: buf.readUInt16LE(p + 12),
      dosDate: buf.readUInt16LE(p + 14),
      mode: buf.readUInt32LE(p + 38) >>> 16,
    });
    p += 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
  return out;
}

const entries: ZipEntry[] = [
  { name: 'a.txt', data: Buffer.from('hello') },
  { name: 'dir/big.txt', data: Buffer.from('x'.repeat(10_000)) },
  { name: 'bin/run.sh', data: Buffer.from('#!/bin/sh\necho 1\n'), mode: 0o755 },
  { name: 'ünï.py', data: Buffer.from('print(1)') },
];

test('zip: Unix modes, fixed 1980-01-01 date, stored small and deflated large entries, UTF-8 names', () => {
  const cd = centralDirectory(zip(entries));
  assert.deepEqual(
    cd.map((e) => e.name),
    ['a.txt', 'dir/big.txt', 'bin/run.sh', 'ünï.py'],
  );
  for (const e of cd) {
    assert.equal(e.madeByOs, 3, `${e.name}: made by Unix, so the mode is read`);
    assert.equal(e.dosDate, (0 << 9) | (1 << 5) | 1, `${e.name}: 1980-01-01 in any time zone`);
    assert.equal(e.dosTime, 0);
  }
  assert.equal(cd[0].mode, 0o100644, 'default mode: regular file, rw-r--r--');
  assert.equal(cd[2].mode, 0o100755, 'a script stays executable');
  assert.equal(cd[0].method, 0, 'stored');
  assert.equal(cd[1].method, 8, 'deflated');
  assert.equal(cd[3].flags & 0x0800, 0x0800, 'UTF-8 name flag');
});

test('zip: equal input gives byte-equal archives (the package name is its hash)', () => {
  const a = zip(entries);
  const b = zip(entries.map((e) => ({ ...e, data: Buffer.from(e.data) })));
  assert.ok(a.equals(b));
  assert.ok(!a.equals(zip([...entries.slice(0, 3), { name: 'ünï.py', data: Buffer.from('print(2)') }])));
});

test('zip: names of Object.prototype members are plain entries; a top-level __proto__ is refused clearly', () => {
  const cd = centralDirectory(
    zip([
      { name: 'constructor', data: Buffer.from('x') },
      { name: 'a/__proto__', data: Buffer.from('y') },
      { name: 'toString', data: Buffer.from('z') },
    ]),
  );
  assert.deepEqual(
    cd.map((e) => e.name),
    ['constructor', 'a/__proto__', 'toString'],
  );
  assert.throws(() => zip([{ name: '__proto__', data: Buffer.alloc(1) }]), /unsupported zip entry name/);
});

test('zip: refuses absolute, parent-escaping and duplicate names', () => {
  assert.throws(() => zip([{ name: '../evil', data: Buffer.alloc(1) }]), /unsafe/);
  assert.throws(() => zip([{ name: 'a/../../evil', data: Buffer.alloc(1) }]), /unsafe/);
  assert.throws(() => zip([{ name: '/etc/passwd', data: Buffer.alloc(1) }]), /unsafe/);
  assert.throws(
    () =>
      zip([
        { name: 'a', data: Buffer.alloc(1) },
        { name: 'a', data: Buffer.alloc(2) },
      ]),
    /duplicate/,
  );
});
