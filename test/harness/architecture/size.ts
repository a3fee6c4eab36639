// Rules 3 and 4 of issue 17: a file is at most 600 lines, a class or a function (methods,
// constructors, accessors, function expressions and arrow functions included) at most 200.
// TypeScript is measured on its syntax tree; Python by indentation, which is how Python
// delimits a def or a class.
import ts from 'typescript';
import { type FileSet, type Violation, isTypeScript, sortViolations, sourceFile } from './files';

export const MAX_FILE_LINES = 600;
export const MAX_UNIT_LINES = 200;

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

function propertyName(name: ts.PropertyName | ts.BindingName | undefined): string | undefined {
  if (!name) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteralLike(name) || ts.isNumericLiteral(name) || ts.isPrivateIdentifier(name)) return name.text;
  return undefined;
}

function className(node: ts.Node): string {
  const c = node.parent;
  return (c && (ts.isClassDeclaration(c) || ts.isClassExpression(c)) && c.name?.text) || '<class>';
}

/** What the unit is called in a report: `class Store`, `method Store.load`, `function activate`, `arrow function handler`. */
function describeUnit(node: ts.Node): string | undefined {
  if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) return `class ${node.name?.text ?? holderName(node) ?? '<anonymous>'}`;
  if (ts.isFunctionDeclaration(node)) return `function ${node.name?.text ?? 'default'}`;
  if (ts.isConstructorDeclaration(node)) return `constructor of ${className(node)}`;
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const owner = ts.isObjectLiteralExpression(node.parent) ? holderName(node.parent) ?? '<object>' : className(node);
    return `method ${owner}.${propertyName(node.name) ?? '<computed>'}`;
  }
  if (ts.isArrowFunction(node)) return `arrow function ${holderName(node) ?? '<anonymous>'}`;
  if (ts.isFunctionExpression(node)) return `function ${node.name?.text ?? holderName(node) ?? '<anonymous>'}`;
  return undefined;
}

/** The name an expression is bound to: `const x = …`, `{ x: … }`, a class field `x = …`. */
function holderName(node: ts.Node): string | undefined {
  const p = node.parent;
  if (!p) return undefined;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) return propertyName(p.name);
  if (ts.isPropertyDeclaration(p)) return `${className(p)}.${propertyName(p.name) ?? '<computed>'}`;
  return undefined;
}

function longTsUnits(file: string, text: string, max: number): Violation[] {
  const sf = sourceFile(file, text);
  const out: Violation[] = [];
  const visit = (node: ts.Node): void => {
    const what = describeUnit(node);
    if (what) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const n = sf.getLineAndCharacterOfPosition(node.getEnd()).line - start + 1;
      if (n > max) out.push({ file, line: start + 1, reason: `${what} has ${n} lines (max ${max})` });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Python defs and classes: from the header to the last line indented deeper (blank lines, comments and string bodies skipped). */
function longPyUnits(file: string, text: string, max: number): Violation[] {
  const lines = text.split('\n');
  const indent = (s: string): number => s.length - s.trimStart().length;
  // Lines inside triple-quoted strings say nothing about indentation.
  const inString: boolean[] = [];
  let open: string | undefined;
  for (const l of lines) {
    inString.push(open !== undefined);
    for (const m of l.matchAll(/"""|'''/g)) open = open === undefined ? m[0] : open === m[0] ? undefined : open;
  }
  const out: Violation[] = [];
  lines.forEach((l, i) => {
    const m = /^(\s*)(?:async\s+def|def|class)\s+(\w+)/.exec(l);
    if (!m || inString[i]) return;
    const base = m[1].length;
    let last = i;
    for (let j = i + 1; j < lines.length; j++) {
      const s = lines[j];
      if (inString[j] || s.trim() === '' || s.trimStart().startsWith('#')) continue;
      if (indent(s) <= base && !/^\s*[)\]}]/.test(s)) break;
      last = j;
    }
    const n = last - i + 1;
    if (n > max) out.push({ file, line: i + 1, reason: `${l.trimStart().startsWith('class') ? 'class' : 'function'} ${m[2]} has ${n} lines (max ${max})` });
  });
  return out;
}

/** Rule 4: classes and functions over 200 lines in src/**\/*.ts and src/**\/*.py. */
export function longUnits(files: FileSet, max = MAX_UNIT_LINES): Violation[] {
  const out: Violation[] = [];
  for (const [file, text] of files) {
    if (isTypeScript(file) && !file.endsWith('.d.ts')) out.push(...longTsUnits(file, text, max));
    else if (file.endsWith('.py')) out.push(...longPyUnits(file, text, max));
  }
  return sortViolations(out);
}
