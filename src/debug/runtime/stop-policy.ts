// Where the rollout debugger stops: event breakpoints, exception filters, stepping and
// pause, per episode (concurrent episodes step and pause on their own). Pure decisions:
// the runtime holds the stops and the calls they keep waiting.
import { english, type L10n } from '../../base/l10n';
import type { ErrorInfo } from '../trajectory/runner-protocol';
import { matches, type BreakEvent, type EventBreakpoint, type ExceptionFilter } from './breakpoints';
import type { Episode, LlmTurn, ToolTurn, EpisodeTurn } from './episode';

export type StopReason = 'breakpoint' | 'step' | 'pause' | 'exception' | 'entry';
export type ResumeMode = 'continue' | 'next' | 'stepIn' | 'stepOut';

export interface StopInfo {
  reason: StopReason;
  episode?: Episode;
  turn?: EpisodeTurn;
  description: string;
  text?: string;
  /** What setVariable may change while stopped here. */
  editable?: 'request' | 'response';
  exception?: { id: string; description: string; details?: string };
}

/** An event the runtime asks about: stop here or not. */
export type CheckEvent =
  | { type: 'llm'; ep: Episode; turn: LlmTurn }
  | { type: 'tool'; ep: Episode; turn: ToolTurn }
  | { type: 'toolError'; ep: Episode; turn: ToolTurn }
  | { type: 'upstreamError'; ep: Episode; turn: LlmTurn }
  | { type: 'divergence'; ep: Episode; turn: LlmTurn }
  | { type: 'drift'; ep: Episode; turn: LlmTurn }
  | { type: 'exception'; ep?: Episode; error: ErrorInfo }
  | { type: 'reward'; ep: Episode; reward: number | null };

export class StopPolicy {
  private breakpoints: EventBreakpoint[] = [];
  private filters = new Set<ExceptionFilter>(['workflow', 'judge', 'upstream']);
  /** Stepping, per episode that was resumed with next / stepIn / stepOut (undefined: any). */
  private readonly steps = new Map<Episode | undefined, Exclude<ResumeMode, 'continue'>>();
  private pauseAll = false;
  private readonly pauseOne = new Set<Episode>();

  constructor(private readonly l10n: L10n = english) {}

  setBreakpoints(bps: EventBreakpoint[]): void {
    this.breakpoints = bps;
  }

  setExceptionFilters(filters: ExceptionFilter[]): void {
    this.filters = new Set(filters);
  }

  /** Stops `episode` (default: every running episode) at its next event. */
  pause(episode?: Episode): void {
    if (episode) this.pauseOne.add(episode);
    else this.pauseAll = true;
  }

  /** `episode` (undefined: a runner-level stop) was resumed with `mode`. */
  resumed(mode: ResumeMode, episode: Episode | undefined): void {
    if (mode === 'continue') this.steps.delete(episode);
    else this.steps.set(episode, mode);
    this.pauseAll = false;
    if (episode) this.pauseOne.delete(episode);
  }

  decide(ev: CheckEvent): StopInfo | undefined {
    const ep = ev.ep;
    switch (ev.type) {
      case 'exception': {
        const filter: ExceptionFilter = ev.error.phase === 'judge' ? 'judge' : 'workflow';
        if (!this.filters.has(filter)) return undefined;
        const l10n = this.l10n;
        const where =
          ev.error.phase === 'judge'
            ? l10n.t('The judge / reward function raised')
            : ev.error.phase === 'workflow'
              ? l10n.t('The workflow raised')
              : l10n.t('Runner {0} error', ev.error.phase);
        return {
          reason: 'exception',
          episode: ep,
          turn: ep?.turns[ep.turns.length - 1],
          description: `${where} ${ev.error.type}: ${ev.error.message}`,
          text: ev.error.message,
          exception: { id: ev.error.type, description: `${where}: ${ev.error.type}: ${ev.error.message}`, details: ev.error.text },
        };
      }
      case 'upstreamError':
        if (!this.filters.has('upstream')) return undefined;
        return {
          reason: 'exception',
          episode: ep,
          turn: ev.turn,
          description: this.l10n.t('Upstream {0} error: {1}', ev.turn.error!.kind, ev.turn.error!.message),
          exception: { id: `upstream.${ev.turn.error!.kind}`, description: ev.turn.error!.message },
        };
      case 'drift':
        if (!this.filters.has('drift')) return undefined;
        return {
          reason: 'exception',
          episode: ep,
          turn: ev.turn,
          description: ev.turn.drift!.join('\n'),
          exception: { id: 'tokens.drift', description: ev.turn.drift!.join('\n') },
        };
      case 'divergence':
        return {
          reason: 'exception',
          episode: ep,
          turn: ev.turn,
          description: ev.turn.divergence!.message,
          exception: { id: 'replay.divergence', description: ev.turn.divergence!.message, details: ev.turn.divergence!.diff },
        };
    }
    const editable = ev.type === 'llm' ? 'request' : ev.type === 'tool' ? 'response' : undefined;
    const turn: EpisodeTurn | undefined = ev.type === 'reward' ? ev.ep.turns[ev.ep.turns.length - 1] : ev.turn;
    const what = this.describe(ev);
    if (this.pauseAll || (ep && this.pauseOne.delete(ep)))
      return { reason: 'pause', episode: ep, turn, editable, description: this.l10n.t('Paused at {0}', what) };
    const stepKey = this.steps.has(ep) ? ep : undefined; // a step from a runner-level stop: any episode
    const mode = this.steps.get(stepKey);
    const hit =
      (mode === 'stepIn' && ev.type !== 'toolError') ||
      (mode === 'next' && (ev.type === 'llm' || ev.type === 'reward')) ||
      (mode === 'stepOut' && ev.type === 'reward');
    if (hit) {
      this.steps.delete(stepKey);
      return { reason: 'step', episode: ep, turn, editable, description: what };
    }
    // A step out of a finished episode lands on the next LLM call of another one.
    const done = ev.type === 'llm' ? [...this.steps.keys()].find((e) => e && e !== ep && e.status !== 'running') : undefined;
    if (done) {
      this.steps.delete(done);
      return { reason: 'step', episode: ep, turn, editable, description: what };
    }
    const bev: BreakEvent =
      ev.type === 'llm'
        ? { type: 'llm', turn: ev.turn.index + 1 }
        : ev.type === 'tool'
          ? { type: 'tool', name: ev.turn.name }
          : ev.type === 'toolError'
            ? { type: 'toolError', name: ev.turn.name }
            : { type: 'reward', reward: ev.reward };
    const bp = this.breakpoints.find((b) => matches(b, bev));
    if (bp) return { reason: 'breakpoint', episode: ep, turn, editable, description: what };
    return undefined;
  }

  private describe(ev: CheckEvent): string {
    const l10n = this.l10n;
    switch (ev.type) {
      case 'llm':
        return ev.turn.role
          ? l10n.t('{0} {1} call #{2} (request pending)', ev.ep.id, ev.turn.role, ev.turn.index + 1)
          : l10n.t('{0} LLM call #{1} (request pending)', ev.ep.id, ev.turn.index + 1);
      case 'tool':
        return l10n.t('{0} tool call {1}({2})', ev.ep.id, ev.turn.name, ev.turn.arguments);
      case 'toolError':
        return l10n.t('{0} tool error in {1}', ev.ep.id, ev.turn.name);
      case 'reward':
        return l10n.t('{0} finished, reward {1}', ev.ep.id, String(ev.reward ?? 'none'));
      default:
        return ev.type;
    }
  }
}
