// Pure pieces shared by the scaffold unit tests (no process): temp folders and a snapshot of a
// folder's files. The bundled-CLI helpers live in test/component/scaffold/helpers.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function tempDir(prefix = 'agentrl-scaffold-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out.sort();
}

/** Every file under `dir` with its bytes, to prove a refused command changed nothing. */
export function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [path.relative(dir, f), fs.readFileSync(f, 'utf8')]));
}
