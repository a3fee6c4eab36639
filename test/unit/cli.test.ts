// main() of the CLI called in process; the bundle (dist/agentrl.js: its shape, its requires, run as
// a child process) is tested in test/component/cli.test.ts.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { main } from '../../src/cli';

test('main() never treats Object.prototype names as commands', async () => {
  let err = '';
  const code = await main(['constructor'], { stdout: () => undefined, stderr: (s) => (err += s) });
  assert.equal(code, 2);
  assert.match(err, /unknown command 'constructor'/);
});
