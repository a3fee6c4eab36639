// User-facing text of the pure scaffold modules goes through an injected `l10n.t(message, ...args)`:
// vscode.l10n in the extension (English + the l10n bundles), plain English in the CLI. Messages
// use VS Code's `{0}` placeholders, and every literal is checked for a zh-cn translation.

export interface L10n {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

/** English with `{n}` placeholders filled in: the CLI's localizer. */
export const english: L10n = {
  t: (message, ...args) => message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)),
};

/** Bad input the user can fix: the message is already localized and says what to change. */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

/** Writing failed (permissions, disk full...): not the user's input; what was written is removed. */
export class ScaffoldWriteError extends ScaffoldError {}
