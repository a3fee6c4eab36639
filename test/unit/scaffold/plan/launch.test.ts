// Merging debug entries into .vscode/launch.json keeps everything the user wrote.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'jsonc-parser';
import { english } from '../../../../src/base/l10n';
import { launchEntries, mergeLaunchJson } from '../../../../src/scaffold/plan/launch';

const entry = launchEntries([{ name: 'Debug a rollout', config: 'config.yaml', cwd: '.', tasks: 2 }], 'sub/a', 'Qwen/Q')[0];

test('entries: agentrl/launch, paths under ${workspaceFolder}, model block', () => {
  assert.deepEqual(entry, {
    type: 'agentrl',
    request: 'launch',
    name: 'Debug a rollout',
    config: '${workspaceFolder}/sub/a/config.yaml',
    cwd: '${workspaceFolder}/sub/a',
    tasks: 2,
    // A local endpoint never needs an API key (the first F5 once stopped on a modal for it).
    model: { baseUrl: 'http://127.0.0.1:8000/v1', name: 'Qwen/Q' },
    // the first F5 stops on the first LLM call, like the sample's entry (it once ran to the end unseen)
    breakOn: ['llm'],
  });
  const remote = launchEntries([{ name: 'n', config: 'c.yaml', cwd: '.' }], 'a', 'm', 'https://api.example.com/v1')[0];
  assert.deepEqual(remote.model, { baseUrl: 'https://api.example.com/v1', name: 'm', apiKeyEnv: 'OPENAI_API_KEY' });
  for (const local of ['http://localhost:8000/v1', 'http://[::1]:8089/v1', 'http://127.0.0.2:9/v1']) {
    assert.equal(launchEntries([{ name: 'n', config: 'c.yaml', cwd: '.' }], 'a', 'm', local)[0].model.apiKeyEnv, undefined, local);
  }
  const parent = launchEntries([{ name: 'n', config: 'c.yaml', cwd: '..', workflow: 'main.py->f' }], 'a', 'm', 'http://h/v1')[0];
  assert.equal(parent.cwd, '${workspaceFolder}');
  assert.equal(parent.workflow, 'main.py->f');
  assert.throws(() => launchEntries([{ name: 'n', config: 'c.yaml', cwd: '..' }], '', 'm'), /leaves the workspace folder/);
});

test('no launch.json yet: a new file with version 0.2.0', () => {
  const { text, names } = mergeLaunchJson(undefined, [entry], english);
  assert.deepEqual(parse(text), { version: '0.2.0', configurations: [entry] });
  assert.deepEqual(names, [entry.name]);
});

test('comments, trailing commas, CRLF and 2-space indentation survive; the entry is appended', () => {
  const before =
    '{\r\n  // top comment\r\n  "version": "0.2.0",\r\n  "configurations": [\r\n    {\r\n      "name": "x", // why\r\n      "type": "node"\r\n    },\r\n  ],\r\n  /* end */\r\n}\r\n';
  const { text } = mergeLaunchJson(before, [entry], english);
  for (const keep of ['// top comment', '"name": "x", // why', '/* end */']) assert.ok(text.includes(keep), keep);
  assert.ok(!/[^\r]\n/.test(text), 'line endings stay CRLF');
  assert.match(text, /\r\n {6}"type": "agentrl"/);
  assert.deepEqual(
    (parse(text) as { configurations: { name: string }[] }).configurations.map((c) => c.name),
    ['x', entry.name],
  );
});

test('a file without "configurations" gets the list; a taken name gets a suffix', () => {
  const added = mergeLaunchJson('{ "version": "0.2.0" }', [entry], english);
  assert.deepEqual((parse(added.text) as { configurations: unknown[] }).configurations, [entry]);
  const again = mergeLaunchJson(added.text, [entry, entry], english);
  assert.deepEqual(again.names, [`${entry.name} (2)`, `${entry.name} (3)`]);
});

test('a broken or odd launch.json is refused with a message saying where', () => {
  assert.throws(
    () => mergeLaunchJson('{\n "configurations": [\n  {"a": 1\n ]\n}', [entry], english, '.vscode/launch.json'),
    /\.vscode\/launch\.json has a syntax error \(line 4: CommaExpected\)/,
  );
  assert.throws(() => mergeLaunchJson('[]', [entry], english), /is not a JSON object/);
  assert.throws(() => mergeLaunchJson('{"configurations": {}}', [entry], english), /"configurations" in launch\.json is not a list/);
});
