// The colour of a token in each mode, as a class name (the stylesheet maps classes to theme
// colours: no inline style, which the webviews' CSP forbids). Pure: unit-tested.
import type { TokenExperience } from '../../tokens/experience';

export type ColourMode = 'logprob' | 'mask' | 'advantage';

/** Ten steps of probability: lp0 (p < 0.1, the most surprising) … lp9 (p ≥ 0.9). */
export function logprobClass(lp: number): string {
  if (!Number.isFinite(lp)) return 'tv-none';
  const p = Math.exp(Math.min(0, lp));
  return `tv-lp${Math.min(9, Math.floor(p * 10))}`;
}

/** Five steps each way, relative to the largest |advantage| of the sequence. */
export function advantageClass(a: number, maxAbs: number): string {
  if (!Number.isFinite(a) || maxAbs <= 0 || a === 0) return 'tv-none';
  const step = Math.min(5, Math.max(1, Math.ceil((Math.abs(a) / maxAbs) * 5)));
  return `${a > 0 ? 'tv-adv-pos' : 'tv-adv-neg'}${step}`;
}

/** Prompt, trained, or a response token not trained (a tool result, a masked turn). */
function maskClass(e: TokenExperience, i: number): string {
  if (e.trained[i]) return 'tv-trained';
  return i < e.promptLength ? 'tv-prompt' : 'tv-untrained';
}

export function colourClass(e: TokenExperience, i: number, mode: ColourMode, maxAbsAdvantage: number): string {
  if (mode === 'mask') return maskClass(e, i);
  if (mode === 'advantage') return e.advantages ? advantageClass(e.advantages[i], maxAbsAdvantage) : 'tv-none';
  return logprobClass(e.logprobs ? e.logprobs[i] : NaN);
}

export function maxAbs(a: Float32Array | undefined): number {
  let m = 0;
  if (a) for (let i = 0; i < a.length; i++) if (Number.isFinite(a[i])) m = Math.max(m, Math.abs(a[i]));
  return m;
}
