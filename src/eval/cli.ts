// `agentrl eval`: a workflow's tasks run with its own reward against two or more models at once,
// each call recorded like a debug run; prints the per-task table and the verdict. As a CI gate
// (`--fail-if-worse T`) it exits 1 when a model is worse than the first beyond T with the
// interval excluding zero, 0 otherwise, 2 on usage or I/O errors (a dead endpoint included).
// `--runs` compares recorded runs offline, `--rescore` with the workspace's current reward.
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import { maskSecrets, maskUrl, urlSecrets } from '../base/url-secrets';
import type { RolloutService } from '../feature-api/rollouts';
import { compareModels, formatComparison } from './report/table';
import { EvalSetupError, parseModels, runEval } from './run/run-eval';
import { compareRecorded, parseRuns } from './run/offline';
import { loadEval, type EvalRecord } from './run/eval-record';
import { listCheckpoints, serveCommands } from './checkpoints/checkpoints';
import { metricsAt, readEvalSeries } from './checkpoints/step-metrics';
import { bufferRescoreJson, bufferRescoreText } from './stats/advantages';

export interface EvalCliContext {
  /** The rollout debugger's headless runs (cli.ts hands the debugger's implementation over). */
  rollouts: RolloutService;
  io?: { stdout(s: string): void; stderr(s: string): void };
}

const USAGE = `Usage: agentrl eval --config FILE --models NAME=URL NAME=URL [options]
       agentrl eval --config FILE --runs NAME=DIR NAME=DIR [--rescore] [options]
       agentrl eval --config FILE --rescore --from-job DIR|URL --steps A-B [--json]
       agentrl eval --open DIR
       agentrl eval --checkpoints JOB_DIR [--base-model PATH] [--port N]

Runs a workflow's tasks with its own reward against each model at once (every LLM call
recorded as in a debug run, under .agentrl/eval/<id>/) and compares them per task: mean@k,
pass@k, the difference, a paired bootstrap interval and a verdict. The first model is the
baseline. --runs compares recorded runs (debug or eval run folders) without a model;
--rescore re-scores them first with the workspace's current reward function.

--rescore --from-job re-scores a training run's buffer rows instead: every row of model
versions A to B (the metrics view's steps) replayed through the workspace's workflow and
reward, each LLM call answered from the row's recorded conversation (as agentrl rollout
--from-job does), recorded vs now per row, and the GRPO advantages they give (group: the same
task at the same step and model version; (r - mean) / (std + 1e-6), a group of one r / (1 + 1e-6);
a row that could not be re-scored counts with its recorded reward).
A flip is a row whose advantage changes sign (-, 0, +; within 1e-6 of zero is 0). --json prints
{"steps": [A, B], "rows": [{"id", "step", "task_index", "recorded", "now",
"advantage_recorded", "advantage_now", "error"}], "changed", "flips", "errors"}. Exit 1 when a
row changed or could not be re-scored, 0 when none did, 2 on usage or I/O errors.

Options:
  --config FILE           Trinity-RFT / ASTuner / AgentJet YAML (required to run or re-score)
  --models NAME=URL ...   OpenAI-compatible endpoints, the baseline first
  --runs NAME=DIR ...     recorded run folders to compare offline
  --rescore               re-score recorded runs with the current reward function
  --reward SPEC           reward function for --rescore (default: the config's)
  --reward-timeout SEC    seconds one episode's reward (with --from-job: one row's replay) may
                          take when re-scoring; past it that episode fails and its processes are
                          killed (default 60)
  --rescore-timeout SEC   seconds one run's whole re-score may take (default 1800)
  --from-job DIR|URL      with --rescore: a Trinity job dir or relay URL whose buffer rows to re-score
  --steps A-B             with --from-job: the rows' model versions, inclusive (A alone: one)
  --open DIR              print a saved comparison (.agentrl/eval/<id>)
  --checkpoints DIR       a Trinity job's global_step_N checkpoints, the eval metrics its
                          event files logged by each step, and how to serve each
                          (trinity convert where needed, then vllm serve)
  --base-model PATH       the job's model_path, for trinity convert
  --port N                port of the served checkpoint (default 8001)
  --tasks N               first N tasks of the taskset (default 10)
  --repeat K              episodes per task and model (default 4)
  --concurrency N         episodes at once per model (default: the config's runner count)
  --split NAME            dataset split
  --timeout SEC           seconds before an LLM call counts as failed (default 60)
  --max-reply-mb MB       a model reply larger than this fails its call (default 32)
  --python PATH           Python interpreter (default: python3)
  --cwd DIR               working directory of the workflow (default: .)
  --pass-threshold R      reward counted as a pass for pass@k (default 1)
  --seed N                bootstrap seed (default 1)
  --fail-if-worse T       exit 1 when a model is worse than the baseline by more than T
                          with the interval excluding zero
  --json                  print the comparison as JSON on stdout
  -h, --help              this help
`;

export async function main(argv: string[], context: EvalCliContext): Promise<number> {
  const io = context.io ?? { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s) };
  // A model URL's credential (`?api_key=…`) is masked in everything printed.
  const secrets = argv.flatMap((a) => urlSecrets(a));
  const fail = (msg: string): number => {
    io.stderr(`agentrl eval: ${maskSecrets(msg, secrets)}\n`);
    return 2;
  };
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (e) {
    return fail(`${(e as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (values.checkpoints) {
    const list = listCheckpoints(path.resolve(values.checkpoints));
    if (!list.length) return fail(`no global_step_N checkpoint in ${path.resolve(values.checkpoints)}`);
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) return fail(`--port must be a port number, not '${values.port}'`);
    const { series, problems } = readEvalSeries(path.resolve(values.checkpoints));
    for (const p of problems) io.stderr(`agentrl eval: cannot read ${p}\n`);
    const out = list.map((c) => ({ ...c, metrics: metricsAt(series, c.step) ?? null, ...serveCommands(c, { baseModel: values['base-model'], port }) }));
    if (values.json) io.stdout(JSON.stringify(out, null, 2) + '\n');
    else {
      for (const c of out) {
        const evals = c.metrics
          ? `  eval at step ${c.metrics.step}: ${Object.entries(c.metrics.values)
              .map(([k, v]) => `${k} ${v.toFixed(3)}`)
              .join(' · ')}\n`
          : '  no evaluation logged by this step\n';
        io.stdout(
          `step ${c.step}${c.servable ? '' : ' (needs trinity convert)'}: ${c.dir}\n${evals}${c.commands.map((s) => `  $ ${s}`).join('\n')}\n  then: --models ${c.name}=${c.url}\n`,
        );
      }
    }
    return 0;
  }
  const num = (name: keyof typeof values, dflt: number | undefined, check: (n: number) => boolean, what: string): number | undefined => {
    const v = values[name];
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isFinite(n) || !check(n)) throw new EvalSetupError(`--${name} must be ${what}, not '${String(v)}'`);
    return n;
  };
  let record: EvalRecord;
  let dir: string | undefined;
  let opts: { seed: number; passThreshold?: number; failIfWorse?: number };
  try {
    const positiveInt = (n: number) => Number.isInteger(n) && n > 0;
    opts = {
      seed: num('seed', 1, Number.isInteger, 'an integer')!,
      passThreshold: num('pass-threshold', undefined, () => true, 'a number'),
      failIfWorse: num('fail-if-worse', undefined, (n) => n >= 0, 'a number ≥ 0'),
    };
    const cwd = path.resolve(values.cwd ?? '.');
    if (values['from-job'] !== undefined) return await rescoreFromJob(context, values, io);
    if (values.open) {
      dir = path.resolve(values.open);
      record = loadEval(dir);
    } else if (values.runs?.length) {
      if (values.rescore && !values.config) throw new EvalSetupError('--rescore needs --config (the workflow whose reward re-scores the runs)');
      record = await compareRecorded(context.rollouts, {
        runs: parseRuns(values.runs, cwd),
        rescore: !!values.rescore,
        reward: values.reward,
        config: values.config ? path.resolve(values.config) : undefined,
        cwd,
        python: values.python,
        limits: {
          itemSeconds: num('reward-timeout', undefined, (n) => n > 0, 'a positive number of seconds'),
          runSeconds: num('rescore-timeout', undefined, (n) => n > 0, 'a positive number of seconds'),
        },
      });
    } else {
      if (!values.config) throw new EvalSetupError('--config is required');
      if (!fs.existsSync(values.config)) throw new EvalSetupError(`the config file does not exist: ${path.resolve(values.config)}`);
      const models = parseModels(values.models ?? []);
      const timeout = num('timeout', undefined, (n) => n > 0, 'a positive number of seconds');
      if (timeout !== undefined) for (const m of models) m.timeout = timeout;
      const maxReplyMB = num('max-reply-mb', undefined, (n) => n > 0, 'a positive number of megabytes');
      if (maxReplyMB !== undefined) for (const m of models) m.maxReplyMB = maxReplyMB;
      const done = await runEval(context.rollouts, {
        config: path.resolve(values.config),
        cwd,
        models,
        tasks: num('tasks', 10, positiveInt, 'a positive integer')!,
        repeat: num('repeat', 4, positiveInt, 'a positive integer')!,
        concurrency: num('concurrency', undefined, positiveInt, 'a positive integer'),
        split: values.split,
        python: values.python,
        progress: (line) => io.stderr(`${line}\n`),
      });
      ({ record, dir } = done);
    }
  } catch (e) {
    if (e instanceof EvalSetupError) return fail(e.message);
    return fail((e as Error).message);
  }
  const comparisons = compareModels(record, opts);
  if (values.json) {
    io.stdout(
      JSON.stringify(
        {
          dir,
          id: record.id,
          models: record.models.map(({ episodes, ...m }) => ({
            ...m,
            ...(m.baseUrl ? { baseUrl: maskUrl(m.baseUrl) } : {}), // a comparison saved before keys were masked
            episodes: episodes.length,
            failed: episodes.filter((e) => e.reward === null).length,
          })),
          comparisons,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    for (const c of comparisons) io.stdout(formatComparison(c));
    if (dir) io.stdout(`saved: ${dir}\n`);
  }
  const gateFailed = comparisons.filter((c) => c.gateFailed);
  for (const c of gateFailed)
    io.stderr(`agentrl eval: ${c.other} fails the gate against ${c.base} (--fail-if-worse ${opts.failIfWorse}): ${c.gateReason}; ${c.verdict.text}\n`);
  return gateFailed.length ? 1 : 0;
}

/** `--models a=URL b=URL` as the repeated `--models a=URL --models b=URL` parseArgs reads. */
export function expandLists(argv: readonly string[], lists: readonly string[] = ['--models', '--runs']): string[] {
  const out: string[] = [];
  let list: string | undefined;
  for (const a of argv) {
    if (lists.includes(a)) {
      list = a;
      continue;
    }
    if (a.startsWith('-')) list = undefined;
    if (list) out.push(list, a);
    else out.push(a);
  }
  return out;
}

function parse(argv: string[]) {
  return parseArgs({
    args: expandLists(argv),
    allowPositionals: false,
    options: {
      config: { type: 'string' },
      models: { type: 'string', multiple: true },
      runs: { type: 'string', multiple: true },
      rescore: { type: 'boolean' },
      reward: { type: 'string' },
      'reward-timeout': { type: 'string' },
      'rescore-timeout': { type: 'string' },
      'from-job': { type: 'string' },
      steps: { type: 'string' },
      open: { type: 'string' },
      checkpoints: { type: 'string' },
      'base-model': { type: 'string' },
      port: { type: 'string' },
      tasks: { type: 'string' },
      repeat: { type: 'string' },
      concurrency: { type: 'string' },
      split: { type: 'string' },
      timeout: { type: 'string' },
      'max-reply-mb': { type: 'string' },
      python: { type: 'string' },
      cwd: { type: 'string' },
      'pass-threshold': { type: 'string' },
      seed: { type: 'string' },
      'fail-if-worse': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** `--NAME S`, a positive number of seconds (undefined when not given). */
function positiveSeconds(values: ReturnType<typeof parse>['values'], name: 'reward-timeout' | 'rescore-timeout'): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new EvalSetupError(`--${name} must be a positive number of seconds, not '${v}'`);
  return n;
}

/** `--rescore --from-job DIR --steps A-B`: a training run's buffer rows re-scored. */
async function rescoreFromJob(
  context: EvalCliContext,
  values: ReturnType<typeof parse>['values'],
  io: { stdout(s: string): void; stderr(s: string): void },
): Promise<number> {
  if (!values.rescore) throw new EvalSetupError('--from-job goes with --rescore');
  if (!values.config) throw new EvalSetupError('--rescore --from-job needs --config (the workflow and reward that re-score the rows)');
  const m = /^(\d+)(?:-(\d+))?$/.exec(values.steps ?? '');
  if (!m) throw new EvalSetupError(`--steps must be A-B or A (model versions), not '${values.steps ?? ''}'`);
  const steps: [number, number] = [Number(m[1]), Number(m[2] ?? m[1])];
  if (steps[1] < steps[0]) throw new EvalSetupError(`--steps ${values.steps}: B is before A`);
  if (!context.rollouts.rescoreBuffer) throw new EvalSetupError('re-scoring buffer rows is not available here');
  const cwd = path.resolve(values.cwd ?? '.');
  const concurrency = values.concurrency !== undefined ? Number(values.concurrency) : undefined;
  const limits = {
    itemSeconds: positiveSeconds(values, 'reward-timeout'),
    runSeconds: positiveSeconds(values, 'rescore-timeout'),
  };
  const got = await context.rollouts.rescoreBuffer({
    config: path.resolve(values.config),
    cwd,
    python: values.python,
    fromJob: values['from-job']!,
    versions: steps,
    limits,
    ...(concurrency !== undefined && Number.isInteger(concurrency) && concurrency > 0 ? { concurrency } : {}),
  });
  if (!got.ok) throw new EvalSetupError(got.message);
  const j = bufferRescoreJson(got.rows, steps);
  io.stdout(values.json ? JSON.stringify(j, null, 2) + '\n' : bufferRescoreText(j));
  return j.changed || j.errors ? 1 : 0;
}
