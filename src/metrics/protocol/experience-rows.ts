// The buffer rows (experiences) a drill-down shows: their reference, the row, the columnar
// form a drill sends, and one experience's detail.
export interface ExperienceRef {
  run: string;
  endpoint: string;
  source: string;
  table: string;
  id: number;
}

export interface ExperienceViewRow extends ExperienceRef {
  taskId: string | null;
  runId: number | null;
  modelVersion: number | null;
  reward: number | null;
  timestamp: string | null;
  /** How often the trainer has read it (absent: the buffer does not say). */
  consumed?: number | null;
  /** The parts of the reward (experience.metrics: accuracy, format_score, …). */
  metrics?: Record<string, number>;
  advantage?: number | null;
  /** What the buffer row says of its tensors (TRXP rows): response length, trained tokens, truncation, empty response. */
  responseTokens?: number;
  trainedTokens?: number;
  truncated?: boolean;
  emptyResponse?: boolean;
}

/**
 * Drilled rollouts as columns (row i is index i of every array): compact enough to send and
 * hold 10⁶ of them. Non-finite numbers are null.
 */
export interface ExperienceColumns {
  /** Distinct (endpoint, source, table) of the rows; `origin[i]` indexes it. */
  origins: { endpoint: string; source: string; table: string }[];
  origin: number[];
  id: number[];
  /** Distinct task ids; `task[i]` indexes it, -1 = none. */
  tasks: (string | null)[];
  task: number[];
  runId: (number | null)[];
  modelVersion: (number | null)[];
  reward: (number | null)[];
  consumed: (number | null)[];
  advantage: (number | null)[];
  /** Response tokens, trained tokens, truncated (1 or 0); null: the row does not say. */
  responseTokens: (number | null)[];
  trainedTokens: (number | null)[];
  truncated: (number | null)[];
  /** One column per reward part, named in first-seen order. */
  parts: { name: string; values: (number | null)[] }[];
}

export interface ExperienceMessage {
  role: string;
  content: string;
  /** Tool calls, names… as pretty JSON (display only). */
  extra?: string;
}

/** A field as the drawer shows it: a labelled value (a scalar, a list of them), or a group. */
export type FieldNode = { key: string; value?: string; children?: FieldNode[] };

export interface ExperienceViewDetail {
  ref: ExperienceRef;
  messages: ExperienceMessage[];
  /** Other fields of the experience (reward, eid, info, metrics, tools…). */
  fields: FieldNode[];
}
