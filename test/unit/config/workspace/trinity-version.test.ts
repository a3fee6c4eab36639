// Which Trinity-RFT version applies: modeline > installed > pin > setting > newest known,
// each failing source passing to the next; pins in each project file format; the probe of
// a real interpreter (missing, without trinity, with a trinity-rft dist-info, with Trinity
// 0.5.2's own source on the path).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { findModeline } from '../../../../src/config/core/detect-kind';
import { analyze } from '../../../../src/config/engine/engine';
import { Folders } from '../../../../src/config/lsp/folders';
import { TrinityProbe } from '../../../../src/config/workspace/python-probe';
import {
  findPin,
  modelineVersion,
  pinInPyproject,
  pinInRequirements,
  pinInSetupCfg,
  pinInUvLock,
  releaseFor,
  resolveTrinityVersion,
  shortVersion,
  versionFromSpec,
} from '../../../../src/config/workspace/trinity-version';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';

const KNOWN = ['0.3.2', '0.4.0', '0.5.0', '0.5.2', '0.6.0'];
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tv-'));
const read = (f: string) => {
  try {
    return fs.readFileSync(f, 'utf8');
  } catch {
    return undefined;
  }
};
const list = (d: string) => {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
};

test('each source wins over every later one', () => {
  const all = { modeline: '0.4', installed: { version: '0.5.0', from: '.venv/bin/python' }, pin: { version: '0.5.2', from: 'requirements.txt' }, setting: '0.3.2', known: KNOWN };
  assert.deepEqual(resolveTrinityVersion(all), { version: '0.4', release: '0.4.0', source: 'modeline', from: 'modeline' });
  assert.deepEqual(resolveTrinityVersion({ ...all, modeline: undefined }), { version: '0.5.0', release: '0.5.0', source: 'installed', from: '.venv/bin/python' });
  assert.deepEqual(resolveTrinityVersion({ ...all, modeline: undefined, installed: undefined }), { version: '0.5.2', release: '0.5.2', source: 'pin', from: 'requirements.txt' });
  assert.deepEqual(resolveTrinityVersion({ known: KNOWN, setting: '0.3.2' }), { version: '0.3.2', release: '0.3.2', source: 'setting', from: 'agentrl.config.trinityVersion' });
  assert.deepEqual(resolveTrinityVersion({ known: KNOWN, setting: 'auto' }), { version: '0.6.0', release: '0.6.0', source: 'default', from: 'newest known' });
});

test('a source that cannot say passes to the next, never throws', () => {
  // malformed values at every level fall through to the setting
  const r = resolveTrinityVersion({ modeline: 'latest', installed: { version: '', from: 'python3' }, pin: { version: 'garbage', from: 'x' }, setting: '0.5.0', known: KNOWN });
  assert.equal(r.source, 'setting');
  assert.equal(resolveTrinityVersion({ setting: 'nonsense', known: KNOWN }).source, 'default');
  assert.equal(resolveTrinityVersion({ known: [] }).source, 'default', 'no known releases: still an answer');
});

test('versions map to the release whose facts apply', () => {
  assert.equal(releaseFor('0.6', KNOWN), '0.6.0', '`0.6` means the 0.6 line');
  assert.equal(releaseFor('0.6.3', KNOWN), '0.6.0');
  assert.equal(releaseFor('0.5.1', KNOWN), '0.5.0');
  assert.equal(releaseFor('0.5', KNOWN), '0.5.2', '`0.5` means the newest 0.5.x');
  assert.equal(releaseFor('0.6.0.dev0', KNOWN), '0.6.0');
  assert.equal(releaseFor('0.1.0', KNOWN), undefined, 'older than all known');
  assert.equal(resolveTrinityVersion({ pin: { version: '0.1.0', from: 'r' }, known: KNOWN }).release, '0.6.0', 'unknown old version: newest facts, version kept');
  assert.equal(shortVersion('0.6.0'), '0.6');
  assert.equal(shortVersion('0.5'), '0.5');
});

test('requirement specs: exact pins, compatible and lower bounds; upper bounds alone say nothing', () => {
  assert.equal(versionFromSpec('==0.5.2'), '0.5.2');
  assert.equal(versionFromSpec(' == 0.5.2 ; python_version>"3.9"'), '0.5.2');
  assert.equal(versionFromSpec('>=0.6,<0.7'), '0.6');
  assert.equal(versionFromSpec('<0.7,>=0.6.0'), '0.6.0');
  assert.equal(versionFromSpec('~=0.5.2'), '0.5.2');
  assert.equal(versionFromSpec('^0.6.0'), '0.6.0');
  assert.equal(versionFromSpec('==0.5.*'), '0.5');
  assert.equal(versionFromSpec('<0.7'), undefined);
  assert.equal(versionFromSpec('==banana'), undefined);
  assert.equal(versionFromSpec('!=0.5.0'), undefined);
});

test('pins in requirements, pyproject (PEP 621 and Poetry), setup.cfg and uv.lock', () => {
  assert.equal(pinInRequirements('# deps\n-r base.txt\ntorch==2.5\ntrinity-rft[dev]==0.5.2  # pinned\n'), '0.5.2');
  assert.equal(pinInRequirements('Trinity_RFT>=0.6\n'), '0.6', 'names are normalised');
  assert.equal(pinInRequirements('trinity-rft-extras==1.0\n'), undefined, 'another package');
  assert.equal(pinInRequirements('trinity-rft\n'), undefined, 'unpinned');
  assert.equal(pinInPyproject('[project]\ndependencies = [\n  "torch>=2",\n  "trinity-rft>=0.6.0,<0.7",\n]\n'), '0.6.0');
  assert.equal(pinInPyproject('[tool.poetry.dependencies]\npython = "^3.10"\ntrinity-rft = "^0.5.2"\n'), '0.5.2');
  assert.equal(pinInPyproject('[tool.poetry.dependencies]\ntrinity-rft = { version = "0.6.0", extras = ["vllm"] }\n'), '0.6.0');
  assert.equal(pinInPyproject('[project]\nname = "x"\n'), undefined);
  assert.equal(pinInSetupCfg('[options]\ninstall_requires =\n    numpy\n    trinity-rft==0.5.0\n'), '0.5.0');
  const lock = '[[package]]\nname = "torch"\nversion = "2.5.1"\n\n[[package]]\nname = "trinity-rft"\nversion = "0.6.0"\nsource = { registry = "https://pypi.org/simple" }\n';
  assert.equal(pinInUvLock(lock), '0.6.0');
  assert.equal(pinInUvLock('[[package]]\nname = "trinity-rft"\nversion = "not a version"\n'), undefined);
  assert.equal(pinInUvLock('version = 1\n'), undefined);
});

test('findPin: uv.lock first, then requirements*.txt, pyproject.toml, setup.cfg; unreadable or malformed files pass', () => {
  const root = tmp();
  assert.equal(findPin(root, read, list), undefined);
  assert.equal(findPin(path.join(root, 'missing'), read, list), undefined, 'a missing folder');
  fs.writeFileSync(path.join(root, 'setup.cfg'), '[options]\ninstall_requires =\n  trinity-rft==0.4.0\n');
  assert.deepEqual(findPin(root, read, list), { version: '0.4.0', from: 'setup.cfg' });
  fs.writeFileSync(path.join(root, 'pyproject.toml'), '[project]\ndependencies = ["trinity-rft==0.5.0"]\n');
  assert.deepEqual(findPin(root, read, list), { version: '0.5.0', from: 'pyproject.toml' });
  fs.writeFileSync(path.join(root, 'requirements-dev.txt'), 'trinity-rft==0.5.2\n');
  assert.deepEqual(findPin(root, read, list), { version: '0.5.2', from: 'requirements-dev.txt' });
  // a malformed requirements.txt passes to the next file
  fs.writeFileSync(path.join(root, 'requirements.txt'), 'trinity-rft==@@@\n\u0000\u0001');
  assert.deepEqual(findPin(root, read, list), { version: '0.5.2', from: 'requirements-dev.txt' });
  // an unreadable file (here: a directory of that name) too
  fs.mkdirSync(path.join(root, 'uv.lock'));
  assert.deepEqual(findPin(root, read, list), { version: '0.5.2', from: 'requirements-dev.txt' });
  fs.rmdirSync(path.join(root, 'uv.lock'));
  fs.writeFileSync(path.join(root, 'uv.lock'), '[[package]]\nname = "trinity-rft"\nversion = "0.6.0"\n');
  assert.deepEqual(findPin(root, read, list), { version: '0.6.0', from: 'uv.lock' });
  // a reader that throws is the caller's to catch; ours never throws
  assert.doesNotThrow(() => findPin(root, () => undefined, () => ['uv.lock']));
});

test('the `# agentrl: trinity@0.5` modeline names the version and still decides the kind', () => {
  const m = findModeline('# agentrl: trinity@0.5\nmode: both\n');
  assert.deepEqual(m && { value: m.value, version: m.version }, { value: 'trinity', version: '0.5' });
  assert.equal(modelineVersion(m), '0.5');
  assert.equal(modelineVersion(findModeline('# agentrl: trinity\n')), undefined);
  assert.equal(modelineVersion(findModeline('# agentrl: ajet@0.5\n')), undefined, 'only trinity has versions');
  assert.equal(findModeline('# agentrl: trinity@\n'), undefined, 'a broken modeline is not one');
  const text = '# agentrl: trinity@0.3.2\nmode: both\nexplorer:\n  concurrent_mode: sequential\n';
  const a = analyze(text, undefined, { trinity: { version: '0.5.2', release: '0.5.2', source: 'pin', from: 'requirements.txt' } });
  assert.equal(a.kind, 'trinity');
  assert.deepEqual([a.trinity.source, a.trinityVersion], ['modeline', '0.3.2'], 'the modeline overrides the workspace');
  assert.ok(a.findings.some((f) => f.code === 'version.newer-key'), 'and the checks follow it');
  const b = analyze(text.replace('trinity@0.3.2', 'trinity'), undefined, { trinity: { version: '0.5.2', release: '0.5.2', source: 'pin', from: 'requirements.txt' } });
  assert.deepEqual([b.trinity.from, b.trinityVersion], ['requirements.txt', '0.5.2'], 'without a version the workspace answer stays');
  assert.ok(!b.findings.some((f) => f.code === 'version.newer-key'));
});

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

test('probe: Trinity 0.5.2\'s own source on the path of the trinity venv', { skip: !hasShared || !fs.existsSync(path.join(repoRoot, '.cache/trinity-venv/.agentrl-ok')) }, async () => {
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
});

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
    pull: async (root) => {
      if (root === a) return { files: { 'x/*.yaml': 'trinity' }, trinityVersion: '0.3.2', probePython: true };
      if (root === b) return { pythonPath: fakePy, probePython: true, trinityVersion: 'auto' };
      throw new Error('no settings for the window');
    },
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
  for (let i = 0; i < 200 && !changed.includes(b); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(changed.includes(b), 'folder b was told its version changed');
  assert.deepEqual([fb.trinity.version, fb.trinity.source, fb.trinity.from], ['0.5.0', 'installed', 'py.sh']);
  // python3 without trinity in folder a: the pin stays
  assert.equal(fa.trinity.source, 'pin');
  // a pin edited on disk is seen on refresh
  fs.writeFileSync(path.join(a, 'requirements.txt'), 'trinity-rft==0.5.2\n');
  folders.refreshVersions(false);
  assert.equal(fa.trinity.version, '0.5.2');
});
