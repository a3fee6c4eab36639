// The peer of `npm run bench -- sqlite`: the relay's SQL reader before page reads, as it was —
// every change re-reads a whole copy of the file into sql.js (SQLite in wasm, whole image in
// memory), at most once per second and at most 1/20 of the time (a reload costing d ms waits
// 20·d). Run as a child: node sqlite-wholefile.js DB SECONDS; prints one JSON line with the
// reloads, their mean cost, the new rows' latency (read time − write time) and an error when
// the file cannot be opened at all (sql.js and readFileSync stop at 2 GiB).
import * as fs from 'node:fs';

interface SqlJs {
  Database: new (d: Uint8Array) => { exec(sql: string, p?: unknown[]): { values: unknown[][] }[]; close(): void };
}

function quiescent(file: string): Buffer | undefined {
  const sig = () => {
    if (fs.existsSync(`${file}-journal`) && fs.statSync(`${file}-journal`).size > 0) return undefined;
    const st = fs.statSync(file, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ino}`;
  };
  const before = sig();
  if (!before) return undefined;
  const bytes = fs.readFileSync(file);
  return sig() === before ? bytes : undefined;
}

async function main(): Promise<void> {
  const [file, secondsArg] = process.argv.slice(2);
  const seconds = Number(secondsArg);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const SQL = await (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<SqlJs>)();
  const end = Date.now() + seconds * 1000;
  let last = 0;
  let reloads = 0;
  let loadMs = 0;
  let stamp = '';
  let error: string | undefined;
  let first: number | undefined;
  let busy = 0;
  const lat: number[] = [];
  while (Date.now() < end) {
    const st = fs.statSync(file);
    const now = `${st.size}:${st.mtimeMs}`;
    if (now !== stamp) {
      const t0 = performance.now();
      try {
        // As the old reader's readQuiescent: no hot journal, and the file unchanged while copied.
        // 5 tries, then the next poll (1 s), as readQuiescent and the relay's poll timer did.
        let bytes: Buffer | undefined;
        for (let i = 0; i < 5 && !bytes; i++) {
          if (i > 0) await new Promise((r) => setTimeout(r, 25 * i));
          bytes = quiescent(file);
        }
        if (!bytes) {
          busy++;
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        const db = new SQL.Database(bytes);
        // Every new row, 500 per query as the old reader's batches; latency from its write time.
        for (;;) {
          const res = db.exec(
            'SELECT id, timestamp, reward, consumed, length(experience_bytes), substr(experience_bytes, 1, 16384) FROM experience_buffer WHERE id > ? ORDER BY id LIMIT 500',
            [last],
          )[0];
          const rows = res?.values ?? [];
          if (!rows.length) break;
          last = Number(rows[rows.length - 1][0]);
          const now = Date.now();
          if (first !== undefined)
            for (const v of rows) if (typeof v[1] === 'string' && v[1].includes('.')) lat.push(now - Date.parse(`${v[1].replace(' ', 'T')}Z`));
        }
        first ??= last;
        db.close();
      } catch (e) {
        error = (e as Error).message;
        break;
      }
      const d = performance.now() - t0;
      loadMs += d;
      reloads++;
      stamp = now;
      await new Promise((r) => setTimeout(r, Math.max(1000, 20 * d)));
    } else {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  lat.sort((a, b) => a - b);
  const p = (q: number) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(lat.length * q))] : 0);
  console.log(JSON.stringify({ reloads, busy, meanLoadMs: reloads ? loadMs / reloads : 0, latP50Ms: p(0.5), latP99Ms: p(0.99), error }));
}

void main();
