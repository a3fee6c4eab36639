// Exact replay of a recorded run: each call of each episode is answered with what the
// workflow received in the recording, without any model. Calls are matched by episode,
// role (rollout model or auxiliary i) and index within both, so the order in which
// concurrent episodes' calls arrive does not matter. A request that differs from the
// recorded one (the workflow changed) is a divergence, reported with a diff.
import * as fs from 'fs';
import * as path from 'path';
import { asPromise } from '../../base/promise';
import { RECORDING_FILE, type ChatCompletionRequest, type RecordedCall } from '../trajectory/trajectory';
import { requestDiff, sameRequest } from './chat';
import type { CallContext, ChatUpstream, UpstreamResult } from './model-endpoint';

export type ReplayCheck = { ok: true } | { ok: false; message: string; diff: string };

/** What every call of a replay is checked against: a recorded debug run, or a buffer row (row-replay.ts). */
export interface ReplayVerifier {
  /** The recorded debug run's folder (a debug run's replay). */
  readonly runDir?: string;
  verify(episode: string, index: number, request: ChatCompletionRequest, role?: string): ReplayCheck;
  /** Asked once a call of `episode` has diverged (after its stop): true when the replay goes on
   *  against a live model from that call on (a buffer row's replay offers it), else the call fails. */
  continuesLive?(episode: string): boolean;
}

export class ReplayUpstream implements ChatUpstream, ReplayVerifier {
  readonly label: string;
  private readonly calls = new Map<string, RecordedCall>();
  private readonly modelNames = new Set<string>();

  constructor(readonly runDir: string) {
    this.label = `replay of ${path.basename(runDir)}`;
    const file = path.join(runDir, RECORDING_FILE);
    if (!fs.existsSync(file)) throw new Error(`no recording to replay: ${file} does not exist`);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, n) => {
      if (!line.trim()) return;
      let rec: RecordedCall;
      try {
        rec = JSON.parse(line) as RecordedCall;
      } catch {
        // A run killed mid-write can leave a torn last line: keep everything before it.
        if (n >= lines.length - 2) return;
        throw new Error(`${file}:${n + 1}: not valid JSON`);
      }
      this.calls.set(key(rec.episode, rec.index, rec.role), rec);
      if (typeof rec.request?.model === 'string') this.modelNames.add(rec.request.model);
    });
  }

  get size(): number {
    return this.calls.size;
  }

  /** Compares what the workflow sent with the recorded request of the same call. */
  verify(episode: string, index: number, request: ChatCompletionRequest, role?: string): ReplayCheck {
    const rec = this.calls.get(key(episode, index, role));
    if (!rec) {
      const n = [...this.calls.values()].filter((c) => c.episode === episode && c.role === role).length;
      return {
        ok: false,
        message: `Replay diverged: ${episode} makes ${role ? `${role} ` : ''}LLM call #${index + 1}, but the recording has ${n} such call(s) for this episode`,
        diff: requestDiff({ messages: [] }, request),
      };
    }
    if (sameRequest(rec.request, request)) return { ok: true };
    return {
      ok: false,
      message: `Replay diverged: ${episode} ${role ? `${role} ` : ''}call #${index + 1} differs from the recorded request`,
      diff: requestDiff(rec.request, request),
    };
  }

  complete(_body: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamResult> {
    return asPromise(() => this.recorded(ctx));
  }

  private recorded(ctx: CallContext): UpstreamResult {
    const rec = this.calls.get(key(ctx.episode, ctx.index, ctx.role));
    if (!rec) return { ok: false, error: { kind: 'divergence', status: 409, message: `no recorded call #${ctx.index + 1} for ${ctx.episode}` } };
    if (rec.error) return { ok: false, error: rec.error };
    const response = rec.delivered ?? rec.response;
    if (!response)
      return { ok: false, error: { kind: 'divergence', status: 409, message: `the recorded call #${ctx.index + 1} of ${ctx.episode} has no reply` } };
    return { ok: true, response, chunks: rec.delivered ? undefined : rec.chunks };
  }

  models(): Promise<unknown> {
    return Promise.resolve({ object: 'list', data: [...this.modelNames].map((id) => ({ id, object: 'model', owned_by: 'replay' })) });
  }
}

const key = (episode: string, index: number, role?: string) => `${episode}\u0000${role ?? ''}\u0000${index}`;
