// The YAML layer: PyYAML/OmegaConf scalar types, positions, aliases, the chunked parse
// (identical results to the whole parse, reusing cached chunks) and the input limits.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolvePlain } from '../../../../src/config/yaml/scalars';
import { parseYaml, parseWhole, ParseCache, CHUNK_MIN_LINES } from '../../../../src/config/yaml/parse';
import { LIMITS, isBinary, preflight } from '../../../../src/config/yaml/limits';
import { formatPath, locate, walk, type VNode } from '../../../../src/config/yaml/tree';
import { trinity } from '../helpers';

test("plain scalars resolve like PyYAML with OmegaConf's float resolver", () => {
  const cases: [string, string, unknown][] = [
    ['2.0', 'float', 2],
    ['1e-6', 'float', 1e-6],
    ['1.5e3', 'float', 1500],
    ['.inf', 'float', Infinity],
    ['42', 'int', 42],
    ['0x1F', 'int', 31],
    ['017', 'int', 15],
    ['1_000', 'int', 1000],
    ['1:30', 'int', 90],
    ['yes', 'bool', true],
    ['Off', 'bool', false],
    ['y', 'str', 'y'],
    ['~', 'null', null],
    ['null', 'null', null],
    ['2024-01-01', 'str', '2024-01-01'],
    ['0o17', 'str', '0o17'],
    ['Qwen/Qwen2.5-1.5B', 'str', 'Qwen/Qwen2.5-1.5B'],
  ];
  for (const [text, py, value] of cases) {
    const r = resolvePlain(text);
    assert.equal(r.py, py, text);
    assert.deepEqual(r.value, value, text);
  }
});

test('quoted scalars are strings; explicit tags convert', () => {
  const r = parseWhole('a: "3"\nb: \'yes\'\nc: !!int "4"\nd: !!str 5\n');
  const root = r.docs[0].root!;
  const get = (k: string) => locate(root, [k])!.node;
  assert.equal((get('a') as { py: string }).py, 'str');
  assert.equal((get('b') as { py: string }).py, 'str');
  assert.deepEqual([(get('c') as { py: string }).py, (get('c') as { value: unknown }).value], ['int', 4]);
  assert.deepEqual([(get('d') as { py: string }).py, (get('d') as { value: unknown }).value], ['str', '5']);
});

/** Every path's key and value span, for comparing two parses. */
function spans(root: VNode | undefined): Map<string, string> {
  const out = new Map<string, string>();
  walk(root, (node, path, shift, entry) => {
    const key = formatPath(path);
    const ks = entry ? `${entry.keySpan.start + shift}` : '';
    out.set(key, `${node.span.start + shift}-${node.span.end + shift}|${ks}`);
  });
  return out;
}

function bigConfig(n: number): string {
  const evals = Array.from({ length: n }, (_, i) => ({
    name: `eval_${i}`,
    storage_type: 'file',
    path: 'openai/gsm8k',
    split: 'test',
    format: { prompt_key: 'question', response_key: 'answer' },
    rollout_args: { temperature: 1.0 },
  }));
  return trinity({ buffer: { explorer_input: { eval_tasksets: evals } }, trainer: { trainer_config: { actor_rollout_ref: { actor: { ppo_epochs: 1 } } } } });
}

test('a large document is parsed in chunks with the same values and spans as a whole parse', () => {
  const text = bigConfig(120);
  assert.ok(text.split('\n').length > CHUNK_MIN_LINES);
  const whole = parseWhole(text);
  const chunked = parseYaml(text, new ParseCache());
  assert.equal(chunked.path, 'chunks');
  assert.deepEqual(
    JSON.parse(JSON.stringify((chunked.docs[0].root as { value: unknown }).value)),
    JSON.parse(JSON.stringify((whole.docs[0].root as { value: unknown }).value)),
  );
  assert.deepEqual([...spans(chunked.docs[0].root)], [...spans(whole.docs[0].root)]);
});

test('an edit re-parses only the touched chunk (the rest comes from the cache)', () => {
  const cache = new ParseCache();
  const text = bigConfig(200);
  parseYaml(text, cache);
  const before = cache.size;
  const edited = text.replace('name: eval_150\n', 'name: eval_150x\n');
  const r = parseYaml(edited, cache);
  assert.equal(r.path, 'chunks');
  assert.equal(cache.size - before, 1, 'one new chunk parsed');
  const l = locate(r.docs[0].root, ['buffer', 'explorer_input', 'eval_tasksets', 150, 'name'])!;
  assert.equal(edited.slice(l.span.start, l.span.end), 'eval_150x');
  // and inserting lines above shifts every later span correctly
  const shifted = edited.replace('mode: both\n', 'mode: both\n# a comment\n# another\n');
  const r2 = parseYaml(shifted, cache);
  const l2 = locate(r2.docs[0].root, ['buffer', 'explorer_input', 'eval_tasksets', 150, 'name'])!;
  assert.equal(shifted.slice(l2.span.start, l2.span.end), 'eval_150x');
  assert.deepEqual([...spans(r2.docs[0].root)], [...spans(parseWhole(shifted).docs[0].root)]);
});

test('an edit rebuilds only the branches on its path: untouched ones are the same nodes, wherever they move', () => {
  const cache = new ParseCache();
  const text = bigConfig(60);
  const node = (r: ReturnType<typeof parseYaml>, p: (string | number)[]) => locate(r.docs[0].root, p)!.node;
  const first = parseYaml(text, cache);
  // an edit outside `buffer` (a branch: many lines) keeps it, and moves it when lines change
  const edited = text.replace('mode: both\n', 'mode: train\n# one\n# two\n');
  const second = parseYaml(edited, cache);
  assert.equal(node(second, ['buffer']), node(first, ['buffer']));
  assert.deepEqual([...spans(second.docs[0].root)], [...spans(parseWhole(edited).docs[0].root)]);
  // an edit inside one eval taskset rebuilds `buffer` but keeps its untouched siblings
  const inner = edited.replace('name: eval_40\n', 'name: eval_40x\n');
  const third = parseYaml(inner, cache);
  assert.notEqual(node(third, ['buffer']), node(second, ['buffer']));
  assert.equal(node(third, ['buffer', 'explorer_input', 'eval_tasksets', 3]), node(second, ['buffer', 'explorer_input', 'eval_tasksets', 3]));
  assert.deepEqual([...spans(third.docs[0].root)], [...spans(parseWhole(inner).docs[0].root)]);
  assert.equal((node(third, ['buffer', 'explorer_input', 'eval_tasksets', 40, 'name']) as { value: unknown }).value, 'eval_40x');
});

test('chunked parse reports duplicate keys across chunks, and falls back for anchors', () => {
  const text = bigConfig(100) + 'mode: train\n';
  const r = parseYaml(text, new ParseCache());
  assert.ok(r.problems.some((p) => p.code === 'yaml.duplicate-key'));
  const withAnchor = bigConfig(100).replace('project: unit', 'project: &p unit');
  assert.equal(parseYaml(withAnchor).path, 'whole');
});

test('limits: binary, too large, too deep, alias bombs are refused with a problem', () => {
  assert.equal(isBinary(Buffer.from([0x61, 0x00, 0x62])), true);
  assert.equal(isBinary(Buffer.from([0xff, 0xfe, 0xfd])), true);
  assert.equal(isBinary(Buffer.from('a: 1\n')), false);
  assert.equal(preflight('a'.repeat(LIMITS.maxBytes + 1))?.code, 'input.too-large');
  assert.equal(preflight('['.repeat(LIMITS.maxFlowDepth + 1))?.code, 'input.too-deep');
  assert.equal(preflight('['.repeat(LIMITS.maxFlowDepth)), undefined, 'the limit itself is fine');
  assert.equal(preflight(`a: ${'{'.repeat(LIMITS.maxFlowDepth / 2)}${'['.repeat(LIMITS.maxFlowDepth / 2 + 1)}`)?.code, 'input.too-deep', 'both brackets count');
  let deep = '';
  for (let i = 0; i < 1100; i++) deep += `${' '.repeat(i)}k${i}:\n`;
  assert.equal(preflight(deep)?.code, 'input.too-deep');
  assert.equal(preflight('a: "[[[[[[["\n'.repeat(100)), undefined, 'brackets in strings do not count');
  const bomb = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...'bcdefgh'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(',')}]`),
  ].join('\n');
  const r = parseYaml(bomb);
  assert.equal(r.limit?.code, 'input.alias-expansion');
});

test('recursive aliases are reported, not followed', () => {
  const r = parseWhole('a: &x\n  b: *x\n');
  assert.ok(r.problems.some((p) => p.code === 'yaml.recursive-alias'));
});
