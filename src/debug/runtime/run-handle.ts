// What the debug session and `agentrl rollout` see of a run, whichever kind it is: the native
// runtime (rollout-runtime.ts: stepping, edits, replay) or an upstream backbone's run
// (backbones/upstream-backbones.ts: its output, then its imported results). Both implement
// RunHandle; their users react to its events (RunEvents), as a DAP session reacts to its runtime.
import type { EventEmitter } from 'events';
import type { SourceFrame } from '../trajectory/runner-protocol';
import type { RolloutSummary } from '../trajectory/trajectory';
import type { EventBreakpoint, ExceptionFilter } from './breakpoints';
import type { DebugRunTokenizers } from '../tokens/run-tokenizer';
import type { Episode } from './episode';
import type { ResumeMode, StopInfo } from './stop-policy';

/** One line of output: the Debug Console's categories, linked to its source when known. */
export type RunOutput = { category: 'stdout' | 'stderr' | 'console' | 'important'; text: string; source?: SourceFrame };

export interface RunEvents {
  /** An episode (or, without one, the runner) stopped and waits for resume(). */
  stopped: [StopInfo];
  continued: [];
  output: [RunOutput];
  episodeStarted: [Episode];
  /** What the episode is doing now ("LLM call #2", "tool get_weather"). */
  episodeProgress: [Episode, string];
  episodeEnded: [Episode];
  /** The runner listens for a Python debugger: attach a child session there. */
  pythonDebugger: [{ host: string; port: number }];
  ended: [RolloutSummary | undefined];
}

export interface RunHandle extends EventEmitter<RunEvents> {
  readonly episodes: readonly Episode[];
  /** Set when the run has ended. */
  readonly summary?: RolloutSummary;
  /** Where the run is saved (undefined: not saved). */
  readonly runDir?: string;
  /** Resolves once the run is going (it ends later: the `ended` event). */
  start(): Promise<void>;
  /** Ends the run: releases what it holds, stops its processes, saves what it recorded. */
  terminate(): Promise<void>;
  setBreakpoints(bps: EventBreakpoint[]): void;
  setExceptionFilters(filters: ExceptionFilter[]): void;
  /** Headless runs (`agentrl rollout`): record everything, never stop. */
  disableStops(): void;
  /** The most recent stop still held (the one the UI focuses). */
  readonly stop: StopInfo | undefined;
  /** The stop held on `ep` (undefined: the runner-level stop). */
  stopOf(ep: Episode | undefined): StopInfo | undefined;
  /** Resumes `episode` (default: the most recent stop's); the other episodes keep their stops. */
  resume(mode: ResumeMode, episode?: Episode): void;
  /** Stops `episode` (default: every running episode) at its next event. */
  pause(episode?: Episode): void;
  episodeByThread(threadId: number): Episode | undefined;
  /** The tokenizer of the run's model (a native run; upstream backbones have none). */
  readonly tokenizers?: DebugRunTokenizers;
}
