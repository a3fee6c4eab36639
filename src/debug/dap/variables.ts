// DAP variables over JSON values: lists are paged (indexedVariables) so a 30k-token array
// or a long conversation never loads at once; long strings are previewed; a container
// knows how to reach its value again (after an edit) and whether it may be edited.
import { Handles } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { getPath, type PathSegment } from './paths';
import { valueText } from '../../base/value-text';

/** Where an editable value lives: `root()` re-reads it, `edit()` gives the writable copy. */
export interface EditTarget {
  /** True while the debugger is stopped where this value may change. */
  allowed(): boolean;
  edit(): unknown;
  /** Called after a successful edit. */
  changed?(): void;
}

export interface Node {
  name: string;
  root: () => unknown;
  path: PathSegment[];
  edit?: EditTarget;
  /** Overrides the computed one-line preview. */
  preview?: string;
  /** The variable's context-menu key (`debugProtocolVariableMenuContext` in package.json menus). */
  menuContext?: string;
}

type Container = { kind: 'json'; root: () => unknown; path: PathSegment[]; edit?: EditTarget } | { kind: 'nodes'; nodes: Node[] };

const MAX_STRING_PREVIEW = 4000;

export class VariableStore {
  private handles = new Handles<Container>();

  reset(): void {
    this.handles.reset();
  }

  nodes(nodes: Node[]): number {
    return this.handles.create({ kind: 'nodes', nodes });
  }

  get(ref: number): Container | undefined {
    return this.handles.get(ref);
  }

  /** Children of a container, paged by start/count for lists. */
  variables(ref: number, start = 0, count = 0): DebugProtocol.Variable[] {
    const c = this.handles.get(ref);
    if (!c) return [];
    if (c.kind === 'nodes') {
      return c.nodes.map((n) => {
        const v = this.variable(n.name, n.root, n.path, n.edit, n.preview);
        // VS Code's extension of DAP: the key its variable context menu is chosen by.
        if (n.menuContext) Object.assign(v, { __vscodeVariableMenuContext: n.menuContext });
        return v;
      });
    }
    const value = safeGet(c.root, c.path);
    if (Array.isArray(value)) {
      const end = count > 0 ? Math.min(value.length, start + count) : value.length;
      const out: DebugProtocol.Variable[] = [];
      for (let i = start; i < end; i++) out.push(this.variable(`[${i}]`, c.root, [...c.path, i], c.edit));
      return out;
    }
    if (value && typeof value === 'object') {
      return Object.keys(value).map((k) => this.variable(k, c.root, [...c.path, k], c.edit));
    }
    return [];
  }

  variable(name: string, root: () => unknown, path: PathSegment[], edit?: EditTarget, previewText?: string): DebugProtocol.Variable {
    const value = safeGet(root, path);
    const v: DebugProtocol.Variable = { name, value: previewText ?? preview(value), variablesReference: 0 };
    if (Array.isArray(value) && value.length) {
      v.variablesReference = this.handles.create({ kind: 'json', root, path, edit });
      v.indexedVariables = value.length;
      v.type = `list[${value.length}]`;
    } else if (value && typeof value === 'object' && Object.keys(value).length) {
      v.variablesReference = this.handles.create({ kind: 'json', root, path, edit });
      v.namedVariables = Object.keys(value).length;
      v.type = 'object';
    } else {
      v.type = value === null ? 'null' : typeof value;
    }
    const long = typeof value === 'string' && value.length > MAX_STRING_PREVIEW;
    if (!edit || !edit.allowed()) v.presentationHint = { attributes: ['readOnly'], ...(long ? { lazy: false } : {}) };
    v.evaluateName = pathToExpression(path);
    return v;
  }
}

function safeGet(root: () => unknown, path: PathSegment[]): unknown {
  try {
    return getPath(root(), path);
  } catch {
    return undefined;
  }
}

function pathToExpression(path: PathSegment[]): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? (i ? `.${s}` : s) : `[${JSON.stringify(s)}]`)).join('');
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
}

/** One-line preview of a value, shaped for chat data (messages, tool calls). */
export function preview(value: unknown, width = MAX_STRING_PREVIEW): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return clip(JSON.stringify(value), width);
  if (value === null || typeof value !== 'object') return valueText(value);
  if (Array.isArray(value)) {
    if (value.length && value.every((x) => typeof x === 'number')) return `[${value.length} numbers] ${clip(JSON.stringify(value.slice(0, 12)), 120)}`;
    return `list[${value.length}]`;
  }
  const o = value as Record<string, unknown>;
  if (typeof o.role === 'string') {
    const calls = Array.isArray(o.tool_calls) ? o.tool_calls.map((c) => preview(c, 80)).join(', ') : '';
    const content = typeof o.content === 'string' && o.content ? clip(JSON.stringify(o.content), 160) : '';
    if (o.role === 'tool' && typeof o.tool_call_id === 'string') return `tool ${o.tool_call_id}: ${content || '""'}`;
    return `${o.role}: ${[content, calls].filter(Boolean).join(' ') || (typeof o.tool_call_id === 'string' && o.tool_call_id ? `(result of ${o.tool_call_id})` : '""')}`;
  }
  const fn = o.function as { name?: string; arguments?: string } | undefined;
  if (fn && typeof fn.name === 'string' && typeof fn.arguments !== 'string') return `tool ${fn.name}`;
  if (fn && typeof fn.name === 'string') return `${fn.name}(${clip(fn.arguments ?? '', 80)})`;
  return clip(JSON.stringify(value), 160);
}

/** "23 tokens · mean -0.031 · min -0.568 at 'Paris'" */
export function logprobSummary(content: { token: string; logprob: number }[]): string {
  if (!content.length) return 'no tokens';
  let min = content[0];
  let sum = 0;
  for (const t of content) {
    sum += t.logprob;
    if (t.logprob < min.logprob) min = t;
  }
  return `${content.length} tokens · mean ${(sum / content.length).toFixed(3)} · min ${min.logprob.toFixed(3)} at ${JSON.stringify(min.token)}`;
}
