// The metrics webview's one handle on VS Code: posting typed messages to the extension and the
// state VS Code keeps across a reload of the webview (options, collapsed sections).
// acquireVsCodeApi may be called only once per webview, hence this module.
import type { ViewOptions } from '../protocol/view-options';
import type { WebviewMessage } from '../protocol/view-protocol';

export interface SavedState {
  options?: ViewOptions;
  collapsed?: string[];
  /** The view chosen in the switch (view-switch.ts). */
  view?: string;
  /** The Tasks view's class filter and sort (tasks-view.ts). */
  tasks?: { filter: string; sort: string };
}

const vscode = acquireVsCodeApi<SavedState>();

export function post(m: WebviewMessage): void {
  vscode.postMessage(m);
}

export function savedState(): SavedState | undefined {
  return vscode.getState();
}

/** Saves some fields of the state, keeping the others. */
export function saveState(patch: SavedState): void {
  vscode.setState({ ...vscode.getState(), ...patch });
}
