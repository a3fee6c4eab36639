// Ray working_dir packages: .gitignore semantics, the size limit and a stable content hash. The
// zip itself is test/unit/ray/submit/zip.test.ts, and read back by Python's zipfile (what Ray
// unpacks with) in test/component/ray/submit/zip.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { IgnoreMatcher, parseGitignore } from '../../../../src/ray/submit/gitignore';
import { listPackageFiles, packWorkspace, PackageTooLargeError } from '../../../../src/ray/submit/package';

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
  assert.throws(
    () => listPackageFiles(dir, 2 ** 20),
    (e: unknown) => e instanceof PackageTooLargeError && /data\/big\.jsonl/.test(e.message),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(extra);
});
