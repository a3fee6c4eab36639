// The feedback outbox: every reward the developer gives is written to disk before it is sent,
// so nothing is lost when the explorer is down or the window closes. A reward is sent once:
// the same msg_ids cannot be queued twice, a sent entry is never resent, and a failed send
// stays visible as unsent until retried (a repeat is harmless upstream too: HistoryRecorder
// only rewards unconsumed rows). Persisted as one JSON file (.agentrl/online/feedback.json).
import * as fs from 'node:fs';
import * as path from 'node:path';

export type FeedbackState = 'pending' | 'sent' | 'failed';

export interface FeedbackEntry {
  /** local id */
  id: string;
  explorerUrl: string;
  msgIds: string[];
  reward: number;
  taskId?: string;
  runId: number;
  /** what the developer did: thumbs, a number, an A/B choice */
  source: 'thumb' | 'score' | 'choice';
  state: FeedbackState;
  attempts: number;
  createdAt: number;
  sentAt?: number;
  error?: string;
}

export type Sender = (e: FeedbackEntry) => Promise<void>;

export class FeedbackOutbox {
  private entries: FeedbackEntry[] = [];
  private seq = 0;
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly file: string,
    private readonly send: Sender,
    private readonly onChange: (entries: readonly FeedbackEntry[]) => void = () => {},
  ) {
    this.entries = load(file);
    // A send interrupted by a crash or reload may or may not have arrived: offer it again
    // (upstream ignores repeats for rows already rewarded).
    for (const e of this.entries) if (e.state === 'pending') e.state = 'failed';
  }

  list(): readonly FeedbackEntry[] {
    return this.entries;
  }

  unsent(): FeedbackEntry[] {
    return this.entries.filter((e) => e.state !== 'sent');
  }

  /** The entry that already covers any of these msg_ids (a reward is given once). */
  covering(explorerUrl: string, msgIds: string[]): FeedbackEntry | undefined {
    const ids = new Set(msgIds);
    return this.entries.find((e) => e.explorerUrl === explorerUrl && e.msgIds.some((m) => ids.has(m)));
  }

  /** Queues a reward (persisted first) and sends it. Refuses msg_ids already rewarded. */
  async give(f: Omit<FeedbackEntry, 'id' | 'state' | 'attempts' | 'createdAt'>): Promise<FeedbackEntry> {
    if (f.msgIds.length === 0) throw new Error('no msg_ids to reward');
    if (!Number.isFinite(f.reward)) throw new Error('the reward must be a number');
    const dup = this.covering(f.explorerUrl, f.msgIds);
    if (dup) throw new AlreadyRewardedError(dup);
    const e: FeedbackEntry = { ...f, id: `${Date.now().toString(36)}-${(this.seq++).toString(36)}`, state: 'pending', attempts: 0, createdAt: Date.now() };
    this.entries.push(e);
    this.persist();
    await this.attempt(e);
    return e;
  }

  /** Sends one failed entry again; a sent entry is never resent. */
  async retry(id: string): Promise<FeedbackEntry | undefined> {
    const e = this.entries.find((x) => x.id === id);
    if (!e || e.state === 'sent') return e;
    await this.attempt(e);
    return e;
  }

  /** Retries every unsent entry, oldest first. */
  async retryAll(): Promise<number> {
    let sent = 0;
    for (const e of this.unsent()) if ((await this.retry(e.id))?.state === 'sent') sent++;
    return sent;
  }

  private async attempt(e: FeedbackEntry): Promise<void> {
    if (this.inFlight.has(e.id)) return;
    this.inFlight.add(e.id);
    e.state = 'pending';
    e.attempts++;
    this.persist();
    try {
      await this.send(e);
      e.state = 'sent';
      e.sentAt = Date.now();
      delete e.error;
    } catch (err) {
      e.state = 'failed';
      e.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.inFlight.delete(e.id);
      this.persist();
    }
  }

  private persist(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ version: 1, entries: this.entries }, null, 1));
    fs.renameSync(tmp, this.file);
    this.onChange(this.entries);
  }
}

export class AlreadyRewardedError extends Error {
  constructor(readonly entry: FeedbackEntry) {
    super(`already rewarded (${entry.state}): ${entry.msgIds.join(', ')}`);
    this.name = 'AlreadyRewardedError';
  }
}

function load(file: string): FeedbackEntry[] {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const j = JSON.parse(raw) as { entries?: unknown };
    return Array.isArray(j.entries) ? (j.entries as FeedbackEntry[]).filter((e) => e && Array.isArray(e.msgIds) && typeof e.reward === 'number') : [];
  } catch {
    // a damaged file is kept aside, never overwritten: the rewards in it are not lost
    fs.renameSync(file, `${file}.damaged-${Date.now()}`);
    return [];
  }
}
