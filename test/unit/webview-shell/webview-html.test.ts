// The webview shell both the metrics view and the playground use: a strict CSP with a fresh
// nonce on the one script, the bundle's URIs as the webview maps them, escaped text.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { webviewCsp, webviewHtml } from '../../../src/webview-shell/webview-html';

const webview = { cspSource: 'https://file+.vscode-resource.test', asWebviewUri: (p: string) => `https://file+.vscode-resource.test/ext/${p}` };

test('webview shell: strict CSP, nonce on the one script, mapped URIs, escaped text', () => {
  const html = webviewHtml(webview, { script: 'media/metrics.js', style: 'media/metrics.css', lang: 'zh-cn', title: 'A <b>&"title' });
  const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1];
  const nonce = /<script nonce="([^"]+)" src="https:\/\/file\+\.vscode-resource\.test\/ext\/media\/metrics\.js"><\/script>/.exec(html)?.[1];
  assert.ok(nonce && nonce.length >= 16, 'the script carries a nonce');
  assert.equal(csp, webviewCsp(webview.cspSource, nonce));
  assert.match(csp, /^default-src 'none'; /);
  assert.match(csp, new RegExp(`script-src 'nonce-${nonce.replace(/[+/]/g, '\\$&')}'$`));
  assert.doesNotMatch(csp, /connect-src|unsafe-inline|unsafe-eval/, 'no network, no inline code');
  assert.match(html, /<link rel="stylesheet" href="https:\/\/file\+\.vscode-resource\.test\/ext\/media\/metrics\.css">/);
  assert.match(html, /<html lang="zh-cn">/);
  assert.match(html, /<title>A &#60;b&#62;&#38;&#34;title<\/title>/);
  assert.equal((html.match(/<script/g) ?? []).length, 1, 'one script');
  assert.match(html, /<div id="root"><\/div>/);
});

test('webview shell: a fresh nonce every time', () => {
  const shell = { script: 'a.js', style: 'a.css', lang: 'en', title: 't' };
  const nonceOf = (h: string) => /<script nonce="([^"]+)"/.exec(h)?.[1];
  assert.notEqual(nonceOf(webviewHtml(webview, shell)), nonceOf(webviewHtml(webview, shell)));
});
