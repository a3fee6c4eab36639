// Release numbers compared the way pip orders plain `X.Y.Z` releases (enough for the Trinity-RFT,
// agentscope and ASTuner versions we see). Here at the bottom: version checks, rules and
// completion all compare releases, on every keystroke, so answers are memoised.

const compared = new Map<string, number>();

/** < 0 when `a` is older than `b`, 0 when equal, > 0 when newer. */
export function compareVersions(a: string, b: string): number {
  const key = `${a}|${b}`;
  let r = compared.get(key);
  if (r === undefined) {
    r = compareUncached(a, b);
    if (compared.size > 10_000) compared.clear();
    compared.set(key, r);
  }
  return r;
}

function compareUncached(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  const pb = b.split(/[.+-]/).map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}
