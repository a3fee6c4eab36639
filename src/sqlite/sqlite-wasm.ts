// SQLite's wasm (wa-sqlite/dist/wa-sqlite.wasm). The bundles carry it inline: esbuild.mjs
// replaces this module with the bytes, so the single-file CLI needs no side file. Under tsc
// (out/) it is read from node_modules on first use.
import * as fs from 'node:fs';

export function sqliteWasm(): Uint8Array {
  return fs.readFileSync(require.resolve('wa-sqlite/dist/wa-sqlite.wasm'));
}
