// `agentrl check` through the bundled dist/agentrl.js, as CI or a GPU node runs it: plain
// node, no node_modules, a working directory of its own.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { CheckResult } from '../../../src/feature-api/config-checker';
import { parseJson } from '../../harness/json';
import { hasShared, repoRoot, sharedDir } from '../../harness/paths';
import { tempDir, trinity } from '../../unit/config/helpers';

const bundle = path.join(repoRoot, 'dist', 'agentrl.js');

function cli(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [bundle, 'check', ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function project(): string {
  const dir = tempDir('agentrl-cli-');
  fs.mkdirSync(path.join(dir, 'configs', 'nested'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'configs', 'good.yaml'), trinity());
  fs.writeFileSync(path.join(dir, 'configs', 'warn.yaml'), trinity({ buffer: { explorer_input: { default_workflow_type: 'toolcall_workflow' } } }));
  fs.writeFileSync(path.join(dir, 'configs', 'nested', 'bad.yml'), trinity({ model: { max_response_tokens: 600 } }));
  fs.writeFileSync(path.join(dir, 'configs', 'k8s.yaml'), 'apiVersion: v1\nkind: Pod\n');
  return dir;
}

test('--trinity-version: a 0.6 config with 0.5.2 in force names the fields that need 0.6', () => {
  const dir = tempDir('agentrl-cli-');
  fs.writeFileSync(
    path.join(dir, 'c.yaml'),
    trinity({ explorer: { rollout_model: { engine_type: 'sglang', data_parallel_size: 1 } }, synchronizer: { sync_style: 'fully_async' } }),
  );
  const newest = cli(dir, 'c.yaml');
  assert.equal(newest.code, 0, newest.stdout + newest.stderr);
  const old = cli(dir, '--format', 'json', '--trinity-version', '0.5.2', 'c.yaml');
  assert.equal(old.code, 1);
  const [r] = JSON.parse(old.stdout) as { diagnostics: { code: string; message: string; path: string }[] }[];
  const byPath = Object.fromEntries(r.diagnostics.map((d) => [d.path, d]));
  assert.equal(
    byPath['explorer.rollout_model.data_parallel_size'].message,
    '`explorer.rollout_model.data_parallel_size` needs Trinity-RFT ≥ 0.6; this workspace has 0.5.2 (--trinity-version).',
  );
  assert.equal(byPath['synchronizer.sync_style'].code, 'version.newer-value');
  assert.equal(byPath['explorer.rollout_model.engine_type'].code, 'version.newer-value');
  assert.ok(!r.diagnostics.some((d) => d.code === 'schema.unknown-key'));
  assert.match(cli(dir, '--help').stdout, /0\.5\.2, 0\.6\.0/);
});

test('--format json prints exactly the documented shape, 0-based lines', () => {
  const dir = project();
  const r = cli(dir, '--format', 'json', 'configs/nested/bad.yml', 'configs/k8s.yaml');
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout) as unknown[];
  assert.ok(Array.isArray(out));
  const [bad, k8s] = out as { file: string; kind: string | null; diagnostics: Record<string, unknown>[] }[];
  assert.deepEqual(Object.keys(bad).sort(), ['diagnostics', 'file', 'kind']);
  assert.equal(bad.file, 'configs/nested/bad.yml');
  assert.equal(bad.kind, 'trinity');
  const d = bad.diagnostics.find((x) => x.code === 'trinity.length.exceeds-max-model-len' && x.path === 'model.max_model_len')!;
  assert.deepEqual(Object.keys(d).sort(), ['code', 'message', 'path', 'range', 'severity']);
  assert.equal(d.severity, 'error');
  assert.equal(d.path, 'model.max_model_len');
  const text = fs.readFileSync(path.join(dir, 'configs/nested/bad.yml'), 'utf8').split('\n');
  const range = d.range as { start: { line: number; character: number }; end: { line: number; character: number } };
  assert.match(text[range.start.line], /max_model_len: 1024/);
  assert.equal(text[range.start.line].slice(range.start.character, range.end.character), 'max_model_len');
  // named on the command line, a YAML file that is no config is not skipped silently
  assert.equal(k8s.file, 'configs/k8s.yaml');
  assert.equal(k8s.kind, 'trinity');
  assert.ok(k8s.diagnostics.some((d) => d.code === 'input.kind-guessed'));
});

test('exit codes: 0 clean (warnings allowed), 1 on any error, 2 on usage or I/O problems', () => {
  const dir = project();
  assert.equal(cli(dir, 'configs/good.yaml').code, 0);
  const w = cli(dir, 'configs/warn.yaml');
  assert.equal(w.code, 0);
  assert.match(w.stdout, /warning .*tool_call_workflow.*names\.unknown/);
  assert.equal(cli(dir, 'configs/nested/bad.yml').code, 1);
  assert.equal(cli(dir).code, 2);
  assert.equal(cli(dir, '--format', 'xml', 'configs/good.yaml').code, 2);
  assert.equal(cli(dir, '--kind', 'verl', 'configs/good.yaml').code, 2);
  assert.equal(cli(dir, '--bogus', 'configs/good.yaml').code, 2);
  const missing = cli(dir, 'configs/nope.yaml');
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no such file or no match: configs\/nope\.yaml/);
  assert.equal(cli(dir, '--help').code, 0);
});

test('globs and directories expand to YAML files; text output summarises', () => {
  const dir = project();
  const r = cli(dir, 'configs/**/*.{yaml,yml}');
  assert.equal(r.code, 1);
  assert.match(r.stdout, /configs\/nested\/bad\.yml {2}\(Trinity-RFT\)/);
  assert.match(r.stdout, /in 3 configs of 4 files/);
  const d = cli(dir, '--format', 'json', 'configs');
  assert.equal((JSON.parse(d.stdout) as unknown[]).length, 4);
  assert.equal(cli(dir, 'configs/*.json').code, 2, 'a glob matching nothing');
});

test('--kind forces a kind; --env feeds interpolations; --trinity-version targets a release', () => {
  const dir = project();
  fs.writeFileSync(path.join(dir, 'partial.yaml'), 'algorithm:\n  algorithm_type: grpo\n');
  const guessed = parseJson<CheckResult[]>(cli(dir, '--format', 'json', 'partial.yaml').stdout)[0];
  assert.equal(guessed.kind, 'trinity');
  assert.ok(guessed.diagnostics.some((d: { code: string }) => d.code === 'input.kind-guessed'));
  const forced = parseJson<CheckResult[]>(cli(dir, '--format', 'json', '--kind', 'trinity', 'partial.yaml').stdout)[0];
  assert.equal(forced.kind, 'trinity');
  assert.ok(forced.diagnostics.some((x: { code: string }) => x.code === 'trinity.buffer.no-taskset'));
  fs.writeFileSync(path.join(dir, 'env.yaml'), trinity({ model: { max_response_tokens: '${oc.env:RESP_LEN,512}' } }));
  assert.equal(cli(dir, 'env.yaml').code, 0);
  assert.equal(cli(dir, '--env', 'RESP_LEN=900', 'env.yaml').code, 1);
  fs.writeFileSync(path.join(dir, 'new.yaml'), trinity({ explorer: { concurrent_mode: 'sequential' } }));
  assert.match(cli(dir, '--trinity-version', '0.4.0', 'new.yaml').stdout, /version\.newer-key/);
});

test('SARIF 2.1.0 output', () => {
  const dir = project();
  const r = cli(dir, '--format', 'sarif', 'configs/nested/bad.yml', 'configs/warn.yaml');
  assert.equal(r.code, 1);
  const log = parseJson<{ version: string; runs: { results: unknown; tool: { driver: { rules: { id: string }[] } } }[] }>(r.stdout);
  assert.equal(log.version, '2.1.0');
  const results = log.runs[0].results as {
    ruleId: string;
    level: string;
    locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
  }[];
  const err = results.find((x) => x.ruleId === 'trinity.length.exceeds-max-model-len' && x.locations[0].physicalLocation.region.startLine === 12)!;
  assert.equal(err.level, 'error');
  assert.equal(err.locations[0].physicalLocation.artifactLocation.uri, 'configs/nested/bad.yml');
  assert.equal(err.locations[0].physicalLocation.region.startLine, 12);
  assert.ok(results.some((x) => x.level === 'warning'));
  assert.ok(log.runs[0].tool.driver.rules.some((x: { id: string }) => x.id === 'names.unknown'));
});

test('binary files and decoupled jobs on the command line', () => {
  const dir = project();
  fs.writeFileSync(path.join(dir, 'blob.yaml'), Buffer.from([0x00, 0xff, 0x10]));
  const b = parseJson<CheckResult[]>(cli(dir, '--format', 'json', 'blob.yaml').stdout)[0];
  assert.equal(b.diagnostics[0].code, 'input.binary');
  fs.writeFileSync(path.join(dir, 'explorer.yaml'), trinity({ mode: 'explore', name: 'job', model: { model_path: 'a/b' } }));
  fs.writeFileSync(path.join(dir, 'trainer.yaml'), trinity({ mode: 'train', name: 'job', buffer: { train_batch_size: 32 } }));
  const out = JSON.parse(cli(dir, '--format', 'json', 'explorer.yaml', 'trainer.yaml').stdout) as { diagnostics: { code: string }[] }[];
  assert.ok(
    out.every((f) => f.diagnostics.some((x) => x.code === 'crossfile.mismatch')),
    'reported in both files',
  );
});

test('the whole upstream corpus through the CLI: only the templates fail', { skip: !hasShared && 'needs ../shared/corpus' }, () => {
  const r = cli(repoRoot, '--format', 'json', path.join(sharedDir, 'corpus'));
  assert.equal(r.code, 1);
  const out = JSON.parse(r.stdout) as { file: string; diagnostics: { severity: string }[] }[];
  const failing = out
    .filter((f) => f.diagnostics.some((d) => d.severity === 'error'))
    .map((f) => path.basename(f.file))
    .sort();
  assert.deepEqual(failing, ['countdown-template.yaml', 'frozenlake-template.yaml']);
});

test('--lang zh-cn prints the messages in Simplified Chinese (the shipped bundle), English by default', () => {
  const dir = project();
  const message = (...args: string[]) => {
    const r = cli(dir, '--format', 'json', ...args, 'configs/nested/bad.yml', 'blob.yaml');
    const [bad, blob] = JSON.parse(r.stdout) as { diagnostics: { code: string; message: string; path: string }[] }[];
    return [
      bad.diagnostics.find((d) => d.code === 'trinity.length.exceeds-max-model-len' && d.path === 'model.max_model_len')!.message,
      blob.diagnostics[0].message,
    ];
  };
  fs.writeFileSync(path.join(dir, 'blob.yaml'), Buffer.from([0x00, 0xff, 0x10]));
  assert.deepEqual(message(), [
    '`max_prompt_tokens` + `max_response_tokens` (512 + 600) exceeds `max_model_len` (1024).',
    'Binary content: not a YAML text file.',
  ]);
  assert.deepEqual(message('--lang', 'zh-cn'), [
    '`max_prompt_tokens` + `max_response_tokens`（512 + 600）超过了 `max_model_len`（1024）。',
    '二进制内容：不是 YAML 文本文件。',
  ]);
  const bad = cli(dir, '--lang', 'fr', 'configs');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--lang must be en or zh-cn/);
});

// A file named on the command line is never silently skipped: when its content matches no kind
// (too many foreign keys, YAML broken by a tab, a value too deep to parse) it is checked as the
// most likely kind, with a finding that says so; before, each of these printed "✔ 0 problems …
// in 0 configs" and exited 0 — a CI false pass.
test('a named file that matches no kind is checked as the likeliest kind, never skipped', () => {
  const dir = tempDir('agentrl-cli-');
  const base = trinity();
  const cases: Record<string, { text: string; code: string }> = {
    'many-unknown.yaml': { text: base + Array.from({ length: 15 }, (_, i) => `extra_key_${i}: ${i}\n`).join(''), code: 'schema.unknown-key' },
    'tab.yaml': { text: base.replace(/\n {2}(\w)/, '\n\t$1'), code: 'yaml.syntax' },
    'deep-interpolation.yaml': { text: base.replace(/^name: .*$/m, `name: ${'${oc.env:V,'.repeat(300)}x${'}'.repeat(300)}`), code: 'input.too-deep' },
  };
  for (const [file, c] of Object.entries(cases)) fs.writeFileSync(path.join(dir, file), c.text);
  for (const [file, c] of Object.entries(cases)) {
    const text = cli(dir, file);
    assert.equal(text.code, 1, `${file}\n${text.stdout}${text.stderr}`);
    assert.doesNotMatch(text.stdout, /in 0 configs/, file);
    const [r] = JSON.parse(cli(dir, '--format', 'json', file).stdout) as {
      kind: string | null;
      diagnostics: { code: string; severity: string; message: string }[];
    }[];
    assert.equal(r.kind, 'trinity', file);
    const guessed = r.diagnostics.find((d) => d.code === 'input.kind-guessed');
    assert.ok(guessed && guessed.severity === 'warning', `${file}: ${JSON.stringify(r.diagnostics.map((d) => d.code))}`);
    assert.match(guessed.message, /checked as a Trinity-RFT config/);
    assert.ok(
      r.diagnostics.some((d) => d.code.startsWith(c.code) && d.severity === 'error'),
      `${file}: ${JSON.stringify(r.diagnostics.map((d) => d.code))}`,
    );
  }
  // the same files found through a directory are plain YAML of the project: skipped as before
  fs.writeFileSync(path.join(dir, 'k8s.yaml'), 'apiVersion: v1\nkind: Pod\n');
  const walked = JSON.parse(cli(dir, '--format', 'json', '.').stdout) as { file: string; kind: string | null }[];
  assert.equal(walked.find((f) => f.file === 'k8s.yaml')?.kind, null);
});

test('an explicit --kind beats a `# agentrl: none` modeline; without it the modeline is respected', () => {
  const dir = tempDir('agentrl-cli-');
  fs.writeFileSync(path.join(dir, 'off.yaml'), `# agentrl: none\n${trinity({ model: { max_response_tokens: 600 } })}`);
  const auto = parseJson<CheckResult[]>(cli(dir, '--format', 'json', 'off.yaml').stdout)[0];
  assert.deepEqual([auto.kind, auto.diagnostics], [null, []]);
  const forced = cli(dir, '--format', 'json', '--kind', 'trinity', 'off.yaml');
  assert.equal(forced.code, 1);
  const r = parseJson<{ kind: string; diagnostics: { code: string }[] }[]>(forced.stdout)[0];
  assert.equal(r.kind, 'trinity');
  assert.ok(r.diagnostics.some((d) => d.code === 'trinity.length.exceeds-max-model-len'));
});

test("the Trinity-RFT and verl versions come from the project's pins (no flag, no venv)", () => {
  const dir = tempDir('agentrl-cli-');
  fs.writeFileSync(
    path.join(dir, 'c.yaml'),
    trinity({
      explorer: { rollout_model: { data_parallel_size: 1 } },
      trainer: { trainer_config: { actor_rollout_ref: { actor: { use_dynamic_bsz: true } } } },
    }),
  );
  fs.writeFileSync(path.join(dir, 'pyproject.toml'), '[project]\nname = "rl"\ndependencies = ["trinity-rft==0.5.2"]\n');
  const old = parseJson<{ diagnostics: { code: string; message: string }[] }[]>(cli(dir, '--format', 'json', 'c.yaml').stdout)[0];
  const newer = old.diagnostics.find((d) => d.code === 'version.newer-key');
  assert.match(newer?.message ?? '', /this workspace has 0\.5\.2 \(pinned: 0\.5\.2 \(pyproject\.toml\)\)/);
  // Trinity-RFT 0.6 with verl 0.8 pinned in the conda environment: trainer_config is ignored
  fs.writeFileSync(path.join(dir, 'pyproject.toml'), '[project]\nname = "rl"\ndependencies = ["trinity-rft==0.6.0"]\n');
  fs.writeFileSync(path.join(dir, 'environment.yml'), 'dependencies:\n  - pip:\n    - verl==0.8.0\n');
  const r = parseJson<{ diagnostics: { code: string; message: string }[] }[]>(cli(dir, '--format', 'json', 'c.yaml').stdout)[0];
  const ignored = r.diagnostics.find((d) => d.code === 'trinity.trainer.verl-config-ignored');
  assert.match(ignored?.message ?? '', /^verl ≥ 0\.8 \(verl 0\.8\.0, pinned in environment\.yml\)/);
  assert.match(ignored?.message ?? '', /`trainer\.use_dynamic_bsz` for `actor_rollout_ref\.actor\.use_dynamic_bsz`/);
  // --verl-version names the verl outright; 0.7.1 (0.6's own pin): no warning
  const legacy = parseJson<{ diagnostics: { code: string }[] }[]>(cli(dir, '--format', 'json', '--verl-version', '0.7.1', 'c.yaml').stdout)[0];
  assert.ok(!legacy.diagnostics.some((d) => d.code === 'trinity.trainer.verl-config-ignored'));
  assert.equal(cli(dir, '--verl-version', 'new', 'c.yaml').code, 2);
});
