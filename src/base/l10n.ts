// User-facing text of modules that must not import vscode (the debug adapter's protocol
// layer and runtime, the scaffold's plan) goes through an injected `l10n.t(message, ...args)`:
// vscode.l10n in the extension (English + l10n/bundle.l10n.zh-cn.json), plain English in the CLI
// and tests. VS Code's `{0}` placeholders; every literal is checked for a zh-cn translation
// (test/unit/l10n.test.ts).

export interface L10n {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

/** English with `{n}` placeholders filled in. */
export const english: L10n = {
  t: (message, ...args) => message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)),
};
