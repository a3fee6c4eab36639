// Which Trinity-RFT release a config is checked against, and why. Pure: the sources are
// handed in (file texts through a reader, the interpreter's answer as a value), so the
// order — modeline, installed package, pin in the project's files, setting, newest known —
// is testable without a Python or a VS Code. A source that cannot say (malformed pin,
// unreadable file, no python, python without trinity) passes to the next one.
import * as path from 'path';

export type VersionSourceKind = 'modeline' | 'installed' | 'pin' | 'setting' | 'default';

export interface TrinityVersionInForce {
  /** The version as the source states it (`0.5.2`, `0.6`). */
  version: string;
  /** The known release whose facts apply (greatest known ≤ version; the newest if none). */
  release: string;
  source: VersionSourceKind;
  /** A short phrase naming where it came from: `requirements.txt`, `python3`, `modeline`… */
  from: string;
}

export interface VersionInputs {
  /** `trinity@0.5` of the `# agentrl:` modeline, when present. */
  modeline?: string;
  /** What the workspace's interpreter reported (undefined: not asked yet, no python, or no trinity). */
  installed?: { version: string; from: string };
  /** A pin found in the project's files (see findPin). */
  pin?: { version: string; from: string };
  /** `agentrl.config.trinityVersion` ('auto' = not set). */
  setting?: string;
  /** Known releases, oldest first. */
  known: readonly string[];
}

const VERSION_RE = /^\d+(?:\.\d+){0,3}(?:[.+-]?[A-Za-z0-9.]+)?$/;

export function isVersion(v: string | undefined): v is string {
  return !!v && VERSION_RE.test(v.trim());
}

export function resolveTrinityVersion(i: VersionInputs): TrinityVersionInForce {
  const latest = i.known[i.known.length - 1] ?? '0.0.0';
  const make = (version: string, source: VersionSourceKind, from: string): TrinityVersionInForce => ({ version, release: releaseFor(version, i.known) ?? latest, source, from });
  if (isVersion(i.modeline)) return make(i.modeline.trim(), 'modeline', 'modeline');
  if (i.installed && isVersion(i.installed.version)) return make(i.installed.version.trim(), 'installed', i.installed.from);
  if (i.pin && isVersion(i.pin.version)) return make(i.pin.version.trim(), 'pin', i.pin.from);
  if (i.setting && i.setting !== 'auto' && isVersion(i.setting)) return make(i.setting.trim(), 'setting', 'agentrl.config.trinityVersion');
  return { version: latest, release: latest, source: 'default', from: 'newest known' };
}

/** Greatest known release ≤ v, treating `0.6` as the 0.6 line (so `0.6` → `0.6.0`). */
export function releaseFor(v: string, known: readonly string[]): string | undefined {
  const want = parts(v);
  let best: string | undefined;
  for (const r of known) {
    const have = parts(r);
    // compare only as many parts as the version gives: `0.6` covers every 0.6.x
    let d = 0;
    for (let k = 0; k < want.length && !d; k++) d = (have[k] ?? 0) - want[k];
    if (d <= 0) best = r;
  }
  return best;
}

function parts(v: string): number[] {
  return v
    .split(/[.+-]/)
    .map((x) => parseInt(x, 10))
    .filter((n, i, a) => !Number.isNaN(n) && a.slice(0, i).every((m) => !Number.isNaN(m)));
}

/** `0.6.0` → `0.6`: what the status bar shows. */
export function shortVersion(v: string): string {
  const p = v.split('.');
  return p.length > 2 ? `${p[0]}.${p[1]}` : v;
}

// ---- pins in the project's files -------------------------------------------------------

/** A version from one requirement spec (`trinity-rft==0.5.2`, `>=0.6,<0.7`, `~=0.5.2`). */
export function versionFromSpec(spec: string): string | undefined {
  const s = spec.replace(/\s+/g, '').replace(/;.*$/, '');
  const clauses = s.split(',').filter(Boolean);
  let lower: string | undefined;
  for (const c of clauses) {
    const m = /^(===|==|~=|>=|\^|~|>)?v?([0-9][0-9A-Za-z.+-]*?)(\.\*)?$/.exec(c);
    if (!m) continue;
    const op = m[1] ?? '==';
    if (!isVersion(m[2])) continue;
    if (op === '==' || op === '===') return m[2];
    if (op === '~=' || op === '>=' || op === '^' || op === '~') lower ??= m[2];
  }
  return lower;
}

const NAME = 'trinity[-_.]?rft';
const REQ_LINE = new RegExp(`^\\s*${NAME}\\s*(?:\\[[^\\]]*\\])?\\s*([=~<>!^][^#;]*)`, 'i');
const QUOTED_REQ = new RegExp(`["'][ \\t]*${NAME}[ \\t]*(?:\\[[^\\]]*\\])?[ \\t]*([=~<>!][^"';\\n]*)["']`, 'i');
const POETRY_REQ = new RegExp(`^\\s*["']?${NAME}["']?\\s*=\\s*(?:["']([^"']+)["']|\\{[^}]*version\\s*=\\s*["']([^"']+)["'])`, 'im');

/** A pin in a requirements file (one requirement a line; `-r`, comments, options skipped). */
export function pinInRequirements(text: string): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    const m = REQ_LINE.exec(line.replace(/\s+#.*$/, ''));
    if (m) return versionFromSpec(m[1]);
  }
  return undefined;
}

/** A pin in pyproject.toml: PEP 621 / dependency-groups strings, or a Poetry table entry. */
export function pinInPyproject(text: string): string | undefined {
  const q = QUOTED_REQ.exec(text);
  const fromString = q ? versionFromSpec(q[1]) : undefined;
  if (fromString) return fromString;
  const p = POETRY_REQ.exec(text);
  const spec = p?.[1] ?? p?.[2];
  return spec ? versionFromSpec(spec) : undefined;
}

/** A pin in setup.cfg's `install_requires` (a requirement per line). */
export function pinInSetupCfg(text: string): string | undefined {
  return pinInRequirements(text.replace(/^\s*install_requires\s*=/m, ''));
}

/** The locked version in uv.lock (`[[package]] name = "trinity-rft" version = "…"`). */
export function pinInUvLock(text: string): string | undefined {
  for (const block of text.split(/^\[\[package\]\]\s*$/m).slice(1)) {
    if (!new RegExp(`^name\\s*=\\s*"${NAME}"\\s*$`, 'im').test(block)) continue;
    const v = /^version\s*=\s*"([^"]+)"\s*$/m.exec(block)?.[1];
    return isVersion(v) ? v : undefined;
  }
  return undefined;
}

/** Reads a file's text, or undefined when it is missing or unreadable. */
export type ReadText = (file: string) => string | undefined;
/** Lists a folder's file names, or [] when it cannot. */
export type ListDir = (dir: string) => string[];

/**
 * The first pin found under a workspace folder: uv.lock (exact), then requirements*.txt,
 * pyproject.toml, setup.cfg. `from` is the file name relative to the folder.
 */
export function findPin(root: string, read: ReadText, list: ListDir): { version: string; from: string } | undefined {
  const names = list(root);
  const reqs = names.filter((n) => /^requirements[\w.-]*\.txt$/i.test(n)).sort((a, b) => a.length - b.length || a.localeCompare(b));
  const order: [string, (t: string) => string | undefined][] = [
    ['uv.lock', pinInUvLock],
    ...reqs.map((n) => [n, pinInRequirements] as [string, (t: string) => string | undefined]),
    ['pyproject.toml', pinInPyproject],
    ['setup.cfg', pinInSetupCfg],
  ];
  for (const [name, parse] of order) {
    if (!names.includes(name)) continue;
    const text = read(path.join(root, name));
    if (text === undefined) continue;
    let v: string | undefined;
    try {
      v = parse(text.slice(0, 2_000_000));
    } catch {
      v = undefined;
    }
    if (isVersion(v)) return { version: v, from: name };
  }
  return undefined;
}

/** `# agentrl: trinity@0.5` → `0.5`. */
export function modelineVersion(modeline: { value: string; version?: string } | undefined): string | undefined {
  return modeline?.value === 'trinity' && isVersion(modeline.version) ? modeline.version : undefined;
}
