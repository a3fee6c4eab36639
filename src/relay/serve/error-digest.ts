// A source that fails on every read (a torn database, a dead endpoint) must not flood the log:
// the first failure is reported, repeats are only counted (a summary line at most once per
// period), and the first success after failures says it recovered and how many it absorbed.
import type { Logger } from '../../base/log';

interface Failing {
  message: string;
  /** Failures since the first report (excluding it). */
  repeats: number;
  /** Repeats not yet mentioned in a summary line. */
  unreported: number;
  lastLineAt: number;
}

export interface ErrorDigestOptions {
  /** At most one summary line per failing key per this period. */
  summaryMs?: number;
  now?: () => number;
}

export class ErrorDigest {
  private readonly failing = new Map<string, Failing>();
  private readonly summaryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    opts: ErrorDigestOptions = {},
  ) {
    this.summaryMs = opts.summaryMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Records a failure of `key`; true when it was reported now (the first of an episode). */
  fail(key: string, message: string): boolean {
    const t = this.now();
    const f = this.failing.get(key);
    if (!f) {
      this.failing.set(key, { message, repeats: 0, unreported: 0, lastLineAt: t });
      this.log.warn(`${key}: ${message}`);
      return true;
    }
    f.repeats++;
    f.unreported++;
    if (message !== f.message || t - f.lastLineAt >= this.summaryMs) {
      const changed = message !== f.message;
      this.log.warn(`${key}: ${changed ? message : f.message} (failed ${f.unreported} more time(s) since the last report)`);
      f.message = message;
      f.unreported = 0;
      f.lastLineAt = t;
      return changed;
    }
    return false;
  }

  /** Records a success of `key`: logs the recovery if it was failing. */
  ok(key: string): void {
    const f = this.failing.get(key);
    if (!f) return;
    this.failing.delete(key);
    this.log.info(`${key}: recovered after ${f.repeats + 1} failed attempt(s)`);
  }

  isFailing(key: string): boolean {
    return this.failing.has(key);
  }
}
