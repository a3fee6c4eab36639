// The scan worker's bundled source, for the single-file CLI: esbuild.mjs replaces this module
// with the text of scan-worker.ts bundled on its own. Under tsc it stays undefined and the
// pipeline starts the worker from its compiled file next to this one.
export const SCAN_WORKER_CODE: string | undefined = undefined;
