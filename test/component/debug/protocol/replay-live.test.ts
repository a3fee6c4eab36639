// A replay of a training run's experience that diverges, then goes on against the live model
// (src/debug/protocol/replay-live.ts: the adapter's agentrl.replayDiverged event, the
// agentrl.goLive request the extension answers it with), over real DAP. The demo run (the demo
// trainer is the stand-in for the GPU trainer; real rollouts of the llama.cpp fixture model over
// the sample's tool-calling taskset) writes the row; the sample workflow is then edited so its
// first request differs from the recorded one; the fixture model server is the live model.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createConfigChecker } from '../../../../src/config/engine/checker';
import { createExperienceReader } from '../../../../src/relay/experience-reader';
import { GO_LIVE_REQUEST, REPLAY_DIVERGED_EVENT, type ReplayDivergedEvent } from '../../../../src/debug/protocol/replay-live';
import type { RowReplayResult } from '../../../../src/debug/experience/outcome';
import { runDemo, type DemoRow } from '../../../harness/demo-run';
import { startModelServer } from '../../../harness/model-server';
import { repoRoot } from '../../../harness/paths';
import { tmpDir } from '../../relay/helpers';
import { byName, children, launch, scopeVars, sdkPython, skipWithoutModel, startAdapter, topFrame } from '../helpers';

test(
  'a diverged row replay stops, is offered the live model, and goes on against it from the call that diverged',
  { skip: skipWithoutModel, timeout: 900_000 },
  async () => {
    const workspace = path.join(tmpDir('replay-live-'), 'workspace');
    fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
    const job = path.join(workspace, '.agentrl', 'demo', 'demo-run');
    const model = await startModelServer();
    try {
      const usable = (r: DemoRow) => r.taskIndex !== null && r.messages.at(-1)?.role === 'assistant';
      const rows = await runDemo({ jobDir: job, workspace, modelUrl: model.url, enough: (r) => r.some(usable), timeoutMs: 420_000 });
      const row = rows.find(usable)!;
      // The workflow now opens with a system message the recording never had: call 1 diverges.
      const wf = path.join(workspace, 'toolcall', 'workflow.py');
      const src = fs.readFileSync(wf, 'utf8');
      const edited = src.replace(
        'messages = [{"role": "user", "content": question}]',
        'messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": question}]',
      );
      assert.notEqual(edited, src, 'the sample workflow builds its first request as expected');
      fs.writeFileSync(wf, edited);

      const config = path.join(workspace, 'toolcall', 'toolcall.yaml');
      const { dc, close } = await startAdapter({ checker: createConfigChecker({ roots: [workspace] }), experiences: createExperienceReader() });
      try {
        const diverged = dc.waitForEvent(REPLAY_DIVERGED_EVENT, 300_000);
        const stopped = dc.waitForEvent('stopped', 300_000);
        const result = dc.waitForEvent('agentrl.rowReplay', 600_000);
        await launch(dc, {
          config,
          cwd: path.dirname(config),
          workspaceRoot: workspace,
          python: sdkPython,
          pythonDebugger: false,
          record: false,
          rollout: { fromJob: job, id: row.id },
          model: { baseUrl: model.url },
        });
        const stop = (await stopped) as { body: { reason: string; threadId: number } };
        assert.equal(stop.body.reason, 'exception');
        const offer = (await diverged).body as ReplayDivergedEvent;
        assert.equal(offer.call, 1);
        assert.equal(offer.threadId, stop.body.threadId);
        // The Variables view: the recorded experience beside the episode, as training stored it.
        const frame = await topFrame(dc, stop.body.threadId);
        const recorded = await scopeVars(dc, frame.id, 'Recorded experience');
        assert.equal(String(JSON.parse(byName(recorded, 'id').value)), String(row.id));
        assert.equal(Number(byName(recorded, 'reward').value), row.reward);
        assert.equal(Number(byName(recorded, 'model_version').value), row.modelVersion);
        assert.equal(Number(byName(recorded, 'task_index').value), row.taskIndex);
        const messages = await children(dc, byName(recorded, 'messages'));
        assert.equal(messages.length, row.messages.length, 'every recorded message');
        assert.ok((await scopeVars(dc, frame.id, 'Episode')).length > 0, 'the episode scope beside it');
        const continued = dc.waitForEvent('continued', 60_000);
        await dc.customRequest(GO_LIVE_REQUEST, { threadId: offer.threadId });
        // The UI learns the stopped thread runs again (it resumed by a custom request, not a continue).
        assert.equal(((await continued) as { body: { threadId: number } }).body.threadId, offer.threadId);
        const r = (await result).body as RowReplayResult;
        assert.equal(r.diverged_at?.call, 1);
        assert.equal(r.live_from, 1);
        assert.equal(r.error, null);
        assert.equal(typeof r.reward, 'number', 'the episode ran to its reward against the live model');
        assert.ok(r.calls >= 1);
      } finally {
        await close();
      }
    } finally {
      await model.stop();
    }
  },
);
