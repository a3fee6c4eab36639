// The gateway's side of the rollout debugger: each LLM call the workflow makes becomes a turn
// of its episode, checked for stops (before it is sent, on errors, on the tool calls of its
// reply), forwarded to its model (or checked against a replayed run), recorded, and answered.
// The episodes it joins come from the runner's messages (rollout-runtime.ts): the two arrive
// on different sockets, in any order.
import { EventEmitter } from 'events';
import type { ChatCompletionRequest } from '../trajectory/trajectory';
import type { CallOutcome, IncomingCall } from '../gateway/server';
import type { ReplayVerifier } from '../gateway/replay';
import type { ChatUpstream } from '../gateway/model-endpoint';
import { applyEdits, mergeEdits, messageEdits } from './edits';
import { isToolError } from './breakpoints';
import { deliveredOf, toolCallsOf, type Episode, type Episodes, type LlmTurn, type ToolTurn } from './episode';
import type { HeldStops } from './held-stops';
import type { RunOutput } from './run-handle';
import type { RunWriter } from './run-writer';

/** What call handling needs from the run it belongs to. */
export interface CallPort {
  /** The run's episodes, which calls join. */
  readonly episodes: Episodes;
  /** Where a call may be held; once ended, calls are cancelled. */
  readonly stops: HeldStops;
  /** The run's recording (undefined: the run is not saved). */
  readonly recorder: RunWriter | undefined;
  /** Where a call of `role` goes: auxiliary model i's endpoint, else the rollout model's. */
  upstreamFor(role: string | undefined): ChatUpstream;
  /** The retokenization drift of the episode's newest call (described), when it can be checked. */
  checkDrift?(ep: Episode, turn: LlmTurn): Promise<string[]>;
}

export interface CallEvents {
  /** What the call's episode is doing now. */
  progress: [Episode, string];
  output: [RunOutput];
}

export class LlmCalls extends EventEmitter<CallEvents> {
  /** Calls answered and tokens used, for the run's summary. */
  readonly totals = { calls: 0, prompt: 0, completion: 0 };
  private readonly inflight = new Set<AbortController>();

  /** `replay`: the recorded run every call is checked against (a replay run). */
  constructor(
    private readonly run: CallPort,
    private readonly replay?: ReplayVerifier,
  ) {
    super();
  }

  /** Cancels the calls on their way to a model (the session ended). */
  abortAll(): void {
    for (const c of this.inflight) c.abort();
  }

  async handle(call: IncomingCall): Promise<CallOutcome> {
    const { stops } = this.run;
    const ep = await this.run.episodes.forCall(call.episode);
    if (!ep) return { ok: false, error: { kind: 'upstream', status: 400, message: 'LLM call outside of any episode' } };
    if (stops.ended) return { ok: false, error: { kind: 'cancelled', status: 499, message: 'the debug session has ended' } };
    const role = call.role;
    const roleKey = role ?? '';
    ep.llmCalls++;
    const index = (ep.callCounts[roleKey] = (ep.callCounts[roleKey] ?? 0) + 1) - 1;
    const turn: LlmTurn = {
      kind: 'llm',
      index,
      ...(role ? { role } : {}),
      request: call.request,
      state: 'pending',
      stack: call.stack,
      startedAt: new Date().toISOString(),
      stream: call.request.stream === true,
    };
    // An edited message stays edited for the rest of the episode.
    const carried = applyEdits(call.request, ep.edits);
    if (carried) Object.assign(turn, { sent: carried, carried: true });
    await this.collectToolResults(ep, call.request);
    ep.turns.push(turn);
    this.emit('progress', ep, `LLM call #${turn.index + 1}`);
    const replay = this.replay;
    if (replay) {
      const check = replay.verify(ep.id, turn.index, call.request, role);
      if (!check.ok) {
        turn.divergence = { message: check.message, diff: check.diff };
        turn.error = { kind: 'divergence', status: 409, message: `${check.message}\n${check.diff}` };
        turn.state = 'error';
        this.emit('output', { category: 'important', text: `${check.message}\n${check.diff}\n` });
        await stops.checkpoint({ type: 'divergence', ep, turn });
        if (stops.ended || !replay.continuesLive?.(ep.id)) return this.complete(ep, turn);
        // Going on against the live model from this very call.
        delete turn.error;
        turn.state = 'pending';
        this.emit('output', { category: 'important', text: `${ep.id}: going on against the live model from LLM call #${turn.index + 1}\n` });
      }
    }
    await stops.checkpoint({ type: 'llm', ep, turn });
    if (stops.ended) return this.cancelled(ep, turn);
    if (turn.sent) mergeEdits(ep.edits, messageEdits(turn.request, turn.sent));
    turn.state = 'inflight';
    // Cancelled by the workflow hanging up from here on, or by terminate(). (A hang-up while
    // the call was held does not cancel it: it is still made and recorded.)
    const abort = call.abort.signal.aborted ? new AbortController() : call.abort;
    this.inflight.add(abort);
    const t0 = performance.now();
    const result = await this.run
      .upstreamFor(role)
      .complete(turn.sent ?? turn.request, { episode: ep.id, index: turn.index, ...(role ? { role } : {}), original: turn.request, signal: abort.signal });
    turn.latencyMs = performance.now() - t0;
    ep.llmMs += turn.latencyMs;
    this.inflight.delete(abort);
    if (!result.ok) {
      turn.error = result.error;
      turn.state = 'error';
      if (stops.ended) return this.complete(ep, turn);
      this.emit('output', { category: 'stderr', text: `${ep.id} LLM call #${turn.index + 1} failed: ${result.error.message}\n` });
      await stops.checkpoint({ type: 'upstreamError', ep, turn });
      return this.complete(ep, turn, result.body);
    }
    turn.response = result.response;
    turn.chunks = result.chunks;
    // The model has answered: stops on its tool calls (or its drift) show a finished call.
    turn.state = 'done';
    const usage = result.response.usage;
    if (usage) {
      ep.tokens.prompt += usage.prompt_tokens ?? 0;
      ep.tokens.completion += usage.completion_tokens ?? 0;
      this.totals.prompt += usage.prompt_tokens ?? 0;
      this.totals.completion += usage.completion_tokens ?? 0;
    }
    const drift = await this.run.checkDrift?.(ep, turn);
    if (drift?.length) {
      turn.drift = drift;
      // The Debug Console, not a notification: a template that renders a call differently is
      // worth reading (and the run's summary counts it), not a toast on every run of a sandbox.
      this.emit('output', { category: 'console', text: drift.map((d) => `${ep.id}: ${d}\n`).join(''), source: turn.stack[0] });
      await stops.checkpoint({ type: 'drift', ep, turn });
    }
    const fallback = turn.stack[0];
    const symbols = this.run.episodes.symbols;
    const tools: ToolTurn[] = toolCallsOf(result.response).map((c, callIndex) => ({
      kind: 'tool',
      llmIndex: turn.index,
      callIndex,
      ...(turn.role ? { role: turn.role } : {}),
      id: c.id,
      name: c.function?.name ?? '?',
      arguments: c.function?.arguments ?? '',
      source: symbols[c.function?.name] ?? fallback,
    }));
    ep.turns.push(...tools);
    for (const t of tools) {
      if (stops.ended) break;
      this.emit('progress', ep, `tool ${t.name}`);
      await stops.checkpoint({ type: 'tool', ep, turn: t });
    }
    return this.complete(ep, turn);
  }

  /** Records the call and gives the workflow its answer. */
  private complete(ep: Episode, turn: LlmTurn, body?: unknown): CallOutcome {
    this.totals.calls++;
    if (turn.userEdited && !ep.forkAt) ep.forkAt = { index: turn.index, ...(turn.role ? { role: turn.role } : {}) };
    this.run.recorder?.recordCall({
      episode: ep.id,
      index: turn.index,
      ...(turn.role ? { role: turn.role } : {}),
      request: turn.request,
      ...(turn.sent ? { sent: turn.sent } : {}),
      ...(turn.response ? { response: turn.response } : {}),
      ...(turn.chunks ? { chunks: turn.chunks } : {}),
      ...(turn.delivered ? { delivered: turn.delivered } : {}),
      ...(turn.error ? { error: turn.error } : {}),
      stream: turn.stream,
      startedAt: turn.startedAt,
      latencyMs: Math.round((turn.latencyMs ?? 0) * 1000) / 1000,
      stack: turn.stack,
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
  private async collectToolResults(ep: Episode, request: ChatCompletionRequest): Promise<void> {
    if (!request.messages?.some((m) => m?.role === 'tool' && m.tool_call_id)) return;
    const open = new Map<string, ToolTurn>();
    for (const t of ep.turns) if (t.kind === 'tool' && t.result === undefined) open.set(t.id, t);
    if (!open.size) return;
    for (const m of request.messages ?? []) {
      const t = m.role === 'tool' && m.tool_call_id ? open.get(m.tool_call_id) : undefined;
      if (!t) continue;
      t.result = m.content;
      t.error = isToolError(m.content);
      if (t.error) await this.run.stops.checkpoint({ type: 'toolError', ep, turn: t });
    }
  }
}
