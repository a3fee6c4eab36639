// The API VS Code injects into webviews.
interface VsCodeWebviewApi<S = unknown> {
  postMessage(message: unknown): void;
  getState(): S | undefined;
  setState(state: S): S;
}
declare function acquireVsCodeApi<S = unknown>(): VsCodeWebviewApi<S>;
