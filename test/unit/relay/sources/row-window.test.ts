// The window of recent rows a SQL cursor carries (row-window.ts): its digest is pinned to fixed
// values, so that every relay runtime writes and reads the same cursor, and a change of reward
// or consumed in one row marks its group alone.
import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BUCKET_ROWS, RowWindow, bucketDigest, changedBuckets, parseWindow, windowBuckets } from '../../../../src/relay/sources/row-window';

describe('adversarial: the SQL cursor window', () => {
  test('bucket digests are FNV-1a over (id int64, reward float64, consumed int64) little-endian, NULL as 0xff × 8', () => {
    assert.equal(bucketDigest([]), '811c9dc5');
    assert.equal(bucketDigest([{ id: 1, reward: 0.5, consumed: 0 }]), bucketDigest([{ id: 1, reward: 0.5, consumed: 0 }]));
    // Fixed vectors, computed with Python's struct (any runtime must compute these).
    assert.equal(bucketDigest([{ id: 1, reward: 0.5, consumed: 0 }]), '9ce3a5e9');
    assert.equal(
      bucketDigest([
        { id: 4, reward: null, consumed: null },
        { id: 5, reward: -1, consumed: 2 },
      ]),
      'bb281feb',
    );
  });

  test('a resumed window marks exactly the groups whose rows changed; unchanged ones match', () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, reward: (i % 7) / 7, consumed: i % 3 }));
    const w = new RowWindow();
    w.hold(rows, 100);
    const enc = parseWindow(w.encode(100, []))!;
    assert.deepEqual(windowBuckets(100), [0, Math.floor(100 / BUCKET_ROWS)]);
    assert.deepEqual(changedBuckets(enc, rows), []);
    const now = rows.map((r) => (r.id === 42 ? { ...r, consumed: r.consumed + 1 } : r));
    assert.deepEqual(changedBuckets(enc, now), [Math.floor(42 / BUCKET_ROWS)]);
    // A row waiting to be re-sent makes its group never match.
    const dirty = parseWindow(w.encode(100, [7]))!;
    assert.deepEqual(changedBuckets(dirty, rows), [Math.floor(7 / BUCKET_ROWS)]);
  });
});
