// What the debugger's UI does to a run while it goes: breakpoints, stops, stepping, pause,
// and edits at a stop. The base of RolloutRuntime, apart from the run's lifecycle (runner,
// gateway, recording) so each reads on its own; HeldStops does the holding.
import { EventEmitter } from 'events';
import type { L10n } from '../../base/l10n';
import type { ChatCompletion, ChatRequest } from '../model/trajectory';
import type { EventBreakpoint, ExceptionFilter } from './breakpoints';
import { editableRequest, editableResponse, syncToolTurns } from './edit-copies';
import type { Episode, LlmTurn } from './episode';
import { HeldStops } from './held-stops';
import type { RuntimeEvents } from './run-options';
import type { ResumeMode, StopInfo } from './stop-policy';

export abstract class SteppableRun extends EventEmitter<RuntimeEvents> {
  readonly episodes: Episode[] = [];
  protected readonly stops: HeldStops;
  /** Set once the run is stopped by the user: nothing stops any more, held calls let go. */
  protected terminated = false;

  constructor(l10n: L10n | undefined) {
    super();
    this.stops = new HeldStops(l10n, () => this.terminated, (s) => this.emit('stopped', s));
  }

  get isTerminated(): boolean {
    return this.terminated;
  }

  /** The most recent stop still held (the one the UI focuses). */
  get stop(): StopInfo | undefined {
    return this.stops.latest;
  }

  /** The stop held on `ep` (undefined: the runner-level stop). */
  stopOf(ep: Episode | undefined): StopInfo | undefined {
    return this.stops.of(ep);
  }

  setBreakpoints(bps: EventBreakpoint[]): void {
    this.stops.setBreakpoints(bps);
  }

  setExceptionFilters(filters: ExceptionFilter[]): void {
    this.stops.setExceptionFilters(filters);
  }

  /** Headless runs (`agentrl rollout`): record everything, never stop. */
  disableStops(): void {
    this.stops.disable();
  }

  episodeByThread(threadId: number): Episode | undefined {
    return this.episodes.find((e) => e.threadId === threadId);
  }

  /** Resumes `episode` (default: the most recent stop's); the other episodes keep their stops. */
  resume(mode: ResumeMode, episode?: Episode): void {
    this.stops.resume(mode, episode);
    this.emit('continued');
    this.stops.release();
  }

  /** Stops `episode` (default: every running episode) at its next event. */
  pause(episode?: Episode): void {
    this.stops.pause(episode);
  }

  /** The pending request, copied on first edit so the original stays recorded. */
  editableRequest(turn: LlmTurn): ChatRequest {
    return editableRequest(turn);
  }

  /** The held reply, copied on first edit so the model's own reply stays recorded. */
  editableResponse(turn: LlmTurn): ChatCompletion {
    return editableResponse(turn);
  }

  /** Keeps tool turns in line with an edited reply. */
  syncToolTurns(ep: Episode, turn: LlmTurn): void {
    syncToolTurns(ep, turn);
  }
}
