// Which Trinity-RFT version applies: modeline > installed > pin > setting > newest known,
// each failing source passing to the next; pins in each project file format. The probe of a
// real interpreter is in test/component/config/workspace/trinity-version.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { findModeline } from '../../../../src/config/core/detect-kind';
import { analyze } from '../../../../src/config/engine/engine';
import {
  findPin,
  modelineVersion,
  pinInCondaEnv,
  pinInPyproject,
  pinInRequirements,
  pinInSetupCfg,
  pinInUvLock,
  releaseFor,
  resolveTrinityVersion,
  shortVersion,
  versionFromSpec,
} from '../../../../src/config/workspace/trinity-version';

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
  const all = {
    modeline: '0.4',
    installed: { version: '0.5.0', from: '.venv/bin/python' },
    pin: { version: '0.5.2', from: 'requirements.txt' },
    setting: '0.3.2',
    known: KNOWN,
  };
  assert.deepEqual(resolveTrinityVersion(all), { version: '0.4', release: '0.4.0', source: 'modeline', from: 'modeline' });
  assert.deepEqual(resolveTrinityVersion({ ...all, modeline: undefined }), {
    version: '0.5.0',
    release: '0.5.0',
    source: 'installed',
    from: '.venv/bin/python',
  });
  assert.deepEqual(resolveTrinityVersion({ ...all, modeline: undefined, installed: undefined }), {
    version: '0.5.2',
    release: '0.5.2',
    source: 'pin',
    from: 'requirements.txt',
  });
  assert.deepEqual(resolveTrinityVersion({ known: KNOWN, setting: '0.3.2' }), {
    version: '0.3.2',
    release: '0.3.2',
    source: 'setting',
    from: 'agentrl.config.trinityVersion',
  });
  assert.deepEqual(resolveTrinityVersion({ known: KNOWN, setting: 'auto' }), { version: '0.6.0', release: '0.6.0', source: 'default', from: 'newest known' });
});

test('a source that cannot say passes to the next, never throws', () => {
  // malformed values at every level fall through to the setting
  const r = resolveTrinityVersion({
    modeline: 'latest',
    installed: { version: '', from: 'python3' },
    pin: { version: 'garbage', from: 'x' },
    setting: '0.5.0',
    known: KNOWN,
  });
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
  assert.equal(
    resolveTrinityVersion({ pin: { version: '0.1.0', from: 'r' }, known: KNOWN }).release,
    '0.6.0',
    'unknown old version: newest facts, version kept',
  );
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
  const lock =
    '[[package]]\nname = "torch"\nversion = "2.5.1"\n\n[[package]]\nname = "trinity-rft"\nversion = "0.6.0"\nsource = { registry = "https://pypi.org/simple" }\n';
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
  assert.doesNotThrow(() =>
    findPin(
      root,
      () => undefined,
      () => ['uv.lock'],
    ),
  );
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
  assert.ok(
    a.findings.some((f) => f.code === 'version.newer-key'),
    'and the checks follow it',
  );
  const b = analyze(text.replace('trinity@0.3.2', 'trinity'), undefined, {
    trinity: { version: '0.5.2', release: '0.5.2', source: 'pin', from: 'requirements.txt' },
  });
  assert.deepEqual([b.trinity.from, b.trinityVersion], ['requirements.txt', '0.5.2'], 'without a version the workspace answer stays');
  assert.ok(!b.findings.some((f) => f.code === 'version.newer-key'));
});

test('pins of any package (verl beside trinity-rft) and in conda environment files', () => {
  const env =
    'name: rl\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - verl=0.8\n  - pip:\n    - trinity-rft==0.6.0  # the trainer\n    - verl-tools==9.9\n';
  assert.equal(pinInCondaEnv(env), '0.6.0');
  assert.equal(pinInCondaEnv(env, 'verl'), '0.8', 'conda `=0.8`: the 0.8 series; verl-tools is another package');
  assert.equal(pinInCondaEnv('dependencies:\n  - pip:\n    - verl>=0.8.1,<0.9\n', 'verl'), '0.8.1');
  assert.equal(pinInCondaEnv('dependencies:\n  - verl\n', 'verl'), undefined, 'unpinned');
  assert.equal(pinInRequirements('trinity-rft==0.6.0\nverl==0.7.1\n', 'verl'), '0.7.1');
  assert.equal(pinInPyproject('[project]\ndependencies = ["verl>=0.8.0", "trinity-rft==0.6.0"]\n', 'verl'), '0.8.0');
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'environment.yml'), env);
  assert.deepEqual(findPin(dir, read, list, 'verl'), { version: '0.8', from: 'environment.yml' });
  assert.deepEqual(findPin(dir, read, list), { version: '0.6.0', from: 'environment.yml' });
  // a requirements file wins over the environment file
  fs.writeFileSync(path.join(dir, 'requirements.txt'), 'verl==0.7.1\n');
  assert.deepEqual(findPin(dir, read, list, 'verl'), { version: '0.7.1', from: 'requirements.txt' });
});
