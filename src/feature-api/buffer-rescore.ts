// What a re-score of a training run's buffer rows prints (`agentrl eval --rescore --from-job
// DIR --steps A-B --json`): per experience the recorded reward and the one the workspace's
// current reward code gives now, the group advantages both would give, and the counts. The
// comparison (src/eval) writes it; the metrics view's drill-down reads it from the CLI's output
// and shows it. One shape for both sides.

/** One re-scored experience (`id`: its experience id, as the CLI writes it: digits). */
export interface BufferRescoreRow<Id = string> {
  id: Id;
  step: number | null;
  task_index: number | null;
  recorded: number | null;
  now: number | null;
  advantage_recorded: number | null;
  advantage_now: number | null;
  /** Why this row could not be re-scored (no messages, a divergence, the reward raised…). */
  error: string | null;
}

export interface BufferRescoreJson<Id = string> {
  steps: [number, number];
  rows: BufferRescoreRow<Id>[];
  /** Rows re-scored whose reward now differs from the recorded one. */
  changed: number;
  /** Rows whose advantage changes sign (−, 0, +: within 1e-6 of zero counts as 0). */
  flips: number;
  /** Rows that could not be re-scored (their `error` says why); absent from older CLIs' output. */
  errors?: number;
}
