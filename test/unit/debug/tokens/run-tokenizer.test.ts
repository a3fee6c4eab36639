// The debug run's tokenizer: a relative model_path is read from the config file's folder (the
// `npm start` sandbox's toolcall.yaml names `tiny-toolcall`, a folder beside it), so the run gets
// the model's own tokenizer with its chat template — labelled turns — rather than the endpoint's
// /detokenize, which knows no template.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { DebugRunTokenizers } from '../../../../src/debug/tokens/run-tokenizer';
import { skipNoTokenizer, tinyTokenizerDir } from '../../../harness/tiny-tokenizer';

test('a relative model_path is found beside the config, with its chat template', { skip: skipNoTokenizer }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-runtok-'));
  try {
    const configDir = path.join(root, 'toolcall');
    fs.mkdirSync(path.join(configDir, 'tiny-toolcall'), { recursive: true });
    for (const f of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja'])
      fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(configDir, 'tiny-toolcall', f));
    // No endpoint and an empty Hugging Face cache: only the folder beside the config can answer.
    const env = { HF_HUB_CACHE: path.join(root, 'hub') };
    const found = await new DebugRunTokenizers({ modelPath: 'tiny-toolcall', configDir, modelName: 'tiny-toolcall' }, env).get();
    assert.equal(found.kind, 'local', JSON.stringify(found));
    assert.ok(found.kind === 'local' && found.tokenizer.chatTemplate?.includes('<|im_start|>'), 'the chat template is read');
    // Without the config's folder the same name is not a folder here: no tokenizer, and why.
    const none = await new DebugRunTokenizers({ modelPath: 'tiny-toolcall', modelName: 'tiny-toolcall' }, env).get();
    assert.equal(none.kind, 'none');
    // A hub id is not taken for a missing folder beside the config (no extra reason).
    const hub = await new DebugRunTokenizers({ modelPath: 'Org/Missing', configDir }, env).get();
    assert.ok(hub.kind === 'none' && !hub.reason.includes(configDir), hub.kind === 'none' ? hub.reason : '');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
