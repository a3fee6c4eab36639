// Requests a client sent and waits for, by their number: each settles once, with the answer,
// on its timeout, or when the connection ends. (relay-client.ts's `detail` requests.)
export class PendingRequests<T> {
  private next = 1;
  private readonly map = new Map<number, { resolve: (v: T) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  /** Sends request `n` (through `send`) and waits for its answer. */
  ask(send: (n: number) => void, timeoutMs: number, timeoutText: string): Promise<T> {
    const n = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.map.delete(n);
        reject(new Error(timeoutText));
      }, timeoutMs);
      this.map.set(n, { resolve, reject, timer });
      send(n);
    });
  }

  /** Settles request `n` (an unknown or settled one is ignored). */
  settle(n: number, error: string | undefined, value: T): void {
    const p = this.map.get(n);
    if (!p) return;
    this.map.delete(n);
    clearTimeout(p.timer);
    if (error !== undefined) p.reject(new Error(error));
    else p.resolve(value);
  }

  failAll(why: string): void {
    for (const [n, p] of this.map) {
      clearTimeout(p.timer);
      p.reject(new Error(why));
      this.map.delete(n);
    }
  }
}
