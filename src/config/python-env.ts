// The workspace folder's Python interpreter, as the Python extension (ms-python.python) has
// chosen it, through its public API (`environments.getActiveEnvironmentPath`). Without that
// extension the answer is undefined and the server falls back to `python3`. Never throws,
// never waits more than a moment (the extension may still be activating).
import * as vscode from 'vscode';

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

const PYTHON_EXT = 'ms-python.python';

async function api(waitMs: number): Promise<PythonApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonApi>(PYTHON_EXT);
  if (!ext) return undefined;
  if (ext.isActive) return ext.exports;
  const activated = Promise.resolve(ext.activate()).then(
    (x) => x,
    () => undefined,
  );
  return Promise.race([activated, new Promise<undefined>((r) => setTimeout(() => r(undefined), waitMs))]);
}

/** The interpreter path for a folder (or the window), undefined when unknown. */
export async function interpreterFor(scope: vscode.Uri | undefined, waitMs = 3000): Promise<string | undefined> {
  try {
    const a = await api(waitMs);
    const p = a?.environments?.getActiveEnvironmentPath(scope)?.path;
    return p && p !== 'python' ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Fires when the user picks another interpreter (no-op without the Python extension). */
export function onInterpreterChange(listener: () => void): vscode.Disposable {
  let sub: vscode.Disposable | undefined;
  let disposed = false;
  void api(30_000).then((a) => {
    const ev = a?.environments?.onDidChangeActiveEnvironmentPath;
    if (ev && !disposed) sub = ev(() => listener());
  });
  return {
    dispose: () => {
      disposed = true;
      sub?.dispose();
    },
  };
}
