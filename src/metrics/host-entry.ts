// Entry of the lazily loaded bundle dist/metrics-host.js.
export { MetricsHost, createMetricsHost } from './host';
export { clearStored, connect, disconnect, exportCommand } from './commands';
export { startDemo } from './demo';
