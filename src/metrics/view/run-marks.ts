// Events marked on a run's charts: each online-training commit (the explorer's /commit) becomes a vertical
// line at the explore step it was committed at. The online feature reports a commit with its
// explorer URL only, so the run is the one whose series come from that explorer's /metrics
// (a serve-mode run: its relay streams `explore_step_num`), or the only run shown. Pure.
import type { RunMark } from '../protocol/frames';

/** A tag only a serve-mode explorer's /metrics produces (relay serve source). */
export const SERVE_TAG = 'explore_step_num';

export class RunMarks {
  private readonly byRun = new Map<string, RunMark[]>();

  /** Adds a mark; false when the run already has that mark at that step. */
  add(run: string, mark: RunMark): boolean {
    const list = this.byRun.get(run) ?? [];
    if (list.some((m) => m.kind === mark.kind && m.step === mark.step)) return false;
    list.push(mark);
    list.sort((a, b) => a.step - b.step);
    this.byRun.set(run, list);
    return true;
  }

  forRun(run: string): RunMark[] | undefined {
    return this.byRun.get(run);
  }
}

/** The runs a commit of a serve-mode explorer belongs to, from the series the view holds. */
export function runsForCommit(series: readonly { run: string; tag: string }[]): string[] {
  const serve = [...new Set(series.filter((s) => s.tag === SERVE_TAG).map((s) => s.run))];
  if (serve.length) return serve.sort();
  const all = [...new Set(series.map((s) => s.run))];
  return all.length === 1 ? all : [];
}
