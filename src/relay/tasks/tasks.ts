// `agentrl tasks`: which tasks of a run learn — every task's mean reward by model version, its
// class (learned, never, always, forgotten, flaky) and the evidence of reward hacking, from the
// run's experience buffer. From a job directory (read here by an in-process relay on loopback, the
// same code that serves the editor) or a running relay's URL; --json for scripts and CI.
import { parseArgs } from 'node:util';
import { RelayClient } from '../../relay-protocol/client';
import { inProcessRelay, onRefusal, pickExperienceSource, runTarget } from '../run-target';
import { CLASS_DEFAULTS, type ClassOptions, TASK_CLASSES, type TaskSort, classifyTasks } from '../../tasks/task-classes';
import { type ReferenceCheck, type TasksJson, tasksJson } from '../../tasks/task-report';
import { type AcceptedAnswer, referenceSample } from '../../tasks/reference-answers';
import type { References } from '../../tasks/reference-answers';
import { jobReferences, tasksetReferences } from '../../tasks/taskset-references';
import { render } from '../../tasks/finding-text';
import { english, type L10n } from '../../base/l10n';
import { languageOf } from '../pipeline/pipeline';
import { TaskTable } from '../../tasks/task-table';
import { type EvalSeries, evalSeriesOf } from '../../tasks/run-findings';

/** Resolves once `done()` holds, or after `ms`. */
async function until(done: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
}

export const TASKS_USAGE = `Usage: agentrl tasks (--job-dir DIR | <url>) [options]

Which tasks of a run learn: each task's mean reward by model version, its class, and the
evidence of reward hacking (evidence, not proof), from the run's experience buffer.

A task is identified by its taskset row (Trinity's info["task_index"]); rows without it fall
back to eid.task, the task's position in its batch, which is not stable across steps.
Classes (a task is solved at a version when its mean reward >= the threshold):
  learned    not solved at first, solved at each of the last --window versions
  never      never solved
  always     solved at every version (no signal to learn from)
  forgotten  solved once, unsolved at each of the last --window versions
  flaky      solved and unsolved in turn

Options:
  --job-dir DIR       a Trinity job directory (read here, nothing is started elsewhere)
  <url>               a running 'agentrl relay' (ws:// or wss://)
  --source ID         the buffer (default: the SQL experience buffer, else the first JSON-lines one)
  --solved F          solved at mean reward >= lowest + F x (highest - lowest) of the run (default ${CLASS_DEFAULTS.solved})
  --window N          the last N versions decide learned / forgotten (default ${CLASS_DEFAULTS.window})
  --sort KEY          task (default), gain (reward gain), flip (version it last flipped), length
  --taskset FILE      the taskset (JSON lines or JSON) whose reference answers to look for in
                      accepted answers (default with --job-dir: the tasksets its config.json names)
  --response-key KEY  the taskset's column of the reference answer (default: response)
  --lang LANG         the findings' sentences in LANG (en, zh-cn; default en)
  --json              print {"versions", "identity", "threshold", "tasks": [{"task", "class",
                      "first_solved", "rewards": {version: mean}, …}], "counts", "findings":
                      [{"kind", "detail", "examples": [row ids]}], "not_checked", "skipped"}
  --token-file FILE   bearer token for <url> (or env AGENTRL_RELAY_TOKEN)
  --ca FILE           CA certificate (PEM) for a wss:// relay with its own certificate

Exit codes: 0 printed, 1 nothing to read (no buffer, relay unreachable), 2 bad usage.
`;

const WAIT_MS = 15_000;
/** A first table of a big buffer is one pass over it on the relay's node. */
const TABLE_WAIT_MS = 10 * 60_000;

function usageError(msg: string): number {
  process.stderr.write(`agentrl tasks: ${msg}\n\n${TASKS_USAGE}`);
  return 2;
}

function failure(msg: string): number {
  process.stderr.write(`agentrl tasks: ${msg}\n`);
  return 1;
}

const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(d));
const SPARK = '▁▂▃▄▅▆▇█';

/** A task's mean reward per version as a sparkline scaled to the run's range. */
function spark(rewards: Record<number, number>, lo: number, hi: number): string {
  const vs = Object.keys(rewards)
    .map(Number)
    .sort((a, b) => a - b);
  const pick = vs.length > 24 ? Array.from({ length: 24 }, (_, i) => vs[Math.round((i * (vs.length - 1)) / 23)]) : vs;
  return pick.map((v) => SPARK[hi > lo ? Math.min(7, Math.max(0, Math.round(((rewards[v] - lo) / (hi - lo)) * 7))) : 0]).join('');
}

/** What a terminal shows (the findings' sentences in `lang`). */
export function tasksText(j: TasksJson, table: TaskTable, lang: L10n = english): string {
  const lines: string[] = [];
  if (!j.versions) {
    lines.push(`no experience with a task, a model version and a reward (${j.experiences} rows read)`);
  } else {
    lines.push(
      `${j.tasks.length} tasks over model versions ${j.versions[0]}–${j.versions[1]} · solved at mean reward ≥ ${num(j.threshold)} · ${TASK_CLASSES.map((c) => `${j.counts[c]} ${c}`).join(' · ')}`,
    );
  }
  if (j.identity === 'eid.task') lines.push("tasks are eid.task (the task's position in its batch): not stable across steps unless the workflow sets it");
  if (j.identity === 'mixed') lines.push('some rows have no task_index: those are grouped by eid.task ("eid N"), apart');
  const sk = j.skipped;
  const left = [
    sk.no_task && `${sk.no_task} without a task`,
    sk.no_version && `${sk.no_version} without a model version`,
    sk.no_reward && `${sk.no_reward} without a finite reward`,
  ].filter(Boolean);
  if (left.length) lines.push(`not counted: ${left.join(', ')}`);
  if (j.versions_out_of_order) lines.push(`${j.versions_out_of_order} rows came after a row of a higher model version (placed at their own version)`);
  if (j.tasks.length) {
    const w = Math.max(4, ...j.tasks.map((t) => t.task.length));
    lines.push(
      '',
      `${'task'.padEnd(w)}  ${'class'.padEnd(9)}  ${'solved@'.padStart(7)}  ${'first'.padStart(5)}  ${'last'.padStart(5)}  ${'gain'.padStart(6)}  reward by version`,
    );
    for (const t of j.tasks) {
      const first = t.rewards[t.first_seen];
      const last = t.rewards[t.last_seen];
      lines.push(
        `${t.task.padEnd(w)}  ${t.class.padEnd(9)}  ${(t.first_solved === null ? '–' : String(t.first_solved)).padStart(7)}  ${num(first).padStart(5)}  ${num(last).padStart(5)}  ${num(t.gain).padStart(6)}  ${spark(t.rewards, table.lo, table.hi)}`,
      );
    }
  }
  lines.push('', j.findings.length ? 'Evidence, not proof:' : 'No evidence of reward hacking found in what was checked.');
  for (const f of j.findings) lines.push(`  ${f.kind}: ${render(f.text, lang)}`, `    read rows ${f.examples.join(', ')}`);
  for (const n of j.not_checked) lines.push(`  not checked: ${n.kind.replace(/_/g, ' ')} (${render(n.whyText, lang)})`);
  return lines.join('\n') + '\n';
}

const SORTS: readonly TaskSort[] = ['task', 'gain', 'flip', 'length'];

/** The accepted answers to check against the reference answers: a bounded sample of rows, each read from the relay. */
async function referenceCheck(c: RelayClient, source: string, table: TaskTable, opts: ClassOptions, references: References): Promise<ReferenceCheck> {
  const threshold = classifyTasks(table, opts).threshold;
  if ('why' in references || threshold === null) return { references, answers: [] };
  const answers: AcceptedAnswer[] = [];
  for (const row of referenceSample(table, references.answers, threshold)) {
    try {
      const d = await c.requestExperience(source, row.id);
      if (typeof d.response_text === 'string') answers.push({ ...row, response: d.response_text });
    } catch {
      continue; // a row gone (trimmed) or not decodable: not read
    }
  }
  return { references, answers };
}

export async function main(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        'job-dir': { type: 'string' },
        source: { type: 'string' },
        solved: { type: 'string' },
        window: { type: 'string' },
        sort: { type: 'string' },
        taskset: { type: 'string' },
        'response-key': { type: 'string' },
        lang: { type: 'string', default: 'en' },
        json: { type: 'boolean', default: false },
        'token-file': { type: 'string' },
        ca: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(TASKS_USAGE);
    return 0;
  }
  const where = runTarget(values, positionals);
  if ('usage' in where) return usageError(where.usage);
  if ('failure' in where) return failure(where.failure);
  const opts: ClassOptions = { ...CLASS_DEFAULTS };
  if (values.solved !== undefined) {
    const f = /^(0|1|0?\.\d+|1\.0*)$/.test(values.solved) ? Number(values.solved) : NaN;
    if (!(f > 0 && f <= 1)) return usageError(`--solved must be a number in (0, 1], got '${values.solved}'`);
    opts.solved = f;
  }
  if (values.window !== undefined) {
    const n = /^\d+$/.test(values.window) ? Number(values.window) : NaN;
    if (!(n >= 1 && n <= 1000)) return usageError(`--window must be a whole number from 1 to 1000, got '${values.window}'`);
    opts.window = n;
  }
  const sort = (values.sort ?? 'task') as TaskSort;
  if (!SORTS.includes(sort)) return usageError(`--sort must be one of ${SORTS.join(', ')}, got '${values.sort}'`);
  const lang = String(values.lang).toLowerCase();
  if (lang !== 'en' && lang !== 'zh-cn') return usageError(`--lang must be en or zh-cn, got '${values.lang}'`);
  if (values['response-key'] !== undefined && values.taskset === undefined) return usageError('--response-key needs --taskset');
  const relay = where.jobDir !== undefined ? inProcessRelay(where.jobDir) : undefined;
  let client: RelayClient | undefined;
  try {
    const target = relay ? await relay.start() : where.url!;
    client = new RelayClient({ url: target, token: where.token, ca: where.ca, experiences: false, backoff: { initialMs: 100, maxMs: 1000 } });
    const c = client;
    // The eval tasksets' series come as points (train/eval divergence): kept until the backlog is sent.
    const evalPoints = new Map<string, EvalSeries['points']>();
    let sourceId: string | undefined;
    let caughtUp = false;
    c.on('points', (b) => {
      for (const s of b.series) {
        if (!s.tag.startsWith('eval/')) continue;
        const pts = evalPoints.get(s.tag) ?? [];
        for (let i = 0; i < s.step.length; i++) pts.push({ step: s.step[i], value: s.value[i] });
        evalPoints.set(s.tag, pts);
      }
    });
    c.on('heartbeat', (h) => (caughtUp ||= h.caughtUp));
    // The relay folds the buffer into the table on its node: only the table comes over the wire.
    const answer = await new Promise<TaskTable | string>((resolve) => {
      const timer = setTimeout(() => resolve(`the relay at ${target} did not answer within ${WAIT_MS / 1000} s`), WAIT_MS);
      onRefusal(c, target, (why) => {
        clearTimeout(timer);
        resolve(why);
      });
      c.once('hello', (h) => {
        clearTimeout(timer);
        const source = pickExperienceSource(h.sources, values.source);
        if (!source)
          return resolve(
            values.source !== undefined
              ? `no source '${values.source}' (${h.sources.map((x) => x.id).join(', ') || 'none'})`
              : 'no experience buffer (SQL or JSON lines) there',
          );
        sourceId = source.id;
        c.requestTasks(source.id, TABLE_WAIT_MS).then(
          (w) => resolve(TaskTable.fromWire(w)),
          (e: Error) => resolve(e.message),
        );
      });
      c.start();
    });
    if (typeof answer === 'string') return failure(answer);
    const table = answer;
    await until(() => caughtUp, WAIT_MS);
    const evals = caughtUp ? evalSeriesOf([...evalPoints.keys()]).map((tag) => ({ tag, points: evalPoints.get(tag)! })) : undefined;
    const references: References | undefined =
      values.taskset !== undefined
        ? tasksetReferences([{ path: values.taskset, split: 'train', responseKey: values['response-key'] ?? 'response' }], process.cwd())
        : where.jobDir !== undefined
          ? jobReferences(where.jobDir)
          : undefined;
    const reference = references && (await referenceCheck(c, sourceId!, table, opts, references));
    const j = tasksJson(table, opts, sort, evals, reference);
    const l = languageOf(lang);
    if (values.json) {
      // the sentences in the asked language (English by default), each with its template and values
      for (const f of j.findings) f.detail = render(f.text, l);
      for (const n of j.not_checked) n.why = render(n.whyText, l);
    }
    process.stdout.write(values.json ? `${JSON.stringify(j)}\n` : tasksText(j, table, l));
    return 0;
  } catch (e) {
    return failure((e as Error).message);
  } finally {
    await client?.close();
    await relay?.close();
  }
}
