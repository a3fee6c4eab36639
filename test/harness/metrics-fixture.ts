// Synthetic Trinity-RFT-shaped metrics for the view's browser tests and bench: the tags an
// explorer and a trainer log (Trinity's monitor keys), with a planted one-point spike.
import type { Point } from '../../src/metrics/store/store';

export const EXPLORER_TAGS = [
  'rollout/accuracy/mean',
  'rollout/format_score/mean',
  'rollout/model_version',
  'rollout/finished_task_count',
  'eval/gsm8k-eval/accuracy/mean@4',
  'time/wait_explore_step',
];
export const TRAINER_TAGS = [
  'actor/pg_loss',
  'actor/kl_loss',
  'actor/entropy',
  'actor/grad_norm',
  'critic/rewards/mean',
  'critic/advantages/mean',
  'response_length/mean',
  'response_length/max',
  'perf/throughput',
  'time/train_step',
];

/** Value of a tag at a step: smooth trend + deterministic noise. */
export function valueAt(tag: string, step: number): number {
  let h = 2166136261;
  for (let i = 0; i < tag.length; i++) h = Math.imul(h ^ tag.charCodeAt(i), 16777619);
  const noise = (Math.sin(step * 12.9898 + (h % 1000)) * 43758.5453) % 1;
  if (tag === 'rollout/model_version') return Math.max(0, step - 1);
  if (tag.includes('accuracy') || tag.includes('rewards')) return 0.2 + 0.6 * (1 - Math.exp(-step / 300)) + 0.05 * noise;
  if (tag.includes('loss')) return 0.5 * Math.exp(-step / 400) + 0.02 * noise;
  if (tag.includes('length')) return 200 + 100 * Math.sin(step / 80) + 10 * noise;
  return 1 + 0.1 * noise + (h % 7);
}

export function points(tag: string, from: number, to: number, t0 = 1.7e9, every = 1): Point[] {
  const out: Point[] = [];
  for (let s = from; s < to; s += every) out.push({ step: s, wallTime: t0 + s * 3.5, value: valueAt(tag, s) });
  return out;
}
