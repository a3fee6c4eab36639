// The debugger's token panel in the webview (bundled by esbuild into media/debug-tokens.js): one
// LLM call, or an experience an episode returned with its turns and mask warnings, in the token view. No network (the CSP forbids it): the call comes from the host.
import { fromWire } from '../../tokens/experience-wire';
import { TokenView } from '../../webview-ui/token-view/token-view';
import type { TokensHostMessage, TokensWebviewMessage } from '../protocol/token-panel-protocol';

const vscode = acquireVsCodeApi();
const post = (m: TokensWebviewMessage) => vscode.postMessage(m);
const root = document.getElementById('root')!;
let view: TokenView | undefined;

window.addEventListener('message', (ev: MessageEvent<TokensHostMessage>) => {
  const m = ev.data;
  if (m?.type !== 'show') return;
  view ??= new TokenView({ strings: m.strings, onCopy: (json) => post({ type: 'copy', json }) });
  if (!view.element.isConnected) root.append(view.element);
  view.show(fromWire(m.experience), m.notes, m.marks);
});
post({ type: 'ready' });
