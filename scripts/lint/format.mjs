// Prettier's formatting (.prettierrc.json, .prettierignore): the lint tier's `format` check and
// `npm run format` (scripts/format.mjs) read the same files through this module.
import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether the check fails on an unformatted file. False until the tree has been formatted once,
 * in a commit of its own: `npm run format` formats the tree and sets this to true, so that
 * commit switches the check on (before it, every branch would conflict with a reformatted tree).
 */
export const ENFORCED = true;

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Our code files Prettier formats: the repository's .ts/.js files not in .prettierignore. */
export async function formattedFiles(root, files) {
  const prettier = await import('prettier');
  const ignorePath = path.join(root, '.prettierignore');
  const out = [];
  for (const file of files.filter((f) => CODE.test(f))) {
    const info = await prettier.getFileInfo(path.join(root, file), { ignorePath });
    if (!info.ignored && info.inferredParser) out.push(file);
  }
  return out;
}

/** Formats `file` in memory: its text and Prettier's. */
export async function formatOne(root, file) {
  const prettier = await import('prettier');
  const abs = path.join(root, file);
  const text = fs.readFileSync(abs, 'utf8');
  const options = { ...(await prettier.resolveConfig(abs, { editorconfig: false })), filepath: abs };
  return { text, formatted: await prettier.format(text, options) };
}

/**
 * @param {string} root
 * @param {string[]} files  repo-relative paths (repo-files.mjs)
 * @returns {Promise<{ file: string, line: number, rule: string, message: string }[]>}
 */
export async function formatCheck(root, files) {
  if (!ENFORCED) {
    console.log('format: not enforced until the tree is formatted once (npm run format switches it on: scripts/lint/format.mjs)');
    return [];
  }
  const findings = [];
  for (const file of await formattedFiles(root, files)) {
    const { text, formatted } = await formatOne(root, file);
    if (text === formatted) continue;
    const a = text.split('\n');
    const b = formatted.split('\n');
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    findings.push({ file, line: i + 1, rule: 'prettier', message: 'not formatted as Prettier formats it (npm run format)' });
  }
  return findings;
}
