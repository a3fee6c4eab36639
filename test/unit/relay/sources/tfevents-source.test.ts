// What a TensorBoard event file's readers hold: a relay keeps one per client and file (25 clients
// on a 2 000-file logdir: 50 000 readers), nearly all waiting at the end of their file, so a
// reader at its end holds no batch and no record reader; one that reads again gets the new points.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '../../../../src/base/log';
import { OpenFiles } from '../../../../src/relay/sources/open-files';
import type { Batch } from '../../../../src/relay/sources/source';
import { TfEventsSource } from '../../../../src/relay/sources/tfevents-source';
import { appendSteps } from '../../../component/relay/appender';

const pointsOf = (b: Batch | undefined): number => (b && b.type === 'points' ? b.series.reduce((n, s) => n + s.step.length, 0) : 0);

test('500 readers at the end of their file hold nothing between reads; the file grows, each reads on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tfevents-held-'));
  try {
    const file = path.join(dir, 'events.out.tfevents.1.host');
    appendSteps(file, 0, 20);
    const info = { id: 'tfevents:events.out.tfevents.1.host', kind: 'tfevents' as const, run: '.', role: 'host', path: 'events.out.tfevents.1.host' };
    const source = new TfEventsSource(info, file, new OpenFiles(undefined), silentLogger);
    const readers = Array.from(
      { length: 500 },
      () => source.open(undefined) as ReturnType<TfEventsSource['open']> & { held(): { batchBytes: number; recordReader: boolean } },
    );
    let points = 0;
    for (const r of readers) for (let b = await r.next(1 << 20); b; b = await r.next(1 << 20)) points += pointsOf(b);
    assert.equal(points, 500 * 20 * 2, 'every reader read every point');
    assert.deepEqual(
      readers.reduce((n, r) => ({ batchBytes: n.batchBytes + r.held().batchBytes, recordReaders: n.recordReaders + (r.held().recordReader ? 1 : 0) }), {
        batchBytes: 0,
        recordReaders: 0,
      }),
      { batchBytes: 0, recordReaders: 0 },
      'readers at their end hold no batch and no record reader',
    );
    appendSteps(file, 20, 25);
    assert.equal(pointsOf(await readers[0].next(1 << 20)), 5 * 2, 'a reader reads on once the file grew');
    for (const r of readers) r.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
