// The messages between the debugger's token panel (vscode/tokens-panel.ts) and its webview (webview/tokens-main.ts).
import type { ExperienceWire } from '../../tokens/experience-wire';
import type { TokenViewStrings } from '../../tokens/view-strings';

export type TokensHostMessage = { type: 'show'; experience: ExperienceWire; notes: string[]; strings: TokenViewStrings };

export type TokensWebviewMessage = { type: 'ready' } | { type: 'copy'; json: string };
