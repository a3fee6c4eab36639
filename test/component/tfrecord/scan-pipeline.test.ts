// The scan worker as the single-file CLI runs it: bundled and minified by esbuild (a child
// process), run by node, and dist/agentrl.js copied alone serving a relay. The worker itself,
// in process, is test/unit/tfrecord/scan-pipeline.test.ts.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { PIPELINE_MIN_BYTES } from '../../../src/tfrecord/file-reader';
import { frameRecord } from '../../../src/tfrecord/scan';
import { repoRoot } from '../../harness/paths';
import { mixedRecords, referencePoints } from '../../unit/tfrecord-streams';
import { bundle, collect, startRelay, tmpDir } from '../relay/helpers';
/** What esbuild.mjs does for the CLI: scan-worker-code.ts becomes the worker bundled on its own. */
const embedWorker = (minify: boolean): esbuild.Plugin => ({
  name: 'test-scan-worker',
  setup(build) {
    build.onLoad({ filter: /scan-worker-code\.ts$/ }, async () => {
      const worker = await esbuild.build({
        entryPoints: [path.join(repoRoot, 'src/tfrecord/scan-worker.ts')],
        bundle: true,
        write: false,
        minify,
        platform: 'node',
        format: 'cjs',
        logLevel: 'silent',
      });
      return { contents: `export const SCAN_WORKER_CODE = ${JSON.stringify(worker.outputFiles[0].text)};`, loader: 'ts' };
    });
  },
});

test('the worker runs from its bundled text, minified, as the single-file CLI embeds it', async () => {
  // Bundle and minify a tiny entry that reads a file ahead, as the CLI's production bundle does.
  const dir = tmpDir();
  const records = mixedRecords(3, 3000);
  const file = path.join(dir, 'events.out.tfevents.1.min');
  fs.writeFileSync(file, Buffer.concat(records.map((r) => frameRecord(r))));
  const entry = path.join(dir, 'entry.ts');
  fs.writeFileSync(
    entry,
    `import { TfRecordFileReader } from ${JSON.stringify(path.join(repoRoot, 'src/tfrecord/file-reader'))};\n` +
      `let n = 0, piped = false, failed = false;\n` +
      `const r = new TfRecordFileReader(${JSON.stringify(file)}, 0, { pipelineMinBytes: 0, onPipeline: (e) => { failed ||= e === 'worker-failed'; } });\n` +
      `while (r.read({ add: () => n++ }, 4096).consumed > 0) piped ||= r.pipelined;\n` +
      `console.log(JSON.stringify({ n, piped, failed }));\n`,
  );
  const out = path.join(dir, 'entry.js');
  await esbuild.build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
    plugins: [embedWorker(true)],
  });
  assert.ok(!fs.readdirSync(dir).some((f) => f.includes('worker')), 'the worker is in entry.js, not a file of its own');
  const r = spawnSync(process.execPath, [out], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { n: referencePoints(records).length, piped: true, failed: false });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('dist/agentrl.js copied alone (no node_modules, no out/) reads a large backlog ahead with its embedded worker', async () => {
  const dir = tmpDir();
  const cliFile = path.join(dir, 'bin', 'agentrl.js');
  fs.mkdirSync(path.dirname(cliFile));
  fs.copyFileSync(bundle, cliFile);
  const logdir = path.join(dir, 'logs');
  fs.mkdirSync(logdir);
  // Past the reader's PIPELINE_MIN_BYTES backlog: the same 1 MB block of events ten times.
  const records = mixedRecords(11, 20000);
  const block = Buffer.concat(records.map((r) => frameRecord(r)));
  const copies = Math.ceil((PIPELINE_MIN_BYTES + 1) / block.length) + 1;
  fs.writeFileSync(path.join(logdir, 'events.out.tfevents.1.big'), Buffer.concat(new Array<Buffer>(copies).fill(block)));
  // (decoded as one stream: a tag's plugin, once seen, holds for the later copies too)
  const expected = referencePoints(new Array<Buffer[]>(copies).fill(records).flat()).length;
  const relay = await startRelay(['--logdir', logdir, '--verbose'], { cli: cliFile });
  const c = collect({ url: relay.url });
  try {
    await c.until((p) => p.length >= expected, 60_000);
    assert.equal(c.points.length, expected);
    assert.match(relay.stderr(), /reading ahead on a second core/);
    assert.doesNotMatch(relay.stderr(), /scan worker stopped answering/);
  } finally {
    await c.client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
