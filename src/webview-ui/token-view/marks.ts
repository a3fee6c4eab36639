// What a token view can mark on top of the tokens: which message (turn) each token belongs to,
// and the spans a check warns about (a trained tool output). A turn starts on a new line with a
// rule above it and its label in the gutter right of the tokens; a warned token has a bar under
// it. Indexed once per experience, looked up per token.
import { fillString, type TokenViewStrings } from '../../tokens/view-strings';

export interface TokenTurn {
  message: number;
  role: string;
  /** Token span [start, end). */
  start: number;
  end: number;
}

export interface TokenMarks {
  turns: readonly TokenTurn[];
  warnings: readonly { start: number; end: number }[];
}

/** Roles get a class of their own; anything else (a custom role) reads as "other". */
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

export class MarkIndex {
  private readonly turnOf: Int32Array;
  private readonly warned: Uint8Array;

  constructor(
    private readonly n: number,
    private readonly marks?: TokenMarks,
  ) {
    this.turnOf = new Int32Array(marks?.turns.length ? n : 0).fill(-1);
    this.warned = new Uint8Array(marks?.warnings.length ? n : 0);
    marks?.turns.forEach((t, k) => this.turnOf.fill(k, clamp(t.start, n), clamp(t.end, n)));
    for (const w of marks?.warnings ?? []) this.warned.fill(1, clamp(w.start, n), clamp(w.end, n));
  }

  private turn(i: number): TokenTurn | undefined {
    const k = i < this.turnOf.length ? this.turnOf[i] : -1;
    return k >= 0 ? this.marks?.turns[k] : undefined;
  }

  /** Whether token i opens a turn (after the first token): the layout breaks the line before it. */
  startsTurn(i: number): boolean {
    const t = this.turn(i);
    return i > 0 && t !== undefined && clamp(t.start, this.n) === i;
  }

  /** Whether any turn is marked (the view keeps a gutter for the turns' labels). */
  get hasTurns(): boolean {
    return !!this.marks?.turns.length;
  }

  /** The label drawn beside token i when it opens a turn ("message 2 (tool)"), else undefined. */
  label(i: number, s: TokenViewStrings): string | undefined {
    const t = this.turn(i);
    return t && clamp(t.start, this.n) === i ? (t.message < 0 ? s.templateTurn : `${s.turn} ${fillString(s.turnValue, t.message, t.role)}`) : undefined;
  }

  /** Extra classes of token i's span (leading space included), '' when unmarked. */
  classes(i: number): string {
    let cls = '';
    const t = this.turn(i);
    if (t) cls += ` tv-role-${ROLES.has(t.role) ? t.role : 'other'}${clamp(t.start, this.n) === i ? ' tv-turn-start' : ''}`;
    if (this.warned[i]) cls += ' tv-mask-warn';
    return cls;
  }

  /** The hover card's lines for token i's turn and warning. */
  tooltip(i: number, s: TokenViewStrings): [string, string][] {
    const rows: [string, string][] = [];
    const t = this.turn(i);
    if (t) rows.push([s.turn, t.message < 0 ? s.templateTurn : fillString(s.turnValue, t.message, t.role)]);
    if (this.warned[i]) rows.push(['', s.maskWarning]);
    return rows;
  }
}

const clamp = (x: number, n: number): number => Math.max(0, Math.min(n, Math.floor(x)));
