// Reads templates/ from disk into the map parseTemplateSet() takes (the extension's source;
// the CLI embeds the same map at build time, see esbuild.mjs).
import * as fs from 'fs';
import * as path from 'path';
import type { TemplateFiles } from './template-set';

export function readTemplateDir(root: string): TemplateFiles {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.isFile()) out[r] = fs.readFileSync(path.join(dir, e.name), 'utf8');
    }
  };
  walk(root, '');
  return out;
}
