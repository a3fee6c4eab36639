// Planning reads, writing never overwrites, and a failure leaves no trace.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { ScaffoldError } from '../../../../src/scaffold/plan/errors';
import { english } from '../../../../src/base/l10n';
import { planProject, type GenerateRequest } from '../../../../src/scaffold/plan/plan';
import { readTemplateDir } from '../../../../src/scaffold/templates/template-dir';
import { parseTemplateSet } from '../../../../src/scaffold/templates/template-set';
import { writePlan } from '../../../../src/scaffold/plan/write';
import { repoRoot } from '../../../harness/paths';
import { listFiles, snapshot, tempDir } from '../helpers';

const set = parseTemplateSet(readTemplateDir(path.join(repoRoot, 'templates')));
const dirs: string[] = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function ws(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}
const request = (root: string, over: Partial<GenerateRequest> = {}): GenerateRequest => ({
  set,
  template: 'trinity-math',
  name: 'agent',
  model: 'Qwen/Qwen2.5-0.5B-Instruct',
  target: root,
  data: { kind: 'sample' },
  launchRoot: root,
  ...over,
});

test('planning writes nothing; the plan lists every file, the workflow to open and the configs', () => {
  const root = ws();
  const plan = planProject(request(root), english);
  assert.deepEqual(listFiles(root), []);
  assert.deepEqual(plan.files.map((f) => path.relative(plan.projectDir, f.path)).sort(), [
    'README.md',
    'config.yaml',
    'data/test.jsonl',
    'data/train.jsonl',
    'reward.py',
    'workflow.py',
  ]);
  assert.equal(plan.open, path.join(root, 'agent', 'workflow.py'));
  assert.deepEqual(plan.configs, [path.join(root, 'agent', 'config.yaml')]);
  assert.equal(plan.launch?.before, undefined);
});

test('writing creates the project and launch.json; a second plan for the same name is refused', () => {
  const root = ws();
  const result = writePlan(planProject(request(root), english), english);
  assert.equal(result.written.length, 7);
  assert.ok(fs.existsSync(path.join(root, '.vscode', 'launch.json')));
  assert.throws(
    () => planProject(request(root), english),
    (e: Error) => e instanceof ScaffoldError && /agent already exists/.test(e.message),
  );
});

test('a project folder that appears between planning and writing is not touched', () => {
  const root = ws();
  const plan = planProject(request(root), english);
  fs.mkdirSync(path.join(root, 'agent'));
  fs.writeFileSync(path.join(root, 'agent', 'workflow.py'), 'mine');
  const before = snapshot(root);
  assert.throws(() => writePlan(plan, english), /agent already exists/);
  assert.deepEqual(snapshot(root), before);
});

test('launch.json edited meanwhile: the write stops and removes the half-made project', () => {
  const root = ws();
  fs.mkdirSync(path.join(root, '.vscode'));
  fs.writeFileSync(path.join(root, '.vscode', 'launch.json'), '{ "configurations": [] }');
  const plan = planProject(request(root), english);
  fs.writeFileSync(path.join(root, '.vscode', 'launch.json'), '{ "configurations": [] } // edited');
  const before = snapshot(root);
  assert.throws(() => writePlan(plan, english), /launch\.json changed while the workflow was being created/);
  assert.deepEqual(snapshot(root), before, "the project is gone again and launch.json is the user's");
  assert.ok(!fs.existsSync(path.join(root, 'agent')));
});

test('a target folder created for the CLI is removed again when writing fails', () => {
  const root = ws();
  const target = path.join(root, 'new', 'deeper');
  const plan = planProject(request(root, { target, createTarget: true, launchRoot: null }), english);
  plan.files.push({ path: path.join(plan.projectDir, 'README.md'), content: 'twice' }); // the second write of a path fails
  assert.throws(() => writePlan(plan, english), /Could not create the project: .*EEXIST.*Nothing was kept/);
  assert.deepEqual(fs.readdirSync(root), []);
});

test('the launch root must contain the project; launch.json that is a folder is refused', () => {
  const root = ws();
  const other = ws();
  assert.throws(() => planProject(request(root, { launchRoot: other }), english), /is not inside/);
  fs.mkdirSync(path.join(root, '.vscode', 'launch.json'), { recursive: true });
  assert.throws(() => planProject(request(root), english), /launch\.json is not a file/);
  assert.throws(() => planProject(request(root, { target: path.join(root, 'missing') }), english), /does not exist/);
});

test('a symlinked launch.json is followed: the target gets the entries (comments kept), the link stays a link', () => {
  const root = ws();
  const shared = ws();
  const target = path.join(shared, 'launch.json');
  fs.writeFileSync(target, '{\n  // team-wide debug entries\n  "version": "0.2.0",\n  "configurations": []\n}\n');
  fs.mkdirSync(path.join(root, '.vscode'));
  const link = path.join(root, '.vscode', 'launch.json');
  fs.symlinkSync(target, link);
  const result = writePlan(planProject(request(root), english), english);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is not replaced');
  assert.equal(fs.readlinkSync(link), target);
  const text = fs.readFileSync(target, 'utf8');
  assert.match(text, /\/\/ team-wide debug entries/);
  assert.match(text, /"type": "agentrl"/);
  assert.ok(result.written.includes(target), 'reports the file it wrote');
  assert.deepEqual(fs.readdirSync(path.join(root, '.vscode')), ['launch.json'], 'no temporary file left beside the link');
});

test('a dangling launch.json symlink is refused with a clear error; nothing is created', () => {
  const root = ws();
  fs.mkdirSync(path.join(root, '.vscode'));
  const link = path.join(root, '.vscode', 'launch.json');
  fs.symlinkSync(path.join(root, 'nowhere', 'launch.json'), link);
  const before = listFiles(root);
  assert.throws(
    () => planProject(request(root), english),
    (e: Error) => e instanceof ScaffoldError && /launch\.json is a symbolic link to .*nowhere.*which does not exist/.test(e.message),
  );
  assert.deepEqual(listFiles(root), before);
  assert.ok(fs.lstatSync(link).isSymbolicLink());
});

test("every template's README says a tiny local model is not expected to solve the task, and its launch entry stops on the first LLM call", () => {
  for (const t of set.templates) {
    const root = ws();
    const plan = planProject(request(root, { template: t.id }), english);
    const readme = plan.files.find((f) => path.basename(f.path) === 'README.md');
    assert.ok(readme, t.id);
    assert.match(readme.content.replace(/\s+/g, ' '), /tiny local model .* is not expected to solve them/, t.id);
    const launch = JSON.parse(plan.launch?.text ?? '{}') as { configurations: { breakOn?: string[] }[] };
    for (const c of launch.configurations) assert.deepEqual(c.breakOn, ['llm'], t.id);
  }
});
