// "Connect to Online Explorer" on a Ray job: the explorer URL of a serve-mode run
// from its job — the URL file in the job dir when that dir is on this machine, else the line the
// explorer logged — handed to the online feature through its command (features never import
// each other); that command warns about plain http off loopback and offers the SSH tunnel.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { META } from './api/api-types';
import { explorerUrlFromLog } from './cluster/explorer-url';
import { ONLINE_CONNECT } from '../feature-api/commands';
import { describeError } from './commands';
import type { RayHost } from './ray-host';

export async function connectExplorer(host: RayHost, a: { cluster?: string; id?: string }): Promise<string | undefined> {
  const cluster = host.get(a.cluster);
  if (!cluster || !a.id) return undefined;
  const client = cluster.monitor.client;
  try {
    const job = await client.job(a.id);
    const jobDir = job.metadata?.[META.jobDir];
    const local = jobDir && path.isAbsolute(jobDir) && fs.existsSync(jobDir) && fs.readdirSync(jobDir).some((f) => f.endsWith('_server_url.txt'));
    // A local job dir: the online feature reads the URL file itself (and picks among explorers).
    const target = local ? jobDir : explorerUrlFromLog(await client.logs(a.id));
    if (!target) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'No explorer URL in the log of job {0} yet: a Trinity explorer in mode: serve logs "Starting Trinity Service on <url>" once it is up.',
          a.id,
        ),
      );
      return undefined;
    }
    host.log.info(`ray: job ${a.id}: explorer at ${target}`);
    const ok = await ONLINE_CONNECT.run(vscode.commands, target);
    return ok ? target : undefined;
  } catch (e) {
    void vscode.window.showErrorMessage(describeError(e));
    return undefined;
  }
}
