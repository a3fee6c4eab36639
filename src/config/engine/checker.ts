// The config engine behind the `ConfigChecker` interface (src/feature-api/config-checker.ts) that
// other features get injected: bundled as dist/config-engine.js; extension.ts / cli.ts
// create one with `createConfigChecker` and hand it over.
import * as fs from 'fs';
import * as path from 'path';
import type { CheckDiagnostic, CheckResult, ConfigChecker, ConfigKind, KeyLocation } from '../../feature-api/config-checker';
import { locate, parsePath } from '../yaml/tree';
import { analyze, type Analysis, type EngineOptions } from './engine';
import { clearFsCache } from '../core/fscache';
import { isBinary } from '../yaml/limits';
import { ENGLISH, l10n, render, type Lang } from '../core/l10n-text';
import { compareVersions } from '../core/versions';
import { LATEST_TRINITY, TRINITY_VERSIONS } from '../schema/schemas';
import type { VersionSource } from '../schema/version-findings';
import { detectInstalledPackage, detectInstalledTrinity } from '../workspace/installed-trinity';
import { findPin, type PackageInForce } from '../workspace/trinity-version';
import { PythonIndex } from '../workspace/pyindex';
import { asPromise } from '../../base/promise';

export interface CheckerOptions {
  /** Workspace folders; relative paths in configs resolve here (default: cwd). */
  roots?: string[];
  env?: Record<string, string>;
  globs?: Record<string, string>;
  kind?: ConfigKind | 'auto';
  /** 'auto' (installed package, else newest) or a release such as '0.5.2'. */
  trinityVersion?: string;
  /** Where an explicit `trinityVersion` came from ("--trinity-version"), for version messages. */
  trinityVersionSource?: VersionSource;
  /** The verl release in force ('0.8.0'); default: installed or pinned under the roots. */
  verlVersion?: string;
  /** Scan the roots' Python files for registered names (default true). */
  scanPython?: boolean;
  checkPaths?: boolean;
}

/** Findings in the `agentrl check --format json` / CheckResult shape (English unless the CLI's --lang says otherwise). */
export function toCheckDiagnostics(a: Analysis, lang: Lang = ENGLISH): CheckDiagnostic[] {
  return a.findings.map((f) => ({ severity: f.severity, code: f.code, message: render(f.message, lang), path: f.path, range: a.lines.range(f.span) }));
}

/** Reads a config file as text, or explains why it cannot be analysed. */
export function readConfigText(file: string): { text: string } | { binary: true } {
  const bytes = fs.readFileSync(file);
  if (isBinary(bytes)) return { binary: true };
  return { text: bytes.toString('utf8').replace(/^\uFEFF/, '') };
}

/** The known release a version string maps to (greatest known ≤ v), or undefined. */
function knownRelease(v: string): string | undefined {
  let best: string | undefined;
  for (const r of TRINITY_VERSIONS) if (compareVersions(r, v) <= 0) best = r;
  return best;
}

const readText = (f: string) => {
  try {
    return fs.readFileSync(f, 'utf8');
  } catch {
    return undefined;
  }
};
const listDir = (d: string) => {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
};

/** The target release: an explicit setting, else an installed package, else a pin in the
 *  project's files (requirements*.txt, pyproject.toml, setup.cfg, environment.yml, uv.lock),
 *  else the newest. */
export function targetTrinityVersion(
  setting: string | undefined,
  roots: readonly string[],
): { version: string; source: 'setting' | 'installed' | 'pin' | 'default'; detail?: string } {
  if (setting && setting !== 'auto') return { version: knownRelease(setting) ?? setting, source: 'setting' };
  const found = detectInstalledTrinity(roots);
  if (found) return { version: knownRelease(found.version) ?? LATEST_TRINITY, source: 'installed', detail: `${found.version} (${found.where})` };
  for (const root of roots) {
    const pin = findPin(root, readText, listDir);
    if (pin) return { version: knownRelease(pin.version) ?? LATEST_TRINITY, source: 'pin', detail: `${pin.version} (${pin.from})` };
  }
  return { version: LATEST_TRINITY, source: 'default' };
}

/** The verl under the trainer: an explicit setting, else installed in a workspace venv, else
 *  pinned in the project's files; undefined when the workspace does not say. */
export function verlInForce(setting: string | undefined, roots: readonly string[]): PackageInForce | undefined {
  if (setting) return { version: setting, source: 'setting', from: '--verl-version' };
  const found = detectInstalledPackage(roots, 'verl');
  if (found) return { version: found.version, source: 'installed', from: found.where };
  for (const root of roots) {
    const pin = findPin(root, readText, listDir, 'verl');
    if (pin) return { version: pin.version, source: 'pin', from: pin.from };
  }
  return undefined;
}

export class EngineChecker implements ConfigChecker {
  private python?: PythonIndex;
  readonly roots: string[];
  readonly trinityVersion: string;
  readonly trinityVersionSource: VersionSource;
  readonly verl?: PackageInForce;
  constructor(private readonly opts: CheckerOptions = {}) {
    this.roots = (opts.roots?.length ? opts.roots : [process.cwd()]).map((r) => path.resolve(r));
    const t = targetTrinityVersion(opts.trinityVersion, this.roots);
    this.trinityVersion = t.version;
    this.trinityVersionSource =
      t.source === 'setting'
        ? opts.trinityVersionSource
        : t.source === 'installed'
          ? l10n.t('installed: {0}', t.detail)
          : t.source === 'pin'
            ? l10n.t('pinned: {0}', t.detail)
            : undefined;
    this.verl = verlInForce(opts.verlVersion, this.roots);
  }

  engineOptions(): EngineOptions {
    if (this.opts.scanPython !== false && !this.python) this.python = new PythonIndex().scan(this.roots);
    return {
      roots: this.roots,
      env: this.opts.env,
      globs: this.opts.globs,
      forcedKind: this.opts.kind,
      trinityVersion: this.trinityVersion,
      trinityVersionSource: this.trinityVersionSource,
      verl: this.verl,
      python: this.python,
      checkPaths: this.opts.checkPaths,
    };
  }

  analyzeText(file: string, text: string, extra: Partial<EngineOptions> = {}): Analysis {
    clearFsCache(); // callers expect what is on disk now
    return analyze(text, path.resolve(file), { ...this.engineOptions(), ...extra });
  }

  check(file: string, text?: string): Promise<CheckResult> {
    return asPromise(() => this.checkNow(file, text));
  }

  locate(file: string, key: string, text?: string): Promise<KeyLocation | undefined> {
    return asPromise(() => {
      const content = text ?? readConfigText(file);
      if (typeof content !== 'string' && 'binary' in content) return undefined;
      const a = this.analyzeText(file, typeof content === 'string' ? content : content.text);
      for (const d of a.parse.docs) {
        const at = locate(d.root, parsePath(key));
        if (!at) continue;
        return {
          range: a.lines.range(at.span),
          ...(at.keySpan ? { keyRange: a.lines.range(at.keySpan) } : {}),
          ...(at.node.kind === 'scalar' ? { text: at.node.src } : {}),
        };
      }
      return undefined;
    });
  }

  private checkNow(file: string, text?: string): CheckResult {
    let content = text;
    if (content === undefined) {
      const r = readConfigText(file);
      if ('binary' in r) {
        return {
          file,
          kind: null,
          diagnostics: [
            {
              severity: 'error',
              code: 'input.binary',
              message: 'Binary content: not a YAML text file.',
              path: '',
              range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
            },
          ],
        };
      }
      content = r.text;
    }
    const a = this.analyzeText(file, content);
    return { file, kind: a.kind, diagnostics: toCheckDiagnostics(a), resolved: a.kind ? a.resolved : undefined };
  }
}

/** Factory the lead wires into other features (see src/feature-api/config-checker.ts). */
export function createConfigChecker(opts: CheckerOptions = {}): ConfigChecker {
  return new EngineChecker(opts);
}
