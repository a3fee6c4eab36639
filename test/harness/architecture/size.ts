// Rule 3: a file is at most 600 lines. There is no cap on classes or functions: a file past
// 600 lines does two jobs, but a class is split along its responsibilities, never to fit a
// line count (cutting classes to a cap made callback bags and mixins; CONTRIBUTING "Sizes").
import { type FileSet, type Violation, sortViolations } from './files';

export const MAX_FILE_LINES = 600;

/** Lines as an editor shows them (a final newline does not open another line). */
export const lineCount = (text: string): number => (text === '' ? 0 : text.replace(/\r?\n$/, '').split('\n').length);

/** Rule 3: src/**\/*.ts and src/**\/*.py over 600 lines. */
export function longFiles(files: FileSet, max = MAX_FILE_LINES): Violation[] {
  const out: Violation[] = [];
  for (const [file, text] of files) {
    if (!/\.(ts|py)$/.test(file)) continue;
    const n = lineCount(text);
    if (n > max) out.push({ file, line: max + 1, reason: `file has ${n} lines (max ${max}): split it by job` });
  }
  return sortViolations(out);
}
