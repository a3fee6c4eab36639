// The probe of a real interpreter for the Trinity-RFT version (missing, without trinity, with a
// trinity-rft dist-info, with Trinity 0.5.2's own source on the path) and the per-folder
// versions it refreshes. Spawns python3; the pure version logic is in test/unit/config.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { Folders } from '../../../../src/config/lsp/folders';
import { asPromise } from '../../../../src/base/promise';
import { TrinityProbe } from '../../../../src/config/workspace/python-probe';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';
import { sleep } from '../../../harness/wait';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tv-'));

test('probe: a missing interpreter, one without trinity, one with a trinity-rft dist-info', async () => {
  const probe = new TrinityProbe(20_000);
  const missing = await probe.probe(path.join(tmp(), 'no-python'));
  assert.equal(missing.version, undefined);
  assert.ok(missing.error);
  const py = 'python3';
  const bare = tmp();
  const none = await new TrinityProbe().probe(py, bare);
  // python3 here has no trinity-rft (the test would be meaningless otherwise)
  assert.equal(none.version, undefined, 'python3 without trinity-rft');
  // a real interpreter reading real package metadata: a dist-info on its path
  const site = tmp();
  fs.mkdirSync(path.join(site, 'trinity_rft-0.6.0.dist-info'));
  fs.writeFileSync(path.join(site, 'trinity_rft-0.6.0.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: trinity-rft\nVersion: 0.6.0\n');
  const saved = process.env.PYTHONPATH;
  process.env.PYTHONPATH = site;
  try {
    assert.deepEqual(await new TrinityProbe().probe(py, bare), { version: '0.6.0' });
  } finally {
    if (saved === undefined) delete process.env.PYTHONPATH;
    else process.env.PYTHONPATH = saved;
  }
  // cached: the same interpreter is asked once
  assert.equal(probe.probe(path.join(bare, 'x')), probe.probe(path.join(bare, 'x')));
});

test(
  "probe: Trinity 0.5.2's own source on the path of the trinity venv",
  { skip: !hasShared || !fs.existsSync(path.join(repoRoot, '.cache/trinity-venv/.agentrl-ok')) },
  async () => {
    const pythonpath = execFileSync('bash', [path.join(sharedDir, 'upstream/make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).trim();
    const saved = process.env.PYTHONPATH;
    process.env.PYTHONPATH = pythonpath;
    try {
      const r = await new TrinityProbe(30_000).probe(path.join(repoRoot, '.cache/trinity-venv/bin/python'), tmp());
      assert.equal(r.version, '0.5.2');
    } finally {
      if (saved === undefined) delete process.env.PYTHONPATH;
      else process.env.PYTHONPATH = saved;
    }
  },
);

test('Folders: per-folder settings and versions; the probe refreshes a folder, a failing pull keeps defaults', async () => {
  const a = tmp();
  const b = tmp();
  fs.writeFileSync(path.join(a, 'requirements.txt'), 'trinity-rft==0.4.0\n');
  const changed: string[] = [];
  const site = tmp();
  fs.mkdirSync(path.join(site, 'trinity_rft-0.5.0.dist-info'));
  fs.writeFileSync(path.join(site, 'trinity_rft-0.5.0.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: trinity-rft\nVersion: 0.5.0\n');
  // a stand-in "interpreter" for folder b: a shell script that runs python3 with the dist-info on its path
  const fakePy = path.join(b, 'py.sh');
  fs.writeFileSync(fakePy, `#!/bin/sh\nPYTHONPATH=${site} exec python3 "$@"\n`, { mode: 0o755 });
  const folders = new Folders({
    pull: (root) =>
      asPromise(() => {
        if (root === a) return { files: { 'x/*.yaml': 'trinity' }, trinityVersion: '0.3.2', probePython: true };
        if (root === b) return { pythonPath: fakePy, probePython: true, trinityVersion: 'auto' };
        throw new Error('no settings for the window');
      }),
    probe: new TrinityProbe(20_000),
    log: () => undefined,
    changed: (f) => changed.push(f.root),
  });
  folders.setRoots([a, b]);
  await folders.reload();
  const fa = folders.of(path.join(a, 'x', 'c.yaml'));
  const fb = folders.of(path.join(b, 'c.yaml'));
  assert.deepEqual(fa.settings.files, { 'x/*.yaml': 'trinity' });
  assert.deepEqual(fb.settings.files, {});
  assert.deepEqual([fa.trinity.version, fa.trinity.source, fa.trinity.from], ['0.4.0', 'pin', 'requirements.txt'], 'the pin beats the setting');
  assert.equal(folders.of('/elsewhere/c.yaml').settings.enable, true, 'a failing pull leaves defaults');
  // the probe answers later, and only folder b's interpreter has trinity-rft
  for (let i = 0; i < 200 && !changed.includes(b); i++) await sleep(50);
  assert.ok(changed.includes(b), 'folder b was told its version changed');
  assert.deepEqual([fb.trinity.version, fb.trinity.source, fb.trinity.from], ['0.5.0', 'installed', 'py.sh']);
  // python3 without trinity in folder a: the pin stays
  assert.equal(fa.trinity.source, 'pin');
  // a pin edited on disk is seen on refresh
  fs.writeFileSync(path.join(a, 'requirements.txt'), 'trinity-rft==0.5.2\n');
  folders.refreshVersions(false);
  assert.equal(fa.trinity.version, '0.5.2');
});
