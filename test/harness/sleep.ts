// The one wall-clock wait of the test tiers. Only for waiting on another process or a real
// socket; code that takes a clock or uses setTimeout is tested with fake timers instead.
/** Resolves after `ms` milliseconds of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
