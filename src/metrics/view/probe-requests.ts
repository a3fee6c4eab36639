// Requests for what the webview shows (`probe` → `rendered`), matched by request number:
// tests and diagnostics await the answer; a webview that goes away answers every pending
// request with an empty picture, and an unanswered one resolves undefined after a timeout.
import type { ProbeMessage, RenderedMessage } from '../protocol/view-protocol';

export class ProbeRequests {
  private readonly pending = new Map<number, (r: RenderedMessage) => void>();
  private next = 1;

  /** Posts a probe through `post` and resolves with the webview's answer. */
  ask(post: (m: ProbeMessage) => void, timeoutMs: number): Promise<RenderedMessage | undefined> {
    const request = this.next++;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.pending.delete(request);
        resolve(undefined);
      }, timeoutMs);
      this.pending.set(request, (r) => {
        clearTimeout(t);
        resolve(r);
      });
      post({ type: 'probe', request });
    });
  }

  /** The webview's answer to one request. */
  answer(msg: RenderedMessage): void {
    const cb = this.pending.get(msg.request);
    this.pending.delete(msg.request);
    cb?.(msg);
  }

  /** The webview went away: every pending request gets an empty answer. */
  cancelAll(): void {
    for (const cb of this.pending.values()) cb({ type: 'rendered', request: 0, charts: [], status: '' });
    this.pending.clear();
  }
}
