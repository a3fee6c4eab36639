// Fixed-seed fuzzing of the config engine, shared by the unit suite (a few hundred cases) and
// `npm run bench -- config` (10 000): mutated real configs must never throw, every finding
// must lie inside the text, the chunked parse must agree with the whole parse, and the
// editor features must answer at random positions.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { ENGLISH } from '../../../src/config/core/l10n-text';
import { ZH } from './helpers';
import { analyze } from '../../../src/config/engine/engine';
import { complete } from '../../../src/config/lsp/features/completion';
import { codeActions } from '../../../src/config/lsp/features/diagnostics';
import { hover } from '../../../src/config/lsp/features/hover';
import { documentSymbols } from '../../../src/config/lsp/features/symbols';
import { parseWhole, ParseCache, parseYaml } from '../../../src/config/yaml/parse';
import { formatPath, walk, type VNode } from '../../../src/config/yaml/tree';

import { rng } from '../../harness/rng';

export { rng };

const TOKENS = [
  ':',
  ' ',
  '[',
  ']',
  '{',
  '}',
  '-',
  '- ',
  '&a ',
  '*a',
  '<<: *a',
  '${',
  '${oc.env:X}',
  '${model.max_model_len}',
  '\t',
  '"',
  "'",
  '#',
  '|',
  '>',
  '?',
  '!!int ',
  '\\',
  '%',
  '---\n',
  '…',
  '好',
  '\u0000',
  '\r\n',
];
const VALUES = [
  '-1',
  '0',
  '1e999',
  '2.0',
  'null',
  '~',
  'yes',
  'no',
  "'${oc.env:X}'",
  '${a.b}',
  '${..x}',
  'x'.repeat(300),
  '[1, 2',
  '{a: 1}',
  'NCCL',
  'Both',
  'grpo',
  'toolcall_workflow',
  '"quoted"',
  '',
];

export function mutate(text: string, r: () => number, donors: string[]): string {
  const lines = text.split('\n');
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const i = Math.floor(r() * lines.length);
  const steps = 1 + Math.floor(r() * 3);
  for (let s = 0; s < steps; s++) {
    const op = Math.floor(r() * 9);
    const j = Math.floor(r() * lines.length);
    switch (op) {
      case 0:
        lines.splice(j, 1);
        break;
      case 1:
        lines.splice(j, 0, lines[i] ?? '');
        break;
      case 2: {
        const k = Math.floor(r() * lines.length);
        [lines[j], lines[k]] = [lines[k], lines[j]];
        break;
      }
      case 3:
        lines[j] = r() < 0.5 ? `  ${lines[j] ?? ''}` : (lines[j] ?? '').replace(/^ {1,2}/, '');
        break;
      case 4: {
        const l = lines[j] ?? '';
        const at = Math.floor(r() * (l.length + 1));
        lines[j] = l.slice(0, at) + pick(TOKENS) + l.slice(at);
        break;
      }
      case 5:
        lines[j] = (lines[j] ?? '').replace(/:\s+.*$/, `: ${pick(VALUES)}`);
        break;
      case 6:
        lines.length = Math.max(0, Math.floor(r() * lines.length));
        break;
      case 7: {
        const donor = pick(donors).split('\n');
        const a = Math.floor(r() * donor.length);
        lines.splice(j, 0, ...donor.slice(a, a + 1 + Math.floor(r() * 8)));
        break;
      }
      default:
        lines[j] = (lines[j] ?? '').replace(/^(\s*)([\w.-]+)/, (_, sp, k: string) => `${sp}${k.slice(0, -1) || 'x'}`);
    }
  }
  return lines.join('\n');
}

/** Paths with their key and value positions. A container's end is left out: the `yaml`
 *  package's rules for trailing comments after the last entry are its own, and nothing
 *  we report depends on them. */
function spans(root: VNode | undefined): string {
  const out: string[] = [];
  walk(root, (node, path, shift, entry) => {
    const key = entry ? `k${entry.keySpan.start + shift}` : '';
    const end = node.kind === 'map' || node.kind === 'seq' ? '' : `-${node.span.end + shift}`;
    out.push(`${formatPath(path)}@${key}:${node.span.start + shift}${end}`);
  });
  return out.join('\n');
}

export interface FuzzStats {
  cases: number;
  chunkedCompared: number;
  slowestMs: number;
  findings: number;
}

/** Runs `n` mutated cases from `seeds`; throws (assert) on the first failure, with the input. */
export function fuzz(seeds: string[], n: number, seed = 20240611): FuzzStats {
  const r = rng(seed);
  const stats: FuzzStats = { cases: 0, chunkedCompared: 0, slowestMs: 0, findings: 0 };
  const cache = new ParseCache();
  for (let c = 0; c < n; c++) {
    const text = mutate(seeds[c % seeds.length], r, seeds);
    const t0 = performance.now();
    try {
      const a = analyze(text, '/fuzz/config.yaml', { cache, checkPaths: false });
      stats.findings += a.findings.length;
      for (const f of a.findings) {
        assert.ok(
          f.span.start >= 0 && f.span.end <= text.length && f.span.start <= f.span.end,
          `span ${f.code} ${f.span.start}-${f.span.end} outside 0-${text.length}`,
        );
        a.lines.range(f.span);
        for (const fix of f.fixes ?? []) for (const e of fix.edits) assert.ok(e.span.end <= text.length, `fix edit outside the text (${f.code})`);
      }
      if (a.kind) {
        const off = Math.floor(r() * (text.length + 1));
        const pos = a.lines.position(off);
        hover(a, off, r() < 0.5 ? ENGLISH : ZH);
        complete(text, pos.line, pos.character, { kind: a.kind, lang: ENGLISH });
        documentSymbols(a);
        codeActions(a, 'file:///fuzz/config.yaml', { start: pos, end: pos }, ENGLISH, (f) => f);
      }
      const chunked = parseYaml(text, cache);
      if (chunked.path === 'chunks') {
        const whole = parseWhole(text);
        const wholeErrors = whole.problems.filter((p) => p.severity === 'error').length;
        const chunkErrors = chunked.problems.filter((p) => p.severity === 'error').length;
        // both must see an error; how each recovers from it is the parser's business
        assert.equal(chunkErrors > 0, wholeErrors > 0, `syntax errors: chunked ${chunkErrors}, whole ${wholeErrors}`);
        if (!wholeErrors) {
          assert.equal(spans(chunked.docs[0].root), spans(whole.docs[0].root), 'chunked and whole parse disagree');
          stats.chunkedCompared++;
        }
      }
    } catch (err) {
      const e = err as Error;
      // AGENTRL_FUZZ_DUMP=file keeps the failing input for debugging
      if (process.env.AGENTRL_FUZZ_DUMP) fs.writeFileSync(process.env.AGENTRL_FUZZ_DUMP, text);
      e.message = `fuzz case ${c} (seed ${seed}): ${e.message}\n--- input ---\n${text.slice(0, 4000)}`;
      throw e;
    }
    stats.slowestMs = Math.max(stats.slowestMs, performance.now() - t0);
    stats.cases++;
  }
  return stats;
}

const BAD_INTERPOLATIONS = [
  '${',
  '${oc.env:',
  '${oc.env:X,${oc.env:Y,',
  '${a.${b}}',
  '${..}',
  '${oc.select:model.max_model_len,${}',
  '${oc.decode:"[1,2"}',
  '${model.max_model_len}${model.max_model_len}',
  '\\${escaped}',
  '${not a key}',
];

/** One hostile edit of a real config (tabs, deep nesting, huge scalars, alias bombs, bad
 *  interpolations): what a broken generator, a bad merge or an attacker writes. Sizes stay
 *  around the engine's limits so both sides of each limit are hit. */
export function hostileMutate(text: string, r: () => number): string {
  const lines = text.split('\n');
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const j = Math.floor(r() * Math.max(1, lines.length));
  const valueLine = (v: string) => {
    const k = lines.findIndex((l, i) => i >= j && /^\s*[\w.-]+:\s+\S/.test(l));
    const at = k < 0 ? j : k;
    lines[at] = (lines[at] ?? 'name: x').replace(/:\s+.*$/, `: ${v}`);
  };
  switch (Math.floor(r() * 8)) {
    case 0: // a tab where YAML wants spaces, early or anywhere
      lines[r() < 0.5 ? Math.min(j, 3) : j] = (lines[j] ?? '').replace(/^( *)/, (sp: string) => (r() < 0.5 ? '\t' : `${sp}\t`));
      break;
    case 1: {
      // deep flow nesting around the engine's limit (200)
      const n = 150 + Math.floor(r() * 120);
      valueLine(`${'['.repeat(n)}1${']'.repeat(r() < 0.8 ? n : Math.floor(n / 2))}`);
      break;
    }
    case 2: {
      // deep block nesting
      const n = 50 + Math.floor(r() * 300);
      lines.splice(j, 0, ...Array.from({ length: n }, (_, i) => `${'  '.repeat(i)}k${i}:`), `${'  '.repeat(n)}leaf: 1`);
      break;
    }
    case 3: // a huge scalar: sometimes past the 5 MB limit
      valueLine(`'${'x'.repeat(r() < 0.2 ? 5_300_000 : 200_000 + Math.floor(r() * 800_000))}'`);
      break;
    case 4: {
      // an alias bomb (9 levels of 9) or a self-merge
      const bomb = [
        'bomb0: &b0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
        ...Array.from({ length: 8 }, (_, i) => `bomb${i + 1}: &b${i + 1} [${Array(9).fill(`*b${i}`).join(', ')}]`),
      ];
      lines.splice(j, 0, ...(r() < 0.7 ? bomb : ['base: &base {a: 1}', 'loop: &loop', '  <<: *base', '  self: *loop']));
      break;
    }
    case 5: // a bad interpolation, or one nested past the grammar's depth
      valueLine(
        r() < 0.3 ? `${'${oc.env:V,'.repeat(100 + Math.floor(r() * 250))}x${'}'.repeat(100 + Math.floor(r() * 250))}` : `'${pick(BAD_INTERPOLATIONS)}'`,
      );
      break;
    case 6: // many unknown top-level keys
      lines.push(...Array.from({ length: 10 + Math.floor(r() * 30) }, (_, i) => `unknown_${i}: ${i}`));
      break;
    default: // control characters, a BOM, CRLF line ends, a stray document marker
      lines[j] = `${pick(['\uFEFF', '\u0007', '\u001b[31m', '---', '...', '%YAML 1.1'])}${lines[j] ?? ''}`;
      if (r() < 0.5) return lines.join('\r\n');
  }
  return lines.join('\n');
}

/** Hostile inputs: each must give a diagnostic (or nothing) quickly, never a crash or hang. */
export function hostileInputs(): { name: string; text: string }[] {
  const bomb = [
    '# agentrl: trinity',
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...'bcdefghi'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
  ].join('\n');
  let deepBlock = '# agentrl: trinity\n';
  for (let i = 0; i < 1500; i++) deepBlock += `${' '.repeat(i)}k${i}:\n`;
  const bytes = Array.from({ length: 64 * 1024 }, (_, i) => (i * 2654435761) % 256);
  return [
    { name: 'empty', text: '' },
    { name: 'empty, forced trinity', text: '# agentrl: trinity\n' },
    { name: 'binary', text: Buffer.from(bytes).toString('utf8') },
    { name: '10 MB', text: `# agentrl: trinity\nmode: both\nname: ${'x'.repeat(10 * 1024 * 1024)}\n` },
    { name: 'deep flow nesting', text: `# agentrl: trinity\nk: ${'['.repeat(100_000)}` },
    { name: 'deep block nesting', text: deepBlock },
    { name: 'alias bomb', text: bomb },
    { name: 'long line of keys', text: `algorithm: {${Array.from({ length: 20000 }, (_, i) => `k${i}: ${i}`).join(', ')}}\nbuffer: {}\n` },
  ];
}
