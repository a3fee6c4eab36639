// Whether the Trinity-RFT run in a job dir has finished, and when: Trinity's explorer and trainer
// end by logging "> Explorer (<name>) finished." / "> Trainer finished." (trinity/explorer/
// explorer.py, trinity/trainer/trainer.py) to log/<role>.log. A run whose every role log ends
// with it is over: the metrics view says "finished" instead of "live" (a relay stays connected
// to a finished run's files and streams nothing new). Reads the last few KB of each log only.
import * as fs from 'node:fs';
import * as path from 'node:path';

const TAIL_BYTES = 4096;
const FINISHED: Record<string, RegExp> = {
  explorer: /> Explorer(?: \([^)\n]*\))? finished\./,
  trainer: /> Trainer finished\./,
};

function tail(file: string): { text: string; mtime: Date } | undefined {
  let fd: number | undefined;
  try {
    const st = fs.statSync(file);
    fd = fs.openSync(file, 'r');
    const n = Math.min(TAIL_BYTES, st.size);
    const buf = Buffer.alloc(n);
    fs.readSync(fd, buf, 0, n, st.size - n);
    return { text: buf.toString('utf8'), mtime: st.mtime };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** When the run in `jobDir` finished (its last role log's time), or undefined while it runs (or has no logs). */
export function finishedAt(jobDir: string): Date | undefined {
  let last: Date | undefined;
  let roles = 0;
  for (const [role, done] of Object.entries(FINISHED)) {
    const t = tail(path.join(jobDir, 'log', `${role}.log`));
    if (!t) continue;
    roles++;
    // The finish line is the role's last word: Step lines after it are a resumed run.
    const at = t.text.search(done);
    if (at < 0 || /Step \d+:/.test(t.text.slice(at))) return undefined;
    if (!last || t.mtime > last) last = t.mtime;
  }
  return roles ? last : undefined;
}
