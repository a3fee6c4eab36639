// `npm run bench -- gateway [--calls N]`: what the recording gateway adds to an LLM call.
// This process plays the extension host: the rollout runtime's full call path (episode
// lookup, stop checks, JSON forwarding, recording to recording.jsonl) on its gateway,
// against the real llama.cpp model server (own process). The workflow's client runs in a
// process of its own (gateway-client.ts) as the Python runner does, and sends the same
// requests with the same client and headers to the model server directly, through the
// gateway and through the peer, in rotating order, so all paths see the same machine load.
// A peer in the same run: a bare keep-alive node:http proxy (gateway-peer.ts), the floor any
// proxy in front of the model server pays on this machine.
// Ends with: BENCH gateway overhead_p50_ms=<a> overhead_p99_ms=<b> calls=<n> gateway_cpu_ms=<c> bare_proxy_p50_ms=<d>
import { fork, type ChildProcess } from 'child_process';
import * as diagnostics from 'diagnostics_channel';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import { silentLogger } from '../../src/base/log';
import { HEADER_EPISODE, HEADER_STACK } from '../../src/debug/trajectory/runner-protocol';
import { OpenAIUpstream } from '../../src/debug/gateway/model-endpoint';
import { RolloutRuntime } from '../../src/debug/runtime/rollout-runtime';
import type { LlmTurn } from '../../src/debug/runtime/episode';
import { startModelServer } from '../harness/model-server';
import type { ClientMessage, ClientPlan, PathName, PathSamples } from './gateway-client';

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (x: number) => x.toFixed(3);
const dist = (xs: number[]) => `p50 ${fmt(quantile(xs, 0.5))} ms  p99 ${fmt(quantile(xs, 0.99))} ms`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '200' } } });
  const n = Number(values.calls);
  const model = await startModelServer();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-bench-gw-'));
  const rt = new RolloutRuntime({
    plan: {
      kind: 'trinity',
      cwd: tmp,
      tasks: { source: { type: 'inline', rows: [] } },
      repeat: 1,
      workflow: 'bench',
      workflowArgs: {},
      rewardArgs: {},
      format: {},
      rolloutArgs: {},
      config: {},
    },
    upstream: new OpenAIUpstream({ baseUrl: model.url }),
    python: 'python3',
    runnerDir: '',
    env: {},
    pythonDebugger: false,
    runRoot: tmp,
    meta: {},
    backbone: 'bench',
    logger: silentLogger,
  });
  // Time each call spends in the gateway process: request headers parsed -> reply written.
  const arrived = new WeakMap<object, number>();
  const inGateway: number[] = [];
  const onStart = ({ request }: { request: object }) => arrived.set(request, performance.now());
  const onFinish = ({ request }: { request: object }) => {
    const t = arrived.get(request);
    if (t !== undefined) inGateway.push(performance.now() - t);
  };
  diagnostics.subscribe('http.server.request.start', onStart as (m: unknown) => void);
  diagnostics.subscribe('http.server.response.finish', onFinish as (m: unknown) => void);
  let peer: ChildProcess | undefined;
  const client = fork(path.join(__dirname, 'gateway-client.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const gw = await rt.openGateway();
    const episode = rt.beginEpisode('bench');
    // What the runner's client sends with every call: its episode and the workflow's stack.
    const stack = [
      { path: path.join(tmp, 'workflow.py'), line: 42, name: 'run_episode' },
      { path: path.join(tmp, 'workflow.py'), line: 88, name: 'run' },
    ];
    peer = fork(path.join(__dirname, 'gateway-peer.js'), [model.url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const peerUrl = await new Promise<string>((resolve, reject) => {
      peer!.once('message', (m) => resolve(typeof m === 'string' ? m : JSON.stringify(m)));
      peer!.once('exit', (code) => reject(new Error(`peer proxy exited (${code})`)));
    });
    const plan: ClientPlan = {
      direct: { baseURL: model.url, apiKey: 'none' },
      gateway: { baseURL: gw.url, apiKey: gw.apiKey },
      peer: { baseURL: peerUrl, apiKey: 'none' },
      headers: { [HEADER_EPISODE]: episode.id, [HEADER_STACK]: Buffer.from(JSON.stringify(stack)).toString('base64') },
      body: { model: 'tiny-toolcall', messages: [{ role: 'user', content: 'Hello' }], temperature: 0, max_tokens: 2 },
      warmup: 20,
      calls: n,
    };
    let cpu0 = process.cpuUsage();
    let turns0 = 0;
    const results = await new Promise<Record<PathName, PathSamples>>((resolve, reject) => {
      client.on('message', (m: ClientMessage) => {
        if (m === 'warm') {
          inGateway.length = 0;
          turns0 = episode.turns.length;
          cpu0 = process.cpuUsage();
          client.send('go');
        } else resolve(m);
      });
      client.once('exit', (code) => reject(new Error(`bench client exited (${code}) before reporting`)));
      client.send(plan);
    });
    const cpu = process.cpuUsage(cpu0);
    const d = results.direct.ms;
    const g = results.gateway.ms;
    // Same round, same request, same server: what going through the gateway added.
    const pairs = g.map((x, i) => x - d[i]);
    const floor = results.peer.ms.map((x, i) => x - d[i]);
    const floorP50 = quantile(floor, 0.5);
    const upstream = episode.turns
      .slice(turns0)
      .filter((t): t is LlmTurn => t.kind === 'llm')
      .map((t) => t.latencyMs ?? 0);
    const own = inGateway.map((x, i) => x - (upstream[i] ?? 0));
    const gatewayCpu = (cpu.user + cpu.system) / 1000 / n;
    console.log(
      `gateway bench: ${n} chat calls each way from one client process (openai SDK, same options and headers) to ${model.url} (tiny-toolcall, max_tokens 2), directly, through the gateway and through a bare proxy, in rotating order`,
    );
    console.log(`  per call: client latency minus the model server's own generation time`);
    console.log(`    direct   ${dist(d)}`);
    console.log(`    gateway  ${dist(g)}`);
    console.log(`    bare proxy (peer) ${dist(results.peer.ms)}`);
    console.log(`  overhead per call (gateway minus direct, paired by round): ${dist(pairs)}  (target p50 <= 1 ms)`);
    console.log(
      `  peer: a bare keep-alive node:http proxy (gateway-peer.ts) adds ${dist(floor)}; gateway / bare proxy (p50) = ${(quantile(pairs, 0.5) / floorP50).toFixed(2)}`,
    );
    console.log(`  inside the gateway process, outside the upstream call (headers in -> reply written, minus upstream latency): ${dist(own)}`);
    console.log(`  gateway process CPU per call: ${fmt(gatewayCpu)} ms (user ${fmt(cpu.user / 1000 / n)}, system ${fmt(cpu.system / 1000 / n)})`);
    console.log(
      `  client process CPU per call: direct ${fmt(mean(results.direct.cpu))} ms, gateway ${fmt(mean(results.gateway.cpu))} ms (same client, same work)`,
    );
    console.log(
      `BENCH gateway overhead_p50_ms=${fmt(quantile(pairs, 0.5))} overhead_p99_ms=${fmt(quantile(pairs, 0.99))} calls=${n} gateway_cpu_ms=${fmt(gatewayCpu)} bare_proxy_p50_ms=${fmt(floorP50)}`,
    );
  } finally {
    diagnostics.unsubscribe('http.server.request.start', onStart as (m: unknown) => void);
    diagnostics.unsubscribe('http.server.response.finish', onFinish as (m: unknown) => void);
    if (client.exitCode === null) client.kill();
    if (peer && peer.exitCode === null) peer.kill();
    await rt.terminate();
    await model.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
