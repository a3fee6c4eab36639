// Over-long lines under a connected client, against the real relay process (any runtime:
// test/harness/relay.ts): a log line over 64 MiB is skipped with a report, and the Step lines
// after it — already there, or written later — still stream.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { helloFrom } from '../../../harness/relay-wire';
import { tmpDir } from '../helpers';

const stepLine = (step: number) => `INFO 11-24 10:42:55 [monitor.py:210] Step ${step}: {'rollout/reward/mean': ${step / 100}}\n`;
const stepLines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => stepLine(from + i)).join('');
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

for (const subject of relaysUnderTest())
  describe(`adversarial: over-long lines [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    after(async () => {
      for (const r of relays) await r.stop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    test('a log line over 64 MiB is skipped with a report; later steps still stream', { timeout: 120_000 }, async () => {
      const job = path.join(tmpDir(), 'run1');
      dirs.push(path.dirname(job));
      fs.mkdirSync(path.join(job, 'log'), { recursive: true });
      const log = path.join(job, 'log', 'trainer.log');
      fs.writeFileSync(log, stepLines(0, 10));
      // 65 MiB on one line, written in pieces (a runaway print of a tensor): no newline until its end.
      const fd = fs.openSync(log, 'a');
      const piece = Buffer.alloc(1024 * 1024, 0x78);
      for (let i = 0; i < 65; i++) fs.writeSync(fd, piece);
      fs.writeSync(fd, `\n${stepLines(10, 20)}`);
      fs.closeSync(fd);
      const relay = await launchRelay(subject.command(), ['--job-dir', job, '--poll-interval', '100']);
      relays.push(relay);
      const client = await helloFrom(relay.url);
      client.subscribe();
      const steps = () => client.points().map((p) => p.step);
      await client.waitFor('steps 0..19', () => steps().length >= 20, 60_000);
      fs.appendFileSync(log, stepLines(20, 30));
      await client.waitFor('steps 20..29, appended later', () => steps().length >= 30, 30_000);
      assert.deepEqual(steps(), range(0, 30));
      assert.match(relay.stderr(), /skipped 1 line/i, 'the skipped line is reported');
      client.close();
    });
  });
