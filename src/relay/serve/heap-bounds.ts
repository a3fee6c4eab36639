// The relay's V8 heap, kept to what it needs. V8 sizes a process's heap for a busy application:
// its young generation grows to two 16 MiB semi-spaces (32 MB of RSS) after one burst of
// survivors, and its old generation may grow to about four times what survived the last full
// collection before the next. The relay's allocations are short-lived (a batch, an answer's
// slices) and what it keeps (the decode cache, readers) is bounded, so that headroom is RSS for
// nothing: with both, the relay under a hostile client passed 200 MB (relay-hostile bench).
// The heap's limits are fixed when node starts (--max-semi-space-size), and users start the
// relay as `node agentrl.js relay` (the extension too), so the limits are set from inside
// instead, with the two knobs V8 reads as it goes: the young generation's growth factor (set
// to 1 once it reached YOUNG_BYTES, looked at after each collection) and the old
// generation's growth per full collection (OLD_GROWING_PERCENT).
import { PerformanceObserver } from 'node:perf_hooks';
import * as v8 from 'node:v8';

/** The young generation's bound (both semi-spaces): 2 × 8 MiB. */
export const YOUNG_BYTES = 16 * 1024 * 1024;
/** The old generation's headroom over what survived the last full collection (V8 uses up to 300 %). */
const OLD_GROWING_PERCENT = 50;

/** The young generation's size now (bytes). */
export function youngBytes(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/** Bounds this process's heap (once; later calls do nothing). */
export function boundHeap(): void {
  if (observer) return;
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GROWING_PERCENT}`);
  const obs = new PerformanceObserver(() => {
    if (youngBytes() < YOUNG_BYTES) return;
    // V8 doubles the young generation at most once per minor collection, when enough survived.
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    obs.disconnect();
  });
  observer = obs;
  obs.observe({ entryTypes: ['gc'] });
}

let observer: PerformanceObserver | undefined;
