// Entry of dist/ray-host.js: what activate.ts loads on first use of the Ray feature.
export { RayHost } from './host';
export { connect, submit, stopJob, deleteJob, watchMetrics, startLocal, stopLocal, describeError } from './commands';
