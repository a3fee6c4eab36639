// `agentrl new` through the bundled single-file CLI, for every template: what it generates
// compiles, lints clean, parses, carries valid debug entries and (once the config checker is on
// main) gets no errors from `agentrl check`; bad input is refused with exit 2 and changes nothing.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { parse as parseJsonc } from 'jsonc-parser';
import * as YAML from 'yaml';
import { repoRoot, venvPython } from '../../harness/paths';
import { cli, launchProblems, listFiles, python, snapshot, tempDir, templateIds, venvHas } from './helpers';

const TEMPLATES = templateIds();
const scratch = tempDir();
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

test('--list names every template, one per line (and as JSON)', () => {
  assert.deepEqual([...TEMPLATES].sort(), [
    'agentscope-tuner',
    'ajet-countdown',
    'astuner-math',
    'trinity-math',
    'trinity-online',
    'trinity-react',
    'trinity-toolcall',
  ]);
  const plain = cli(['new', '--list'], scratch);
  assert.equal(plain.code, 0);
  for (const id of TEMPLATES) assert.match(plain.stdout, new RegExp(`^${id}\\s`, 'm'));
});

const hasCheck = /^\s+check\s/m.test(cli(['--help'], scratch).stdout);
const canLint = venvHas('pyflakes');

for (const id of TEMPLATES) {
  describe(`template ${id}`, () => {
    const workspace = path.join(scratch, id);
    fs.mkdirSync(workspace);
    const created = cli(['new', id, workspace, '--json'], scratch);
    const result =
      created.code === 0
        ? (JSON.parse(created.stdout) as { projectDir: string; files: string[]; open: string; configs: string[]; launch: string[] })
        : undefined;

    test('generates a project: workflow, config, data, README', () => {
      assert.equal(created.code, 0, created.stderr);
      assert.ok(result);
      const files = listFiles(result.projectDir).map((f) => path.relative(result.projectDir, f));
      assert.ok(files.includes('README.md'));
      assert.ok(files.includes('data/train.jsonl'));
      assert.ok(fs.existsSync(result.open), 'the file to open exists');
      assert.ok(files.some((f) => f.endsWith('.py')));
      for (const f of listFiles(result.projectDir)) assert.doesNotMatch(fs.readFileSync(f, 'utf8'), /\{\{[^}]*\}\}/, `${f} has an unrendered placeholder`);
    });

    test('every generated Python file passes py_compile', { skip: !python() && 'python3 not found' }, () => {
      const pys = listFiles(result!.projectDir).filter((f) => f.endsWith('.py'));
      const r = spawnSync('python3', ['-m', 'py_compile', ...pys], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    });

    test(
      'every generated Python file is pyflakes-clean (no undefined names, no unused imports)',
      { skip: !canLint && 'pyflakes is not in .cache/venv (scripts/setup.sh python)' },
      () => {
        const pys = listFiles(result!.projectDir).filter((f) => f.endsWith('.py'));
        const r = spawnSync(venvPython, ['-m', 'pyflakes', ...pys], { encoding: 'utf8' });
        assert.equal(r.status, 0, r.stdout + r.stderr);
      },
    );

    test('every config is YAML that parses to a mapping; the data rows are JSON objects', () => {
      for (const c of result!.configs) {
        const doc = YAML.parseDocument(fs.readFileSync(c, 'utf8'));
        assert.deepEqual(doc.errors, [], `${c}: ${doc.errors.join('; ')}`);
        assert.equal(typeof doc.toJS(), 'object');
      }
      for (const f of listFiles(path.join(result!.projectDir, 'data'))) {
        const rows = fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as object);
        assert.ok(rows.length > 0 && rows.every((r) => r && typeof r === 'object'), f);
      }
    });

    test('launch.json gets valid "agentrl" debug entries', () => {
      const launch = parseJsonc(fs.readFileSync(path.join(workspace, '.vscode', 'launch.json'), 'utf8')) as {
        version: string;
        configurations: Record<string, unknown>[];
      };
      assert.equal(launch.version, '0.2.0');
      assert.deepEqual(
        launch.configurations.map((c) => c.name),
        result!.launch,
      );
      for (const entry of launch.configurations) assert.deepEqual(launchProblems(entry, workspace), [], JSON.stringify(entry));
    });

    test('0 errors from agentrl check on every generated config', { skip: !hasCheck && 'the config checker (agentrl check) is not on this branch yet' }, () => {
      const r = cli(['check', '--format', 'json', ...result!.configs], result!.projectDir);
      const reports = JSON.parse(r.stdout) as { file: string; kind: string | null; diagnostics: { severity: string; message: string }[] }[];
      assert.equal(reports.length, result!.configs.length);
      for (const rep of reports) {
        assert.ok(rep.kind, `${rep.file} was not recognized as an RL config`);
        const errors = rep.diagnostics.filter((d) => d.severity === 'error');
        assert.deepEqual(errors, [], `${rep.file}: ${errors.map((e) => e.message).join('; ')}`);
      }
      assert.equal(r.code, 0, r.stderr);
    });
  });
}

describe('refusals', () => {
  const ws = path.join(scratch, 'refusals');
  fs.mkdirSync(ws);

  test('the same name twice: exit 2, a clear message, nothing changed', () => {
    assert.equal(cli(['new', 'trinity-math', ws, '--name', 'twice'], scratch).code, 0);
    fs.appendFileSync(path.join(ws, 'twice', 'workflow.py'), '# my edit\n');
    const before = snapshot(ws);
    const again = cli(['new', 'trinity-math', ws, '--name', 'twice'], scratch);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /twice already exists: choose another name or folder\. Nothing was changed\./);
    assert.deepEqual(snapshot(ws), before);
    const other = cli(['new', 'astuner-math', ws, '--name', 'twice'], scratch);
    assert.equal(other.code, 2, 'another template does not overwrite either');
    assert.deepEqual(snapshot(ws), before);
  });

  const bad: [string, RegExp][] = [
    ['../x', /'\.\.\/x' is not a folder name/],
    ['class', /'class' is a Python keyword/],
    ['1agent', /not a valid Python identifier/],
    ['json', /shadow the Python standard library module/],
    ['trinity', /shadow the package trinity/],
    ['yes', /boolean or null in YAML/],
    ['con', /reserved file name on Windows/],
  ];
  for (const [name, message] of bad) {
    test(`--name ${name} is refused (exit 2) and creates nothing`, () => {
      const before = snapshot(ws);
      const r = cli(['new', 'trinity-math', ws, '--name', name], scratch);
      assert.equal(r.code, 2);
      assert.match(r.stderr, message);
      assert.deepEqual(snapshot(ws), before);
      assert.ok(!fs.existsSync(path.join(scratch, 'x')), 'nothing was created outside the target');
    });
  }

  test('usage errors exit 2: unknown template, missing dir, bad option, bad model, bad URL', () => {
    const cases: [string[], RegExp][] = [
      [['new', 'nope', ws], /unknown template 'nope'.*trinity-math/],
      [['new', 'trinity-math'], /expected <template> <dir>/],
      [['new', 'trinity-math', ws, '--frob'], /Unknown option '--frob'/],
      [['new', 'trinity-math', ws, '--name', 'm1', '--model', 'my model'], /characters a config cannot hold/],
      [['new', 'trinity-math', ws, '--name', 'm2', '--base-url', 'ftp://x'], /--base-url must be an http\(s\) URL/],
    ];
    const before = snapshot(ws);
    for (const [args, message] of cases) {
      const r = cli(args, scratch);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message);
    }
    assert.deepEqual(snapshot(ws), before);
  });
});

test('sample-workspace/math_agent is what the generator makes today', () => {
  const ws = tempDir();
  // The sample's entry points at the sandbox's model (what the wizard picks there).
  assert.equal(cli(['new', 'trinity-math', ws, '--base-url', 'http://127.0.0.1:8089/v1'], scratch).code, 0);
  const sample = path.join(repoRoot, 'sample-workspace');
  assert.deepEqual(
    snapshot(path.join(sample, 'math_agent')),
    snapshot(path.join(ws, 'math_agent')),
    'regenerate: node dist/agentrl.js new trinity-math sample-workspace --base-url http://127.0.0.1:8089/v1',
  );
  const entries = (dir: string) =>
    (parseJsonc(fs.readFileSync(path.join(dir, '.vscode', 'launch.json'), 'utf8')) as { configurations: { name: string }[] }).configurations;
  const generated = entries(ws)[0];
  assert.deepEqual(
    entries(sample).find((c) => c.name === generated.name),
    generated,
  );
  fs.rmSync(ws, { recursive: true, force: true });
});

describe('launch.json and data', () => {
  test('an existing launch.json with comments keeps them, its entries and its formatting', () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, '.vscode'));
    const original = [
      '{',
      '\t// my debug setups: keep this comment',
      '\t"version": "0.2.0",',
      '\t"configurations": [',
      '\t\t{ "name": "my script", "type": "debugpy", "request": "launch", "program": "x.py" }, // trailing comment',
      '\t\t/* block comment */',
      '\t],',
      '}',
      '',
    ].join('\n');
    const file = path.join(ws, '.vscode', 'launch.json');
    fs.writeFileSync(file, original);
    const r = cli(['new', 'trinity-toolcall', ws], scratch);
    assert.equal(r.code, 0, r.stderr);
    const text = fs.readFileSync(file, 'utf8');
    for (const keep of ['// my debug setups: keep this comment', '// trailing comment', '/* block comment */', '"program": "x.py"'])
      assert.ok(text.includes(keep), `lost: ${keep}\n${text}`);
    assert.match(text, /\n\t\t\t"type": "agentrl"/, 'the new entry is indented with tabs like the file');
    const doc = parseJsonc(text) as { configurations: { name: string }[] };
    assert.deepEqual(
      doc.configurations.map((c) => c.name),
      ['my script', 'Debug tool_agent rollout'],
    );
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test('a launch.json with a syntax error is refused with its line, and nothing is created', () => {
    const ws = tempDir();
    fs.mkdirSync(path.join(ws, '.vscode'));
    fs.writeFileSync(path.join(ws, '.vscode', 'launch.json'), '{\n  "configurations": [\n    { "name": "a" \n  ]\n}\n');
    const before = snapshot(ws);
    const r = cli(['new', 'trinity-math', ws], scratch);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /launch\.json has a syntax error \(line \d+: \w+\).*Nothing was changed/);
    assert.deepEqual(snapshot(ws), before);
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test('--workspace puts the entries in another folder, with paths relative to it; --no-launch skips them', () => {
    const ws = tempDir();
    const sub = path.join(ws, 'agents');
    assert.equal(cli(['new', 'astuner-math', sub, '--workspace', ws], scratch).code, 0);
    const launch = parseJsonc(fs.readFileSync(path.join(ws, '.vscode', 'launch.json'), 'utf8')) as { configurations: Record<string, unknown>[] };
    assert.equal(launch.configurations[0].config, '${workspaceFolder}/agents/math_agent/config.yaml');
    assert.equal(launch.configurations[0].cwd, '${workspaceFolder}/agents', 'ASTuner resolves module->Class from the folder above the project');
    assert.deepEqual(launchProblems(launch.configurations[0], ws), []);
    assert.equal(cli(['new', 'ajet-countdown', sub, '--no-launch'], scratch).code, 0);
    assert.ok(!fs.existsSync(path.join(sub, '.vscode')));
    const outside = cli(['new', 'trinity-math', ws, '--workspace', sub], scratch);
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /is not inside/);
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test('--data copies a user JSONL file with the keys the template reads; a bad one is refused', () => {
    const ws = tempDir();
    const good = path.join(ws, 'mine.jsonl');
    fs.writeFileSync(good, '{"question": "1+1?", "answer": "#### 2"}\n{"question": "2+2?", "answer": "#### 4"}\n');
    const r = cli(['new', 'trinity-math', ws, '--data', good], scratch);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(path.join(ws, 'math_agent', 'data', 'train.jsonl'), 'utf8'), fs.readFileSync(good, 'utf8'));
    assert.ok(!fs.existsSync(path.join(ws, 'math_agent', 'data', 'test.jsonl')));
    const config = YAML.parse(fs.readFileSync(path.join(ws, 'math_agent', 'config.yaml'), 'utf8')) as {
      buffer: { explorer_input: { eval_tasksets: { split: string }[] } };
    };
    assert.equal(config.buffer.explorer_input.eval_tasksets[0].split, 'train', 'evaluates on the only split there is');
    assert.match(fs.readFileSync(path.join(ws, 'math_agent', 'README.md'), 'utf8'), /2 rows copied from mine\.jsonl/);

    const cases: [string, string, RegExp][] = [
      ['wrong.jsonl', '{"prompt": "x"}\n', /wrong\.jsonl, line 1: missing question, answer/],
      ['broken.jsonl', '{"question": "x", "answer": "1"}\n{oops\n', /broken\.jsonl, line 2: not valid JSON/],
      ['rows.csv', 'question,answer\n', /rows\.csv is not a \.jsonl file/],
      ['empty.jsonl', '\n\n', /empty\.jsonl has no tasks/],
    ];
    for (const [file, text, message] of cases) {
      fs.writeFileSync(path.join(ws, file), text);
      const before = snapshot(ws);
      const bad = cli(['new', 'trinity-math', ws, '--name', 'other', '--data', path.join(ws, file)], scratch);
      assert.equal(bad.code, 2, file);
      assert.match(bad.stderr, message);
      assert.deepEqual(snapshot(ws), before);
    }
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test('--model and --name land in the config and the launch entry', () => {
    const ws = tempDir();
    assert.equal(
      cli(['new', 'trinity-react', ws, '--name', 'solver', '--model', 'Qwen/Qwen3-0.6B', '--base-url', 'http://127.0.0.1:8089/v1'], scratch).code,
      0,
    );
    const config = fs.readFileSync(path.join(ws, 'solver', 'config.yaml'), 'utf8');
    assert.match(config, /model_path: \$\{oc\.env:TRINITY_MODEL_PATH,Qwen\/Qwen3-0\.6B\}/);
    assert.match(config, /default_workflow_type: solver_workflow/);
    assert.match(fs.readFileSync(path.join(ws, 'solver', 'workflow.py'), 'utf8'), /@WORKFLOWS\.register_module\("solver_workflow"\)/);
    const launch = parseJsonc(fs.readFileSync(path.join(ws, '.vscode', 'launch.json'), 'utf8')) as { configurations: { model: object }[] };
    assert.deepEqual(launch.configurations[0].model, { baseUrl: 'http://127.0.0.1:8089/v1', name: 'Qwen/Qwen3-0.6B' });
    fs.rmSync(ws, { recursive: true, force: true });
  });
});
