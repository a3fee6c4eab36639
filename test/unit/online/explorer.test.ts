// The online feature's pure pieces: the outbox on disk (nothing lost across reloads or a damaged
// file), /metrics parsing and URL files. The webview message guard is tested in
// test/unit/online/protocol/playground-protocol.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { FeedbackOutbox } from '../../../src/online/explorer/outbox';
import { parseMetrics, servingVersion } from '../../../src/online/explorer/serve-metrics';
import { findServerUrlFiles, readServerUrlFile } from '../../../src/online/explorer/discover';
import { toOpenAiMessages } from '../../../src/online/playground/playground-controller';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-online-pure-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('outbox: a send cut short by a reload comes back as unsent; a damaged file is kept aside', async () => {
  const file = path.join(dir, 'a', 'feedback.json');
  let release!: () => void;
  const hang = new FeedbackOutbox(file, () => new Promise<void>((r) => (release = r)));
  const giving = hang.give({ explorerUrl: 'http://x', msgIds: ['m1'], reward: 1, runId: 0, source: 'thumb' });
  await new Promise((r) => setImmediate(r));
  // the window reloads while the send is in flight: the entry is on disk as pending
  const reloaded = new FeedbackOutbox(file, async () => {});
  assert.deepEqual(
    reloaded.unsent().map((e) => [e.msgIds, e.state]),
    [[['m1'], 'failed']],
  );
  release();
  await giving;
  fs.writeFileSync(file, '{"entries": [ trunc');
  const fresh = new FeedbackOutbox(file, async () => {});
  assert.equal(fresh.list().length, 0);
  assert.ok(
    fs.readdirSync(path.dirname(file)).some((n) => n.startsWith('feedback.json.damaged-')),
    'the damaged file is kept',
  );
});

test('outbox: rewards must be numbers and msg_ids non-empty', async () => {
  const o = new FeedbackOutbox(path.join(dir, 'b.json'), async () => {});
  await assert.rejects(o.give({ explorerUrl: 'u', msgIds: [], reward: 1, runId: 0, source: 'score' }), /no msg_ids/);
  await assert.rejects(o.give({ explorerUrl: 'u', msgIds: ['a'], reward: Number.NaN, runId: 0, source: 'score' }), /number/);
});

test('/metrics: engines, totals, step; the serving version', () => {
  const m = parseMetrics({
    'rollout/model_1/total_request_count': 3,
    'rollout/model_1/model_version': 2,
    'rollout/model_0/total_request_count': 5,
    'rollout/model_0/model_version': 1,
    'rollout/total_experience_count': 8,
    'rollout/ready_experience_count': 4,
    explore_step_num: 6,
  });
  assert.deepEqual(m, {
    totalExperiences: 8,
    readyExperiences: 4,
    exploreStep: 6,
    engines: [
      { index: 0, requests: 5, modelVersion: 1 },
      { index: 1, requests: 3, modelVersion: 2 },
    ],
  });
  assert.equal(servingVersion(m), 2);
  assert.equal(parseMetrics({ status: 'ok' }), undefined);
});

test('explorer_server_url.txt in a job dir; the chosen alternative continues the chat', () => {
  const job = path.join(dir, 'job');
  fs.mkdirSync(job);
  fs.writeFileSync(path.join(job, 'explorer_server_url.txt'), 'http://10.0.0.3:8010\n');
  const [f] = findServerUrlFiles(job);
  assert.equal(readServerUrlFile(f), 'http://10.0.0.3:8010');
  const msgs = toOpenAiMessages([
    { kind: 'user', content: 'q' },
    {
      kind: 'assistant',
      taskId: 't',
      chosen: 1,
      alternatives: [
        { msgId: 'a', content: 'A', latencyMs: 1 },
        { msgId: 'b', content: 'B', latencyMs: 1 },
      ],
    },
  ]);
  assert.deepEqual(msgs, [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: 'B' },
  ]);
});
