// The workflow side of `npm run bench -- gateway`, in a process of its own as the Python
// runner is in a real run (so the gateway process does gateway work only). One factory makes
// every client: the same openai SDK options and the same headers the runner sends (episode +
// caller stack), only the base URL and key differ. Calls rotate through every order of the
// model server directly, the gateway and the bare peer proxy; the parent gets, per call, the latency minus the model
// server's own generation time and this process's CPU time.
//   forked by gateway.bench.ts: parent -> plan, child -> 'warm', parent -> 'go', child -> results
import OpenAI from 'openai';

export interface ClientPlan {
  direct: { baseURL: string; apiKey: string };
  gateway: { baseURL: string; apiKey: string };
  /** The bare proxy of gateway-peer.ts (the floor any proxy pays here). */
  peer: { baseURL: string; apiKey: string };
  headers: Record<string, string>;
  body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  warmup: number;
  calls: number;
}

export interface PathSamples {
  /** Client latency minus the server's generation time (`timings.ms`), ms. */
  ms: number[];
  /** This process's CPU time for the call, ms. */
  cpu: number[];
}

export type PathName = 'direct' | 'gateway' | 'peer';
export type ClientMessage = 'warm' | Record<PathName, PathSamples>;

const ORDERS: PathName[][] = [
  ['direct', 'gateway', 'peer'],
  ['gateway', 'peer', 'direct'],
  ['peer', 'direct', 'gateway'],
  ['direct', 'peer', 'gateway'],
  ['peer', 'gateway', 'direct'],
  ['gateway', 'direct', 'peer'],
];

async function run(plan: ClientPlan): Promise<void> {
  const client = (target: { baseURL: string; apiKey: string }) => new OpenAI({ ...target, maxRetries: 0, defaultHeaders: plan.headers });
  const paths = { direct: client(plan.direct), gateway: client(plan.gateway), peer: client(plan.peer) };
  const samples = (): PathSamples => ({ ms: [], cpu: [] });
  const out: Record<PathName, PathSamples> = { direct: samples(), gateway: samples(), peer: samples() };
  const call = async (name: PathName, keep: boolean) => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = (await paths[name].chat.completions.create(plan.body)) as unknown as { timings?: { ms?: number } };
    const ms = performance.now() - t0 - (r.timings?.ms ?? 0);
    const cpu = process.cpuUsage(cpu0);
    if (keep) {
      out[name].ms.push(ms);
      out[name].cpu.push((cpu.user + cpu.system) / 1000);
    }
  };
  const names: PathName[] = ['direct', 'gateway', 'peer'];
  for (let i = 0; i < plan.warmup; i++) await call(names[i % 3], false);
  // The parent starts counting its CPU time now.
  const go = new Promise<void>((resolve) => process.once('message', () => resolve()));
  process.send!('warm' satisfies ClientMessage);
  await go;
  for (let i = 0; i < plan.calls; i++) {
    // every order of the three paths in turn: none always goes first or last
    for (const name of ORDERS[i % ORDERS.length]) await call(name, true);
  }
  process.send!(out satisfies ClientMessage, () => process.exit(0));
}

process.once('message', (plan: ClientPlan) => {
  run(plan).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
});
