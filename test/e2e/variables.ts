// The Run and Debug view's Variables tree as a user works it: scopes folded and unfolded by their
// `aria-expanded`, and a row's context-menu item picked until what it opens shows.
import type { Locator } from 'playwright-core';
import { until } from '../harness/wait';

/** Folds or unfolds a scope row (a click only when it is not so yet). An `optional` row — a scope
 *  the stop may not have — that does not show within 5 s, or goes while the tree is redrawn for a
 *  new stop, is left alone. A required row may take 90 s: on a loaded machine (load 8) the
 *  Variables view of a fresh stop took over 30 s to show its scopes. */
export async function setExpanded(row: Locator, open: boolean, optional = false): Promise<void> {
  const shown = await row.waitFor({ timeout: optional ? 5_000 : 90_000 }).then(
    () => true,
    (e: unknown) => {
      if (optional) return false;
      throw e;
    },
  );
  if (!shown) return;
  await until(
    `${open ? 'unfolded' : 'folded'} scope`,
    async () => {
      if (optional && (await row.count()) === 0) return true;
      // The tree redraws rows on each stop: a row read or clicked as it is replaced is tried again.
      const state = await row.getAttribute('aria-expanded', { timeout: 2_000 }).catch(() => undefined);
      if (state === String(open)) return true;
      if (state !== undefined) await row.click({ timeout: 2_000 }).catch(() => undefined);
      return false;
    },
    30_000,
    300,
  );
}

/** Right-click `row`, pick the menu item `item`, until `opened` shows. A context-menu item clicked
 *  while the menu is still settling can be lost: it is picked with the keyboard (hover focuses
 *  it), and the menu opened again until what it opens is there. */
export async function pickFromContextMenu(row: Locator, item: string, opened: Locator): Promise<void> {
  const page = row.page();
  await until(
    `what "${item}" opens`,
    async () => {
      await row.click({ button: 'right' });
      const entry = page.locator('.context-view .action-item', { hasText: item }).first();
      await entry.waitFor({ timeout: 10_000 });
      await entry.hover();
      await page.keyboard.press('Enter');
      return opened.waitFor({ timeout: 10_000 }).then(
        () => true,
        () => false,
      );
    },
    60_000,
    0,
  );
}
