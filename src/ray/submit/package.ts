// Packs a workspace folder into a Ray working_dir package: walks it honouring .gitignore files
// (and always skipping .git), stops at a size limit before reading everything, adds extra files
// (our single-file CLI for the relay job), zips deterministically and names the package by its
// content hash, `_ray_pkg_<hash>.zip`, so an unchanged folder is never uploaded twice.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IgnoreMatcher, parseGitignore } from './gitignore';
import { zip, type ZipEntry } from './zip';

/** Always left out, whatever .gitignore says. */
const ALWAYS_SKIP = new Set(['.git', '.hg', '.svn']);

export class PackageTooLargeError extends Error {
  constructor(
    readonly limitBytes: number,
    readonly seenBytes: number,
    /** The biggest files seen so far, for the message (relative path, bytes). */
    readonly biggest: Array<[string, number]>,
  ) {
    super(
      `the folder is over the package size limit (${mb(seenBytes)} MB read, limit ${mb(limitBytes)} MB); largest: ` +
        biggest.map(([f, n]) => `${f} (${mb(n)} MB)`).join(', ') +
        ' — add them to .gitignore or raise agentrl.ray.packageLimitMB',
    );
    this.name = 'PackageTooLargeError';
  }
}

const mb = (n: number) => (n / 2 ** 20).toFixed(1);

export interface PackOptions {
  root: string;
  limitBytes: number;
  /** Files added under these names (e.g. `.agentrl/agentrl.js`). */
  extra?: Array<{ name: string; file: string; mode?: number }>;
  /** Progress: files listed so far and bytes so far. */
  onProgress?: (files: number, bytes: number) => void;
  /** Cancellation. */
  cancelled?: () => boolean;
}

export interface PackedPackage {
  /** `_ray_pkg_<hash>.zip` */
  name: string;
  /** `gcs://_ray_pkg_<hash>.zip`, for runtime_env.working_dir */
  uri: string;
  zip: Buffer;
  files: string[];
  bytes: number;
}

/** Lists the files that go into the package (relative, '/'-separated, sorted) with their sizes. */
export function listPackageFiles(root: string, limitBytes: number, onProgress?: PackOptions['onProgress'], cancelled?: () => boolean): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  let bytes = 0;
  const walk = (dir: string, rel: string, matcher: IgnoreMatcher) => {
    if (cancelled?.()) throw new Error('cancelled');
    const gi = path.join(dir, '.gitignore');
    if (fs.existsSync(gi)) matcher = matcher.add(parseGitignore(fs.readFileSync(gi, 'utf8'), rel));
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (ALWAYS_SKIP.has(e.name)) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(dir, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        // Follow links to files only: a link to a directory may loop or escape the folder.
        const st = fs.statSync(full, { throwIfNoEntry: false });
        isFile = !!st?.isFile();
        isDir = false;
      }
      if (matcher.ignored(r, isDir)) continue;
      if (isDir) walk(full, r, matcher);
      else if (isFile) {
        const size = fs.statSync(full).size;
        bytes += size;
        out.push([r, size]);
        onProgress?.(out.length, bytes);
        if (bytes > limitBytes) throw new PackageTooLargeError(limitBytes, bytes, [...out].sort((a, b) => b[1] - a[1]).slice(0, 3));
      }
    }
  };
  walk(root, '', new IgnoreMatcher());
  return out;
}

export function packWorkspace(opts: PackOptions): PackedPackage {
  const listed = listPackageFiles(opts.root, opts.limitBytes, opts.onProgress, opts.cancelled);
  const entries: ZipEntry[] = listed.map(([rel]) => {
    const full = path.join(opts.root, ...rel.split('/'));
    const st = fs.statSync(full);
    return { name: rel, data: fs.readFileSync(full), mode: st.mode & 0o777 };
  });
  for (const x of opts.extra ?? []) {
    const i = entries.findIndex((e) => e.name === x.name);
    if (i >= 0) entries.splice(i, 1);
    entries.push({ name: x.name, data: fs.readFileSync(x.file), mode: x.mode ?? 0o644 });
  }
  const bytes = entries.reduce((n, e) => n + e.data.length, 0);
  if (bytes > opts.limitBytes)
    throw new PackageTooLargeError(
      opts.limitBytes,
      bytes,
      entries
        .map((e) => [e.name, e.data.length] as [string, number])
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3),
    );
  const buf = zip(entries);
  const hash = createHash('sha1').update(buf).digest('hex').slice(0, 16);
  const name = `_ray_pkg_${hash}.zip`;
  return { name, uri: `gcs://${name}`, zip: buf, files: entries.map((e) => e.name), bytes };
}
