// The token view in real Chromium with a 32 k-token experience (the fixture tokenizer's texts,
// Trinity's mask per turn, planted lowest logprob): the DOM stays a window of lines, the summary
// line counts what the data holds, search finds what an independent count finds, "Lowest logprob"
// brings the planted token on screen, "Copy as JSON" gives exactly `agentrl tokens --json`'s
// model, the three colour modes colour by what they say, hovering shows the token's numbers, and
// the page runs under the webviews' strict CSP without a violation. Screenshots go to
// test-results/screenshots/token-view-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { english } from '../../../src/base/l10n';
import { fromTensors, summarize } from '../../../src/tokens/experience';
import { toTokensJson } from '../../../src/tokens/token-json';
import { tokenViewStrings } from '../../../src/tokens/view-strings';
import { type LongExperience, longExperience } from '../../harness/long-experience';
import { screenshotsDir } from '../../harness/paths';
import { skipNoTokenizer, tinyTokenizer } from '../../harness/tiny-tokenizer';
import { openTokenViewPage, type TokenViewGlobal, type TokenViewPage, toWire } from '../../harness/token-view-page';
import { until } from '../../harness/wait';

type Win = { __tv: TokenViewGlobal; __view?: unknown; __copied?: string; document: { getElementById(id: string): { append(n: unknown): void } | null } };

let wp: TokenViewPage | undefined;
let exp: LongExperience;

before(async () => {
  if (skipNoTokenizer) return;
  exp = longExperience(tinyTokenizer());
  wp = await openTokenViewPage({ viewport: { width: 1100, height: 820 } });
  const strings = tokenViewStrings(english);
  await wp.page.evaluate(
    ([w, s]) => {
      const g = globalThis as unknown as Win;
      const tv = g.__tv;
      const e = tv.fromTensors(
        {
          tokens: tv.decode(w.tokens, 'i32'),
          prompt_length: w.prompt_length,
          logprobs: w.logprobs && tv.decode(w.logprobs, 'f32'),
          action_mask: w.action_mask && tv.decode(w.action_mask, 'u8'),
          advantages: w.advantages && tv.decode(w.advantages, 'f32'),
          truncate_status: w.truncate_status,
          response_text: w.response_text,
        },
        w.texts && {
          joined: w.texts.joined,
          offsets: tv.decode(w.texts.offsets, 'u32'),
          flags: tv.decode(w.texts.flags, 'u8'),
          partialBytes: w.texts.partialBytes,
        },
      );
      const view = new tv.TokenView({ strings: s, onCopy: (j) => (g.__copied = j) });
      g.document.getElementById('root')?.append(view.element);
      view.show(e, ['from the experience buffer']);
      g.__view = view;
    },
    [toWire(exp, exp.texts), strings] as const,
  );
});

after(async () => {
  await wp?.close();
});

const page = () => (wp as TokenViewPage).page;
/** Scrolls the token area (to the end with -1). */
const scrollTo = (y: number) =>
  page()
    .locator('.tv-scroll')
    .evaluate((el, to) => {
      const box = el as unknown as { scrollTop: number; scrollHeight: number };
      box.scrollTop = to < 0 ? box.scrollHeight : to;
    }, y);
const count = () => page().locator('.tv-count').textContent();
const shot = async (name: string) => {
  fs.mkdirSync(screenshotsDir, { recursive: true });
  await page().screenshot({ path: path.join(screenshotsDir, `token-view-${name}.png`) });
};

test(
  '32 k tokens: a window of lines in the DOM, a summary line that counts what the data holds, no CSP violation',
  { skip: skipNoTokenizer, timeout: 120_000 },
  async () => {
    assert.ok(exp.tokens.length >= 32_768);
    const spans = await page().locator('.tv-tok').count();
    assert.ok(spans > 100 && spans < 3000, `${spans} token spans for ${exp.tokens.length} tokens`);
    const s = summarize(fromTensors(exp));
    const summary = await page().locator('.tv-summary').textContent();
    assert.equal(summary, `${s.tokens} tokens · ${s.trainedTokens} trained · mean logprob ${Number(s.meanLogprob.toFixed(3))}`);
    assert.equal(await page().locator('.tv-notes').textContent(), 'from the experience buffer');
    // the sizer is as tall as every line: scrolling to the end draws the last token, still a window
    await scrollTo(-1);
    await until(
      'the last token drawn',
      async () =>
        (await page()
          .locator(`.tv-tok[data-i="${exp.tokens.length - 1}"]`)
          .count()) === 1,
    );
    assert.ok((await page().locator('.tv-tok').count()) < 3000);
    await scrollTo(0);
    await until('the first token drawn again', async () => (await page().locator('.tv-tok[data-i="0"]').count()) === 1);
    await shot('top');
    assert.deepEqual(wp?.cspViolations, []);
  },
);

test('search: text across tokens and #id, counted as an independent count counts them; next moves on', { skip: skipNoTokenizer, timeout: 60_000 }, async () => {
  const joined = exp.texts.joined.toLowerCase();
  let n = 0;
  for (let at = joined.indexOf('kyoto'); at >= 0; at = joined.indexOf('kyoto', at + 5)) n++;
  assert.ok(n > 10);
  await page().locator('.tv-search').fill('Kyoto');
  await until('the count shown', async () => (await count()) === `1 of ${n}`);
  const current = page().locator('.tv-current');
  assert.ok((await current.count()) >= 1);
  assert.ok('kyoto'.includes((await current.first().textContent())?.replace(/·/g, ' ').trim().toLowerCase() ?? '∅'));
  await page().locator('.tv-search').press('Enter');
  await until('the next match', async () => (await count()) === `2 of ${n}`);
  const id = tinyTokenizer().encode('<|im_end|>')[0];
  const ids = exp.tokens.filter((x) => x === id).length;
  await page().locator('.tv-search').fill(`#${id}`);
  await until('the id count shown', async () => (await count()) === `1 of ${ids}`);
  await page().locator('.tv-search').fill('no such text anywhere');
  await until('no match', async () => (await count()) === 'No match');
  await page().locator('.tv-search').fill('');
});

test('Lowest logprob brings the planted token on screen, outlined; the hover card shows its numbers', { skip: skipNoTokenizer, timeout: 60_000 }, async () => {
  await page().locator('.tv-lowest').click();
  const tok = page().locator(`.tv-tok[data-i="${exp.lowest}"]`);
  await until('the lowest token drawn', async () => (await tok.count()) === 1);
  assert.match((await tok.getAttribute('class')) ?? '', /tv-focus/);
  assert.match((await tok.getAttribute('class')) ?? '', /tv-lp0/);
  const box = await tok.boundingBox();
  const view = await page().locator('.tv-scroll').boundingBox();
  assert.ok(box && view && box.y >= view.y && box.y + box.height <= view.y + view.height, 'on screen');
  await tok.hover();
  const tip = page().locator('.tv-tip');
  await until('the hover card', async () => await tip.isVisible());
  const text = (await tip.innerText()).replace(/\s+/g, ' ');
  assert.ok(text.includes(`token ${exp.lowest}`) && text.includes(`id ${exp.tokens[exp.lowest]}`), text);
  assert.ok(text.includes('logprob -12.5') && text.includes(`probability ${Number(Math.exp(-12.5).toPrecision(5))}`), text);
  assert.ok(/ (trained|not trained) /.test(`${text} `), text);
  await shot('lowest-hover');
});

test(
  'colour modes: logprob, mask (prompt / trained / tool output) and advantage classes, with different theme colours',
  { skip: skipNoTokenizer, timeout: 60_000 },
  async () => {
    const e = fromTensors(exp);
    const trained = exp.prompt_length + exp.action_mask.indexOf(1);
    const tool = exp.prompt_length + exp.action_mask.indexOf(0, trained - exp.prompt_length);
    await scrollTo(0);
    await page().locator('.tv-mode-select').selectOption('mask');
    const cls = async (i: number) => (await page().locator(`.tv-tok[data-i="${i}"]`).getAttribute('class')) ?? '';
    await until('mask colours', async () => (await cls(trained)).includes('tv-trained'));
    assert.match(await cls(0), /tv-prompt/);
    assert.match(await cls(tool), /tv-untrained/);
    assert.equal(e.trained[tool], 0);
    const bg = (i: number) =>
      page()
        .locator(`.tv-tok[data-i="${i}"]`)
        .evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor);
    assert.notEqual(await bg(trained), await bg(tool));
    await shot('mask');
    await page().locator('.tv-mode-select').selectOption('advantage');
    await until('advantage colours', async () => (await cls(trained)).includes('tv-adv-pos5'));
    assert.match(await cls(tool), /tv-none/);
    await shot('advantage');
    await page().locator('.tv-mode-select').selectOption('logprob');
    await until('logprob colours', async () => /tv-lp\d/.test(await cls(trained)));
  },
);

test(
  'Copy as JSON gives exactly the model agentrl tokens --json prints: ids, texts, logprobs, trained, advantages, nulls',
  { skip: skipNoTokenizer, timeout: 60_000 },
  async () => {
    await page().locator('.tv-copy').click();
    await until('copied', async () => (await count()) === 'Copied');
    const copied = await page().evaluate(() => (globalThis as unknown as Win).__copied ?? '');
    const got = JSON.parse(copied) as ReturnType<typeof toTokensJson>;
    const want = toTokensJson(fromTensors(exp, exp.texts));
    assert.equal(got.tokens.length, exp.tokens.length);
    assert.deepEqual(got, JSON.parse(JSON.stringify(want)));
    assert.equal(
      got.tokens
        .slice(got.prompt_length)
        .map((t) => t.text)
        .join(''),
      exp.response_text,
    );
    assert.equal(got.tokens[0].logprob, null);
    assert.deepEqual(Object.keys(got.tokens[0]), ['id', 'text', 'logprob', 'trained', 'advantage']);
  },
);
