// Tests mirror src/: the test of `src/<path>.ts` is `test/<tier>/<path>.test.ts`, and a test of
// a folder's behaviour as a whole (a feature, a subsystem) is named for that folder
// (`test/component/tfrecord.test.ts` for `src/tfrecord/`). So a test file's path
// under its tier, without `.test.ts` / `.e2e.ts` (and a `.netns` before it), must be a module
// or a folder of src/. The few suites about the whole tree are listed below with the reason.
import path from 'node:path';

/** Test files (or a folder of them, ending in `/`) that test no one module or folder of src/, each with why. */
export const CROSS_CUTTING = {
  'test/unit/architecture.test.ts': 'the house rules of CONTRIBUTING.md over every file of src/',
  'test/unit/l10n.test.ts': 'the English and Chinese l10n bundles of every feature',
  'test/unit/test-tiers.test.ts': 'the test tiers of scripts/test.mjs (what a unit test may do)',
  'test/e2e/shell.e2e.ts': 'the packaged VSIX installed into the real workbench',
  'test/e2e/start.e2e.ts': "a newcomer's session from `npm start` (scripts/start.mjs) across features",
  'test/e2e/trust.e2e.ts': 'Workspace Trust across every feature',
  'test/component/relay/conformance/': 'the one protocol of two relays (src/relay and src/relay/python/agentrl_relay/), each case run against both',
};
const crossCutting = (file) => Object.hasOwn(CROSS_CUTTING, file) || Object.keys(CROSS_CUTTING).some((k) => k.endsWith('/') && file.startsWith(k));

const TIERS = ['unit', 'component', 'integration', 'e2e'];
const TEST_RE = /^test\/(unit|component|integration|e2e)\/(.+?)(?:\.netns)?\.(?:test\.ts|e2e\.ts)$/;

/** @typedef {{ file: string, line: number, rule: string, message: string }} Finding */

/**
 * @param {string[]} files  repo-relative paths (repo-files.mjs)
 * @returns {Finding[]}
 */
export function testMirror(files) {
  const modules = new Set(files.filter((f) => /^src\/.+\.ts$/.test(f)).map((f) => f.replace(/\.ts$/, '')));
  const folders = new Set();
  for (const f of files) if (f.startsWith('src/')) for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) folders.add(d);
  const findings = [];
  for (const file of files) {
    const m = TEST_RE.exec(file);
    if (!m || !TIERS.includes(m[1])) continue;
    const subject = `src/${m[2]}`;
    if (crossCutting(file) || modules.has(subject) || folders.has(subject)) continue;
    const dir = path.posix.dirname(subject);
    const hint =
      folders.has(dir) || dir === 'src'
        ? `no ${subject}.ts or ${subject}/ (name it for the module or folder it tests)`
        : `no ${dir}/ (move it under the folder of the code it tests)`;
    findings.push({ file, line: 1, rule: 'unmirrored-test', message: `does not mirror src/: ${hint}` });
  }
  return findings;
}
