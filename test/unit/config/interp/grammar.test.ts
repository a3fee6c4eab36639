// The TextMate injection grammar (syntaxes/) is contributed for YAML and highlights
// `${...}` interpolations and `module->Class` references. Its patterns are checked here with
// JavaScript regexes (they use no Oniguruma-only syntax).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { readJson } from '../../../harness/json';
import { repoRoot } from '../../../harness/paths';

const grammarPath = path.join(repoRoot, 'syntaxes', 'agentrl-yaml.injection.tmLanguage.json');
/** The parts of a TextMate grammar these tests read. */
interface Pattern {
  match: string;
  include?: string;
  captures?: Record<string, { name: string }>;
}
const grammar = readJson<{ scopeName: string; injectionSelector: string; repository: Record<string, { match: string; begin: string; patterns: Pattern[] }> }>(
  grammarPath,
);

test('package.json injects the grammar into YAML', () => {
  const pkg = readJson<{ contributes: { grammars: { scopeName: string; injectTo: string[]; path: string }[] } }>(path.join(repoRoot, 'package.json'));
  const g = pkg.contributes.grammars.find((x) => x.scopeName === grammar.scopeName);
  assert.ok(g, 'contributed');
  assert.deepEqual(g?.injectTo, ['source.yaml']);
  assert.equal(path.resolve(repoRoot, g?.path ?? ''), grammarPath);
  assert.match(grammar.injectionSelector, /source\.yaml/);
});

test('class references: module->Class and path/file.py->Class', () => {
  const re = new RegExp(grammar.repository['class-reference'].match);
  const m = re.exec('tutorial.example_math_agent.math_agent->ExampleMathLearn');
  assert.deepEqual([m?.[1], m?.[2], m?.[3]], ['tutorial.example_math_agent.math_agent', '->', 'ExampleMathLearn']);
  const f = re.exec('tutorial/example_math_agent/math_agent_oai_sdk.py->ExampleMathLearn');
  assert.equal(f?.[1], 'tutorial/example_math_agent/math_agent_oai_sdk.py');
  assert.equal(re.exec('not a reference'), null);
});

test('interpolations: begin/end, resolver names, nesting', () => {
  const interp = grammar.repository.interpolation;
  const begin = new RegExp(interp.begin, 'g');
  assert.deepEqual(
    [...'${oc.env:A,${b.c}} and \\${not}'.matchAll(begin)].map((m) => m.index),
    [0, 11],
  );
  const resolverPattern = interp.patterns.find((p: { captures?: Record<string, { name: string }> }) => p.captures?.['1']?.name.includes('resolver'));
  const resolver = new RegExp(String(resolverPattern?.match).replace('\\G', '^'));
  assert.equal(resolver.exec('oc.env:TRINITY_MODEL_PATH,x')?.[1], 'oc.env');
  assert.ok(
    interp.patterns.some((p: { include?: string }) => p.include === '#interpolation'),
    'nested interpolations',
  );
});
