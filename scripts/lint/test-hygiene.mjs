// Tests that cannot fail for the right reason, found on the syntax tree of every test file
// outside test/bench (where timing is the point):
//   wall-clock      an assertion on the machine's clock (Date.now(), performance.now(),
//                   process.hrtime, or a value computed from one): it fails when the machine is
//                   loaded and passes when it is not. Wait with until() (test/harness/wait.ts),
//                   take the clock as a parameter and use fake timers, or measure in a bench.
//   passes-missing  a test that returns early when the file it checks is missing: it passes
//                   without checking anything. Assert that the file is there (or skip, saying why).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** @typedef {{ file: string, line: number, rule: string, message: string }} Finding */

const CHECKED = /^test\/(?!bench\/|fixtures\/).+\.ts$/;
/** Assertion methods → how many leading arguments are the asserted values (the rest: message). */
const ASSERTS = {
  ok: 1,
  equal: 2,
  notEqual: 2,
  strictEqual: 2,
  notStrictEqual: 2,
  deepEqual: 2,
  deepStrictEqual: 2,
  notDeepEqual: 2,
  notDeepStrictEqual: 2,
  match: 1,
  doesNotMatch: 1,
  fail: 0,
};
/** Calls a clock value passes through unchanged in kind. */
const PASS_THROUGH = /^(Math\.\w+|Number|BigInt|Object\.(entries|values)|Array\.from|String)$/;
const TEST_CALLS = new Set(['test', 'it', 'specify']);

/**
 * @param {string} root  the repository
 * @param {string[]} files  repo-relative paths (repo-files.mjs)
 * @returns {Finding[]}
 */
export function testHygiene(root, files) {
  const findings = [];
  for (const file of files.filter((f) => CHECKED.test(f))) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const at = (node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    // node:test's mock timers (or sinon's) replace Date: Date.now() is then the test's own clock
    const fakeDate = /\.timers\.enable\((\s*\)|[^)]*['"]Date['"])|useFakeTimers\(/.test(text);
    const timed = clockNames(sf, fakeDate);
    const readsClock = (node) => refersTo(node, timed, fakeDate);
    const visit = (node) => {
      if (ts.isCallExpression(node)) {
        const arity = assertArity(node.expression);
        if (arity !== undefined && node.arguments.slice(0, arity).some(readsClock)) {
          findings.push({ file, line: at(node), rule: 'wall-clock', message: `asserts on the clock: ${oneLine(node.getText(sf))}` });
        }
        const callee = node.expression;
        if (ts.isIdentifier(callee) && TEST_CALLS.has(callee.text)) {
          const body = node.arguments.find((a) => ts.isFunctionLike(a))?.body;
          if (body && ts.isBlock(body))
            for (const s of body.statements) {
              const missing = earlyPass(s, sf);
              if (missing) findings.push({ file, line: at(s), rule: 'passes-missing', message: `returns early, passing, when ${missing} is missing` });
            }
        }
      }
      node.forEachChild(visit);
    };
    visit(sf);
  }
  return findings;
}

/** `assert(…)`, `assert.ok(…)`, `assert.strict.equal(…)`, `t.assert.ok(…)`: the asserted arguments' count. */
function assertArity(callee) {
  if (ts.isIdentifier(callee)) return callee.text === 'assert' ? 1 : undefined;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const text = callee.expression.getText();
  if (!/(^|\.)assert(\.strict)?$/.test(text)) return undefined;
  return ASSERTS[callee.name.text];
}

function isClockCall(node, fakeDate) {
  if (!ts.isCallExpression(node)) return false;
  const t = node.expression.getText();
  return (t === 'Date.now' && !fakeDate) || t === 'performance.now' || /^process\.hrtime(\.bigint)?$/.test(t);
}

/** Names in the file whose value is computed from a clock reading (to a fixpoint). */
function clockNames(sf, fakeDate) {
  /** @type {Array<[string[], ts.Node]>} names ← expression */
  const flows = [];
  const namesOf = (b) =>
    ts.isIdentifier(b)
      ? [b.text]
      : ts.isArrayBindingPattern(b) || ts.isObjectBindingPattern(b)
        ? b.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : namesOf(e.name)))
        : [];
  const target = (e) => {
    while (ts.isElementAccessExpression(e) || ts.isPropertyAccessExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    return ts.isIdentifier(e) ? [e.text] : ts.isArrayLiteralExpression(e) ? e.elements.flatMap(target) : [];
  };
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && node.initializer) flows.push([namesOf(node.name), node.initializer]);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment)
      flows.push([target(node.left), node.right]);
    if (ts.isForOfStatement(node) && ts.isVariableDeclarationList(node.initializer))
      for (const d of node.initializer.declarations) flows.push([namesOf(d.name), node.expression]);
    node.forEachChild(visit);
  };
  visit(sf);
  const names = new Set();
  for (let grew = true; grew;) {
    grew = false;
    for (const [targets, expr] of flows) {
      if (targets.every((n) => names.has(n)) || !refersTo(expr, names, fakeDate)) continue;
      for (const n of targets) names.add(n);
      grew = true;
    }
  }
  return names;
}

/** Whether `node` reads a clock, or one of `names`, other than through a call's arguments. */
function refersTo(node, names, fakeDate) {
  if (isClockCall(node, fakeDate)) return true;
  if (ts.isIdentifier(node)) return names.has(node.text) && !isPropertyName(node);
  if (ts.isFunctionLike(node)) return false;
  if (ts.isCallExpression(node) && !PASS_THROUGH.test(node.expression.getText())) return refersTo(node.expression, names, fakeDate);
  let found = false;
  node.forEachChild((c) => {
    found ||= refersTo(c, names, fakeDate);
  });
  return found;
}

function isPropertyName(id) {
  const p = id.parent;
  return (ts.isPropertyAccessExpression(p) && p.name === id) || (ts.isPropertyAssignment(p) && p.name === id);
}

/** `if (!fs.existsSync(x)) return;` (or a block holding only that return): what it checks. */
function earlyPass(s, sf) {
  if (!ts.isIfStatement(s) || s.elseStatement) return undefined;
  const then = ts.isBlock(s.thenStatement) && s.thenStatement.statements.length === 1 ? s.thenStatement.statements[0] : s.thenStatement;
  if (!ts.isReturnStatement(then)) return undefined;
  const m = /!\s*(?:fs\.)?existsSync\(([^)]*)\)/.exec(s.expression.getText(sf));
  return m ? m[1] : undefined;
}

const oneLine = (s) => s.replace(/\s+/g, ' ').slice(0, 120);
