// The stops the rollout debugger holds: at most one per episode (undefined: a runner-level
// stop), each keeping its episode's call or runner message waiting until it is resumed.
// StopPolicy decides where to stop; this holds and releases. Apart from the runtime so the
// waiting logic is in one place, whoever asks (gateway calls or runner messages).
import type { L10n } from '../../base/l10n';
import type { EventBreakpoint, ExceptionFilter } from './breakpoints';
import type { Episode } from './episode';
import { StopPolicy, type CheckEvent, type ResumeMode, type StopInfo } from './stop-policy';

export class HeldStops {
  private readonly policy: StopPolicy;
  private readonly stops = new Map<Episode | undefined, StopInfo>();
  private disabled = false;
  private over = false;
  private waiters: (() => void)[] = [];

  /** `onStop`: a new stop is held. */
  constructor(
    l10n: L10n | undefined,
    private readonly onStop: (s: StopInfo) => void,
  ) {
    this.policy = new StopPolicy(l10n);
  }

  /** The session ended: nothing stops any more, every held stop lets go (and calls are cancelled). */
  get ended(): boolean {
    return this.over;
  }

  end(): void {
    this.over = true;
    this.release();
  }

  /** The most recent stop still held (the one the UI focuses). */
  get latest(): StopInfo | undefined {
    let last: StopInfo | undefined;
    for (const s of this.stops.values()) last = s;
    return last;
  }

  /** The stop held on `ep` (undefined: the runner-level stop). */
  of(ep: Episode | undefined): StopInfo | undefined {
    return this.stops.get(ep);
  }

  setBreakpoints(bps: EventBreakpoint[]): void {
    this.policy.setBreakpoints(bps);
  }

  setExceptionFilters(filters: ExceptionFilter[]): void {
    this.policy.setExceptionFilters(filters);
  }

  /** Headless runs: never stop. */
  disable(): void {
    this.disabled = true;
  }

  /** Stops `episode` (default: every running episode) at its next event. */
  pause(episode?: Episode): void {
    this.policy.pause(episode);
  }

  /** Drops the stop of `episode` (default: the most recent stop's); release() lets it go on. */
  resume(mode: ResumeMode, episode?: Episode): void {
    const key = episode ?? this.latest?.episode;
    this.policy.resumed(mode, key);
    this.stops.delete(key);
  }

  /** Wakes every waiting checkpoint to look again (resumed, or the run ended). */
  release(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }

  /** Stops here if the event calls for it, holding only this episode (its call or the
   *  runner's message) until it is resumed; other episodes go on. */
  async checkpoint(ev: CheckEvent): Promise<void> {
    if (this.over || this.disabled) return;
    const key = ev.ep;
    // One stop per episode at a time (an episode's auxiliary call may run beside its own).
    while (this.stops.has(key) && !this.over) await this.changed();
    if (this.over) return;
    const stop = this.policy.decide(ev);
    if (!stop) return;
    this.stops.set(key, stop);
    this.onStop(stop);
    while (this.stops.get(key) === stop && !this.over) await this.changed();
  }

  private changed(): Promise<void> {
    return new Promise<void>((r) => this.waiters.push(r));
  }
}
