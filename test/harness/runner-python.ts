// The debugger runner's own tests are pytest files (test/component/debug/runner/agentrl_runner/,
// configured by pytest.ini there); this runs them once, as the runner ships: standard library only,
// with pytest the one package beside it (.cache/pytest-venv from scripts/setup.sh python, else
// the machine's python3; PYTHONPATH cleared so nothing from another venv leaks in), and gives
// each test's outcome from pytest's JUnit XML.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { repoRoot } from './paths';

/** The runner's Python package folder, and where its pytest files are. */
export const runnerDir = path.join(repoRoot, 'src', 'debug', 'runner');
export const runnerTestDir = path.join(repoRoot, 'test', 'component', 'debug', 'runner');

export interface PytestCase {
  /** `agentrl_runner/test_tasks.py::test_name` */
  id: string;
  outcome: 'passed' | 'failed' | 'skipped';
  /** What pytest reported for a failure or a skip. */
  detail: string;
}

export type PytestRun = { ok: true; cases: PytestCase[]; output: string } | { ok: false; why: string };

/** The interpreter the suite runs on: the pytest-only venv when setup made it, else python3. */
export const pytestPython = fs.existsSync(path.join(repoRoot, '.cache', 'pytest-venv', '.agentrl-ok'))
  ? path.join(repoRoot, '.cache', 'pytest-venv', 'bin', 'python')
  : 'python3';

/** Why the suite cannot run here (an interpreter without pytest), or undefined. */
export function pytestMissing(python = pytestPython): string | undefined {
  const r = spawnSync(python, ['-c', 'import pytest'], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: '' } });
  return r.status === 0 ? undefined : `${python} has no pytest (pip install pytest): ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`;
}

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#10;/g, '\n')
    .replace(/&amp;/g, '&');

/** Runs the runner's pytest suite and reads each test's outcome. */
export function runPytest(python = pytestPython): PytestRun {
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-pytest-')), 'junit.xml');
  const r = spawnSync(python, ['-m', 'pytest', '-q', '--junit-xml', report, '-o', 'junit_family=xunit1', runnerTestDir], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: '', PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 300_000,
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  // pytest exits 0 (all passed) or 1 (some failed); anything else is no test run at all.
  if (r.status !== 0 && r.status !== 1) return { ok: false, why: `pytest exited ${r.status ?? r.signal}:\n${output}` };
  const xml = fs.readFileSync(report, 'utf8');
  fs.rmSync(path.dirname(report), { recursive: true, force: true });
  const cases: PytestCase[] = [];
  for (const m of xml.matchAll(/<testcase ([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const attr = (name: string) => unescape(new RegExp(`\\b${name}="([^"]*)"`).exec(m[1])?.[1] ?? '');
    // `file` is relative to pytest's rootdir: the folder of pytest.ini, runnerTestDir.
    const file = attr('file');
    const body = m[2] ?? '';
    const failure = /<(failure|error)[^>]*?(?:message="([^"]*)")?[^>]*>([\s\S]*?)<\/\1>/.exec(body);
    const skipped = /<skipped[^>]*?message="([^"]*)"/.exec(body);
    cases.push({
      id: `${file}::${attr('name')}`,
      outcome: failure ? 'failed' : skipped ? 'skipped' : 'passed',
      detail: failure ? unescape(`${failure[2] ?? ''}\n${failure[3]}`) : skipped ? unescape(skipped[1]) : '',
    });
  }
  return { ok: true, cases, output };
}
