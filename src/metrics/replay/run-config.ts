// Which workflow config a training run's experience is replayed with (Debug This Rollout,
// Re-score). Trinity-RFT keeps a copy of the run's config in its job dir (`config.json`, YAML
// written by OmegaConf; `config.yaml` when a launcher copied it) and names the job dir
// `<checkpoint_root_dir>/<project>/<name>`; the workspace holds the user's configs, with the
// workflow and reward code as it is now. A workspace config of the same project and name is the
// run's; with none, every workspace config is a candidate (the user picks), and the job dir's
// copy too when it names a taskset and a workflow of its own. Pure: the caller lists the files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';

const COPY_FILES = ['config.json', 'config.yaml'];
/** A config larger than this is not one. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** A config file and what identifies its run. */
export interface RunConfigFile {
  file: string;
  project?: string;
  name?: string;
  /** It names a taskset and a workflow (it can run on its own). */
  runnable: boolean;
}

/** Why a candidate is offered. */
export type CandidateWhy = 'same-run' | 'job-copy' | 'workspace';

export interface ConfigCandidate {
  file: string;
  why: CandidateWhy;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** The identity of the config in `text` (a Trinity-RFT config's project, name, taskset); undefined: not YAML, not a mapping. */
export function configIdentity(file: string, text: string): RunConfigFile | undefined {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return undefined;
  }
  const d = obj(doc);
  if (!d) return undefined;
  const taskset = obj(obj(obj(d.buffer)?.explorer_input)?.taskset);
  const runnable = !!taskset && !!(str(taskset.default_workflow_type) ?? str(taskset.workflow_type)) && !!str(taskset.path);
  return { file, project: str(d.project), name: str(d.name), runnable };
}

/** The config copy in a job dir, or undefined (none, too large, not YAML). */
export function jobConfigCopy(jobDir: string): RunConfigFile | undefined {
  for (const name of COPY_FILES) {
    const file = path.join(jobDir, name);
    try {
      if (fs.statSync(file).size > MAX_CONFIG_BYTES) continue;
      const id = configIdentity(file, fs.readFileSync(file, 'utf8'));
      if (id) return id;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** The run's project and name: from its config copy, else from the job dir's path (`…/<project>/<name>`). */
export function runIdentity(jobDir: string | undefined, copy: RunConfigFile | undefined): { project?: string; name?: string } {
  if (copy?.project && copy.name) return { project: copy.project, name: copy.name };
  if (!jobDir) return {};
  return { project: path.basename(path.dirname(jobDir)), name: path.basename(jobDir) };
}

/**
 * The configs to replay with, best first: the workspace configs of the same run; with none, the
 * job dir's runnable copy and every workspace config. One candidate: use it; more: ask.
 */
export function configCandidates(jobDir: string | undefined, copy: RunConfigFile | undefined, workspace: readonly RunConfigFile[]): ConfigCandidate[] {
  const { project, name } = runIdentity(jobDir, copy);
  const same = workspace.filter((w) => w.runnable && name !== undefined && w.name === name && (project === undefined || w.project === project));
  if (same.length) return same.map((w) => ({ file: w.file, why: 'same-run' }));
  const out: ConfigCandidate[] = [];
  if (copy?.runnable) out.push({ file: copy.file, why: 'job-copy' });
  for (const w of workspace) if (w.runnable) out.push({ file: w.file, why: 'workspace' });
  return out;
}
