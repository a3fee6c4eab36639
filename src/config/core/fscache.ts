// Short-lived memo of file-system lookups (exists, list a folder). Rules ask the same
// questions on every keystroke; a value may be 2 s stale, and the server clears the memo
// when watched files change.
import * as fs from 'fs';

const TTL_MS = 2000;
const stats = new Map<string, { at: number; kind: 'file' | 'dir' | 'none' }>();
const dirs = new Map<string, { at: number; entries: string[] | undefined }>();

export function statKind(p: string): 'file' | 'dir' | 'none' {
  const now = Date.now();
  const hit = stats.get(p);
  if (hit && now - hit.at < TTL_MS) return hit.kind;
  let kind: 'file' | 'dir' | 'none';
  try {
    const st = fs.statSync(p);
    kind = st.isDirectory() ? 'dir' : 'file';
  } catch {
    kind = 'none';
  }
  if (stats.size > 20_000) stats.clear();
  stats.set(p, { at: now, kind });
  return kind;
}

export const exists = (p: string) => statKind(p) !== 'none';

/** Names in a folder (undefined when it cannot be read). */
export function listDir(p: string): string[] | undefined {
  const now = Date.now();
  const hit = dirs.get(p);
  if (hit && now - hit.at < TTL_MS) return hit.entries;
  let entries: string[] | undefined;
  try {
    entries = fs.readdirSync(p);
  } catch {
    entries = undefined;
  }
  if (dirs.size > 5_000) dirs.clear();
  dirs.set(p, { at: now, entries });
  return entries;
}

/** Forget everything (files changed on disk). */
export function clearFsCache(): void {
  stats.clear();
  dirs.clear();
}
