// Ray working_dir packages: our zip writer read back by Python's zipfile (what Ray unpacks
// with), .gitignore semantics, the size limit and a stable content hash.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { IgnoreMatcher, parseGitignore } from '../../../../src/ray/submit/gitignore';
import { listPackageFiles, packWorkspace, PackageTooLargeError } from '../../../../src/ray/submit/package';
import { crc32, zip } from '../../../../src/ray/submit/zip';

const py = (code: string, input?: Buffer) => spawnSync('python3', ['-c', code], { input, encoding: 'buffer' });

test('crc32 matches the reference value', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
});

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

test('gitignore: anchored, directory-only, globstar, negation and nested files', () => {
  const m = new IgnoreMatcher().add(parseGitignore('# c\n*.log\n/build\nckpt/\n**/tmp/**\n!keep.log\ndocs/*.md\n\\#x\n'));
  assert.equal(m.ignored('a.log', false), true);
  assert.equal(m.ignored('sub/a.log', false), true);
  assert.equal(m.ignored('keep.log', false), false, 'negated');
  assert.equal(m.ignored('build', true), true);
  assert.equal(m.ignored('src/build', true), false, 'anchored to the root');
  assert.equal(m.ignored('ckpt', true), true);
  assert.equal(m.ignored('ckpt', false), false, 'dir-only pattern ignores a file of that name');
  assert.equal(m.ignored('x/tmp/y/z.py', false), true);
  assert.equal(m.ignored('docs/a.md', false), true);
  assert.equal(m.ignored('docs/sub/a.md', false), false, 'a single * does not cross /');
  assert.equal(m.ignored('#x', false), true);
  const nested = m.add(parseGitignore('*.py\n', 'pkg'));
  assert.equal(nested.ignored('pkg/a.py', false), true);
  assert.equal(nested.ignored('a.py', false), false, 'a nested .gitignore applies below its dir only');
});

test('packWorkspace: honours .gitignore files, skips .git, adds extras, stable hash, size limit', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-pack-'));
  const w = (rel: string, data: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), data);
  };
  w('.gitignore', 'checkpoints/\n*.pt\n');
  w('train.yaml', 'project: p\n');
  w('wf/workflow.py', 'x = 1\n');
  w('wf/.gitignore', 'scratch.txt\n');
  w('wf/scratch.txt', 'nope');
  w('checkpoints/global_step_1/model.bin', Buffer.alloc(4096));
  w('model.pt', Buffer.alloc(4096));
  w('.git/HEAD', 'ref: x');
  const extra = path.join(dir, '..', `${path.basename(dir)}-cli.js`);
  fs.writeFileSync(extra, '#!/usr/bin/env node\n');
  const a = packWorkspace({ root: dir, limitBytes: 2 ** 20, extra: [{ name: '.agentrl/agentrl.js', file: extra }] });
  assert.deepEqual(a.files, ['.gitignore', 'train.yaml', 'wf/.gitignore', 'wf/workflow.py', '.agentrl/agentrl.js']);
  const b = packWorkspace({ root: dir, limitBytes: 2 ** 20, extra: [{ name: '.agentrl/agentrl.js', file: extra }] });
  assert.equal(a.name, b.name, 'same content, same package name');
  w('wf/workflow.py', 'x = 2\n');
  assert.notEqual(packWorkspace({ root: dir, limitBytes: 2 ** 20 }).name, a.name);
  w('data/big.jsonl', Buffer.alloc(2 * 2 ** 20));
  assert.throws(() => listPackageFiles(dir, 2 ** 20), (e: unknown) => e instanceof PackageTooLargeError && /data\/big\.jsonl/.test(e.message));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(extra);
});
