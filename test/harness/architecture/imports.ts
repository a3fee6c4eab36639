// Every module reference of a TypeScript file — import/export … from, import type, require(),
// import(), `typeof import()` — with its line, whether it is type-only, and, for a relative
// one, the repo path it resolves to. The layering, cycle and vscode rules all read this.
import * as path from 'node:path';
import ts from 'typescript';
import { type FileSet, isTypeScript, lineOf, sourceFile } from './files';

export interface ModuleRef {
  /** The importing file. */
  readonly file: string;
  readonly line: number;
  /** The module specifier as written. */
  readonly spec: string;
  /** Erased at compile time: `import type`, `import { type A }` only, `typeof import('…')`. */
  readonly typeOnly: boolean;
  /** Relative specifiers only: the repo path of the imported file (best effort without a file system). */
  readonly target?: string;
}

const EXTENSIONS = ['', '.ts', '.tsx', '.d.ts', '/index.ts', '/index.tsx'];

/** Resolves `./x` against the file set like TypeScript's node resolution: x.ts, x/index.ts, x.js → x.ts. */
export function resolveRelative(files: FileSet, from: string, spec: string): string {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const stem = base.replace(/\.js$/, '');
  for (const ext of EXTENSIONS) if (files.has(stem + ext)) return stem + ext;
  return base;
}

function namedImportsAllTypes(clause: ts.ImportClause): boolean {
  const b = clause.namedBindings;
  return !clause.name && !!b && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
}

function refsOfFile(files: FileSet, file: string, text: string): ModuleRef[] {
  const sf = sourceFile(file, text);
  const out: ModuleRef[] = [];
  const add = (node: ts.Node, lit: ts.Expression | undefined, typeOnly: boolean): void => {
    if (!lit || !ts.isStringLiteralLike(lit)) return;
    const spec = lit.text;
    const target = spec.startsWith('.') ? resolveRelative(files, file, spec) : undefined;
    out.push({ file, line: lineOf(sf, node), spec, typeOnly, target });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const c = node.importClause;
      add(node, node.moduleSpecifier, !!c && (c.isTypeOnly || namedImportsAllTypes(c)));
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const computed = new WeakMap<FileSet, readonly ModuleRef[]>();

/** The module references of every TypeScript file in the set (computed once per set: four rules read them). */
export function moduleRefs(files: FileSet): readonly ModuleRef[] {
  let refs = computed.get(files);
  if (!refs) {
    const out: ModuleRef[] = [];
    for (const [file, text] of files) if (isTypeScript(file)) out.push(...refsOfFile(files, file, text));
    computed.set(files, (refs = out));
  }
  return refs;
}
