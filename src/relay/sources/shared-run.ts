// Trinity-RFT 0.6's wandb "shared run" (`monitor.shared_run: true`): explorer and trainer
// write into one run, keys prefixed with the role (`explorer/rollout/reward/mean`), each
// role's step on a hidden axis (`explorer/step`, `trainer/step`), and which key uses which
// axis in `<job_dir>/monitor/shared_step_bindings/<role>.json` (`{ "<key>": "<role>/step" }`;
// read off trinity/utils/monitor.py, `load_shared_step_bindings` / `_define_shared_step_axes`,
// pan-x-c/Trinity-RFT, 0.6). This maps such keys back to the per-role layout's series
// (role + unprefixed tag), so both layouts name the same series.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JobRoot } from './job-root';

/** `metric key → step axis` of a shared run. */
export type StepBindings = Record<string, string>;

/** Default role names (Trinity's `explorer.name` / `trainer.name`). */
const DEFAULT_ROLES = ['explorer', 'trainer'];

/** Bindings files larger than this are not read (a map of metric names: a few KiB). */
const MAX_BINDINGS_BYTES = 1024 * 1024;

/**
 * Merges every `shared_step_bindings/*.json` under a monitor cache dir; bad files are skipped,
 * and so are files that resolve outside `root` (the relay's directory) when it is given.
 */
export function loadSharedStepBindings(monitorDir: string, root?: JobRoot): StepBindings {
  const out: StepBindings = {};
  const dir = path.join(monitorDir, 'shared_step_bindings');
  let names: string[];
  try {
    if (root && !root.contains(dir)) return out;
    names = fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return out;
  }
  for (const n of names) {
    try {
      const fd = root ? root.open(path.join(dir, n)) : fs.openSync(path.join(dir, n), 'r');
      let text: string;
      try {
        if (fs.fstatSync(fd).size > MAX_BINDINGS_BYTES) continue;
        text = fs.readFileSync(fd, 'utf8');
      } finally {
        fs.closeSync(fd);
      }
      const j = JSON.parse(text) as unknown;
      if (!j || typeof j !== 'object' || Array.isArray(j)) continue;
      for (const [k, v] of Object.entries(j as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
    } catch {
      // a file being written, or not JSON: the next poll reads it
    }
  }
  return out;
}

/** The roles a shared run has: the axes named in its bindings, else the defaults. */
function sharedRoles(bindings: StepBindings | undefined): string[] {
  const roles = new Set<string>();
  for (const axis of Object.values(bindings ?? {})) if (axis.endsWith('/step')) roles.add(axis.slice(0, -'/step'.length));
  return roles.size ? [...roles] : DEFAULT_ROLES;
}

export interface SeriesName {
  role: string;
  tag: string;
}

/**
 * The per-role series of a shared-run key: `explorer/rollout/x` → { explorer, rollout/x }.
 * Undefined for a hidden step axis (`explorer/step`), which is an x-axis, not a series.
 * A key of no role (not a shared-run key) keeps `fallbackRole` and its own name.
 */
export function sharedRunSeries(key: string, fallbackRole: string, bindings?: StepBindings): SeriesName | undefined {
  const axis = bindings?.[key];
  const roles = sharedRoles(bindings);
  if (roles.some((r) => key === `${r}/step`)) return undefined;
  const role = axis?.endsWith('/step') ? axis.slice(0, -'/step'.length) : roles.find((r) => key.startsWith(`${r}/`));
  if (role && key.startsWith(`${role}/`)) return { role, tag: key.slice(role.length + 1) };
  return { role: fallbackRole, tag: key };
}
