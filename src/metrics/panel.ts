// The webview panel: strict CSP (src/webview-shell/webview-html.ts: a nonce for our one script, no
// connect-src: no network), local resources from media/ only, and a message pipe to the
// ViewController. The webview is not retained when hidden (memory): it sends `ready` again
// when shown and the controller replays the state, so a hidden panel loses nothing.
import * as vscode from 'vscode';
import { METRICS_VIEW_TYPE } from './protocol/view-protocol';
import { webviewHtml } from '../webview-shell/webview-html';
import type { ViewController } from './view/view-controller';

export function createPanel(): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(METRICS_VIEW_TYPE, vscode.l10n.t('Training Metrics'), vscode.ViewColumn.Active, {
    enableScripts: true,
    retainContextWhenHidden: false,
  });
}

/** Wires a (new or restored) panel to the controller; returns what to dispose with it. */
export function attachPanel(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, controller: ViewController, onDispose: () => void): vscode.Disposable {
  const media = vscode.Uri.joinPath(extensionUri, 'media');
  panel.webview.options = { enableScripts: true, localResourceRoots: [media] };
  panel.webview.html = html(panel.webview, media);
  controller.detach();
  const subs = [
    panel.webview.onDidReceiveMessage((m) => controller.receive(m)),
    panel.onDidChangeViewState(() => {
      // Hidden: the webview's document is gone; it says `ready` again when shown.
      if (!panel.visible) controller.detach();
    }),
    panel.onDidDispose(() => {
      controller.detach();
      for (const s of subs) s.dispose();
      onDispose();
    }),
  ];
  return {
    dispose: () => {
      panel.dispose();
    },
  };
}

function html(webview: vscode.Webview, media: vscode.Uri): string {
  return webviewHtml(webview, {
    script: vscode.Uri.joinPath(media, 'metrics.js'),
    style: vscode.Uri.joinPath(media, 'metrics.css'),
    lang: vscode.env.language,
    title: vscode.l10n.t('Training Metrics'),
  });
}
