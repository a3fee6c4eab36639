import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chooseTaskset, tasksetsOf } from '../../../../src/debug/experience/taskset-choice';

const cfg = (taskset: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  buffer: { explorer_input: { taskset, default_workflow_type: 'math_workflow', ...extra } },
});

test("the workspace's taskset when it reads rows as the job's copy did, and says so", () => {
  const ws = cfg({ path: 'math.jsonl', split: 'train', format: { prompt_key: 'question', system_prompt: 'new' } });
  const job = cfg({ path: 'math.jsonl', split: 'train', format: { prompt_key: 'question', system_prompt: 'old' } });
  const c = chooseTaskset(ws, job, 0, 'math.yaml');
  assert.ok(!('error' in c));
  assert.equal(c.from, 'workspace');
  // The prompt template is the workspace's (an edited template is what a replay checks).
  assert.equal((tasksetsOf(c.doc)[0].format as Record<string, unknown>).system_prompt, 'new');
  const none = chooseTaskset(ws, undefined, null, 'math.yaml');
  assert.ok(!('error' in none) && none.from === 'workspace' && /no config\.json/.test(none.why));
});

test("the job dir's copy when the workspace changed how the task is read (path, split, prompt_key…), naming the change", () => {
  const ws = cfg({ path: 'math-v2.jsonl', split: 'train', format: { prompt_key: 'q' } });
  const job = cfg({ path: 'math.jsonl', split: 'train', format: { prompt_key: 'question' } });
  const c = chooseTaskset(ws, job, 0, 'math.yaml');
  assert.ok(!('error' in c));
  assert.equal(c.from, 'job');
  assert.match(c.why, /changed the taskset's path, format since the run/);
  const ts = tasksetsOf(c.doc)[0];
  assert.equal(ts.path, 'math.jsonl');
  assert.equal((ts.format as Record<string, unknown>).prompt_key, 'question');
});

test('taskset_id picks among tasksets; one that is nowhere is an error', () => {
  const ws = { buffer: { explorer_input: { tasksets: [{ path: 'a.jsonl' }, { path: 'b.jsonl' }] } } };
  const c = chooseTaskset(ws, undefined, 1, 'x.yaml');
  assert.ok(!('error' in c) && tasksetsOf(c.doc)[0].path === 'b.jsonl');
  const e = chooseTaskset(ws, undefined, 4, 'x.yaml');
  assert.ok('error' in e && /taskset #4 is not in x\.yaml/.test(e.error));
});
