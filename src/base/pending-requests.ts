// Requests sent to a peer and awaited by their number: each settles once — with its answer,
// when its time is up, or when the peer goes away. The relay client's `experience` and `detail`
// requests and the metrics view's `probe` of its webview use it. An outcome is a value or an
// Error (the request then rejects with it); T itself is never an Error.
export class PendingRequests<T> {
  private next = 1;
  private readonly map = new Map<number, { resolve: (v: T) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  /** Sends request `n` (through `send`) and waits for its answer; `late` is the outcome when none
   *  comes within `timeoutMs`. A `send` that throws settles the request at once with its error. */
  ask(send: (n: number) => void, timeoutMs: number, late: T | Error): Promise<T> {
    const n = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.settle(n, late), timeoutMs);
      this.map.set(n, { resolve, reject, timer });
      try {
        send(n);
      } catch (e) {
        this.settle(n, e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  /** Settles request `n` (an unknown or settled one is ignored). */
  settle(n: number, outcome: T | Error): void {
    const p = this.map.get(n);
    if (!p) return;
    this.map.delete(n);
    clearTimeout(p.timer);
    if (outcome instanceof Error) p.reject(outcome);
    else p.resolve(outcome);
  }

  /** Settles every pending request with `outcome` (the connection or the page went away). */
  settleAll(outcome: T | Error): void {
    for (const n of [...this.map.keys()]) this.settle(n, outcome);
  }
}
