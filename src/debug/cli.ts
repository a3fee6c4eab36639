// `agentrl rollout`: the native debug backbone headless (same runner, same recording
// gateway) for CI and terminals. Runs every episode without stopping, prints each
// episode's reward and the run summary; exit 0 when every episode finished without error.
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import type { ConfigChecker } from '../feature-api/config-checker';
import type { ExperienceReader } from '../feature-api/experience-reader';
import { english } from '../base/l10n';
import { comparisonLines, rewardFinding, type RowReplayResult } from './experience/outcome';
import { boundRowReplay, rowReplayOutcome, type RowReplaySetup } from './dap/launch-row';
import type { RolloutRuntime } from './runtime/rollout-runtime';
import { silentLogger } from '../base/log';
import { prepareLaunch } from './dap/launch';
import type { RolloutLaunchArgs } from './runtime/plan';

/** What `agentrl rollout` is given by the CLI it belongs to (src/cli.ts). */
export interface RolloutCliContext {
  /** The config engine (cli.ts injects createConfigChecker from src/config). */
  checker: ConfigChecker;
  /** Reads a training run's experiences (--from-job): the relay's reader, injected by cli.ts. */
  experiences?: ExperienceReader;
  io?: { stdout(s: string): void; stderr(s: string): void };
}

const USAGE = `Usage: agentrl rollout --config FILE [options]

Runs a workflow's rollouts locally (native backbone): tasks from the config's taskset,
every LLM call through a recording gateway to an OpenAI-compatible endpoint (or replayed
from a recorded run). Results go to .agentrl/runs/<timestamp>/.

Options:
  --config FILE           Trinity-RFT / ASTuner / AgentJet YAML (required)
  --tasks N|ID,ID         first N tasks (0 = all; default 1) or a list of task ids
  --repeat N              episodes per task (default 1)
  --split NAME            dataset split
  --workflow SPEC         override the workflow (module->Class, dotted path, registry name)
  --model-base-url URL    OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)
  --model NAME            model name to request (default: the endpoint's)
  --api-key-env VAR       environment variable holding the endpoint's API key
  --timeout SEC           seconds before an LLM call counts as stalled (default 60), a stream included
  --max-reply-mb MB       a model reply larger than this fails its call (default 32)
  --replay DIR            replay a recorded run exactly, with no model
  --from-job DIR|URL      replay one experience of a training run (with --id): its job dir or
                          a relay URL (token in AGENTRL_RELAY_TOKEN). The workflow runs here on the
                          experience's task (the taskset row at its info.task_index), every LLM
                          call answered from the recorded conversation; the reward is recomputed
  --id N                  the experience's row id, as the metrics view shows it
  --live-after-divergence URL
                          when the replay diverges, go on against this OpenAI-compatible
                          endpoint from the call that diverged (--model, --api-key-env apply)
  --max-seconds SEC       a replay that runs longer is stopped (default 300)
  --python PATH           Python interpreter (default: python3)
  --backbone NAME         native (default), trinity, astuner or ajet (upstream debug modes)
  --cwd DIR               working directory of the workflow (default: .)
  --no-record             do not save the run
  --concurrency N         episodes at once (default: the config's runner count)
  --timings               print how long the end of the run took, step by step
  --json                  print the run summary as JSON on stdout
  -h, --help              this help

With --from-job, --json prints {"id", "task_index", "model_version", "recorded_reward",
"reward", "reward_parts": {name: [recorded, now]}, "calls", "diverged_at": null |
{"call", "diff"}, "live_from": null | the call a live model answered from, "task": {"found", "rows", "why", "stand_in", "config", "config_why"}, "slot",
"unchecked", "error", "same"}; exit 0 when the reward (and every part) is the same, 1 when it
differs, the replay diverged or the workflow raised, 2 when it cannot replay (the message says why).
`;

export async function main(argv: string[], context: RolloutCliContext): Promise<number> {
  const io = context.io ?? { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        tasks: { type: 'string' },
        repeat: { type: 'string' },
        split: { type: 'string' },
        workflow: { type: 'string' },
        'model-base-url': { type: 'string' },
        model: { type: 'string' },
        'api-key-env': { type: 'string' },
        timeout: { type: 'string' },
        'max-reply-mb': { type: 'string' },
        replay: { type: 'string' },
        backbone: { type: 'string' },
        python: { type: 'string' },
        cwd: { type: 'string' },
        'no-record': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        concurrency: { type: 'string' },
        timings: { type: 'boolean' },
        'from-job': { type: 'string' },
        id: { type: 'string' },
        'max-seconds': { type: 'string' },
        'live-after-divergence': { type: 'string' },
      },
    }));
  } catch (e) {
    io.stderr(`agentrl rollout: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const num = (name: string): number | undefined => {
    const v = values[name];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, not '${v}'`);
    return n;
  };
  let args: RolloutLaunchArgs;
  try {
    if (!values.config) throw new Error('--config is required');
    if ((values['from-job'] === undefined) !== (values.id === undefined)) throw new Error('--from-job and --id go together');
    const live = values['live-after-divergence'] as string | undefined;
    if (live !== undefined && values['from-job'] === undefined) throw new Error('--live-after-divergence goes with --from-job');
    if (live !== undefined && values['model-base-url'] !== undefined) throw new Error('--live-after-divergence names the endpoint: leave out --model-base-url');
    const cwd = path.resolve(String(values.cwd ?? '.'));
    const tasksArg = values.tasks as string | undefined;
    const tasks =
      tasksArg === undefined
        ? undefined
        : /^\d+$/.test(tasksArg)
          ? Number(tasksArg)
          : tasksArg
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
    args = {
      config: path.resolve(String(values.config)),
      cwd,
      workspaceRoot: cwd,
      tasks,
      repeat: num('repeat'),
      concurrency: num('concurrency'),
      split: values.split as string | undefined,
      workflow: values.workflow as string | undefined,
      model: {
        baseUrl: (values['live-after-divergence'] ?? values['model-base-url']) as string | undefined,
        name: values.model as string | undefined,
        apiKeyEnv: values['api-key-env'] as string | undefined,
        timeout: num('timeout'),
        maxReplyMB: num('max-reply-mb'),
      },
      replay: values.replay ? path.resolve(String(values.replay)) : undefined,
      python: values.python as string | undefined,
      backbone: values.backbone as RolloutLaunchArgs['backbone'],
      record: !values['no-record'],
      ...(values['from-job'] !== undefined
        ? { rollout: { fromJob: String(values['from-job']), id: String(values.id), ...(live !== undefined ? { liveAfterDivergence: true } : {}) } }
        : {}),
    };
  } catch (e) {
    io.stderr(`agentrl rollout: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  // dist/runner next to the bundle; src/debug/runner when run from the compiled sources (out/).
  const runnerDir = [path.join(__dirname, 'runner'), path.join(__dirname, '..', '..', '..', 'src', 'debug', 'runner')].find((d) =>
    fs.existsSync(path.join(d, 'agentrl_runner', '__main__.py')),
  );
  if (!runnerDir) {
    io.stderr('agentrl rollout: the Python runner (runner/agentrl_runner/) is missing next to the CLI\n');
    return 1;
  }
  if (!context.checker) io.stderr('agentrl rollout: note: config engine not available; the config is read but not checked\n');
  // --timings: from the last episode's end to main() returning, step by step.
  const marks: [string, number][] = [];
  const mark = (what: string, at = performance.now()) => marks.push([what, at]);
  const prepared = await prepareLaunch(args, {
    checker: context.checker,
    logger: silentLogger,
    runnerDir,
    experiences: context.experiences,
    ...(values.timings ? { onTiming: mark } : {}),
  });
  if (!prepared.ok) {
    io.stderr(`agentrl rollout: ${prepared.message}\n`);
    return args.rollout ? 2 : 1;
  }
  if (prepared.row) {
    const maxSeconds = num('max-seconds') ?? 300;
    return replayRow(prepared.run as RolloutRuntime, prepared.row, !!values.json, maxSeconds, io);
  }
  const rt = prepared.run;
  rt.disableStops(); // headless: record errors, never stop
  rt.on('output', (o) => (o.category === 'stdout' && !values.json ? io.stdout(o.text) : io.stderr(o.text)));
  rt.on('episodeEnded', (ep) => {
    const line = ep.error ? `${ep.id}: ${ep.error.phase} error ${ep.error.type}: ${ep.error.message}` : `${ep.id}: reward ${ep.reward ?? 'none'}`;
    io.stderr(`${line}\n`);
    mark('last episode ended');
  });
  const ended = new Promise<void>((r) => rt.once('ended', () => r()));
  const stop = () => void rt.terminate();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await rt.start();
  } catch (e) {
    io.stderr(`agentrl rollout: ${(e as Error).message}\n`);
    return 1;
  } finally {
    // start() resolves once the runner runs; the run ends later
  }
  await ended;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  const s = rt.summary;
  if (values.json && s) io.stdout(JSON.stringify({ ...s, dir: rt.runDir }, null, 2) + '\n');
  if (values.timings) io.stderr(formatTimings(marks, performance.now()));
  return s && s.status === 'completed' && s.errors === 0 ? 0 : 1;
}

/** `timings: last episode ended +0.0 ms · run ended +1.2 ms · … · returned +5.3 ms (total 5.3 ms)`. */
function formatTimings(marks: [string, number][], end: number): string {
  const lastEp = marks.filter(([w]) => w === 'last episode ended').pop();
  const t0 = lastEp?.[1] ?? marks[0]?.[1] ?? end;
  const steps = marks.filter(([w, t]) => w !== 'last episode ended' && t >= t0);
  const parts = [['last episode ended', t0] as [string, number], ...steps, ['returned', end] as [string, number]].map(
    ([w, t]) => `${w} +${(t - t0).toFixed(1)} ms`,
  );
  return `timings: ${parts.join(' · ')} (total ${(end - t0).toFixed(1)} ms)\n`;
}

/** Runs a row replay headless and prints its result (exit 0 same, 1 differs / diverged / raised). */
async function replayRow(
  rt: RolloutRuntime,
  row: RowReplaySetup,
  json: boolean,
  maxSeconds: number,
  io: { stdout(s: string): void; stderr(s: string): void },
): Promise<number> {
  rt.disableStops();
  rt.on('output', (o) => io.stderr(o.text));
  const bound = boundRowReplay(rt, row, maxSeconds);
  const ended = new Promise<void>((r) => rt.once('ended', () => r()));
  const onSignal = () => void rt.terminate();
  process.once('SIGINT', onSignal);
  try {
    await rt.start();
  } catch (e) {
    io.stderr(`agentrl rollout: ${(e as Error).message}\n`);
    bound.dispose();
    process.off('SIGINT', onSignal);
    return 2;
  }
  await ended;
  bound.dispose();
  process.off('SIGINT', onSignal);
  const stopped = bound.why();
  const result: RowReplayResult = rowReplayOutcome(rt, row);
  // What stopped the run says more than the episode's "stopped by the user".
  if (stopped) result.error = stopped;
  if (stopped) result.same = false;
  if (json) io.stdout(JSON.stringify(result, null, 2) + '\n');
  else {
    io.stdout(comparisonLines(result, english).join('\n') + '\n');
    if (result.diverged_at) io.stdout(`diverged at LLM call ${result.diverged_at.call}:\n${result.diverged_at.diff}\n`);
    const finding = rewardFinding(result, english);
    if (finding) io.stdout(finding + '\n');
  }
  return result.same ? 0 : 1;
}
