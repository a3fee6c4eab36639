// What comments point at must be there for the reader: every repository path or file name a
// comment names exists, and no comment cites a document that is not in the repository (an
// issue number, a section sign pointing into notes kept elsewhere, a reference document beside
// the checkout).
// A comment that names an upstream project's file says whose it is (`Trinity's config.py`).
import fs from 'node:fs';
import path from 'node:path';
import { commentLines, languageOf } from './comments.mjs';

/** @typedef {{ file: string, line: number, rule: string, message: string }} Finding */

/** Files whose comments are checked: our own code (not test data, not the scaffold templates,
 *  whose comments speak of the generated project's files). */
function checked(file) {
  if (!languageOf(file)) return false;
  if (/^(templates|test\/fixtures|node_modules)\//.test(file)) return false;
  return !/\.(json|jsonl|md|yaml|yml|txt|toml|d\.ts\.map)$/.test(file) && (/\.(ts|mts|cts|js|mjs|cjs|py|sh)$/.test(file) || file === '.ci/run');
}

const EXT = 'ts|tsx|mts|cts|js|mjs|cjs|py|pyi|json|jsonc|jsonl|md|yaml|yml|sh|toml|txt|html|css|wasm|proto|gguf|vsix';
/** A path or file name: optional folders, a name with one of the extensions above, an optional
 *  `:line`. Folders alone count when they start at a top-level folder of the repo (`src/relay/`).
 *  A name next to `<…>`, `{…}` or `*` is a pattern, not a name. */
const FILE_RE = new RegExp(String.raw`(?<![\w@$.\/<>{}*-])((?:\.{1,2}\/)*(?:[\w@.-]+\/)*[\w@-][\w@.-]*\.(?:${EXT}))(?::(\d+))?(?![\w\/-])`, 'g');
const DIR_RE = /(?<![\w@$./-])((?:src|test|scripts|templates|demo|sample-workspace|l10n|schemas|syntaxes|walkthroughs|images)\/(?:[\w@.-]+\/)*)(?![\w@.-])/g;
const URL_RE = /\b(?:https?|file|wss?):\/\/\S+/g;
const ISSUE_RE = /(?<![\w/#-])issues?\s+#?\d+/gi;

/**
 * @param {string} root  the repository
 * @param {string[]} files  repo-relative paths (repo-files.mjs)
 * @returns {Finding[]}
 */
export function commentRefs(root, files) {
  const all = new Set(files);
  const dirs = new Set();
  for (const f of files) for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) dirs.add(d);
  const byName = new Map();
  for (const f of files) byName.set(path.posix.basename(f), [...(byName.get(path.posix.basename(f)) ?? []), f]);
  const esbuild = fs.readFileSync(path.join(root, 'esbuild.mjs'), 'utf8');
  const ignored = gitignored(root);
  const topLevel = new Set(files.map((f) => f.split('/')[0]));
  const findings = [];
  for (const file of files.filter(checked)) {
    const fileText = fs.readFileSync(path.join(root, file), 'utf8');
    const lines = commentLines(file, fileText);
    const citesUrl = lines.some((l) => URL_RE.test(l.text));
    URL_RE.lastIndex = 0;
    let prev;
    for (const { line, text: raw } of lines) {
      const text = raw.replace(URL_RE, ' ');
      const add = (rule, message) => findings.push({ file, line, rule, message });
      const cited = [];
      for (const m of text.matchAll(ISSUE_RE)) cited.push(['cites-issue', `cites "${m[0]}", which is not in the repository: say what it was about instead`]);
      for (const m of text.matchAll(FILE_RE)) {
        const why = unresolved(m[1], file, text.slice(0, m.index), fileText);
        if (why) cited.push([why.rule, why.message]);
      }
      // A section sign cites a section of a document: the one this line (or the line before)
      // cites, or, in a file that cites a web page, that page.
      const section = text.includes('§') && !citesUrl && !cited.some(([r]) => r !== 'missing-path') && !(prev && prev.line === line - 1 && prev.cites);
      if (section) cited.push(['cites-section', `cites a section (${(/§\s*[\w.]*/.exec(text) ?? ['§'])[0]}) of a document that is not in the repository`]);
      for (const [rule, message] of cited) add(rule, message);
      prev = { line, cites: cited.some(([r]) => r !== 'missing-path') };
      for (const m of text.matchAll(DIR_RE)) {
        const d = m[1].replace(/\/$/, '');
        if (!dirs.has(d)) add('missing-path', `names ${m[1]}, which does not exist`);
      }
    }
  }
  return findings;

  /** Why `ref` (named in a comment of `from`) does not resolve, or undefined when it does. */
  function unresolved(ref, from, before, fileText) {
    if (/^(\.\.\/)+shared\//.test(ref) || /^shared\/reference\//.test(ref)) {
      if (/\/reference\/|DESIGN\.md$/.test(ref)) return { rule: 'cites-document', message: `cites ${ref}, a document outside the repository` };
      return undefined; // test data and upstream code beside the checkout (tests skip without it)
    }
    // Another project's file, said so: "Trinity's config.py", "code-server's server-main.js".
    if (/[\w)]'s\s+`?$/.test(before)) return undefined;
    const clean = ref.replace(/^\.\//, '');
    if (clean.split('/').some((seg) => /^\w(\.\w+)?$/.test(seg))) return undefined; // x.ts, x/index.ts, a/b/c.py: placeholders
    if (/^(dist|media)\//.test(clean)) {
      if (esbuild.includes(`'${clean}'`)) return undefined;
      const runner = /^dist\/runner\/(.+)$/.exec(clean);
      if (runner && all.has(`src/debug/runner/${runner[1]}`)) return undefined;
      return { rule: 'missing-path', message: `names ${ref}, which no build writes (esbuild.mjs)` };
    }
    if (!clean.includes('/') && esbuild.includes(`'dist/${clean}'`)) return undefined; // a file the build writes, by its name
    const out = /^out\/(.+)\.js$/.exec(clean);
    if (out) return all.has(`${out[1]}.ts`) ? undefined : { rule: 'missing-path', message: `names ${ref}, compiled from ${out[1]}.ts, which does not exist` };
    if (/^node_modules\//.test(clean))
      return fs.existsSync(path.join(root, clean)) ? undefined : { rule: 'missing-path', message: `names ${ref}, which is not installed` };
    const first = clean.split('/')[0];
    if (ignored.includes(first)) return undefined; // made at run time (.cache/, .agentrl/…)
    const found = resolves(clean, from);
    if (found) return undefined;
    const ext = /\.(\w+)$/.exec(clean)[1];
    // Checked: paths from a top-level folder of the repo (src/…, test/…), relative paths, our
    // code's file names (TypeScript, JavaScript, the runner's agentrl_*.py) and documents.
    // Other names (config.py, pyproject.toml, fork.json) are files of upstream projects, user
    // workspaces or run folders.
    const rooted = clean.includes('/') && (topLevel.has(first) || /^\.\.?\//.test(ref));
    if (ext === 'md') {
      if (fileText.includes(`/${clean}`) && new RegExp(String.raw`\.\./shared/[\w/.-]*${clean.replace(/[.]/g, '\\.')}`).test(fileText)) return undefined;
      return { rule: 'cites-document', message: `cites ${ref}, a document that is not in the repository` };
    }
    if (!rooted && !/^(ts|tsx|mts|cts|js|mjs|cjs)$/.test(ext) && !/^agentrl_/.test(path.posix.basename(clean))) return undefined;
    if (/^(js|mjs|cjs)$/.test(ext)) {
      if (resolves(clean.replace(/\.\w+$/, '.ts'), from)) return undefined; // tsc's output of a .ts
      if (fs.existsSync(path.join(root, 'node_modules', clean))) return undefined; // a package (sql.js) or a file in one
    }
    return { rule: 'missing-path', message: `names ${ref}, which does not exist in the repository` };
  }

  /** Whether `ref` names a file or folder of the repo: from the root, from the naming file's
   *  folder, or as the tail of a path (`explorer/errors.ts`, a bare `errors.ts`). */
  function resolves(ref, from) {
    if (/^\.\.?\//.test(ref)) {
      const rel = path.posix.normalize(path.posix.join(path.posix.dirname(from), ref));
      return all.has(rel) || dirs.has(rel);
    }
    if (all.has(ref) || dirs.has(ref)) return true;
    if (!ref.includes('/')) return byName.has(ref);
    return files.some((f) => f.endsWith(`/${ref}`));
  }
}

/** Top-level names .gitignore lists (folders and files made at run time). */
function gitignored(root) {
  return fs
    .readFileSync(path.join(root, '.gitignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim().replace(/^\//, '').replace(/\/$/, ''))
    .filter((l) => l && !l.startsWith('#') && !/[*?]/.test(l));
}
