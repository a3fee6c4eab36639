// A Trinity job's checkpoints on disk (global_step_N under the job folder,
// checkpoint_root_dir/project/name) and how to serve one so a comparison can target it: a
// checkpoint whose actor/huggingface folder holds config.json and weights serves as is;
// otherwise Trinity's `trinity convert` writes that folder first (Trinity's
// checkpoint_converter.py). Pure: reads folders, runs nothing.
import * as fs from 'fs';
import * as path from 'path';

export interface Checkpoint {
  step: number;
  dir: string;
  /** actor/huggingface holds config.json and weights: vLLM can serve it. */
  servable: boolean;
}

const STEP_DIR = /^global_step_(\d+)$/;

/** The checkpoints of a job folder, by step; the folder itself when it is one. */
export function listCheckpoints(jobDir: string): Checkpoint[] {
  const dirs = STEP_DIR.test(path.basename(jobDir))
    ? [jobDir]
    : (() => {
        try {
          return fs
            .readdirSync(jobDir, { withFileTypes: true })
            .filter((d) => d.isDirectory() && STEP_DIR.test(d.name))
            .map((d) => path.join(jobDir, d.name));
        } catch {
          return [];
        }
      })();
  return dirs.map((dir) => ({ step: Number(STEP_DIR.exec(path.basename(dir))![1]), dir, servable: isServable(dir) })).sort((a, b) => a.step - b.step);
}

function huggingfaceDir(checkpointDir: string): string {
  return path.join(checkpointDir, 'actor', 'huggingface');
}

function isServable(dir: string): boolean {
  const hf = huggingfaceDir(dir);
  try {
    const files = fs.readdirSync(hf);
    return files.includes('config.json') && files.some((f) => /\.(safetensors|bin)$/.test(f));
  } catch {
    return false;
  }
}

const q = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The shell commands that serve `ckpt` as an OpenAI-compatible endpoint, and its URL. */
export function serveCommands(ckpt: Checkpoint, opts: { baseModel?: string; port?: number } = {}): { commands: string[]; url: string; name: string } {
  const port = opts.port ?? 8001;
  const name = `global_step_${ckpt.step}`;
  const convert = ckpt.servable ? [] : [`trinity convert --checkpoint-dir ${q(ckpt.dir)}${opts.baseModel ? ` --base-model-dir ${q(opts.baseModel)}` : ''}`];
  return {
    commands: [...convert, `vllm serve ${q(huggingfaceDir(ckpt.dir))} --served-model-name ${name} --host 127.0.0.1 --port ${port}`],
    url: `http://127.0.0.1:${port}/v1`,
    name,
  };
}
