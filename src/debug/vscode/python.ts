// The Python side of VS Code: which interpreter to run the runner with (the Python
// extension's choice when installed), whether a `debugpy` debugger is there, and the child
// debugpy session that makes breakpoints in workflow code hit in the same debug session.
import * as vscode from 'vscode';

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The Python extension's active interpreter, else python.defaultInterpreterPath, else python3. */
export async function resolveInterpreter(folder: vscode.WorkspaceFolder | undefined): Promise<string> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (ext) {
    try {
      const api = ext.isActive ? ext.exports : await ext.activate();
      const active = api.environments?.getActiveEnvironmentPath(folder?.uri);
      if (active) {
        const env = await api.environments!.resolveEnvironment(active);
        const exe = env?.executable?.uri?.fsPath ?? active.path;
        if (exe) return exe;
      }
    } catch {
      /* fall through to settings */
    }
  }
  const setting = vscode.workspace.getConfiguration('python', folder?.uri).get<string>('defaultInterpreterPath');
  if (setting && setting !== 'python') return setting;
  return process.platform === 'win32' ? 'python' : 'python3';
}

/** True when an installed extension contributes the `debugpy` debug type. */
export function pythonDebuggerAvailable(): boolean {
  return vscode.extensions.all.some((e) => {
    const pkg = e.packageJSON as { contributes?: { debuggers?: { type?: string }[] } } | undefined;
    const debuggers = pkg?.contributes?.debuggers ?? [];
    return debuggers.some((d) => d.type === 'debugpy');
  });
}

/** Attaches a debugpy child session to the runner, managed by the rollout session. */
export async function attachPythonDebugger(parent: vscode.DebugSession, endpoint: { host: string; port: number }): Promise<boolean> {
  return vscode.debug.startDebugging(
    parent.workspaceFolder,
    {
      type: 'debugpy',
      request: 'attach',
      name: vscode.l10n.t('Python: {0}', parent.name),
      connect: { host: endpoint.host, port: endpoint.port },
      justMyCode: true,
      subProcess: false,
    },
    { parentSession: parent, lifecycleManagedByParent: true, compact: true, consoleMode: vscode.DebugConsoleMode.MergeWithParent },
  );
}
