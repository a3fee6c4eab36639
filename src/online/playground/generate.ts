// Collecting alternatives for one assistant turn: one request per alternative (each gets its own
// msg_id, so each can be rewarded alone), the text streamed to the webview as it arrives, the
// conversation saved after each, and the serving model version noted when /metrics reports it.
import type { ChatRequest, ChatResult, ExplorerClient } from '../explorer/explorer-client';
import type { OnlineMetrics } from '../explorer/serve-metrics';
import { servingVersion } from '../explorer/serve-metrics';
import type { Alternative, Turn } from '../protocol/playground-protocol';

export interface GenerateHooks {
  delta(alt: number, text: string): void;
  save(): void;
  refreshMetrics(): Promise<OnlineMetrics | undefined>;
  error(e: unknown): string;
}

export async function collectAlternatives(client: ExplorerClient, t: Turn & { kind: 'assistant' }, req: ChatRequest, n: number, h: GenerateHooks): Promise<void> {
  for (let i = 0; i < n; i++) {
    const altIndex = t.alternatives.length;
    let r: ChatResult;
    try {
      r = await client.chat(req, (text) => h.delta(altIndex, text));
    } catch (e) {
      t.error = h.error(e);
      h.save();
      throw e;
    }
    delete t.error;
    const alt: Alternative = { msgId: r.msgId, content: r.content, latencyMs: Math.round(r.latencyMs), promptTokens: r.promptTokens, completionTokens: r.completionTokens };
    if (r.toolCalls) alt.toolCalls = r.toolCalls;
    t.alternatives.push(alt);
    h.save();
    const v = servingVersion(await h.refreshMetrics());
    if (v !== undefined) {
      alt.modelVersion = v;
      h.save();
    }
  }
}
