// The gateway's side of the rollout debugger: each LLM call the workflow makes becomes a turn
// of its episode, checked for stops (before it is sent, on errors, on the tool calls of its
// reply), forwarded to its model (or checked against a replayed run), recorded, and answered.
// Apart from runner messages (runner-messages.ts), which create the episodes these calls join.
import type { SourceFrame } from '../model/rollout-protocol';
import type { ChatRequest } from '../model/trajectory';
import type { CallOutcome, IncomingCall } from '../gateway/server';
import type { ReplayUpstream } from '../gateway/replay';
import type { ChatUpstream } from '../gateway/model-endpoint';
import { applyEdits, mergeEdits, messageEdits } from './edits';
import { isToolError } from './breakpoints';
import { deliveredOf, toolCallsOf, type Episode, type LlmTurn, type ToolTurn } from './episode';
import type { RunWriter } from './run-writer';
import type { CheckEvent } from './stop-policy';

/** What call handling needs from the run it belongs to. */
export interface CallHost {
  readonly episodes: readonly Episode[];
  readonly replay?: ReplayUpstream;
  /** The episode calls without an episode header belong to. */
  current(): Episode | undefined;
  /** Where the workflow's tools are defined (tool turns link to them). */
  symbols(): Record<string, SourceFrame>;
  /** The session has ended: calls are cancelled. */
  ended(): boolean;
  upstreamFor(role: string | undefined): ChatUpstream;
  checkpoint(ev: CheckEvent): Promise<void>;
  progress(ep: Episode, what: string): void;
  say(category: 'important' | 'stderr', text: string): void;
  writer(): RunWriter | undefined;
}

export class LlmCalls {
  /** Calls answered and tokens used, for the run's summary. */
  readonly totals = { calls: 0, prompt: 0, completion: 0 };
  private readonly inflight = new Set<AbortController>();

  constructor(private readonly host: CallHost) {}

  /** Cancels the calls on their way to a model (the session ended). */
  abortAll(): void {
    for (const c of this.inflight) c.abort();
  }

  async handle(call: IncomingCall): Promise<CallOutcome> {
    const h = this.host;
    const ep = await this.episodeFor(call);
    if (!ep) return { ok: false, error: { kind: 'upstream', status: 400, message: 'LLM call outside of any episode' } };
    if (h.ended()) return { ok: false, error: { kind: 'cancelled', status: 499, message: 'the debug session has ended' } };
    const role = call.role;
    const roleKey = role ?? '';
    ep.llmCalls++;
    const index = (ep.callCounts[roleKey] = (ep.callCounts[roleKey] ?? 0) + 1) - 1;
    const turn: LlmTurn = {
      kind: 'llm', index, ...(role ? { role } : {}), request: call.request, state: 'pending', stack: call.stack,
      startedAt: new Date().toISOString(), stream: call.request.stream === true,
    };
    // An edited message stays edited for the rest of the episode.
    const carried = applyEdits(call.request, ep.edits);
    if (carried) Object.assign(turn, { sent: carried, carried: true });
    await this.collectToolResults(ep, call.request);
    ep.turns.push(turn);
    h.progress(ep, `LLM call #${turn.index + 1}`);
    const replay = h.replay;
    if (replay) {
      const check = replay.verify(ep.id, turn.index, call.request, role);
      if (!check.ok) {
        turn.divergence = { message: check.message, diff: check.diff };
        turn.error = { kind: 'divergence', status: 409, message: `${check.message}\n${check.diff}` };
        turn.state = 'error';
        h.say('important', `${check.message}\n${check.diff}\n`);
        await h.checkpoint({ type: 'divergence', ep, turn });
        return this.complete(ep, turn);
      }
    }
    await h.checkpoint({ type: 'llm', ep, turn });
    if (h.ended()) return this.cancelled(ep, turn);
    if (turn.sent) mergeEdits(ep.edits, messageEdits(turn.request, turn.sent));
    turn.state = 'inflight';
    // Cancelled by the workflow hanging up from here on, or by terminate(). (A hang-up while
    // the call was held does not cancel it: it is still made and recorded.)
    const abort = call.abort.signal.aborted ? new AbortController() : call.abort;
    this.inflight.add(abort);
    const t0 = performance.now();
    const result = await h.upstreamFor(role).complete(turn.sent ?? turn.request, { episode: ep.id, index: turn.index, ...(role ? { role } : {}), original: turn.request, signal: abort.signal });
    turn.latencyMs = performance.now() - t0;
    ep.llmMs += turn.latencyMs;
    this.inflight.delete(abort);
    if (!result.ok) {
      turn.error = result.error;
      turn.state = 'error';
      if (h.ended()) return this.complete(ep, turn);
      h.say('stderr', `${ep.id} LLM call #${turn.index + 1} failed: ${result.error.message}\n`);
      await h.checkpoint({ type: 'upstreamError', ep, turn });
      return this.complete(ep, turn, result.body);
    }
    turn.response = result.response;
    turn.chunks = result.chunks;
    const usage = result.response.usage;
    if (usage) {
      ep.tokens.prompt += usage.prompt_tokens ?? 0;
      ep.tokens.completion += usage.completion_tokens ?? 0;
      this.totals.prompt += usage.prompt_tokens ?? 0;
      this.totals.completion += usage.completion_tokens ?? 0;
    }
    const fallback = turn.stack[0];
    const symbols = h.symbols();
    const tools: ToolTurn[] = toolCallsOf(result.response).map((c, callIndex) => ({
      kind: 'tool', llmIndex: turn.index, callIndex, ...(turn.role ? { role: turn.role } : {}), id: c.id, name: c.function?.name ?? '?', arguments: c.function?.arguments ?? '', source: symbols[c.function?.name] ?? fallback,
    }));
    ep.turns.push(...tools);
    for (const t of tools) {
      if (h.ended()) break;
      h.progress(ep, `tool ${t.name}`);
      await h.checkpoint({ type: 'tool', ep, turn: t });
    }
    turn.state = 'done';
    return this.complete(ep, turn);
  }

  /** The call's episode. The runner's episodeStart travels on another socket and may
   *  arrive after the call, so a named episode is waited for briefly. */
  private async episodeFor(call: IncomingCall): Promise<Episode | undefined> {
    if (!call.episode) return this.host.current();
    for (let waited = 0; waited < 3000; waited += 10) {
      const ep = this.host.episodes.find((e) => e.id === call.episode);
      if (ep) return ep;
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.host.current();
  }

  /** Records the call and gives the workflow its answer. */
  private complete(ep: Episode, turn: LlmTurn, body?: unknown): CallOutcome {
    this.totals.calls++;
    if (turn.userEdited && !ep.forkAt) ep.forkAt = { index: turn.index, ...(turn.role ? { role: turn.role } : {}) };
    this.host.writer()?.recordCall({
      episode: ep.id, index: turn.index, ...(turn.role ? { role: turn.role } : {}), request: turn.request,
      ...(turn.sent ? { sent: turn.sent } : {}),
      ...(turn.response ? { response: turn.response } : {}),
      ...(turn.chunks ? { chunks: turn.chunks } : {}),
      ...(turn.delivered ? { delivered: turn.delivered } : {}),
      ...(turn.error ? { error: turn.error } : {}),
      stream: turn.stream, startedAt: turn.startedAt, latencyMs: Math.round((turn.latencyMs ?? 0) * 1000) / 1000, stack: turn.stack,
    });
    if (turn.error) return { ok: false, error: turn.error, body };
    const delivered = deliveredOf(turn)!;
    return { ok: true, response: delivered, chunks: turn.delivered ? undefined : turn.chunks };
  }

  private cancelled(ep: Episode, turn: LlmTurn): CallOutcome {
    turn.error = { kind: 'cancelled', status: 499, message: 'the debug session has ended' };
    turn.state = 'error';
    return this.complete(ep, turn);
  }

  /** Tool results arrive with the next request (role "tool" messages). */
  private async collectToolResults(ep: Episode, request: ChatRequest): Promise<void> {
    if (!request.messages?.some((m) => m?.role === 'tool' && m.tool_call_id)) return;
    const open = new Map<string, ToolTurn>();
    for (const t of ep.turns) if (t.kind === 'tool' && t.result === undefined) open.set(t.id, t);
    if (!open.size) return;
    for (const m of request.messages ?? []) {
      const t = m.role === 'tool' && m.tool_call_id ? open.get(m.tool_call_id) : undefined;
      if (!t) continue;
      t.result = m.content;
      t.error = isToolError(m.content);
      if (t.error) await this.host.checkpoint({ type: 'toolError', ep, turn: t });
    }
  }
}
