// The DAP requests that look at a run: threads (episodes, plus the runner for runner-level
// stops), stack traces (turns, newest first), scopes, variables and exception info. Read
// only; what they hand out (frame and variable handles) lives until the run goes on.
import { Handles, Scope, Thread } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { L10n } from '../../base/l10n';
import type { Episode, Turn } from '../runtime/episode';
import { RolloutRuntime } from '../runtime/rollout-runtime';
import { fail, type Answer } from './answer';
import { scopesFor, stackFrame } from './frames';
import type { RunHandle } from './launch';
import type { VariableStore } from './variables';

/** The thread shown for runner-level stops (import / task-loading errors). */
export const RUNNER_THREAD = 1_000_000;

/** Stack frame ids: one per turn shown, valid until the run goes on. */
export type FrameHandles = Handles<{ ep: Episode; turn: Turn }>;

export function threadsBody(rt: RunHandle | undefined, l10n: L10n): DebugProtocol.ThreadsResponse['body'] {
  const threads = (rt?.episodes ?? []).map((ep) => new Thread(ep.threadId, threadName(ep, l10n)));
  const runnerStop = rt instanceof RolloutRuntime ? rt.stopOf(undefined) : rt?.stop && !rt.stop.episode;
  if (!threads.length || runnerStop) threads.push(new Thread(RUNNER_THREAD, l10n.t('runner')));
  return { threads };
}

export function stackTraceBody(rt: RunHandle | undefined, frames: FrameHandles, args: DebugProtocol.StackTraceArguments): DebugProtocol.StackTraceResponse['body'] {
  const ep = rt?.episodeByThread(args.threadId);
  if (!rt || !ep) return { stackFrames: [], totalFrames: 0 };
  const turns = [...ep.turns].reverse();
  const start = args.startFrame ?? 0;
  const end = args.levels ? start + args.levels : turns.length;
  return {
    stackFrames: turns.slice(start, end).map((turn) => stackFrame(frames.create({ ep, turn }), ep, turn)),
    totalFrames: turns.length,
  };
}

export function scopesBody(rt: RunHandle | undefined, frames: FrameHandles, vars: VariableStore, args: DebugProtocol.ScopesArguments, l10n: L10n): DebugProtocol.ScopesResponse['body'] {
  const f = frames.get(args.frameId);
  if (!f || !(rt instanceof RolloutRuntime)) return { scopes: [] };
  return {
    scopes: scopesFor(rt, f.ep, f.turn, l10n).map((s) => {
      const scope = new Scope(s.name, vars.nodes(s.nodes), s.expensive ?? false) as DebugProtocol.Scope;
      if (s.presentationHint) scope.presentationHint = s.presentationHint;
      return scope;
    }),
  };
}

export function variablesBody(vars: VariableStore, args: DebugProtocol.VariablesArguments): DebugProtocol.VariablesResponse['body'] {
  return { variables: vars.variables(args.variablesReference, args.start ?? 0, args.count ?? 0) };
}

export function exceptionInfo(rt: RunHandle | undefined, args: DebugProtocol.ExceptionInfoArguments, l10n: L10n): Answer<DebugProtocol.ExceptionInfoResponse['body']> {
  const ep = rt?.episodeByThread(args.threadId);
  const s = rt instanceof RolloutRuntime ? rt.stopOf(ep) : rt?.stop;
  if (!s?.exception) return fail(4001, l10n.t('no exception on this thread'), false);
  return {
    ok: true,
    body: {
      exceptionId: s.exception.id,
      description: s.exception.description,
      breakMode: 'always',
      details: { message: s.exception.description, typeName: s.exception.id, stackTrace: s.exception.details },
    },
  };
}

function threadName(ep: Episode, l10n: L10n): string {
  if (ep.status === 'running') return ep.id;
  if (ep.error) return `${ep.id} ✗ ${ep.error.type}`;
  return `${ep.id} ✓ ${l10n.t('reward {0}', String(ep.reward ?? 'none'))}`;
}
