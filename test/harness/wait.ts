// The wall-clock waits of the test tiers, once. Only for waiting on another process, a real
// socket or VS Code; code that takes a clock or uses setTimeout is tested with fake timers.

/** Resolves after `ms` milliseconds of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What until() polls: a value, or nothing yet (undefined, null, false; awaited when a promise). */
export type Probe<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>;

/** Polls `f` every `everyMs` until it gives a truthy value and returns it; throws after `timeoutMs`. */
export async function until<T>(what: string, f: Probe<T>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
