// A Trinity job's evaluation metrics at its checkpoints' steps, from the job's TensorBoard event
// files (monitor/tensorboard/<role>/events.out.tfevents.*, Trinity's TensorboardMonitor): the
// `eval/…` and `bench/…` scalars (`eval/gsm8k-eval/accuracy/mean@4`), for each checkpoint the
// values logged at its step, else the last ones logged before it (Trinity evaluates every
// eval_interval steps and saves every save_interval). Pure: reads files, runs nothing.
import * as fs from 'fs';
import * as path from 'path';
import { TfRecordFileReader } from '../../tfrecord/file-reader';
import type { ScalarSink } from '../../tfrecord/scalar-sink';

/** Tags of evaluations (Trinity's metric namespace: eval/<taskset>/…, bench/<taskset>/…). */
const EVAL_TAG = /^(eval|bench)\//;
const EVENT_FILE = /^events\.out\.tfevents\./;

/** One tag's evaluations: step → value (the last logged for a step wins). */
export type EvalSeries = Map<string, Map<number, number>>;

export interface StepMetrics {
  /** The step the values were logged at (≤ the checkpoint's step). */
  step: number;
  values: Record<string, number>;
}

function eventFiles(dir: string, depth = 3): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return depth > 0 ? eventFiles(p, depth - 1) : [];
    return e.isFile() && EVENT_FILE.test(e.name) ? [p] : [];
  });
}

/** The evaluation scalars of every event file under `<jobDir>/monitor` (or the folder given);
 *  `problems` names the files that could not be read (the others still count). */
export function readEvalSeries(jobDir: string): { series: EvalSeries; files: number; problems: string[] } {
  const root = fs.existsSync(path.join(jobDir, 'monitor')) ? path.join(jobDir, 'monitor') : jobDir;
  const series: EvalSeries = new Map();
  const sink: ScalarSink = {
    add(tag, step, _wall, value) {
      if (!EVAL_TAG.test(tag) || !Number.isFinite(value)) return;
      const s = series.get(tag) ?? new Map<number, number>();
      series.set(tag, s);
      s.set(step, value);
    },
  };
  const files = eventFiles(root);
  const problems: string[] = [];
  for (const file of files) {
    // Read on this thread: a job's event files are small next to what the relay follows.
    const reader = new TfRecordFileReader(file, 0, { pipelineMinBytes: Infinity });
    try {
      reader.read(sink);
    } catch (e) {
      problems.push(`${file}: ${(e as Error).message}`);
    } finally {
      reader.close();
    }
  }
  return { series, files: files.length, problems };
}

/** The evaluation values for a checkpoint at `step`: those at the latest evaluated step ≤ `step`
 *  (undefined: nothing evaluated by then). */
export function metricsAt(series: EvalSeries, step: number): StepMetrics | undefined {
  let best: number | undefined;
  for (const s of series.values()) for (const k of s.keys()) if (k <= step && (best === undefined || k > best)) best = k;
  if (best === undefined) return undefined;
  const values: Record<string, number> = {};
  for (const [tag, s] of series) {
    const v = s.get(best);
    if (v !== undefined) values[tag] = v;
  }
  return { step: best, values };
}
