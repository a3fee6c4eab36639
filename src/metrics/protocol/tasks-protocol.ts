// The Tasks view's messages between the metrics webview and the extension (view-protocol.ts
// carries them in its unions). The page asks for the tables while the view is shown
// (`watchTasks`); the extension then posts every experience source's table of tasks × model
// versions as the relay folded it (`tasksTable`), again as the run goes. A task's rollouts are
// read with the drill-down's own messages (`openRollout`, `openTokens`, and `debugRollout` for
// Debug This Rollout).
import { hasFields, isBool, isObj, oneOf } from '../../base/validate';
import type { TasksJson } from '../../tasks/task-report';

/** Keys of the Tasks view's user-visible strings, localized by the extension (src/metrics/tasks-strings.ts). */
export const TASKS_STRING_KEYS = [
  'tasksTitle',
  'noTable',
  'all',
  'learned',
  'never',
  'always',
  'forgotten',
  'flaky',
  'sortBy',
  'sortTask',
  'sortGain',
  'sortFlip',
  'sortLength',
  'task',
  'rewardByVersion',
  'firstSolved',
  'lastSeen',
  'class',
  'gain',
  'lengthChange',
  'summary',
  'evidenceTitle',
  'reward_part_alone',
  'length_growth',
  'mode_collapse',
  'train_eval_divergence',
  'reference_answer',
  'noEvidence',
  'notChecked',
  'exampleRows',
  'skipped',
  'outOfOrder',
  'identityEid',
  'identityMixed',
  'taskTitle',
  'versionA',
  'versionB',
  'best',
  'worst',
  'longest',
  'reward',
  'length',
  'tokens',
  'debugRollout',
  'loading',
] as const;
export type TasksStringKey = (typeof TASKS_STRING_KEYS)[number];
export type TasksStrings = Record<TasksStringKey, string>;

/** One experience source's tasks, as the Tasks view shows them. */
export interface TasksViewTable {
  endpoint: string;
  source: string;
  run: string;
  /** The buffer table the rows are in (an ExperienceRef's `table`). */
  table: string;
  report: TasksJson;
  /** Example rows per task and model version: [best, worst, longest] row ids. */
  examples: Record<string, Record<number, [number, number, number]>>;
  /** Mean response length (tokens) per task and model version, where the rows say. */
  lengths: Record<string, Record<number, number>>;
}

// ---- extension → webview -------------------------------------------------------------------

export interface TasksTableMessage {
  type: 'tasksTable';
  strings: TasksStrings;
  tables: TasksViewTable[];
  /** Sources whose table could not be read, and why. */
  errors: string[];
}
export type TasksHostMessage = TasksTableMessage;

// ---- webview → extension -------------------------------------------------------------------

/** The Tasks view is shown (tables wanted, kept up to date) or hidden. */
export interface WatchTasksMessage {
  type: 'watchTasks';
  on: boolean;
}
export type TasksWebviewMessage = WatchTasksMessage;

/** Validates a Tasks view message from the webview; undefined when it is not one. */
export function parseTasksWebviewMessage(v: unknown): TasksWebviewMessage | undefined {
  if (!isObj(v)) return undefined;
  if (v.type === 'watchTasks') return hasFields(v, { type: oneOf(['watchTasks']), on: isBool }) ? v : undefined;
  return undefined;
}
