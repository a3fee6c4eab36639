// SQLite's wasm (wa-sqlite/dist/wa-sqlite.wasm) inline in the bundles: esbuild.mjs replaces this
// module with the bytes, so the single-file CLI needs no side file. Under tsc (out/) it stays
// undefined and sqlite-db.ts reads the file from node_modules.
export const SQLITE_WASM: Uint8Array | undefined = undefined;
