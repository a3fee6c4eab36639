// Event breakpoints of the rollout debugger, written as DAP function breakpoints (or in
// launch.json "breakOn"):  llm · tool · tool:<name> · error · reward<x · reward>x · turn>N
// and the exception filters the Breakpoints view offers.
import { english, type L10n } from '../../base/l10n';

export type EventBreakpoint =
  { kind: 'llm' } | { kind: 'tool'; name?: string } | { kind: 'error' } | { kind: 'reward'; op: '<' | '>'; value: number } | { kind: 'turn'; above: number };

export type ParsedBreakpoint = { ok: true; bp: EventBreakpoint; text: string } | { ok: false; text: string; message: string };

const BREAKPOINT_HELP = 'llm, tool, tool:<name>, error, reward<x, reward>x, turn>N';

export function parseBreakpoint(raw: string): ParsedBreakpoint {
  const text = raw.trim();
  const s = text.replace(/\s+/g, '');
  if (s === 'llm') return { ok: true, bp: { kind: 'llm' }, text };
  if (s === 'tool') return { ok: true, bp: { kind: 'tool' }, text };
  if (s === 'error') return { ok: true, bp: { kind: 'error' }, text };
  let m = /^tool:(.+)$/.exec(s);
  if (m) return { ok: true, bp: { kind: 'tool', name: m[1] }, text };
  m = /^reward([<>])(-?\d+(?:\.\d+)?(?:e-?\d+)?)$/i.exec(s);
  if (m) return { ok: true, bp: { kind: 'reward', op: m[1] as '<' | '>', value: Number(m[2]) }, text };
  m = /^turn>(\d+)$/.exec(s);
  if (m) return { ok: true, bp: { kind: 'turn', above: Number(m[1]) }, text };
  return { ok: false, text, message: `unknown rollout breakpoint '${text}': use ${BREAKPOINT_HELP}` };
}

export type ExceptionFilter = 'workflow' | 'judge' | 'upstream' | 'drift';

/** The exception filters with their labels in the user's language. */
export function exceptionFilters(l10n: L10n = english): { filter: ExceptionFilter; label: string; description: string; default: boolean }[] {
  return [
    {
      filter: 'workflow',
      label: l10n.t('Workflow exceptions'),
      description: l10n.t('Stop when the workflow raises (also import and task-loading errors)'),
      default: true,
    },
    { filter: 'judge', label: l10n.t('Judge / reward errors'), description: l10n.t('Stop when the reward function or judge raises'), default: true },
    {
      filter: 'upstream',
      label: l10n.t('Upstream model errors'),
      description: l10n.t('Stop when the model endpoint fails, times out or answers malformed JSON'),
      default: true,
    },
    {
      filter: 'drift',
      label: l10n.t('Retokenization drift'),
      description: l10n.t(
        'Stop when the chat template gives other tokens than the engine saw or generated for a call (what a re-tokenizing trainer would train on)',
      ),
      default: false,
    },
  ];
}

export const EXCEPTION_FILTERS = exceptionFilters();

/** The events a breakpoint can match. */
export type BreakEvent =
  { type: 'llm'; turn: number } | { type: 'tool'; name: string } | { type: 'toolError'; name: string } | { type: 'reward'; reward: number | null };

export function matches(bp: EventBreakpoint, ev: BreakEvent): boolean {
  switch (bp.kind) {
    case 'llm':
      return ev.type === 'llm';
    case 'turn':
      return ev.type === 'llm' && ev.turn > bp.above;
    case 'tool':
      return ev.type === 'tool' && (!bp.name || bp.name === ev.name);
    case 'error':
      return ev.type === 'toolError';
    case 'reward':
      return ev.type === 'reward' && ev.reward !== null && (bp.op === '<' ? ev.reward < bp.value : ev.reward > bp.value);
  }
}

/** Heuristic: a tool result that reports a failure. */
export function isToolError(content: unknown): boolean {
  let v = content;
  if (Array.isArray(v)) v = v.map((p) => (typeof p === 'string' ? p : ((p as { text?: string })?.text ?? ''))).join('');
  if (typeof v !== 'string') return false;
  const t = v.trim();
  if (/^(error|exception|traceback)\b/i.test(t)) return true;
  try {
    const j = JSON.parse(t) as unknown;
    return !!j && typeof j === 'object' && !Array.isArray(j) && !!(j as { error?: unknown }).error;
  } catch {
    return false;
  }
}
