// Our zip writer read back by Python's zipfile (what Ray unpacks a working_dir package with):
// names, bytes, modes, stored and deflated entries. Spawns python3.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { zip } from '../../../../src/ray/submit/zip';

const py = (code: string, input?: Buffer) => spawnSync('python3', ['-c', code], { input, encoding: 'buffer' });

test('zip: Python zipfile reads back names, bytes and modes (stored and deflated entries)', () => {
  const big = Buffer.from('x'.repeat(10_000) + 'tail');
  const rnd = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7919) % 256));
  const buf = zip([
    { name: 'a.txt', data: Buffer.from('hello') },
    { name: 'dir/big.txt', data: big },
    { name: 'bin/run.sh', data: Buffer.from('#!/bin/sh\necho 1\n'), mode: 0o755 },
    { name: 'rnd.bin', data: rnd },
    { name: 'ünï.py', data: Buffer.from('print(1)') },
  ]);
  const r = py(
    `import sys,zipfile,io,json,hashlib
z=zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
assert z.testzip() is None
print(json.dumps({i.filename:[hashlib.sha1(z.read(i)).hexdigest(),i.external_attr>>16 & 0o777,i.compress_type] for i in z.infolist()}))`,
    buf,
  );
  assert.equal(r.status, 0, r.stderr.toString());
  const got = JSON.parse(r.stdout.toString()) as Record<string, [string, number, number]>;
  const sha = (b: Buffer) => require('node:crypto').createHash('sha1').update(b).digest('hex');
  assert.deepEqual(Object.keys(got), ['a.txt', 'dir/big.txt', 'bin/run.sh', 'rnd.bin', 'ünï.py']);
  assert.equal(got['dir/big.txt'][0], sha(big));
  assert.equal(got['dir/big.txt'][2], 8, 'deflated');
  assert.equal(got['a.txt'][2], 0, 'stored');
  assert.equal(got['rnd.bin'][0], sha(rnd));
  assert.equal(got['bin/run.sh'][1], 0o755);
  assert.throws(() => zip([{ name: '../evil', data: Buffer.alloc(1) }]), /unsafe/);
});
