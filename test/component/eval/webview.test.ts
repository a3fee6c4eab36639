// The comparison view's page (media/eval.js + eval.css) in real Chromium under the webview
// CSP, answered as the panel answers it (the real ComparisonSession): a saved comparison
// (eval.json and three recorded model runs, written here) read by the real record loader,
// statistics and rollout service. A regression is opened side by side (the screenshot is saved
// to test-results/screenshots/eval-regression.png); another model is picked as the compared one.
// The panel answers without awaiting its post: an answer to a page that closed meanwhile is
// dropped (VS Code resolves a post to a disposed webview to false), never an unhandled rejection.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DebugRolloutService } from '../../../src/debug/rollout-service';
import type { EpisodeTrajectory } from '../../../src/debug/trajectory/trajectory';
import { loadEval, saveEval, type EvalRecord } from '../../../src/eval/run/eval-record';
import { ComparisonSession } from '../../../src/eval/view/comparison-session';
import type { EvalStrings, FromView } from '../../../src/eval/protocol/messages';
import { repoRoot, screenshotsDir } from '../../harness/paths';
import { openWebviewPage, type WebviewPage } from '../../harness/webview-page';
import { until } from '../../harness/wait';
import { ConfigCheckerTestDouble } from '../debug/helpers';

const built = fs.existsSync(path.join(repoRoot, 'media', 'eval.js'));

/** The English strings the extension sends (src/eval/strings.ts renders them with vscode.l10n). */
const strings: EvalStrings = {
  task: 'Task',
  mean: 'mean@k',
  pass: 'pass@k',
  diff: 'Difference',
  regressionsOnly: 'Regressions only',
  restsOn: 'Rests on {0} of {1} tasks · {2}: {3} failed episodes · {4}: {5} failed episodes',
  failed: '{0} failed',
  pickTask: 'Click a task',
  turn: 'Turn',
  differs: 'The two models differ at this turn',
  noTranscript: 'No recorded episode of this task.',
  baseline: 'Baseline',
  compared: 'Compared',
  eachAgainst: 'Each model against {0}',
  axis: '{0}% interval of the mean reward difference, {1} − {2}',
  better: '{0} better',
};

function episode(model: string, task: string, repeat: number, reply: string, reward: number): EpisodeTrajectory {
  const q = `What is the weather in ${task}?`;
  return {
    episode: `T${task}#R${repeat}`,
    taskIndex: 0,
    taskId: task,
    repeat,
    task: { id: task, question: q },
    turns: [
      {
        type: 'llm',
        index: 0,
        request: { model, messages: [{ role: 'user', content: q }] },
        response: {
          choices: [
            {
              message: {
                role: 'assistant',
                content: '',
                tool_calls: [{ id: 'c', function: { name: 'get_weather', arguments: JSON.stringify({ city: task }) } }],
              },
            },
          ],
        },
      },
      { type: 'tool', llmIndex: 0, id: 'c', name: 'get_weather', arguments: JSON.stringify({ city: task }), result: '{"sky": "sunny"}' },
      {
        type: 'llm',
        index: 1,
        request: {
          model,
          messages: [
            { role: 'user', content: q },
            { role: 'assistant', content: '' },
            { role: 'tool', content: '{"sky": "sunny"}' },
          ],
        },
        response: { choices: [{ message: { role: 'assistant', content: reply } }] },
      },
    ],
    reward,
    metrics: { accuracy: reward },
    metadata: {},
    experiences: [],
  };
}

describe('the comparison view in Chromium', { skip: built ? false : 'media/eval.js not built (npm run build)' }, () => {
  let dir: string;
  let view: WebviewPage;
  let session: ComparisonSession;
  const service = new DebugRolloutService(new ConfigCheckerTestDouble(), path.join(repoRoot, 'src', 'debug', 'runner'));

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-evalview-'));
    const tasks = ['Paris', 'Kyoto', 'Oslo', 'Lima'];
    const runs: Record<string, EpisodeTrajectory[]> = {
      base: tasks.flatMap((t) => [0, 1].map((r) => episode('base', t, r, `It is sunny in ${t}.`, 1))),
      // The new model regresses on Kyoto (a wrong answer), the rest unchanged.
      step400: tasks.flatMap((t) =>
        [0, 1].map((r) => (t === 'Kyoto' ? episode('step400', t, r, 'It is raining.', 0) : episode('step400', t, r, `It is sunny in ${t}.`, 1))),
      ),
      // A third model, wrong on Oslo and Lima: the view compares any pair, and each against the baseline.
      step200: tasks.flatMap((t) =>
        [0, 1].map((r) => (t === 'Oslo' || t === 'Lima' ? episode('step200', t, r, 'No idea.', 0) : episode('step200', t, r, `It is sunny in ${t}.`, 1))),
      ),
    };
    const record: EvalRecord = { version: 1, id: 'view-test', createdAt: '', config: 'toolcall.yaml', tasks: tasks.length, repeat: 2, models: [] };
    for (const [name, eps] of Object.entries(runs)) {
      const runDir = path.join(dir, 'runs', name);
      fs.mkdirSync(runDir, { recursive: true });
      fs.writeFileSync(path.join(runDir, 'trajectories.jsonl'), eps.map((e) => JSON.stringify(e)).join('\n') + '\n');
      record.models.push({ name, runDir: `runs/${name}`, status: 'completed', llmCalls: eps.length * 2, episodes: service.recorded(runDir) });
    }
    saveEval(dir, record);
    session = new ComparisonSession(
      loadEval(dir),
      dir,
      (runDir, ep) => service.transcript(runDir, ep),
      () => strings,
      { a: 'base', b: 'step400' },
    );
    // As the panel answers: without awaiting the post (one to a closed page resolves false).
    const onMessage = (raw: unknown) => {
      const answer = session.answer(raw as FromView);
      if (answer) void view.post(answer);
    };
    view = await openWebviewPage({ bundle: 'eval', onMessage, viewport: { width: 1100, height: 800 } });
    // Every test starts from the page showing the comparison (each can run alone).
    await until('the comparison shown', async () => (await view.page.locator('table.tasks tr[data-task]').count()) === 4);
  });
  after(async () => {
    await view?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the verdict, the tasks largest change first, the filter to regressions', async () => {
    const page = view.page;
    await until('the four task rows', async () => (await page.locator('table.tasks tr[data-task]').count()) === 4);
    assert.match((await page.locator('#verdict').textContent()) ?? '', /no difference distinguishable from noise|step400 is worse than base/);
    assert.equal(await page.locator('table.tasks tr[data-task]').first().getAttribute('data-task'), 'Kyoto');
    assert.equal(await page.locator('table.tasks tr.regression').count(), 1);
    // the interval bar has its axis: the ends and zero, which side favours which model, what it measures
    const axis = (await page.locator('.interval-axis').textContent()) ?? '';
    for (const words of ['−1', '0', '+1', '← base better', 'step400 better →', '95% interval of the mean reward difference, step400 − base'])
      assert.ok(axis.includes(words), `${words} in ${axis}`);
    await page.locator('#regressions').check();
    await until('the regressions only', async () => (await page.locator('table.tasks tr[data-task]').count()) === 1);
    assert.match((await page.locator('table.tasks tr[data-task]').first().textContent()) ?? '', /Kyoto.*1\.00.*0\.00.*−1\.00/);
  });

  test('a regression opens both transcripts side by side with the differing turns marked', async () => {
    const page = view.page;
    await page.locator('table.tasks tr[data-task="Kyoto"]').click();
    await until('the side-by-side transcripts', async () => (await page.locator('table.side-by-side tr').count()) > 1);
    const rows = page.locator('table.side-by-side tr.differs');
    // The final answer and the reward differ; the question, the tool call and its result do not.
    assert.equal(await rows.count(), 2);
    assert.match((await rows.nth(0).textContent()) ?? '', /It is cloudy|sunny in Kyoto.*It is raining/);
    assert.match((await rows.nth(1).textContent()) ?? '', /accuracy 1.*accuracy 0/);
    assert.equal(await page.locator('table.side-by-side tr.same').count(), 3);
    fs.mkdirSync(screenshotsDir, { recursive: true });
    await page.screenshot({ path: path.join(screenshotsDir, 'eval-regression.png'), fullPage: true });
  });

  test('with three models: each against the baseline, and another model picked as the compared one', async () => {
    const page = view.page;
    const overview = page.locator('.overview li');
    assert.deepEqual(await overview.evaluateAll((els) => els.map((e) => (e as { dataset: Record<string, string> }).dataset.model)), ['step400', 'step200']);
    assert.match((await overview.nth(1).textContent()) ?? '', /−0\.50/);
    await overview.nth(1).click();
    await until('step200 compared', async () => (await page.locator('h1').textContent()) === 'step200 ↔ base · toolcall.yaml');
    assert.equal(await page.locator('#pick-b').inputValue(), 'step200');
    assert.equal(await page.locator('table.tasks tr.regression').count(), 2, 'Oslo and Lima');
    assert.equal(await page.locator('table.side-by-side').count(), 0, "the other pair's transcripts are cleared");
    // Picking the compared model as the baseline swaps the two (all tasks shown again).
    await page.locator('#regressions').uncheck();
    await page.locator('#pick-a').selectOption('step200');
    await until('base compared with step200', async () => (await page.locator('h1').textContent()) === 'base ↔ step200 · toolcall.yaml');
    assert.equal(await page.locator('table.tasks tr.improvement').count(), 2);
    assert.equal(await page.locator('#pick-b').inputValue(), 'base');
  });

  test('an answer to a page that closed meanwhile is dropped, never a rejection', async () => {
    const heard: FromView[] = [];
    const other = await openWebviewPage({ bundle: 'eval', onMessage: (m) => heard.push(m as FromView), browser: view.browser });
    await until('the page says it is ready', () => heard.some((m) => m.type === 'ready'));
    const answer = session.answer({ type: 'ready' })!;
    assert.equal(await other.post(answer), true, 'the open page takes it');
    // An answer crossing as the page closes, then one after: neither rejects.
    const crossing = other.post(answer);
    await other.close();
    assert.equal(typeof (await crossing), 'boolean');
    assert.equal(await other.post(answer), false);
  });
});
