// The config engine behind the `ConfigChecker` interface (src/feature-api/config-checker.ts) that
// other features get injected: bundled as dist/config-engine.js; extension.ts / cli.ts
// create one with `createConfigChecker` and hand it over.
import * as fs from 'fs';
import * as path from 'path';
import type { CheckDiagnostic, CheckResult, ConfigChecker, ConfigKind } from '../../feature-api/config-checker';
import { analyze, type Analysis, type EngineOptions } from './engine';
import { clearFsCache } from '../core/fscache';
import { isBinary } from '../yaml/limits';
import { ENGLISH, l10n, render, type Lang } from '../core/l10n-text';
import { compareVersions } from '../core/versions';
import { LATEST_TRINITY, TRINITY_VERSIONS } from '../schema/schemas';
import type { VersionSource } from '../schema/version-findings';
import { detectInstalledTrinity } from '../workspace/installed-trinity';
import { PythonIndex } from '../workspace/pyindex';

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

/** The target release: an explicit setting, else an installed package, else the newest. */
export function targetTrinityVersion(setting: string | undefined, roots: readonly string[]): { version: string; source: 'setting' | 'installed' | 'default'; detail?: string } {
  if (setting && setting !== 'auto') return { version: knownRelease(setting) ?? setting, source: 'setting' };
  const found = detectInstalledTrinity(roots);
  if (found) return { version: knownRelease(found.version) ?? LATEST_TRINITY, source: 'installed', detail: `${found.version} (${found.where})` };
  return { version: LATEST_TRINITY, source: 'default' };
}

export class EngineChecker implements ConfigChecker {
  private python?: PythonIndex;
  readonly roots: string[];
  readonly trinityVersion: string;
  readonly trinityVersionSource: VersionSource;
  constructor(private readonly opts: CheckerOptions = {}) {
    this.roots = (opts.roots?.length ? opts.roots : [process.cwd()]).map((r) => path.resolve(r));
    const t = targetTrinityVersion(opts.trinityVersion, this.roots);
    this.trinityVersion = t.version;
    this.trinityVersionSource = t.source === 'setting' ? opts.trinityVersionSource : t.source === 'installed' ? l10n.t('installed: {0}', t.detail) : undefined;
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
      python: this.python,
      checkPaths: this.opts.checkPaths,
    };
  }

  analyzeText(file: string, text: string, extra: Partial<EngineOptions> = {}): Analysis {
    clearFsCache(); // callers expect what is on disk now
    return analyze(text, path.resolve(file), { ...this.engineOptions(), ...extra });
  }

  async check(file: string, text?: string): Promise<CheckResult> {
    let content = text;
    if (content === undefined) {
      const r = readConfigText(file);
      if ('binary' in r) {
        return {
          file,
          kind: null,
          diagnostics: [{ severity: 'error', code: 'input.binary', message: 'Binary content: not a YAML text file.', path: '', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }],
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
