// The tokens frames the relay has laid out, by row: a `tokens` answer for a row whose decoded
// tokens are the same object as last time (the source keeps its last row, sql-source.ts) is a
// the same frame with the request number written in (TokensFrameTemplate), not a new JSON text
// of its messages, its encoding and two frame copies. A reading client flooding `tokens`
// requests for a heavy row made the relay allocate ~4 frames' worth per answer; the garbage
// outran the collector (271 MB RSS in the relay-hostile bench). Nor is the frame copied: an
// answer is its head (the request number written in) and the template's body, sent as two
// fragments of one WebSocket message — a ~2 MB copy per answer, 80 answers a second, still
// held the relay at 222 MB. Held weakly: a row the source let go of takes its frames with it.
import { TokensFrameTemplate } from '../../relay-protocol/tokens-frame';
import type { RowTokens } from '../sources/source';

export class TokensFrames {
  private readonly byRow = new WeakMap<RowTokens, Map<string, TokensFrameTemplate>>();
  /** Frames laid out, frames copied from one laid out before, and the bytes laid out. */
  readonly stats = { built: 0, reused: 0, builtBytes: 0 };

  /** The frame answering `request` for row `id` of `source`, whose tokens are `t`: its head, then its body (shared, read-only). */
  fragments(t: RowTokens, source: string, id: number, request: number): [Buffer, Buffer] {
    let forRow = this.byRow.get(t);
    if (!forRow) this.byRow.set(t, (forRow = new Map<string, TokensFrameTemplate>()));
    const key = `${source}\0${id}`;
    let template = forRow.get(key);
    if (template) this.stats.reused++;
    else {
      template = new TokensFrameTemplate({ ...t, type: 'tokens', source, id });
      forRow.set(key, template);
      this.stats.built++;
      this.stats.builtBytes += template.byteLength;
    }
    return template.fragments(request).map((f) => Buffer.from(f.buffer, f.byteOffset, f.byteLength)) as [Buffer, Buffer];
  }
}
