// The DAP requests that change a held run: setVariable in the Variables view, and evaluate in
// the Debug Console, which reads a path of the selected turn or, as `lhs = rhs`, edits the
// pending request. Only what the stop holds can change (the request not yet sent, or the
// reply whose tool calls are held); anything else is refused with a message that says so.
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { L10n } from '../../base/l10n';
import type { Episode, Turn } from '../runtime/episode';
import { RolloutRuntime } from '../runtime/rollout-runtime';
import { fail, type Answer } from './answer';
import { evaluationRoot } from './frames';
import type { FrameHandles } from './inspect-requests';
import type { RunHandle } from './launch';
import { absolutePath, getPath, parseEditedValue, parsePath, PathError, setPath, splitAssignment, type PathSegment } from './paths';
import { preview, type EditTarget, type VariableStore } from './variables';

export function setVariable(vars: VariableStore, args: DebugProtocol.SetVariableArguments, l10n: L10n): Answer<DebugProtocol.SetVariableResponse['body']> {
  const c = vars.get(args.variablesReference);
  let root: (() => unknown) | undefined;
  let p: PathSegment[] = [];
  let edit: EditTarget | undefined;
  if (c?.kind === 'nodes') {
    const n = c.nodes.find((x) => x.name === args.name);
    if (n) ({ root, path: p, edit } = n);
  } else if (c) {
    const m = /^\[(\d+)\]$/.exec(args.name);
    root = c.root;
    p = [...c.path, m ? Number(m[1]) : args.name];
    edit = c.edit;
  }
  if (!root || !edit || !edit.allowed()) {
    return fail(2001, l10n.t('Only the pending request (stopped before an LLM call is sent) or the held reply of a tool-call stop can be edited.'), true);
  }
  try {
    const value = parseEditedValue(args.value, getPath(root(), p));
    setPath(edit.edit(), p, value);
    edit.changed?.();
    const v = vars.variable(args.name, root, p, edit);
    return { ok: true, body: { value: v.value, variablesReference: v.variablesReference, indexedVariables: v.indexedVariables, namedVariables: v.namedVariables }, invalidate: true };
  } catch (e) {
    return fail(2002, l10n.t('Cannot set {0}: {1}', args.name, (e as Error).message), true);
  }
}

export function evaluate(runtime: RunHandle | undefined, frames: FrameHandles, vars: VariableStore, args: DebugProtocol.EvaluateArguments, l10n: L10n): Answer<DebugProtocol.EvaluateResponse['body']> {
  const rt = runtime instanceof RolloutRuntime ? runtime : undefined;
  const f = args.frameId !== undefined ? frames.get(args.frameId) : undefined;
  const ep = f?.ep ?? rt?.stop?.episode;
  const turn = f?.turn ?? rt?.stopOf(ep)?.turn;
  if (!rt || !ep) return fail(3001, l10n.t('Evaluate needs a stopped episode (select a frame).'), false);
  const expr = args.expression.trim();
  try {
    const assignment = splitAssignment(expr);
    if (assignment) return assign(rt, ep, turn, assignment.lhs, assignment.rhs, l10n);
    const root = evaluationRoot(ep, turn);
    const p = parsePath(expr);
    getPath(root, p); // throws a readable error when missing
    const v = vars.variable(expr, () => root, p);
    return { ok: true, body: { result: v.value, variablesReference: v.variablesReference, indexedVariables: v.indexedVariables, namedVariables: v.namedVariables, type: v.type } };
  } catch (e) {
    return fail(3002, e instanceof PathError ? e.message : String((e as Error).message ?? e), false);
  }
}

/** `messages[-1].content = "..."` in the Debug Console edits the pending request. */
function assign(rt: RolloutRuntime, ep: Episode, turn: Turn | undefined, lhs: string, rhs: string, l10n: L10n): Answer<DebugProtocol.EvaluateResponse['body']> {
  const held = rt.stopOf(ep);
  if (!turn || turn.kind !== 'llm' || !held || held.turn !== turn || held.editable !== 'request') {
    throw new PathError(l10n.t('assignments edit the pending request: stop before an LLM call (breakpoint "llm") and select its frame'));
  }
  let p = parsePath(lhs);
  if (p[0] === 'request') p = p.slice(1);
  else if (p[0] !== 'messages' && p[0] !== 'tools') throw new PathError(l10n.t('assign to messages[...], tools[...] or request.<field>'));
  const req = turn.sent ?? turn.request;
  p = absolutePath(req, p);
  const value = parseEditedValue(rhs, getPath(req, p));
  setPath(rt.editableRequest(turn), p, value);
  return { ok: true, body: { result: preview(value), variablesReference: 0 }, invalidate: true };
}
