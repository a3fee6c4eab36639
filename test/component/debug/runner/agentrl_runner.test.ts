// The debugger's Python runner (src/debug/runner/agentrl_runner) by its own pytest suite, the
// test_*.py files beside this one (agentrl_runner/ mirrors the package): run once with the
// machine's python3, standard library only as the runner ships, each pytest test reported
// here as a test of its own.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { pytestMissing, runPytest } from '../../../harness/runner-python';

const missing = pytestMissing();

describe('agentrl_runner (pytest)', { skip: missing }, () => {
  if (missing) return;
  const run = runPytest();
  test('pytest ran the suite', () => {
    assert.ok(run.ok, run.ok ? '' : run.why);
    assert.ok(run.cases.length >= 19, `only ${run.cases.length} pytest test(s) ran:\n${run.output}`);
  });
  for (const c of run.ok ? run.cases : []) {
    test(c.id, { skip: c.outcome === 'skipped' && (c.detail || 'skipped by pytest') }, () => {
      assert.notEqual(c.outcome, 'failed', c.detail);
    });
  }
});
