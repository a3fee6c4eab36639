// Drives the real VS Code workbench (code-server 4.100.3) in Debian's Chromium with the
// packaged extension installed from its VSIX — the path a user takes. Used by test/e2e/*.e2e.ts.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { repoRoot, screenshotsDir } from '../harness/paths';
import { installVsix, startServer, RunningServer } from '../harness/vscode-server';
import { sleep } from '../harness/wait';
import { openQuickInput, runPaletteCommand, runPaletteCommandUntil } from './palette';

export interface WorkbenchOptions {
  /** Folder to open; default: a fresh temp copy of sample-workspace/. */
  workspace?: string;
  /** Extra user settings. */
  settings?: Record<string, unknown>;
  /** VSIX to install; default $AGENTRL_E2E_VSIX (set by scripts/test.mjs). */
  vsix?: string;
  /** More VSIXs to install beside it (a test stand-in of another extension). */
  extraVsix?: string[];
  /** Environment for the server (inherited by the extension host). */
  env?: NodeJS.ProcessEnv;
  viewport?: { width: number; height: number };
  colorTheme?: string;
  /** Open the folder untrusted (Workspace Trust on, Restricted Mode). */
  untrusted?: boolean;
}

export interface Workbench {
  readonly page: Page;
  readonly workspace: string;
  readonly server: RunningServer;
  /** F1 → type the title → Enter; retries while contributions are still registering. */
  runCommand(title: string, tries?: number): Promise<void>;
  /** runCommand until `shown` is visible (see runPaletteCommandUntil: first-input commands only). */
  runCommandUntil(title: string, shown: Locator, opts?: { tries?: number; timeoutMs?: number }): Promise<void>;
  /** Ctrl+P → path → Enter; resolves when the active editor has loaded the file. */
  openFile(relativePath: string): Promise<void>;
  waitForNotification(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Saves test-results/screenshots/<name>.png and returns the path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openWorkbench(opts: WorkbenchOptions = {}): Promise<Workbench> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-e2e-'));
  const workspace = opts.workspace ?? path.join(scratch, 'workspace');
  if (!opts.workspace) fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
  const extensionsDir = path.join(scratch, 'extensions');
  fs.mkdirSync(extensionsDir);
  const vsix = opts.vsix ?? process.env.AGENTRL_E2E_VSIX;
  if (!vsix || !fs.existsSync(vsix)) throw new Error(`no VSIX to install (AGENTRL_E2E_VSIX=${vsix}); run via scripts/test.mjs e2e`);
  await installPackaged(vsix, extensionsDir);
  for (const extra of opts.extraVsix ?? []) await installVsix(extra, extensionsDir);

  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const cleanup = async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  };
  try {
    server = await startServer({
      mode: 'code-server',
      extensionsDir,
      env: opts.env,
      workspaceTrust: opts.untrusted,
      settings: { 'workbench.colorTheme': opts.colorTheme ?? 'Default Dark Modern', ...(opts.settings ?? {}) },
    });
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: opts.viewport ?? { width: 1400, height: 900 } })).newPage();
    await page.goto(`${server.base}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
    // The Explorer lists the workspace once the remote connection is up.
    await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: 60000 });

    const wb: Workbench = {
      page,
      workspace,
      server,
      runCommand: (title, tries = 20) => runPaletteCommand(page, title, tries),
      runCommandUntil: (title, shown, o) => runPaletteCommandUntil(page, title, shown, o),
      async openFile(relativePath) {
        const input = await openQuickInput(page, ['Control+P']);
        await input.fill(relativePath);
        // the focused row, once filtered (before, it is the first of the recently opened files)
        await page.locator('.quick-input-list .monaco-list-row.focused', { hasText: path.basename(relativePath) }).waitFor({ timeout: 30000 });
        await page.keyboard.press('Enter');
        await page.locator('.tab.active', { hasText: path.basename(relativePath) }).waitFor({ timeout: 30000 });
        // The tab shows before the file is read; the editor (and so the extension host's
        // activeTextEditor) has it once the editor widget carries its URI.
        // (data-uri is vscode-remote://<authority><path> in code-server: match the path)
        const uriPath = pathToFileURL(path.join(workspace, relativePath)).pathname;
        await page.locator(`.editor-group-container.active .monaco-editor[data-uri$="${uriPath}"]`).waitFor({ timeout: 30000 });
      },
      async waitForNotification(text, timeoutMs = 30000) {
        await page.locator('.notifications-toasts .notification-toast', { hasText: text }).first().waitFor({ timeout: timeoutMs });
      },
      async screenshot(name) {
        fs.mkdirSync(screenshotsDir, { recursive: true });
        const file = path.join(screenshotsDir, `${name}.png`);
        await page.screenshot({ path: file });
        return file;
      },
      close: cleanup,
    };
    return wb;
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * The VSIX installed by code-server's `--install-extension`, as a user installs it, once per
 * packaged build (a folder beside the VSIX, keyed by its size and time), then copied into each
 * workbench's extensions folder: every e2e file gets the same install without paying for it.
 */
async function installPackaged(vsix: string, extensionsDir: string): Promise<void> {
  const st = fs.statSync(vsix);
  const stamp = createHash('sha256')
    .update(`${path.resolve(vsix)}:${st.size}:${st.mtimeMs}`)
    .digest('hex');
  const cached = `${vsix}.installed`;
  const stampFile = path.join(cached, '.agentrl-stamp');
  const fresh = () => fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp;
  // e2e files run two at a time: one installs, the other waits for it and copies its install
  if (!fresh())
    await withLock(`${cached}.lock`, async () => {
      if (fresh()) return;
      fs.rmSync(cached, { recursive: true, force: true });
      const staging = fs.mkdtempSync(`${cached}.tmp-`);
      await installVsix(vsix, staging);
      relocate(staging, staging, cached);
      fs.writeFileSync(path.join(staging, '.agentrl-stamp'), stamp);
      fs.renameSync(staging, cached);
    });
  fs.cpSync(cached, extensionsDir, { recursive: true });
  fs.rmSync(path.join(extensionsDir, '.agentrl-stamp'));
  relocate(extensionsDir, cached, extensionsDir);
}

/** Runs `f` holding a lock folder (mkdir is atomic); a lock older than 10 minutes was left by a killed run. */
async function withLock(lock: string, f: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 600_000) fs.rmSync(lock, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    await f();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** extensions.json names the folder it was installed into: point it at where it now is. */
function relocate(dir: string, from: string, to: string): void {
  const file = path.join(dir, 'extensions.json');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split(from).join(to));
}

/** The `name` attribute of every element `loc` matches, in order (read in the page: the node
 *  tsconfig has no DOM types, so the element's one method used is typed here). */
export function attributesOf(loc: Locator, name: string): Promise<(string | null)[]> {
  return loc.evaluateAll((els: { getAttribute(n: string): string | null }[], n: string) => els.map((e) => e.getAttribute(n)), name);
}
