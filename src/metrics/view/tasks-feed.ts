// The extension side of the Tasks view, without vscode: while the page shows it (`watchTasks`),
// asks each connected relay for its experience sources' tasks tables (folded on the node: the
// editor receives tasks × versions, never the rows), classes the tasks and looks for evidence
// (src/tasks/), and posts the tables; again every few seconds while the run goes, so the view is
// live and a reloaded page gets them at once. "Debug This Rollout" from the page is an event for
// whoever owns that command.
import type { TaskTableWire } from '../../relay-protocol/tasks';
import { CLASS_DEFAULTS, type ClassOptions } from '../../tasks/task-classes';
import { tasksJson } from '../../tasks/task-report';
import { type EvalSeries, evalSeriesOf } from '../../tasks/run-findings';
import type { MetricsStore } from '../store/store';
import { TaskTable } from '../../tasks/task-table';
import type { TasksHostMessage, TasksStrings, TasksViewTable, TasksWebviewMessage } from '../protocol/tasks-protocol';

/** What the Tasks view needs from its owner: the relays' experience sources and their tables. */
export interface TasksPort {
  strings: TasksStrings;
  /** The experience sources (SQL, JSON lines) of the connected relays. */
  sources(): { endpoint: string; source: string; run: string; table: string }[];
  /** A source's table, folded by its relay. */
  readTasks(endpoint: string, source: string): Promise<TaskTableWire>;
  /** The run's eval taskset series (eval/<taskset>/…), for train/eval divergence; undefined: not read. */
  evals?(run: string): EvalSeries[];
}

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
  opts: ClassOptions,
  evals?: EvalSeries[],
): TasksViewTable {
  const table = TaskTable.fromWire(w);
  const examples: TasksViewTable['examples'] = {};
  const lengths: TasksViewTable['lengths'] = {};
  for (const c of w.cells) {
    (examples[c.task] ??= {})[c.version] = [c.best, c.worst, c.longest];
    if (c.lenN > 0) (lengths[c.task] ??= {})[c.version] = c.lenSum / c.lenN;
  }
  return { ...at, report: tasksJson(table, opts, 'task', evals), examples, lengths };
}

export class TasksFeed {
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private watched = false;

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
          tables.push(viewTable(at, wire, this.opts, this.port.evals?.(at.run)));
        } catch (e) {
          errors.push(`${at.run}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      if (this.watched) this.post({ type: 'tasksTable', strings: this.port.strings, tables, errors });
    } finally {
      this.reading = false;
    }
  }

  /** The view is hidden or the page went away: no more reads. */
  stop(): void {
    this.watched = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
