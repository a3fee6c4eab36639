// The numbers of one token, as the hover card lists them: position, id, text, logprob and
// probability, trained or not (and why not: prompt, or a response token outside the mask — a tool
// result, a masked turn), advantage, return and token-level reward when the experience has them.
import { FLAG_PARTIAL, FLAG_SPECIAL, type TokenExperience, tokenText } from '../../tokens/experience';
import { fillString, type TokenViewStrings } from '../../tokens/view-strings';
import { visibleText } from '../../tokens/visible';

const num = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(5))) : '–');

export function tooltipLines(e: TokenExperience, i: number, s: TokenViewStrings): [string, string][] {
  const rows: [string, string][] = [[fillString(s.token, i), '']];
  rows.push([s.id, String(e.ids[i])]);
  const text = tokenText(e.texts, i);
  const flags = e.texts ? e.texts.flags[i] : 0;
  if (text === undefined) rows.push(['', s.noText]);
  else if (flags & FLAG_PARTIAL) rows.push(['', fillString(s.partial, e.texts?.partialBytes[i] ?? '?')]);
  else rows.push(['', JSON.stringify(text).slice(1, -1) || visibleText('')]);
  if (flags & FLAG_SPECIAL) rows.push(['', s.special]);
  const lp = e.logprobs ? e.logprobs[i] : NaN;
  if (Number.isFinite(lp)) {
    rows.push([s.logprob, num(lp)]);
    rows.push([s.probability, num(Math.exp(lp))]);
  }
  rows.push(['', i < e.promptLength ? s.prompt : e.trained[i] ? s.trained : s.notTrained]);
  const more: [string, Float32Array | undefined][] = [
    [s.advantage, e.advantages],
    [s.returnValue, e.returns],
    [s.tokenReward, e.tokenLevelReward],
  ];
  for (const [k, a] of more) if (a && Number.isFinite(a[i])) rows.push([k, num(a[i])]);
  return rows;
}
