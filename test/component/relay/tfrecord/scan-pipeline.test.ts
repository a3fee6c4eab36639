// The scan worker's body run from its source text in a minified single-file bundle, as the CLI
// runs it: esbuild (a child process) bundles a tiny entry, then node runs it.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { frameRecord } from '../../../../src/relay/tfrecord/scan';
import { repoRoot } from '../../../harness/paths';
import { mixedRecords, referencePoints } from '../../../unit/relay/tfrecord-streams';
import { tmpDir } from '../helpers';

test('the worker body runs from its source text even minified (it is eval-ed in the single-file CLI)', async () => {
  // Bundle and minify a tiny entry that reads a file ahead, as the CLI's bundle does.
  const dir = tmpDir();
  const records = mixedRecords(3, 3000);
  const file = path.join(dir, 'events.out.tfevents.1.min');
  fs.writeFileSync(file, Buffer.concat(records.map((r) => frameRecord(r))));
  const entry = path.join(dir, 'entry.ts');
  fs.writeFileSync(
    entry,
    `import { TfRecordFileReader } from ${JSON.stringify(path.join(repoRoot, 'src/relay/tfrecord/file-reader'))};\n` +
      `let n = 0, piped = false, failed = false;\n` +
      `const r = new TfRecordFileReader(${JSON.stringify(file)}, 0, { pipelineMinBytes: 0, onPipeline: (e) => { failed ||= e === 'worker-failed'; } });\n` +
      `while (r.read({ add: () => n++ }, 4096).consumed > 0) piped ||= r.pipelined;\n` +
      `console.log(JSON.stringify({ n, piped, failed }));\n`,
  );
  const out = path.join(dir, 'entry.js');
  await esbuild.build({ entryPoints: [entry], outfile: out, bundle: true, minify: true, platform: 'node', format: 'cjs', logLevel: 'silent' });
  const r = spawnSync(process.execPath, [out], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { n: referencePoints(records).length, piped: true, failed: false });
  fs.rmSync(dir, { recursive: true, force: true });
});
