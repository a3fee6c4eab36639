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

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * F1 → ">title" → click the row whose label is exactly `title`; retries while contributions
 * are still registering. Never Enter on whatever row has focus: the palette filters
 * asynchronously, so until it has, the focused first row is the most recently used command,
 * and once it has, a fuzzier match can still come first ("Debug: Select and Start Debugging"
 * before "Debug: Start Debugging").
 */
export async function runPaletteCommand(page: Page, title: string, tries = 20): Promise<void> {
  const exact = new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`);
  for (let i = 1; ; i++) {
    const input = await openQuickInput(page);
    await input.fill('>' + title);
    const row = page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: page.locator('.label-name', { hasText: exact }) })
      .first();
    try {
      await row.waitFor({ timeout: 2000 });
      await row.click({ timeout: 2000 });
    } catch (e) {
      // Contributions appear only after the extension host has scanned extensions.
      if (i >= tries) throw e;
      await page.keyboard.press('Escape');
      await sleep(1000);
      continue;
    }
    return;
  }
}

/** What the workbench shows: the quick input (title, message, first rows) and the toasts. */
export async function describeUi(page: Page): Promise<string> {
  const texts = async (sel: string, n = 5) =>
    (
      await page
        .locator(sel)
        .allInnerTexts()
        .catch(() => [] as string[])
    )
      .slice(0, n)
      .map((t) => t.replace(/\s+/g, ' ').trim())
      .filter(Boolean);
  const widget = page.locator('.quick-input-widget');
  const quick = (await widget.isVisible().catch(() => false))
    ? `quick input "${(await texts('.quick-input-widget .quick-input-title')).join('')}" message "${(await texts('.quick-input-widget .quick-input-message')).join('')}" rows [${(await texts('.quick-input-list .monaco-list-row')).join(' | ')}]`
    : 'no quick input';
  return `${quick}; notifications [${(await texts('.notifications-toasts .notification-toast', 10)).join(' | ') || 'none'}]`;
}

/**
 * Runs a palette command until `shown` (the UI the command opens) is visible. Only for a
 * command that has done nothing yet when that UI is missing (it opens its first input first), so
 * a second run is safe: another quick input in its place is dismissed, and what appeared
 * instead goes into the error.
 */
export async function runPaletteCommandUntil(page: Page, title: string, shown: Locator, opts: { tries?: number; timeoutMs?: number } = {}): Promise<void> {
  const seen: string[] = [];
  for (let i = 1; ; i++) {
    await runPaletteCommand(page, title);
    try {
      await shown.waitFor({ state: 'visible', timeout: opts.timeoutMs ?? 10_000 });
      return;
    } catch {
      seen.push(`attempt ${i}: ${await describeUi(page)}`);
      if (i >= (opts.tries ?? 3)) throw new Error(`"${title}" did not open the expected input:\n${seen.join('\n')}`);
      await page.keyboard.press('Escape');
      await sleep(500);
    }
  }
}
