// Damaged event files under a connected client, against the real relay process (any runtime:
// test/harness/relay.ts): a record torn by a writer that died, then appended to by the next one,
// costs that record alone; a header with a valid CRC claiming 200 MB is skipped with a report,
// and the records after it still stream.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { silentLogger } from '../../../../src/base/log';
import { OpenFiles } from '../../../../src/relay/sources/open-files';
import type { Batch } from '../../../../src/relay/sources/source';
import { TfEventsSource } from '../../../../src/relay/sources/tfevents-source';
import { frameRecord, maskCrc, crc32c } from '../../../../src/tfrecord/scan';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom } from '../../../harness/relay-wire';
import { TAGS, appendSteps } from '../appender';
import { tmpDir } from '../helpers';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

for (const subject of relaysUnderTest())
  describe(`adversarial: damaged event records [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    const clients: WireClient[] = [];
    after(async () => {
      for (const c of clients) c.close();
      for (const r of relays) await r.stop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    async function watch(file: string): Promise<{ relay: RelayProc; client: WireClient; steps: () => number[] }> {
      const relay = await launchRelay(subject.command(), ['--logdir', path.dirname(file), '--poll-interval', '100']);
      relays.push(relay);
      const client = await helloFrom(relay.url);
      clients.push(client);
      client.subscribe();
      return {
        relay,
        client,
        steps: () =>
          client
            .points()
            .filter((p) => p.tag === TAGS[0])
            .map((p) => p.step),
      };
    }

    test('a record torn mid-way, then appended to by a new writer: only the torn record is lost', { timeout: 60_000 }, async () => {
      const dir = tmpDir();
      dirs.push(dir);
      const file = path.join(dir, 'events.out.tfevents.1.node');
      appendSteps(file, 0, 10);
      const whole = fs.readFileSync(file).length;
      appendSteps(file, 10, 11);
      // The writer dies half-way through step 10's second record (TAGS[1]).
      const full = fs.readFileSync(file);
      const second = full.readUInt32LE(whole) + 16 + whole;
      fs.truncateSync(file, second + 20);
      const { client, steps } = await watch(file);
      await client.waitFor('steps 0..10', () => steps().length === 11);
      appendSteps(file, 11, 20);
      await client.waitFor('steps 11..19', () => steps().length >= 20);
      assert.deepEqual(steps(), range(0, 20));
      const other = client
        .points()
        .filter((p) => p.tag === TAGS[1])
        .map((p) => p.step);
      assert.deepEqual(
        other,
        range(0, 20).filter((s) => s !== 10),
        'only the torn record is missing',
      );
    });

    test('a header with a valid CRC claiming 200 MB is skipped with a report; the records after it stream', { timeout: 60_000 }, async () => {
      const dir = tmpDir();
      dirs.push(dir);
      const file = path.join(dir, 'events.out.tfevents.1.node');
      appendSteps(file, 0, 10);
      const head = Buffer.alloc(12);
      head.writeUInt32LE(200 * 1024 * 1024, 0);
      head.writeUInt32LE(0, 4);
      head.writeUInt32LE(maskCrc(crc32c(head.subarray(0, 8))), 8);
      fs.appendFileSync(file, Buffer.concat([head, frameRecord(Buffer.from('not an event at all'))]));
      appendSteps(file, 10, 20);
      const { relay, client, steps } = await watch(file);
      await client.waitFor('steps 0..19', () => steps().length >= 20);
      assert.deepEqual(steps(), range(0, 20));
      appendSteps(file, 20, 30);
      await client.waitFor('steps 20..29, appended later', () => steps().length >= 30);
      assert.deepEqual(steps(), range(0, 30));
      assert.match(relay.stderr(), /limit|oversized|too large/i, 'the skipped header is reported');
    });
  });

// What a TensorBoard event file's readers hold and make: a relay keeps one per client and file
// (25 clients on a 2 000-file logdir: 50 000 readers), nearly all waiting at the end of their
// file, and wakes every one each poll interval. A reader at its end holds no record reader, and a
// wake that finds nothing new opens none (its read buffer and decoder); one that reads again
// after the file grew gets the new points.
const pointsOf = (b: Batch | undefined): number => (b && b.type === 'points' ? b.series.reduce((n, s) => n + s.step.length, 0) : 0);

test('500 readers at the end of their file hold nothing between reads, and ten wakes with nothing new open no record reader; the file grows, each reads on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tfevents-held-'));
  try {
    const file = path.join(dir, 'events.out.tfevents.1.host');
    appendSteps(file, 0, 20);
    const info = { id: 'tfevents:events.out.tfevents.1.host', kind: 'tfevents' as const, run: '.', role: 'host', path: 'events.out.tfevents.1.host' };
    const source = new TfEventsSource(info, file, new OpenFiles(undefined), silentLogger);
    const readers = Array.from({ length: 500 }, () => source.open(undefined) as ReturnType<TfEventsSource['open']> & { held(): { recordReader: boolean } });
    let points = 0;
    for (const r of readers) for (let b = await r.next(1 << 20); b; b = await r.next(1 << 20)) points += pointsOf(b);
    assert.equal(points, 500 * 20 * 2, 'every reader read every point');
    assert.equal(source.recordReaders, 500, 'one record reader per reader for the first read');
    assert.equal(readers.filter((r) => r.held().recordReader).length, 0, 'readers at their end hold no record reader');
    for (let wake = 0; wake < 10; wake++) for (const r of readers) assert.equal(await r.next(1 << 20), undefined);
    assert.equal(source.recordReaders, 500, 'wakes that find nothing new open no record reader');
    appendSteps(file, 20, 25);
    for (const r of readers) assert.equal(pointsOf(await r.next(1 << 20)), 5 * 2, 'a reader reads on once the file grew');
    assert.equal(source.recordReaders, 1000);
    assert.equal(readers.filter((r) => r.held().recordReader).length, 0);
    for (const r of readers) r.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
