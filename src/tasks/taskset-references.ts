// The reference answers of a run's tasks, read on the node where its taskset is (`agentrl tasks
// --job-dir` runs there): Trinity keeps a copy of the run's config in its job dir (`config.json`,
// YAML written by OmegaConf) naming each taskset's path, split and `format.response_key` (the
// column the workflow reads as the truth: `raw_task[response_key]`, Trinity's workflow.py); a
// task's `task_index` is its row in that taskset (`{index, taskset_id}`: taskset_id is its place
// among `buffer.explorer_input.tasksets`). JSON lines and JSON tasksets are read (a file, or a
// dataset directory's file of the split); others are named, not read.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { type FindingText, l10n } from './finding-text';
import { type References, referenceAnswer } from './reference-answers';

/** A config larger than this is not one; a taskset larger than this is not read. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
const MAX_TASKSET_BYTES = 512 * 1024 * 1024;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** One taskset as the config reads it. */
export interface TasksetSpec {
  path: string;
  split: string;
  responseKey: string;
}

/** The tasksets a config names, in Trinity's order (`tasksets`, else the single `taskset`). */
function tasksetSpecs(doc: unknown): TasksetSpec[] {
  const input = obj(obj(obj(doc).buffer).explorer_input);
  const list = Array.isArray(input.tasksets) && input.tasksets.length ? input.tasksets.map(obj) : input.taskset ? [obj(input.taskset)] : [];
  return list.flatMap((t) => {
    const p = str(t.path);
    return p ? [{ path: p, split: str(t.split) ?? 'train', responseKey: str(obj(t.format).response_key) ?? 'response' }] : [];
  });
}

/** The data file of a taskset path: the file itself, or a dataset directory's JSON-lines / JSON file of the split. */
function dataFile(p: string, split: string): string | FindingText {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return l10n.t('the taskset {0} is not on this node', p);
  }
  if (st.isFile()) return /\.jsonl?$/i.test(p) ? p : l10n.t('the taskset {0} is not JSON lines or JSON (not read here)', p);
  const files: string[] = [];
  for (const d of [p, path.join(p, 'data')]) {
    try {
      for (const f of fs.readdirSync(d).sort()) if (/\.jsonl?$/i.test(f)) files.push(path.join(d, f));
    } catch {
      /* no such directory */
    }
  }
  const ofSplit = files.filter((f) => path.basename(f).toLowerCase().startsWith(split.toLowerCase()));
  if (ofSplit.length === 1) return ofSplit[0];
  if (!ofSplit.length && files.length === 1) return files[0];
  return l10n.t('the taskset {0} has no single JSON-lines or JSON file of split {1} (not read here)', p, split);
}

/** The rows of a JSON-lines or JSON (an array of rows) file. */
function rowsOf(file: string): unknown[] {
  const text = fs.readFileSync(file, 'utf8');
  const t = text.trimStart();
  if (t.startsWith('[')) {
    const v: unknown = JSON.parse(t);
    return Array.isArray(v) ? v : [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);
}

/** The reference answers of tasksets read as the config names them. */
export function tasksetReferences(specs: readonly TasksetSpec[], base: string): References {
  if (!specs.length) return { why: l10n.t('the config names no taskset') };
  const answers = new Map<string, string>();
  let read = 0;
  let why: FindingText | undefined;
  specs.forEach((spec, id) => {
    const file = dataFile(path.resolve(base, spec.path), spec.split);
    if (typeof file !== 'string') return void (why ??= file);
    try {
      if (fs.statSync(file).size > MAX_TASKSET_BYTES)
        return void (why ??= l10n.t('the taskset {0} is larger than {1} MB (not read here)', file, MAX_TASKSET_BYTES >> 20));
      rowsOf(file).forEach((row, index) => {
        const a = referenceAnswer(obj(row)[spec.responseKey]);
        if (a !== undefined) answers.set(id ? `${id}/${index}` : String(index), a);
      });
      read++;
    } catch (e) {
      why ??= l10n.t('the taskset {0} could not be read: {1}', file, (e as Error).message.slice(0, 200));
    }
  });
  if (!answers.size) return { why: why ?? l10n.t('the taskset has no reference answers (format.response_key)') };
  return { answers, tasksets: read };
}

/** The reference answers of the run in a job dir, from its config copy. */
export function jobReferences(jobDir: string): References {
  for (const name of ['config.json', 'config.yaml']) {
    const file = path.join(jobDir, name);
    let text: string;
    try {
      if (fs.statSync(file).size > MAX_CONFIG_BYTES) continue;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    let doc: unknown;
    try {
      doc = parse(text);
    } catch {
      continue;
    }
    return tasksetReferences(tasksetSpecs(doc), jobDir);
  }
  return { why: l10n.t('no config copy in the job dir (config.json) to name the taskset') };
}
