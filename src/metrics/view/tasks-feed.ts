// The extension side of the Tasks view, without vscode: while the page shows it (`watchTasks`),
// asks each connected relay for its experience sources' tasks tables (folded on the node: the
// editor receives tasks × versions, never the rows), classes the tasks and looks for evidence
// (src/tasks/), and posts the tables; again every few seconds while the run goes, so the view is
// live and a reloaded page gets them at once. "Debug This Rollout" from the page is an event for
// whoever owns that command.
import type { TaskTableWire } from '../../relay-protocol/tasks';
import { CLASS_DEFAULTS, type ClassOptions, classifyTasks } from '../../tasks/task-classes';
import { type ReferenceCheck, tasksJson } from '../../tasks/task-report';
import { type AcceptedAnswer, referenceSample } from '../../tasks/reference-answers';
import type { References } from '../../tasks/reference-answers';
import { type EvalSeries, evalSeriesOf } from '../../tasks/run-findings';
import type { MetricsStore } from '../store/store';
import { TaskTable } from '../../tasks/task-table';
import { render } from '../../tasks/finding-text';
import { english, type L10n } from '../../base/l10n';
import type { TasksHostMessage, TasksStrings, TasksViewTable, TasksWebviewMessage } from '../protocol/tasks-protocol';

/** What the Tasks view needs from its owner: the relays' experience sources and their tables. */
export interface TasksPort {
  strings: TasksStrings;
  /** The findings' sentences in the reader's language (vscode.l10n); English without it. */
  l10n?: L10n;
  /** The experience sources (SQL, JSON lines) of the connected relays. */
  sources(): { endpoint: string; source: string; run: string; table: string }[];
  /** A source's table, folded by its relay. */
  readTasks(endpoint: string, source: string): Promise<TaskTableWire>;
  /** The run's eval taskset series (eval/<taskset>/…), for train/eval divergence; undefined: not read. */
  evals?(run: string): EvalSeries[];
  /**
   * The reference answers of an endpoint's run, read where its taskset is (a local job dir's
   * config copy names it); undefined: not read (a remote relay's node holds the taskset).
   */
  references?(endpoint: string): References | undefined;
  /** One row's response text (the relay's experience detail), to check an accepted answer against its reference. */
  readResponse?(endpoint: string, source: string, id: number): Promise<string | undefined>;
}

/** Accepted rows read per refresh at most (the rest on the next ticks: their texts are kept). */
const RESPONSES_PER_REFRESH = 50;

/** The eval tasksets' headline series of a run from the store (each taskset's accuracy, else reward, mean). */
export function evalsFromStore(store: MetricsStore, run: string): EvalSeries[] {
  const ofRun = store.list().filter((x) => x.run === run);
  return evalSeriesOf(ofRun.map((x) => x.tag)).map((tag) => {
    const series = ofRun.find((x) => x.tag === tag)!;
    const c = store.columns(series.key);
    const points: EvalSeries['points'] = [];
    for (let i = 0; c && i < c.length; i++) points.push({ step: c.step[i], value: c.value[i] });
    return { tag, points };
  });
}

/** How often a shown Tasks view asks the relays again. */
const REFRESH_MS = 3000;

/** A table as the view shows it: the report, and per task and version the example rows and the mean length. */
function viewTable(
  at: { endpoint: string; source: string; run: string; table: string },
  w: TaskTableWire,
  table: TaskTable,
  opts: ClassOptions,
  evals: EvalSeries[] | undefined,
  lang: L10n,
  reference: ReferenceCheck | undefined,
): TasksViewTable {
  const examples: TasksViewTable['examples'] = {};
  const lengths: TasksViewTable['lengths'] = {};
  for (const c of w.cells) {
    (examples[c.task] ??= {})[c.version] = [c.best, c.worst, c.longest];
    if (c.lenN > 0) (lengths[c.task] ??= {})[c.version] = c.lenSum / c.lenN;
  }
  const report = tasksJson(table, opts, 'task', evals, reference);
  for (const f of report.findings) f.detail = render(f.text, lang);
  for (const n of report.not_checked) n.why = render(n.whyText, lang);
  return { ...at, report, examples, lengths };
}

export class TasksFeed {
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private watched = false;
  /** Response texts read for the reference check, by endpoint, source and row id (a row's text does not change). */
  private readonly responses = new Map<string, string | undefined>();

  constructor(
    private readonly port: TasksPort,
    private readonly post: (m: TasksHostMessage) => void,
    private readonly opts: ClassOptions = CLASS_DEFAULTS,
    private readonly everyMs = REFRESH_MS,
  ) {}

  receive(msg: TasksWebviewMessage): void {
    if (msg.on) this.watch();
    else this.stop();
  }

  private watch(): void {
    this.watched = true;
    if (!this.timer) this.timer = setInterval(() => void this.refresh(), this.everyMs);
    void this.refresh();
  }

  /** Reads every source's table and posts them (one read at a time; a tick during one is skipped). */
  async refresh(): Promise<void> {
    if (this.reading || !this.watched) return;
    this.reading = true;
    try {
      const tables: TasksViewTable[] = [];
      const errors: string[] = [];
      for (const at of this.port.sources()) {
        try {
          const wire = await this.port.readTasks(at.endpoint, at.source);
          const table = TaskTable.fromWire(wire);
          const reference = await this.referenceCheck(at.endpoint, at.source, table);
          tables.push(viewTable(at, wire, table, this.opts, this.port.evals?.(at.run), this.port.l10n ?? english, reference));
        } catch (e) {
          errors.push(`${at.run}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      if (this.watched) this.post({ type: 'tasksTable', strings: this.port.strings, tables, errors });
    } finally {
      this.reading = false;
    }
  }

  /** The accepted answers read so far of a table's sample (reference-answers.ts), with the reference answers; undefined: not read here. */
  private async referenceCheck(endpoint: string, source: string, table: TaskTable): Promise<ReferenceCheck | undefined> {
    const references = this.port.references?.(endpoint);
    if (!references || !this.port.readResponse) return undefined;
    const threshold = classifyTasks(table, this.opts).threshold;
    if ('why' in references || threshold === null) return { references, answers: [] };
    const answers: AcceptedAnswer[] = [];
    let reads = 0;
    for (const row of referenceSample(table, references.answers, threshold)) {
      const key = `${endpoint}\u0000${source}\u0000${row.id}`;
      if (!this.responses.has(key)) {
        if (reads++ >= RESPONSES_PER_REFRESH) continue;
        this.responses.set(key, await this.port.readResponse(endpoint, source, row.id).catch(() => undefined));
      }
      const response = this.responses.get(key);
      if (response !== undefined) answers.push({ ...row, response });
    }
    return { references, answers };
  }

  /** The view is hidden or the page went away: no more reads. */
  stop(): void {
    this.watched = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
