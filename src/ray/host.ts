// The Ray feature's host bundle (dist/ray-host.js): what src/ray/activate.ts loads on first use —
// the dashboard client, the packer, the cluster monitors — and the command flows it runs.
export { RayHost } from './ray-host';
export { connect, submit, debugSubmit, stopJob, deleteJob, watchMetrics, startLocal, stopLocal } from './commands';
export { runDemo } from './demo';
export { connectExplorer } from './explorer';
export { showStacks, copyDiagnostics } from './diagnose';
export { attach, attachFirst, ownAdapter } from './attach';
export type { PausedTask as PausedTaskArg } from './paused/paused';
export { reachWorker } from './reach-worker';
