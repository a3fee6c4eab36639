// The playground webview's HTML: the metrics view's CSP (a nonce for our one script, no
// connect-src: no network from the webview), resources from media/ only.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function playgroundHtml(webview: vscode.Webview, media: vscode.Uri, lang: string, title: string): string {
  const nonce = randomBytes(18).toString('base64');
  const js = webview.asWebviewUri(vscode.Uri.joinPath(media, 'online.js'));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(media, 'online.css'));
  const csp = ["default-src 'none'", `img-src ${webview.cspSource} data:`, `style-src ${webview.cspSource}`, `font-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="${esc(lang)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}">
<title>${esc(title)}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
}
