// The messages between the debugger's token panel (vscode/tokens-panel.ts) and its webview (webview/tokens-main.ts).
import type { ExperienceWire } from '../../tokens/experience-wire';
import type { TokenViewStrings } from '../../tokens/view-strings';
import type { TokenMarks } from '../../webview-ui/token-view/marks';

/** `marks`: the turns and warned spans of an experience an episode returned. */
export type TokensHostMessage = { type: 'show'; experience: ExperienceWire; notes: string[]; strings: TokenViewStrings; marks?: TokenMarks };

export type TokensWebviewMessage = { type: 'ready' } | { type: 'copy'; json: string };
