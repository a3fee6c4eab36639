import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'path';
import type { EvalRecord } from '../../../../src/eval/run/eval-record';
import type { EvalStrings, ToView } from '../../../../src/eval/protocol/messages';
import { ComparisonSession } from '../../../../src/eval/view/comparison-session';
import type { EpisodeOutcome, TranscriptTurn } from '../../../../src/feature-api/rollouts';

const eps = (rewards: Record<string, number[]>): EpisodeOutcome[] =>
  Object.entries(rewards).flatMap(([task, rs]) =>
    rs.map((reward, repeat) => ({ episode: `T${task}#R${repeat}`, taskId: task, repeat, reward, parts: { accuracy: reward } })),
  );

const record: EvalRecord = {
  version: 1,
  id: 'x',
  createdAt: '',
  config: '/ws/math.yaml',
  tasks: 2,
  repeat: 1,
  models: [
    { name: 'base', runDir: 'runs/base', status: 'completed', llmCalls: 2, episodes: eps({ a: [1], b: [1] }) },
    { name: 'step400', runDir: 'runs/step400', status: 'completed', llmCalls: 2, episodes: eps({ a: [0], b: [1] }) },
    { name: 'step200', runDir: 'runs/step200', status: 'completed', llmCalls: 2, episodes: eps({ a: [1], b: [0] }) },
  ],
};
const strings = {} as EvalStrings;
const comparison = (m: ToView | undefined) => {
  if (m?.type !== 'comparison') throw new Error('not a comparison');
  return m.data;
};

describe('what the comparison view answers its page', () => {
  test('the first two models, every model against the baseline, the folder to restore', () => {
    const d = comparison(
      new ComparisonSession(
        record,
        '/ws/.agentrl/eval/x',
        () => undefined,
        () => strings,
      ).answer({ type: 'ready' }),
    );
    assert.deepEqual([d.a, d.b, d.dir, d.models], ['base', 'step400', '/ws/.agentrl/eval/x', ['base', 'step400', 'step200']]);
    assert.deepEqual(
      d.overview.map((o) => [o.model, o.meanDiff]),
      [
        ['step400', -0.5],
        ['step200', -0.5],
      ],
    );
    assert.equal(d.title, 'step400 ↔ base · math.yaml');
  });

  test('a picked pair is compared (and its transcripts read); an unknown or same-model pick is ignored', () => {
    const read: string[] = [];
    const transcript = (runDir: string, ep: string): TranscriptTurn[] => {
      read.push(`${path.basename(runDir)}/${ep}`);
      return [{ kind: 'assistant', text: runDir }];
    };
    const s = new ComparisonSession(record, '/ws/.agentrl/eval/x', transcript, () => strings);
    const d = comparison(s.answer({ type: 'pick', a: 'step200', b: 'step400' }));
    assert.deepEqual([d.a, d.b, d.meanDiff], ['step200', 'step400', 0]);
    assert.deepEqual(
      d.overview.map((o) => [o.model, o.meanDiff]),
      [
        ['base', 0.5],
        ['step400', 0],
      ],
    );
    assert.equal(s.answer({ type: 'pick', a: 'base', b: 'nope' }), undefined);
    assert.equal(s.answer({ type: 'pick', a: 'base', b: 'base' }), undefined);
    assert.deepEqual(s.pair, { a: 'step200', b: 'step400' });
    const pair = s.answer({ type: 'openTask', task: 'a' });
    assert.equal(pair?.type, 'pair');
    assert.deepEqual(read, ['step200/Ta#R0', 'step400/Ta#R0']);
  });

  test('a restored page gets back its pair; a pair no longer in the record falls back to the first two', () => {
    assert.deepEqual(
      new ComparisonSession(
        record,
        'd',
        () => undefined,
        () => strings,
        { a: 'step400', b: 'step200' },
      ).pair,
      { a: 'step400', b: 'step200' },
    );
    assert.deepEqual(
      new ComparisonSession(
        record,
        'd',
        () => undefined,
        () => strings,
        { a: 'gone', b: 'base' },
      ).pair,
      { a: 'base', b: 'step400' },
    );
  });
});
