// The sandbox's demo training run as a Ray job: a small package folder holding the
// demo's stand-in trainer (demo/demo_trainer.py, "demo: simulated trainer": Python standard
// library only, so any node's python3 runs it) and a Trinity-style config naming the run, so the
// job carries the same metadata (project, name, job dir) as a real Trinity run and the Ray view,
// the log stream and the metrics view treat it exactly like one. Pure: files and strings, no vscode.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runInfo, shellQuote, type RunInfo } from './entrypoint';

export const DEMO_PROJECT = 'agentrl-demo';
export const DEMO_SCRIPT = 'demo_trainer.py';

export interface DemoRunOptions {
  /** Where the package folder and the checkpoints go (e.g. <workspace>/.agentrl/ray-demo). */
  baseDir: string;
  /** The demo trainer shipped with the extension. */
  script: string;
  /** A run name unique enough to tell runs apart (a time stamp). */
  name: string;
  steps: number;
  stepSeconds: number;
  /** An OpenAI-compatible model for real rollouts; '' = simulated rewards only. */
  modelUrl: string;
  /** The interpreter on the cluster's nodes. */
  python?: string;
}

export interface DemoRun {
  /** The folder uploaded as the job's working_dir. */
  folder: string;
  config: string;
  info: RunInfo & { jobDir: string };
  entrypoint: string;
}

export function prepareDemoRun(o: DemoRunOptions): DemoRun {
  if (!/^[\w.-]+$/.test(o.name)) throw new Error(`not a run name: ${o.name}`);
  const folder = path.join(o.baseDir, 'package', o.name);
  // The job dir is absolute: on a local cluster it is this machine's disk, so the metrics view
  // reads it directly (no relay job needed); on a remote one a relay job is started next to it.
  const checkpoints = path.join(o.baseDir, 'checkpoints');
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(o.script, path.join(folder, DEMO_SCRIPT));
  const doc = { project: DEMO_PROJECT, name: o.name, checkpoint_root_dir: checkpoints };
  const config = path.join(folder, 'demo.yaml');
  fs.writeFileSync(
    config,
    `# The demo run's identity for Agent RL Studio (demo: simulated trainer; not a real Trinity config).\n` +
      `project: ${doc.project}\nname: ${doc.name}\ncheckpoint_root_dir: ${JSON.stringify(checkpoints)}\n`,
  );
  const info = runInfo('trinity', doc);
  if (!info.jobDir) throw new Error('demo run: no job dir');
  const argv = [
    o.python ?? 'python3',
    DEMO_SCRIPT,
    '--job-dir',
    info.jobDir,
    '--steps',
    String(o.steps),
    '--step-seconds',
    String(o.stepSeconds),
    '--model-url',
    o.modelUrl,
  ];
  return { folder, config, info: { ...info, jobDir: info.jobDir }, entrypoint: argv.map((a) => (a === '' ? "''" : shellQuote(a))).join(' ') };
}
