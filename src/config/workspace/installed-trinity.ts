// Which trinity-rft a workspace has installed, read from the files alone (a source checkout, or
// a venv's dist-info / __init__.py): the CLI's default target release, and the server's answer
// when no interpreter can be asked.
import * as fs from 'fs';
import * as path from 'path';

/** Reads the version of an installed `trinity` package under the given roots, if any. */
export function detectInstalledTrinity(roots: readonly string[]): { version: string; where: string } | undefined {
  const venvs = ['.venv', 'venv', 'env', '.env', '.cache/venv'];
  for (const root of roots) {
    // a source checkout of Trinity-RFT itself
    const own = readInitVersion(path.join(root, 'trinity', '__init__.py'));
    if (own) return { version: own, where: path.join(root, 'trinity') };
    for (const v of venvs) {
      const lib = path.join(root, v, 'lib');
      let pys: string[];
      try {
        pys = fs.readdirSync(lib).filter((d) => d.startsWith('python'));
      } catch {
        continue;
      }
      for (const py of pys) {
        const site = path.join(lib, py, 'site-packages');
        let entries: string[] = [];
        try {
          entries = fs.readdirSync(site);
        } catch {
          continue;
        }
        const dist = entries.find((e) => /^trinity_rft-[\w.]+\.dist-info$/.test(e));
        if (dist) return { version: dist.replace(/^trinity_rft-/, '').replace(/\.dist-info$/, ''), where: path.join(site, dist) };
        const init = readInitVersion(path.join(site, 'trinity', '__init__.py'));
        if (init) return { version: init, where: path.join(site, 'trinity') };
      }
    }
  }
  return undefined;
}

function readInitVersion(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').slice(0, 20_000);
    return /__version__\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  } catch {
    return undefined;
  }
}
