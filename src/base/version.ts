// The package version, injected by esbuild (`define`). Under plain tsc (unit tests) the
// constant does not exist, so fall back to reading package.json next to out/.
import * as fs from 'fs';
import * as path from 'path';

declare const AGENTRL_VERSION: string | undefined;

function readVersion(): string {
  if (typeof AGENTRL_VERSION === 'string') return AGENTRL_VERSION;
  try {
    // out/src/base/version.js -> <repo>/package.json
    const manifest = path.join(__dirname, '..', '..', '..', 'package.json');
    return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0-dev';
  }
}

export const VERSION: string = readVersion();
