// The HTML shell of the extension's webviews (the metrics view, the online playground): a
// strict CSP — a fresh nonce for our one script, styles, fonts and images from the
// extension only, no connect-src, so the webview cannot reach the network — one script,
// one stylesheet and an empty #root the script fills. No vscode import: the caller passes
// the webview (or anything with its two members) and the URIs of its bundle.
import { randomBytes } from 'node:crypto';

/** The parts of a vscode.Webview the shell needs. */
export interface WebviewLike<U> {
  readonly cspSource: string;
  asWebviewUri(local: U): { toString(): string };
}

export interface WebviewShell<U> {
  /** The script bundle and its stylesheet (local URIs, e.g. under media/). */
  script: U;
  style: U;
  /** The document's language (vscode.env.language) and title. */
  lang: string;
  title: string;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The Content-Security-Policy of a webview whose one script carries this nonce. */
export function webviewCsp(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `img-src ${cspSource} data:`, `style-src ${cspSource}`, `font-src ${cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
}

export function webviewHtml<U>(webview: WebviewLike<U>, shell: WebviewShell<U>): string {
  const nonce = randomBytes(18).toString('base64');
  const js = webview.asWebviewUri(shell.script).toString();
  const css = webview.asWebviewUri(shell.style).toString();
  return `<!DOCTYPE html>
<html lang="${escapeHtml(shell.lang)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${webviewCsp(webview.cspSource, nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}">
<title>${escapeHtml(shell.title)}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
}
