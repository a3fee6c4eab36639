// The repository's files (tracked, or new and not ignored), as repo-relative paths with `/`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** @param {string} root */
export function repoFiles(root) {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return [...new Set(out.split('\0').filter(Boolean))].filter((f) => fs.existsSync(path.join(root, f))).sort();
}
