// What to run on the cluster for a config: the entrypoint derived from the config's kind
// (and version), and the run's identity — project, name, Ray namespace, job dir — read from
// the resolved config the way Trinity-RFT does (`<checkpoint_root_dir>/<project>/<name>`).
import type { ConfigKind } from '../../feature-api/config-checker';

export interface RunInfo {
  kind: ConfigKind;
  project?: string;
  name?: string;
  /** Trinity 0.6: runs grouped as `<project>/<group>/<name>`. */
  group?: string;
  /** `<checkpoint_root_dir>/<project>/<name>` when all three are known. */
  jobDir?: string;
  /** Trinity's Ray namespace: `<project>/<name>` (0.6 with a group: `<project>/<group>/<name>`). */
  namespace?: string;
  /** AgentJet / ASTuner backbone (`trinity` when unset, the launcher's default on a cluster). */
  backbone?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() && !v.includes('${') ? v.trim() : undefined);

function joinPosix(...parts: string[]): string {
  return parts.map((p, i) => (i === 0 ? p.replace(/\/+$/, '') : p.replace(/^\/+|\/+$/g, ''))).join('/');
}

export function runInfo(kind: ConfigKind, resolved: unknown): RunInfo {
  const doc = (resolved && typeof resolved === 'object' ? resolved : {}) as Record<string, unknown>;
  if (kind === 'trinity') {
    const project = str(doc.project);
    const name = str(doc.name);
    const group = str(doc.group);
    const root = str(doc.checkpoint_root_dir);
    const namespace = project && name ? (group ? `${project}/${group}/${name}` : `${project}/${name}`) : undefined;
    const jobDir = root && project && name ? joinPosix(root, project, name) : undefined;
    return { kind, project, name, group, namespace, jobDir };
  }
  const section = (doc[kind] ?? {}) as Record<string, unknown>;
  const trinity = (section.trinity ?? {}) as Record<string, unknown>;
  return {
    kind,
    project: str(section.project_name) ?? str(trinity.project),
    name: str(section.experiment_name) ?? str(trinity.name),
    backbone: str(section.backbone),
  };
}

/** Quotes one shell word for the entrypoint (Ray runs it with a shell). */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The default entrypoint for a config at `relPath` (relative to the working_dir). */
export function deriveEntrypoint(info: RunInfo, relPath: string): string {
  const p = shellQuote(relPath);
  switch (info.kind) {
    case 'trinity':
      return `trinity run --config ${p}`;
    case 'ajet':
      return `ajet --conf ${p} --backbone ${shellQuote(info.backbone ?? 'trinity')} --with-ray`;
    case 'astuner':
      return `astuner --conf ${p} --backbone ${shellQuote(info.backbone ?? 'trinity')} --with-ray`;
  }
}
