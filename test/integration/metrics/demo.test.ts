// "Agent RL: Start Demo Run" started again after a demo ended: the new demo replaces the old one
// (its connection, its points), so the view shows one "demo: simulated trainer" and the new
// run's charts hold the new run alone — not two identical chips and the new run squeezed into
// the old run's steps. The demo trainer is the real demo/demo_trainer.py (the stand-in for a GPU
// trainer that the demo is), run by the extension.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { DEMO_NAME } from '../../../src/workspace-files/sandbox';
import { until } from '../../harness/wait';
import { activated } from '../extension.test';

const runOf = (id: string) => path.basename(id.replace(/^local:/, ''));

suite('metrics: the demo run', function () {
  this.timeout(180000);

  test('a restarted demo is one run: the old one is forgotten, the new one alone on the charts', async () => {
    const host = (await activated()).metrics.host();
    const first = await vscode.commands.executeCommand<string | undefined>('agentrl.metrics.startDemo', { steps: 4, stepSeconds: 0.2 });
    assert.ok(first, 'the first demo started');
    const firstRun = runOf(first);
    await until('the first demo finishes', () => host.statuses().some((s) => s.id === first && s.state === 'finished'), 90000);
    assert.ok(host.store.runs().includes(firstRun), `its points are stored: ${host.store.runs().join(', ')}`);

    const second = await vscode.commands.executeCommand<string | undefined>('agentrl.metrics.startDemo', { steps: 6, stepSeconds: 0.2 });
    assert.ok(second && second !== first, 'a new demo run, in a job dir of its own');
    const secondRun = runOf(second);
    await until('the new demo streams', () => host.store.runs().includes(secondRun), 90000);
    const demos = host.statuses().filter((s) => s.name === DEMO_NAME);
    assert.deepStrictEqual(
      demos.map((s) => s.id),
      [second],
      'one demo chip',
    );
    assert.ok(!host.store.runs().includes(firstRun), `the old demo's points are gone: ${host.store.runs().join(', ')}`);
    assert.strictEqual(host.store.experiences.countFor(firstRun), 0);
    // What the webview is sent: the new run only.
    const layoutRuns = host.store.runs().filter((r) => r.startsWith('demo-'));
    assert.deepStrictEqual(layoutRuns, [secondRun]);

    await until('the second demo finishes', () => host.statuses().some((s) => s.id === second && s.state === 'finished'), 90000);
    await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id: second });
    host.store.forgetRun(secondRun);
  });
});
