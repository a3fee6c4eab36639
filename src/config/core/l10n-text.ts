// A finding's words are decided where it is found but read where it is shown (the language
// server, `agentrl check`), in the reader's language. So analysis keeps an English template
// with `{0}` placeholders and its arguments, written `l10n.t('Set engine_num to {0}', n)` —
// the same spelling as vscode.l10n.t, so the l10n test finds every literal template and checks
// its zh-cn entry in l10n/bundle.l10n.zh-cn.json — and `render` fills it in with an L10n
// (@vscode/l10n in the server and CLI, plain English elsewhere).
import { english, type L10n } from '../../base/l10n';

/** Bilingual documentation data (schema `x-zh`, registry names): too much to key in the bundle. */
export interface Doc {
  en: string;
  zh: string;
}

export const doc = (en: string, zh: string): Doc => ({ en, zh });

/** An English template with `{n}` placeholders and what fills them. */
export interface Template {
  readonly message: string;
  readonly args: readonly TextArg[];
}

/** Items joined with the reader's list separator (", " / "、"). */
export interface TextList {
  readonly list: readonly TextArg[];
}

/** Text shown as is in every language: a key path, a parser's own English message. */
export interface Verbatim {
  readonly verbatim: string;
}

export type Text = Template | TextList | Verbatim | Doc;
/** Plain values read as a template literal would (`undefined` included). */
export type TextArg = string | number | undefined | Text;

/** Deferred translation: the template is looked up only when the text is rendered. */
export const l10n = {
  t: (message: string, ...args: TextArg[]): Text => ({ message, args }),
};

export const list = (items: readonly TextArg[]): TextList => ({ list: items });

export const verbatim = (text: string): Verbatim => ({ verbatim: text });

/** Who reads the text: templates go through `l10n`, documentation data is picked by `locale`. */
export interface Lang {
  readonly l10n: L10n;
  readonly locale: string;
}

export const ENGLISH: Lang = { l10n: english, locale: 'en' };

/** Longest value shown whole in a message: a config may hold megabyte scalars (a pasted file,
 *  a generator gone wrong), and a finding that repeats one is unreadable in an editor or a log. */
const MAX_VALUE_CHARS = 200;

/** `s`, or its start and how much was left out. */
function clip(s: string, max = MAX_VALUE_CHARS): string {
  return s.length <= max ? s : `${s.slice(0, max - 40)}…(+${s.length - (max - 40)})`;
}

/** The text in the reader's language. */
export function render(text: Text, lang: Lang = ENGLISH): string {
  if ('verbatim' in text) return clip(text.verbatim, 2000);
  if ('en' in text) return lang.locale.toLowerCase().startsWith('zh') ? text.zh : text.en;
  const arg = (a: TextArg): string => (typeof a !== 'object' ? clip(String(a)) : render(a, lang));
  if ('list' in text) return text.list.map(arg).join(lang.l10n.t(', '));
  return lang.l10n.t(text.message, ...text.args.map(arg));
}
