// What the comparison view's extension side answers to its page, apart from VS Code: the pair
// shown (baseline and compared model, the page may pick another), the comparison of that pair
// with every model against the baseline beside it, and a task's two first episodes turn by turn.
// The panel (src/eval/panel.ts) only posts what this returns. Pure.
import * as path from 'path';
import type { TranscriptTurn } from '../../feature-api/rollouts';
import { comparePair } from '../report/table';
import { english, type L10n } from '../../base/l10n';
import type { EvalRecord, ModelRun } from '../run/eval-record';
import type { EvalStrings, FromView, ToView } from '../protocol/messages';
import { comparisonData, pairTurns } from './comparison-view';

/** Reads a recorded episode turn by turn (the rollout service's transcript). */
export type TranscriptReader = (runDir: string, episode: string) => TranscriptTurn[] | undefined;

/** The reward parts of each task's first scored episode. */
function partsByTask(m: ModelRun): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const e of m.episodes) if (e.reward !== null && !out.has(e.taskId)) out.set(e.taskId, e.parts);
  return out;
}

/** The episode of `task` shown for a model: its first scored repeat, else its first. */
function episodeOf(m: ModelRun, task: string): string | undefined {
  const eps = m.episodes.filter((e) => e.taskId === task);
  return (eps.find((e) => e.reward !== null) ?? eps[0])?.episode;
}

export class ComparisonSession {
  private shown: { a: string; b: string };

  /** `pair`: the pair a restored page showed (ignored when not in the record); `l10n`: the verdicts' language. */
  constructor(
    private readonly record: EvalRecord,
    private readonly dir: string,
    private readonly transcript: TranscriptReader,
    private readonly strings: () => EvalStrings,
    pair?: { a?: string; b?: string },
    private readonly l10n: L10n = english,
  ) {
    const names = record.models.map((m) => m.name);
    const a = pair?.a && names.includes(pair.a) ? pair.a : names[0];
    const b = pair?.b && names.includes(pair.b) && pair.b !== a ? pair.b : (names.find((n) => n !== a) ?? a);
    this.shown = { a, b };
  }

  get pair(): { a: string; b: string } {
    return { ...this.shown };
  }

  private run(name: string): ModelRun | undefined {
    return this.record.models.find((m) => m.name === name);
  }

  /** The page's message answered (undefined: nothing to send, e.g. a pick of an unknown model). */
  answer(m: FromView): ToView | undefined {
    if (m.type === 'ready') return this.comparison();
    if (m.type === 'pick') {
      if (!this.run(m.a) || !this.run(m.b) || m.a === m.b) return undefined;
      this.shown = { a: m.a, b: m.b };
      return this.comparison();
    }
    const a = this.run(this.shown.a);
    const b = this.run(this.shown.b);
    if (!a || !b) return undefined;
    const side = (run: ModelRun) => {
      const ep = episodeOf(run, m.task);
      return ep ? (this.transcript(path.resolve(this.dir, run.runDir), ep) ?? []) : [];
    };
    return { type: 'pair', task: m.task, a: a.name, b: b.name, rows: pairTurns(side(a), side(b)) };
  }

  private comparison(): ToView | undefined {
    const a = this.run(this.shown.a);
    const b = this.run(this.shown.b);
    const c = comparePair(this.record, this.shown.a, this.shown.b, { l10n: this.l10n });
    if (!a || !b || !c) return undefined;
    const overview = this.record.models.filter((m) => m.name !== a.name).map((m) => comparePair(this.record, a.name, m.name, { l10n: this.l10n })!);
    const ctx = {
      title: `${b.name} ↔ ${a.name} · ${path.basename(this.record.config)}`,
      dir: this.dir,
      models: this.record.models.map((m) => m.name),
      overview,
    };
    return { type: 'comparison', data: comparisonData(ctx, c, { a: partsByTask(a), b: partsByTask(b) }), strings: this.strings() };
  }
}
