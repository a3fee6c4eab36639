// The job dir is the root, against the real relay process (any runtime: test/harness/relay.ts): a
// symlinked `log/`, `buffer/` or `*_server_url.txt` leading outside it is refused with a report,
// and nothing from outside is streamed; a symlink that stays inside is followed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { helloFrom } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { TAGS, appendSteps } from '../appender';
import { tmpDir } from '../helpers';

const stepLine = (step: number) => `INFO 11-24 10:42:55 [monitor.py:210] Step ${step}: {'outside/secret': ${step}}\n`;
const experience = (i: number) => `${JSON.stringify({ eid: { task: `outside-${i}`, run: 0 }, reward: 1 })}\n`;

for (const subject of relaysUnderTest())
  describe(`adversarial: the job dir is the root [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    after(async () => {
      for (const r of relays) await r.stop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    test(
      'symlinked log/, buffer/ and *_server_url.txt pointing outside are refused and reported; one pointing inside is followed',
      { timeout: 60_000 },
      async () => {
        const top = tmpDir();
        dirs.push(top);
        const outside = path.join(top, 'elsewhere');
        fs.mkdirSync(path.join(outside, 'log'), { recursive: true });
        fs.mkdirSync(path.join(outside, 'buffer'), { recursive: true });
        fs.writeFileSync(path.join(outside, 'log', 'trainer.log'), [0, 1, 2].map(stepLine).join(''));
        fs.writeFileSync(path.join(outside, 'buffer', 'queue.jsonl'), [0, 1].map(experience).join(''));
        fs.writeFileSync(path.join(outside, 'url.txt'), 'http://127.0.0.1:9/\n');

        const job = path.join(top, 'run1');
        fs.mkdirSync(path.join(job, 'monitor', 'tensorboard', 'explorer'), { recursive: true });
        appendSteps(path.join(job, 'monitor', 'tensorboard', 'explorer', 'events.out.tfevents.1.node'), 0, 5);
        fs.symlinkSync(path.join(outside, 'log'), path.join(job, 'log'));
        fs.symlinkSync(path.join(outside, 'buffer'), path.join(job, 'buffer'));
        fs.symlinkSync(path.join(outside, 'url.txt'), path.join(job, 'explorer_server_url.txt'));
        // A stage dir whose log/ is a link that stays inside the job dir: followed.
        fs.mkdirSync(path.join(job, 'stage2', 'monitor'), { recursive: true });
        fs.mkdirSync(path.join(job, 'stage2', 'real-log'));
        fs.writeFileSync(path.join(job, 'stage2', 'real-log', 'trainer.log'), stepLine(7).replace('outside/secret', 'inside/ok'));
        fs.symlinkSync(path.join(job, 'stage2', 'real-log'), path.join(job, 'stage2', 'log'));

        const relay = await launchRelay(subject.command(), ['--job-dir', job, '--poll-interval', '100']);
        relays.push(relay);
        const client = await helloFrom(relay.url);
        client.subscribe();
        await client.waitFor(
          'the event file and the inside log',
          () => client.points().filter((p) => p.tag === TAGS[0]).length === 5 && client.points().some((p) => p.tag === 'inside/ok'),
        );
        await sleep(1000); // a poll or two: nothing from outside may come late either
        const sources = (client.of('hello')[0].sources as { id: string; path: string }[]).concat(
          ...client.of('sources').map((m) => m.sources as { id: string; path: string }[]),
        );
        assert.deepEqual(sources.map((s) => s.path).sort(), ['monitor/tensorboard/explorer/events.out.tfevents.1.node', 'stage2/log/trainer.log']);
        assert.ok(!client.points().some((p) => p.tag === 'outside/secret'), 'no line from outside the job dir');
        assert.equal(client.rows().length, 0, 'no experience from outside the job dir');
        for (const name of ['log', 'buffer', 'explorer_server_url.txt'])
          assert.match(relay.stderr(), new RegExp(`refus\\w* ${name.replace('.', '\\.')}`), name);
        client.close();
      },
    );
  });
