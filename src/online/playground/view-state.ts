// What the playground shows besides the conversation: busy, the last error or notice, the
// latest /metrics sample — and posting the whole state to the webview once it is ready. Kept
// apart from the controller's actions (chat, rewards, commit) so each stays small.
import type { OnlineMetrics } from '../explorer/serve-metrics';
import { AlreadyRewardedError } from '../explorer/outbox';
import type { HostToWebview, PlaygroundState } from '../protocol/playground-protocol';
import type { PlaygroundMessages } from './playground-controller';

export type StatusFields = 'busy' | 'error' | 'notice' | 'metrics';

export class PlaygroundViewState {
  busy = false;
  error: string | undefined;
  notice: string | undefined;
  metrics: (OnlineMetrics & { at: number }) | undefined;
  /** The webview said `ready`: states can be posted. */
  attached = false;

  constructor(
    private readonly post: (m: HostToWebview) => void,
    private readonly rest: () => Omit<PlaygroundState, StatusFields>,
    private readonly messages: PlaygroundMessages,
  ) {}

  state(): PlaygroundState {
    return { ...this.rest(), metrics: this.metrics, busy: this.busy, error: this.error, notice: this.notice };
  }

  push(): void {
    if (this.attached) this.post({ type: 'state', state: this.state() });
  }

  /** Runs one user action: busy while it runs, its error shown (never thrown to the webview). */
  async guard(f: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.error = undefined;
    this.notice = undefined;
    this.push();
    try {
      await f();
    } catch (e) {
      this.error = e instanceof AlreadyRewardedError ? this.messages.alreadyRewarded(e.entry.state) : this.messages.error(e);
    } finally {
      this.busy = false;
      this.push();
    }
  }
}
