// Shared helpers for the config engine's unit tests: a small valid Trinity-RFT config of our
// own (not an upstream file), deep-merge edits, and lookups of findings by code and line.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { analyze, type Analysis, type EngineOptions } from '../../../src/config/engine/engine';
import type { Finding } from '../../../src/config/core/findings';
import { useLanguage } from '../../../src/config/core/l10n-bundle';
import { render, type Lang, type Text } from '../../../src/config/core/l10n-text';

export type Obj = Record<string, unknown>;

/** A finding's text in English, as `agentrl check` prints it by default. */
export const en = (t: Text): string => render(t);

/** Simplified Chinese through @vscode/l10n and the shipped zh-cn bundle (as the server renders it). */
export const ZH: Lang = useLanguage('zh-cn');
export const zh = (t: Text): string => render(t, ZH);

/** A valid GRPO config: 1 node × 4 GPUs, 2 rollout engines, so the trainer has 2 GPUs. */
export function baseTrinity(): Obj {
  return {
    mode: 'both',
    project: 'unit',
    name: 'base',
    checkpoint_root_dir: './checkpoints',
    algorithm: { algorithm_type: 'grpo', repeat_times: 4 },
    model: { model_path: 'Qwen/Qwen2.5-0.5B-Instruct', max_prompt_tokens: 512, max_response_tokens: 512, max_model_len: 1024 },
    cluster: { node_num: 1, gpu_per_node: 4 },
    buffer: {
      batch_size: 8,
      total_epochs: 1,
      explorer_input: {
        taskset: { name: 'train', storage_type: 'file', path: 'openai/gsm8k', split: 'train', format: { prompt_key: 'question', response_key: 'answer' } },
        default_workflow_type: 'math_workflow',
      },
      trainer_input: { experience_buffer: { name: 'buf', storage_type: 'queue' } },
    },
    explorer: { eval_interval: 10, rollout_model: { engine_num: 2, tensor_parallel_size: 1 } },
    synchronizer: { sync_method: 'nccl', sync_interval: 1 },
    trainer: { save_interval: 10 },
  };
}

/** Deep merge; `undefined` deletes a key, arrays replace. */
export function merge(base: Obj, patch: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
    else if (v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k]))
      out[k] = merge(out[k] as Obj, v as Obj);
    else out[k] = v;
  }
  return out;
}

export const yaml = (o: Obj) => stringify(o, { lineWidth: 0 });

/** The base config with a patch, as YAML text. */
export const trinity = (patch: Obj = {}) => yaml(merge(baseTrinity(), patch));

export const FILE = path.join(os.tmpdir(), 'agentrl-unit', 'config.yaml');

export function run(text: string, opts: EngineOptions & { file?: string } = {}): Analysis {
  return analyze(text, opts.file ?? FILE, { checkPaths: false, ...opts });
}

/** 0-based line of the `n`-th line containing `needle`. */
export function lineOf(text: string, needle: string, n = 0): number {
  const lines = text.split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].includes(needle) && seen++ === n) return i;
  }
  throw new Error(`'${needle}' not found in:\n${text}`);
}

export const codes = (a: Analysis) => a.findings.map((f) => f.code);
export const errors = (a: Analysis) => a.findings.filter((f) => f.severity === 'error');

/** The one finding with `code`, asserting its severity and (0-based) line. */
export function expectFinding(a: Analysis, code: string, opts: { severity?: Finding['severity']; line?: number } = {}): Finding {
  const found = a.findings.filter((f) => f.code === code);
  assert.ok(found.length > 0, `expected ${code}, got:\n${describe(a)}`);
  const f = opts.line === undefined ? found[0] : found.find((x) => a.lines.position(x.span.start).line === opts.line);
  assert.ok(f, `expected ${code} on line ${opts.line! + 1}, got lines ${found.map((x) => a.lines.position(x.span.start).line + 1).join(', ')}\n${describe(a)}`);
  if (opts.severity) assert.equal(f.severity, opts.severity, `${code} severity`);
  return f;
}

export function expectNo(a: Analysis, code: string): void {
  assert.ok(!a.findings.some((f) => f.code === code), `did not expect ${code}:\n${describe(a)}`);
}

export function expectClean(a: Analysis): void {
  const bad = a.findings.filter((f) => f.severity !== 'info');
  assert.deepEqual(
    bad.map((f) => `${f.code}: ${en(f.message)}`),
    [],
    describe(a),
  );
}

export function describe(a: Analysis): string {
  return (
    a.findings
      .map((f) => `  ${f.severity} ${a.lines.position(f.span.start).line + 1}:${a.lines.position(f.span.start).character + 1} ${f.code} ${en(f.message)}`)
      .join('\n') || '  (no findings)'
  );
}

/** Applies a finding's first fix to the text. */
export function applyFix(text: string, f: Finding, index = 0): string {
  const fix = f.fixes?.[index];
  assert.ok(fix, `no fix #${index} on ${f.code}`);
  const edits = [...fix.edits].sort((a, b) => b.span.start - a.span.start);
  let out = text;
  for (const e of edits) out = out.slice(0, e.span.start) + e.newText + out.slice(e.span.end);
  return out;
}

/** A scratch directory (removed at exit). */
export function tempDir(prefix = 'agentrl-unit-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.once('exit', () => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}
