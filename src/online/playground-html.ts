// The playground webview's HTML: the shell every webview of the extension shares
// (src/webview-shell/webview-html.ts: a nonce for our one script, no connect-src: no network from
// the webview), with the playground's bundle from media/.
import * as vscode from 'vscode';
import { webviewHtml } from '../webview-shell/webview-html';

export function playgroundHtml(webview: vscode.Webview, media: vscode.Uri, lang: string, title: string): string {
  return webviewHtml(webview, {
    script: vscode.Uri.joinPath(media, 'online.js'),
    style: vscode.Uri.joinPath(media, 'online.css'),
    lang,
    title,
  });
}
