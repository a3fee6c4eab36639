// A cheap look at a YAML text: could it be an RL config? Decides when to start the language
// server (activation must stay fast); the server's detection (detect-kind.ts) has the last word.

const MODELINE = /^#\s*agentrl\s*:\s*(trinity|astuner|ajet)\s*$/im;
const AGENT_ROOT = /^(astuner|ajet|trinity)\s*:/m;
const SECTION = /^(algorithm|buffer|explorer|trainer|model|cluster|synchronizer|monitor|data_processor|stages)\s*:/gm;

export function looksLikeRlConfig(text: string): boolean {
  const head = text.slice(0, 64 * 1024);
  if (MODELINE.test(head.split('\n').slice(0, 10).join('\n'))) return true;
  if (AGENT_ROOT.test(head)) return true;
  const sections = new Set<string>();
  for (const m of head.matchAll(SECTION)) sections.add(m[1]);
  return sections.size >= 2;
}
