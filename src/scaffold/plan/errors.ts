// The scaffold's two failures, so the command and the CLI can tell the user's fixable input
// (message already localized through the injected L10n of src/base/l10n.ts) from a failed write.

/** Bad input the user can fix: the message is already localized and says what to change. */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

/** Writing failed (permissions, disk full...): not the user's input; what was written is removed. */
export class ScaffoldWriteError extends ScaffoldError {}
