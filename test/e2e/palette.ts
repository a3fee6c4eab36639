// Opens the quick input reliably. A key press can land while the workbench is moving focus
// (a view opening after the previous command, the quick input still closing), and then it is
// dropped; so press again — alternating F1 with Ctrl+Shift+P — until the input is visible.
import type { Locator, Page } from 'playwright-core';
import { sleep } from '../harness/wait';

export async function openQuickInput(page: Page, keys: readonly string[] = ['F1', 'Control+Shift+P'], tries = 6): Promise<Locator> {
  const input = page.locator('.quick-input-widget input');
  for (let i = 0; ; i++) {
    await page.keyboard.press(keys[i % keys.length]);
    try {
      await input.waitFor({ state: 'visible', timeout: 3000 });
      return input;
    } catch (e) {
      if (i + 1 >= tries) throw e;
      await page.keyboard.press('Escape');
      await sleep(500);
    }
  }
}

/** F1 → ">title" → wait for the row → Enter; retries while contributions are still registering. */
export async function runPaletteCommand(page: Page, title: string, tries = 20): Promise<void> {
  for (let i = 1; ; i++) {
    const input = await openQuickInput(page);
    await input.fill('>' + title);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ timeout: 2000 });
    } catch (e) {
      // Contributions appear only after the extension host has scanned extensions.
      if (i >= tries) throw e;
      await page.keyboard.press('Escape');
      await sleep(1000);
      continue;
    }
    await page.keyboard.press('Enter');
    return;
  }
}
