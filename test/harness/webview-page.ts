// The metrics webview bundle (media/metrics.js + .css) in real Chromium, outside VS Code,
// wired to a real ViewController in this process: the page gets the same strict CSP as in
// VS Code, theme CSS variables and body class as VS Code sets them, and an
// acquireVsCodeApi() whose postMessage calls back into node. Host messages cross as VS Code
// sends them: JSON text (webview.postMessage serializes with JSON.stringify), parsed in the
// page and dispatched with window.postMessage — not as Playwright's evaluate arguments, whose
// per-value protocol costs a 50-chart update hundreds of ms that VS Code does not spend.
// Used by the view bench and by
// fast browser tests of the view; the e2e tests use the real workbench instead.
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser';
import { repoRoot } from './paths';

const ORIGIN = 'https://webview.agentrl.test';

/** A few of the variables VS Code defines in webviews (Default Dark/Light Modern). */
export const THEMES = {
  dark: {
    cls: 'vscode-dark',
    vars: {
      '--vscode-foreground': '#cccccc',
      '--vscode-editor-foreground': '#cccccc',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-charts-foreground': '#cccccc',
      '--vscode-charts-lines': 'rgba(204,204,204,0.5)',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-green': '#89d185',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-charts-red': '#f14c4c',
      '--vscode-charts-yellow': '#cca700',
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-size': '12px',
    },
  },
  light: {
    cls: 'vscode-light',
    vars: {
      '--vscode-foreground': '#3b3b3b',
      '--vscode-editor-foreground': '#3b3b3b',
      '--vscode-editor-background': '#ffffff',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-charts-foreground': '#616161',
      '--vscode-charts-lines': 'rgba(97,97,97,0.5)',
      '--vscode-charts-blue': '#1a85ff',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-green': '#388a34',
      '--vscode-charts-purple': '#652d90',
      '--vscode-charts-red': '#e51400',
      '--vscode-charts-yellow': '#bf8803',
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-size': '12px',
    },
  },
};

export interface WebviewPage {
  page: Page;
  browser: Browser;
  /**
   * Sends a host message into the page (what webview.postMessage does in VS Code): true once
   * the page has it; false, never a rejection, once the page is closed or closing — as VS Code
   * answers a post to a disposed webview — since a host answers page messages without awaiting.
   */
  post(msg: unknown): Promise<boolean>;
  /** Closes the page; messages it sends from then on no longer reach `onMessage`. */
  close(): Promise<void>;
}

export async function openWebviewPage(opts: {
  onMessage: (m: unknown) => void;
  theme?: keyof typeof THEMES;
  viewport?: { width: number; height: number };
  browser?: Browser;
  /** Which webview bundle (media/<bundle>.js + .css; default the metrics view). */
  bundle?: string;
}): Promise<WebviewPage> {
  const js = fs.readFileSync(path.join(repoRoot, 'media', `${opts.bundle ?? 'metrics'}.js`));
  const css = fs.readFileSync(path.join(repoRoot, 'media', `${opts.bundle ?? 'metrics'}.css`));
  const theme = THEMES[opts.theme ?? 'dark'];
  const nonce = 'bench' + Math.random().toString(36).slice(2);
  const style = Object.entries(theme.vars)
    .map(([k, v]) => `${k}: ${v};`)
    .join(' ');
  const html = `<!DOCTYPE html><html style="${style}"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${ORIGIN} data:; style-src ${ORIGIN}; script-src 'nonce-${nonce}' ${ORIGIN}/shim.js;">
<link rel="stylesheet" href="${ORIGIN}/metrics.css"></head>
<body class="${theme.cls}"><div id="root"></div>
<script nonce="${nonce}" src="${ORIGIN}/shim.js"></script>
<script nonce="${nonce}" src="${ORIGIN}/metrics.js"></script></body></html>`;
  const shim = `window.acquireVsCodeApi = () => { let st; return {
    postMessage: (m) => window.__toHost(m), getState: () => st, setState: (s) => (st = s) }; };`;
  const browser = opts.browser ?? (await launchChromium());
  const page = await (await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 900 } })).newPage();
  // Messages sent while the page loads (the `ready`) wait until this function has returned.
  let started = false;
  let closed = false;
  const early: unknown[] = [];
  await page.exposeFunction('__toHost', (m: unknown) => {
    if (closed) return;
    if (started) opts.onMessage(m);
    else early.push(m);
  });
  await page.route(`${ORIGIN}/**`, (route) => {
    const p = new URL(route.request().url()).pathname;
    if (p === '/') return route.fulfill({ contentType: 'text/html', body: html });
    if (p === '/metrics.js') return route.fulfill({ contentType: 'text/javascript', body: js });
    if (p === '/metrics.css') return route.fulfill({ contentType: 'text/css', body: css });
    if (p === '/shim.js') return route.fulfill({ contentType: 'text/javascript', body: shim });
    return route.fulfill({ status: 404, body: '' });
  });
  await page.goto(`${ORIGIN}/`);
  setTimeout(() => {
    started = true;
    for (const m of early.splice(0)) if (!closed) opts.onMessage(m);
  }, 0);
  const post = async (msg: unknown): Promise<boolean> => {
    const json = JSON.stringify(msg); // one that cannot be serialized rejects, as in VS Code
    if (closed) return false;
    try {
      await page.evaluate((text) => (globalThis as unknown as { postMessage(m: unknown, o: string): void }).postMessage(JSON.parse(text), '*'), json);
      return true;
    } catch (e) {
      // Closed while the message crossed: dropped, as VS Code drops it. Any other error is real.
      if (closed || page.isClosed()) return false;
      throw e;
    }
  };
  return {
    page,
    browser,
    post,
    close: async () => {
      closed = true;
      if (!opts.browser) await browser.close();
      else await page.context().close();
    },
  };
}
