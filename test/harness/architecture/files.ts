// The architecture rules (CONTRIBUTING.md) run on a virtual file set — repo-relative path → text — so
// each rule can be proved to fail on a small in-memory fixture as well as checked on the real
// src/ tree. This module holds that file set, the violation every rule returns, and the parser
// cache the rules share.
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/** Repo-relative POSIX path (`src/config/engine/engine.ts`) → file text. */
export type FileSet = ReadonlyMap<string, string>;

/** One broken rule at one place: printed `file:line: reason`. */
export interface Violation {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly reason: string;
}

export const formatViolation = (v: Violation): string => `${v.file}:${v.line}: ${v.reason}`;

export function fileSet(files: Record<string, string>): FileSet {
  return new Map(Object.entries(files));
}

/** Every file under `dir` (repo-relative, default `src`), keyed by its repo-relative POSIX path. */
export function readTree(root: string, dir = 'src'): FileSet {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) out.set(child, fs.readFileSync(path.join(root, child), 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** TypeScript sources the rules parse (declaration files included: they import too). */
export const isTypeScript = (file: string): boolean => /\.(c|m)?tsx?$/.test(file);

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** File, line, reason: the same order on every machine (no locale). */
export const sortViolations = (vs: Violation[]): Violation[] =>
  vs.sort((a, b) => byCodeUnit(a.file, b.file) || a.line - b.line || byCodeUnit(a.reason, b.reason));

const parsed = new Map<string, ts.SourceFile>();

/** The file's syntax tree, parsed once per (path, text). */
export function sourceFile(file: string, text: string): ts.SourceFile {
  const hit = parsed.get(file);
  if (hit && hit.text === text) return hit;
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  parsed.set(file, sf);
  return sf;
}

/** 1-based line of a node's first token. */
export const lineOf = (sf: ts.SourceFile, node: ts.Node): number => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
