import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { english } from '../../../../src/base/l10n';
import { checkDataFile, checkModel, checkName } from '../../../../src/scaffold/plan/validate';

test('valid project names pass', () => {
  for (const ok of ['math_agent', 'Agent2', 'a', 'match', 'case', 'react_agent_v2']) assert.equal(checkName(ok, english), undefined, ok);
});

test('invalid and reserved names are refused with the reason', () => {
  const cases: [string, RegExp][] = [
    ['', /Enter a name/],
    ['../x', /not a folder name/],
    ['a/b', /not a folder name/],
    ['a\\b', /not a folder name/],
    ['my-agent', /not a valid Python identifier/],
    ['1st', /not a valid Python identifier/],
    ['数学', /not a valid Python identifier/],
    ['_private', /starts with an underscore/],
    ['class', /Python keyword/],
    ['None', /Python keyword/],
    ['json', /standard library/],
    ['test', /standard library/],
    ['agentscope', /shadow the package agentscope/],
    ['Trinity', /shadow the package Trinity/],
    ['workflow', /name of a file inside the project/],
    ['off', /boolean or null in YAML/],
    ['NUL', /reserved file name on Windows/],
    ['x'.repeat(65), /longer than 64/],
  ];
  for (const [name, message] of cases) assert.match(checkName(name, english) ?? '', message, name);
});

test('models: ids and paths pass, YAML/OmegaConf-breaking characters are refused', () => {
  for (const ok of ['Qwen/Qwen2.5-0.5B-Instruct', '/models/qwen-7b', '~/m/q', 'org/model@v1+x']) assert.equal(checkModel(ok, english), undefined, ok);
  for (const bad of ['', 'my model', 'a,b', 'x}', "q'", 'C:\\m', 'a:b', '#x']) assert.ok(checkModel(bad, english), bad);
});

test("data files: JSONL rows that are objects with the template's keys", () => {
  const keys = ['question', 'answer'];
  assert.equal(checkDataFile('t.jsonl', '{"question": "q", "answer": "a", "extra": 1}\n\n{"question": "q2", "answer": "a2"}', keys, english), undefined);
  assert.match(checkDataFile('t.json', '[]', keys, english)!, /t\.json is not a \.jsonl file/);
  assert.match(checkDataFile('t.jsonl', '{"question": "q"}', keys, english)!, /t\.jsonl, line 1: missing answer \(this template reads question, answer\)/);
  assert.match(checkDataFile('t.jsonl', '{"question": "q", "answer": 1}\n[1, 2]', keys, english)!, /line 2: a task must be a JSON object/);
  assert.match(checkDataFile('t.jsonl', '\n{bad', keys, english)!, /line 2: not valid JSON/);
  assert.match(checkDataFile('t.jsonl', '  \n', keys, english)!, /has no tasks/);
});

test('the English localizer fills {n} placeholders and leaves missing ones', () => {
  assert.equal(english.t('{0} and {1} and {2}', 'a', 2), 'a and 2 and {2}');
});
