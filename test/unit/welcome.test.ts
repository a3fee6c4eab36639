// The "Get started with Agent RL" walkthrough: four steps in order, each with a completion event
// and markdown media that ships (walkthroughs/** is in the VSIX), one page per display language
// (every page once ended in a Chinese section, boxes where no CJK font exists).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../harness/paths';

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string };
  completionEvents: string[];
}
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  contributes: { walkthroughs: { id: string; title: string; steps: Step[] }[]; commands: { command: string }[] };
};
const nls = (lang: string) =>
  JSON.parse(fs.readFileSync(path.join(repoRoot, lang ? `package.nls.${lang}.json` : 'package.nls.json'), 'utf8')) as Record<string, string>;
const key = (v: string) => v.replace(/^%|%$/g, '');

test('scaffold -> fix a config error -> debug a rollout -> watch metrics -> compare models, each with a completion event', () => {
  const [w] = pkg.contributes.walkthroughs;
  assert.equal(nls('')[key(w.title)], 'Get started with Agent RL');
  assert.deepEqual(
    w.steps.map((s) => s.id),
    ['scaffold', 'checkConfig', 'debugRollout', 'watchMetrics', 'compareModels'],
  );
  for (const s of w.steps) {
    assert.ok(s.completionEvents.length > 0, s.id);
    for (const e of s.completionEvents)
      assert.match(e, /^(onCommand|onContext|onView|onLink|onSettingChanged|onStepSelected|onExtensionInstalled):/, `${s.id}: ${e}`);
    for (const lang of ['', 'zh-cn']) {
      const media = nls(lang)[key(s.media.markdown ?? '')];
      assert.ok(media && fs.existsSync(path.join(repoRoot, media)), `${lang || 'en'} ${s.id}: media ${s.media.markdown} -> ${media}`);
      const text = fs.readFileSync(path.join(repoRoot, media), 'utf8');
      const cjk = /[\u4e00-\u9fff]/.test(text);
      assert.equal(cjk, lang === 'zh-cn', `${lang || 'en'} ${s.id}: one language per page (${media})`);
    }
  }
  // "Fix a config error" ticks after the fix, not when the Problems panel opens.
  assert.deepEqual(w.steps[1].completionEvents, ['onContext:agentrl.walkthrough.configFixed']);
  // The metrics step can be completed with nothing but the demo run.
  assert.ok(w.steps[3].completionEvents.includes('onCommand:agentrl.metrics.startDemo'));
  assert.ok(w.steps[0].completionEvents.includes('onCommand:agentrl.newWorkflow'));
  // The metrics step opens the charts (the sandbox's demo already streams), and comparing has its step.
  assert.match(nls('')[key(w.steps[3].description)], /\[Show Training Metrics\]\(command:agentrl\.metrics\.show\)/);
  assert.deepEqual(w.steps[4].completionEvents, ['onCommand:agentrl.eval.compare']);
});

test('every command link in a step description names a command that exists (ours are contributed)', () => {
  const ours = new Set(pkg.contributes.commands.map((c) => c.command));
  for (const lang of ['', 'zh-cn']) {
    for (const s of pkg.contributes.walkthroughs[0].steps) {
      const text = nls(lang)[key(s.description)];
      assert.ok(text, `${lang || 'en'}: ${s.description}`);
      const links = [...text.matchAll(/\]\(command:([\w.]+)\)/g)].map((m) => m[1]);
      assert.ok(links.length >= 1 && links.length <= 3, `${s.id} has one to three buttons`);
      for (const c of links) assert.ok(ours.has(c) || c.startsWith('workbench.'), `${s.id}: ${c}`);
      const completedBy = s.completionEvents.map((e) => e.replace(/^onCommand:/, ''));
      // Its first button completes it (the config step completes on the fix itself).
      if (s.id !== 'checkConfig') assert.ok(completedBy.includes(links[0]), `${s.id}: its button completes it`);
    }
  }
});

test("the config step's exercise on the sandbox's toolcall.yaml ends clean after the one quick fix it asks for", async () => {
  const { analyze } = await import('../../src/config/engine/engine');
  const { render } = await import('../../src/config/core/l10n-text');
  const page = fs.readFileSync(path.join(repoRoot, 'walkthroughs', 'check-config.md'), 'utf8');
  const file = path.join(repoRoot, 'sample-workspace', 'toolcall', 'toolcall.yaml');
  const original = fs.readFileSync(file, 'utf8');
  // "change `mode: explore` to `mode: Explore`": what the page asks the reader to type there
  const asked = /toolcall\.yaml`?[^.]*?`(mode: \w+)` to `(mode: \w+)`|toolcall\.yaml[^]*?set\s+`(mode: \w+)`/.exec(page);
  assert.ok(asked, 'the page names an edit of toolcall.yaml');
  const [from, to] = asked[3] ? ['mode: explore', asked[3]] : [asked[1], asked[2]];
  assert.ok(original.includes(from), `toolcall.yaml has ${from}`);
  const typo = original.replace(from, to);
  const check = (text: string) => analyze(text, file, { checkPaths: false }).findings.filter((f) => f.severity === 'error');
  const before = check(typo);
  assert.equal(before.length, 1, before.map((f) => render(f.message)).join('\n'));
  const fix = before[0].fixes?.find((x) => x.preferred) ?? before[0].fixes?.[0];
  assert.ok(fix, 'the error offers a quick fix');
  let fixed = typo;
  for (const e of [...fix.edits].sort((a, b) => b.span.start - a.span.start)) fixed = fixed.slice(0, e.span.start) + e.newText + fixed.slice(e.span.end);
  assert.deepEqual(
    check(fixed).map((f) => `${f.code}: ${render(f.message)}`),
    [],
  );
});

test('the Agent RL activity bar container opens Training Metrics, Rollouts and Model Comparisons (it once held only the Ray view)', () => {
  const c = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { views: Record<string, { id: string }[]>; viewsWelcome: { view: string; contents: string }[]; commands: { command: string }[] };
  };
  const ours = c.contributes.views.agentrl.map((v) => v.id);
  const allViews = new Set(Object.values(c.contributes.views).flatMap((vs) => vs.map((v) => v.id)));
  const commands = new Set(c.contributes.commands.map((x) => x.command));
  for (const lang of ['', 'zh-cn']) {
    const links = c.contributes.viewsWelcome
      .filter((w) => ours.includes(w.view))
      .flatMap((w) => [...(nls(lang)[key(w.contents)] ?? '').matchAll(/\]\(command:([\w.]+)\)/g)].map((m) => m[1]));
    for (const want of ['agentrl.metrics.show', 'agentrl.rollouts.focus', 'agentrl.comparisons.focus'])
      assert.ok(links.includes(want), `${lang || 'en'}: ${want} in ${links.join(', ')}`);
    for (const l of links) assert.ok(commands.has(l) || (l.endsWith('.focus') && allViews.has(l.slice(0, -'.focus'.length))), `${l} exists`);
  }
});
