// Offsets ↔ LSP positions (0-based line, UTF-16 character: JS string indices are UTF-16).
import type { Position, Range } from '../../feature-api/config-checker';
import type { Span } from '../yaml/tree';

export class LineIndex {
  private readonly starts: number[];
  constructor(readonly text: string) {
    const starts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.starts = starts;
  }
  get lineCount(): number {
    return this.starts.length;
  }
  position(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.starts[lo] };
  }
  offset(pos: Position): number {
    if (pos.line >= this.starts.length) return this.text.length;
    if (pos.line < 0) return 0;
    const start = this.starts[pos.line];
    const next = pos.line + 1 < this.starts.length ? this.starts[pos.line + 1] : this.text.length + 1;
    return Math.min(start + Math.max(0, pos.character), next - 1);
  }
  range(span: Span): Range {
    return { start: this.position(span.start), end: this.position(span.end) };
  }
  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.starts.length - 1))];
  }
  lineText(line: number): string {
    const start = this.lineStart(line);
    const end = line + 1 < this.starts.length ? this.starts[line + 1] - 1 : this.text.length;
    return this.text.slice(start, end).replace(/\r$/, '');
  }
}
