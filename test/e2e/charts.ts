// Pointing at the metrics view's uPlot charts in the workbench, for the e2e tests that click a step.
import * as assert from 'node:assert/strict';
import type { FrameLocator } from 'playwright-core';

/**
 * Points at the bucket holding `step` on a chart whose x axis runs over `steps` steps: from the x
 * position the step would have, corrected a pixel at a time by the bucket range the hover legend
 * reports (a bucket holds several steps when there are more steps than pixels).
 */
export async function pointAtStep(view: FrameLocator, chart: string, step: number, steps: number): Promise<{ x: number; y: number; range: [number, number] }> {
  const over = view.locator(`.card[data-chart="${chart}"] .u-over`);
  const head = view.locator(`.card[data-chart="${chart}"] .legend .x`);
  const box = (await over.boundingBox())!;
  const page = over.page();
  let x = box.x + (box.width * step) / (steps - 1);
  const y = box.y + box.height / 2;
  for (let i = 0; i < 60; i++) {
    await page.mouse.move(x, y);
    const text = await head.innerText({ timeout: 5000 });
    const m = text.match(/step (\d+)(?:–(\d+))?/);
    assert.ok(m, `legend says "${text}"`);
    const range: [number, number] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (step < range[0]) x -= 1;
    else if (step > range[1]) x += 1;
    else return { x, y, range };
  }
  throw new Error(`could not point at step ${step}`);
}
