// Which taskset a replayed experience's task_index points into, as Trinity read it: the
// experience's taskset (info["task_index"].taskset_id among buffer.explorer_input.tasksets;
// the single `taskset` is the first) from the workspace's config, or from the job directory's
// own copy (Trinity's StateManager saves `<job dir>/config.json`) when the workspace's has
// changed how that taskset is read since the run. Pure; a taskset that is not there is said
// through the injected l10n (vscode.l10n in the debug adapter, English in the CLI).
import { english, type L10n } from '../../base/l10n';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The fields that decide which row a task_index names and what the workflow gets from it. */
const READ_FIELDS = ['path', 'split', 'subset_name', 'format', 'workflow_args'] as const;
/** The keys of `format` that say which columns of the row are read (its templates, such as
 *  system_prompt, are the workflow's: an edited template is what a replay is for). */
const FORMAT_KEYS = ['prompt_key', 'response_key', 'system_prompt_key', 'workflow_key', 'reward_fn_key'];

/** The config's tasksets in Trinity's order: `tasksets`, else the single `taskset`. */
export function tasksetsOf(doc: unknown): Obj[] {
  const input = obj(obj(obj(doc).buffer).explorer_input);
  if (Array.isArray(input.tasksets) && input.tasksets.length) return input.tasksets.map(obj);
  return input.taskset ? [obj(input.taskset)] : [];
}

export interface TasksetChoice {
  /** The config to plan from: the workspace's, with the chosen taskset as its only one. */
  doc: Obj;
  from: 'workspace' | 'job';
  /** Why, in a sentence. */
  why: string;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => (v as Obj)[k] !== undefined && (v as Obj)[k] !== null)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Obj)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

/** The fields of `a` that read differently in `b` (a field b does not set counts only when a sets it). */
function changed(a: Obj, b: Obj): string[] {
  return READ_FIELDS.filter((k) => {
    if (k === 'format' || k === 'workflow_args') {
      const fa = obj(a[k]);
      const fb = obj(b[k]);
      return Object.keys(fa).some(
        (key) => (k === 'workflow_args' || FORMAT_KEYS.includes(key)) && fb[key] !== undefined && canonical(fa[key]) !== canonical(fb[key]),
      );
    }
    return a[k] !== undefined && b[k] !== undefined && canonical(a[k]) !== canonical(b[k]);
  });
}

function withTaskset(doc: Obj, ts: Obj): Obj {
  const buffer = obj(doc.buffer);
  const input: Obj = { ...obj(buffer.explorer_input), taskset: ts };
  delete input.tasksets;
  return { ...doc, buffer: { ...buffer, explorer_input: input } };
}

/** The taskset to find the task in. `job`: the job dir's config copy, when there is one. */
export function chooseTaskset(
  workspace: Obj,
  job: Obj | undefined,
  tasksetId: number | null,
  configName: string,
  l10n: L10n = english,
): TasksetChoice | { error: string } {
  const i = tasksetId ?? 0;
  const mine = tasksetsOf(workspace);
  const theirs = job ? tasksetsOf(job) : [];
  if (!mine[i] && !theirs[i])
    return {
      error: job
        ? l10n.t("the experience's taskset #{0} is not in {1} ({2} taskset(s)) nor in the job directory's config.json", i, configName, mine.length)
        : l10n.t("the experience's taskset #{0} is not in {1} ({2} taskset(s))", i, configName, mine.length),
    };
  if (!mine[i])
    return { doc: withTaskset(workspace, theirs[i]), from: 'job', why: `${configName} has no taskset #${i}: the job directory's config.json is used` };
  if (!job) return { doc: withTaskset(workspace, mine[i]), from: 'workspace', why: `${configName} (the job directory has no config.json to compare with)` };
  if (!theirs[i])
    return { doc: withTaskset(workspace, mine[i]), from: 'workspace', why: `${configName} (the job directory's config.json has no taskset #${i})` };
  const diff = changed(theirs[i], mine[i]);
  if (!diff.length)
    return { doc: withTaskset(workspace, mine[i]), from: 'workspace', why: `${configName} (its taskset reads as in the job directory's config.json)` };
  // The task as training read it; everything else (workflow, reward) is the workspace's.
  const merged: Obj = { ...mine[i] };
  for (const k of READ_FIELDS) if (theirs[i][k] !== undefined && k !== 'format') merged[k] = theirs[i][k];
  const theirFormat = obj(theirs[i].format);
  merged.format = {
    ...obj(mine[i].format),
    ...Object.fromEntries(FORMAT_KEYS.filter((key) => theirFormat[key] !== undefined).map((key) => [key, theirFormat[key]])),
  };
  return {
    doc: withTaskset(workspace, merged),
    from: 'job',
    why: `the job directory's config.json: ${configName} has changed the taskset's ${diff.join(', ')} since the run`,
  };
}
