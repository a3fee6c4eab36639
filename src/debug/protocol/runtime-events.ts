// The run's events as DAP events: output (linked to its source line), threads coming and
// going, per-episode progress, stops (only the stopped episode waits), and the end. Apart
// from the session's request handlers: this is the other direction, runtime to client.
import { OutputEvent, ProgressEndEvent, ProgressStartEvent, ProgressUpdateEvent, Source, StoppedEvent, ThreadEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as path from 'path';
import type { L10n } from '../../base/l10n';
import { RolloutRuntime, type StopInfo } from '../runtime/rollout-runtime';
import { RUNNER_THREAD } from './inspect-requests';
import type { RunHandle } from './launch';

/** Where the events go: the session, seen from here. */
export interface EventSink {
  readonly l10n: L10n;
  /** The client asked for progress events (initialize's supportsProgressReporting). */
  readonly progress: boolean;
  send(e: DebugProtocol.Event): void;
  clientLine(line: number): number;
  console(text: string, category?: string): void;
  /** No episode is stopped any more: frame and variable handles may go. */
  resetHandles(): void;
  ended(): void;
  /** Attaches the child debugpy session (undefined: this host cannot). */
  startPythonDebugger(endpoint: { host: string; port: number }): Promise<boolean> | undefined;
}

export function wireRuntime(rt: RunHandle, sink: EventSink): void {
  const l10n = sink.l10n;
  rt.on('output', (o) => {
    const e = new OutputEvent(o.text, o.category) as DebugProtocol.OutputEvent;
    if (o.source) {
      e.body.source = new Source(path.basename(o.source.path), o.source.path);
      e.body.line = sink.clientLine(o.source.line);
    }
    sink.send(e);
  });
  rt.on('episodeStarted', (ep) => {
    sink.send(new ThreadEvent('started', ep.threadId));
    if (sink.progress) sink.send(new ProgressStartEvent(`episode-${ep.threadId}`, `Rollout ${ep.id}`, 'starting'));
  });
  rt.on('episodeProgress', (ep, message) => {
    if (sink.progress) sink.send(new ProgressUpdateEvent(`episode-${ep.threadId}`, message));
  });
  rt.on('episodeEnded', (ep) => {
    if (sink.progress) sink.send(new ProgressEndEvent(`episode-${ep.threadId}`, ep.error ? l10n.t('error: {0}', ep.error.message) : l10n.t('reward {0}', String(ep.reward ?? 'none'))));
    const text = ep.error ? l10n.t('{0}: {1} error {2}: {3}', ep.id, ep.error.phase, ep.error.type, ep.error.message) + '\n' : l10n.t('{0}: reward {1}', ep.id, String(ep.reward ?? 'none')) + '\n';
    sink.console(text);
  });
  rt.on('stopped', (s) => sink.send(stoppedEvent(s)));
  rt.on('continued', () => {
    // Other episodes may still be stopped: their frames stay valid until none is.
    if (rt instanceof RolloutRuntime && rt.stop) return;
    sink.resetHandles();
  });
  rt.on('pythonDebugger', (endpoint) => {
    void sink.startPythonDebugger(endpoint)?.then((ok) => {
      if (!ok) sink.console(l10n.t('The Python debugger session could not attach; Python breakpoints are off for this run.') + '\n', 'important');
    });
  });
  rt.on('ended', () => sink.ended());
}

function stoppedEvent(s: StopInfo): DebugProtocol.StoppedEvent {
  const threadId = s.episode?.threadId ?? RUNNER_THREAD;
  const ev = new StoppedEvent(s.reason, threadId, s.text) as DebugProtocol.StoppedEvent;
  ev.body.description = s.description;
  // Only this episode waits; the others keep running (and recording).
  ev.body.allThreadsStopped = false;
  return ev;
}
