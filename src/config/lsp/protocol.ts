// What the config language server and its client say to each other beyond LSP: typed message
// objects both sides import, so a method name and its parameters are written once. Built from
// the vscode-jsonrpc that vscode-languageclient uses (vscode-languageserver pins an older copy
// of its own): the client checks a message type's parameter structure by identity against its
// copy, while the server library sends a typed notification by its method name.
import { NotificationType } from 'vscode-jsonrpc';
import type { ConfigKind } from '../../feature-api/config-checker';
import type { TrinityVersionInForce } from '../workspace/trinity-version';

export interface KindParams {
  uri: string;
  kind: ConfigKind | null;
  /** How the kind was decided: modeline, glob, content… */
  by: string;
  /** Trinity-RFT release the checks target. */
  trinityVersion: string;
  /** The version in force and where it came from (status bar hover). */
  trinity?: TrinityVersionInForce;
}

/** Settings under `agentrl.config.*` (package.json) as the server reads them. */
export interface ServerSettings {
  enable: boolean;
  /** `{ glob: kind }` overrides. */
  files: Record<string, string>;
  env: Record<string, string>;
  trinityVersion: string;
  debounceMs: number;
  checkPaths: boolean;
  /** Scan the workspace's Python files and YAML configs (names, cross-file). */
  scanWorkspace: boolean;
  /** Not settings of their own: the client adds them to each folder's answer. */
  /** The folder's Python interpreter (Python extension), '' = `python3`. */
  pythonPath: string;
  /** Whether the server may run that interpreter to ask for trinity-rft (trusted workspaces only). */
  probePython: boolean;
}

/** Server → client: the kind of a document (for the status bar). */
export const KindNotification = new NotificationType<KindParams>('agentrl/documentKind');

export const DEFAULT_SETTINGS: ServerSettings = {
  enable: true,
  files: {},
  env: {},
  trinityVersion: 'auto',
  debounceMs: 150,
  checkPaths: true,
  scanWorkspace: true,
  pythonPath: '',
  probePython: false,
};
