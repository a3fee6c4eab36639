// The online template's serve + train configs (templates/trinity-online: explorer.yaml in
// `mode: serve`, trainer.yaml in `mode: train`) are proven consistent by the config engine's
// cross-file check, on the files `agentrl new` writes; a disagreement planted in one is
// reported (so the check is really comparing them).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { ConfigIndex } from '../../../../src/config/engine/crossfile';
import { render } from '../../../../src/config/core/l10n-text';
import { run } from '../../../unit/config/helpers';
import { cli, tempDir } from '../../scaffold/helpers';

const scratch = tempDir();
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function check(explorer: string, trainer: string, dir: string) {
  const files = { explorer: path.join(dir, 'explorer.yaml'), trainer: path.join(dir, 'trainer.yaml') };
  const index = new ConfigIndex();
  index.set(files.explorer, run(explorer, { file: files.explorer }).docs[0].facts);
  index.set(files.trainer, run(trainer, { file: files.trainer }).docs[0].facts);
  return { explorer: run(explorer, { file: files.explorer, peers: index }), trainer: run(trainer, { file: files.trainer, peers: index }) };
}

test('trinity-online: the generated serve + train pair agrees; a planted mismatch is reported in both', () => {
  const r = cli(['new', 'trinity-online', path.join(scratch, 'online_agent'), '--no-launch', '--json'], scratch);
  assert.equal(r.code, 0, r.stderr);
  const dir = (JSON.parse(r.stdout) as { projectDir: string }).projectDir;
  const explorer = fs.readFileSync(path.join(dir, 'explorer.yaml'), 'utf8');
  const trainer = fs.readFileSync(path.join(dir, 'trainer.yaml'), 'utf8');
  assert.match(explorer, /^mode: serve$/m);
  assert.match(trainer, /^mode: train$/m);
  const ok = check(explorer, trainer, dir);
  for (const a of [ok.explorer, ok.trainer]) {
    assert.ok(a.docs[0].facts, 'the cross-file check sees the file as half of a job');
    assert.deepEqual(
      a.findings.filter((f) => f.code.startsWith('crossfile') || f.severity === 'error').map((f) => `${f.code} ${render(f.message)}`),
      [],
    );
  }
  const bad = trainer.replace(/name: (\S+)_experiences/, 'name: $1_other_experiences');
  assert.notEqual(bad, trainer, 'the trainer names the shared experience buffer');
  const mism = check(explorer, bad, dir);
  assert.ok(mism.explorer.findings.some((f) => f.code === 'crossfile.mismatch'));
  assert.ok(mism.trainer.findings.some((f) => f.code === 'crossfile.mismatch'));
});
