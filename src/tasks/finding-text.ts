// A finding's words are decided here, where no language is known (the relay's node, the CLI, the
// extension host all read src/tasks), but read in the Tasks view and the terminal in the reader's
// language. So a finding keeps its sentence as an English template with `{n}` placeholders and
// the values that fill them, written `l10n.t('… {0}', x)` — the spelling of vscode.l10n.t, so the
// l10n test finds every template and checks its zh-cn entry in l10n/bundle.l10n.zh-cn.json — and
// the reader fills it in (`render`): vscode.l10n in the view, English or the zh-cn bundle in
// `agentrl tasks`. Values are names and numbers, shown as they are in every language.
import { english, type L10n } from '../base/l10n';

/** An English template and what fills its `{n}` placeholders. */
export interface FindingText {
  message: string;
  args: (string | number)[];
}

/** Deferred translation: the template is looked up only when the text is rendered. */
export const l10n = {
  t: (message: string, ...args: (string | number)[]): FindingText => ({ message, args }),
};

/** The text in the reader's language (English without one). */
export function render(text: FindingText, lang: L10n = english): string {
  return lang.t(text.message, ...text.args);
}
