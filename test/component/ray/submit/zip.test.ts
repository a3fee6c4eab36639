// Our working_dir zip read back by Python's zipfile, the way Ray's unzip_package does it (copy each
// member, then chmod to external_attr >> 16): names, bytes, modes on disk, stored and deflated
// entries; and a packed folder whose script stays executable. Spawns python3.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { packWorkspace } from '../../../../src/ray/submit/package';
import { zip } from '../../../../src/ray/submit/zip';

/** Unpacks stdin into argv[1] as Ray's packaging.unzip_package does; prints, per member, the
 *  sha1 of the extracted file, its mode on disk, the compress type and the date. */
const RAY_LIKE_UNZIP = `import sys,zipfile,io,json,hashlib,os,shutil
z=zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
assert z.testzip() is None
out={}
for i in z.infolist():
  p=os.path.join(sys.argv[1],i.filename)
  os.makedirs(os.path.dirname(p),exist_ok=True)
  with z.open(i) as s, open(p,'wb') as t: shutil.copyfileobj(s,t)
  if i.external_attr and i.external_attr>>16: os.chmod(p,i.external_attr>>16)
  out[i.filename]=[hashlib.sha1(open(p,'rb').read()).hexdigest(),os.stat(p).st_mode&0o777,i.compress_type,list(i.date_time)]
print(json.dumps(out))`;

type Member = [sha1: string, mode: number, compressType: number, dateTime: number[]];

function unzipLikeRay(buf: Buffer): Record<string, Member> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-unzip-'));
  try {
    const r = spawnSync('python3', ['-c', RAY_LIKE_UNZIP, dir], { input: buf, encoding: 'buffer' });
    assert.equal(r.status, 0, r.stderr.toString());
    return JSON.parse(r.stdout.toString()) as Record<string, Member>;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const sha = (b: Buffer) => createHash('sha1').update(b).digest('hex');

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
  const got = unzipLikeRay(buf);
  assert.deepEqual(Object.keys(got), ['a.txt', 'dir/big.txt', 'bin/run.sh', 'rnd.bin', 'ünï.py']);
  assert.equal(got['a.txt'][0], sha(Buffer.from('hello')));
  assert.equal(got['dir/big.txt'][0], sha(big));
  assert.equal(got['dir/big.txt'][2], 8, 'deflated');
  assert.equal(got['a.txt'][2], 0, 'stored');
  assert.equal(got['rnd.bin'][0], sha(rnd));
  assert.equal(got['bin/run.sh'][1], 0o755);
  assert.equal(got['a.txt'][1], 0o644);
  assert.deepEqual(got['a.txt'][3], [1980, 1, 1, 0, 0, 0]);
  assert.throws(() => zip([{ name: '../evil', data: Buffer.alloc(1) }]), /unsafe/);
});

test('packWorkspace: the package unpacks like Ray does, scripts keep their executable bit', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-pack-'));
  try {
    fs.mkdirSync(path.join(dir, 'wf'));
    fs.writeFileSync(path.join(dir, 'wf', 'workflow.py'), 'x = 1\n'.repeat(50));
    fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    fs.chmodSync(path.join(dir, 'run.sh'), 0o755);
    const pkg = packWorkspace({ root: dir, limitBytes: 2 ** 20 });
    const got = unzipLikeRay(pkg.zip);
    assert.deepEqual(Object.keys(got).sort(), ['run.sh', 'wf/workflow.py']);
    assert.equal(got['run.sh'][1], 0o755);
    assert.equal(got['wf/workflow.py'][0], sha(Buffer.from('x = 1\n'.repeat(50))));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
