// The metrics feature's host bundle (dist/metrics-host.js): what src/metrics/activate.ts loads on
// first use — ws, the store, the relay client — and the command flows it runs.
import type * as vscode from 'vscode';
import type { Logger } from '../base/log';
import { MetricsHost, type MetricsHostOptions } from './metrics-host';

export type { MetricsHost } from './metrics-host';

export function createMetricsHost(context: vscode.ExtensionContext, log: Logger, opts?: MetricsHostOptions): MetricsHost {
  return new MetricsHost(context, log, opts);
}
export { clearStored, connect, disconnect, exportCommand } from './commands';
export { connectDemo, startDemo } from './demo';
export { debugRollout, rescoreSteps } from './replay-flows';
