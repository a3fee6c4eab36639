// The whole answer about a run's tasks, from its table: every task's class and rewards by
// version, the counts, the evidence (evidence, not proof), what was not checked and why, and the
// rows that could not be placed. `agentrl tasks --json` prints it; the metrics view's Tasks view
// shows it.
import { type ClassOptions, type TaskReport, type TaskSort, classifyTasks, sortTasks } from './task-classes';
import { type Finding, type NotChecked, findEvidence, notChecked } from './task-findings';
import { type AcceptedAnswer, referenceFinding } from './reference-answers';
import type { References } from './reference-answers';
import { l10n } from './finding-text';
import type { EvalSeries } from './run-findings';
import type { Identity, Skipped, TaskTable } from './task-table';

export interface TasksJson {
  versions: [number, number] | null;
  identity: Identity;
  threshold: number | null;
  tasks: TaskReport['tasks'];
  counts: TaskReport['counts'];
  findings: Finding[];
  not_checked: NotChecked[];
  skipped: { no_task: number; no_version: number; no_reward: number };
  /** Rows whose model version is below an earlier row's (placed, at their own version). */
  versions_out_of_order: number;
  experiences: number;
}

/** The taskset's reference answers and the accepted rows read to check against them (reference-answers.ts). */
export interface ReferenceCheck {
  references: References;
  answers: AcceptedAnswer[];
}

/**
 * The whole answer for one table (`evals`: the run's eval taskset series, when read;
 * `reference`: the reference answers and the accepted answers read, when the taskset was read).
 */
export function tasksJson(table: TaskTable, opts: ClassOptions, sort: TaskSort, evals?: EvalSeries[], reference?: ReferenceCheck): TasksJson {
  const report = classifyTasks(table, opts);
  const { findings, notChecked: unchecked } = findEvidence(table, evals);
  if (!reference) unchecked.push(notChecked('reference_answer', l10n.t("needs the taskset's reference answers (not read here)")));
  else if ('why' in reference.references) unchecked.push(notChecked('reference_answer', reference.references.why));
  else if (report.threshold === null || !reference.answers.length)
    unchecked.push(notChecked('reference_answer', l10n.t('no accepted answer of a task with a reference answer to read')));
  else {
    const f = referenceFinding(reference.answers, reference.references.answers, report.threshold);
    if (f) findings.push(f);
  }
  const s: Skipped = table.skipped;
  return {
    versions: report.versions,
    identity: table.identity,
    threshold: report.threshold,
    tasks: sortTasks(report.tasks, sort),
    counts: report.counts,
    findings,
    not_checked: unchecked,
    skipped: { no_task: s.noTask, no_version: s.noVersion, no_reward: s.noReward },
    versions_out_of_order: table.versionsOutOfOrder,
    experiences: table.rows,
  };
}
