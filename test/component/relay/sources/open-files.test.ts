// Open files per relay, against the real relay process (any runtime: test/harness/relay.ts): with
// the shared decode off (`--decode-cache-mb 0`, every client reads for itself) and a run of 2000
// event files, ten clients catching up at once must not make the relay hold a descriptor per
// file per client (20 000: EMFILE under a common limit of 1024 or 20 000); every client still
// gets every point.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom, openFiles } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { TAGS, appendSteps } from '../appender';
import { tmpDir } from '../helpers';

const FILES = 2000;
const STEPS = 5;
/** Descriptors of the run's files the relay may hold at once, whatever the number of clients. */
const BOUND = 300;

for (const subject of relaysUnderTest())
  describe(`adversarial: open files [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    after(async () => {
      for (const r of relays) await r.stop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    test(`ten clients of a run of ${FILES} event files with the shared decode off: the relay's open files stay bounded`, { timeout: 300_000 }, async () => {
      const dir = tmpDir();
      dirs.push(dir);
      for (let i = 0; i < FILES; i++) {
        const run = path.join(dir, `run${Math.floor(i / 100)}`);
        fs.mkdirSync(run, { recursive: true });
        appendSteps(path.join(run, `events.out.tfevents.${i}.node`), 0, STEPS);
      }
      const relay = await launchRelay(subject.command(), ['--logdir', dir, '--decode-cache-mb', '0', '--max-clients', '16'], { timeoutMs: 120_000 });
      relays.push(relay);
      const total = FILES * STEPS * TAGS.length;
      const clients: WireClient[] = [];
      for (let i = 0; i < 10; i++) clients.push(await helloFrom(relay.url));
      for (const c of clients) c.subscribe();
      let peak = 0;
      const done = () => clients.every((c) => c.points().length >= total || c.closed);
      while (!done()) {
        peak = Math.max(peak, openFiles(relay.proc.pid!, dir).length);
        assert.ok(peak <= BOUND, `the relay holds ${peak} descriptors of the run's files`);
        await sleep(50);
      }
      for (const [i, c] of clients.entries()) {
        assert.equal(c.closed, undefined, `client ${i} was cut off`);
        assert.equal(c.points().length, total, `client ${i}`);
        assert.equal(c.of('error').length, 0, `client ${i}: ${JSON.stringify(c.of('error')[0])}`);
        c.close();
      }
      assert.doesNotMatch(relay.stderr(), /EMFILE|too many open files/i);
    });
  });
