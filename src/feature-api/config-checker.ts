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

/** Where a dotted key's value is written in a config file. */
export interface KeyLocation {
  /** The value's range (the whole block for a mapping). */
  range: Range;
  /** The key's range. */
  keyRange?: Range;
  /** The value as written (a scalar's source text), undefined for a mapping or a list. */
  text?: string;
}

export interface ConfigChecker {
  /** Checks one file; `text` overrides the file's content on disk (unsaved editor). */
  check(file: string, text?: string): Promise<CheckResult>;
  /** Where `key` (dotted: `explorer.rollout_model.engine_num`) is set in the file (YAML or JSON); undefined when it is not. */
  locate?(file: string, key: string, text?: string): Promise<KeyLocation | undefined>;
}
