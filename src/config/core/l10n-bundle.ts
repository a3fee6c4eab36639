// The reader's language for the processes that render findings outside the extension host:
// the language server (its client passes VS Code's bundle for the display language) and
// `agentrl check --lang zh-cn`. Without a bundle passed in, a Chinese locale reads the zh-cn
// bundle we ship (l10n/, found by walking up from the running file: dist/ in the package,
// out/src/config/core under tsc); anything else reads English.
import * as l10n from '@vscode/l10n';
import * as fs from 'fs';
import * as path from 'path';
import type { Lang } from './l10n-text';

export type Bundle = Record<string, string>;

/** l10n/bundle.l10n.zh-cn.json for a Chinese locale (the one translation we ship), else undefined. */
export function shippedBundle(locale: string, from: string = __dirname): Bundle | undefined {
  if (!locale.toLowerCase().startsWith('zh')) return undefined;
  for (let dir = from, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    const file = path.join(dir, 'l10n', 'bundle.l10n.zh-cn.json');
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as Bundle;
  }
  return undefined;
}

/** Configures @vscode/l10n (process-wide) for `locale` and returns the Lang to render with. */
export function useLanguage(locale: string, bundle?: Bundle): Lang {
  // an empty bundle resets a previous language (the CLI may run twice in one process)
  l10n.config({ contents: bundle ?? shippedBundle(locale) ?? {} });
  return { l10n, locale };
}
