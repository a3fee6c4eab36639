// Which trinity-rft (and verl) a workspace has installed, read from the files alone (a source
// checkout, or a venv's dist-info / __init__.py): the CLI's default target release, and the
// server's answer when no interpreter can be asked.
import * as fs from 'fs';
import * as path from 'path';

/** Virtual environments looked for in a workspace folder. */
const VENVS = ['.venv', 'venv', 'env', '.env', '.cache/venv'];

/** Reads the version of an installed `trinity` package under the given roots, if any. */
export function detectInstalledTrinity(roots: readonly string[]): { version: string; where: string } | undefined {
  const venvs = VENVS;
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
        let entries: string[];
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

/** The version of a package installed in a venv under the roots, from its `*.dist-info` (verl…). */
export function detectInstalledPackage(roots: readonly string[], dist: string): { version: string; where: string } | undefined {
  const re = new RegExp(`^${dist.replace(/[-_.]/g, '[-_.]')}-([\\w.+]+)\\.dist-info$`, 'i');
  for (const root of roots) {
    for (const v of VENVS) {
      const lib = path.join(root, v, 'lib');
      let pys: string[];
      try {
        pys = fs.readdirSync(lib).filter((d) => d.startsWith('python'));
      } catch {
        continue;
      }
      for (const py of pys) {
        const site = path.join(lib, py, 'site-packages');
        let entries: string[];
        try {
          entries = fs.readdirSync(site);
        } catch {
          continue;
        }
        for (const e of entries) {
          const m = re.exec(e);
          if (m) return { version: m[1], where: path.join(site, e) };
        }
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
