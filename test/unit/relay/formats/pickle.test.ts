// The pickle reader for untrusted experience metadata (pickle.ts) and the JSON budget of a row's
// detail (trxp.ts): shared references cost each time they are expanded, nesting and object
// counts are bounded, nothing is ever called, and a seeded fuzz of mutated and random pickles
// only ever gives a value or a PickleError / RowDecodeError. Real pickles from Python:
// test/component/relay/formats/trxp.test.ts.
import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PickleError, PyDict, PyGlobal, PyObject, PyOpaque, Unpickler, unpickle } from '../../../../src/relay/formats/pickle';
import { RowDecodeError, decodeExperienceBytes, summarizeExperience } from '../../../../src/relay/formats/trxp';
import { rng } from '../helpers';

/** Opcode bytes of protocol 4, as Python's pickle writes them. */
const op = {
  PROTO: 0x80,
  EMPTY_DICT: 0x7d,
  EMPTY_LIST: 0x5d,
  MARK: 0x28,
  APPENDS: 0x65,
  APPEND: 0x61,
  SETITEMS: 0x75,
  MEMOIZE: 0x94,
  BINGET: 0x68,
  LONG_BINGET: 0x6a,
  SHORT_BINUNICODE: 0x8c,
  BINFLOAT: 0x47,
  BININT1: 0x4b,
  STOP: 0x2e,
  NONE: 0x4e,
  GLOBAL: 0x63,
  REDUCE: 0x52,
  TUPLE1: 0x85,
  BUILD: 0x62,
  POP: 0x30,
};

const str = (s: string): number[] => [op.SHORT_BINUNICODE, s.length, ...Buffer.from(s, 'latin1')];
const float = (f: number): number[] => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(f);
  return [op.BINFLOAT, ...b];
};

/** `{'version': 1, 'num_items': 1, 'items': [{'reward': 1.0, 'metrics': {'accuracy': 1.0}, 'info': BOMB}]}`: BOMB
 *  a list of `fanout` references to the list below it, `levels` deep (fanout^levels values once expanded). */
function bomb(levels: number, fanout: number): Buffer {
  const b: number[] = [op.PROTO, 4];
  let memo = 0;
  // The innermost list: ['x'], kept in the memo only (POP), as each level but the last.
  b.push(op.EMPTY_LIST, op.MEMOIZE, ...str('x'), op.APPEND, op.POP);
  let below = memo++;
  for (let i = 0; i < levels; i++) {
    b.push(op.EMPTY_LIST, op.MEMOIZE, op.MARK);
    for (let k = 0; k < fanout; k++) b.push(op.LONG_BINGET, below & 255, (below >> 8) & 255, 0, 0);
    b.push(op.APPENDS);
    if (i < levels - 1) b.push(op.POP);
    below = memo++;
  }
  const list = b.splice(2);
  b.push(op.EMPTY_DICT, op.MARK, ...str('version'), op.BININT1, 1, ...str('num_items'), op.BININT1, 1, ...str('items'));
  b.push(op.EMPTY_LIST, op.EMPTY_DICT, op.MARK, ...str('reward'), ...float(1), ...str('metrics'), op.EMPTY_DICT, ...str('accuracy'), ...float(1), 0x73);
  b.push(...str('info'), ...list, op.SETITEMS, op.APPEND, op.SETITEMS, op.STOP);
  return Buffer.from(b);
}

function trxp(meta: Buffer): Buffer {
  const h = Buffer.alloc(21);
  h.write('TRXP', 0, 'latin1');
  h[4] = 1;
  h.writeBigUInt64LE(BigInt(meta.length), 5);
  return Buffer.concat([h, meta]);
}

describe('adversarial: untrusted pickles', () => {
  test('shared references read in linear work; expanding them hits the JSON budget with a clear error', async () => {
    const meta = bomb(30, 4);
    assert.ok(meta.length < 1536, `${meta.length} bytes`);
    // Reading is one opcode per byte at most: bounded whatever the expansion.
    const u = new Unpickler(meta);
    let ops = 0;
    while (!u.run(1)) ops++;
    assert.ok(ops < meta.length, `${ops} opcodes for ${meta.length} bytes`);
    const info = ((u.result as PyDict).get('items') as PyDict[])[0].get('info') as unknown[];
    assert.equal(info[0], info[1], 'the levels stay shared, never copied');
    // The list's summary needs no expansion; the detail refuses, naming why.
    const row = trxp(meta);
    assert.deepEqual(summarizeExperience(row, row.length, () => undefined).metrics, { accuracy: 1 });
    await assert.rejects(decodeExperienceBytes(row), (e: unknown) => e instanceof RowDecodeError && /expands to more than 200000 values/.test(e.message));
    // A small fan-out within the budget decodes, every reference written out.
    const small = await decodeExperienceBytes(trxp(bomb(3, 2)));
    assert.deepEqual(small.info, [
      [
        [['x'], ['x']],
        [['x'], ['x']],
      ],
      [
        [['x'], ['x']],
        [['x'], ['x']],
      ],
    ]);
  });

  test('a list that contains itself is written as <cycle>; deep MARK nesting and object counts are bounded', async () => {
    // l = [[]]; l[0].append(l[0]): a legacy row whose first item contains itself
    const cyc = Buffer.from([op.PROTO, 4, op.EMPTY_LIST, op.EMPTY_LIST, op.MEMOIZE, op.BINGET, 0, op.APPEND, op.APPEND, op.STOP]);
    const v = unpickle(cyc) as unknown[][];
    assert.equal(v[0][0], v[0]);
    assert.deepEqual(await decodeExperienceBytes(cyc), { value: ['<cycle>'] });
    const marks = Buffer.from([op.PROTO, 4, ...Array<number>(20_000).fill(op.MARK), op.NONE, op.STOP]);
    assert.throws(
      () => unpickle(marks),
      (e: unknown) => e instanceof PickleError && /MARKs nested deeper/.test(e.message),
    );
    const lists = Buffer.from([op.PROTO, 4, ...Array<number>(5000).fill(op.EMPTY_LIST), op.STOP]);
    assert.throws(() => unpickle(lists, { maxObjects: 1000, maxMarks: 10 }), /more than 1000 objects/);
  });

  test('a class reference and a call are inert data, never resolved', () => {
    // os.system('touch /tmp/x'), as protocol 0 writes it
    const evil = Buffer.from("cos\nsystem\n(S'touch /tmp/agentrl-pickle-test'\ntR.", 'latin1');
    const v = unpickle(evil) as PyObject;
    assert.ok(v instanceof PyObject && v.cls instanceof PyGlobal);
    assert.equal(v.cls.qualified, 'os.system');
    assert.deepEqual(v.args, ['touch /tmp/agentrl-pickle-test']);
  });

  test('pickled integers: LONG1/LONG4 read in linear time, one over 1 KiB not built; a text integer past 4300 digits refused', () => {
    const long4 = (bytes: Buffer) => {
      const n = Buffer.alloc(4);
      n.writeInt32LE(bytes.length);
      return Buffer.concat([Buffer.from([op.PROTO, 4, 0x8b]), n, bytes, Buffer.from([op.STOP])]);
    };
    assert.equal(unpickle(Buffer.from([op.PROTO, 2, 0x8a, 2, 0x00, 0xff, op.STOP])), -256);
    // pickle.dumps(1234567890123456789012345, protocol=4), from Python
    assert.equal(
      unpickle(Buffer.from([128, 4, 149, 14, 0, 0, 0, 0, 0, 0, 0, 138, 11, 121, 223, 226, 61, 68, 166, 54, 15, 110, 5, 1, 46])),
      1234567890123456789012345n,
    );
    assert.equal(unpickle(long4(Buffer.from([121, 223, 226, 61, 68, 166, 54, 15, 110, 5, 1]))), 1234567890123456789012345n);
    const kib = Buffer.alloc(1024, 0xff);
    assert.equal(unpickle(long4(kib)), -1);
    // 8 MiB of integer: was a shift per byte (quadratic, minutes); now not built at all.
    const huge = unpickle(long4(Buffer.alloc(8 << 20, 0x7f)));
    assert.ok(huge instanceof PyOpaque && huge.what === 'int of more than 1024 bytes');
    assert.equal(unpickle(Buffer.from(`L${'9'.repeat(4300)}L\n.`, 'latin1')), BigInt('9'.repeat(4300)));
    assert.throws(
      () => unpickle(Buffer.from(`L${'9'.repeat(1_000_000)}L\n.`, 'latin1')),
      (e: unknown) => e instanceof PickleError && /more than 4300/.test(e.message),
    );
    assert.throws(() => unpickle(Buffer.from(`I-${'1'.repeat(5000)}\n.`, 'latin1')), PickleError);
  });

  test('a list nested 500 000 deep is refused at 100 000 values on the stack (as the Python relay), not built', () => {
    const n = 500_000;
    const deep = Buffer.concat([Buffer.from([op.PROTO, 4]), Buffer.alloc(n, op.EMPTY_LIST), Buffer.alloc(n - 1, op.APPEND), Buffer.from([op.STOP])]);
    assert.throws(
      () => unpickle(deep),
      (e: unknown) => e instanceof PickleError && /more than 100000 values on the stack/.test(e.message),
    );
  });

  test('fuzz (fixed seed): mutated and random pickles give a value or a clear error, nothing else', async () => {
    const rand = rng(20261127);
    // Integers of every width (LONG1, LONG4 from 0 bytes to past the 1 KiB cap, text INT/LONG): mutations hit their length fields.
    const longs = [0, 1, 8, 9, 255, 1024, 1025, 4096].map((n) => {
      const len = Buffer.alloc(4);
      len.writeInt32LE(n);
      const body = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37) & 255));
      return n < 256 && n % 2
        ? Buffer.concat([Buffer.from([op.PROTO, 4, op.EMPTY_LIST, 0x8a, n]), body, Buffer.from([op.APPEND, op.STOP])])
        : Buffer.concat([Buffer.from([op.PROTO, 4, op.EMPTY_LIST, 0x8b]), len, body, Buffer.from([op.APPEND, op.STOP])]);
    });
    const seeds = [
      bomb(6, 3),
      bomb(30, 4),
      Buffer.from("cos\nsystem\n(S'x'\ntR.", 'latin1'),
      Buffer.from([op.PROTO, 4, op.EMPTY_DICT, ...str('a'), op.NONE, 0x73, op.STOP]),
      ...longs,
      Buffer.from(`(lp0\nL${'7'.repeat(4299)}L\naI-12345678901234567890\na.`, 'latin1'),
    ];
    let values = 0;
    let errors = 0;
    for (let i = 0; i < 3000; i++) {
      let b: Buffer;
      if (i % 10 === 9) b = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 200) }, () => Math.floor(rand() * 256)));
      else {
        b = Buffer.from(seeds[i % seeds.length]);
        for (let k = 0, n = 1 + Math.floor(rand() * 4); k < n; k++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
        if (rand() < 0.2) b = b.subarray(0, Math.floor(rand() * b.length));
      }
      try {
        await decodeExperienceBytes(i % 2 ? trxp(b) : b);
        values++;
      } catch (e) {
        assert.ok(e instanceof RowDecodeError, `case ${i}: ${(e as Error).stack}`);
        assert.doesNotMatch(e.message, /\n\s+at /);
        errors++;
      }
      const s = summarizeExperience(trxp(b), b.length + 21, () => undefined);
      assert.ok(s.error === undefined || typeof s.error === 'string');
    }
    assert.ok(values > 0 && errors > 0, `${values} values, ${errors} errors`);
  });
});
