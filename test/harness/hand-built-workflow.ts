// The hand-built Experience workflows of test/fixtures/debug/hand_built.py, set up in a copy of
// the sample's toolcall folder: the fixture model's tokenizer in a `model` folder the config's
// model_path names (so the debugger finds the run's tokenizer on this machine), the workflow
// module beside the sample's tools, and one config per workflow class.
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from './paths';
import { tinyTokenizerDir } from './tiny-tokenizer';

/** The classes of hand_built.py: the whole response trained (tool output too), the conversion's own
 *  mask, or the whole response trained with the messages left out of the Experience. */
export type HandBuiltWorkflow = 'TrainsOnToolOutput' | 'ConversionMask' | 'WithoutMessages';

/** Writes `<name>.yaml` into `toolcallDir` for each entry, running that class of hand_built.py. */
export function addHandBuiltWorkflows(toolcallDir: string, configs: Record<string, HandBuiltWorkflow>): void {
  const model = path.join(toolcallDir, 'model');
  fs.mkdirSync(model, { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(model, f));
  fs.copyFileSync(path.join(repoRoot, 'test', 'fixtures', 'debug', 'hand_built.py'), path.join(toolcallDir, 'hand_built.py'));
  const yaml = fs.readFileSync(path.join(toolcallDir, 'toolcall.yaml'), 'utf8').replace(/model_path: tiny-toolcall/, `model_path: ${JSON.stringify(model)}`);
  for (const [name, cls] of Object.entries(configs))
    fs.writeFileSync(path.join(toolcallDir, `${name}.yaml`), yaml.replace('workflow.ToolCallWorkflow', `hand_built.${cls}`));
}
