// A rollout's GRPO group side by side: the rollouts of its task at its model version, one
// column each (ordered by run), with reward, advantage (when the buffer has it) and every
// reward part — what GRPO normalized this rollout against — the response length, the trained
// tokens and truncation when the buffer row says them, and the group's flags (no gradient,
// truncated, empty, nothing trained) as the extension worded them. A column opens that rollout.
import type { UiStrings } from '../protocol/ui-strings';
import type { ExperienceGroup, ExperienceTable } from '../experiences/table';
import { fmtNum } from './format';

export function groupView(
  t: ExperienceTable,
  g: ExperienceGroup,
  opened: number,
  s: UiStrings,
  onOpen: (i: number) => void,
  flags: readonly string[] = [],
): HTMLElement {
  const c = t.cols;
  const el = document.createElement('div');
  el.className = 'group';
  const title = document.createElement('h3');
  title.textContent = s.groupTitle
    .replace('{0}', g.task ?? '–')
    .replace('{1}', String(g.modelVersion ?? '–'))
    .replace('{2}', String(g.members.length))
    .replace('{3}', fmtNum(g.mean))
    .replace('{4}', fmtNum(g.std));
  const flagList = document.createElement('ul');
  flagList.className = 'group-flags';
  for (const f of flags) {
    const li = document.createElement('li');
    li.textContent = f;
    flagList.append(li);
  }
  const table = document.createElement('table');
  table.className = 'group-members';
  const lines: [string, (i: number) => number | null | string][] = [
    ['#', (i) => String(c.runId[i] ?? '–')],
    [s.reward, (i) => c.reward[i]],
  ];
  if (g.members.some((i) => c.advantage[i] !== null)) lines.push([s.advantage, (i) => c.advantage[i]]);
  if (g.members.some((i) => c.responseTokens[i] !== null)) lines.push([s.length, (i) => c.responseTokens[i]]);
  if (g.members.some((i) => c.trainedTokens[i] !== null)) lines.push([s.trainedShort, (i) => c.trainedTokens[i]]);
  if (g.members.some((i) => c.truncated[i] === 1)) lines.push([s.truncatedShort, (i) => (c.truncated[i] === 1 ? '✂' : '')]);
  for (const p of c.parts) if (g.members.some((i) => p.values[i] !== null)) lines.push([p.name, (i) => p.values[i]]);
  const [lo, hi] = rewardRange(g.members.map((i) => c.reward[i]));
  for (const [name, value] of lines) {
    const tr = table.insertRow();
    const th = document.createElement('th');
    th.textContent = name;
    tr.append(th);
    for (const i of g.members) {
      const td = tr.insertCell();
      td.className = 'member' + (i === opened ? ' open' : '');
      const v = value(i);
      td.textContent = typeof v === 'string' ? v : fmtNum(v);
      if (name === s.reward && typeof v === 'number') {
        // A bar under the reward: where it sits in the group's range.
        const bar = document.createElement('span');
        bar.className = 'reward-bar';
        bar.style.width = `${hi > lo ? ((v - lo) / (hi - lo)) * 100 : 100}%`;
        td.append(bar);
      }
      td.addEventListener('click', () => onOpen(i));
    }
  }
  const scroll = document.createElement('div');
  scroll.className = 'group-scroll';
  scroll.append(table);
  el.append(title, ...(flags.length ? [flagList] : []), scroll);
  return el;
}

function rewardRange(vs: (number | null)[]): [number, number] {
  const xs = vs.filter((v): v is number => v !== null);
  return xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 0];
}
