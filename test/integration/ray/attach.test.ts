// The `agentrl` attach entry against a Ray too old to list paused tasks, in the real VS Code
// extension host. The dashboard is a STAND-IN (an old Ray cannot be installed here: the
// machine's package index has Ray 2.58 only): it answers as Ray 2.8.1 does, its worker rows
// without `num_paused_threads` and `debugger_port`, one job running. The entry says which Ray it
// found and which is needed, no debug session starts (none left waiting), and the Ray view says
// so under the cluster.
import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as vscode from 'vscode';
import type { AgentRlApi } from '../../../src/extension';
import { until } from '../../harness/wait';

/** The State API's wrapping of rows. */
const rows = (r: unknown[]) => ({ result: true, msg: '', data: { result: { total: r.length, result: r } } });

suite('Attach entry: a Ray without num_paused_threads (stand-in dashboard of Ray 2.8.1)', () => {
  let server: http.Server;
  let url = '';

  suiteSetup(async () => {
    await vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate();
    server = http.createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      const json = (b: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(b));
      };
      if (path === '/api/version') return json({ version: '4', ray_version: '2.8.1', ray_commit: 'standin', session_name: 'standin' });
      if (path === '/api/v0/nodes')
        return json(rows([{ node_id: 'n1', node_ip: '127.0.0.1', state: 'ALIVE', is_head_node: true, resources_total: { CPU: 1 } }]));
      if (path === '/api/jobs/')
        return json([{ submission_id: 'raysubmit_old', job_id: '01000000', status: 'RUNNING', entrypoint: 'python job.py', start_time: 1, metadata: {} }]);
      if (path === '/api/jobs/raysubmit_old/logs') return json({ logs: 'waiting at a breakpoint()\n' });
      if (path === '/api/cluster_status') return json({ result: true, data: { clusterStatus: '' } });
      if (path === '/api/v0/workers')
        return json(rows([{ worker_id: 'w1', ip: '127.0.0.1', pid: 4242, node_id: 'n1', is_alive: true, worker_type: 'WORKER', start_time_ms: 1 }]));
      if (path.startsWith('/api/v0/')) return json(rows([]));
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('agentrl.ray.disconnect', { cluster: url });
    server?.close();
  });

  test('the entry says which Ray it found and which is needed; no session starts', async () => {
    // what the extension shows: its errors, read where it calls them (the same `vscode.window` object)
    const said: string[] = [];
    const show = vscode.window.showErrorMessage;
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (m: string, ...rest: never[]) => {
      said.push(m);
      return show(m, ...rest);
    };
    try {
      const started = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], {
        type: 'agentrl',
        request: 'attach',
        name: 'Attach to the old cluster',
        ray: { dashboard: url },
      });
      assert.strictEqual(started, false, 'no session');
      assert.strictEqual(vscode.debug.activeDebugSession, undefined, 'none left waiting');
      const message = await until('the message', () => said.find((m) => /num_paused_threads/.test(m)));
      assert.match(
        message,
        /This Ray \(2\.8\.1\) does not report paused tasks .*Ray 2\.9\.0 and later do\): nothing to wait for\. Upgrade Ray on the cluster\./,
      );
      // the Ray view says it too, under the cluster
      const api = await vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate();
      const tree = api.ray.host().tree;
      const cluster = tree.getChildren().find((c) => c.type === 'cluster' && c.cluster === url);
      assert.ok(cluster, 'the cluster is in the view');
      const row = tree.getChildren(cluster).find((r) => r.type === 'info' && /does not report paused tasks/.test(r.label));
      assert.ok(row?.type === 'info', 'a row under the cluster');
      assert.strictEqual(
        row.label,
        'Ray 2.8.1 does not report paused tasks: a breakpoint() pauses the job, but this view cannot list it (Ray 2.9.0 and later do).',
      );
      assert.strictEqual(row.severity, 'warning');
    } finally {
      (vscode.window as { showErrorMessage: unknown }).showErrorMessage = show;
    }
  });
});
