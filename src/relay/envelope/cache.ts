// The relay's envelope passes (pass.ts), one per event file and bucket count, shared by every
// session: a second viewer opening the same run gets the envelope without a second read, and
// a viewer opening it after the file grew reads only the new part. Bounded: past `boundBytes`
// of builders and indexes, the least recently used passes are dropped (a later open reads
// their file again). Detail requests find their file's index here.
import { EnvelopePass, PassOptions } from './pass';

export class EnvelopeCache {
  /** Passes by `<source id>#<buckets>`, least recently used first. */
  private readonly passes = new Map<string, EnvelopePass>();
  /** The source id of each key of `passes`. */
  private readonly ids = new Map<string, string>();
  readonly stats = { passes: 0, shared: 0, dropped: 0 };

  constructor(
    readonly boundBytes = 128 * 1024 * 1024,
    private readonly opts: PassOptions = {},
  ) {}

  /** The pass of `file` (source `id`) at `buckets`, read on to the file's current end. */
  async envelope(id: string, file: string, buckets: number): Promise<EnvelopePass> {
    const key = `${id}#${buckets}`;
    let pass = this.passes.get(key);
    if (pass) {
      this.passes.delete(key);
      this.stats.shared++;
    } else {
      pass = new EnvelopePass(file, buckets, this.opts);
      this.stats.passes++;
    }
    this.passes.set(key, pass);
    this.ids.set(key, id);
    await pass.advance();
    this.enforce(pass);
    return pass;
  }

  /** A pass of source `id` over the file identity `fid` (its index serves detail reads). */
  indexed(id: string, fid: string | undefined): EnvelopePass | undefined {
    let found: EnvelopePass | undefined;
    for (const [key, p] of this.passes) if (this.ids.get(key) === id && p.fid === fid && (!found || p.offset > found.offset)) found = p;
    return found;
  }

  /** Bytes held by every pass. */
  get bytes(): number {
    let n = 0;
    for (const p of this.passes.values()) n += p.bytes;
    return n;
  }

  private enforce(keep: EnvelopePass): void {
    for (const [key, p] of this.passes) {
      if (this.bytes <= this.boundBytes) return;
      if (p === keep) continue;
      this.passes.delete(key);
      this.ids.delete(key);
      this.stats.dropped++;
    }
  }

  close(): void {
    this.passes.clear();
    this.ids.clear();
  }
}
