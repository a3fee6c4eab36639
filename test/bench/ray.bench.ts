// `npm run bench -- ray`: against a real two-node Ray cluster (loopback-only netns, the
// telemetry stand-in of ../shared/fixtures/ray; the trainer is the STAND-IN
// test/fixtures/ray/standin_trainer.py):
//  - submit_to_first_point_s: from "Run on Ray Cluster" (pack + upload + POST /api/jobs/) to the
//    first metric point of the run arriving through the relay job (the data the metrics view
//    draws; the webview's own frame is measured by `npm run bench -- view`);
//  - requests_per_min: dashboard requests per minute of the view's poller while visible
//    (default refresh 3 s; one request in flight; its paused watch included), with the run going.
//    With a task paused and a forwarder up as well, the count is the component test
//    test/component/ray/paused/watch.netns.test.ts (fake clock).
// Re-executes itself under `unshare -n` when not already in a loopback-only namespace.
// Ends with: BENCH ray submit_to_first_point_s=… requests_per_min=…
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RayClient } from '../../src/ray/api/client';
import { runInfo } from '../../src/ray/submit/entrypoint';
import { ClusterMonitor } from '../../src/ray/cluster/monitor';
import { Poller } from '../../src/ray/cluster/poller';
import { PausedWatch, pausedPort, refreshWithPaused } from '../../src/ray/paused/watch';
import { startRelayJob, submitRun } from '../../src/ray/submit/submit';
import { RelayClient } from '../../src/relay-protocol/client';
import { repoRoot, venvPython } from '../harness/paths';
import { raySkipReason, startRayCluster } from '../harness/ray-cluster';
import { pointCount } from '../../src/relay-protocol/points-frame';

const WATCH_S = Number(process.env.RAY_BENCH_WATCH_S ?? 30);

async function main() {
  const why = raySkipReason();
  if (why && !process.env.AGENTRL_IN_NETNS && /network namespace/.test(why)) {
    const r = spawnSync('unshare', ['-n', 'sh', '-c', `ip link set lo up && AGENTRL_IN_NETNS=1 exec "${process.execPath}" "${__filename}"`], {
      stdio: 'inherit',
    });
    process.exit(r.status ?? 1);
  }
  if (why) {
    console.log(`skipped: ${why}`);
    console.log('BENCH ray submit_to_first_point_s=NaN requests_per_min=NaN');
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-raybench-'));
  const cluster = await startRayCluster({ worker: true });
  try {
    const client = new RayClient({ url: cluster.url });
    for (let i = 0; i < 100; i++)
      if (
        await client.version().then(
          () => true,
          () => false,
        )
      )
        break;
      else await new Promise((r) => setTimeout(r, 300));
    const folder = path.join(tmp, 'ws');
    fs.mkdirSync(folder);
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/standin_trainer.py'), path.join(folder, 'standin_trainer.py'));
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/metrics/trinity_job.py'), path.join(folder, 'trinity_job.py'));
    const config = path.join(folder, 'run.yaml');
    fs.writeFileSync(config, `project: bench\nname: run\ncheckpoint_root_dir: ${tmp}/ckpt\n`);
    const info = runInfo('trinity', { project: 'bench', name: 'run', checkpoint_root_dir: `${tmp}/ckpt` });
    const t0 = performance.now();
    const sub = await submitRun(client, {
      folder,
      config,
      info,
      entrypoint: `${venvPython} standin_trainer.py --config run.yaml --steps 200 --interval 1`,
      limitBytes: 100 * 2 ** 20,
      cliBundle: path.join(repoRoot, 'dist/agentrl.js'),
      resources: { gpu_node: 0.5 },
    });
    const relay = await startRelayJob(client, { packageUri: sub.pkg.uri, jobDir: info.jobDir!, forRun: sub.submissionId, resource: 'gpu_node' });
    const rc = new RelayClient({ url: relay.url, experiences: false });
    const first = await new Promise<number>((resolve) => {
      rc.on('points', (b) => pointCount(b) && resolve(performance.now()));
      rc.start();
    });
    const submitToFirst = (first - t0) / 1000;
    console.log(
      `submit → first point through the relay: ${submitToFirst.toFixed(1)} s (package ${(sub.pkg.bytes / 1024).toFixed(0)} KiB, ${sub.pkg.files.length} files)`,
    );
    let requests = 0;
    const monitor = new ClusterMonitor({ url: cluster.url, onRequest: () => requests++ });
    // the view's refresh with its paused watch (the worker table at most every 10 s while a job runs)
    const paused = new PausedWatch(pausedPort(monitor.client));
    const poller = new Poller(() => refreshWithPaused(monitor, paused).then(() => undefined), { visibleMs: 3000 });
    const w0 = performance.now();
    poller.setVisible(true);
    await new Promise((r) => setTimeout(r, WATCH_S * 1000));
    poller.stop();
    const perMin = (requests / ((performance.now() - w0) / 1000)) * 60;
    console.log(`view open ${WATCH_S} s with 2 jobs running: ${requests} dashboard requests (${poller.refreshes} refreshes, one in flight at a time)`);
    await rc.close();
    console.log(`BENCH ray submit_to_first_point_s=${submitToFirst.toFixed(1)} requests_per_min=${perMin.toFixed(0)}`);
  } finally {
    await cluster.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
