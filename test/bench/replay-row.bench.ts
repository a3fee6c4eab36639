// `npm run bench -- replay-row [--trials N]`: what Debug this rollout costs before the user sees
// the first stop. The demo run (demo/demo_trainer.py, the stand-in for the GPU trainer: real
// rollouts of the llama.cpp fixture model over the sample's tool-calling taskset) writes a job
// dir; one of its rows is then
//   ours: replayed — the metrics view's own steps (the job dir's config copy, the workspace
//         config of the same run, src/metrics/replay/), then the debug session of
//         replayLaunchConfig (`rollout: {fromJob, id}`): the row read from the buffer, its task
//         found by task_index, the recorded answers served;
//   peer: the same debug session as launch.json starts it on the same task (`tasks: [id]`,
//         the live model).
// Both in the debug adapter of this process (src/debug/dap/session.ts) over a real DAP socket,
// the real config engine, the Python runner; time from the launch request to the first
// `stopped` event (breakOn llm: the first model call, before it is made). Trials alternate.
// Ends with: BENCH replay-row ratio=<ours / peer> replay_ms=<median> launch_ms=<median> trials=<n>
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { createConfigChecker } from '../../src/config/engine/checker';
import { silentLogger } from '../../src/base/log';
import { RolloutDebugSession } from '../../src/debug/dap/session';
import { createExperienceReader } from '../../src/relay/experience-reader';
import { configCandidates, configIdentity, jobConfigCopy } from '../../src/metrics/replay/run-config';
import { replayLaunchConfig } from '../../src/metrics/replay/launch-config';
import { runDemo, type DemoRow } from '../harness/demo-run';
import { startModelServer } from '../harness/model-server';
import { repoRoot, venvPython } from '../harness/paths';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** ms from the launch request to the first `stopped` event of a fresh debug session. */
async function firstStop(workspace: string, args: Record<string, unknown>): Promise<number> {
  const checker = createConfigChecker({ roots: [workspace] });
  const server = net.createServer((socket) => {
    const session = new RolloutDebugSession({
      checker,
      logger: silentLogger,
      runnerDir: path.join(repoRoot, 'src', 'debug', 'runner'),
      experiences: createExperienceReader(),
    });
    session.setRunAsServer(true);
    session.start(socket, socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const dc = new DebugClient('node', '', 'agentrl');
  await dc.start((server.address() as net.AddressInfo).port);
  try {
    await dc.initializeRequest({ adapterID: 'agentrl', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const t0 = performance.now();
    const stopped = dc.waitForEvent('stopped', 300_000);
    const configured = dc.waitForEvent('initialized', 60_000).then(() => dc.configurationDoneRequest());
    await Promise.all([configured, dc.launch({ type: 'agentrl', request: 'launch', ...args }), stopped]);
    return performance.now() - t0;
  } finally {
    await dc.disconnectRequest({}).catch(() => undefined);
    await dc.stop().catch(() => undefined);
    server.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { trials: { type: 'string', default: '3' } } });
  const trials = Number(values.trials);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-bench-replay-'));
  const workspace = path.join(tmp, 'workspace');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
  const job = path.join(workspace, '.agentrl', 'demo', 'demo-run');
  const model = await startModelServer();
  try {
    const usable = (r: DemoRow) => r.taskIndex !== null && r.messages.at(-1)?.role === 'assistant';
    const rows = await runDemo({ jobDir: job, workspace, modelUrl: model.url, enough: (r) => r.some(usable) });
    const row = rows.find(usable)!;
    console.log(`demo run: ${rows.length} rows; replaying #${row.id} (task ${row.taskId}, index ${row.taskIndex})`);
    const sample = path.join(workspace, 'toolcall', 'toolcall.yaml');
    const common = { python: venvPython, pythonDebugger: false, breakOn: ['llm'] };
    const replay = async () => {
      // The metrics view's steps before the session: the config of the run, the launch config.
      const [c] = configCandidates(job, jobConfigCopy(job), [configIdentity(sample, fs.readFileSync(sample, 'utf8'))!]);
      return firstStop(workspace, { ...common, ...replayLaunchConfig({ name: 'replay', config: c.file, fromJob: job, id: row.id }) });
    };
    const launch = () =>
      firstStop(workspace, { ...common, name: 'launch.json', config: sample, cwd: path.dirname(sample), tasks: [row.taskId], model: { baseUrl: model.url } });
    const ours: number[] = [];
    const peer: number[] = [];
    await launch(); // warm-up: the runner's first import of the workflow module
    for (let i = 0; i < trials; i++) {
      ours.push(await replay());
      peer.push(await launch());
      console.log(`trial ${i + 1}: replay ${ours[i].toFixed(0)} ms, launch.json ${peer[i].toFixed(0)} ms`);
    }
    const r = median(ours) / median(peer);
    console.log(`BENCH replay-row ratio=${r.toFixed(2)} replay_ms=${median(ours).toFixed(0)} launch_ms=${median(peer).toFixed(0)} trials=${trials}`);
  } finally {
    await model.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
