// Keeps the open drill-down current: when rows of its run and model versions are added or
// replaced (serve mode rewards a rollout when /feedback arrives; the trainer consumes it), the
// drill is computed again and sent under the same request, at most once per `minMs` — the
// webview refreshes the open pane in place. Pure.
import type { XAxisMode } from '../protocol/view-options';
import type { DrillMessage, DrillExperiencesMessage } from '../protocol/view-protocol';

type DrillResult = Omit<DrillExperiencesMessage, 'type' | 'request'>;

export class LiveDrill {
  private open: { msg: DrillMessage; mode: XAxisMode; versions: Set<number> } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSent = 0;

  constructor(
    private readonly compute: (msg: DrillMessage, mode: XAxisMode) => DrillResult,
    private readonly post: (m: DrillExperiencesMessage) => void,
    private readonly minMs = 500,
  ) {}

  /** Answers a drill, and follows it from now on. */
  drill(msg: DrillMessage, mode: XAxisMode): void {
    this.cancel();
    this.open = { msg, mode, versions: new Set() };
    this.send();
  }

  /** Rows of `run` with these model versions were added or replaced. */
  changed(run: string, versions: Iterable<number | null>): void {
    const o = this.open;
    if (!o || o.msg.run !== run || this.timer) return;
    let hit = o.versions.size === 0; // nothing matched yet: any row of the run may be the first
    for (const v of versions) if (v !== null && o.versions.has(v)) hit = true;
    if (!hit) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.send();
      },
      Math.max(0, this.lastSent + this.minMs - Date.now()),
    );
  }

  private send(): void {
    const o = this.open;
    if (!o) return;
    const r = this.compute(o.msg, o.mode);
    o.versions = new Set(r.modelVersions);
    this.lastSent = Date.now();
    this.post({ type: 'rollouts', request: o.msg.request, ...r });
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.cancel();
    this.open = undefined;
  }
}
