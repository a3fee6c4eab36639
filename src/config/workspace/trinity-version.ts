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

/** A Python package's version as the workspace states it (verl beside trinity-rft). */
export interface PackageInForce {
  version: string;
  source: 'installed' | 'pin' | 'setting';
  /** `requirements.txt`, `.venv/lib/python3.11/site-packages/verl-0.8.0.dist-info`, `--verl-version`… */
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

function isVersion(v: string | undefined): v is string {
  return !!v && VERSION_RE.test(v.trim());
}

export function resolveTrinityVersion(i: VersionInputs): TrinityVersionInForce {
  const latest = i.known[i.known.length - 1] ?? '0.0.0';
  const make = (version: string, source: VersionSourceKind, from: string): TrinityVersionInForce => ({
    version,
    release: releaseFor(version, i.known) ?? latest,
    source,
    from,
  });
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

/** A package name as pip compares them: `trinity-rft` = `trinity_rft` = `Trinity.RFT`. */
const nameRe = (pkg: string) => pkg.replace(/[-_.]/g, '[-_.]?');

interface PinPatterns {
  req: RegExp;
  quoted: RegExp;
  poetry: RegExp;
  conda: RegExp;
  uv: RegExp;
}

const patterns = new Map<string, PinPatterns>();
function patternsFor(pkg: string): PinPatterns {
  let p = patterns.get(pkg);
  if (!p) {
    const n = nameRe(pkg);
    p = {
      req: new RegExp(`^\\s*${n}\\s*(?:\\[[^\\]]*\\])?\\s*([=~<>!^][^#;]*)`, 'i'),
      quoted: new RegExp(`["'][ \\t]*${n}[ \\t]*(?:\\[[^\\]]*\\])?[ \\t]*([=~<>!][^"';\\n]*)["']`, 'i'),
      poetry: new RegExp(`^\\s*["']?${n}["']?\\s*=\\s*(?:["']([^"']+)["']|\\{[^}]*version\\s*=\\s*["']([^"']+)["'])`, 'im'),
      // conda environment.yml: `- verl=0.8.0`, `- verl==0.8.0`, or a pip entry `- trinity-rft>=0.6`
      conda: new RegExp(`^\\s*-\\s*["']?${n}\\s*(?:\\[[^\\]]*\\])?\\s*(==?|>=|~=)\\s*([0-9][\\w.*+-]*)`, 'i'),
      uv: new RegExp(`^name\\s*=\\s*"${n}"\\s*$`, 'im'),
    };
    patterns.set(pkg, p);
  }
  return p;
}

/** A pin in a requirements file (one requirement a line; `-r`, comments, options skipped). */
export function pinInRequirements(text: string, pkg = 'trinity-rft'): string | undefined {
  const re = patternsFor(pkg).req;
  for (const line of text.split(/\r?\n/)) {
    const m = re.exec(line.replace(/\s+#.*$/, ''));
    if (m) return versionFromSpec(m[1]);
  }
  return undefined;
}

/** A pin in pyproject.toml: PEP 621 / dependency-groups strings, or a Poetry table entry. */
export function pinInPyproject(text: string, pkg = 'trinity-rft'): string | undefined {
  const { quoted, poetry } = patternsFor(pkg);
  const q = quoted.exec(text);
  const fromString = q ? versionFromSpec(q[1]) : undefined;
  if (fromString) return fromString;
  const p = poetry.exec(text);
  const spec = p?.[1] ?? p?.[2];
  return spec ? versionFromSpec(spec) : undefined;
}

/** A pin in setup.cfg's `install_requires` (a requirement per line). */
export function pinInSetupCfg(text: string, pkg = 'trinity-rft'): string | undefined {
  return pinInRequirements(text.replace(/^\s*install_requires\s*=/m, ''), pkg);
}

/** A pin in a conda environment file: a conda dependency (`verl=0.8.0`) or a pip one below `- pip:`. */
export function pinInCondaEnv(text: string, pkg = 'trinity-rft'): string | undefined {
  const re = patternsFor(pkg).conda;
  for (const line of text.split(/\r?\n/)) {
    const m = re.exec(line.replace(/\s+#.*$/, ''));
    if (!m) continue;
    // conda's single `=` matches a version prefix: `=0.8` is any 0.8.x
    const v = m[1] === '=' ? m[2].replace(/\.\*$/, '') : versionFromSpec(`${m[1]}${m[2]}`);
    if (isVersion(v)) return v;
  }
  return undefined;
}

/** The locked version in uv.lock (`[[package]] name = "trinity-rft" version = "…"`). */
export function pinInUvLock(text: string, pkg = 'trinity-rft'): string | undefined {
  const name = patternsFor(pkg).uv;
  for (const block of text.split(/^\[\[package\]\]\s*$/m).slice(1)) {
    if (!name.test(block)) continue;
    const v = /^version\s*=\s*"([^"]+)"\s*$/m.exec(block)?.[1];
    return isVersion(v) ? v : undefined;
  }
  return undefined;
}

/** Reads a file's text, or undefined when it is missing or unreadable. */
export type ReadText = (file: string) => string | undefined;
/** Lists a folder's file names, or [] when it cannot. */
export type ListDir = (dir: string) => string[];

type PinParser = (text: string, pkg: string) => string | undefined;

/**
 * The first pin of `pkg` found under a workspace folder: uv.lock (exact), then
 * requirements*.txt, pyproject.toml, setup.cfg, environment.yml / .yaml. `from` is the file
 * name relative to the folder.
 */
export function findPin(root: string, read: ReadText, list: ListDir, pkg = 'trinity-rft'): { version: string; from: string } | undefined {
  const names = list(root);
  const reqs = names.filter((n) => /^requirements[\w.-]*\.txt$/i.test(n)).sort((a, b) => a.length - b.length || a.localeCompare(b));
  const order: [string, PinParser][] = [
    ['uv.lock', pinInUvLock],
    ...reqs.map((n): [string, PinParser] => [n, pinInRequirements]),
    ['pyproject.toml', pinInPyproject],
    ['setup.cfg', pinInSetupCfg],
    ['environment.yml', pinInCondaEnv],
    ['environment.yaml', pinInCondaEnv],
  ];
  for (const [name, parse] of order) {
    if (!names.includes(name)) continue;
    const text = read(path.join(root, name));
    if (text === undefined) continue;
    let v: string | undefined;
    try {
      v = parse(text.slice(0, 2_000_000), pkg);
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
