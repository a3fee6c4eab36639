// Where a serve-mode Trinity run's explorer listens, found from its Ray job: Trinity's explorer
// writes `<job dir>/<explorer.name>_server_url.txt` and logs "Starting Trinity Service on <url>"
// (trinity/explorer/explorer.py, Explorer.serve), and Ray forwards the actor's log lines to the
// job's log. The job dir is on a node we may not reach; the log always reaches us. Pure.

const SERVICE_LINE = /Starting Trinity Service on (https?:\/\/[^\s"'<>]+)/g;

/** The explorer URL in a job's log: the last one logged (a restarted explorer logs anew). */
export function explorerUrlFromLog(log: string): string | undefined {
  let last: string | undefined;
  for (const m of log.matchAll(SERVICE_LINE)) last = m[1].replace(/[.,;)]+$/, '');
  return last;
}
