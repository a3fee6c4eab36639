import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentRlApi } from '../../src/extension';

export const EXTENSION_ID = 'agentrl.agent-rl-studio';

/** Activates the extension under test and returns its API. */
export async function activated(): Promise<AgentRlApi> {
  const ext = vscode.extensions.getExtension<AgentRlApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in the host`);
  return ext.activate();
}

suite('extension shell', () => {
  test('runs in a real Node extension host of VS Code 1.100', () => {
    assert.ok(process.versions.node, 'not a Node extension host');
    assert.match(vscode.version, /^1\.1\d\d\./);
    assert.ok(vscode.env.remoteName, 'expected the remote (server) extension host');
  });

  test('activates and reports its version and activation time', async () => {
    const api = await activated();
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    assert.strictEqual(ext.isActive, true);
    assert.strictEqual(api.version, (ext.packageJSON as { version: string }).version);
    assert.ok(api.activationMs >= 0 && api.activationMs < 1000, `activationMs=${api.activationMs}`);
  });

  test('"Agent RL: Show Output" is contributed and runs', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('agentrl.showOutput'));
    const shown = await vscode.commands.executeCommand<boolean>('agentrl.showOutput');
    assert.strictEqual(shown, true);
  });

  test('the contributed command has a localized title and the Agent RL category', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const cmd = (ext.packageJSON as { contributes: { commands: { command: string; title: string; category: string }[] } }).contributes.commands.find(
      (c) => c.command === 'agentrl.showOutput',
    );
    assert.ok(cmd);
    // package.nls.json placeholders are resolved by VS Code when it reads the manifest.
    assert.strictEqual(cmd.category, 'Agent RL');
    assert.strictEqual(cmd.title, 'Show Output');
  });
});
