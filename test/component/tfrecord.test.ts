// The event-file reader on files written by real TensorBoard writers (tensorboardX, torch, TF2
// in the test venv), our message definitions against the tensorboard package's, and the
// committed wasm scanner against its generator. Spawns python and node.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { EventType, MetadataType, TensorType, ValueType, root } from '../../src/tfrecord/event-proto';
import { TfRecordFileReader } from '../../src/tfrecord/file-reader';
import { repoRoot } from '../harness/paths';
import { noTbx, python, tmpDir, writers } from './relay/helpers';

function readAll(file: string) {
  const r = new TfRecordFileReader(file, 0);
  const pts: { tag: string; step: number; wallTime: number; value: number }[] = [];
  r.read({ add: (tag, step, wallTime, value) => pts.push({ tag, step, wallTime, value }) });
  r.close();
  return { pts, stats: r.stats };
}

test('scan-wasm.ts is the assembly of scan.wat (run scripts/gen-relay-wasm.mjs after editing)', () => {
  const text = execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'gen-relay-wasm.mjs'), '--print'], { encoding: 'utf8' });
  const committed = fs.readFileSync(path.join(repoRoot, 'src', 'tfrecord', 'scan-wasm.ts'), 'utf8');
  assert.equal(committed, text, 'scan-wasm.ts is stale');
});

test('message definitions use the field numbers of the tensorboard package', { skip: noTbx }, () => {
  const out = python([
    '-c',
    `import json
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
f = lambda d: {x.name: x.number for x in d.fields}
print(json.dumps({"Event": f(event_pb2.Event.DESCRIPTOR), "Value": f(summary_pb2.Summary.Value.DESCRIPTOR),
  "SummaryMetadata": f(summary_pb2.SummaryMetadata.DESCRIPTOR), "TensorProto": f(tensor_pb2.TensorProto.DESCRIPTOR),
  "DataType": {v.name: v.number for v in types_pb2.DataType.DESCRIPTOR.values}}))`,
  ]);
  const py = JSON.parse(out) as Record<string, Record<string, number>>;
  const ours: [string, { fields: Record<string, { id: number }> }][] = [
    ['Event', EventType],
    ['Value', ValueType],
    ['SummaryMetadata', MetadataType],
    ['TensorProto', TensorType],
  ];
  let checked = 0;
  for (const [name, type] of ours) {
    for (const [field, f] of Object.entries(type.fields)) {
      assert.equal(f.id, py[name][field], `${name}.${field}`);
      checked++;
    }
  }
  for (const [k, v] of Object.entries(root.lookupEnum('tensorboard.DataType').values)) assert.equal(v, py.DataType[k], k);
  assert.ok(checked > 25);
});

test('reads the scalars of tensorboardX, torch (old and new style, f32/f64) and TF2 (f32/f64) exactly', { skip: noTbx }, () => {
  const dir = tmpDir();
  const expected = JSON.parse(python([writers, 'encodings', dir], { timeout: 180_000 })) as { run: string; tag: string; step: number; value: number }[];
  const got = new Map<string, number>();
  for (const run of ['tbx', 'torch', 'tf2']) {
    for (const f of fs.readdirSync(path.join(dir, run))) {
      const { pts, stats } = readAll(path.join(dir, run, f));
      assert.equal(stats.crcErrors + stats.badHeaders + stats.decodeErrors, 0);
      for (const p of pts) {
        assert.ok(!got.has(`${run}|${p.tag}@${p.step}`), `duplicate ${p.tag}@${p.step}`);
        got.set(`${run}|${p.tag}@${p.step}`, p.value);
        assert.ok(p.wallTime > 1.6e9, 'wall time in seconds');
      }
    }
  }
  // Histograms and text are not taken for scalars; every written scalar is there, bit-exact.
  assert.equal(got.size, expected.length, [...got.keys()].filter((k) => !expected.some((e) => `${e.run}|${e.tag}@${e.step}` === k)).join(','));
  for (const e of expected) {
    const v = got.get(`${e.run}|${e.tag}@${e.step}`);
    assert.ok(v !== undefined, `missing ${e.run} ${e.tag}@${e.step}`);
    assert.ok(Object.is(v, e.value), `${e.run} ${e.tag}@${e.step}: read ${v}, wrote ${e.value}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
