// One experience of a training run read from its job directory (src/relay/experience-reader.ts:
// an in-process relay on loopback) reads that row and nothing else: not the event files' points,
// not the buffer's listing — what made Debug This Rollout slower than a launch on a job dir with
// TensorBoard logs; and a relay URL where nothing listens fails at once. The buffer is written by
// Trinity-RFT 0.5.2's own SQL storage (test/fixtures/debug/trinity_replay_rows.py), the event
// file by our TFRecord framing.
import { before, after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { createExperienceReader } from '../../../src/relay/experience-reader';
import { noReplayRows, writeReplayRows } from '../../harness/trinity-replay-rows';
import { appendSteps } from './appender';
import { tmpDir } from './helpers';

describe('reading one experience of a job directory', { skip: noReplayRows }, () => {
  let ws: string;
  let job: string;
  let events: string;
  before(() => {
    ws = tmpDir('experience-reader-');
    writeReplayRows(ws);
    job = path.join(ws, 'job-math');
    const tb = path.join(job, 'monitor', 'tensorboard', 'explorer');
    fs.mkdirSync(tb, { recursive: true });
    events = path.join(tb, 'events.out.tfevents.1700000000.node');
    appendSteps(events, 0, 2000);
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));

  test('by id: the row, and no event file opened; the listing of a step range (a re-score) still streams', async (t) => {
    const opened: string[] = [];
    const openSync = fs.openSync.bind(fs);
    t.mock.method(fs, 'openSync', (...args: Parameters<typeof fs.openSync>) => {
      opened.push(String(args[0]));
      return openSync(...args);
    });
    const reader = createExperienceReader();
    const x = await reader.read(job, '1');
    assert.equal(x.id, '1');
    assert.ok(Array.isArray(x.detail.messages), 'the row keeps its messages');
    assert.deepEqual(
      opened.filter((f) => f === events),
      [],
      'reading one row opens no event file',
    );
    // The control: a client that streams (the listing of model versions) does open it.
    await reader.rows(job, [1, 1]);
    assert.ok(opened.includes(events), 'the spy sees the relay open the event file');
  });
});

test('a relay URL where nothing listens: the read fails at once, saying the relay cannot be reached and why (not after the 15 s wait)', async () => {
  // A port that was free a moment ago: nothing listens there now.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const url = `ws://127.0.0.1:${port}/`;
  await assert.rejects(createExperienceReader().read(url, '1'), (e: Error) => {
    assert.equal(e.message, `cannot reach the relay at ${url} (connect ECONNREFUSED 127.0.0.1:${port}; 3 attempts): is it running, and is that its address?`);
    return true;
  });
});
