// "Show Tokens Training Learns From" in the real workbench (packaged VSIX, Chromium), against the
// real llama.cpp fixture model: F5 on a workflow that builds its Experience itself
// (test/fixtures/debug/hand_built.py: user → assistant tool call → tool output, every response
// token marked trained, the tool output included, on purpose). Stopped on its LLM call, Step Out
// stops where the episode returned (its reward); the episode's `experiences` in the Variables
// view, right-clicked, open the token view with a mark per turn (a rule coloured by role and a
// label "message N (role)" beside its first line, clear of the tokens), the trained and untrained
// tokens by mask, and the mask warning with its span, underlined on the tool output, its hover
// saying why. Dark and light themes. Screenshots: test-results/screenshots/debug-turn-marks-*.png
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { addHandBuiltWorkflows } from '../../../harness/hand-built-workflow';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../../../harness/model-server';
import { repoRoot } from '../../../harness/paths';
import { skipNoTokenizer } from '../../../harness/tiny-tokenizer';
import { until } from '../../../harness/wait';
import { pickFromContextMenu, setExpanded } from '../../variables';
import { openWorkbench, type Workbench } from '../../workbench';

const skip = (!modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)') || skipNoTokenizer;
const LAUNCH = 'Debug hand-built experience';
let model: ModelServer | undefined;
let tmp: string;

before(async () => {
  if (skip) return;
  model = await startModelServer();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-e2e-turn-marks-'));
});
after(async () => {
  await model?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A copy of the sample workspace whose only launch entry debugs one episode of the hand-built workflow. */
function workspaceFor(name: string): string {
  const ws = path.join(tmp, name);
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), ws, { recursive: true });
  addHandBuiltWorkflows(path.join(ws, 'toolcall'), { hand: 'TrainsOnToolOutput' });
  const launch = {
    version: '0.2.0',
    configurations: [
      {
        type: 'agentrl',
        request: 'launch',
        name: LAUNCH,
        config: '${workspaceFolder}/toolcall/hand.yaml',
        cwd: '${workspaceFolder}/toolcall',
        tasks: 1,
        model: { baseUrl: model!.url },
        breakOn: ['llm'],
      },
    ],
  };
  fs.writeFileSync(path.join(ws, '.vscode', 'launch.json'), JSON.stringify(launch, null, 2));
  return ws;
}

for (const [theme, name] of [
  ['Default Dark Modern', 'dark'],
  ['Default Light Modern', 'light'],
] as const) {
  test(
    `Show Tokens Training Learns From (${name} theme): a mark per turn, trained and untrained tokens, the mask warning on the tool output`,
    { skip, timeout: 300_000 },
    async () => {
      const wb = await openWorkbench({ colorTheme: theme, workspace: workspaceFor(name), viewport: { width: 1440, height: 900 } });
      try {
        const view = await showReturnedTokens(wb);
        await checkMarks(view);
        const shot = await wb.screenshot(`debug-turn-marks-${name}`);
        assert.ok(fs.statSync(shot).size > 10_000);
      } catch (e) {
        await wb.screenshot(`debug-turn-marks-failed-${name}`).catch(() => undefined);
        throw e;
      } finally {
        await wb.close();
      }
    },
  );
}

/** F5, Step Out to the episode's return (its reward, with what it returned), then the menu item on its `experiences`. */
async function showReturnedTokens(wb: Workbench): Promise<FrameLocator> {
  const page = wb.page;
  await wb.runCommand('View: Show Run and Debug');
  await wb.runCommand('Debug: Start Debugging');
  const pick = page.locator('.quick-input-widget .monaco-list-row', { hasText: LAUNCH }).first();
  // Either VS Code asks which launch entry (the picker: pick it) or the session starts on its
  // own; whichever shows first, however long a loaded machine takes to show it.
  const toolbar = page.locator('.debug-toolbar');
  await until(
    'the launch picker or the debug session',
    async () => {
      if (await pick.isVisible()) {
        await pick.click();
        return true;
      }
      return toolbar.isVisible();
    },
    120_000,
    200,
  );
  const stack = page.locator('.debug-call-stack');
  await stack
    .locator('.monaco-list-row', { hasText: /llm #1 ▸ request pending/ })
    .first()
    .waitFor({ timeout: 120_000 });
  await wb.runCommand('Debug: Step Out');
  // Stopped where the episode returned: its reward is the top frame.
  await stack
    .locator('.monaco-list-row', { hasText: /T\w+#R0 reward 0/ })
    .first()
    .waitFor({ timeout: 120_000 });
  const variables = page.locator('.debug-variables');
  const episode = variables.locator('.monaco-list-row[aria-level="1"]', { hasText: /^Episode$/ }).first();
  for (const scope of ['Request', 'Response'])
    await setExpanded(variables.locator('.monaco-list-row[aria-level="1"]', { hasText: new RegExp(`^${scope}$`) }).first(), false, true);
  await setExpanded(episode, true);
  const experiences = variables.locator('.monaco-list-row', { hasText: /experiences\s*=\s*1 experiences with tokens/ }).first();
  await experiences.waitFor({ timeout: 90_000 });
  const tab = page.locator('.tab', { hasText: /Tokens: T\w+#R0 #0/ }).first();
  await pickFromContextMenu(experiences, 'Show Tokens Training Learns From', tab);
  const view = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await view.locator('.tv-tok').first().waitFor({ timeout: 30_000 });
  return view;
}

/** The turns, the mask and the warning, as drawn. */
async function checkMarks(view: FrameLocator): Promise<void> {
  await view.locator('select.tv-mode-select').selectOption('mask');
  const tokens = await everyToken(view);
  const has = (i: number, cls: string) => new RegExp(`\\b${cls}\\b`).test(tokens[i].cls);
  // By mask: the prompt untrained, the whole response trained (the tool output too).
  const summary = await view.locator('.tv-summary').innerText();
  const prompt = tokens.filter((t) => /\btv-in-prompt\b/.test(t.cls)).length;
  const trained = tokens.filter((t) => /\btv-trained\b/.test(t.cls)).length;
  assert.ok(summary.includes(`${tokens.length} tokens`) && summary.includes(`${trained} trained`), summary);
  assert.ok(prompt > 0 && trained === tokens.length - prompt, `${prompt} prompt tokens, ${trained} of ${tokens.length} trained`);
  assert.ok(
    tokens.every((t, i) => has(i, i < prompt ? 'tv-prompt' : 'tv-trained')),
    'the prompt untrained, the response trained',
  );

  const notes = await view.locator('.tv-notes').innerText();
  // The warning as the notes word it: its size and span [start, end) on the tool output (message 2).
  const m = /(\d+) tokens of tool output \(message 2, tokens (\d+)–(\d+)\) are trained: `<\|im_start\|>user↵<tool_response>/.exec(notes);
  assert.ok(m, notes);
  const [count, start, end] = [Number(m[1]), Number(m[2]), Number(m[3])];
  assert.equal(end - start, count);
  // A mark per turn: the template's default system prompt (its own, not the conversation's), then
  // the three messages (user, assistant, tool), in order, each coloured and labelled.
  const turns = tokens.filter((t) => /\btv-turn-start\b/.test(t.cls));
  assert.deepEqual(
    turns.map((t) => /tv-role-(\w+)/.exec(t.cls)?.[1]),
    ['other', 'user', 'assistant', 'tool'],
  );
  assert.deepEqual(
    turns.map((t) => t.turn),
    ['added by the chat template', 'message 0 (user)', 'message 1 (assistant)', 'message 2 (tool)'],
  );
  const turnAt = turns.map((t) => t.i);
  // (the assistant's message opens in the prompt: its header is the generation prompt)
  assert.ok(
    turnAt[0] === 0 && turnAt[1] > 0 && turnAt[2] > turnAt[1] && turnAt[2] <= prompt && prompt < turnAt[3] && turnAt[3] <= start,
    `turns at ${turnAt.join(', ')}, the response from ${prompt}, the warning from ${start}`,
  );
  // Each label is drawn right of its line's tokens, clear of them (the gutter the view keeps).
  for (const t of turns) {
    assert.equal(t.label, `"${t.turn}"`, 'the label is drawn');
    assert.ok(t.room >= 0, `the label ${t.turn} overlaps its line's tokens by ${-t.room}px`);
  }
  // The warned tokens: exactly the span, all in the tool turn; a hover says why.
  const warned = tokens.filter((t) => /\btv-mask-warn\b/.test(t.cls));
  assert.deepEqual(
    warned.map((t) => t.i),
    Array.from({ length: count }, (_, k) => start + k),
  );
  assert.ok(
    warned.every((t) => /\btv-role-tool\b/.test(t.cls)),
    'the warned tokens are the tool output',
  );
  // Each drawn with a bar under it (inside its box: the line clips anything below), the first
  // with its turn's rule above as well; no other token has the bar.
  const bar = /0px -2px 0px 0px inset/;
  assert.ok(
    warned.every((t) => bar.test(t.shadow)),
    warned.map((t) => t.shadow).join(' | '),
  );
  assert.match(tokens[start].shadow, /0px 2px 0px 0px inset/);
  assert.ok(
    tokens.filter((t) => t.i < start || t.i >= end).every((t) => !bar.test(t.shadow)),
    'no bar outside the warned span',
  );
  await view.locator(`.tv-tok[data-i="${start + Math.floor(count / 2)}"]`).hover();
  const tip = await view.locator('.tv-tip').innerText();
  assert.match(tip, /message\s+2 \(tool\)/);
  assert.match(tip, /trained, but the model did not generate it/);
}

interface DrawnToken {
  i: number;
  cls: string;
  turn: string | undefined;
  /** The turn label's CSS content, and the pixels between its line's last token and the label. */
  label: string;
  room: number;
  /** Its computed box-shadow (the rules and bars drawn in its box). */
  shadow: string;
}

/** Every token of the view: it draws only the lines near the screen, so it is scrolled top to
 *  bottom by half a screen, each step read once its redraw (on the next frames) is done. */
async function everyToken(view: FrameLocator): Promise<DrawnToken[]> {
  const scroller = view.locator('.tv-scroll');
  const seen = new Map<number, DrawnToken>();
  for (let y = 0, atEnd = false; !atEnd; y += 200) {
    atEnd = await scroller.evaluate(scrollTo, y);
    for (const t of await view.locator('.tv-tok').evaluateAll(readTokens)) seen.set(t.i, t);
  }
  const tokens = [...seen.values()].sort((a, b) => a.i - b.i);
  assert.ok(tokens.length > 0 && tokens.every((t, k) => t.i === k), 'every token read once');
  return tokens;
}

// What the two functions below use of the page, typed here: they run in the webview (the node
// tsconfig has no DOM types).
interface PageElement {
  dataset: Record<string, string | undefined>;
  className: string;
  parentElement: PageElement;
  children: ArrayLike<PageElement>;
  scrollTop: number;
  clientHeight: number;
  scrollHeight: number;
  getBoundingClientRect(): { right: number };
}
type PseudoStyle = { content: string; width: string; paddingLeft: string; paddingRight: string; borderLeftWidth: string; boxShadow: string };
declare const getComputedStyle: (el: PageElement, pseudo: string) => PseudoStyle;
declare const requestAnimationFrame: (f: () => void) => number;

/** Scrolls to y, then waits two frames (the view redraws on the next); whether it is at the end. */
function scrollTo(el: PageElement, y: number): Promise<boolean> {
  el.scrollTop = y;
  const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 1;
  return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(atEnd))));
}

function readTokens(els: PageElement[]): DrawnToken[] {
  return els.map((el) => {
    const label = getComputedStyle(el, '::after');
    const turn = el.dataset.turn;
    let room = 0;
    if (turn !== undefined) {
      const line = el.parentElement;
      const right = Math.max(...Array.from(line.children, (c) => c.getBoundingClientRect().right));
      const width = parseFloat(label.width) + parseFloat(label.paddingLeft) + parseFloat(label.paddingRight) + parseFloat(label.borderLeftWidth);
      room = line.getBoundingClientRect().right - width - right;
    }
    return { i: Number(el.dataset.i), cls: el.className, turn, label: label.content, room, shadow: getComputedStyle(el, '').boxShadow };
  });
}
