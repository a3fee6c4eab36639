// The online-training feature's host bundle (dist/online-host.js): what src/online/activate.ts
// loads on first use — the openai SDK, the feedback outbox, the playground.
import type * as vscode from 'vscode';
import type { Logger } from '../base/log';
import { OnlineHost } from './online-host';
import type { SnippetKind } from './playground/snippets';

export type { OnlineHost } from './online-host';
export type SnippetKindArg = SnippetKind;

export function createOnlineHost(context: vscode.ExtensionContext, log: Logger): OnlineHost {
  return new OnlineHost(context, log);
}
