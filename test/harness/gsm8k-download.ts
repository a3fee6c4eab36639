// The corpus's gsm8k rows laid out as a download of `openai/gsm8k` from the Hub: its README
// declares the `main` configuration that Trinity-RFT's gsm8k example configs name with
// `subset_name: main`. Trinity reads a taskset with `datasets.load_dataset(path,
// name=subset_name, split=…)`, and so does the debugger's runner: a plain folder of jsonl files
// has only the `default` configuration, and that call refuses it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sharedDir } from './paths';

/** Writes the download into `into` (made if absent) and returns it: TRINITY_TASKSET_PATH's value. */
export function gsm8kDownload(into: string): string {
  const corpus = path.join(sharedDir, 'corpus', 'datasets', 'gsm8k');
  fs.mkdirSync(path.join(into, 'main'), { recursive: true });
  for (const split of ['train', 'test']) fs.copyFileSync(path.join(corpus, `${split}.jsonl`), path.join(into, 'main', `${split}.jsonl`));
  const files = ['train', 'test'].map((s) => `  - split: ${s}\n    path: main/${s}.jsonl`).join('\n');
  fs.writeFileSync(path.join(into, 'README.md'), `---\nconfigs:\n- config_name: main\n  data_files:\n${files}\n---\n\ngsm8k rows of the corpus\n`);
  return into;
}
