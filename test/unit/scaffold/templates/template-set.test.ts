// templates/ parses into a consistent set, and the renderer fills placeholders and partials
// exactly (unknown names are errors, not literal braces in a user's project).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import Ajv from 'ajv';
import { renderText } from '../../../../src/scaffold/templates/render';
import { readTemplateDir } from '../../../../src/scaffold/templates/template-dir';
import { TemplateSetError, parseTemplateSet } from '../../../../src/scaffold/templates/template-set';
import { repoRoot } from '../../../harness/paths';

const files = readTemplateDir(path.join(repoRoot, 'templates'));

test('templates/ parses: every framework has templates, every template its dataset and files', () => {
  const set = parseTemplateSet(files);
  assert.deepEqual(set.frameworks.map((f) => f.id), ['trinity', 'astuner', 'ajet', 'agentscope']);
  for (const f of set.frameworks) assert.ok(set.templates.some((t) => t.framework === f.id), f.id);
  assert.deepEqual(set.templates.map((t) => t.id).slice(0, 4), ['trinity-math', 'trinity-react', 'trinity-toolcall', 'trinity-online'], 'ordered by framework, then order');
  for (const t of set.templates) {
    assert.ok(set.datasets[t.dataset], t.id);
    assert.ok(t.files[t.open] !== undefined && t.files['README.md'] !== undefined, t.id);
    assert.ok(t.label['zh-cn'] && t.detail['zh-cn'], `${t.id} has Chinese labels`);
  }
  assert.deepEqual(Object.keys(set.datasets).sort(), ['countdown', 'countdown-astuner', 'gsm8k', 'gsm8k-astuner']);
  assert.equal(set.datasets.gsm8k.files['train.jsonl'].trim().split('\n').length, 16);
});

test('every template.json follows templates/template.schema.json', () => {
  const validate = new Ajv({ allErrors: true }).compile(JSON.parse(files['template.schema.json']));
  const ids = Object.keys(files).filter((f) => /^[^_/][^/]*\/template\.json$/.test(f));
  assert.equal(ids.length, 7);
  for (const f of ids) assert.ok(validate(JSON.parse(files[f])), `${f}: ${JSON.stringify(validate.errors)}`);
});

test('a broken template.json is reported with its file and what is wrong', () => {
  const broken = (id: string, patch: (m: Record<string, unknown>) => void) => {
    const m = JSON.parse(files[`${id}/template.json`]) as Record<string, unknown>;
    patch(m);
    return () => parseTemplateSet({ ...files, [`${id}/template.json`]: JSON.stringify(m) });
  };
  assert.throws(broken('trinity-math', (m) => delete m.open), (e: Error) => e instanceof TemplateSetError && /trinity-math\/template\.json: open and configs must be paths inside the project/.test(e.message));
  assert.throws(broken('trinity-math', (m) => (m.open = '../escape.py')), /trinity-math\/template\.json: open and configs must be paths inside the project/);
  assert.throws(broken('trinity-math', (m) => (m.launch = [{ name: 'x', config: 'config.yaml', cwd: '../..' }])), /cwd "\." or "\.\."/);
  assert.throws(broken('trinity-math', (m) => (m.defaultName = 'math-agent')), /defaultName must be a Python identifier/);
  assert.throws(broken('trinity-math', (m) => (m.framework = 'nope')), /unknown framework 'nope'/);
  assert.throws(broken('trinity-math', (m) => (m.configs = ['missing.yaml'])), /names 'missing\.yaml', which the template does not have/);
  assert.throws(broken('trinity-math', (m) => (m.id = 'other')), /id 'other' differs from its folder/);
  assert.throws(() => parseTemplateSet({ ...files, 'trinity-math/template.json': '{ nope' }), /trinity-math\/template\.json: /);
});

test('placeholders are filled once; unknown ones are errors', () => {
  assert.equal(renderText('a {{name}} b {{ model }}', { name: 'x', model: '{{name}}' }, {}, 'f'), 'a x b {{name}}');
  assert.equal(renderText('python {{}} and f"{{x!r}}"', {}, {}, 'f'), 'python {{}} and f"{{x!r}}"', 'non-identifier braces stay');
  assert.throws(() => renderText('{{nmae}}', { name: 'x' }, {}, 'templates/t/workflow.py'), /templates\/t\/workflow\.py: unknown placeholder \{\{nmae\}\}/);
});

test('partials: a line of its own is replaced by the partial, inline ones are spliced, nesting works', () => {
  const partials = { 'imp.py': 'import re\n{{> inner.py}}', 'inner.py': 'X = "{{name}}"\n', 'word.txt': 'hello\n' };
  assert.equal(renderText('head\n{{> imp.py}}\ntail {{> word.txt}}!\n', { name: 'n' }, partials, 'f'), 'head\nimport re\nX = "n"\ntail hello!\n');
  assert.throws(() => renderText('{{> nope.py}}', {}, partials, 'f'), /f: unknown partial \{\{> nope\.py\}\}/);
  assert.throws(() => renderText('{{> loop}}', {}, { loop: '{{> loop}}' }, 'f'), /nested deeper than 5/);
});
