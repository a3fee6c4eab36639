// The online-training playground in the real workbench (packaged VSIX, Chromium) against
// Trinity-RFT's own serve-mode proxy (FastAPI app, ExplorerService, HistoryRecorder from
// ../shared/upstream). STAND-IN: the explorer's inference engine is the tiny fixture model on
// llama.cpp (test/fixtures/online/serve_proxy.py). Connect through the palette, chat with two
// alternatives, prefer one (A/B), commit, and see the counters move; "Tokens" on a reply shows
// its prompt and completion in the token view, with the logprobs the engine returned.
// Screenshots: test-results/screenshots/online-playground.png, online-reply-tokens.png.
import * as assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tinyTokenizerDir } from '../harness/tiny-tokenizer';
import { startTrinityServe, TrinityServe, trinityServeSkipReason } from '../harness/trinity-serve';
import { attributesOf, openWorkbench, Workbench } from './workbench';

const skip = trinityServeSkipReason();
let serve: TrinityServe | undefined;
let wb: Workbench | undefined;

before(async () => {
  if (!skip) serve = await startTrinityServe();
});
after(async () => {
  await wb?.close();
  await serve?.stop();
});

test('online playground: chat round trip, A/B choice sent, commit, counters move', { skip, timeout: 240_000 }, async () => {
  // the served model is named `tiny-toolcall`, not a folder: its tokenizer named in the settings
  wb = await openWorkbench({
    colorTheme: 'Default Dark Modern',
    viewport: { width: 1400, height: 900 },
    settings: { 'agentrl.online.tokenizer': tinyTokenizerDir },
  });
  await wb.runCommand('Agent RL: Connect to Online Explorer…');
  await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Enter the explorer URL…' }).click();
  const input = wb.page.locator('.quick-input-widget input');
  await wb.page.locator('.quick-input-widget', { hasText: 'Explorer URL' }).waitFor();
  await input.fill(serve!.url);
  await wb.page.keyboard.press('Enter');
  await wb.waitForNotification(/Connected to the explorer at/, 30_000);

  await wb.runCommand('Agent RL: Open Online Training Playground');
  const view = wb.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await view.locator('#m-step').waitFor({ timeout: 60_000 });
  assert.equal((await view.locator('#m-total b').textContent())?.trim(), '0');

  await view.locator('#n').fill('2');
  await view.locator('#max-tokens').fill('12');
  await view.locator('#input').fill('Say hello.');
  await view.locator('#send').click();
  await view.locator('.alt[data-msg-id]').nth(1).waitFor({ timeout: 90_000 });
  await view.locator('#m-total b', { hasText: '2' }).waitFor({ timeout: 30_000 });
  const ids = await attributesOf(view.locator('.alt[data-msg-id]'), 'data-msg-id');
  assert.equal(new Set(ids).size, 2);
  // Words, not emoji: the sandbox's Chromium (like many Linux desktops) has no emoji font, so 👍 drew an empty box.
  assert.equal((await view.locator('.alt button.up').first().innerText()).trim(), 'Good');
  assert.equal((await view.locator('.alt button.down').first().innerText()).trim(), 'Bad');
  for (const label of await view.locator('button').allInnerTexts()) assert.doesNotMatch(label, /\p{Extended_Pictographic}/u, label);

  await view.locator('.alt .choose').nth(1).click();
  await view.locator('.fb.sent').nth(1).waitFor({ timeout: 30_000 });
  await view.locator('#m-ready b', { hasText: '2' }).waitFor({ timeout: 30_000 });
  assert.equal(await view.locator('.alt.chosen').count(), 1);

  await view.locator('header button.primary', { hasText: 'Commit' }).click();
  await view.locator('#m-step b', { hasText: '1' }).waitFor({ timeout: 30_000 });
  await view.locator('.notice', { hasText: 'explore step 1' }).waitFor();
  assert.deepEqual(
    serve!
      .committed()
      .map((c) => c.reward)
      .sort(),
    [0, 1],
  );
  await wb.screenshot('online-playground');

  // "Tokens" on the second reply: the token view counts what usage counted, and the engine's logprobs are there.
  const meta = await view.locator('.alt .meta').nth(1).innerText();
  const [, prompt, completion] = /(\d+)\+(\d+)/.exec(meta) ?? [];
  assert.ok(prompt && completion, meta);
  await view.locator('.alt .show-tokens').nth(1).click();
  const summary = view.locator('.tokens-panel .tv-summary');
  await summary.waitFor({ timeout: 30_000 });
  const text = await summary.innerText();
  assert.ok(text.includes(`${Number(prompt) + Number(completion)} tokens`), `${text} vs ${meta}`);
  assert.ok(text.includes(`${completion} trained`), text);
  assert.match(text, /mean logprob -?\d/, text);
  const notes = await view.locator('.tokens-panel .tv-notes').innerText();
  assert.match(notes, /tokenizer of \S*tiny-toolcall/, notes);
  assert.match(notes, /as the explorer returned them/, notes);
  await view.locator('.tokens-panel button', { hasText: 'Lowest logprob' }).click();
  const lowest = view.locator('.tokens-panel .tv-tok.tv-focus');
  await lowest.waitFor({ timeout: 30_000 });
  assert.doesNotMatch((await lowest.getAttribute('class')) ?? '', /tv-in-prompt/);
  await wb.screenshot('online-reply-tokens');
});
