// The online-training feature's part of activate(): registers its commands and the panel
// serializer; the implementation (dist/online-host.js: openai SDK, outbox, playground) loads
// on first use.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/lazy';
import { asPromise } from '../base/promise';
import type { Logger } from '../base/log';
import { ONLINE_CONNECT } from '../feature-api/commands';
import { ONLINE_VIEW_TYPE } from './protocol/playground-protocol';
import type * as Host from './host';

export interface OnlineApi {
  /** The loaded host (loads it). */
  host(): Host.OnlineHost;
}

export function activateOnline(context: vscode.ExtensionContext, log: Logger): OnlineApi {
  const load = lazyBundle<typeof Host>('online-host');
  let host: Host.OnlineHost | undefined;
  const get = (): Host.OnlineHost => {
    if (!host) {
      host = load().createOnlineHost(context, log);
      context.subscriptions.push(host);
    }
    return host;
  };
  context.subscriptions.push(
    ONLINE_CONNECT.register(vscode.commands, (arg) =>
      get()
        .connect(arg)
        .then((c) => !!c),
    ),
    vscode.commands.registerCommand('agentrl.online.playground', () =>
      get()
        .show()
        .then(() => true),
    ),
    vscode.commands.registerCommand('agentrl.online.insertClient', (kind?: Host.SnippetKindArg) => get().insertClient(kind)),
    vscode.window.registerWebviewPanelSerializer(ONLINE_VIEW_TYPE, {
      deserializeWebviewPanel: (panel) => asPromise(() => void get().adopt(panel)),
    }),
  );
  return { host: get };
}
