// An architecture rule: user-visible text goes through vscode.l10n.t (or an injected `l10n.t`, or
// a strings module that calls it), so every message has a zh-cn translation. The rule looks at
// the places VS Code shows text — notification messages and their buttons, quick pick / input
// box / progress options, webview panel titles, tree items, status bar items, markdown; in UI
// files (adapters, i.e. files that import vscode, and webviews, src/<feature>/webview/**) any
// `.text`/`.tooltip`/`.textContent`/… assignment, `setAttribute('title'|'aria-label'|…)`, or
// `label:`/`title:`/… property — and flags a string or template literal there whose fixed part has words.
// Also: an l10n.t message must be one literal (placeholders as {0}), or it cannot be translated.
import ts from 'typescript';
import { type FileSet, type Violation, isTypeScript, lineOf, sortViolations, sourceFile } from './files';
import { moduleRefs } from './imports';

/** Call or `new` name → which arguments are shown to the user ('all' = every argument). */
const TEXT_ARGS: ReadonlyMap<string, readonly number[] | 'all'> = new Map<string, readonly number[] | 'all'>([
  ['showInformationMessage', 'all'],
  ['showWarningMessage', 'all'],
  ['showErrorMessage', 'all'],
  ['setStatusBarMessage', [0]],
  ['createWebviewPanel', [1]],
  ['TreeItem', [0]],
  ['MarkdownString', [0]],
  ['Diagnostic', [1]],
]);

/** Calls whose options objects (any object-literal argument) hold user-visible text under these keys. */
const OPTION_CALLS = new Set([
  'showInformationMessage',
  'showWarningMessage',
  'showErrorMessage',
  'showQuickPick',
  'showInputBox',
  'withProgress',
  'report',
  'TreeItem',
]);

/** Keys of those options objects (and quick pick items) whose value the user reads; `message` is progress.report's. */
const OPTION_KEYS = new Set(['title', 'placeHolder', 'placeholder', 'prompt', 'label', 'description', 'detail', 'tooltip', 'message', 'text']);

/** The same keys in any object literal of a UI file, but `message`: there it is mostly a log line or a protocol field. */
const UI_OBJECT_KEYS = new Set([...OPTION_KEYS].filter((k) => k !== 'message'));

/** Property assignments that show text, in UI files: statusBar.text, item.tooltip, quickPick.title, el.textContent… */
const TEXT_PROPERTIES = new Set([
  'text',
  'tooltip',
  'label',
  'description',
  'detail',
  'title',
  'placeholder',
  'prompt',
  'message',
  'textContent',
  'innerText',
  'ariaLabel',
]);

/** DOM attributes the user reads (or hears), in webviews: el.setAttribute('aria-label', …). */
const TEXT_ATTRIBUTES = new Set(['title', 'aria-label', 'placeholder', 'alt']);

/** Webview sources: the DOM side of a feature's UI (no vscode.l10n there; strings come from the host). */
const isWebview = (file: string): boolean => /^src\/[^/]+\/webview\//.test(file);

function nameOf(callee: ts.Expression): string | undefined {
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** An `l10n.t(…)` call: vscode.l10n.t, an injected l10n.t, this.l10n.t. */
export function isL10nCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression) || node.expression.name.text !== 't') return false;
  const owner = node.expression.expression;
  return (ts.isIdentifier(owner) && owner.text === 'l10n') || (ts.isPropertyAccessExpression(owner) && owner.name.text === 'l10n');
}

/** The literals an expression's text is built from (through ?:, +, ??, ||, parentheses, casts); calls and names are opaque. */
function literalsOf(e: ts.Expression): Array<ts.StringLiteralLike | ts.TemplateExpression> {
  if (ts.isStringLiteralLike(e) || ts.isTemplateExpression(e)) return [e];
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) return literalsOf(e.expression);
  if (ts.isConditionalExpression(e)) return [...literalsOf(e.whenTrue), ...literalsOf(e.whenFalse)];
  if (ts.isBinaryExpression(e) && [ts.SyntaxKind.PlusToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind)) {
    return [...literalsOf(e.left), ...literalsOf(e.right)];
  }
  return [];
}

/**
 * The fixed text of a literal without what reads the same in every language: codicons `$(name)`,
 * `{0}` placeholders, URLs, and acronyms (CSV, JSON — but not OK, which is translated).
 */
function fixedText(lit: ts.StringLiteralLike | ts.TemplateExpression): string {
  const raw = ts.isTemplateExpression(lit) ? [lit.head.text, ...lit.templateSpans.map((s) => s.literal.text)].join(' ') : lit.text;
  return raw
    .replace(/\$\([\w~-]+\)/g, ' ')
    .replace(/\{\d+\}/g, ' ')
    .replace(/\b[a-z][\w+.-]*:\/\/\S*/gi, ' ')
    .replace(/\b(?!OK\b)[A-Z][A-Z0-9]+\b/g, ' ');
}

/** Words a user reads: a letter left in the fixed text. Punctuation, numbers and pure interpolation pass. */
export const hasWords = (lit: ts.StringLiteralLike | ts.TemplateExpression): boolean => /\p{L}/u.test(fixedText(lit));

function quote(lit: ts.Node, sf: ts.SourceFile): string {
  const s = lit.getText(sf).replace(/\s+/g, ' ');
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

function fileViolations(file: string, text: string, ui: boolean): Violation[] {
  const sf = sourceFile(file, text);
  const out: Violation[] = [];
  const seen = new Set<ts.Node>();
  const check = (e: ts.Expression | undefined, where: string): void => {
    if (!e) return;
    for (const lit of literalsOf(e)) {
      if (seen.has(lit) || !hasWords(lit)) continue;
      seen.add(lit);
      out.push({ file, line: lineOf(sf, lit), reason: `${quote(lit, sf)} as ${where} bypasses l10n: use vscode.l10n.t (or a strings module)` });
    }
  };
  const checkObject = (o: ts.ObjectLiteralExpression, where: string, keys = OPTION_KEYS): void => {
    for (const p of o.properties) {
      if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && keys.has(p.name.text))
        check(p.initializer, `${where} ${p.name.text}`);
    }
  };
  const visit = (node: ts.Node): void => {
    if (isL10nCall(node)) {
      const msg = node.arguments[0];
      if (msg && !ts.isStringLiteralLike(msg) && literalsOf(msg).length > 0) {
        out.push({
          file,
          line: lineOf(sf, msg),
          reason: `l10n.t message ${quote(msg, sf)} is built at run time: one literal with {0} placeholders, or it cannot be translated`,
        });
      }
    } else if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const name = nameOf(node.expression);
      const args = [...(node.arguments ?? [])];
      const positions = name ? TEXT_ARGS.get(name) : undefined;
      args.forEach((a, i) => {
        if (positions === 'all' || positions?.includes(i)) check(a, `${name} text`);
        if (name && OPTION_CALLS.has(name) && ts.isObjectLiteralExpression(a)) checkObject(a, `${name} option`);
        if (ui && name === 'setAttribute' && i === 1 && ts.isStringLiteralLike(args[0]) && TEXT_ATTRIBUTES.has(args[0].text))
          check(a, `${args[0].text} attribute`);
        if (name === 'showQuickPick' && ts.isArrayLiteralExpression(a)) {
          for (const el of a.elements) {
            if (ts.isObjectLiteralExpression(el)) checkObject(el, 'quick pick item');
            else check(el, 'quick pick item');
          }
        }
      });
    } else if (
      ui &&
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(node.left) &&
      TEXT_PROPERTIES.has(node.left.name.text)
    ) {
      check(node.right, `.${node.left.name.text}`);
    } else if (ui && ts.isObjectLiteralExpression(node) && !isL10nCall(node.parent)) {
      checkObject(node, 'property', UI_OBJECT_KEYS);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Rule 6: user-visible string literals that bypass l10n, and l10n.t messages that cannot be translated. */
export function l10nBypasses(files: FileSet): Violation[] {
  const adapters = new Set(
    moduleRefs(files)
      .filter((r) => r.spec === 'vscode')
      .map((r) => r.file),
  );
  const out: Violation[] = [];
  for (const [file, text] of files) {
    if (isTypeScript(file) && !file.endsWith('.d.ts')) out.push(...fileViolations(file, text, adapters.has(file) || isWebview(file)));
  }
  return sortViolations(out);
}

export interface L10nMessage {
  readonly file: string;
  readonly line: number;
  /** The bundle key: the message exactly as the source spells it once escapes are read. */
  readonly message: string;
}

/** Every literal message of an l10n.t call (`l10n.t('…')` or `l10n.t({ message: '…' })`). */
export function l10nMessages(files: FileSet): L10nMessage[] {
  const out: L10nMessage[] = [];
  for (const [file, text] of files) {
    if (!isTypeScript(file) || file.endsWith('.d.ts')) continue;
    const sf = sourceFile(file, text);
    const visit = (node: ts.Node): void => {
      if (isL10nCall(node) && node.arguments.length) {
        let msg: ts.Expression | undefined = node.arguments[0];
        if (ts.isObjectLiteralExpression(msg)) {
          const p = msg.properties.find((q): q is ts.PropertyAssignment => ts.isPropertyAssignment(q) && ts.isIdentifier(q.name) && q.name.text === 'message');
          msg = p?.initializer;
        }
        if (msg && ts.isStringLiteralLike(msg)) out.push({ file, line: lineOf(sf, msg), message: msg.text });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** l10n.t messages with no entry in a bundle (e.g. l10n/bundle.l10n.zh-cn.json). */
export function untranslated(files: FileSet, bundle: Readonly<Record<string, unknown>>): Violation[] {
  return sortViolations(
    l10nMessages(files)
      .filter((m) => typeof bundle[m.message] !== 'string')
      .map((m) => ({ file: m.file, line: m.line, reason: `l10n message ${JSON.stringify(m.message)} has no translation in the bundle` })),
  );
}
