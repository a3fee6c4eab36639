// The real llama.cpp model server (scripts/model-server.mjs, tiny tool-calling fixture)
// for tests and benches: started as a child process on a free loopback port.
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { repoRoot } from './paths';

export interface ModelServer {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const script = path.join(repoRoot, 'scripts', 'model-server.mjs');
export const modelRuntimeInstalled = fs.existsSync(path.join(repoRoot, '.cache', 'model-server', 'node_modules', 'node-llama-cpp'));

// tsc (module commonjs) would turn import() into require(); the server is an ES module.
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- require() of an ES module needs Node 20.19 (package.json says 18)
const importEsm = new Function('u', 'return import(u)') as (u: string) => Promise<{ spawnModelServer(o: object): Promise<ModelServer> }>;

/**
 * One thread: the fixture model is 3.5 MB, a token costs microseconds, and llama.cpp's threads
 * spin at each step's barrier: with a thread per core, two test files that each run a model
 * server (scripts/test.mjs runs component files two at a time) would stall each other's spinning
 * threads. One thread computes the same logits (each row of a product is one thread's).
 */
const THREADS = 1;

export async function startModelServer(opts: { port?: number; context?: number; maxTokens?: number } = {}): Promise<ModelServer> {
  if (!modelRuntimeInstalled) throw new Error('node-llama-cpp is not installed: run bash scripts/setup.sh model');
  const mod = await importEsm(pathToFileURL(script).href);
  return mod.spawnModelServer({
    port: opts.port ?? 0,
    threads: THREADS,
    ...(opts.context ? { context: opts.context } : {}),
    ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}),
  });
}
