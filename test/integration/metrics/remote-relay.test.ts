// "Connect to Training Run… → Start a relay on a remote node…": the instructions name the two
// relay files of this installation, and the commands they give run — the Python relay first
// (a GPU node without Node), then the Node relay.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { remoteRelayInstructions } from '../../../src/metrics/remote-relay';

suite('metrics: instructions for a relay on a remote node', () => {
  test('both commands, Python first, with files that exist and run', () => {
    const ext = vscode.extensions.getExtension('agentrl.agent-rl-studio')!;
    const text = remoteRelayInstructions(ext.extensionPath);
    const scp = [...text.matchAll(/^scp (\S+) gpu-node:\S+$/gm)].map((m) => m[1]);
    assert.deepStrictEqual(
      scp.map((f) => path.basename(f)),
      ['agentrl_relay.py', 'agentrl.js'],
      text,
    );
    assert.ok(text.indexOf('python3 agentrl_relay.py --job-dir') < text.indexOf('node agentrl.js relay --job-dir'), 'the Python command comes first');
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-node-'));
    for (const f of scp) {
      assert.ok(fs.existsSync(f), `${f} is installed`);
      fs.copyFileSync(f, path.join(home, path.basename(f)));
    }
    const py = spawnSync('python3', [path.join(home, 'agentrl_relay.py'), '--help'], { encoding: 'utf8' });
    assert.strictEqual(py.status, 0, py.stderr);
    assert.match(py.stdout, /--job-dir DIR/);
    const js = spawnSync(process.execPath, [path.join(home, 'agentrl.js'), 'relay', '--help'], {
      encoding: 'utf8',
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    assert.strictEqual(js.status, 0, js.stderr);
    assert.match(js.stdout, /--job-dir DIR/);
    fs.rmSync(home, { recursive: true, force: true });
  });
});
