// `npm start` serves a workbench with the extension active on the sample workspace, and
// Ctrl+C stops every process it started.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { after, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { repoRoot } from '../harness/paths';
import { runPaletteCommand } from './palette';
import { freePort } from '../harness/vscode-server';

let start: ChildProcess | undefined;
let browser: Browser | undefined;
after(async () => {
  await browser?.close().catch(() => undefined);
  if (start?.pid && start.exitCode === null) process.kill(-start.pid, 'SIGKILL');
});

/** Processes whose command line mentions this sandbox's port (code-server and its children). */
function processesOnPort(port: number): string[] {
  const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).stdout;
  return ps.split('\n').filter((l) => l.includes(`127.0.0.1:${port}`) && !l.includes('ps -eo'));
}

test('npm start: sandbox workbench with the extension active, clean Ctrl+C', async () => {
  const vsix = process.env.AGENTRL_E2E_VSIX;
  assert.ok(vsix, 'AGENTRL_E2E_VSIX not set; run via scripts/test.mjs e2e');
  const port = await freePort();
  const modelPort = await freePort();
  start = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'start.mjs'), '--port', String(port), '--model-port', String(modelPort), '--vsix', vsix], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  start.stderr!.on('data', (b) => (out += b));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 90 s:\n${out}`)), 90000);
    start!.stdout!.on('data', (b) => {
      out += b;
      const m = out.match(/(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    start!.on('exit', (c) => reject(new Error(`npm start exited early (${c}):\n${out}`)));
  });
  assert.match(decodeURIComponent(url), /sample-workspace$/);
  assert.ok(processesOnPort(port).length > 0, 'code-server is not running');
  // The sample's model server (tiny-toolcall on llama.cpp) answers on loopback.
  assert.match(out, new RegExp(`Model:\\s+http://127\\.0\\.0\\.1:${modelPort}/v1`));
  const models = (await (await fetch(`http://127.0.0.1:${modelPort}/v1/models`)).json()) as { data: { id: string }[] };
  assert.ok(models.data.length > 0, 'the model server lists no model');

  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'gsm8k' }).waitFor({ timeout: 60000 });
  // The packaged extension is active: its command runs from the palette and logs.
  await runPaletteCommand(page, 'Agent RL: Show Output');
  await page.locator('.part.panel .view-lines', { hasText: /Agent\sRL\sStudio\s[\d.]+\sactivated/ }).waitFor({ timeout: 30000 });
  await browser.close();
  browser = undefined;

  // Ctrl+C (SIGINT to the script) stops everything it started.
  const exited = new Promise<number | null>((r) => start!.on('exit', (c) => r(c)));
  start.kill('SIGINT');
  assert.equal(await exited, 0);
  for (let i = 0; i < 50 && processesOnPort(port).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(processesOnPort(port), [], 'processes left behind after Ctrl+C');
  await assert.rejects(fetch(`http://127.0.0.1:${modelPort}/v1/models`), 'the model server still answers after Ctrl+C');
});
