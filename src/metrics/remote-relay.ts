// "Connect to Training Run…" → "Start a relay on a remote node…": how to run a relay next to a
// trainer on a GPU node, as a Markdown document beside the URL prompt. GPU nodes have Python and
// rarely Node, so the Python relay (dist/agentrl_relay.py, standard library only) comes first;
// the Node relay (dist/agentrl.js) is the other command. Both files are named by their path in
// this installation, for scp.
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The instructions for the relays of the extension installed at `extensionPath`. */
export function remoteRelayInstructions(extensionPath: string): string {
  const py = path.join(extensionPath, 'dist', 'agentrl_relay.py');
  const js = path.join(extensionPath, 'dist', 'agentrl.js');
  return [
    `# ${vscode.l10n.t('Start a relay on the training node')}`,
    '',
    vscode.l10n.t(
      'The relay reads what the trainer writes into its job dir (`<checkpoint_root_dir>/<project>/<name>`) and streams it to this window. Run it on the node that writes the job dir.',
    ),
    '',
    `## ${vscode.l10n.t('Python only (any node with Python 3.8 or newer)')}`,
    '',
    '```bash',
    `scp ${py} gpu-node:~/agentrl_relay.py`,
    'ssh gpu-node python3 agentrl_relay.py --job-dir /ckpt/my_project/my_run',
    '```',
    '',
    `## ${vscode.l10n.t('Node (where Node 18 or newer is installed)')}`,
    '',
    '```bash',
    `scp ${js} gpu-node:~/agentrl.js`,
    'ssh gpu-node node agentrl.js relay --job-dir /ckpt/my_project/my_run',
    '```',
    '',
    `## ${vscode.l10n.t('Then connect')}`,
    '',
    vscode.l10n.t(
      "Both listen on the node's loopback (port 8765) and take the same options (`--help`). Open an SSH tunnel and enter `ws://127.0.0.1:8765/` as the relay URL:",
    ),
    '',
    '```bash',
    'ssh -N -L 8765:127.0.0.1:8765 gpu-node',
    '```',
    '',
    vscode.l10n.t('To bind another address, give the relay a token file (`--token-file`) and enter the same token here.'),
    '',
  ].join('\n');
}

/** Opens the instructions beside the editor. */
export async function showRemoteRelayInstructions(extensionPath: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: remoteRelayInstructions(extensionPath) });
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
}
