// What a re-score of buffer rows gives, as the drill-down shows it: the CLI's JSON
// (src/feature-api/buffer-rescore.ts) with each experience id as the number the drill-down has.
// The extension reads it from the CLI's output (src/metrics/replay/rescore-result.ts).
import type { BufferRescoreJson, BufferRescoreRow } from '../../feature-api/buffer-rescore';

/** One re-scored experience (`id`: the experience id the drill-down has). */
export type RescoreRow = BufferRescoreRow<number>;

export type RescoreResult = BufferRescoreJson<number>;
