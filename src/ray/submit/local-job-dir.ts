// On a head node with shared storage the run's job dir becomes visible here, but only once the
// trainer has created it — seconds after submit. Deciding "not on this machine" at once would
// start a relay job nobody needs, so a job dir whose parent is here is waited for briefly.
// No vscode: the caller supplies cancellation and shows progress.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type JobDirPlace = 'here' | 'maybe-soon' | 'elsewhere';

/** Where the job dir is from this machine's view; a relative one is on the node (never local). */
export function jobDirPlace(jobDir: string, exists: (p: string) => boolean = fs.existsSync): JobDirPlace {
  if (!path.isAbsolute(jobDir)) return 'elsewhere';
  if (exists(jobDir)) return 'here';
  return exists(path.dirname(jobDir)) ? 'maybe-soon' : 'elsewhere';
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  cancelled?: () => boolean;
  exists?: (p: string) => boolean;
  /** Sleep (tests pass a fake clock). */
  sleep?: (ms: number) => Promise<void>;
}

/** Whether `dir` appeared within the time (false when cancelled). */
export async function waitForDir(dir: string, o: WaitOptions = {}): Promise<boolean> {
  const exists = o.exists ?? fs.existsSync;
  const interval = o.intervalMs ?? 500;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let waited = 0; ; waited += interval) {
    if (o.cancelled?.()) return false;
    if (exists(dir)) return true;
    if (waited >= (o.timeoutMs ?? 60_000)) return false;
    await sleep(interval);
  }
}
