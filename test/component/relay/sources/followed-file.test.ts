// Files that change identity under a connected client, against the real relay process (any
// runtime: test/harness/relay.ts): a log rotated by rename (the rest of the old file first, then
// the new one), a log truncated in place and written again (copytruncate), a job dir deleted and
// created again under the same name. Every step arrives, none twice.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { TAGS, appendSteps } from '../appender';
import { tmpDir } from '../helpers';

const POLL_MS = 100;

/** Trinity's monitor line for `step` (one metric). */
const stepLine = (step: number) => `INFO 11-24 10:42:55 [monitor.py:210] Step ${step}: {'rollout/reward/mean': ${step / 100}}\n`;
const stepLines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => stepLine(from + i)).join('');

/** The steps of the log source's points, in arrival order. */
const logSteps = (c: WireClient) =>
  c
    .points()
    .filter((p) => p.source.startsWith('log:'))
    .map((p) => p.step);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

for (const subject of relaysUnderTest())
  describe(`adversarial: files that change identity [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    const clients: WireClient[] = [];
    after(async () => {
      for (const c of clients) c.close();
      for (const r of relays) await r.stop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    async function jobWithLog(steps: number): Promise<{ job: string; log: string; relay: RelayProc; client: WireClient }> {
      const job = path.join(tmpDir(), 'run1');
      dirs.push(path.dirname(job));
      fs.mkdirSync(path.join(job, 'log'), { recursive: true });
      const log = path.join(job, 'log', 'trainer.log');
      fs.writeFileSync(log, stepLines(0, steps));
      const relay = await launchRelay(subject.command(), ['--job-dir', job, '--poll-interval', String(POLL_MS)]);
      relays.push(relay);
      const client = await helloFrom(relay.url);
      clients.push(client);
      client.subscribe();
      await client.waitFor(`steps 0..${steps - 1}`, () => logSteps(client).length === steps);
      return { job, log, relay, client };
    }

    test('a log renamed and created again (rotation): the rest of the old file, then the new one, each step once', { timeout: 60_000 }, async () => {
      const { log, client } = await jobWithLog(40);
      // The writer appends, the rotation renames, the writer goes on in a new file: at once, so
      // the relay finds the old file's rest only under its new name.
      fs.appendFileSync(log, stepLines(40, 50));
      fs.renameSync(log, `${log}.1`);
      fs.writeFileSync(log, stepLines(50, 80));
      await client.waitFor('steps 0..79', () => logSteps(client).length >= 80);
      assert.deepEqual(logSteps(client), range(0, 80));
    });

    test('a log truncated in place and written again (copytruncate): the new content from its start, nothing lost', { timeout: 60_000 }, async () => {
      const { log, client } = await jobWithLog(40);
      fs.copyFileSync(log, `${log}.1`);
      fs.truncateSync(log, 0);
      // More than the old offset is written before the relay looks again: the size alone cannot tell.
      fs.appendFileSync(log, stepLines(40, 80));
      await client.waitFor('steps 0..79', () => logSteps(client).length >= 80);
      assert.deepEqual(logSteps(client), range(0, 80));
    });

    test('a job dir deleted and created again under the same name: the new files stream from their start', { timeout: 120_000 }, async () => {
      const job = path.join(tmpDir(), 'run1');
      dirs.push(path.dirname(job));
      const events = (j: string) => path.join(j, 'monitor', 'tensorboard', 'explorer', 'events.out.tfevents.1.node');
      fs.mkdirSync(path.dirname(events(job)), { recursive: true });
      fs.mkdirSync(path.join(job, 'log'), { recursive: true });
      appendSteps(events(job), 0, 20);
      fs.writeFileSync(path.join(job, 'log', 'trainer.log'), stepLines(0, 20));
      const relay = await launchRelay(subject.command(), ['--job-dir', job, '--poll-interval', String(POLL_MS)]);
      relays.push(relay);
      const client = await helloFrom(relay.url);
      clients.push(client);
      client.subscribe();
      const eventSteps = () =>
        client
          .points()
          .filter((p) => p.source.startsWith('tfevents:') && p.tag === TAGS[0])
          .map((p) => p.step);
      await client.waitFor('the first run', () => eventSteps().length === 20 && logSteps(client).length === 20);
      // The run is started again from scratch under the same name, after a few polls without it:
      // the relay finishes the deleted files and closes them, so the new ones may get their inode
      // numbers (the same identity, the same size: only their content tells them apart).
      fs.rmSync(job, { recursive: true, force: true });
      await sleep(POLL_MS * 5);
      fs.mkdirSync(path.dirname(events(job)), { recursive: true });
      fs.mkdirSync(path.join(job, 'log'), { recursive: true });
      appendSteps(events(job), 100, 120);
      fs.writeFileSync(path.join(job, 'log', 'trainer.log'), stepLines(100, 120));
      await client.waitFor('the second run', () => eventSteps().length >= 40 && logSteps(client).length >= 40, 30_000);
      assert.deepEqual(eventSteps(), [...range(0, 20), ...range(100, 120)]);
      assert.deepEqual(logSteps(client), [...range(0, 20), ...range(100, 120)]);
      // A client that connects now gets the new run once, from its cursor-less start.
      const late = await helloFrom(relay.url);
      clients.push(late);
      late.subscribe();
      await late.waitFor('the second run', () => logSteps(late).length >= 20);
      assert.deepEqual(logSteps(late), range(100, 120));
    });
  });
