// The workflow side of `npm run bench -- gateway`, in a process of its own as the Python
// runner is in a real run (so the gateway process does gateway work only). One factory makes
// both clients: the same openai SDK options and the same headers the runner sends (episode +
// caller stack), only the base URL and key differ. Calls alternate ABBA between the model
// server directly and the gateway; the parent gets, per call, the latency minus the model
// server's own generation time and this process's CPU time.
//   forked by gateway.bench.ts: parent -> plan, child -> 'warm', parent -> 'go', child -> results
import OpenAI from 'openai';

export interface ClientPlan {
  direct: { baseURL: string; apiKey: string };
  gateway: { baseURL: string; apiKey: string };
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

export type ClientMessage = 'warm' | { direct: PathSamples; gateway: PathSamples };

async function run(plan: ClientPlan): Promise<void> {
  const client = (target: { baseURL: string; apiKey: string }) => new OpenAI({ ...target, maxRetries: 0, defaultHeaders: plan.headers });
  const paths = { direct: client(plan.direct), gateway: client(plan.gateway) };
  const out = { direct: { ms: [] as number[], cpu: [] as number[] }, gateway: { ms: [] as number[], cpu: [] as number[] } };
  const call = async (name: 'direct' | 'gateway', keep: boolean) => {
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
  for (let i = 0; i < plan.warmup; i++) await call(i % 2 ? 'gateway' : 'direct', false);
  // The parent starts counting its CPU time now.
  const go = new Promise<void>((resolve) => process.once('message', () => resolve()));
  process.send!('warm' satisfies ClientMessage);
  await go;
  for (let i = 0; i < plan.calls; i++) {
    // ABBA: neither path always goes first
    const order = i % 2 ? (['direct', 'gateway'] as const) : (['gateway', 'direct'] as const);
    for (const name of order) await call(name, true);
  }
  process.send!(out satisfies ClientMessage, () => process.exit(0));
}

process.once('message', (plan: ClientPlan) => {
  run(plan).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
});
