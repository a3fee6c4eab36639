// Episode scheduling: what the Python runner reports on its socket (tasks, episodes starting
// and ending, rewards, exceptions, done) becomes the run's episodes. Apart from the gateway's
// call handling (llm-calls.ts): the two arrive on different sockets, in any order.
import type { EventEmitter } from 'events';
import type { ErrorInfo, RunnerToHost, SourceFrame } from '../model/rollout-protocol';
import type { RunSummary } from '../model/trajectory';
import { newEpisode, type Episode } from './episode';
import type { RuntimeEvents } from './run-options';
import type { CheckEvent } from './stop-policy';

/** What the runner's messages act on: the runtime's episodes, events and stops. */
export interface RunnerMessageHost {
  readonly episodes: Episode[];
  readonly events: EventEmitter<RuntimeEvents>;
  checkpoint(ev: CheckEvent): Promise<void>;
  /** Lets the runner go on past message `id` (a held exception or reward). */
  resumeRunner(id: number): void;
  /** Saves the episode's trajectory (when the run is recorded). */
  writeEpisode(ep: Episode): void;
  finish(status: RunSummary['status'], message?: string): Promise<void>;
  say(category: 'console', text: string): void;
}

export class RunnerMessages {
  /** The episode last started and not yet ended: calls without an episode header go to it. */
  current?: Episode;
  /** Where the workflow's tools are defined (tool turns link to them). */
  symbols: Record<string, SourceFrame> = {};
  /** An error outside any episode (import / task loading): the run failed. */
  private runnerError?: string;

  constructor(private readonly host: RunnerMessageHost) {}

  handle(m: RunnerToHost): void {
    const h = this.host;
    switch (m.type) {
      case 'tasks':
        h.say('console', `Loaded ${m.count} task(s): ${m.ids.slice(0, 20).join(', ')}${m.ids.length > 20 ? ', …' : ''}\n`);
        return;
      case 'symbols':
        this.symbols = m.functions;
        return;
      case 'episodeStart': {
        const ep = newEpisode({ id: m.episode, threadId: h.episodes.length + 1, taskIndex: m.taskIndex, taskId: m.taskId, repeat: m.repeat, task: m.task });
        h.episodes.push(ep);
        this.current = ep;
        h.events.emit('episodeStarted', ep);
        return;
      }
      case 'output':
        h.events.emit('output', { category: m.category, text: m.text, source: m.source });
        return;
      case 'exception': {
        const ep = m.episode ? h.episodes.find((e) => e.id === m.episode) : undefined;
        const turn = { kind: 'exception' as const, error: m.error };
        ep?.turns.push(turn);
        if (!ep) this.runnerError = `${m.error.type}: ${m.error.message}`;
        this.reportTraceback(m.error);
        void h.checkpoint({ type: 'exception', ep, error: m.error }).then(() => h.resumeRunner(m.id));
        return;
      }
      case 'reward': {
        const ep = h.episodes.find((e) => e.id === m.episode);
        if (!ep) return h.resumeRunner(m.id);
        ep.reward = m.reward;
        ep.turns.push({ kind: 'reward', reward: m.reward });
        void h.checkpoint({ type: 'reward', ep, reward: m.reward }).then(() => h.resumeRunner(m.id));
        return;
      }
      case 'episodeEnd': {
        const ep = h.episodes.find((e) => e.id === m.episode);
        if (!ep) return;
        Object.assign(ep, { reward: m.reward, success: m.success, metrics: m.metrics ?? {}, metadata: m.metadata ?? {}, experiences: m.experiences ?? [], error: m.error, endedAt: Date.now() });
        ep.status = m.error ? 'error' : 'done';
        if (this.current === ep) this.current = undefined;
        h.writeEpisode(ep);
        h.events.emit('episodeEnded', ep);
        return;
      }
      case 'done':
        void h.finish(this.runnerError ? 'failed' : 'completed', this.runnerError);
        return;
    }
  }

  /** A Python traceback as output lines that link to their source. */
  private reportTraceback(e: ErrorInfo): void {
    const out = this.host.events;
    out.emit('output', { category: 'stderr', text: `Traceback (most recent call last), ${e.phase} error:\n` });
    for (const f of [...e.traceback].reverse()) {
      out.emit('output', { category: 'stderr', text: `  File "${f.path}", line ${f.line}, in ${f.name ?? '?'}\n`, source: f });
    }
    out.emit('output', { category: 'stderr', text: `${e.type}: ${e.message}\n` });
  }
}
