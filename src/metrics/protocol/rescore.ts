// What a re-score of buffer rows gives (`agentrl eval --rescore --from-job DIR --steps A-B
// --json`): per experience the recorded reward and the one the workspace's current reward code
// gives now, the group advantages both would give, and the counts. The drill-down shows it;
// the extension reads it from the CLI's output (src/metrics/replay/rescore-result.ts).

/** One re-scored experience (`id`: the experience id the drill-down has). */
export interface RescoreRow {
  id: number;
  step: number | null;
  task_index: number | null;
  recorded: number | null;
  now: number | null;
  advantage_recorded: number | null;
  advantage_now: number | null;
  /** Why this row could not be re-scored (no messages, the reward raised…). */
  error: string | null;
}

export interface RescoreResult {
  steps: [number, number];
  rows: RescoreRow[];
  /** Rows whose reward is not the recorded one. */
  changed: number;
  /** Rows whose advantage changed sign. */
  flips: number;
}
