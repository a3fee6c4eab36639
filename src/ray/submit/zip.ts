// Writes a Ray working_dir package with fflate's zipSync: Ray unpacks it with Python's zipfile,
// so what we add here is only what Ray relies on — Unix modes (a script stays executable), safe
// relative names and byte-equal output for equal input (the package name is a content hash).
// fflate writes no ZIP64: our package size limit keeps a package far below 4 GiB.
import { zipSync, type Zippable } from 'fflate';

export interface ZipEntry {
  /** Path inside the archive, '/'-separated, no leading slash. */
  name: string;
  data: Buffer;
  /** Unix mode bits (e.g. 0o755 for scripts); default 0o644. */
  mode?: number;
}

/** 1980-01-01 00:00 local time, the first DOS date: fflate encodes mtime with the local-time
 *  getters, so this gives the same bytes in every time zone and keeps the hash stable. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);
/** Made by Unix, so Python's zipfile reads the mode from the external attributes. */
const OS_UNIX = 3;
const S_IFREG = 0o100000;
/** Deflating a tiny file only adds overhead: store it. */
const STORE_AT_MOST = 64;

export function zip(entries: readonly ZipEntry[]): Buffer {
  // fflate writes the entry count and offsets into 16/32-bit fields without checking them.
  if (entries.length > 0xffff) throw new Error(`too many files for a zip without ZIP64: ${entries.length}`);
  if (entries.reduce((n, e) => n + e.data.length, 0) > 0xffffffff) throw new Error('zip too large (no ZIP64 support)');
  // Flat '/'-separated keys: fflate adds no directory entries, as Ray needs none. (Object key
  // order puts integer-like names first; still the same order for the same input.)
  const files: Zippable = {};
  for (const e of entries) {
    if (e.name.startsWith('/') || e.name.split('/').includes('..')) throw new Error(`unsafe zip entry name: ${e.name}`);
    // fflate collects entries in a plain object: a top-level __proto__ would crash zipSync.
    if (e.name === '__proto__') throw new Error(`unsupported zip entry name: ${e.name}`);
    if (Object.hasOwn(files, e.name)) throw new Error(`duplicate zip entry name: ${e.name}`);
    files[e.name] = [
      e.data,
      {
        level: e.data.length > STORE_AT_MOST ? 6 : 0,
        os: OS_UNIX,
        attrs: ((S_IFREG | (e.mode ?? 0o644)) << 16) >>> 0,
        mtime: FIXED_MTIME,
      },
    ];
  }
  const out = zipSync(files);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
