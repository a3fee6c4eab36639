// A big Ray timeline.json for the pipeline bench: the events of a real one (written by Ray here,
// test/fixtures/pipeline/ray-timeline.json) repeated, each copy shifted in time and spread over
// more workers, written in chunks until the file has the size asked for.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function writeTimeline(file: string, bytes: number, realFile: string): { events: number; spanUs: number } {
  const real = (JSON.parse(fs.readFileSync(realFile, 'utf8')) as Record<string, unknown>[]).filter((e) => e.ph === 'X');
  const t0 = Math.min(...real.map((e) => Number(e.ts)));
  const t1 = Math.max(...real.map((e) => Number(e.ts) + Number(e.dur)));
  const period = t1 - t0 + 1000;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let events = 0;
  let copy = 0;
  try {
    fs.writeSync(fd, '[');
    while (written < bytes) {
      const parts: string[] = [];
      for (const e of real) {
        const ev = { ...e, ts: Number(e.ts) + copy * period, tid: `${String(e.tid)}-${copy % 16}` };
        parts.push(JSON.stringify(ev));
      }
      const chunk = (events ? ', ' : '') + parts.join(', ');
      written += fs.writeSync(fd, chunk);
      events += parts.length;
      copy++;
    }
    fs.writeSync(fd, ']');
  } finally {
    fs.closeSync(fd);
  }
  return { events, spanUs: copy * period };
}
