// "Debug on Ray Cluster…" on a cluster whose Python lacks debugpy, in the real VS Code extension
// host. The dashboard is a STAND-IN: the real cluster of the netns tests has debugpy in its
// Python, and a job's pip install cannot reach a package index from a loopback-only namespace.
// It runs no job: the probe job's log says what a cluster without debugpy prints
// (`AGENTRL_DEBUG_PROBE debugpy=no ray=2.58.0`); packages and jobs are recorded. The command says
// the cluster lacks debugpy and that it is added, and the submitted job's runtime env has it.
import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentRlApi } from '../../../src/extension';
import type { SubmitResult } from '../../../src/ray/commands';
import { until } from '../../harness/wait';

interface Posted {
  submission_id: string;
  entrypoint: string;
  runtime_env?: { pip?: string[]; env_vars?: Record<string, string> };
  metadata?: Record<string, string>;
}

suite('Debug on Ray Cluster: a cluster without debugpy (stand-in dashboard)', () => {
  let server: http.Server;
  let url = '';
  const posted: Posted[] = [];

  suiteSetup(async () => {
    await vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate();
    const packages = new Set<string>();
    server = http.createServer((req, res) => {
      const p = (req.url ?? '').split('?')[0];
      const json = (b: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(b));
      };
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('latin1')));
      req.on('end', () => {
        const job = /^\/api\/jobs\/([^/]+)(\/logs)?$/.exec(p);
        if (p === '/api/version') return json({ version: '4', ray_version: '2.58.0', ray_commit: 'standin', session_name: 'standin' });
        if (p.startsWith('/api/v0/')) return json({ result: true, msg: '', data: { result: { total: 0, result: [] } } });
        if (p === '/api/cluster_status') return json({ result: true, data: { clusterStatus: '' } });
        if (p === '/api/jobs/' && req.method === 'POST') {
          const j = { ...(JSON.parse(body) as Posted), submission_id: `raysubmit_${posted.length}` };
          posted.push(j);
          return json({ job_id: null, submission_id: j.submission_id });
        }
        if (p === '/api/jobs/') return json(posted.map((j) => ({ ...j, status: 'SUCCEEDED', job_id: null })));
        if (p.startsWith('/api/packages/gcs/')) {
          const name = p.slice('/api/packages/gcs/'.length);
          if (req.method === 'PUT') packages.add(name);
          if (req.method === 'PUT' || packages.has(name)) return json({ result: true });
          res.writeHead(404).end();
          return;
        }
        if (job && req.method === 'DELETE') return json({ deleted: true });
        if (job?.[2]) {
          const j = posted.find((x) => x.submission_id === job[1]);
          return json({ logs: j?.metadata?.['agentrl.role'] === 'probe' ? 'AGENTRL_DEBUG_PROBE debugpy=no ray=2.58.0\n' : '' });
        }
        if (job) {
          const j = posted.find((x) => x.submission_id === job[1]);
          if (j) return json({ ...j, status: 'SUCCEEDED', job_id: null });
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('agentrl.ray.disconnect', { cluster: url });
    server?.close();
  });

  test('it says the cluster lacks debugpy and adds it to the job’s runtime env', async () => {
    const said: string[] = [];
    const show = vscode.window.showInformationMessage;
    (vscode.window as { showInformationMessage: unknown }).showInformationMessage = (m: string, ...rest: never[]) => {
      said.push(m);
      return show(m, ...rest);
    };
    try {
      const cluster = await vscode.commands.executeCommand<string>('agentrl.ray.connect', { url, name: 'no-debugpy cluster' });
      assert.ok(cluster, 'connected');
      const ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
      const r = await vscode.commands.executeCommand<SubmitResult | undefined>('agentrl.ray.debugSubmit', {
        config: path.join(ws, 'gsm8k', 'gsm8k.yaml'),
        cluster,
        entrypoint: 'python job.py',
        debug: { postMortem: false },
        metrics: 'none',
      });
      assert.ok(r, 'submitted');
      assert.strictEqual(r.debug?.debugpy, false, 'the probe found no debugpy');
      const message = await until('the message', () => said.find((m) => /debugpy/.test(m)));
      assert.strictEqual(message, 'Debugging on Ray 2.58.0: RAY_DEBUG=1 is set; the cluster lacks debugpy, so it is added to the job’s runtime env (pip).');
      const run = posted.find((j) => j.submission_id === r.submissionId);
      assert.ok(run, 'the run was posted');
      assert.ok(
        run.runtime_env?.pip?.some((p) => /^debugpy\b/.test(p)),
        `debugpy in the runtime env's pip: ${JSON.stringify(run.runtime_env)}`,
      );
      assert.strictEqual(run.runtime_env?.env_vars?.RAY_DEBUG, '1');
      assert.strictEqual(posted[0].metadata?.['agentrl.role'], 'probe', 'the cluster was asked first');
    } finally {
      (vscode.window as { showInformationMessage: unknown }).showInformationMessage = show;
    }
  });
});
