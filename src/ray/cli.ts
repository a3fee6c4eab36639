// `agentrl ray …`: the Ray cluster from a terminal. `paused` lists the tasks and actors paused
// at a breakpoint() or post-mortem (Ray's debugpy integration, RAY_DEBUG=1), with the address a
// debugger attaches to — what Ray's own tooling leaves users guessing.
import { parseArgs } from 'node:util';
import { RayClient, RayError } from './api/client';
import { classifyTracebackError } from './diagnostics/stacks';
import { findPaused, pausedLine } from './paused/paused';
import { pausedSupport } from './paused/support';

export const RAY_USAGE = `Usage: agentrl ray paused --dashboard URL [--job ID] [--json]

Lists the Ray workers paused at a breakpoint() or, with RAY_DEBUG_POST_MORTEM=1, on an
exception: job, task or actor, node, the address a debugger attaches to (debugpy, DAP), and
where it stopped when the dashboard takes stacks (RAY_DASHBOARD_ENABLE_PROFILING=1 and py-spy
on the node).

Options:
  --dashboard URL   the Ray dashboard (e.g. http://127.0.0.1:8265, through an SSH tunnel)
  --job ID          only this job (submission id or Ray job id)
  --json            print [{"job", "name", "node", "ip", "port", "pid", "file", "line", "post_mortem"}]

Exit codes: 0 listed (also when none is paused), 1 the dashboard cannot be read, 2 bad usage,
3 this cluster's Ray cannot tell which workers are paused (older than 2.9).
`;

function usageError(msg: string): number {
  process.stderr.write(`agentrl ray: ${msg}\n\n${RAY_USAGE}`);
  return 2;
}

export async function main(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(RAY_USAGE);
    return 0;
  }
  if (sub !== 'paused') return usageError(sub === undefined ? 'which command? (paused)' : `unknown command '${sub}' (paused)`);
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      strict: true,
      options: {
        dashboard: { type: 'string' },
        job: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(RAY_USAGE);
    return 0;
  }
  if (!values.dashboard) return usageError('--dashboard URL is required');
  let client: RayClient;
  try {
    client = new RayClient({ url: values.dashboard });
  } catch (e) {
    return usageError((e as Error).message);
  }
  try {
    const paused = await findPaused(
      {
        workers: () => client.workers(),
        tasksOfWorker: (id) => client.tasksOfWorker(id),
        actors: () => client.actors(),
        jobs: () => client.jobs(),
        stack: async (pid, node) => {
          const r = await client.traceback(pid, node);
          return r.status >= 200 && r.status < 300 ? { text: r.body } : { error: classifyTracebackError(r.status, r.body).kind };
        },
      },
      values.job,
    );
    if (!paused.length) {
      // none paused, or a Ray that cannot say: its workers have no num_paused_threads
      const support = pausedSupport((await client.version()).ray_version, await client.workers());
      if (!support.ok) {
        process.stderr.write(
          `agentrl ray: Ray ${support.rayVersion} on this cluster does not report paused workers (the State API's num_paused_threads, from Ray ${support.since} on). Upgrade Ray on the cluster; 2.39 or later also opens debugpy at breakpoint() without RAY_DEBUG=1.\n`,
        );
        return 3;
      }
    }
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify(paused.map((p) => ({ job: p.job, name: p.name, node: p.node, ip: p.ip, port: p.port, pid: p.pid, file: p.file, line: p.line, post_mortem: p.post_mortem })))}\n`,
      );
      return 0;
    }
    if (!paused.length)
      process.stdout.write(
        `no task is paused${values.job ? ` in job ${values.job}` : ''} (a breakpoint() in a Ray task pauses it when RAY_DEBUG=1, the default since Ray 2.39)\n`,
      );
    for (const p of paused) process.stdout.write(`${pausedLine(p)}\n`);
    const noStack = paused.find((p) => p.stack_error);
    if (noStack)
      process.stdout.write(
        `where each stopped is not known: ${noStack.stack_error === 'profiling-disabled' ? 'start the head with RAY_DASHBOARD_ENABLE_PROFILING=1' : noStack.stack_error === 'py-spy-missing' ? 'install py-spy on the nodes' : `the dashboard could not take the stack (${noStack.stack_error})`}\n`,
      );
    return 0;
  } catch (e) {
    process.stderr.write(`agentrl ray: ${e instanceof RayError ? e.message : (e as Error).message}\n`);
    return 1;
  }
}
