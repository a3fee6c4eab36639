// Entry point loaded by the extension host (extensionTestsPath). Runs every
// out/test/integration/**/*.test.js with mocha (tdd UI) and writes mocha's stats to
// $VSCODE_EXT_TEST_RESULTS so the harness can print `N passed, N failed, N skipped`.
// $AGENTRL_TEST_GREP narrows the run; $AGENTRL_TEST_NETNS=only|all picks the *.netns.test.js files (e.g. `npm run test:integration -- --grep config`);
// $AGENTRL_TEST_FILE runs that one compiled file (`npm run test:file -- test/integration/….test.ts`).
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findTests(p));
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 60000, color: false, reporter: 'spec' });
  if (process.env.AGENTRL_TEST_GREP) mocha.grep(new RegExp(process.env.AGENTRL_TEST_GREP));
  // *.netns.test.js need a loopback-only network namespace (a real Ray cluster): scripts/test.mjs
  // runs them in a second host started under `unshare -n` (AGENTRL_TEST_NETNS=only).
  const netns = process.env.AGENTRL_TEST_NETNS;
  const only = process.env.AGENTRL_TEST_FILE;
  for (const f of findTests(__dirname)) {
    if (only && path.resolve(f) !== path.resolve(only)) continue;
    const isNetns = f.endsWith('.netns.test.js');
    if ((netns === 'only' && !isNetns) || (netns !== 'only' && netns !== 'all' && isNetns)) continue;
    mocha.addFile(f);
  }
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const out = process.env.VSCODE_EXT_TEST_RESULTS;
      if (out) fs.writeFileSync(out, JSON.stringify(runner.stats ?? { failures }));
      if (failures > 0) reject(new Error(`${failures} tests failed.`));
      else resolve();
    });
  });
}
