// The Pipeline view's extension side, without vscode: the timings of each run fed into a
// StepTable (src/pipeline/) from the same scalars the charts get (the view controller hands
// each batch over; nodes of a run merge there as in the charts), and, while the view is shown,
// the report worded for the webview — the verdict, its evidence, the advice, the bars — posted
// at most every REPORT_MS as the run goes. Ray's timeline windows and the config links go out
// through the PipelinePort (the relay, the editor).
import type { L10n } from '../../base/l10n';
import type { Obj } from '../../base/validate';
import type { RunConfig } from '../../pipeline/advice';
import { EXPLORER_PARTS, type StepRow, TRAINER_PARTS, stepRows } from '../../pipeline/analyze';
import { type PipelineReport, reportOfRows } from '../../pipeline/report';
import { StepTable } from '../../pipeline/step-table';
import { changeSentences, partName, problemSentence, verdictSentence } from '../../pipeline/text';
import type { EnvelopeBatch } from '../../relay-protocol/envelope-frame';
import {
  type PipelineAdvice,
  type PipelineHostMessage,
  type PipelineStrings,
  type PipelineViewData,
  type PipelineWebviewMessage,
  type RoleBars,
  type TimelineProblemWire,
  isTimelineWindow,
} from '../protocol/pipeline-protocol';
import type { PointColumns } from '../store/series';

/** Shortest time between two reports while the run goes. */
export const REPORT_MS = 500;
/** Bars drawn at most: more steps are averaged in groups. */
const MAX_BARS = 300;
/** Events of one timeline window at most (the longest kept). */
const TIMELINE_EVENTS = 20_000;

/** What the Pipeline view needs from the extension: the run's config, the editor, the relay. */
export interface PipelinePort {
  /** The run's config copy (a local job dir's config.json), or why there is none. */
  config?(run: string): RunConfig | { reason: string };
  /** Opens the run's config at `key`; with `value`, applies it (the quick fix). */
  openConfigKey?(run: string, key: string, value?: string): void;
  /** The suggestions the config engine accepts (no new error with the value applied): their keys. */
  proveFixes?(run: string, advice: PipelineAdvice[]): Promise<string[]>;
  /** A window of the run's Ray timeline (µs since its first event); undefined: the run has none. */
  readTimeline?(run: string, from: number | null, to: number | null, maxEvents: number): Promise<Obj | undefined>;
}

const fmt = (v: number | string | boolean | null): string => (v === null ? '–' : String(v));
const pct = (v: number | null): string => (v === null ? '–' : `${Math.round(v * 100)} %`);

export class PipelineFeed {
  private readonly tables = new Map<string, StepTable>();
  /** Runs whose timings came as envelopes (one point per block of steps, not each step's). */
  private readonly fromEnvelope = new Set<string>();
  private visible = false;
  private run: string | undefined;
  private from: number | null = null;
  private to: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  /** Quick fixes the config engine proved, per run and suggestion. */
  private readonly proven = new Map<string, boolean>();
  private readonly proving = new Set<string>();

  constructor(
    private readonly post: (m: PipelineHostMessage) => void,
    private readonly l10n: L10n,
    private readonly port: PipelinePort = {},
  ) {}

  // ---- data in ---------------------------------------------------------------------------

  /** A batch of one series (the charts' own points). */
  add(run: string, role: string, tag: string, p: PointColumns): void {
    if (!isTimingTag(tag)) return;
    const t = this.table(run);
    for (let i = 0; i < p.step.length; i++) t.add(role, tag, p.step[i], p.wallTime[i], p.value[i]);
    this.changed(run);
  }

  /** A tag's envelope (a big finished run opens with one): each bucket's mean at its first step. */
  addEnvelope(run: string, m: EnvelopeBatch): void {
    if (!isTimingTag(m.tag)) return;
    const t = this.table(run);
    this.fromEnvelope.add(run);
    const e = m.env;
    for (let i = 0; i < e.count.length; i++) if (e.count[i] > 0) t.add(m.role, m.tag, e.firstStep[i], e.firstWall[i], e.sum[i] / e.count[i]);
    this.changed(run);
  }

  private table(run: string): StepTable {
    let t = this.tables.get(run);
    if (!t) this.tables.set(run, (t = new StepTable()));
    return t;
  }

  private changed(run: string): void {
    if (!this.visible || (this.run !== undefined && this.run !== run)) return;
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.dirty) this.flush();
    }, REPORT_MS);
  }

  // ---- webview in ------------------------------------------------------------------------

  receive(m: PipelineWebviewMessage): void {
    switch (m.type) {
      case 'pipelineView':
        this.visible = m.visible;
        if (m.run !== undefined) this.run = m.run;
        if (m.from !== undefined) this.from = m.from;
        if (m.to !== undefined) this.to = m.to;
        if (this.visible) this.flush();
        return;
      case 'openConfigKey':
        this.port.openConfigKey?.(m.run, m.key, m.value);
        return;
      case 'timelineRequest':
        this.timeline(m.request, m.run, m.from, m.to);
        return;
    }
  }

  private timeline(request: number, run: string, from: number | null, to: number | null): void {
    if (!this.port.readTimeline) {
      this.post({ type: 'timeline', request, error: this.l10n.t('Ray timelines are read through a relay; this view has none.') });
      return;
    }
    this.port.readTimeline(run, from, to, TIMELINE_EVENTS).then(
      (w) => {
        if (w === undefined) this.post({ type: 'timeline', request });
        else if (isTimelineWindow(w))
          this.post({ type: 'timeline', request, slice: { ...w, problems: w.problems.map((p) => this.problemText(p)), steps: this.stepMarks(run, w.origin) } });
        else this.post({ type: 'timeline', request, error: this.l10n.t('The relay sent a timeline window that is not well formed.') });
      },
      (e: unknown) => this.post({ type: 'timeline', request, error: e instanceof Error ? e.message : String(e) }),
    );
  }

  private problemText(p: TimelineProblemWire): string {
    const l10n = this.l10n;
    switch (p.kind) {
      case 'not-array':
        return l10n.t('timeline.json is not a JSON array of trace events (it does not start with "[").');
      case 'corrupt':
        return l10n.t('timeline.json: {0} corrupt events skipped; the rest is shown.', p.count);
      case 'too-long':
        return l10n.t('timeline.json: {0} events too long to be trace events skipped.', p.count);
      case 'truncated':
        return l10n.t('timeline.json ends in the middle of its events (truncated?): the {0} events before the cut are shown.', p.count);
      case 'capped':
        return l10n.t('timeline.json has more than {0} events: the rest of the file is not shown.', p.count);
      default:
        return p.kind;
    }
  }

  /** Where each explorer step ended on the timeline's clock (µs since its first event). */
  private stepMarks(run: string, origin: number | undefined): { step: number; at: number }[] {
    const t = this.tables.get(run);
    if (!t || origin === undefined) return [];
    return [...t.explorerWall].map(([step, wall]) => ({ step, at: wall * 1e6 - origin })).sort((a, b) => a.at - b.at);
  }

  // ---- out -------------------------------------------------------------------------------

  /** Runs with timings, in the order they came. */
  runs(): string[] {
    return [...this.tables.keys()];
  }

  /** Posts the report of the shown run now. */
  flush(): void {
    this.dirty = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.post({ type: 'pipeline', data: this.data() });
  }

  /** The view's data of the shown run (null: no run has timings yet). */
  data(): PipelineViewData | null {
    const runs = this.runs();
    const run = this.run !== undefined && this.tables.has(this.run) ? this.run : runs[0];
    if (run === undefined) return null;
    const t = this.tables.get(run)!;
    const config = this.port.config?.(run);
    const rows = stepRows(t, this.from ?? undefined, this.to ?? undefined);
    const r = reportOfRows(t, rows, { config, ...(this.from !== null ? { from: this.from } : {}), ...(this.to !== null ? { to: this.to } : {}) });
    return this.word(run, runs, r, rows);
  }

  /**
   * Why the explorer's wait on the sync is unknown in a run opened from its envelope: Trinity's
   * explorer.py times no part of sync_weight(); the wait is only the gap between two consecutive
   * steps' time/wait_explore_step log times (analyze.ts), which bucket means do not keep.
   */
  private unknownWaitSync(run: string, r: PipelineReport): string[] {
    if (!this.fromEnvelope.has(run) || r.shares.explorer.generate === null || r.shares.explorer.wait_sync !== null) return [];
    return [
      this.l10n.t(
        "Missing the explorer's wait on the sync: Trinity times no part of it (explorer.py's sync_weight()); it is the gap between consecutive steps' time/wait_explore_step log times, which this run, opened from its envelope (one point per block of steps), does not have.",
      ),
    ];
  }

  private word(run: string, runs: string[], r: PipelineReport, rows: StepRow[]): PipelineViewData {
    const l10n = this.l10n;
    const advice: PipelineAdvice[] = r.advice.map((a) => ({
      key: a.key,
      now: fmt(a.now),
      suggest: fmt(a.suggest),
      defaulted: a.defaulted,
      ...(a.fits === undefined ? {} : { fits: a.fits }),
    }));
    this.prove(run, advice);
    const notes = r.problems.map((p) => problemSentence(l10n, p));
    if (r.other.length) notes.push(l10n.t('Other timings (not understood, shown as they are): {0}', r.other.join(', ')));
    const { trainer: T, explorer: E } = r.shares;
    const sum = (...v: (number | null)[]) => (v.every((x) => x === null) ? null : v.reduce<number>((a, b) => a + (b ?? 0), 0));
    return {
      run,
      runs,
      window: { from: this.from, to: this.to },
      steps: r.steps,
      bottleneck: r.bottleneck,
      verdict: verdictSentence(l10n, r),
      changes: changeSentences(l10n, r),
      evidence: r.evidence.map((e) => ({
        label: `${e.role === 'trainer' ? l10n.t('trainer') : l10n.t('explorer')}: ${partName(l10n, e.part)}`,
        value: e.part === 'tail_ratio' ? `${e.value.toFixed(1)}×` : pct(e.value),
        tags: e.tags,
      })),
      advice,
      ...(r.configProblem ? { configNote: l10n.t('No advice with values: {0}', r.configProblem) } : {}),
      missing: [...r.missing.map((m) => l10n.t('Missing {0} ({1}): turn it on with {2}', m.tag, m.role, m.enable)), ...this.unknownWaitSync(run, r)],
      notes,
      shares: { trainer: { ...T }, explorer: { ...E } },
      // Idle: the trainer waiting for experiences; the explorer waiting for weights or its slowest tasks.
      idle: { trainer: T.wait_experience, explorer: sum(E.wait_sync, E.wait_stragglers) },
      throughput: r.throughput,
      gpu: r.gpu
        ? {
            explorer: r.gpu.explorer,
            trainer: r.gpu.trainer,
            hours: { trainer: { ...r.gpu.hours.trainer }, explorer: { ...r.gpu.hours.explorer } },
          }
        : null,
      bars: bars(rows),
    };
  }

  /** Asks the config engine once per suggestion; the report is posted again when it answers. */
  private prove(run: string, advice: PipelineAdvice[]): void {
    const ask: PipelineAdvice[] = [];
    for (const a of advice) {
      const id = JSON.stringify([run, a.key, a.suggest]);
      const known = this.proven.get(id);
      if (known !== undefined) {
        if (known) a.fix = true;
      } else if (!this.proving.has(id) && a.suggest !== a.now) ask.push(a);
    }
    if (!ask.length || !this.port.proveFixes) return;
    const ids = ask.map((a) => JSON.stringify([run, a.key, a.suggest]));
    for (const id of ids) this.proving.add(id);
    this.port.proveFixes(run, ask).then(
      (keys) => {
        ask.forEach((a, i) => this.proven.set(ids[i], keys.includes(a.key)));
        if (keys.length && this.visible) this.flush();
      },
      () => ask.forEach((_, i) => this.proven.set(ids[i], false)),
    );
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Only timings and what the analysis reads beside them reach the table (a run logs hundreds of tags). */
function isTimingTag(tag: string): boolean {
  return (
    tag.startsWith('time/') ||
    tag.startsWith('timing_s/') ||
    tag.startsWith('rollout/time/') ||
    tag === 'rollout/model_version' ||
    tag.startsWith('perf/throughput')
  );
}

/** Stacked bars per step, or per group of steps (their mean) when there are more than MAX_BARS. */
function bars(rows: StepRow[]): PipelineViewData['bars'] {
  const group = Math.max(1, Math.ceil(rows.length / MAX_BARS));
  const steps: number[] = [];
  const trainer: RoleBars = { parts: [...TRAINER_PARTS], values: TRAINER_PARTS.map(() => []) };
  const explorer: RoleBars = { parts: [...EXPLORER_PARTS], values: EXPLORER_PARTS.map(() => []) };
  for (let i = 0; i < rows.length; i += group) {
    const g = rows.slice(i, i + group);
    steps.push(g[g.length - 1].step);
    fold(
      trainer,
      g.map((r) => r.trainer?.parts as Record<string, number | null> | undefined),
    );
    fold(
      explorer,
      g.map((r) => r.explorer?.parts as Record<string, number | null> | undefined),
    );
  }
  return { steps, trainer, explorer };
}

function fold(b: RoleBars, parts: (Record<string, number | null> | undefined)[]): void {
  b.parts.forEach((p, k) => {
    let sum = 0;
    let n = 0;
    for (const x of parts) {
      const v = x?.[p];
      if (v !== null && v !== undefined) {
        sum += v;
        n++;
      }
    }
    b.values[k].push(n ? sum / n : null);
  });
}

/** The Pipeline view's words in the reader's language. */
export function pipelineStrings(l10n: L10n): PipelineStrings {
  const parts: Record<string, string> = {};
  for (const p of [...TRAINER_PARTS, ...EXPLORER_PARTS]) parts[p] = partName(l10n, p);
  return {
    parts,
    viewCharts: l10n.t('Charts'),
    viewPipeline: l10n.t('Pipeline'),
    run: l10n.t('Run'),
    windowFrom: l10n.t('From step'),
    windowTo: l10n.t('to step'),
    windowAll: l10n.t('(all)'),
    trainer: l10n.t('trainer'),
    explorer: l10n.t('explorer'),
    idle: l10n.t('idle'),
    stepsPerHour: l10n.t('train steps per hour'),
    tokensPerSecond: l10n.t('tokens/s'),
    gpus: l10n.t('GPUs'),
    gpuHours: l10n.t('GPU-hours'),
    evidence: l10n.t('The numbers behind it (click: their charts)'),
    advice: l10n.t('What to change'),
    missing: l10n.t('Missing'),
    notes: l10n.t('About the data'),
    noTimings: l10n.t('No timings yet: the Pipeline view needs the time/* (Trinity-RFT) or timing_s/* (verl) metrics of a training run.'),
    openAt: l10n.t('Open the config at {0}'),
    applyFix: l10n.t('Apply {0}'),
    defaulted: l10n.t('(default)'),
    fits: l10n.t('fits the GPUs the config declares'),
    doesNotFit: l10n.t('needs more GPUs than the config declares'),
    timeline: l10n.t("Ray's timeline"),
    timelineLoad: l10n.t('Show the timeline'),
    timelineHint: l10n.t('Wheel: zoom · drag: pan · hover: name and duration'),
    timelineNone: l10n.t('No Ray timeline in this job dir: set monitor.enable_ray_timeline: true and Trinity writes monitor/timeline.json when the run ends.'),
    timelineRemote: l10n.t('Reading the timeline failed: {0}'),
    stepsAxis: l10n.t('step'),
    changes: l10n.t('Changes'),
  };
}
