#!/usr/bin/env node
// `npm start` — the newcomer's main job: build + package the extension, install the VSIX into
// a sandbox code-server, serve a copy of the sample workspace (.sandbox/sample-workspace,
// git-ignored: edits and the wizard's output never touch the tracked sample-workspace/),
// start the tiny model and the demo run (demo/demo_trainer.py, "demo: simulated trainer"),
// print the URL. Ctrl+C stops every process this script started (each in its own group).
//   npm start [-- --port 8080 --host 127.0.0.1 --reset --no-demo --workspace DIR]
// --reset: a fresh copy of sample-workspace/ (the copy is kept between runs otherwise).
// --workspace DIR: serve DIR itself instead of the sandbox copy.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const { values: opts } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.AGENTRL_PORT ?? '8080' },
    host: { type: 'string', default: '127.0.0.1' },
    workspace: { type: 'string' },
    reset: { type: 'boolean', default: false },
    // Where the copy lives (git-ignored; tests use their own).
    sandbox: { type: 'string', default: path.join('.sandbox', 'sample-workspace') },
    // The demo run: on by default; its speed (seconds per explorer step) and length.
    'no-demo': { type: 'boolean', default: false },
    'demo-step-seconds': { type: 'string', default: '1' },
    'demo-steps': { type: 'string', default: '600' },
    // The tiny tool-calling model the sample's launch.json points at (http://127.0.0.1:8089/v1).
    'model-port': { type: 'string', default: '8089' },
    // For tests: reuse an already packaged VSIX and skip setup/build steps.
    vsix: { type: 'string' },
  },
});
const step = (what, cmd, args) => {
  console.log(`\n== ${what}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    console.error(`npm start: ${what} failed`);
    process.exit(r.status ?? 1);
  }
};

const stateDir = path.join(root, '.vscode-test', 'start');
const vsix = opts.vsix ? path.resolve(opts.vsix) : path.join(stateDir, 'agent-rl-studio.vsix');
const extensionsDir = path.join(stateDir, 'extensions');
fs.mkdirSync(stateDir, { recursive: true });
if (!opts.vsix) {
  step('setup (apt packages, code-server, model server runtime)', 'bash', ['scripts/setup.sh', 'apt', 'code-server', 'model']);
  step('package the extension', process.execPath, ['scripts/package.mjs', '--out', vsix]);
  step('compile the sandbox tooling', path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', '.']);
}

const { installVsix, startServer } = await import(path.join(root, 'out', 'test', 'harness', 'vscode-server.js'));
console.log('\n== install the VSIX into the sandbox');
fs.rmSync(extensionsDir, { recursive: true, force: true });
fs.mkdirSync(extensionsDir, { recursive: true });
process.stdout.write(await installVsix(vsix, extensionsDir));

const stoppers = [];
let stopping = false;
async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping…');
  for (const stop of stoppers.reverse()) await stop().catch((e) => console.error(e));
  process.exit(code);
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

console.log('\n== start the model server (tiny-toolcall on llama.cpp, CPU)');
const { spawnModelServer } = await import('./model-server.mjs');
let model;
try {
  model = await spawnModelServer({ port: Number(opts['model-port']) });
} catch (e) {
  console.error(
    `npm start: the model server did not start on port ${opts['model-port']} (${e.message.split('\n')[0]}).\n` +
      'Is the port taken? Try: npm start -- --model-port <free port>.',
  );
  await stopAll(1);
}
stoppers.push(() => model.stop());

// The sandbox: a copy of sample-workspace/ under a git-ignored folder (fresh with --reset).
const workspace = path.resolve(opts.workspace ?? opts.sandbox);
if (!opts.workspace) {
  if (opts.reset) fs.rmSync(workspace, { recursive: true, force: true });
  if (!fs.existsSync(workspace)) {
    fs.cpSync(path.join(root, 'sample-workspace'), workspace, { recursive: true });
    console.log(`\n== a fresh copy of sample-workspace/ in ${path.relative(root, workspace)}`);
  }
  // The copy's debug entries use this run's model port.
  const launch = path.join(workspace, '.vscode', 'launch.json');
  if (fs.existsSync(launch)) fs.writeFileSync(launch, fs.readFileSync(launch, 'utf8').replace(/http:\/\/127\.0\.0\.1:\d+\/v1/g, model.url));
}

// The demo run: a stand-in trainer writing a Trinity job dir with real rollouts of the model.
const DEMO_NAME = 'demo: simulated trainer';
// The fixture model's folder: its GGUF (served) and its tokenizer (tokenizer.json, chat template).
const MODEL_DIR = path.join(root, 'test', 'fixtures', 'tiny-toolcall');
// The copy's toolcall.yaml names `model_path: tiny-toolcall`, a folder beside the config as a
// real run's would be: its tokenizer files (not the weights: the model server has those) are put
// there, so the debugger's token views read the model's own tokenizer and chat template.
if (!opts.workspace && fs.existsSync(path.join(workspace, 'toolcall'))) {
  const into = path.join(workspace, 'toolcall', 'tiny-toolcall');
  fs.mkdirSync(into, { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) fs.copyFileSync(path.join(MODEL_DIR, f), path.join(into, f));
}
let demo;
if (!opts['no-demo']) {
  // A job dir of its own each start (a new run, not the last one's steps again); the extension
  // forgets the previous demo run when it connects this one. The older job dirs were ours: gone.
  const demoRoot = path.join(workspace, '.agentrl', 'demo');
  for (const old of fs.existsSync(demoRoot) ? fs.readdirSync(demoRoot) : [])
    if (old.startsWith('demo-run')) fs.rmSync(path.join(demoRoot, old), { recursive: true, force: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const jobDir = path.join(demoRoot, `demo-run-${stamp}`);
  fs.mkdirSync(jobDir, { recursive: true });
  const python = process.platform === 'win32' ? 'python' : 'python3';
  // --model-path: the job dir's config copy names the model's folder, whose tokenizer the
  // metrics view's Tokens reads the buffer's ids with.
  const args = [
    path.join(root, 'demo', 'demo_trainer.py'),
    '--job-dir',
    jobDir,
    '--model-url',
    model.url,
    '--model-path',
    MODEL_DIR,
    '--step-seconds',
    opts['demo-step-seconds'],
    '--steps',
    opts['demo-steps'],
  ];
  // The sample's tool-calling taskset and config: the demo's rows carry their task_index into
  // it, so Debug This Rollout replays them through the sample's workflow and reward.
  const toolcall = path.join(workspace, 'toolcall');
  if (fs.existsSync(path.join(toolcall, 'toolcall.yaml')))
    args.push('--taskset', path.join(toolcall, 'data', 'train.jsonl'), '--workflow-config', path.join(toolcall, 'toolcall.yaml'));
  const child = spawn(python, args, { stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const ok = await new Promise((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', () => resolve(false));
  });
  if (ok) {
    demo = { jobDir, child };
    stoppers.push(
      () =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {
            done();
          }
        }),
    );
  } else {
    console.error(`npm start: could not run ${python}: the demo run is off (the rest of the sandbox works).`);
  }
}
// What the extension reads in the sandbox: the model to debug against, the demo to connect.
// `created` identifies this copy: the walkthrough opens once per fresh copy.
const markerFile = path.join(workspace, '.agentrl', 'sandbox.json');
let created = new Date().toISOString();
try {
  created = JSON.parse(fs.readFileSync(markerFile, 'utf8')).created ?? created;
} catch {
  /* a fresh copy */
}
fs.mkdirSync(path.dirname(markerFile), { recursive: true });
fs.writeFileSync(
  markerFile,
  JSON.stringify(
    {
      created,
      model: model.url,
      modelPath: MODEL_DIR,
      ...(demo ? { demo: { jobDir: path.relative(workspace, demo.jobDir), name: DEMO_NAME } } : {}),
    },
    null,
    2,
  ) + '\n',
);

const server = await startServer({
  mode: 'code-server',
  host: opts.host,
  port: Number(opts.port),
  extensionsDir,
  dataDir: path.join(stateDir, 'data'),
  // No "application running on port N" toast each time a debug session's gateway opens a port.
  settings: { 'security.workspace.trust.enabled': true, 'remote.autoForwardPorts': false },
});
stoppers.push(() => server.stop());
const url = `${server.base}/?folder=${encodeURIComponent(workspace)}`;
console.log(
  `\nAgent RL Studio sandbox is up:\n\n    ${url}\n\nWorkspace: ${workspace}\nModel:     ${model.url} (tiny-toolcall; used by "Debug toolcall rollouts")\n` +
    `Demo:      ${demo ? `${DEMO_NAME} -> ${path.relative(root, demo.jobDir)} (Agent RL: Show Training Metrics)` : 'off'}\nLogs:      ${server.logFile}\nPress Ctrl+C to stop.`,
);
await new Promise(() => {});
