// How far each relay endpoint's sources have been stored: saved with the points, so a
// relay resumes exactly where the store stopped.
import type { Cursor } from '../../relay-protocol/messages';

export class CursorBook {
  private readonly byEndpoint = new Map<string, Map<string, Cursor>>();

  /** Copies of an endpoint's cursors, one per source. */
  get(endpoint: string): Cursor[] {
    return [...(this.byEndpoint.get(endpoint)?.values() ?? [])].map((c) => ({ ...c }));
  }

  set(endpoint: string, c: Cursor): void {
    let m = this.byEndpoint.get(endpoint);
    if (!m) this.byEndpoint.set(endpoint, (m = new Map<string, Cursor>()));
    m.set(c.source, { ...c });
  }

  /** Hands an endpoint's cursors to another (a relay brought back at a new URL resumes there). */
  move(from: string, to: string): void {
    const m = this.byEndpoint.get(from);
    if (!m || from === to) return;
    this.byEndpoint.delete(from);
    this.byEndpoint.set(to, m);
  }

  forget(endpoint: string): void {
    this.byEndpoint.delete(endpoint);
  }

  clear(): void {
    this.byEndpoint.clear();
  }

  /** Every endpoint's cursors (for the manifest). */
  toJSON(): Record<string, Cursor[]> {
    return Object.fromEntries([...this.byEndpoint].map(([e, m]) => [e, [...m.values()]]));
  }
}
