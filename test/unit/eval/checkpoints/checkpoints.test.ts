import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { listCheckpoints, serveCommands } from '../../../../src/eval/checkpoints/checkpoints';

describe("a Trinity job's checkpoints", () => {
  test('global_step_N folders by step; converted ones serve as they are, the others need trinity convert first', () => {
    const job = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-ckpt-'));
    try {
      // The layout Trinity's trainer writes: actor/ shards, actor/huggingface once converted.
      for (const step of [400, 40, 1200]) fs.mkdirSync(path.join(job, `global_step_${step}`, 'actor'), { recursive: true });
      const hf = path.join(job, 'global_step_400', 'actor', 'huggingface');
      fs.mkdirSync(hf);
      fs.writeFileSync(path.join(hf, 'config.json'), '{}');
      fs.writeFileSync(path.join(hf, 'model.safetensors'), '');
      // Half converted (config only): not servable yet.
      fs.mkdirSync(path.join(job, 'global_step_40', 'actor', 'huggingface'));
      fs.writeFileSync(path.join(job, 'global_step_40', 'actor', 'huggingface', 'config.json'), '{}');
      fs.mkdirSync(path.join(job, 'monitor'));
      const list = listCheckpoints(job);
      assert.deepEqual(
        list.map((c) => [c.step, c.servable]),
        [
          [40, false],
          [400, true],
          [1200, false],
        ],
      );
      assert.deepEqual(
        listCheckpoints(path.join(job, 'global_step_400')).map((c) => c.step),
        [400],
      );
      assert.deepEqual(listCheckpoints(path.join(job, 'missing')), []);

      const ready = serveCommands(list[1], { port: 8005 });
      assert.deepEqual(ready.commands, [`vllm serve ${hf} --served-model-name global_step_400 --host 127.0.0.1 --port 8005`]);
      assert.equal(ready.url, 'http://127.0.0.1:8005/v1');
      const raw = serveCommands(list[2], { baseModel: 'Qwen/Qwen2.5-1.5B-Instruct' });
      assert.equal(raw.commands.length, 2);
      assert.equal(raw.commands[0], `trinity convert --checkpoint-dir ${path.join(job, 'global_step_1200')} --base-model-dir Qwen/Qwen2.5-1.5B-Instruct`);
      assert.match(raw.commands[1], /^vllm serve .*global_step_1200\/actor\/huggingface --served-model-name global_step_1200/);
      assert.match(
        serveCommands({ step: 1, dir: "/tmp/it's here/global_step_1", servable: true }).commands[0],
        /vllm serve '\/tmp\/it'\\''s here\/global_step_1\/actor\/huggingface'/,
      );
    } finally {
      fs.rmSync(job, { recursive: true, force: true });
    }
  });
});
