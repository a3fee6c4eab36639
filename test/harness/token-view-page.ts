// The token view (src/webview-ui/token-view) in real Chromium, outside VS Code: bundled here with
// esbuild as a webview bundle is (browser, iife, its CSS beside it), served under the same strict
// CSP as the extension's webviews (a nonce for the scripts, styles only from the webview origin:
// no inline style), with VS Code's theme variables. The page exposes the component and the token
// model's fromTensors as `window.__tv`; experiences cross as typed arrays' bytes (base64), the way
// a binary frame carries them. Used by the component test and the tokens bench.
import * as esbuild from 'esbuild';
import * as path from 'path';
import type { Browser, Page } from 'playwright-core';
import type { ExperienceTensors } from '../../src/tokens/experience';
import type { TokenViewStrings } from '../../src/tokens/view-strings';
import { launchChromium } from './browser';
import { repoRoot } from './paths';
import { THEMES } from './webview-page';

const ORIGIN = 'https://webview.agentrl.test';

/** What the page exposes (the bundle's stdin below). */
export interface TokenViewGlobal {
  TokenView: new (opts: { strings: TokenViewStrings; onCopy?: (json: string) => void }) => {
    element: unknown;
    show(e: unknown, notes?: string[]): void;
    search(q: string): number;
    jumpToLowest(): number;
    setColourMode(m: 'logprob' | 'mask' | 'advantage'): void;
    json(): string;
  };
  fromTensors(t: unknown, texts?: unknown): unknown;
  decode(b64: string, type: 'i32' | 'f32' | 'u8' | 'u32'): Int32Array | Float32Array | Uint8Array | Uint32Array;
}

const ENTRY = `
import { TokenView } from './src/webview-ui/token-view/token-view';
import { fromTensors } from './src/tokens/experience';
function decode(b64, type) {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const C = { i32: Int32Array, f32: Float32Array, u8: Uint8Array, u32: Uint32Array }[type];
  return new C(bytes.buffer, 0, bytes.length / C.BYTES_PER_ELEMENT);
}
window.__tv = { TokenView, fromTensors, decode };
`;

let bundle: Promise<{ js: string; css: string }> | undefined;

/** The component's bundle, built once per process. */
export function tokenViewBundle(): Promise<{ js: string; css: string }> {
  return (bundle ??= esbuild
    .build({
      stdin: { contents: ENTRY, resolveDir: repoRoot, loader: 'ts', sourcefile: 'token-view-entry.ts' },
      bundle: true,
      write: false,
      outdir: path.join(repoRoot, 'out', 'token-view-page'),
      platform: 'browser',
      target: 'chrome120',
      format: 'iife',
      logLevel: 'silent',
    })
    .then((r) => ({
      js: r.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '',
      css: r.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '',
    })));
}

export interface TokenViewPage {
  page: Page;
  browser: Browser;
  /** The CSP violations the page reported (none expected). */
  cspViolations: string[];
  close(): Promise<void>;
}

export async function openTokenViewPage(
  opts: { theme?: keyof typeof THEMES; viewport?: { width: number; height: number }; browser?: Browser } = {},
): Promise<TokenViewPage> {
  const { js, css } = await tokenViewBundle();
  const theme = THEMES[opts.theme ?? 'dark'];
  const nonce = `tv${Math.random().toString(36).slice(2)}`;
  const vars = Object.entries(theme.vars)
    .map(([k, v]) => `${k}: ${v};`)
    .join(' ');
  // The theme variables as VS Code sets them (on <html>) — from a stylesheet here, since the CSP allows no inline style.
  const themeCss = `html { ${vars} --vscode-editor-font-family: monospace; }`;
  const html = `<!DOCTYPE html><html><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${ORIGIN}; script-src 'nonce-${nonce}';">
<link rel="stylesheet" href="${ORIGIN}/theme.css"><link rel="stylesheet" href="${ORIGIN}/token-view.css"></head>
<body class="${theme.cls}"><div id="root"></div>
<script nonce="${nonce}" src="${ORIGIN}/token-view.js"></script></body></html>`;
  const browser = opts.browser ?? (await launchChromium());
  const page = await (await browser.newContext({ viewport: opts.viewport ?? { width: 1000, height: 800 } })).newPage();
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  await page.route(`${ORIGIN}/**`, (route) => {
    const p = new URL(route.request().url()).pathname;
    if (p === '/') return route.fulfill({ contentType: 'text/html', body: html });
    if (p === '/token-view.js') return route.fulfill({ contentType: 'text/javascript', body: js });
    if (p === '/token-view.css') return route.fulfill({ contentType: 'text/css', body: css });
    if (p === '/theme.css') return route.fulfill({ contentType: 'text/css', body: themeCss });
    return route.fulfill({ status: 404, body: '' });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => (globalThis as unknown as { __tv?: unknown }).__tv !== undefined);
  return {
    page,
    browser,
    cspViolations,
    close: async () => {
      if (!opts.browser) await browser.close();
      else await page.context().close();
    },
  };
}

const b64 = (a: ArrayBufferView): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

/** An experience's arrays as the page's decode() reads them back (ids i32, floats f32, mask u8, texts). */
export interface WireExperience {
  tokens: string;
  prompt_length: number;
  logprobs?: string;
  action_mask?: string;
  advantages?: string;
  truncate_status?: string | null;
  response_text?: string;
  texts?: { joined: string; offsets: string; flags: string; partialBytes: Record<number, string> };
}

export function toWire(
  t: ExperienceTensors & { tokens: Int32Array; logprobs?: Float32Array; action_mask?: Uint8Array; advantages?: Float32Array },
  texts?: { joined: string; offsets: Uint32Array; flags: Uint8Array; partialBytes: Record<number, string> },
): WireExperience {
  return {
    tokens: b64(t.tokens),
    prompt_length: t.prompt_length,
    logprobs: t.logprobs && b64(t.logprobs),
    action_mask: t.action_mask && b64(t.action_mask),
    advantages: t.advantages && b64(t.advantages),
    truncate_status: t.truncate_status,
    response_text: t.response_text ?? undefined,
    texts: texts && { joined: texts.joined, offsets: b64(texts.offsets), flags: b64(texts.flags), partialBytes: texts.partialBytes },
  };
}
