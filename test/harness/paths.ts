// Where the test tooling lives. Everything is inside the repo (git-ignored caches) or
// overridable by environment, so a clean clone installs it with scripts/setup.sh.
import * as fs from 'fs';
import * as path from 'path';

/** Repository root (this file compiles to out/test/harness/paths.js). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

/** ../shared beside the repo: upstream corpus and fixtures; may be missing in a bare clone. */
export const sharedDir = path.resolve(process.env.AGENTRL_SHARED_DIR ?? path.join(repoRoot, '..', 'shared'));
export const hasShared = fs.existsSync(path.join(sharedDir, 'corpus'));

export const codeServerBin = path.resolve(
  process.env.CODE_SERVER_BIN ?? path.join(repoRoot, '.vscode-test', 'code-server', 'node_modules', '.bin', 'code-server'),
);
export const chromiumBin = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
export const venvPython = path.join(repoRoot, '.cache', 'venv', 'bin', 'python');
export const resultsDir = path.join(repoRoot, 'test-results');
export const screenshotsDir = path.join(resultsDir, 'screenshots');

/** The server bundled inside code-server (code-server's lib/vscode/out/server-main.js). */
export function serverMainOf(bin: string = codeServerBin): string {
  const pkgDir = path.resolve(path.dirname(fs.realpathSync(bin)), '..', '..');
  return path.join(pkgDir, 'lib', 'vscode', 'out', 'server-main.js');
}
