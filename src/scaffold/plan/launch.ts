// launch.json entries for the `agentrl` debugger and their merge into an existing
// .vscode/launch.json with jsonc-parser (the library VS Code itself uses): comments, formatting
// and every existing entry stay as they are; the new entries are appended.
import { applyEdits, findNodeAtLocation, modify, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as path from 'path';
import type { L10n } from '../../base/l10n';
import { ScaffoldError } from './errors';
import type { LaunchSpec } from '../templates/types';
import { isLoopbackUrl } from '../../base/loopback';

/** The debug type contributed by the rollout debugger (package.json contributes.debuggers). */
export const DEBUG_TYPE = 'agentrl';
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8000/v1';
const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';

export interface AgentRlLaunch {
  type: typeof DEBUG_TYPE;
  request: 'launch';
  name: string;
  config: string;
  cwd: string;
  workflow?: string;
  tasks?: number;
  model: { baseUrl: string; name: string; apiKeyEnv?: string };
  breakOn: string[];
}

/** `${workspaceFolder}/<rel>` for a path relative to the launch root; refuses to leave the root. */
function inWorkspace(rel: string): string {
  const p = path.posix.normalize(rel);
  if (p === '..' || p.startsWith('../') || path.posix.isAbsolute(p)) throw new Error(`launch path leaves the workspace folder: ${rel}`);
  return p === '.' ? '${workspaceFolder}' : `\${workspaceFolder}/${p}`;
}

/**
 * The template's launch entries for a project at `projectRel` (posix path from the folder whose
 * .vscode/launch.json gets them). The model is asked for by name at `baseUrl`.
 */
export function launchEntries(specs: readonly LaunchSpec[], projectRel: string, model: string, baseUrl = DEFAULT_BASE_URL): AgentRlLaunch[] {
  return specs.map((s) => ({
    type: DEBUG_TYPE,
    request: 'launch',
    name: s.name,
    config: inWorkspace(path.posix.join(projectRel, s.config)),
    cwd: inWorkspace(path.posix.join(projectRel, s.cwd)),
    ...(s.workflow ? { workflow: s.workflow } : {}),
    ...(s.tasks ? { tasks: s.tasks } : {}),
    // A local server needs no key: asking for one only stops the first F5 with a modal.
    model: isLoopbackUrl(baseUrl) ? { baseUrl, name: model } : { baseUrl, name: model, apiKeyEnv: DEFAULT_API_KEY_ENV },
    // Like the sandbox's sample: the first F5 stops before the first LLM call, so the run is seen, not just its end.
    breakOn: ['llm'],
  }));
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Indentation of the existing file (tabs or N spaces), so inserted entries look like the rest. */
function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indents = text
    .split(/\r?\n/)
    .map((l) => /^[ \t]+(?=\S)/.exec(l)?.[0])
    .filter((x): x is string => !!x);
  if (indents.some((i) => i.startsWith('\t'))) return { insertSpaces: false, tabSize: 4, eol };
  const sizes = indents.map((i) => i.length);
  return { insertSpaces: true, tabSize: sizes.length ? Math.min(...sizes) : 4, eol };
}

/** A name not yet taken by an entry of the file: "X", else "X (2)", "X (3)"... */
function freeName(name: string, taken: Set<string>): string {
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name} (${i})`)) return `${name} (${i})`;
}

export interface LaunchMerge {
  text: string;
  /** Names of the added entries (renamed when the file already had one of that name). */
  names: string[];
}

/** Appends `entries` to launch.json `existing` (undefined: the file does not exist yet). */
export function mergeLaunchJson(existing: string | undefined, entries: readonly AgentRlLaunch[], l10n: L10n, fileLabel = 'launch.json'): LaunchMerge {
  if (existing === undefined || existing.trim() === '') {
    const doc = { version: '0.2.0', configurations: entries };
    return { text: JSON.stringify(doc, null, 4) + '\n', names: entries.map((e) => e.name) };
  }
  const errors: ParseError[] = [];
  const root = parseTree(existing, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || !root) {
    const e = errors[0];
    const where = e ? lineOf(existing, e.offset) : 1;
    const what = e ? printParseErrorCode(e.error) : 'empty';
    throw new ScaffoldError(
      l10n.t('{0} has a syntax error (line {1}: {2}); fix it, then create the workflow again. Nothing was changed.', fileLabel, where, what),
    );
  }
  if (root.type !== 'object')
    throw new ScaffoldError(l10n.t('{0} is not a JSON object; fix it, then create the workflow again. Nothing was changed.', fileLabel));
  const configurations = findNodeAtLocation(root, ['configurations']);
  if (configurations && configurations.type !== 'array') {
    throw new ScaffoldError(l10n.t('"configurations" in {0} is not a list; fix it, then create the workflow again. Nothing was changed.', fileLabel));
  }
  const taken = new Set<string>();
  for (const c of configurations?.children ?? []) {
    const n = findNodeAtLocation(c, ['name']);
    if (n && typeof n.value === 'string') taken.add(n.value);
  }
  const named = entries.map((e) => {
    const name = freeName(e.name, taken);
    taken.add(name);
    return { ...e, name };
  });
  const formattingOptions = formattingOf(existing);
  let text = existing;
  if (!configurations) {
    text = applyEdits(text, modify(text, ['configurations'], named, { formattingOptions }));
  } else {
    for (const entry of named) {
      text = applyEdits(text, modify(text, ['configurations', -1], entry, { formattingOptions, isArrayInsertion: true }));
    }
  }
  return { text, names: named.map((e) => e.name) };
}
