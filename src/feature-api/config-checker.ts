// The config engine as other features see it. The engine lives in src/config (pure, no
// vscode); features that need it (the debugger resolving a launch config, the rollout CLI)
// receive an implementation of ConfigChecker from extension.ts / cli.ts instead of importing
// src/config directly, so features never import each other.

export type ConfigKind = 'trinity' | 'astuner' | 'ajet';
export type Severity = 'error' | 'warning' | 'info';

/** 0-based line/character, as in LSP. */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

/** One finding; the same shape `agentrl check --format json` prints. */
export interface CheckDiagnostic {
  severity: Severity;
  /** Stable rule id, e.g. `schema.unknown-key`, `rule.batch-divisible`. */
  code: string;
  message: string;
  /** Dotted path of the offending key, e.g. `buffer.explorer_input.taskset.path`. */
  path: string;
  range: Range;
}

export interface CheckResult {
  file: string;
  kind: ConfigKind | null;
  diagnostics: CheckDiagnostic[];
  /** The document as a plain object with `${...}` interpolations resolved where possible
   *  (undefined when the file is not an RL config or does not parse). */
  resolved?: unknown;
}

export interface ConfigChecker {
  /** Checks one file; `text` overrides the file's content on disk (unsaved editor). */
  check(file: string, text?: string): Promise<CheckResult>;
}
