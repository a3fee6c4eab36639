// `agentrl relay --exit-when-idle S`: when the relay has been idle long enough to end itself.
// A relay started as a Ray job next to a run would otherwise outlive that run once the editor
// that would stop it is closed. Idle = no client connected and no new data under its root;
// the clock is injected so the rule is tested without waiting.

/** How often the relay asks the clock: coarse, but a fraction of the limit so it is not overshot much. */
export function idleCheckPeriodMs(limitMs: number): number {
  return Math.max(50, Math.min(30_000, limitMs / 4));
}

export class IdleClock {
  private since: number;

  constructor(
    readonly limitMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.since = now();
  }

  /** Something happened (a client came or went, new data): the idle period starts over. */
  touch(): void {
    this.since = this.now();
  }

  /** How long the relay has been idle, given how many clients are connected (ms). */
  idleMs(clients: number): number {
    // A connected client is activity for as long as it stays: the period starts at its leaving.
    if (clients > 0) this.touch();
    return this.now() - this.since;
  }

  /** Whether the relay has been idle for the whole limit. */
  expired(clients: number): boolean {
    return this.idleMs(clients) >= this.limitMs;
  }
}
